// claude.ai: the tiptap composer, no composer form, turns by data-testid=user-message and
// .font-claude-response inside [data-is-streaming] (claude.selectors.js).
Whiteboard.chat.define({ site: "claude", selectors: Whiteboard.selectors.get("claude") });
