// The shared chat-adapter framework: everything a site adapter needs, driven by that
// site's selector table, so a site file only names its site and any quirks. When a role's
// selectors find nothing, the structural fallbacks (structure.js) stand in for the composer,
// the send button and the form, and the roles report (roles.js) says so.
(() => {
  const W = (globalThis.Whiteboard ??= {});
  if (W.chat) return;
  const { first, all, closest, any } = W.dom;
  const structure = W.structure;
  const adapters = [];
  const BUTTON = 'button, [role="button"]';
  const MAX_BUTTONS = 100;

  // An element's text without its buttons' labels ("Copy", "Download", "Edit" on a code
  // block or a message): those are the site's controls, not anyone's words. A label goes
  // where it stands as lines of its own, in page order; a label inside a line stays, and
  // the lines kept are kept as they are (a code block's indentation).
  function wordsOf(node) {
    const lines = node.innerText.split("\n");
    let from = 0;
    // Bounded, whatever a page puts in a message: the first MAX_BUTTONS buttons only.
    for (const button of [...node.querySelectorAll(BUTTON)].slice(0, MAX_BUTTONS)) {
      const outer = button.parentElement?.closest(BUTTON);
      if (outer && node.contains(outer)) continue; // its label went with the outer button's
      const label = button.innerText.split("\n").map((line) => line.trim()).filter(Boolean);
      if (!label.length) continue;
      for (let i = from; i + label.length <= lines.length; i += 1) {
        if (label.every((line, k) => lines[i + k].trim() === line)) {
          lines.splice(i, label.length);
          from = i;
          break;
        }
      }
    }
    return lines.join("\n").trim();
  }

  class ChatAdapter {
    constructor({ site, selectors, ...quirks }) {
      this.site = site;
      this.builtIn = selectors; // the release's table
      this.sel = selectors; // the table in use: the user's selectors for this host first (useOverrides)
      this.ignored = []; // the user's selectors not used here: [{role, why}]
      this.seen = new W.RolesSeen(); // what sends on this page showed about the roles
      Object.assign(this, quirks); // a site may override any method below
    }

    // The composer its selectors find (no user gesture needed: recognition, handoff): a shown
    // one before a hidden twin (ChatGPT can keep a hidden home composer beside the thread's).
    findEditor() {
      const found = all(document, this.sel.editor);
      return found.find(structure.isShown) || found[0] || null;
    }

    // The site's composer form its selectors find, where the structural fallbacks are
    // anchored (structure.js): none outside it when there is one.
    composerForm() {
      return first(document, this.sel.form);
    }

    // The composer the user pressed Enter in: its selectors' match, or (only when they find
    // no composer on the page at all) the page's structural composer (structure.js).
    editorFrom(target) {
      const found = closest(target, this.sel.editor);
      if (found || this.findEditor()) return this.seen.editor(found);
      return this.seen.editor(structure.editorAt(target, this.composerForm()), true);
    }

    // The composer that goes with a clicked send button or a submitted form: the one in its
    // composer area, else the page's.
    editorFor(element) {
      const area = structure.areaOf(element);
      const near = area && first(area, this.sel.editor);
      return this.seen.editor(near || this.findEditor()) ||
             this.seen.editor(structure.editorNear(element, this.composerForm()), true);
    }

    // The send button; with `editor`, the structural fallback next to it when the selectors miss.
    findSendButton(editor = null) {
      const found = first(document, this.sel.sendButton);
      return found || (editor ? structure.sendButtonNear(editor, this.composerForm()) : null);
    }

    // Runs on every click on the page: one outside any button is nothing, found at once.
    sendButtonFrom(target) {
      const found = closest(target, this.sel.sendButton);
      if (found) return found;
      if (!structure.inButton(target) || any(document, this.sel.sendButton) || this.isStreaming()) return null; // mid-reply: the stop button
      const form = this.composerForm();
      const editor = this.findEditor() || structure.editorNear(target, form);
      const button = editor && structure.sendButtonNear(editor, form);
      return button && button.contains(target) ? this.seen.sendButton(button, true) : null;
    }

    formFrom(target) {
      const form = closest(target, this.sel.form);
      if (form) return form === target ? form : null;
      if (!(target instanceof HTMLFormElement) || any(document, this.sel.form)) return null;
      return structure.editorNear(target) ? target : null; // a form holding the structural composer
    }

    // The messages shown, in page order: [{el, role}]. Their text is read apart (textOf):
    // reading it lays the page out, so only for the messages not captured yet.
    shown() {
      const user = all(document, this.sel.userMessage).map((el) => ({ el, role: "user" }));
      const assistant = all(document, this.sel.assistantMessage).map((el) => ({ el, role: "assistant" }));
      return [...user, ...assistant]
        .sort((a, b) => (a.el.compareDocumentPosition(b.el) & Node.DOCUMENT_POSITION_FOLLOWING ? -1 : 1));
    }

    // The messages shown, in page order, with their text: [{el, role, text}].
    turns() {
      return this.shown().map((t) => ({ ...t, text: this.textOf(t.el, t.role) }));
    }

    // A message's text: its text elements', outermost only (several when a site splits a
    // user's message into lines, Gemini's, or a reply into blocks interleaved with tool use),
    // else the whole message's.
    textOf(el, role) {
      const parts = all(el, role === "user" ? this.sel.userText : this.sel.assistantText)
        .filter((part, _, found) => !found.some((outer) => outer !== part && outer.contains(part)));
      const text = parts.map(wordsOf).filter(Boolean).join(role === "user" ? "\n" : "\n\n");
      return text || wordsOf(el);
    }

    // A reply is streaming while a `streaming` marker is on the page; not while an `idle`
    // marker is (a layout whose send control shows that no reply streams); else, on a site whose
    // finished marker is an element added after the reply once it is done (`replyDone`,
    // e.g. the reply's action bar, looked for inside the reply's `replyBlock`), while the
    // last reply has none after its text.
    isStreaming() {
      if (any(document, this.sel.streaming)) return true;
      if (any(document, this.sel.idle || [])) return false;
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

    // The user's selectors for this host, checked (W.siteOverrides.check): each goes before
    // its role's built-in list from now on, with no reload.
    // A user's selector for the user's own turns never takes a reply (an element that is, sits
    // in or holds one the assistant's selectors find): what teaches the memory stays the
    // user's words, whatever JSON was pasted.
    useOverrides({ entries, ignored }) {
      const replies = [...(entries.assistantMessage ? [entries.assistantMessage] : []),
                       ...(this.builtIn.assistantMessage || [])].map((e) => e.css).join(", ");
      const guarded = Object.fromEntries(Object.entries(entries).map(([role, entry]) => [role,
        replies && (role === "userMessage" || role === "userText")
          ? Object.freeze({ ...entry, accepts: (el) => entry.accepts(el) && !el.closest(replies) && !el.querySelector(replies) })
          : entry]));
      this.sel = W.siteOverrides.merged(this.builtIn, guarded);
      this.ignored = ignored;
    }

    conversationIsNew() {
      return !any(document, this.sel.userMessage) && !any(document, this.sel.assistantMessage);
    }

    // A send is being prepared: note what the page shows for it (the send button, draft in).
    noteSend() {
      const editor = this.seen.lastEditor;
      const found = any(document, this.sel.sendButton);
      const fallback = editor && structure.sendButtonNear(editor, this.composerForm());
      this.seen.atSend(found ? "found" : fallback ? "fallback" : "missing");
    }

    // The send went to the site (replayed): its message should be shown from now on.
    noteSent() {
      this.seen.sends += 1;
    }

    // What the popup shows: is the page's structure one this adapter knows, and which roles
    // did it find (never page text: roles.js).
    recognition() {
      const roles = W.roles.report(this);
      const attached = roles.editor.status !== "missing";
      // Counted, not read: turns() would read every message's text again after each sync.
      const turns = all(document, this.sel.userMessage).length + all(document, this.sel.assistantMessage).length;
      return { state: attached ? "attached" : "unrecognised", site: this.site, turns,
               ...(attached ? {} : { detail: "no chat composer found on this page" }),
               roles, build: W.roles.buildId(), ...(this.ignored.length ? { ignored: this.ignored } : {}) };
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
