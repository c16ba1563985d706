// claude.ai selectors, from the saved real pages (design §9, tests/e2e/pages) and
// ../shared/data/dom/LAYOUT-2026-late.md. Newest layout first, older ones kept as fallbacks
// (layouts roll out per account). Structure and stable attributes only, never visible or
// aria-label text (the interface is translated). `pages` are the saved pages each selector
// must match (checked in Chromium by tests/e2e/test_selectors.py).
(() => {
  // Built from documented observations, not saved (tests/e2e/pages/README.md): the "hub"
  // layout of October 2026, and the virtualised transcript of September 2026.
  const HUB = "obs__claude-hub_2026-10";
  const TRANSCRIPT = "obs__claude-transcript_2026-09";
  const APRIL_2026 = "acb__claude_2026-04-13";
  // 2025 assistant-message fragments (the old .font-claude-message class).
  const FRAGMENTS_2025 = ["rse__claude-codeblock-larger-dom_2025-08",
                          "rse__claude-single-user-response-with-artifact-dom_2025-08"];

  Whiteboard.selectors.define("claude", {
    // The tiptap (ProseMirror) composer: the same test id in every layout.
    editor: [
      { css: 'div[data-testid="chat-input"][contenteditable="true"]', pages: [HUB, TRANSCRIPT, APRIL_2026] },
      { css: 'fieldset div.tiptap.ProseMirror[contenteditable="true"]', pages: [HUB, TRANSCRIPT, APRIL_2026] },
    ],
    // Rendered but disabled (inside an inert wrapper) while the draft is empty: the framework
    // only ever presses an enabled one. The April 2026 page predates the test id; the
    // framework's structural fallback finds its button.
    sendButton: [
      { css: 'button[data-testid="chat-input-send"]', pages: [HUB, TRANSCRIPT] },
    ],
    form: [], // the composer is a fieldset, not a form: Enter and the button send
    // Either attribute family may be missing for some accounts (LAYOUT-2026-late §2.1,
    // "Variants"), so one selector takes both: the UserMessage element, or a bare
    // user-message test id (every layout before the hub has one) outside any.
    userMessage: [
      { css: '[data-cds="UserMessage"], [data-testid="user-message"]:not([data-cds="UserMessage"] *)',
        pages: [HUB, TRANSCRIPT, APRIL_2026] },
    ],
    assistantMessage: [
      { css: '[data-testid="assistant-message"], [data-cds="AssistantMessage"]', pages: [HUB] },
      { css: "[data-is-streaming] .font-claude-response:not(#markdown-artifact)", pages: [TRANSCRIPT, APRIL_2026] },
      { css: "[data-is-streaming] .font-claude-message", pages: FRAGMENTS_2025 },
    ],
    // The reply's own text, without its "Searched the web" status line or heading.
    userText: [
      { css: '[data-testid="user-message"]', pages: [HUB, TRANSCRIPT, APRIL_2026] },
      { css: ".cds-user-message-body", pages: [HUB, TRANSCRIPT] },
    ],
    assistantText: [
      { css: "[data-perf-reply-text]", pages: [HUB, TRANSCRIPT] },
      { css: ".standard-markdown", pages: [HUB, TRANSCRIPT, APRIL_2026] },
    ],
    // A reply streams while its node says data-is-streaming="true", and also before that:
    // Claude mounts the reply about 170 ms after a send with no data-is-streaming at all
    // and sets it late (LAYOUT-2026-late §2.3), so a reply without the attribute streams.
    streaming: [
      { css: '[data-is-streaming="true"]', pages: [] },
      { css: '[data-testid="assistant-message"]:not([data-is-streaming])', pages: [] },
      { css: '[data-cds="AssistantMessage"]:not([data-is-streaming])', pages: [] },
      { css: '[data-testid="transcript-row"][data-perf-row="assistant"]:not(:has([data-is-streaming]))', pages: [] },
      { css: 'button[data-testid="chat-input-stop"]', pages: [] },
    ],
  });
})();
