"""The extension's typed-text injection (content/chat/editor-input.js) into the real editor
libraries the chat sites run: Quill (Gemini), Lexical (Perplexity), ProseMirror (ChatGPT,
Claude and Grok use it, Grok and Claude through tiptap) and a textarea (DeepSeek, Copilot),
in Chromium. What counts is the editor's own model, which is what the site sends: the
DOM can show the text while the model has dropped its line breaks (Quill) or never took
the text in (Lexical). Nothing goes in as a paste: Perplexity turns long pasted text into an
attachment. The libraries are npm packages installed into tests/e2e/editors/node_modules by
tests/run.sh and .ci/run (tests/e2e/editors/package.json)."""

import json
from pathlib import Path

import pytest

from e2e import harness

EDITORS = Path(__file__).resolve().parent / "editors" / "node_modules"
ORIGIN = "https://editors.test"
TEXT = ("Explain this\n\n---\n[Whiteboard selection · 1 passage]\n"
        "> <b>bold</b> & <img src=x onerror=\"window.__pwned=1\">\n> second line\n---")
CODE = ("Why does this fail?\n\n---\n[Whiteboard selection · 1 passage]\n> def f(a,  b):\n"
        ">     return a  <  b  # &amp; &lt;b&gt; stay as typed\n---")
LONG = TEXT + "\n" + "\n".join(f"> line {i} of a long passage, an attachment if it were pasted" for i in range(300))


def _imports() -> dict[str, str]:
    """An import map for the ES modules: each package's browser entry."""
    imports = {"lexical": "/nm/lexical/Lexical.dev.mjs"}
    for name in ("clipboard", "html", "selection", "utils", "rich-text"):
        module = "".join(part.title() for part in name.split("-"))
        imports[f"@lexical/{name}"] = f"/nm/@lexical/{name}/Lexical{module}.dev.mjs"
    for name in ("prosemirror-model", "prosemirror-state", "prosemirror-view", "prosemirror-transform",
                 "prosemirror-schema-basic", "orderedmap"):
        imports[name] = f"/nm/{name}/dist/index.js"
    return imports


PAGE = f"""<!doctype html><html><head><meta charset="utf-8">
<script type="importmap">{json.dumps({"imports": _imports()})}</script>
<script src="/nm/quill/dist/quill.js"></script></head><body>
<div id="quill"></div>
<div id="lexical" contenteditable="true" data-lexical-editor="true"></div>
<div id="prosemirror"></div>
<textarea id="textarea"></textarea>
<script type="module">
import {{createEditor, $getRoot}} from 'lexical';
import {{registerRichText, HeadingNode, QuoteNode}} from '@lexical/rich-text';
import {{EditorState}} from 'prosemirror-state';
import {{EditorView}} from 'prosemirror-view';
import {{schema}} from 'prosemirror-schema-basic';

const quill = new Quill('#quill');
const lexical = createEditor({{namespace: 'test', nodes: [HeadingNode, QuoteNode], onError: (e) => {{ throw e; }}}});
lexical.setRootElement(document.getElementById('lexical'));
registerRichText(lexical);
const view = new EditorView(document.getElementById('prosemirror'), {{state: EditorState.create({{schema}})}});
const textarea = document.getElementById('textarea');
// Each editor's model as plain text, lines joined by a newline, as the site would send it.
window.modelText = {{
  quill: () => quill.getText().replace(/\\n$/, ''),
  lexical: () => lexical.getEditorState().read(() => $getRoot().getTextContent()),
  prosemirror: () => {{
    const lines = [];
    view.state.doc.forEach((block) => {{
      let line = '';
      block.forEach((node) => {{ line += node.isText ? node.text : (node.type.name === 'hard_break' ? '\\n' : ''); }});
      lines.push(line);
    }});
    return lines.join('\\n');
  }},
  textarea: () => textarea.value,
}};
window.editorOf = {{quill: quill.root, lexical: document.getElementById('lexical'), prosemirror: view.dom, textarea}};
window.pastes = 0;
document.addEventListener('paste', () => {{ window.pastes += 1; }}, true);
window.ready = true;
</script></body></html>"""


