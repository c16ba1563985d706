// Who may talk to the worker, and what they may ask. Messages are accepted only from
// this extension: its own pages (popup, options, later the memory manager) and its own
// content scripts in the top frame of http(s) pages. There is no externally_connectable,
// so a web page's scripts cannot send to the worker at all; the checks below are the
// second line. Content scripts never name a session key: the worker sets their tab's key.

import { mirrorSite } from "../memory/mirror.js";

// The extension's own pages: chrome-extension://<id>/ in Chrome, moz-extension://<uuid>/ in Firefox
// (a per-profile uuid, not the add-on id), so asked of the browser, never spelled out.
const EXTENSION_BASE = chrome.runtime.getURL("");
const { siteFor } = globalThis.Whiteboard.sites;
const settingsStore = globalThis.Whiteboard.settings;
const { failure, tabKey, parseKey, STORAGE, KIND, STREAM_PORT } = globalThis.Whiteboard.wire;

// What a content script may ask the host. "tab": the worker sets `key` to the sender's tab;
// "chat": the same, and only from the chat site it names, matched by exact host name over
// https; "plain": no key. Nothing else (memory.*, site.settings, another tab's session, a
// cancel by request id: the stream port cancels its own request) is open to web pages.
export const CONTENT_SCRIPT_TYPES = {
  ping: "plain",
  "session.add": "tab",
  "session.get": "tab",
  "session.context": "tab",
  "session.clear": "tab",
  "chat.prepare_send": "chat",
  "chat.attach": "chat",
  "chat.preview": "chat",
  "chat.draft": "chat",
  "ask.start": "tab",
};

