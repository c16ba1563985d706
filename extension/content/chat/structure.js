// Structural fallbacks for a redesign (design §9): when a role's selectors find nothing, the
// composer is the editable element the user acted in inside the site's composer area, and
// the send button the enabled submit-like button next to it, so interception and injection
// keep working on markup no selector knows. Shape only: no class names, no text.
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

  // The editable the user pressed Enter in, when it is the one field of a composer area.
  function editorAt(node) {
    const editor = editableAt(node);
    const area = editor && areaOf(editor);
    return area && soleField(editor, area) ? editor : null;
  }

  // The first usable editable in the composer area around `node` (a clicked button, a form).
  function editorNear(node) {
    const area = areaOf(node);
    if (!area) return null;
    for (const el of area.querySelectorAll(EDITABLE)) {
      const editor = editableAt(el);
      if (editor) return soleField(editor, area) ? editor : null;
    }
    return null;
  }

  // The enabled submit-like button next to `editor`: its area's submit button, else the
  // area's last enabled button after the editor (where every chat site puts Send).
  function sendButtonNear(editor) {
    const area = editor && areaOf(editor);
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
