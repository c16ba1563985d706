// shared/sites.js is the one description of a chat site: the settings defaults, the
// handoff targets and the manifest's chat content scripts all follow it.
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";

import { chatEntry, chatMatches, chatScripts, loadSites, synced } from "../../tools/sync-manifest.mjs";
import { EXTENSION, SHARED, load, plain } from "./load.mjs";

const W = load(SHARED);
const { SITES, siteFor, allHosts, labelList, handoffTargets } = W.sites;
const manifest = JSON.parse(readFileSync(join(EXTENSION, "manifest.json"), "utf8"));
const HOST = /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/;

test("every site entry is complete and well-formed", () => {
  assert.ok(Object.keys(SITES).length >= 2);
  for (const [id, site] of Object.entries(SITES)) {
    assert.equal(site.id, id);
    assert.match(id, /^[a-z][a-z0-9-]*$/);
    assert.ok(site.label.trim(), `${id}: a label`);
    assert.ok(site.hosts.length > 0 && site.hosts.every((h) => HOST.test(h)), `${id}: host names`);
    const start = new URL(site.startUrl);
    assert.equal(start.protocol, "https:");
    assert.ok(site.hosts.includes(start.hostname), `${id}: the start URL is on one of its hosts`);
    assert.equal(typeof site.enabled, "boolean");
    // Every site has shared or public conversations: nothing there teaches long-term memory.
    assert.ok(site.sharePaths.length > 0 && site.sharePaths.every((p) => /^\/[a-z]+\/$/.test(p)), `${id}: share paths`);
  }
});

test("a shared conversation's page is told by its path, a conversation's is not", () => {
  const { isSharedPage } = W.sites;
  assert.ok(isSharedPage("chatgpt", "/share/6708d9f0-5b7c-8008"));
  assert.ok(isSharedPage("chatgpt", "/s/t_687668c701208191"));
  assert.ok(isSharedPage("copilot", "/shares/CiDmc9pCLBUXWv6QLjVdD"));
  assert.ok(isSharedPage("grok", "/Share/bGVnYWN5_bab69024"));
  assert.ok(!isSharedPage("chatgpt", "/c/6708d9f0"));
  assert.ok(!isSharedPage("chatgpt", "/shared-links"));
  assert.ok(!isSharedPage("copilot", "/share"));
  assert.ok(!isSharedPage("nosuchsite", "/share/x"));
});

test("a handoff goes to every enabled site but the current one, in table order", () => {
  const ids = Object.keys(SITES);
  assert.ok(ids.length >= 7);
  const everyOn = Object.fromEntries(ids.map((id) => [id, true]));
  for (const from of ids) assert.deepEqual(plain(handoffTargets(from, everyOn)), ids.filter((id) => id !== from));
  const [from, off, ...rest] = ids;
  assert.deepEqual(plain(handoffTargets(from, { ...everyOn, [off]: false })), rest);
  // A site the settings do not mention yet (added since they were saved) follows its table default.
  assert.deepEqual(plain(handoffTargets(from, {})), ids.filter((id) => id !== from && SITES[id].enabled));
  assert.deepEqual(plain(handoffTargets(from, everyOn)).includes(from), false);
});

test("a host name belongs to one site at most", () => {
  assert.equal(new Set(allHosts()).size, allHosts().length);
  for (const [id, site] of Object.entries(SITES)) for (const host of site.hosts) assert.equal(siteFor(host), id);
  for (const other of ["example.com", "chatgpt.com.evil.example", "www.claude.ai", "", "CLAUDE.AI"]) {
    assert.equal(siteFor(other), null, other);
  }
});

test("the table cannot be changed at run time", () => {
  const first = Object.keys(SITES)[0];
  assert.throws(() => { SITES[first].hosts.push("evil.example"); }, { name: "TypeError" });
  assert.throws(() => { SITES.evil = {}; }, { name: "TypeError" });
  assert.equal(siteFor("evil.example"), null);
});

test("settings default each site to its table entry and keep unknown budgets in range", () => {
  const { DEFAULTS, normalise, MIN_BUDGET, MAX_BUDGET } = W.settings;
  assert.deepEqual(plain(DEFAULTS.sites), Object.fromEntries(Object.values(SITES).map((s) => [s.id, s.enabled])));
  assert.deepEqual(plain(normalise(null).sites), plain(DEFAULTS.sites));
  const first = Object.keys(SITES)[0];
  assert.equal(normalise({ sites: { [first]: false } }).sites[first], false);
  assert.equal(normalise({ budget: 1 }).budget, MIN_BUDGET);
  assert.equal(normalise({ budget: 10 ** 9 }).budget, MAX_BUDGET);
  assert.equal(normalise({ budget: "lots" }).budget, DEFAULTS.budget);
  assert.deepEqual(plain(normalise({ paused: "yes" }).paused), {});
});

test("labelList names every site", () => {
  const phrase = labelList("or");
  for (const site of Object.values(SITES)) assert.ok(phrase.includes(site.label));
  assert.equal((phrase.match(/ or /g) || []).length, 1);
});

test("the manifest's chat content scripts match exactly the table's hosts", () => {
  const entry = chatEntry(manifest);
  assert.deepEqual(entry.matches, plain(allHosts()).map((h) => `https://${h}/*`));
  assert.deepEqual(entry.matches, plain(chatMatches(loadSites())));
});

test("the manifest loads each site's selectors and adapter, and those files exist", () => {
  const entry = chatEntry(manifest);
  assert.deepEqual(entry.js, plain(chatScripts(W.sites)));
  for (const id of Object.keys(SITES)) {
    for (const file of [`content/chat/${id}.selectors.js`, `content/chat/${id}.js`]) {
      assert.ok(entry.js.includes(file), `manifest loads ${file}`);
      assert.ok(existsSync(join(EXTENSION, file)), `${file} exists`);
    }
  }
  for (const file of manifest.content_scripts.flatMap((e) => e.js)) assert.ok(existsSync(join(EXTENSION, file)), file);
});

test("manifest.json is what tools/sync-manifest.mjs makes of the table", () => {
  assert.deepEqual(plain(synced(manifest, loadSites())), manifest);
});

test("the shared scripts come first, sites before wire before settings, wherever they load", () => {
  const order = ["shared/sites.js", "shared/wire.js", "shared/settings.js"];
  const first = manifest.content_scripts[0].js;
  assert.deepEqual(first.slice(0, 3), order);
  for (const page of ["popup/popup.html", "options/options.html"]) {
    const html = readFileSync(join(EXTENSION, page), "utf8");
    const at = order.map((file) => html.indexOf(`src="../${file}"`));
    assert.ok(at.every((i) => i > 0) && at[0] < at[1] && at[1] < at[2], `${page} loads ${order.join(", ")} in order`);
  }
  const worker = readFileSync(join(EXTENSION, "background/worker.js"), "utf8");
  const imports = order.map((file) => worker.indexOf(`import "../${file}"`));
  assert.ok(imports.every((i) => i >= 0) && imports[0] < imports[1] && imports[1] < imports[2]);
});
