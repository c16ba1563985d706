// gemini.google.com selectors, from the saved real pages (design §9, tests/e2e/pages) and the
// tools listed in ../shared/data/dom/SELECTORS.md. Newest layout first; `pages` are the
// saved pages each selector must match (checked in Chromium by tests/e2e/test_selectors.py).
// Gemini is an Angular app: its own element names (rich-textarea, user-query, model-response)
// are the stable structure; no selector reads visible or aria-label text (the April 2026
// page has a French interface).
(() => {
  const APRIL_2026 = "acb__gemini_2026-04-13"; // French interface
  const MAY_2026 = "cv__gemini-chat_2026-05-21"; // send button inside <gem-icon-button>
  const JUNE_2025 = "rse__gemini-dom_2025-06-30";
  const LOADING_2025 = "rse__gemini-scrollback-loading-dom_2025-08"; // history still loading: no messages
  const CONVERSATION = [APRIL_2026, MAY_2026, JUNE_2025];
  const COMPOSER = [...CONVERSATION, LOADING_2025];

  Whiteboard.selectors.define("gemini", {
    // The Quill composer.
    editor: [
      { css: 'rich-textarea div.ql-editor[contenteditable="true"]', pages: COMPOSER },
      { css: 'div.ql-editor[contenteditable="true"][role="textbox"]', pages: COMPOSER },
    ],
    // Always present (aria-disabled while the composer is empty). Since May 2026 the
    // clickable <button> sits inside <gem-icon-button class="send-button">.
    sendButton: [
      { css: "gem-icon-button.send-button button", pages: [MAY_2026] },
      { css: "button.send-button", pages: [APRIL_2026, JUNE_2025, LOADING_2025] },
    ],
    form: [], // no form: Enter and the button send
    userMessage: [
      { css: "user-query", pages: CONVERSATION },
    ],
    assistantMessage: [
      { css: "model-response", pages: CONVERSATION },
    ],
    // One element per line of the message (beside it, a visually hidden "You said" label).
    userText: [
      { css: ".query-text .query-text-line", pages: CONVERSATION },
    ],
    assistantText: [
      { css: "message-content .markdown", pages: CONVERSATION },
    ],
    // The finished marker: the reply's markdown panel says aria-busy="false" (it is "true"
    // while the reply streams; the 2025 layout had no aria-busy). The send button turns into
    // a stop button (class "stop" in place of "submit") while a reply streams.
    streaming: [
      { css: 'model-response [aria-busy="true"]', pages: [] },
      { css: ".send-button.stop", pages: [] },
    ],
  });
})();
