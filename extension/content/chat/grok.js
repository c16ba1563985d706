// grok.com: the tiptap composer, the composer form and its submit button, turns as
// div[id^="response-"] (.items-end / .items-start), and a reply finished once its action
// bar follows it (grok.selectors.js).
Whiteboard.chat.define({ site: "grok", selectors: Whiteboard.selectors.get("grok") });
