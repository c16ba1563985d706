// The extension's wire vocabulary, in one place for the worker, the extension pages and
// the content scripts: the failure shape every call resolves with, session keys, the
// chrome.storage keys, the envelope kinds between the scripts and the worker, and the
// host's error reasons the UI branches on (docs/protocol.md, "Error codes").
// Loaded as a classic script (content scripts, extension pages) and as a module import.
(() => {
  const W = (globalThis.Whiteboard ??= {});
  if (W.wire) return;

  // {ok: false, error: {code, message, reason?}}: the host's error shape, also used for
  // failures the extension itself finds (no host, a time limit, a refused sender).
  function failure(code, message, reason) {
    return { ok: false, error: reason ? { code, message, reason } : { code, message } };
  }

  // A session key names a tab on a host name: "<hostname>:<tabId>". The hostname may
  // itself hold colons (an IPv6 literal such as "[::1]"), so the tab is after the last one.
  const tabKey = (hostname, tabId) => `${hostname}:${tabId}`;

  // {hostname, tabId} of a well-formed key, or null.
  function parseKey(key) {
    if (typeof key !== "string") return null;
    const at = key.lastIndexOf(":");
    const hostname = key.slice(0, at);
    const tabId = Number(key.slice(at + 1));
    if (at <= 0 || !/^\d+$/.test(key.slice(at + 1)) || !Number.isSafeInteger(tabId)) return null;
    return { hostname, tabId };
  }

  // chrome.storage keys. local: user settings, the memory opt-in mirror and the user's
  // selectors (shared/site-overrides.js); session
  // (memory only): tab -> hostname, each tab's page status and pending handoff note.
  const STORAGE = Object.freeze({
    settings: "settings",
    memorySites: "memorySites",
    siteOverrides: "siteOverrides",
    tabHosts: "tabHosts",
    page: (tabId) => `page:${tabId}`,
    handoff: (tabId) => `handoff:${tabId}`,
  });

  // chrome.runtime messages between the scripts and the worker: {kind, ...}.
  const KIND = Object.freeze({
    host: "host", // {message, timeoutMs?}: a request for the host, answered with its reply
    pageStatus: "page-status", // content -> worker: what the page is, what the adapter found
    status: "status", // page -> worker: connection state and a tab's page status
    reconnect: "reconnect", // page -> worker: try the host now
    handoffOpen: "handoff-open", // page -> worker: open a site with a handoff note
    handoffTake: "handoff-take", // content -> worker: this tab's handoff note, once
    openOptions: "open-options", // content -> worker
    where: "where", // worker -> content: which hostname the tab shows
    engage: "engage", // popup -> content: record the conversation shown
    sessionCleared: "session-cleared", // worker -> content: this tab's session was cleared
    testSelectors: "test-selectors", // options -> content: how many elements the user's selectors match
  });

  // The chrome.runtime.connect port name for streamed requests (ask.start).
  const STREAM_PORT = "whiteboard-stream";

  // error.reason values the UI branches on; the host sends them (never match a message).
  const REASON = Object.freeze({
    noModel: "no_model", // no model is configured
    modelUnavailable: "model_unavailable", // the configured model could not answer
    replyTooLarge: "reply_too_large", // the model's reply passed the host's cap
    insecureUrl: "insecure_url", // a model URL with http:// to another computer, not consented to
    busy: "busy", // the host's worker pool is full: retry later
    conflict: "conflict", // the memory changed elsewhere since the revision the edit was based on
  });

  W.wire = Object.freeze({ failure, tabKey, parseKey, STORAGE, KIND, STREAM_PORT, REASON });
})();
