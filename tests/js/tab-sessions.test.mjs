// background/tab-sessions.js: which session key belongs to which tab, and the clears it
// asks the host for, with chrome.storage.session and chrome.tabs faked in memory.
import assert from "node:assert/strict";
import { join } from "node:path";
import { beforeEach, test } from "node:test";
import { pathToFileURL } from "node:url";

import { EXTENSION } from "./load.mjs";

const area = new Map();
let whereAnswer = null; // what a tab's content script answers to KIND.where (null: no script)
globalThis.chrome = {
  storage: {
    session: {
      get: async (key) => (area.has(key) ? { [key]: structuredClone(area.get(key)) } : {}),
      set: async (items) => { for (const [k, v] of Object.entries(items)) area.set(k, structuredClone(v)); },
    },
  },
  tabs: {
    sendMessage: async (tabId, message) => {
      if (message.kind !== globalThis.Whiteboard.wire.KIND.where || !whereAnswer) throw new Error("no receiver");
      return whereAnswer;
    },
  },
};
await import(pathToFileURL(join(EXTENSION, "shared/wire.js")).href);
const { TabSessions } = await import(pathToFileURL(join(EXTENSION, "background/tab-sessions.js")).href);
const { STORAGE } = globalThis.Whiteboard.wire;

let sent;
const sessions = () => new TabSessions(async (message) => { sent.push(message); return { ok: true }; });
const clears = () => sent.filter((m) => m.type === "session.clear").map((m) => m.key);

beforeEach(() => {
  area.clear();
  sent = [];
  whereAnswer = null;
});

test("a tab's key is its hostname and tab id, and stays while the tab stays on its site", async () => {
  const tabs = sessions();
  assert.equal(await tabs.use(7, "chatgpt.com"), "chatgpt.com:7");
  assert.equal(await tabs.use(7, "chatgpt.com"), "chatgpt.com:7");
  await tabs.navigated(7, "chatgpt.com");
  assert.equal(await tabs.keyOf(7), "chatgpt.com:7");
  assert.deepEqual(clears(), []);
});

test("a tab that moves to another domain has its old session cleared", async () => {
  const tabs = sessions();
  await tabs.use(7, "chatgpt.com");
  assert.equal(await tabs.use(7, "claude.ai"), "claude.ai:7");
  assert.deepEqual(clears(), ["chatgpt.com:7"]);
  await tabs.navigated(7, "news.example");
  assert.deepEqual(clears(), ["chatgpt.com:7", "claude.ai:7"]);
  assert.equal(await tabs.keyOf(7), null);
});

test("closing a tab clears its session once; other tabs keep theirs", async () => {
  const tabs = sessions();
  await tabs.use(7, "chatgpt.com");
  await tabs.use(8, "chatgpt.com");
  await tabs.closed(7);
  await tabs.closed(7);
  assert.deepEqual(clears(), ["chatgpt.com:7"]);
  assert.equal(await tabs.keyOf(8), "chatgpt.com:8");
});

test("a load where no content script answers (about:blank, a browser page) leaves the site", async () => {
  const tabs = sessions();
  await tabs.use(7, "claude.ai");
  whereAnswer = { hostname: "claude.ai" };
  await tabs.loaded(7);
  assert.deepEqual(clears(), []);
  whereAnswer = null;
  await tabs.loaded(7);
  assert.deepEqual(clears(), ["claude.ai:7"]);
});

test("the map outlives a restart of the worker (chrome.storage.session)", async () => {
  await sessions().use(7, "chatgpt.com");
  assert.deepEqual(area.get(STORAGE.tabHosts), { 7: "chatgpt.com" });
  const restarted = sessions();
  assert.equal(await restarted.keyOf(7), "chatgpt.com:7");
  await restarted.use(7, "claude.ai");
  assert.deepEqual(clears(), ["chatgpt.com:7"]);
});