export function senderKind(sender) {
  if (!sender || sender.id !== chrome.runtime.id) return null;
  const url = sender.url || "";
  if (url.startsWith(EXTENSION_BASE)) return "page";
  if (sender.tab && sender.frameId === 0 && /^https?:\/\//.test(url)) return "content";
  return null;
}

export class Router {
  constructor({ port, tabs, pages }) {
    this.port = port; // NativePort
    this.tabs = tabs; // TabSessions
    this.pages = pages; // PageStatus
    this.settings = null; // cached: vetting is on every send's path
    settingsStore.onChange((settings) => { this.settings = settings; });
  }

  async currentSettings() {
    if (!this.settings) this.settings = await settingsStore.load();
    return this.settings;
  }

  // The message a sender may send to the host, or a failure reply saying why not.
  async vet(kind, sender, message) {
    if (!message || typeof message !== "object" || typeof message.type !== "string") {
      return { reply: failure("bad_request", "message: an object with a string `type` is required") };
    }
    if (kind === "page") return { message };
    const rule = CONTENT_SCRIPT_TYPES[message.type];
    if (!rule) return { reply: failure("forbidden", `${message.type} is not available to web pages`) };
    const { hostname, protocol } = new URL(sender.url);
    const settings = await this.currentSettings();
    if (settingsStore.isPaused(settings, hostname)) {
      return { reply: failure("forbidden", "Whiteboard is paused on this site") };
    }
    if (rule === "plain") return { message };
    const vetted = { ...message, key: await this.tabs.use(sender.tab.id, hostname) };
    if (rule === "chat") {
      // On the wire a chat message's `site` is its page's host name (docs/protocol.md).
      const site = siteFor(hostname);
      if (!site || hostname !== message.site || protocol !== "https:") {
        return { reply: failure("forbidden", "chat messages come only from their chat site") };
      }
      if (!settings.sites[site]) return { reply: failure("forbidden", "Whiteboard is turned off for this chat site") };
    }
    return { message: vetted };
  }

  async handleHost(kind, sender, envelope) {
    const { message, reply } = await this.vet(kind, sender, envelope.message);
    if (reply) return reply;
    const answer = await this.port.request(message, { timeoutMs: timeoutOf(envelope) });
    if (answer.ok && (message.type === "session.clear" || message.type === "session.clear_all")) {
      notifyCleared(message.type === "session.clear" ? message.key : null);
    }
    if (answer.ok && typeof answer.memory_on === "boolean" && message.type.startsWith("chat.")) {
      // Not awaited: off the send path.
      mirrorSite(parseKey(message.key).hostname, answer.memory_on).catch(() => {});
    }
    return answer;
  }

  // chrome.runtime.onMessage: {kind: KIND.host, message, timeoutMs?} and the worker's own kinds.
  onMessage(envelope, sender, sendResponse) {
    const kind = senderKind(sender);
    if (!kind || !envelope || typeof envelope !== "object") return false;
    const answer = (promise) => {
      promise.then(sendResponse, (err) => sendResponse(failure("internal", String(err && err.message || err))));
      return true; // the response is sent asynchronously
    };
    switch (envelope.kind) {
      case KIND.host:
        return answer(this.handleHost(kind, sender, envelope));
      case KIND.pageStatus:
        if (kind !== "content") return false;
        return answer(this.pageStatus(sender, envelope));
      case KIND.status:
        if (kind !== "page") return false;
        return answer(this.status(envelope.tabId));
      case KIND.reconnect:
        if (kind !== "page") return false;
        this.port.reconnectNow();
        return answer(Promise.resolve({ ok: true }));
      default:
        return false;
    }
  }

  async pageStatus(sender, envelope) {
    const hostname = new URL(sender.url).hostname;
    await this.tabs.navigated(sender.tab.id, hostname);
    await this.pages.set(sender.tab.id, { hostname, site: siteFor(hostname), adapter: envelope.adapter || null });
    return { ok: true };
  }

  async status(tabId) {
    const page = Number.isInteger(tabId) ? await this.pages.get(tabId) : null;
    const key = Number.isInteger(tabId) && page ? tabKey(page.hostname, tabId) : null;
    return { ok: true, connection: this.port.status(), page, key };
  }

  // chrome.runtime.onConnect STREAM_PORT: post {message, timeoutMs}; every host
  // event for that request, then its reply, come back on the port. Posting {cancel: true},
  // or closing the port, sends the host `ask.cancel` for the request in flight (the sender
  // never needs the host's request id, so a stop works before the first event too).
  onConnect(port) {
    if (port.name !== STREAM_PORT) return;
    const kind = senderKind(port.sender);
    if (!kind) {
      port.disconnect();
      return;
    }
    let open = true;
    let running = null; // the host's id for the request in flight
    const cancel = () => {
      if (running !== null) this.port.request({ type: "ask.cancel", ref: running }, { timeoutMs: 3000 });
    };
    port.onDisconnect.addListener(() => {
      open = false;
      cancel();
    });
    const post = (msg) => { if (open) port.postMessage(msg); };
    port.onMessage.addListener(async (envelope) => {
      if (envelope && envelope.cancel === true) return cancel();
      const { message, reply } = await this.vet(kind, port.sender, envelope && envelope.message);
      if (reply) {
        post(reply);
        return;
      }
      const answer = await this.port.request(message, { timeoutMs: timeoutOf(envelope), onEvent: post,
                                                        onSent: (id) => { running = id; } });
      running = null;
      post(answer);
    });
  }
}

// A cleared tab's page must not record the turns it still shows (a reply that was
// about to be captured, say) back into the empty session: tell it they are done with.
async function notifyCleared(key) {
  const tabIds = key ? [parseKey(key)?.tabId] : (await chrome.tabs.query({})).map((t) => t.id);
  for (const tabId of tabIds.filter(Number.isInteger)) {
    chrome.tabs.sendMessage(tabId, { kind: KIND.sessionCleared }).catch(() => {}); // a tab without our script
  }
}

function timeoutOf(envelope) {
  const ms = envelope && envelope.timeoutMs;
  return Number.isFinite(ms) && ms > 0 ? Math.min(ms, 10 * 60 * 1000) : undefined;
}

// What each tab's content script found (site, adapter state), for the popup.
export class PageStatus {
  async get(tabId) {
    return (await chrome.storage.session.get(STORAGE.page(tabId)))[STORAGE.page(tabId)] || null;
  }

  async set(tabId, status) {
    await chrome.storage.session.set({ [STORAGE.page(tabId)]: status });
  }

  listen() {
    chrome.tabs.onRemoved.addListener((tabId) => chrome.storage.session.remove(STORAGE.page(tabId)));
  }
}
