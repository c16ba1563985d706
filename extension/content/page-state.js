// This page's Whiteboard state: its site, whether the user paused Whiteboard here, the
// settings, and whether the user has acted on this page yet (before that, nothing
// goes to the host: design §8).
(() => {
  const W = (globalThis.Whiteboard ??= {});
  if (W.page) return;
  const settingsStore = W.settings;
  const { KIND } = W.wire;
  const hostname = location.hostname;
  const listeners = new Set();
  const engageHooks = [];

  const page = {
    hostname,
    site: W.sites.siteFor(hostname),
    settings: settingsStore.normalise(null),
    get paused() {
      return settingsStore.isPaused(this.settings, hostname);
    },
    get chatEnabled() {
      return Boolean(this.site && this.settings.sites[this.site] && !this.paused);
    },
    onChange(listener) {
      listeners.add(listener);
    },
    // The user acted on this page (a send, a captured selection): hooks run first, e.g.
    // the chat adapter records the conversation shown so far.
    onEngage(hook) {
      engageHooks.push(hook);
    },
    engage() {
      return Promise.all(engageHooks.map((hook) => hook())).catch(() => {});
    },
    // Tell the worker what this page is (for the popup, and to clear the tab's old session
    // when the tab moved here from another domain).
    report(adapter = null) {
      W.host.notify({ kind: KIND.pageStatus, adapter });
    },
  };
  page.ready = settingsStore.load().then((settings) => {
    page.settings = settings;
  }, () => {});
  settingsStore.onChange((settings) => {
    page.settings = settings;
    for (const listener of listeners) listener(page);
  });
  W.page = page;
  // The worker asks where this tab is when a page finishes loading (background/tab-sessions.js).
  chrome.runtime.onMessage.addListener((envelope, sender, sendResponse) => {
    if (sender.id !== chrome.runtime.id || !envelope || envelope.kind !== KIND.where) return false;
    sendResponse({ hostname });
    return false;
  });
  if (!page.site) page.report(); // chat pages report once their adapter has looked at the page
})();
