// grok.com selectors, from the saved real pages (design §9, tests/e2e/pages) and the tools
// listed in ../shared/data/dom/SELECTORS.md. Newest layout first; `pages` are the saved
// pages each selector must match (checked in Chromium by tests/e2e/test_selectors.py).
// No selector reads visible or aria-label text: the interface is translated.
(() => {
  const APRIL_2026 = "acb__grok_2026-04-13";
  const MARCH_2026 = "rse__grok-dom-5question-ans-pairs_2026-03";
  // Hand-written from the facts of a 2026-09 page whose licence (AGPL-3.0) keeps it out.
  const SEPT_2026 = "wb__grok_2026-09-14_from-facts";
  const ALL = [SEPT_2026, APRIL_2026, MARCH_2026];

  Whiteboard.selectors.define("grok", {
    // The tiptap (ProseMirror) composer. The page also has a hidden autosize <textarea>.
    editor: [
      { css: '[data-testid="chat-input"] .ProseMirror[contenteditable="true"]', pages: [SEPT_2026] },
      { css: '.query-bar .tiptap.ProseMirror[contenteditable="true"]', pages: ALL },
    ],
    // Present (disabled) while the composer is empty in the spring 2026 pages; the
    // September page shows no submit button until text is typed.
    sendButton: [
      { css: 'form:has(.query-bar) button[type="submit"]', pages: [APRIL_2026, MARCH_2026] },
    ],
    form: [
      { css: "form:has(.query-bar)", pages: ALL },
    ],
    // Each turn is div[id^="response-"]: .items-end for the user, .items-start for Grok,
    // the message in its .message-bubble (with role test ids since September 2026).
    userMessage: [
      { css: '[data-testid="user-message"]', pages: [SEPT_2026] },
      { css: 'div[id^="response-"].items-end .message-bubble', pages: ALL },
    ],
    assistantMessage: [
      { css: '[data-testid="assistant-message"]', pages: [SEPT_2026] },
      { css: 'div[id^="response-"].items-start .message-bubble', pages: ALL },
    ],
    userText: [
      { css: ".response-content-markdown", pages: ALL },
    ],
    // Grok's answer only, without the "Worked for Ns" thinking header.
    assistantText: [
      { css: ".response-content-markdown", pages: ALL },
    ],
    streaming: [],
    // The finished marker: the turn's .action-buttons bar (Copy, Regenerate, ...) follows
    // the reply once it has finished.
    replyBlock: [
      { css: 'div[id^="response-"]', pages: ALL },
    ],
    replyDone: [
      { css: ".action-buttons", pages: ALL },
    ],
  });
})();
