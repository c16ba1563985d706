// chat.deepseek.com: the textarea composer, the send icon button (the last icon button of
// the composer's toolbar, should others join it), user and assistant .ds-message turns, and
// a reply finished once its action buttons follow it (deepseek.selectors.js).
(() => {
  const { all } = Whiteboard.dom;
  Whiteboard.chat.define({
    site: "deepseek",
    selectors: Whiteboard.selectors.get("deepseek"),
    findSendButton() {
      return all(document, this.sel.sendButton).at(-1) || null;
    },
    sendButtonFrom(target) {
      const button = this.findSendButton();
      return button && target instanceof Node && button.contains(target) ? button : null;
    },
  });
})();
