// shared/settings.js against an in-memory chrome.storage.local: what is stored, under
// which key (Whiteboard.wire.STORAGE.settings), and what listeners see.
import assert from "node:assert/strict";
import { test } from "node:test";

import { SHARED, load, plain } from "./load.mjs";

function fakeChrome() {
  const area = new Map();
  const listeners = [];
  return {
    area,
    storage: {
      local: {
        get: async (key) => (area.has(key) ? { [key]: structuredClone(area.get(key)) } : {}),
        set: async (items) => {
          const changes = {};
          for (const [k, v] of Object.entries(items)) {
            changes[k] = { oldValue: area.get(k), newValue: structuredClone(v) };
            area.set(k, structuredClone(v));
          }
          for (const listener of listeners) listener(changes, "local");
        },
      },
      onChanged: { addListener: (listener) => listeners.push(listener) },
    },
  };
}

test("load gives the defaults before anything is stored", async () => {
  const chrome = fakeChrome();
  const W = load(SHARED, { chrome });
  assert.deepEqual(plain(await W.settings.load()), plain(W.settings.DEFAULTS));
});

test("update stores a normalised object under the settings key and listeners see it", async () => {
  const chrome = fakeChrome();
  const W = load(SHARED, { chrome });
  const seen = [];
  W.settings.onChange((s) => seen.push(plain(s)));
  const site = Object.keys(W.sites.SITES)[0];
  const saved = await W.settings.update((s) => ({ ...s, budget: 5, sites: { ...s.sites, [site]: false },
                                                   paused: { "news.example": true } }));
  assert.equal(saved.budget, W.settings.MIN_BUDGET);
  assert.deepEqual([...chrome.area.keys()], [W.wire.STORAGE.settings]);
  assert.deepEqual(plain(chrome.area.get(W.wire.STORAGE.settings)), plain(saved));
  assert.equal(seen.length, 1);
  assert.equal(seen[0].sites[site], false);
  assert.ok(W.settings.isPaused(saved, "news.example") && !W.settings.isPaused(saved, "chatgpt.com"));
  assert.deepEqual(plain(await W.settings.load()), plain(saved));
});

test("a stored object from an older version gains the sites added since", async () => {
  const chrome = fakeChrome();
  const W = load(SHARED, { chrome });
  const [first, ...others] = Object.keys(W.sites.SITES);
  chrome.area.set(W.wire.STORAGE.settings, { budget: 3000, sites: { [first]: false } });
  const settings = await W.settings.load();
  assert.equal(settings.budget, 3000);
  assert.equal(settings.sites[first], false);
  for (const id of others) assert.equal(settings.sites[id], W.sites.SITES[id].enabled);
});
