// shared/wire.js: the failure shape, session keys, storage keys and envelope kinds.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";

import { EXTENSION, ROOT, load } from "./load.mjs";

const { wire } = load(["shared/wire.js"]);

test("a session key round-trips through tabKey and parseKey", () => {
  for (const [hostname, tabId] of [["chatgpt.com", 412], ["claude.ai", 1], ["news.example", 2147483647], ["[::1]", 7]]) {
    assert.deepEqual({ ...wire.parseKey(wire.tabKey(hostname, tabId)) }, { hostname, tabId });
  }
});

test("parseKey refuses what is not a key", () => {
  for (const bad of ["", "chatgpt.com", ":12", "chatgpt.com:", "chatgpt.com:12a", "chatgpt.com:-1", "chatgpt.com:1.5",
                     "chatgpt.com: 12", "chatgpt.com:99999999999999999999", null, undefined, 12, {}]) {
    assert.equal(wire.parseKey(bad), null, `parseKey(${JSON.stringify(bad)})`);
  }
});

test("parseKey takes the tab after the last colon", () => {
  assert.deepEqual({ ...wire.parseKey("a:b:3") }, { hostname: "a:b", tabId: 3 });
});

test("failure is the host's error shape, with a reason only when given", () => {
  assert.deepEqual(JSON.parse(JSON.stringify(wire.failure("timeout", "too slow"))),
                   { ok: false, error: { code: "timeout", message: "too slow" } });
  assert.deepEqual(JSON.parse(JSON.stringify(wire.failure("unavailable", "no model", wire.REASON.noModel))),
                   { ok: false, error: { code: "unavailable", message: "no model", reason: "no_model" } });
});

test("the extension branches only on reasons the host lists and documents", () => {
  const errors = readFileSync(join(ROOT, "host/whiteboard/protocol/errors.py"), "utf8");
  const hostReasons = [...errors.match(/^REASONS = \(([^)]*)\)/m)[1].matchAll(/"([a-z_]+)"/g)].map((m) => m[1]);
  for (const reason of Object.values(wire.REASON)) assert.ok(hostReasons.includes(reason), `host REASONS has ${reason}`);
  const protocol = readFileSync(join(ROOT, "docs/protocol.md"), "utf8");
  for (const reason of hostReasons) assert.match(protocol, new RegExp(`\`${reason}\``), `docs/protocol.md names ${reason}`);
});

test("storage keys and kinds are distinct, and per-tab keys never collide", () => {
  const kinds = Object.values(wire.KIND);
  assert.equal(new Set(kinds).size, kinds.length);
  const names = [wire.STORAGE.settings, wire.STORAGE.memorySites, wire.STORAGE.tabHosts, wire.STORAGE.page(5),
                 wire.STORAGE.handoff(5), wire.STORAGE.page(6)];
  assert.equal(new Set(names).size, names.length);
});

test("no script outside shared/wire.js spells a wire kind, storage key or key parse of its own", async () => {
  const { readdirSync, statSync } = await import("node:fs");
  const files = [];
  const walk = (dir) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (name.endsWith(".js") && !path.endsWith(join("shared", "wire.js"))) files.push(path);
    }
  };
  walk(EXTENSION);
  const kinds = Object.values(wire.KIND).filter((k) => k !== "host" && k !== "status");
  const found = [];
  for (const path of files) {
    const text = readFileSync(path, "utf8");
    if (/lastIndexOf\(":"\)/.test(text)) found.push(`${path}: parses a session key`);
    if (/\bconst failure = /.test(text)) found.push(`${path}: its own failure()`);
    if (/"memorySites"|"tabHosts"|`page:\$|`handoff:\$/.test(text)) found.push(`${path}: a storage key`);
    if (/kind: "host"/.test(text)) found.push(`${path}: kind "host"`);
    for (const kind of kinds) if (text.includes(`"${kind}"`)) found.push(`${path}: kind "${kind}"`);
    if (/globalThis\.whiteboard(Sites|Settings)?\b/.test(text)) found.push(`${path}: an old global`);
  }
  assert.deepEqual(found, []);
});
