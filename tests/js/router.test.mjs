// background/router.js and background/handoff.js against a hostile page: only this
// extension's own content script in a top frame is heard; what it asks applies to its own
// tab only; chat messages only from the chat site they name, by exact host name over https;
// memories, settings and other tabs are out of a web page's reach; a handoff note goes
// only to the tab and site it was opened for. chrome.* faked in memory.
import assert from "node:assert/strict";
import { join } from "node:path";
import { beforeEach, test } from "node:test";
import { pathToFileURL } from "node:url";

import { EXTENSION } from "./load.mjs";

const ID = "bahaoeoalppkecdpddkhegpgkngpniel";
const local = new Map();
const session = new Map();
const messageListeners = [];
const area = (map) => ({
  get: async (key) => (map.has(key) ? { [key]: structuredClone(map.get(key)) } : {}),
  set: async (items) => { for (const [k, v] of Object.entries(items)) map.set(k, structuredClone(v)); },
  remove: async (key) => { map.delete(key); },
});
globalThis.chrome = {
  runtime: {
    id: ID, getURL: (path) => `chrome-extension://${ID}/${path}`,
    onMessage: { addListener: (fn) => messageListeners.push(fn) }, openOptionsPage: async () => {},
  },
  storage: { local: area(local), session: area(session), onChanged: { addListener: () => {} } },
  tabs: { onRemoved: { addListener: () => {} }, sendMessage: async () => {}, query: async () => [] },
};
const shared = (file) => import(pathToFileURL(join(EXTENSION, file)).href);
await shared("shared/sites.js");
await shared("shared/wire.js");
await shared("shared/settings.js");
const { Router, senderKind, CONTENT_SCRIPT_TYPES } = await shared("background/router.js");
const { TabSessions } = await shared("background/tab-sessions.js");
await shared("background/handoff.js");
const { SITES, allHosts } = globalThis.Whiteboard.sites;
const { KIND, STORAGE } = globalThis.Whiteboard.wire;

let forwarded; // what reached the host
const router = () => new Router({
  port: { request: async (message) => { forwarded.push(message); return { ok: true }; } },
  tabs: new TabSessions(async () => ({ ok: true })),
  pages: { set: async () => {}, get: async () => null },
});
const content = (url, tab = 7, extra = {}) => ({ id: ID, url, tab: { id: tab }, frameId: 0, ...extra });
const ask = (r, sender, message) => new Promise((resolve) => {
  if (!r.onMessage({ kind: KIND.host, message }, sender, resolve)) resolve("not heard");
});

beforeEach(() => {
  local.clear();
  session.clear();
  forwarded = [];
});

test("in Firefox its own pages are moz-extension://<uuid>/ (not its add-on id) and are heard", async () => {
  const UUID = "4f0a6d2e-3c1b-4d5e-8f90-a1b2c3d4e5f6";
  const chromeGetURL = globalThis.chrome.runtime.getURL;
  globalThis.chrome.runtime.getURL = (path) => `moz-extension://${UUID}/${path}`;
  try {
    // A module instance of its own, loaded as Firefox would load it.
    const firefox = await import(`${pathToFileURL(join(EXTENSION, "background/router.js")).href}?firefox`);
    assert.equal(firefox.senderKind({ id: ID, url: `moz-extension://${UUID}/popup/popup.html` }), "page");
    assert.equal(firefox.senderKind({ id: ID, url: `moz-extension://another-uuid/popup/popup.html` }), null);
    assert.equal(firefox.senderKind({ id: ID, url: `chrome-extension://${ID}/popup/popup.html` }), null);
  } finally {
    globalThis.chrome.runtime.getURL = chromeGetURL;
  }
});

test("only this extension's content script in a tab's top frame, or its own pages, is heard", () => {
  assert.equal(senderKind(content("https://chatgpt.com/c/1")), "content");
  assert.equal(senderKind({ id: ID, url: `chrome-extension://${ID}/popup/popup.html` }), "page");
  assert.equal(senderKind(content("https://chatgpt.com/c/1", 7, { id: "another-extension-id" })), null);
  assert.equal(senderKind(content("https://chatgpt.com/c/1", 7, { frameId: 3 })), null); // an iframe
  assert.equal(senderKind({ id: ID, url: "https://chatgpt.com/c/1", frameId: 0 }), null); // no tab
  assert.equal(senderKind(content("file:///home/me/page.html")), null);
  assert.equal(senderKind(content("data:text/html,hi")), null);
});