@pytest.fixture(scope="module")
def chromium(playwright):
    if not (EDITORS / "quill").is_dir():
        raise RuntimeError(f"{EDITORS} is missing: npm ci --prefix tests/e2e/editors (tests/run.sh does it)")
    browser = playwright.chromium.launch(executable_path=harness.chromium_path(), headless=True,
                                         args=["--no-sandbox", "--disable-background-networking"])
    yield browser
    browser.close()


@pytest.fixture
def editors(chromium):
    page = chromium.new_page()

    def serve(route, request):
        path = request.url[len(ORIGIN):]
        if path.startswith("/nm/"):
            route.fulfill(body=(EDITORS / path[len("/nm/"):]).read_text(encoding="utf-8"),
                          content_type="text/javascript")
        elif path == "/":
            route.fulfill(body=PAGE, content_type="text/html; charset=utf-8")
        else:
            route.abort()

    page.route("**/*", lambda route, request:
               serve(route, request) if request.url.startswith(ORIGIN) else route.abort())
    page.goto(f"{ORIGIN}/")
    page.wait_for_function("() => window.ready === true")
    page.add_script_tag(content=(harness.EXTENSION / "content" / "chat" / "editor-input.js").read_text())
    yield page
    page.close()


def replace(page, editor: str, text: str) -> bool:
    return page.evaluate("([e, t]) => Whiteboard.editorInput.replaceText(editorOf[e], t)", [editor, text])


@pytest.mark.parametrize("editor", ["quill", "lexical", "prosemirror", "textarea"])
@pytest.mark.parametrize("text", [TEXT, LONG, CODE], ids=["block", "long", "spaces"])
def test_the_draft_is_replaced_in_the_editors_own_model_as_typed_text(editors, editor, text):
    editors.evaluate("(e) => editorOf[e].focus()", editor)
    editors.keyboard.type("typed draft")  # what the user typed, to be replaced
    assert editors.evaluate("(e) => modelText[e]()", editor) == "typed draft"
    assert replace(editors, editor, text) is True
    editors.wait_for_timeout(50)  # let an editor that renders later (Lexical) settle
    assert editors.evaluate("(e) => modelText[e]()", editor) == text
    # No markup from the text (ProseMirror draws its own src-less <img> at a line break).
    assert editors.evaluate("(e) => editorOf[e].querySelectorAll('b, img[src]').length", editor) == 0
    assert editors.evaluate("() => [window.pastes, window.__pwned]") == [0, None]  # never a paste


@pytest.mark.parametrize("editor", ["quill", "lexical", "prosemirror", "textarea"])
def test_a_second_replace_leaves_only_the_new_text(editors, editor):
    assert replace(editors, editor, "first\ndraft") is True
    assert replace(editors, editor, TEXT) is True
    editors.wait_for_timeout(50)
    assert editors.evaluate("(e) => modelText[e]()", editor) == TEXT


@pytest.mark.parametrize("editor", ["quill", "lexical", "prosemirror", "textarea"])
def test_the_model_holds_the_text_once_settled(editors, editor):
    """What the send interceptor waits for before the site reads the model (`settled`): no
    more, since on Quill a task would wait behind the page's rendering."""
    editors.evaluate("(e) => editorOf[e].focus()", editor)
    editors.keyboard.type("typed draft")
    held = editors.evaluate("""async ([e, t]) => {
        const ok = await Whiteboard.editorInput.replaceText(editorOf[e], t);
        await Whiteboard.editorInput.settled(editorOf[e]);
        return [ok, modelText[e]()];
    }""", [editor, TEXT])
    assert held == [True, TEXT]


def test_quill_keeps_the_replacement_in_its_own_history(editors):
    """The lines go in as a DOM change Quill reads as the user's, as it reads typing: it is
    one step of Quill's own undo, between the typed draft and what is typed after it."""
    history = "Quill.find(document.getElementById('quill')).getModule('history')"
    model = "() => modelText.quill()"
    editors.evaluate("() => editorOf.quill.focus()")
    editors.keyboard.type("typed draft")
    editors.evaluate(f"() => {history}.cutoff()")  # each change its own undo step
    assert replace(editors, "quill", TEXT) is True
    editors.evaluate(f"() => {history}.cutoff()")
    editors.keyboard.type("!")
    assert editors.evaluate(model) == TEXT + "!"
    editors.evaluate(f"() => {history}.undo()")
    assert editors.evaluate(model) == TEXT
    editors.evaluate(f"() => {history}.undo()")
    assert editors.evaluate(model) == "typed draft"
