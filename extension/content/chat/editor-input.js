// Reading and replacing a composer's text through the editor's own input path
// (design §8): execCommand("insertText") behaves like typing, so ProseMirror/tiptap
// state and undo stay right, and text is only ever inserted as text, never as markup.
(() => {
  const W = (globalThis.Whiteboard ??= {});
  if (W.editorInput) return;

  const isTextControl = (el) => el instanceof HTMLTextAreaElement || el instanceof HTMLInputElement;
  const same = (a, b) => a.replace(/\s+/g, " ").trim() === b.replace(/\s+/g, " ").trim();

  function readText(editor) {
    return isTextControl(editor) ? editor.value : editor.innerText;
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

  // Replaces everything in the editor with `text`; true when the editor now holds it.
  // In a rich editor each line goes in as typed text with a line break between (what
  // Shift+Enter does), so the block's lines stay single lines in the message: a newline
  // inside insertText would open a new paragraph, and paragraphs read back with blank
  // lines between them.
  function replaceText(editor, text) {
    editor.focus();
    selectAll(editor);
    if (isTextControl(editor)) {
      document.execCommand("insertText", false, text);
    } else {
      document.execCommand("delete", false);
      text.split("\n").forEach((line, i) => {
        if (i > 0) document.execCommand("insertLineBreak", false);
        if (line) document.execCommand("insertText", false, line);
      });
    }
    return same(readText(editor), text);
  }

  W.editorInput = Object.freeze({ readText, replaceText, same });
})();
