// chat.deepseek.com: the textarea composer, the send icon button (the last icon button of
// the composer's toolbar, should others join it), user and assistant .ds-message turns, and
// a reply finished once its action buttons follow it (deepseek.selectors.js). When the
// selectors find no icon button (a redesign), the framework's structural fallback stands in.
(() => {
  const { all } = Whiteboard.dom;
  const { ChatAdapter } = Whiteboard.chat;
  Whiteboard.chat.define({
    site: "deepseek",
    selectors: Whiteboard.selectors.get("deepseek"),
    findSendButton(editor = null) {
      return all(document, this.sel.sendButton).at(-1) || ChatAdapter.prototype.findSendButton.call(this, editor);
    },
    sendButtonFrom(target) {
      const button = all(document, this.sel.sendButton).at(-1);
      if (!button) return ChatAdapter.prototype.sendButtonFrom.call(this, target);
      return target instanceof Node && button.contains(target) ? button : null;
    },
  });
})();
