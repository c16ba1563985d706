// chatgpt.com selectors, from the saved real pages (design §9, tests/e2e/pages) and the
// tools listed in ../shared/data/dom/SELECTORS.md. Newest layout first; `pages` are the
// saved pages each selector must match (checked in Chromium by tests/e2e/test_selectors.py).
(() => {
  const APRIL_2026 = "acb__chatgpt_2026-04-13";
  const PROJECT_2025 = "gte__chatgpt_project_page_2025-12-23";
  const JUNE_2025 = "rse__chatgpt-dom_2025-06-30";
  const SERVER_HTML = "tl__chatgpt_ssr_2026-07-19"; // before hydration: no composer, no turns
  // Saved with a draft typed, so the send button is there.
  const WITH_DRAFT = ["rse__chatgpt-dom-1question-ans-pair--with-python-code-response_2026-03",
                      "rse__chatgpt-dom-1question-ans-pair_2026-03", "rse__chatgpt-dom-2question-ans-pairs_2026-03",
                      "rse__chatgpt-dom-5question-ans-pairs_2026-03"];
  const COMPOSER = [APRIL_2026, PROJECT_2025, ...WITH_DRAFT, JUNE_2025];
  const CONVERSATION = [APRIL_2026, ...WITH_DRAFT, JUNE_2025];
  const TURN_SECTIONS = [APRIL_2026, ...WITH_DRAFT]; // 2026: section[data-turn]; 2025 used <article>

  Whiteboard.selectors.define("chatgpt", {
    // The ProseMirror composer.
    editor: [
      { css: 'div#prompt-textarea[contenteditable="true"]', pages: COMPOSER },
      { css: 'form[data-type="unified-composer"] div.ProseMirror[contenteditable="true"]', pages: COMPOSER },
    ],
    // Present only once text is typed.
    sendButton: [
      { css: 'button#composer-submit-button[data-testid="send-button"]', pages: WITH_DRAFT },
      { css: 'button[data-testid="send-button"]', pages: WITH_DRAFT },
      { css: 'form[data-type="unified-composer"] button[aria-label="Send prompt"]', pages: WITH_DRAFT },
    ],
    form: [
      { css: 'form[data-type="unified-composer"]', pages: [...COMPOSER, SERVER_HTML] },
    ],
    userMessage: [
      { css: '[data-message-author-role="user"]', pages: CONVERSATION },
      { css: 'section[data-testid^="conversation-turn-"][data-turn="user"]', pages: TURN_SECTIONS },
    ],
    assistantMessage: [
      { css: '[data-message-author-role="assistant"]', pages: CONVERSATION },
      { css: 'section[data-testid^="conversation-turn-"][data-turn="assistant"]', pages: TURN_SECTIONS },
    ],
    // Inside a message, the element holding its text: the user's bubble, the assistant's markdown.
    userText: [
      { css: "div.whitespace-pre-wrap", pages: CONVERSATION },
    ],
    assistantText: [
      { css: "div.markdown", pages: CONVERSATION },
    ],
    // A reply is still streaming while any of these is on the page. Every saved page shows
    // finished replies, so none may match there (stop button: KudoAI/chatgpt.js).
    streaming: [
      { css: 'button[data-testid="stop-button"]', pages: [] },
      { css: ".result-streaming", pages: [] },
    ],
  });
})();
