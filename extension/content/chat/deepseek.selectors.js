// chat.deepseek.com selectors, from the saved real page (design §9, tests/e2e/pages) and the
// tools listed in ../shared/data/dom/SELECTORS.md; `pages` are the saved pages each
// selector must match (checked in Chromium by tests/e2e/test_selectors.py). DeepSeek's own
// classes are hashed (_27c9245, fbb737a4) and change with each build, so these lean on its
// design-system classes (ds-*) and on structure; none reads visible text.
(() => {
  const MAY_2026 = "cv__deepseek-chat_2026-05-21";

  Whiteboard.selectors.define("deepseek", {
    // A plain <textarea>.
    editor: [
      { css: 'textarea[name="search"]', pages: [MAY_2026] },
      { css: "div:has(> div > textarea) textarea", pages: [MAY_2026] },
    ],
    // The icon button in the toolbar under the textarea (the DeepThink / Search toggles are
    // ds-toggle-buttons); aria-disabled while the composer is empty. deepseek.js takes the last.
    sendButton: [
      { css: 'div:has(> div > textarea) > div .ds-icon-button[role="button"]', pages: [MAY_2026] },
    ],
    form: [], // no form: Enter and the button send
    // Both roles are .ds-message; only the assistant's holds the answer's markdown.
    userMessage: [
      { css: ".ds-message:not(:has(.ds-assistant-message-main-content))", pages: [MAY_2026] },
    ],
    assistantMessage: [
      { css: ".ds-message:has(.ds-assistant-message-main-content)", pages: [MAY_2026] },
    ],
    userText: [],
    // The answer without the "Thought for N seconds" reasoning above it.
    assistantText: [
      { css: ".ds-assistant-message-main-content", pages: [MAY_2026] },
    ],
    streaming: [],
    // The finished marker: the reply's row (one virtual-list item) gets its action buttons
    // (copy, regenerate, like, ...) after the answer once it has finished.
    replyBlock: [
      { css: "[data-virtual-list-item-key]", pages: [MAY_2026] },
    ],
    replyDone: [
      { css: ".ds-icon-button", pages: [MAY_2026] },
    ],
  });
})();
