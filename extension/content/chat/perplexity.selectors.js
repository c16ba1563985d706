// www.perplexity.ai selectors, from the saved real pages (design §9, tests/e2e/pages) and the
// tools listed in ../shared/data/dom/SELECTORS.md. Newest layout first; `pages` are the
// saved pages each selector must match (checked in Chromium by tests/e2e/test_selectors.py).
// No selector reads visible or aria-label text: the interface is translated.
(() => {
  // September 2026 (FIELD-2026-10.md; built from the documented structure, not saved).
  const SEPT_2026 = "obs__perplexity_2026-09";
  const APRIL_2026 = "acb__perplexity_2026-04-13";
  const MAY_2026 = "cv__perplexity-chat_2026-05-21"; // the thread only: no composer
  const THREADS = [APRIL_2026, MAY_2026];
  const COMPOSER = [SEPT_2026, APRIL_2026];

  Whiteboard.selectors.define("perplexity", {
    // The Lexical composer.
    editor: [
      { css: 'div#ask-input[data-lexical-editor="true"]', pages: COMPOSER },
      { css: '[data-ask-input-container] [data-lexical-editor="true"][contenteditable="true"]', pages: COMPOSER },
    ],
    // The composer's buttons are tooltip triggers (data-state) except Submit, the last one.
    sendButton: [
      { css: 'button[data-testid="submit-button"]', pages: [] },
      { css: "[data-ask-input-container] button:not([data-state])", pages: COMPOSER },
    ],
    form: [], // no form: Enter and the button send
    // September 2026: the question is a bubble whose class holds group/user-bubble (a
    // rounded bg-subtle bubble in a variant), its text under [data-renderer="lm"]; the answer
    // a .prose block that carries data-renderer="lm" itself (before: a heading and
    // #markdown-content-N). The two share data-renderer="lm": the bubble tells them apart.
    // [data-workflow-final-text] wraps an answer once it has finished (low confidence): kept
    // last, so a layout with only that wrapper still finds its finished answers.
    userMessage: [
      { css: '[class~="group/user-bubble"]', pages: [SEPT_2026] },
      { css: 'h1[class~="group/query"]', pages: THREADS },
      { css: 'div.bg-subtle.rounded-2xl:has([data-renderer="lm"])', pages: [SEPT_2026] },
    ],
    assistantMessage: [
      { css: '.prose[data-renderer="lm"]:not([class~="group/user-bubble"] *)', pages: [SEPT_2026] },
      { css: 'div[id^="markdown-content-"]', pages: THREADS },
      { css: "[data-workflow-final-text]", pages: [SEPT_2026] },
    ],
    userText: [
      { css: '[class~="group/user-bubble"] [data-renderer="lm"]', pages: [SEPT_2026] },
    ],
    assistantText: [],
    streaming: [],
    // The finished marker: the answer's action bar (Share, Copy, Rewrite, ...: tooltip
    // triggers, so data-state) follows the answer in its tab panel once it has finished.
    replyBlock: [
      { css: '[role="tabpanel"]', pages: [SEPT_2026, ...THREADS] },
    ],
    replyDone: [
      { css: "button[data-state]", pages: [SEPT_2026, ...THREADS] },
    ],
  });
})();
