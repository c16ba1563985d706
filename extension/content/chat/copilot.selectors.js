// copilot.microsoft.com / www.copilot.com selectors, from the saved real pages (design §9,
// tests/e2e/pages) and the tools listed in ../shared/data/dom/SELECTORS.md; `pages` are the
// saved pages each selector must match (checked in Chromium by tests/e2e/test_selectors.py).
// Copilot marks its parts with data-content and data-testid; none of these reads text.
(() => {
  const MARCH_2026 = "rse__copilot-dom-2question-ans-pairs_2026-03";
  const AUGUST_2025 = "rse__copilot-chat-dom_2025-08"; // the conversation only: no composer
  const CONVERSATION = [MARCH_2026, AUGUST_2025];

  Whiteboard.selectors.define("copilot", {
    // A plain <textarea>.
    editor: [
      { css: 'textarea#userInput[data-testid="composer-input"]', pages: [MARCH_2026] },
      { css: '[data-testid="composer"] textarea', pages: [MARCH_2026] },
    ],
    // Shown once text is typed, in place of the voice button (OneClickPrompts, SELECTORS.md).
    sendButton: [
      { css: '[data-testid="composer"] button[data-testid="submit-button"]', pages: [] },
      { css: 'button[data-testid="submit-button"]', pages: [] },
    ],
    form: [], // no form: Enter and the button send
    userMessage: [
      { css: '[data-content="user-message"]', pages: CONVERSATION },
    ],
    assistantMessage: [
      { css: '[data-content="ai-message"]', pages: CONVERSATION },
    ],
    userText: [],
    // The reply's parts (id "<message>-content-<n>"), without the sr-only "Copilot said" heading.
    assistantText: [
      { css: '[id*="-content-"]', pages: CONVERSATION },
    ],
    streaming: [
      { css: '[data-testid="composer"] button[data-testid="stop-button"]', pages: [] },
    ],
    // The finished marker: the reply's reaction bar (thumbs, share, copy, ...) appears in
    // the message once it has finished.
    replyBlock: [],
    replyDone: [
      { css: '[data-testid="message-item-reactions"]', pages: CONVERSATION },
    ],
  });
})();
