// copilot.microsoft.com and www.copilot.com: the textarea composer, the submit button, turns
// by data-content (user-message / ai-message), and a reply finished once its reaction bar is
// in it (copilot.selectors.js): the 2025 layout put the bar inside the reply's last part, so
// it need not follow the text as on other sites.
(() => {
  const { all, any } = Whiteboard.dom;
  Whiteboard.chat.define({
    site: "copilot",
    selectors: Whiteboard.selectors.get("copilot"),
    isStreaming() {
      const last = all(document, this.sel.assistantMessage).at(-1);
      return any(document, this.sel.streaming) || (!!last && !any(last, this.sel.replyDone));
    },
  });
})();
