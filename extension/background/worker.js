// The service worker: one native port to the host, the message router, tab sessions.
// Whiteboard.worker.request(message, {timeoutMs}) is the host API for extension code
// running here (and for tests through the worker's console).
import "../shared/sites.js";
import "../shared/wire.js";
import "../shared/settings.js";
import { mirrorOnConnect } from "./memory-mirror.js";
import { NativePort } from "./native-port.js";
import { PageStatus, Router } from "./router.js";
import { TabSessions } from "./tab-sessions.js";
import "./handoff.js";

const port = new NativePort();
const request = (message, options) => port.request(message, options);
const tabs = new TabSessions(request);
const pages = new PageStatus();
const router = new Router({ port, tabs, pages });

// Listeners are registered synchronously so a message that wakes the worker is not missed.
chrome.runtime.onMessage.addListener((envelope, sender, sendResponse) => router.onMessage(envelope, sender, sendResponse));
chrome.runtime.onConnect.addListener((p) => router.onConnect(p));
tabs.listen();
pages.listen();
mirrorOnConnect(port);
port.connect();

globalThis.Whiteboard.worker = Object.freeze({
  request,
  status: () => port.status(),
  reconnect: () => port.reconnectNow(),
  keyOf: (tabId) => tabs.keyOf(tabId),
});
