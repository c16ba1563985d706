// Structural fallbacks for a redesign (design §9): when a role's selectors find nothing, the
// composer is the page's one composer-shaped editable, anchored at the site's composer form
// when its selectors find that (docs/extension.md, "Hostile pages"), and the send button the
// enabled submit-like button of its area, so interception and injection keep working on
// markup no selector knows. Never "the only field of any area": a field in a dialog, a menu,
// navigation or a list (settings, feedback, a rename) is not a composer, nor is any field
// when the page has several candidates. Shape only: no class names, no text.
(() => {
  const W = (globalThis.Whiteboard ??= {});
  if (W.structure) return;
  const EDITABLE = 'textarea, [contenteditable]:not([contenteditable="false"])';
  const BUTTON = 'button, [role="button"]';
  const AREA = "form, fieldset";
  const LEVELS_UP = 6; // how far above an editable a form-less composer area may start

  const elementOf = (node) => (node && node.nodeType === Node.ELEMENT_NODE ? node : node?.parentElement) || null;
  const shown = (el) => !el.closest("[inert], [hidden], [aria-hidden='true']") &&
                        (typeof el.checkVisibility !== "function" || el.checkVisibility());
  const enabled = (b) => !b.disabled && b.getAttribute("aria-disabled") !== "true" && shown(b);

  // The editable element at `node`: a textarea, or the outermost contenteditable (ProseMirror
  // nests its own), when it can be typed in.
  function editableAt(node) {
    let el = elementOf(node)?.closest(EDITABLE);
    if (!el) return null;
    if (el instanceof HTMLTextAreaElement) return !el.disabled && !el.readOnly && shown(el) ? el : null;
    while (el.parentElement && el.parentElement.isContentEditable) el = el.parentElement;
    return el.isContentEditable && shown(el) ? el : null;
  }

  // The composer area around an element: its form or fieldset, else the nearest ancestor
  // (a few levels up) that holds both an editable element and a button.
  function areaOf(node) {
    const el = elementOf(node);
    if (!el) return null;
    const area = el.closest(AREA);
    if (area) return area;
    let up = el.parentElement;
    for (let i = 0; up && up !== document.body && i < LEVELS_UP; i += 1, up = up.parentElement) {
      if (up.querySelector(BUTTON) && up.querySelector(EDITABLE)) return up;
    }
    return null;
  }

  const FIELD = `${EDITABLE}, input:not([type]), input[type="text"], input[type="search"], input[type="email"], input[type="url"]`;

  // A composer is the one field of its area: a form with several (settings, a profile, the
  // editor of a custom assistant) is not a chat composer, and Enter there is left alone.
  function soleField(editor, area) {
    return ![...area.querySelectorAll(FIELD)].some((f) => f !== editor && !editor.contains(f) && !f.contains(editor) &&
                                                          !f.parentElement?.isContentEditable && shown(f));
  }

  // Where no composer is: dialogs (settings, feedback), popovers, menus, navigation, side
  // panels, headers, lists (a conversation renamed in place) and search boxes.
  const NOT_COMPOSER = ["dialog", "[popover]", "nav", "aside", "header", "li",
    ...["dialog", "alertdialog", "navigation", "complementary", "banner", "menu", "menubar", "listbox", "tree",
        "treegrid", "grid", "search"].map((role) => `[role="${role}"]`), '[aria-modal="true"]'].join(", ");

  // The area a structural composer sends from: the site's composer form when it holds it.
  const areaFor = (editor, form) => (form && form.contains(editor) ? form : areaOf(editor));

  // The structural composer: inside the site's composer form when its selectors find one,
  // else anywhere outside NOT_COMPOSER; the sole field of its area; and the only such
  // editable on the page (two candidates: none is taken).
  function composer(form) {
    const found = new Set();
    for (const el of (form || document).querySelectorAll(EDITABLE)) {
      const editor = editableAt(el);
      if (!editor || found.has(editor) || (!form && editor.closest(NOT_COMPOSER))) continue;
      const area = areaFor(editor, form);
      if (area && soleField(editor, area)) found.add(editor);
      if (found.size > 1) return null;
    }
    return found.size === 1 ? [...found][0] : null;
  }

  // The structural composer when the user pressed Enter (or typed) in it.
  function editorAt(node, form = null) {
    const editor = editableAt(node);
    return editor && editor === composer(form) ? editor : null;
  }

  // The structural composer when `node` (a clicked button, a submitted form) is in its area.
  function editorNear(node, form = null) {
    const el = elementOf(node);
    const editor = el && composer(form);
    return editor && areaFor(editor, form)?.contains(el) ? editor : null;
  }

  // The enabled submit-like button next to `editor`: its area's (the site's composer form's)
  // submit button, else the area's last enabled button after the editor (where every chat
  // site puts Send).
  function sendButtonNear(editor, form = null) {
    const area = editor && areaFor(editor, form);
    if (!area) return null;
    const buttons = [...area.querySelectorAll(BUTTON)].filter((b) => enabled(b) && !editor.contains(b));
    const submit = buttons.find((b) => b.matches('button[type="submit"]') || (b.matches("button:not([type])") && b.form));
    if (submit) return submit;
    return buttons.filter((b) => editor.compareDocumentPosition(b) & Node.DOCUMENT_POSITION_FOLLOWING).at(-1) || null;
  }

  // Whether `node` is in a button at all: no structural send button can hold it otherwise.
  const inButton = (node) => Boolean(elementOf(node)?.closest(BUTTON));

  W.structure = Object.freeze({ editorAt, editorNear, sendButtonNear, areaOf, inButton, isShown: shown });
})();
