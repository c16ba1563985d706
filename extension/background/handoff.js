// "Continue in <site>" (design §7): the popup hands the worker a handoff note; the worker
// opens that site's start URL (shared/sites.js) in a new tab and keeps the note for that
// tab only, in chrome.storage.session (memory only, never written to disk), until the new
// page's content script takes it into its composer. Nothing is sent: the user reads and sends.
// Also KIND.openOptions for the in-page panel (content scripts cannot open it themselves).
import { senderKind } from "./router.js";

const { SITES } = globalThis.Whiteboard.sites;
const settingsStore = globalThis.Whiteboard.settings;
const { failure, STORAGE, KIND } = globalThis.Whiteboard.wire;
const KEEP_MS = 2 * 60 * 1000; // a note not taken by then (page never loaded) is dropped
const MAX_CHARS = 100000;
const keyOf = STORAGE.handoff;

let opening = Promise.resolve(); // a take waits for an open still storing its note

async function open({ site, text }) {
  if (!Object.hasOwn(SITES, site)) return failure("bad_request", `no chat site "${site}"`);
  if (typeof text !== "string" || !text.trim()) return failure("bad_request", "the handoff note is empty");
  if (!(await settingsStore.load()).sites[site]) return failure("forbidden", `${SITES[site].label} is turned off in Options`);
  const tab = await chrome.tabs.create({ url: SITES[site].startUrl, active: true });
  await chrome.storage.session.set({ [keyOf(tab.id)]: { site, text: text.slice(0, MAX_CHARS), at: Date.now() } });
  return { ok: true, tabId: tab.id };
}

// The note for the sender's tab, once, and only on the site it was opened for.
async function take(sender) {
  await opening;
  const key = keyOf(sender.tab.id);
  const pending = (await chrome.storage.session.get(key))[key];
  if (!pending) return { ok: true, text: null };
  const hostname = new URL(sender.url).hostname;
  if (!SITES[pending.site].hosts.includes(hostname)) return { ok: true, text: null };
  await chrome.storage.session.remove(key);
  return { ok: true, text: Date.now() - pending.at <= KEEP_MS ? pending.text : null };
}

chrome.runtime.onMessage.addListener((envelope, sender, sendResponse) => {
  const kind = senderKind(sender);
  if (!kind || !envelope || typeof envelope !== "object") return false;
  let work;
  if (envelope.kind === KIND.handoffOpen && kind === "page") {
    work = open(envelope);
    opening = work.catch(() => null);
  }
  else if (envelope.kind === KIND.handoffTake && kind === "content") work = take(sender);
  else if (envelope.kind === KIND.openOptions && kind === "content") work = chrome.runtime.openOptionsPage().then(() => ({ ok: true }));
  else return false;
  work.then(sendResponse, (err) => sendResponse(failure("internal", String(err && err.message || err))));
  return true;
});
chrome.tabs.onRemoved.addListener((tabId) => chrome.storage.session.remove(keyOf(tabId)));
