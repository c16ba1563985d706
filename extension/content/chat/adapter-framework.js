// The shared chat-adapter framework: everything a site adapter needs, driven by that
// site's selector table, so a site file only names its site and any quirks.
(() => {
  const W = (globalThis.Whiteboard ??= {});
  if (W.chat) return;
  const { first, all, closest, any } = W.dom;
  const adapters = [];

  class ChatAdapter {
    constructor({ site, selectors, ...quirks }) {
      this.site = site;
      this.sel = selectors;
      Object.assign(this, quirks); // a site may override any method below
    }

    findEditor() {
      return first(document, this.sel.editor);
    }

    editorFrom(target) {
      return closest(target, this.sel.editor);
    }

    findSendButton() {
      return first(document, this.sel.sendButton);
    }

    sendButtonFrom(target) {
      return closest(target, this.sel.sendButton);
    }

    formFrom(target) {
      const form = closest(target, this.sel.form);
      return form && form === target ? form : null;
    }

    // The messages shown, in page order: [{el, role, text}].
    turns() {
      const user = all(document, this.sel.userMessage).map((el) => ({ el, role: "user" }));
      const assistant = all(document, this.sel.assistantMessage).map((el) => ({ el, role: "assistant" }));
      return [...user, ...assistant]
        .sort((a, b) => (a.el.compareDocumentPosition(b.el) & Node.DOCUMENT_POSITION_FOLLOWING ? -1 : 1))
        .map((t) => ({ ...t, text: this.textOf(t.el, t.role) }));
    }

    // A message's text: its text elements' (several when a site splits a message into
    // lines or parts), else the whole message's.
    textOf(el, role) {
      const parts = all(el, role === "user" ? this.sel.userText : this.sel.assistantText)
        .filter((part, _, found) => !found.some((outer) => outer !== part && outer.contains(part)));
      return (parts.length ? parts.map((p) => p.innerText.trim()).join("\n") : el.innerText).trim();
    }

    // A reply is streaming while a `streaming` marker is on the page or, on a site whose
    // finished marker is an element added after the reply once it is done (`replyDone`,
    // e.g. the reply's action bar, looked for inside the reply's `replyBlock`), while the
    // last reply has none after its text.
    isStreaming() {
      if (any(document, this.sel.streaming)) return true;
      const done = this.sel.replyDone || [];
      const last = done.length ? all(document, this.sel.assistantMessage).at(-1) : null;
      if (!last) return false;
      const text = first(last, this.sel.assistantText) || last;
      const block = closest(last, this.sel.replyBlock || []) || last;
      const after = (el) => !text.contains(el) && (text.compareDocumentPosition(el) & Node.DOCUMENT_POSITION_FOLLOWING);
      return !all(block, done).some(after);
    }

    // The attributes whose change can end a reply's streaming (named in the `streaming`
    // and `replyDone` selectors; "class" when they name a class), for the turn capture to watch.
    watchedAttributes() {
      const css = [...this.sel.streaming, ...(this.sel.replyDone || [])].map((e) => e.css).join(" ");
      const names = new Set([...css.matchAll(/\[([\w-]+)/g)].map((m) => m[1]));
      if (/\.[A-Za-z_]/.test(css.replace(/\[[^\]]*\]/g, ""))) names.add("class");
      return [...names];
    }

    conversationIsNew() {
      return !any(document, this.sel.userMessage) && !any(document, this.sel.assistantMessage);
    }

    // What the popup shows: is the page's structure one this adapter knows?
    recognition() {
      const editor = this.findEditor();
      return editor
        ? { state: "attached", site: this.site, turns: this.turns().length }
        : { state: "unrecognised", site: this.site, detail: "no chat composer found on this page" };
    }
  }

  function define(spec) {
    const adapter = new ChatAdapter(spec);
    adapters.push(adapter);
    return adapter;
  }

  function adapterFor(hostname) {
    const site = W.sites.siteFor(hostname);
    return adapters.find((a) => a.site === site) || null;
  }

  W.chat = Object.freeze({ define, adapterFor, ChatAdapter });
})();
