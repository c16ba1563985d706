// www.perplexity.ai selectors, from the saved real pages (design §9, tests/e2e/pages) and the
// tools listed in ../shared/data/dom/SELECTORS.md. Newest layout first; `pages` are the
// saved pages each selector must match (checked in Chromium by tests/e2e/test_selectors.py).
// No selector reads visible or aria-label text: the interface is translated.
(() => {
  const APRIL_2026 = "acb__perplexity_2026-04-13";
  const MAY_2026 = "cv__perplexity-chat_2026-05-21"; // the thread only: no composer
  const THREADS = [APRIL_2026, MAY_2026];

  Whiteboard.selectors.define("perplexity", {
    // The Lexical composer.
    editor: [
      { css: 'div#ask-input[data-lexical-editor="true"]', pages: [APRIL_2026] },
      { css: '[data-ask-input-container] [data-lexical-editor="true"][contenteditable="true"]', pages: [APRIL_2026] },
    ],
    // The composer's buttons are tooltip triggers (data-state) except Submit, the last one.
    sendButton: [
      { css: 'button[data-testid="submit-button"]', pages: [] },
      { css: "[data-ask-input-container] button:not([data-state])", pages: [APRIL_2026] },
    ],
    form: [], // no form: Enter and the button send
    // The question is a heading; in the August 2026 layout (seen only in a trimmed
    // fixture, SELECTORS.md) a user bubble and [data-workflow-final-text] answers.
    userMessage: [
      { css: 'h1[class~="group/query"]', pages: THREADS },
      { css: '[class~="group/user-bubble"]', pages: [] },
    ],
    assistantMessage: [
      { css: 'div[id^="markdown-content-"]', pages: THREADS },
      { css: "[data-workflow-final-text]", pages: [] },
    ],
    userText: [],
    assistantText: [],
    streaming: [],
    // The finished marker: the answer's action bar (Share, Copy, Rewrite, ...: tooltip
    // triggers, so data-state) follows the answer in its tab panel once it has finished.
    replyBlock: [
      { css: '[role="tabpanel"]', pages: THREADS },
    ],
    replyDone: [
      { css: "button[data-state]", pages: THREADS },
    ],
  });
})();
