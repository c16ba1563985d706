// Reading and replacing a composer's text through the editor's own input path
// (design §8), so the editor's model (ProseMirror/tiptap, Quill, Lexical, a React textarea)
// holds what the page shows, and text is only ever inserted as text, never as a memory's
// markup or a paste (Perplexity turns long pasted text into an attachment). Each step is
// first offered to the editor as a `beforeinput` event: an editor that handles those itself
// (Lexical) cancels it and updates its own state; otherwise execCommand does the step, which
// behaves like typing (ProseMirror and textareas take it in from the DOM change it makes), or,
// on Quill, the lines go in as one DOM change its observer reads (writeQuillLines).
// tests/e2e/test_editor_input.py runs this against the real editor libraries.
(() => {
  const W = (globalThis.Whiteboard ??= {});
  if (W.editorInput) return;

  const isTextControl = (el) => el instanceof HTMLTextAreaElement || el instanceof HTMLInputElement;
  const same = (a, b) => a.replace(/\s+/g, " ").trim() === b.replace(/\s+/g, " ").trim();
  // Quill keeps one block per line and drops a <br> inside a line, so its line breaks are
  // new paragraphs; everywhere else a line break keeps the block's lines in one paragraph.
  const isQuill = (el) => el.classList.contains("ql-editor");
  const isLexical = (el) => el.dataset.lexicalEditor === "true";
  // The text's lines joined by <br>, every character that could open markup or an entity
  // escaped: the only HTML here is the line breaks, whatever a memory's text holds.
  const ESCAPES = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };
  const asLineBreaks = (text) => text.split("\n").map((line) => line.replace(/[&<>"']/g, (c) => ESCAPES[c])).join("<br>");

  // The composer's text. Quill's is its lines' text (each child a line, a list's items
  // too; a bare text node, before Quill wraps it, a line of its own), read without
  // laying the page out: innerText would, and on a page heavy with inline styles (Gemini's)
  // that layout was most of a send's time.
  function readText(editor) {
    if (isTextControl(editor)) return editor.value;
    if (!isQuill(editor)) return editor.innerText;
    const lines = [...editor.childNodes].flatMap((block) => (/^[OU]L$/.test(block.nodeName) ? [...block.children] : [block]));
    return lines.map((line) => line.textContent).join("\n");
  }

  function selectAll(editor) {
    if (isTextControl(editor)) {
      editor.select();
      return;
    }
    const range = document.createRange();
    range.selectNodeContents(editor);
    const selection = document.getSelection();
    selection.removeAllRanges();
    selection.addRange(range);
  }

  // The step offered to the editor as a beforeinput event: true when it left the step to us.
  function offer(editor, inputType, data) {
    const event = new InputEvent("beforeinput", { inputType, data, bubbles: true, cancelable: true, composed: true });
    editor.dispatchEvent(event);
    return !event.defaultPrevented;
  }

  // One editing step: the editor's own beforeinput handling if it has one, else execCommand.
  function step(editor, inputType, command, data = null) {
    if (offer(editor, inputType, data)) document.execCommand(command, false, data);
  }

  // Quill keeps its model from the DOM changes in its root (its MutationObserver, which is
  // how typed text reaches it too), a paragraph per line, an empty line a <p><br></p>. So its
  // lines go in as one DOM change of text nodes (never markup), read by Quill before any
  // later microtask: execCommand's insertText would make the same paragraphs one editing
  // step at a time, each laying the page out (Gemini's :has() rules restyle the composer
  // on every step: 12-19 ms a send on its saved page). The input event tells the page, as
  // typing would; the caret goes to the end.
  function writeQuillLines(editor, text) {
    const lines = text.split("\n").map((line) => {
      const p = document.createElement("p");
      p.append(line ? document.createTextNode(line) : document.createElement("br"));
      return p;
    });
    editor.replaceChildren(...lines);
    const range = document.createRange();
    range.selectNodeContents(lines.at(-1));
    range.collapse(false);
    const selection = document.getSelection();
    selection.removeAllRanges();
    selection.addRange(range);
    editor.dispatchEvent(new InputEvent("input", { inputType: "insertReplacementText", data: text, bubbles: true, composed: true }));
  }

  // A new task (after pending microtasks such as MutationObserver callbacks, without the
  // clamping setTimeout may add), so an editor that renders its state asynchronously
  // (Lexical) has done so.
  function nextTask() {
    return new Promise((resolve) => {
      const channel = new MessageChannel();
      channel.port1.onmessage = () => resolve();
      channel.port2.postMessage(null);
    });
  }

  // Replaces everything in the editor with `text`; resolves true when the editor then
  // shows it. In a rich editor the lines stay in one paragraph with line breaks between
  // (what Shift+Enter makes): a newline inside insertText would open a new paragraph, and
  // paragraphs read back with blank lines between them. ProseMirror and tiptap take the
  // whole text in one insertHTML step of escaped lines and <br>s: a step per line and per
  // break laid the page out and ran the site's input handlers each time (1-2 ms a line on
  // the saved pages, the larger part of a send with memories). Lexical gets a beforeinput
  // event per line and per break, which it handles itself.
  async function replaceText(editor, text) {
    editor.focus();
    selectAll(editor);
    if (isTextControl(editor)) {
      document.execCommand("insertText", false, text);
      return same(readText(editor), text);
    }
    if (isQuill(editor)) {
      if (offer(editor, "insertReplacementText", text)) writeQuillLines(editor, text);
      return same(readText(editor), text); // Quill took the lines in within that microtask
    }
    if (isLexical(editor)) {
      step(editor, "deleteContentBackward", "delete");
      text.split("\n").forEach((line, i) => {
        if (i > 0) step(editor, "insertLineBreak", "insertLineBreak");
        if (line) step(editor, "insertText", "insertText", line);
      });
    } else if (offer(editor, "insertText", text)) {
      document.execCommand("insertHTML", false, asLineBreaks(text));
    }
    if (same(readText(editor), text)) return true;
    await nextTask();
    return same(readText(editor), text);
  }

  // Resolves once the editor's model holds what replaceText put in, for the site to read:
  // after one task (ProseMirror, React, Lexical may take it in late); Quill has already
  // (its MutationObserver ran before the caller's continuation), and a task there would wait
  // behind the page's rendering (10 ms on Gemini's saved page).
  const settled = (editor) => (isQuill(editor) ? Promise.resolve() : nextTask());

  W.editorInput = Object.freeze({ readText, replaceText, same, settled });
})();
