// chat.deepseek.com selectors, from the saved real page (design §9, tests/e2e/pages) and the
// tools listed in ../shared/data/dom/SELECTORS.md; `pages` are the saved pages each
// selector must match (checked in Chromium by tests/e2e/test_selectors.py). DeepSeek's own
// classes are hashed (_27c9245, fbb737a4) and change with each build, so these lean on its
// design-system classes (ds-*) and on structure; none reads visible text.
(() => {
  // The version served beside the old from 2026-10-04 (FIELD-2026-10.md; built from the
  // documented structure, not saved): rows with hashed classes only, one round button for
  // send and stop told apart by its icon's svg path.
  const OCT_2026 = "obs__deepseek_2026-10";
  const MAY_2026 = "cv__deepseek-chat_2026-05-21";
  const BOTH = [OCT_2026, MAY_2026];
  const ROUND_BUTTON = 'div[role="button"].ds-button--primary.ds-button--circle';
  const SEND_ICON = 'path[d^="M8.3125 0.980206"]';
  const STOP_ICON = 'path[d^="M2 4.88"]';

  Whiteboard.selectors.define("deepseek", {
    // A plain <textarea>.
    editor: [
      { css: 'textarea[name="search"]', pages: [MAY_2026] },
      { css: "div:has(> div > textarea) textarea", pages: BOTH },
    ],
    // The icon button in the toolbar under the textarea (the DeepThink / Search toggles are
    // ds-toggle-buttons); aria-disabled while the composer is empty. deepseek.js takes the last.
    // October 2026: the round button while it shows its send icon (the same element shows
    // the stop icon while a reply streams; its aria-label is empty).
    sendButton: [
      { css: `${ROUND_BUTTON}:has(${SEND_ICON})`, pages: [OCT_2026] },
      { css: 'div:has(> div > textarea) > div .ds-icon-button[role="button"]', pages: [MAY_2026] },
    ],
    form: [], // no form: Enter and the button send
    // Both roles are .ds-message; only the assistant's holds the answer's markdown.
    // October 2026: the user's text is .ds-collapsible-text. The side panel's list (a second
    // .ds-virtual-list) holds no .ds-message, so these never read it.
    userMessage: [
      { css: ".ds-message:has(> .ds-collapsible-text)", pages: [OCT_2026] },
      { css: ".ds-message:not(:has(.ds-assistant-message-main-content))", pages: BOTH },
    ],
    assistantMessage: [
      { css: ".ds-message:has(.ds-assistant-message-main-content)", pages: BOTH },
    ],
    userText: [
      { css: ".ds-collapsible-text", pages: [OCT_2026] },
    ],
    // The answer without the "Thought for N seconds" reasoning above it.
    assistantText: [
      { css: ".ds-assistant-message-main-content", pages: BOTH },
    ],
    // October 2026: the round button shows its stop icon, or a spinner while the model thinks.
    streaming: [
      { css: `${ROUND_BUTTON}:has(${STOP_ICON})`, pages: [] },
      { css: `${ROUND_BUTTON} .ds-loading`, pages: [] },
    ],
    // October 2026: its rows get no action buttons after an answer, so the round button
    // showing its send icon says no reply streams (the May rows' marker below is not awaited).
    idle: [
      { css: `${ROUND_BUTTON}:has(${SEND_ICON})`, pages: [OCT_2026] },
    ],
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
