// gemini.google.com: the Quill composer (typed text goes in as Quill lines, editor-input.js),
// the send button, turns as <user-query> / <model-response>, and a reply finished once its
// markdown panel drops aria-busy="true" (gemini.selectors.js).
Whiteboard.chat.define({ site: "gemini", selectors: Whiteboard.selectors.get("gemini") });
