// chatgpt.com: the ProseMirror composer, send button (present only once text is typed),
// the unified-composer form, and turns by data-message-author-role (chatgpt.selectors.js).
// Nothing here differs from the shared framework's defaults.
Whiteboard.chat.define({ site: "chatgpt", selectors: Whiteboard.selectors.get("chatgpt") });
