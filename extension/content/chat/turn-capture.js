// Turn capture: the conversation shown on the page joins the tab's session once the
// user acts here (a send, or a selection captured), and every assistant reply joins
// when it has finished streaming, never mid-stream (design §8). The host skips turns it
// already holds (chat.attach), so a reload or a replayed turn is not recorded twice.
(() => {
  const W = (globalThis.Whiteboard ??= {});
  if (W.TurnCapture) return;
  const QUIET_MS = 300; // the page must be still this long after streaming ends
  // A long conversation sends its first turn (the session's seed) and its latest ones:
  // the host keeps 50 messages per session, so more would only be dropped there.
  const MAX_TURNS = 100;
  const MAX_CHARS = 100000; // per turn, so one request stays far below the host's frame cap

  class TurnCapture {
    constructor(adapter) {
      this.adapter = adapter;
      this.captured = new WeakSet(); // message elements already sent to the host
      this.observer = null;
      this.timer = null;
      this.onSettled = null; // called after each sync once the page is still (the roles report)
    }

    get engaged() {
      return this.observer !== null;
    }

    // From the user's first action on this page on, watch for finished replies.
    engage() {
      if (!this.observer) {
        this.observer = new MutationObserver(() => this.schedule());
        const attributeFilter = this.adapter.watchedAttributes(); // a finished marker may be an attribute change
        this.observer.observe(document.documentElement, { childList: true, subtree: true, characterData: true,
                                                          ...(attributeFilter.length ? { attributeFilter } : {}) });
      }
    }

    // The adapter's selectors changed (the user's own, site-overrides.js): watch the
    // attributes they name from now on, and look at the page again.
    rewatch() {
      if (!this.observer) return;
      this.observer.disconnect();
      this.observer = null;
      this.engage();
      this.schedule();
    }

    schedule() {
      clearTimeout(this.timer);
      this.timer = setTimeout(async () => {
        if (!W.page.chatEnabled || this.adapter.isStreaming()) return;
        await this.sync(5000);
        if (this.onSettled) this.onSettled();
      }, QUIET_MS);
    }

    // The user cleared this tab's session: what the page shows now stays out of it.
    forgetShown() {
      clearTimeout(this.timer);
      for (const t of this.adapter.shown()) this.captured.add(t.el);
    }

    // Sends the turns not yet captured; nothing while a reply is still streaming.
    async sync(timeoutMs) {
      if (this.adapter.isStreaming()) return false;
      const fresh = this.adapter.shown().filter((t) => !this.captured.has(t.el))
        .map((t) => ({ ...t, text: this.adapter.textOf(t.el, t.role) })).filter((t) => t.text.trim());
      if (!fresh.length) return true;
      for (const t of fresh) this.captured.add(t.el); // claimed now, so overlapping syncs never repeat a turn
      const batch = fresh.length > MAX_TURNS ? [fresh[0], ...fresh.slice(1 - MAX_TURNS)] : fresh;
      const turns = batch.map((t) => ({ role: t.role, content: t.text.slice(0, MAX_CHARS) }));
      // Only the user's own words teach the memory: what the page showed before the user's
      // first send here, and anything on a shared conversation's page, is context only.
      const learn = this.adapter.seen.sends > 0 && !W.sites.isSharedPage(this.adapter.site, location.pathname);
      const reply = await W.host.request({ type: "chat.attach", site: W.page.hostname, turns, learn }, { timeoutMs });
      if (!reply.ok) for (const t of fresh) this.captured.delete(t.el); // try again with the next sync
      return reply.ok;
    }
  }

  W.TurnCapture = TurnCapture;
})();
