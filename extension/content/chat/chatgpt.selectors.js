// chatgpt.com selectors, from the saved real pages (DESIGN §9, tests/e2e/pages) and the
// tools listed in ../shared/data/dom/SELECTORS.md. Newest layout first.
Whiteboard.selectors.define("chatgpt", {
  // The ProseMirror composer (2025-2026).
  editor: [
    { css: "div#prompt-textarea[contenteditable=\"true\"]", pages: ["acb__chatgpt_2026-04-13", "gte__chatgpt_project_page_2025-12-23", "rse__chatgpt-dom-1question-ans-pair--with-python-code-response_2026-03", "rse__chatgpt-dom-1question-ans-pair_2026-03", "rse__chatgpt-dom-2question-ans-pairs_2026-03", "rse__chatgpt-dom-5question-ans-pairs_2026-03", "rse__chatgpt-dom_2025-06-30"] },
    { css: "form[data-type=\"unified-composer\"] div.ProseMirror[contenteditable=\"true\"]", pages: ["acb__chatgpt_2026-04-13", "gte__chatgpt_project_page_2025-12-23", "rse__chatgpt-dom-1question-ans-pair--with-python-code-response_2026-03", "rse__chatgpt-dom-1question-ans-pair_2026-03", "rse__chatgpt-dom-2question-ans-pairs_2026-03", "rse__chatgpt-dom-5question-ans-pairs_2026-03", "rse__chatgpt-dom_2025-06-30"] },
  ],
  // Present only once text is typed (the 2026-03 pages were saved with a draft).
  sendButton: [
    { css: "button#composer-submit-button[data-testid=\"send-button\"]", pages: ["rse__chatgpt-dom-1question-ans-pair--with-python-code-response_2026-03", "rse__chatgpt-dom-1question-ans-pair_2026-03", "rse__chatgpt-dom-2question-ans-pairs_2026-03", "rse__chatgpt-dom-5question-ans-pairs_2026-03"] },
    { css: "button[data-testid=\"send-button\"]", pages: ["rse__chatgpt-dom-1question-ans-pair--with-python-code-response_2026-03", "rse__chatgpt-dom-1question-ans-pair_2026-03", "rse__chatgpt-dom-2question-ans-pairs_2026-03", "rse__chatgpt-dom-5question-ans-pairs_2026-03"] },
    { css: "form[data-type=\"unified-composer\"] button[aria-label=\"Send prompt\"]", pages: ["rse__chatgpt-dom-1question-ans-pair--with-python-code-response_2026-03", "rse__chatgpt-dom-1question-ans-pair_2026-03", "rse__chatgpt-dom-2question-ans-pairs_2026-03", "rse__chatgpt-dom-5question-ans-pairs_2026-03"] },
  ],
  form: [
    { css: "form[data-type=\"unified-composer\"]", pages: ["acb__chatgpt_2026-04-13", "gte__chatgpt_project_page_2025-12-23", "rse__chatgpt-dom-1question-ans-pair--with-python-code-response_2026-03", "rse__chatgpt-dom-1question-ans-pair_2026-03", "rse__chatgpt-dom-2question-ans-pairs_2026-03", "rse__chatgpt-dom-5question-ans-pairs_2026-03", "rse__chatgpt-dom_2025-06-30", "tl__chatgpt_ssr_2026-07-19"] },
  ],
  userMessage: [
    { css: "[data-message-author-role=\"user\"]", pages: ["acb__chatgpt_2026-04-13", "rse__chatgpt-dom-1question-ans-pair--with-python-code-response_2026-03", "rse__chatgpt-dom-1question-ans-pair_2026-03", "rse__chatgpt-dom-2question-ans-pairs_2026-03", "rse__chatgpt-dom-5question-ans-pairs_2026-03", "rse__chatgpt-dom_2025-06-30"] },
    { css: "section[data-testid^=\"conversation-turn-\"][data-turn=\"user\"]", pages: ["acb__chatgpt_2026-04-13", "rse__chatgpt-dom-1question-ans-pair--with-python-code-response_2026-03", "rse__chatgpt-dom-1question-ans-pair_2026-03", "rse__chatgpt-dom-2question-ans-pairs_2026-03", "rse__chatgpt-dom-5question-ans-pairs_2026-03"] },
  ],
  assistantMessage: [
    { css: "[data-message-author-role=\"assistant\"]", pages: ["acb__chatgpt_2026-04-13", "rse__chatgpt-dom-1question-ans-pair--with-python-code-response_2026-03", "rse__chatgpt-dom-1question-ans-pair_2026-03", "rse__chatgpt-dom-2question-ans-pairs_2026-03", "rse__chatgpt-dom-5question-ans-pairs_2026-03", "rse__chatgpt-dom_2025-06-30"] },
    { css: "section[data-testid^=\"conversation-turn-\"][data-turn=\"assistant\"]", pages: ["acb__chatgpt_2026-04-13", "rse__chatgpt-dom-1question-ans-pair--with-python-code-response_2026-03", "rse__chatgpt-dom-1question-ans-pair_2026-03", "rse__chatgpt-dom-2question-ans-pairs_2026-03", "rse__chatgpt-dom-5question-ans-pairs_2026-03"] },
  ],
  // Inside a message, the element holding its text: the user's bubble, the assistant's markdown.
  userText: [
    { css: "div.whitespace-pre-wrap", pages: ["acb__chatgpt_2026-04-13"] },
  ],
  assistantText: [
    { css: "div.markdown", pages: ["acb__chatgpt_2026-04-13"] },
  ],
  // A reply is still streaming while any of these is on the page. The saved pages all
  // show finished replies, so none may match there (KudoAI/chatgpt.js: stop button).
  streaming: [
    { css: "button[data-testid=\"stop-button\"]", pages: [] },
    { css: ".result-streaming", pages: [] },
  ],
});
