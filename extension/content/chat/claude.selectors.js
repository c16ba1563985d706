// claude.ai selectors, from the saved real pages (DESIGN §9, tests/e2e/pages) and the
// tools listed in ../shared/data/dom/SELECTORS.md. Newest layout first.
Whiteboard.selectors.define("claude", {
  // The tiptap (ProseMirror) composer.
  editor: [
    { css: "div[data-testid=\"chat-input\"][contenteditable=\"true\"]", pages: ["acb__claude_2026-04-13"] },
    { css: "fieldset div.tiptap.ProseMirror[contenteditable=\"true\"]", pages: ["acb__claude_2026-04-13"] },
  ],
  // Shown once text is typed; no saved page has a draft (OneClickPrompts, SELECTORS.md).
  sendButton: [
    { css: "fieldset button[aria-label=\"Send message\"]", pages: [] },
    { css: "button[aria-label=\"Send message\"]", pages: [] },
  ],
  form: [],
  userMessage: [
    { css: "[data-testid=\"user-message\"]", pages: ["acb__claude_2026-04-13"] },
  ],
  assistantMessage: [
    { css: "[data-is-streaming] .font-claude-response:not(#markdown-artifact)", pages: ["acb__claude_2026-04-13"] },
    // 2025 layout.
    { css: "[data-is-streaming] .font-claude-message", pages: ["rse__claude-codeblock-larger-dom_2025-08", "rse__claude-single-user-response-with-artifact-dom_2025-08"] },
  ],
  // The message element's own text is used.
  userText: [],
  assistantText: [],
  // A reply streams while its container says data-is-streaming="true".
  streaming: [
    { css: "[data-is-streaming=\"true\"]", pages: [] },
    { css: "button[aria-label=\"Stop response\"]", pages: [] },
  ],
});
