// chat.example selectors (test-only), from tests/e2e/example_site/page.html.
(() => {
  const PAGE = []; // the fixture page is not one of the saved real pages in tests/e2e/pages

  Whiteboard.selectors.define("example-chat", {
    editor: [{ css: 'div#composer[contenteditable="true"]', pages: PAGE }],
    sendButton: [{ css: "button#send", pages: PAGE }],
    form: [],
    userMessage: [{ css: '.turn[data-role="user"]', pages: PAGE }],
    assistantMessage: [{ css: '.turn[data-role="assistant"]', pages: PAGE }],
    userText: [{ css: ".text", pages: PAGE }],
    assistantText: [{ css: ".text", pages: PAGE }],
    streaming: [{ css: ".turn[data-streaming]", pages: PAGE }],
  });
})();
