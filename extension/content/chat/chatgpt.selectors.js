// chatgpt.com selectors, from the saved real pages (design §9, tests/e2e/pages) and
// ../shared/data/dom/LAYOUT-2026-late.md. Newest layout first, older ones kept as fallbacks
// (both are live during a rollout). Structure and stable attributes only, never visible or
// aria-label text (the interface is translated). `pages` are the saved pages each selector
// must match (checked in Chromium by tests/e2e/test_selectors.py).
(() => {
  // The renderer rolled out from late September 2026 (sanitised recordings: orc__).
  const NEW_DONE = "orc__chatgpt-completed_2026-09__idx";
  const NEW_STREAMING = "orc__chatgpt-streaming_2026-09__idx";
  const NEW = [NEW_DONE, NEW_STREAMING];
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
    // The ProseMirror composer: in the new renderer a [data-composer-markdown] box in
    // form[data-chatgpt-composer] (no #prompt-textarea any more).
    editor: [
      { css: 'form[data-chatgpt-composer] [data-composer-markdown][contenteditable="true"]', pages: NEW },
      { css: 'div#prompt-textarea[contenteditable="true"]', pages: COMPOSER },
      { css: 'form[data-type="unified-composer"] div.ProseMirror[contenteditable="true"]', pages: COMPOSER },
    ],
    // Present only once text is typed. The new renderer's was never captured with a draft
    // (its slot holds a voice or stop button otherwise, with no test id): the framework's
    // structural fallback finds it, the last enabled button of the composer form.
    sendButton: [
      { css: 'button#composer-submit-button[data-testid="send-button"]', pages: WITH_DRAFT },
      { css: 'button[data-testid="send-button"]', pages: WITH_DRAFT },
    ],
    form: [
      { css: "form[data-chatgpt-composer]", pages: NEW },
      { css: 'form[data-type="unified-composer"]', pages: [...COMPOSER, SERVER_HTML] },
    ],
    // The outer wrapper keeps its key while the site re-creates the inner unit (a live capture
    // of 2026-10-05, FIELD-2026-10.md): the wrapper first, the inner unit kept.
    userMessage: [
      { css: '[data-chatgpt-search-unit-key$=":user"]', pages: NEW },
      { css: '[data-content-search-unit-key$=":user"]', pages: NEW },
      { css: '[data-message-author-role="user"]', pages: CONVERSATION },
      { css: 'section[data-testid^="conversation-turn-"][data-turn="user"]', pages: TURN_SECTIONS },
    ],
    // The new renderer gives a reply its unit key only once it has finished, so a reply
    // still streaming is not a message yet.
    assistantMessage: [
      { css: '[data-content-search-unit-key$=":assistant"]', pages: [NEW_DONE] },
      { css: '[data-message-author-role="assistant"]', pages: CONVERSATION },
      { css: 'section[data-testid^="conversation-turn-"][data-turn="assistant"]', pages: TURN_SECTIONS },
    ],
    // Inside a message, the element holding its text: the user's bubble, the assistant's
    // answer (new: the block under the selection id, without the "ChatGPT said:" heading).
    userText: [
      { css: "div.whitespace-pre-wrap", pages: [...NEW, ...CONVERSATION] },
    ],
    assistantText: [
      { css: "[data-chatgpt-selection-message-id]", pages: [NEW_DONE] },
      { css: "div.markdown", pages: CONVERSATION },
    ],
    // A reply is still streaming while any of these is on the page. The new renderer's
    // stop button has only an aria-label (translated), so its growing answer block is the
    // marker: data-markdown-animated (LAYOUT-2026-late §1.2).
    streaming: [
      { css: "[data-markdown-animated]", pages: [NEW_STREAMING] },
      { css: 'button[data-testid="stop-button"]', pages: [] },
      { css: ".result-streaming", pages: [] },
    ],
  });
})();
