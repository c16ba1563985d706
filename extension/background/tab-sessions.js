// Which host session belongs to which tab: key "<hostname>:<tabId>". A tab that closes or
// moves to another domain gets its session cleared on the host (design §4).
// The map lives in chrome.storage.session so it outlives a restart of this worker.

const { tabKey, STORAGE, KIND } = globalThis.Whiteboard.wire;
const STORE = STORAGE.tabHosts;

export class TabSessions {
  constructor(request) {
    this.request = request; // (message) -> Promise<reply>
    this.hosts = null; // tabId -> hostname, for tabs whose key was used
  }

  async load() {
    if (!this.hosts) {
      const stored = (await chrome.storage.session.get(STORE))[STORE] || {};
      this.hosts = new Map(Object.entries(stored).map(([tab, host]) => [Number(tab), host]));
    }
    return this.hosts;
  }

  async save() {
    await chrome.storage.session.set({ [STORE]: Object.fromEntries(this.hosts) });
  }

  // A message from a content script in `tabId` on `hostname`: returns the tab's key,
  // clearing the session of the domain the tab showed before, if it changed.
  async use(tabId, hostname) {
    const hosts = await this.load();
    const before = hosts.get(tabId);
    if (before !== hostname) {
      if (before) this.clear(tabKey(before, tabId));
      hosts.set(tabId, hostname);
      await this.save();
    }
    return tabKey(hostname, tabId);
  }

  // A page in `tabId` now shows `hostname` (its content script said so).
  async navigated(tabId, hostname) {
    const hosts = await this.load();
    const before = hosts.get(tabId);
    if (before && before !== hostname) {
      hosts.delete(tabId);
      await this.save();
      await this.clear(tabKey(before, tabId));
    }
  }

  // A tab with a session finished loading a page. Without the `tabs` permission its URL is
  // hidden, so its content script says where it is; no answer means a page the extension
  // does not run on (about:blank, a data: or file: URL, a browser or error page): the tab
  // left its site, as for another domain.
  async loaded(tabId) {
    if (!(await this.load()).has(tabId)) return;
    let where = null;
    try {
      where = await chrome.tabs.sendMessage(tabId, { kind: KIND.where }, { frameId: 0 });
    } catch { /* no content script of ours in that tab */ }
    if (where && typeof where.hostname === "string") await this.navigated(tabId, where.hostname);
    else await this.closed(tabId);
  }

  async closed(tabId) {
    const hosts = await this.load();
    const before = hosts.get(tabId);
    if (before) {
      hosts.delete(tabId);
      await this.save();
      await this.clear(tabKey(before, tabId));
    }
  }

  async keyOf(tabId) {
    const hostname = (await this.load()).get(tabId);
    return hostname ? tabKey(hostname, tabId) : null;
  }

  async forget(tabId) {
    (await this.load()).delete(tabId);
    await this.save();
  }

  clear(key) {
    // A generous limit: the host may be starting; clearing is never on a user's send path.
    return this.request({ type: "session.clear", key }, { timeoutMs: 5000 });
  }

  listen() {
    chrome.tabs.onRemoved.addListener((tabId) => this.closed(tabId));
    chrome.tabs.onUpdated.addListener((tabId, change) => {
      if (change.status === "complete") this.loaded(tabId);
    });
  }
}
