// The draft's meaning ready at Enter (design §14, docs/extension.md "Recall while typing"):
// on a chat site where the user turned long-term memory on, once the user's own typing in
// the composer pauses for PAUSE_MS, the composer's text goes to the host (chat.draft),
// which embeds it before the send so recall by meaning never waits for the model at Enter.
// Only trusted input/keyup events in the composer count: a page's script filling the
// composer starts nothing. Only the latest draft goes, a text once; nothing when `allowed`
// says no (memory off, the site paused, the Options switch off), nothing for an empty or
// already prepared draft.
(() => {
  const W = (globalThis.Whiteboard ??= {});
  if (W.DraftMeaning) return;
  const PAUSE_MS = 300;

  class DraftMeaning {
    // adapter: the site adapter; readDraft() -> the composer's text; allowed() -> bool;
    // send(draft): to the host, not awaited.
    constructor(adapter, { readDraft, allowed, send }) {
      this.adapter = adapter;
      this.readDraft = readDraft;
      this.allowed = allowed;
      this.send = send;
      this.timer = null;
      this.last = null; // the text sent last: not sent again
    }

    install() {
      addEventListener("input", (e) => this.onTyping(e), true);
      // The key of a send is not typing: its keyup must not send the draft being sent.
      addEventListener("keyup", (e) => { if (e.key !== "Enter") this.onTyping(e); }, true);
    }

    onTyping(e) {
      if (!e.isTrusted || !this.adapter.editorFrom(e.target)) return;
      clearTimeout(this.timer);
      this.timer = setTimeout(() => this.flush(), PAUSE_MS);
    }

    flush() {
      this.timer = null;
      if (!this.allowed()) return;
      const draft = this.readDraft();
      if (!draft.trim() || draft === this.last || W.SendInterceptor?.isPrepared(draft)) return;
      this.last = draft;
      this.send(draft);
    }

    // A send went: the host dropped the tab's vector, and the next draft starts afresh.
    sent() {
      clearTimeout(this.timer);
      this.timer = null;
      this.last = null;
    }
  }

  DraftMeaning.PAUSE_MS = PAUSE_MS;
  W.DraftMeaning = DraftMeaning;
})();
