// www.perplexity.ai: the Lexical composer (typed text, never a paste: Perplexity turns long
// pasted text into an attachment; editor-input.js), the Submit button, questions and
// answers, and a reply finished once its action bar follows it (perplexity.selectors.js).
Whiteboard.chat.define({ site: "perplexity", selectors: Whiteboard.selectors.get("perplexity") });