test("chat sites are matched by exact host name: look-alike hosts get nothing", async () => {
  const r = router();
  for (const host of allHosts()) {
    for (const evil of [`${host}.evil.test`, `evil${host}`, `www.${host}`, `${host}.`, `evil.test`]) {
      for (const site of [evil, host]) {
        const reply = await ask(r, content(`https://${evil}/c/1`), { type: "chat.prepare_send", site, draft: "hi" });
        assert.equal(reply.error?.code, "forbidden", `${evil} naming ${site}`);
      }
    }
    // The chat site itself, but over plain http (a network attacker's page): nothing.
    const plain = await ask(r, content(`http://${host}/c/1`), { type: "chat.prepare_send", site: host, draft: "hi" });
    assert.equal(plain.error?.code, "forbidden", `http://${host}`);
  }
  assert.deepEqual(forwarded, []);
});

test("a chat tab cannot make the extension act for another site or another tab", async () => {
  const r = router();
  const [mine, other] = Object.values(SITES).map((s) => s.hosts[0]);
  const wrongSite = await ask(r, content(`https://${mine}/c/1`), { type: "chat.prepare_send", site: other, draft: "hi" });
  assert.equal(wrongSite.error.code, "forbidden");
  for (const type of ["chat.prepare_send", "chat.preview", "chat.attach"]) {
    await ask(r, content(`https://${mine}/c/1`, 7), { type, site: mine, draft: "hi", turns: [], key: `${other}:9` });
  }
  await ask(r, content(`https://${mine}/c/1`, 7), { type: "session.get", key: `${other}:9` });
  assert.deepEqual(forwarded.map((m) => [m.type, m.key]),
                   [["chat.prepare_send", `${mine}:7`], ["chat.preview", `${mine}:7`], ["chat.attach", `${mine}:7`],
                    ["session.get", `${mine}:7`]]); // always the sender's own tab
});

test("memories, settings and other requests' cancels are out of a web page's reach", async () => {
  const r = router();
  const host = allHosts()[0];
  for (const type of ["memory.list", "memory.recall", "memory.get", "memory.export", "memory.add", "site.settings",
                      "session.list", "session.clear_all", "handoff.summary", "llm.settings.get", "ask.cancel"]) {
    assert.equal(CONTENT_SCRIPT_TYPES[type], undefined, type);
    const reply = await ask(r, content(`https://${host}/c/1`), { type, ref: 1, site: host, query: "pin" });
    assert.equal(reply.error?.code, "forbidden", type);
  }
  assert.deepEqual(forwarded, []);
  // The worker's own kinds for extension pages are not heard from a content script.
  for (const kind of [KIND.status, KIND.reconnect, KIND.handoffOpen]) {
    const heard = r.onMessage({ kind, tabId: 9, site: "claude", text: "x" }, content(`https://${host}/`), () => {});
    assert.equal(heard, false, kind);
  }
});

test("a handoff note goes only to the tab it was opened in, on the site it was opened for", async () => {
  const [site, entry] = Object.entries(SITES)[0];
  const host = entry.hosts[0];
  const take = (sender) => new Promise((resolve) => {
    const heard = messageListeners.map((fn) => fn({ kind: KIND.handoffTake }, sender, resolve)).some(Boolean);
    if (!heard) resolve("not heard");
  });
  await globalThis.chrome.storage.session.set({ [STORAGE.handoff(5)]: { site, text: "the note", at: Date.now() } });
  assert.equal((await take(content(`https://${host}/`, 6))).text, null); // another tab
  for (const evil of [`${host}.evil.test`, `evil${host}`]) {
    assert.equal((await take(content(`https://${evil}/`, 5))).text, null, evil); // its tab, moved elsewhere
  }
  assert.equal(await take(content(`https://${host}/`, 5, { frameId: 2 })), "not heard"); // an iframe in it
  assert.equal((await take(content(`https://${host}/`, 5))).text, "the note");
  assert.equal((await take(content(`https://${host}/`, 5))).text, null); // once
});
