// claude.ai selectors, from the saved real pages (design §9, tests/e2e/pages) and the
// tools listed in ../shared/data/dom/SELECTORS.md. Newest layout first; `pages` are the
// saved pages each selector must match (checked in Chromium by tests/e2e/test_selectors.py).
(() => {
  const APRIL_2026 = "acb__claude_2026-04-13";
  // 2025 assistant-message fragments (the old .font-claude-message class).
  const FRAGMENTS_2025 = ["rse__claude-codeblock-larger-dom_2025-08",
                          "rse__claude-single-user-response-with-artifact-dom_2025-08"];

  Whiteboard.selectors.define("claude", {
    // The tiptap (ProseMirror) composer.
    editor: [
      { css: 'div[data-testid="chat-input"][contenteditable="true"]', pages: [APRIL_2026] },
      { css: 'fieldset div.tiptap.ProseMirror[contenteditable="true"]', pages: [APRIL_2026] },
    ],
    // Shown once text is typed; no saved page holds a draft (OneClickPrompts, SELECTORS.md).
    sendButton: [
      { css: 'fieldset button[aria-label="Send message"]', pages: [] },
      { css: 'button[aria-label="Send message"]', pages: [] },
    ],
    form: [], // the composer is a fieldset, not a form: Enter and the button send
    userMessage: [
      { css: '[data-testid="user-message"]', pages: [APRIL_2026] },
    ],
    assistantMessage: [
      { css: "[data-is-streaming] .font-claude-response:not(#markdown-artifact)", pages: [APRIL_2026] },
      { css: "[data-is-streaming] .font-claude-message", pages: FRAGMENTS_2025 },
    ],
    // The message element's own text is used.
    userText: [],
    assistantText: [],
    // A reply streams while its container says data-is-streaming="true"; saved pages show none.
    streaming: [
      { css: '[data-is-streaming="true"]', pages: [] },
      { css: 'button[aria-label="Stop response"]', pages: [] },
    ],
  });
})();
