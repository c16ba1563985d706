// chat.deepseek.com: the textarea composer, the send icon button (the last icon button of
// the composer's toolbar, should others join it), user and assistant .ds-message turns, and
// a reply finished once its action buttons follow it (deepseek.selectors.js). When the
// selectors find no icon button (a redesign), the framework's structural fallback stands in.
(() => {
  const { all, closest } = Whiteboard.dom;
  const { ChatAdapter } = Whiteboard.chat;
  Whiteboard.chat.define({
    site: "deepseek",
    selectors: Whiteboard.selectors.get("deepseek"),
    findSendButton(editor = null) {
      return all(document, this.sel.sendButton).at(-1) || ChatAdapter.prototype.findSendButton.call(this, editor);
    },
    // The last icon button holding the click: found from the click up, since this runs on
    // every click (sendButton is one selector, so a match holding the target that is not
    // the nearest one would come later in the page than the nearest).
    sendButtonFrom(target) {
      const hit = closest(target, this.sel.sendButton);
      if (!hit) return ChatAdapter.prototype.sendButtonFrom.call(this, target);
      return hit === all(document, this.sel.sendButton).at(-1) ? hit : null;
    },
  });
})();
