// The selector tables and adapters of every site in the table, read as the browser reads
// them. (Which saved page each selector matches is checked in Chromium: tests/e2e/test_selectors.py.)
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";

import { ROOT, load, plain } from "./load.mjs";

const ROLES = ["editor", "sendButton", "form", "userMessage", "assistantMessage", "userText", "assistantText", "streaming"];
// A site whose finished marker is an element added after the reply names it (replyDone)
// and, optionally, the reply's block it is looked for in (replyBlock); a layout whose send
// control shows that no reply streams names that state (idle).
const FINISHED_MARKER = ["idle", "replyBlock", "replyDone"];
const REQUIRED = ["editor", "sendButton", "userMessage", "assistantMessage"]; // an adapter cannot work without these
const { SITES } = load(["shared/sites.js"]).sites;
const ids = Object.keys(SITES);

// Each site's selectors file and adapter file, the adapter's define() recorded.
function loadSite(id) {
  const defined = [];
  const W = load(["content/chat/selector-registry.js", "content/chat/dom-query.js", `content/chat/${id}.selectors.js`]);
  load([`content/chat/${id}.js`], { Whiteboard: { ...W, chat: { define: (spec) => defined.push(spec) } } });
  return { table: W.selectors.get(id), sites: W.selectors.sites(), defined };
}

for (const id of ids) {
  test(`${id}: its selectors file defines a table for ${id} only, with every role`, () => {
    const { table, sites } = loadSite(id);
    assert.deepEqual(plain(sites), [id]);
    const roles = Object.keys(table);
    assert.deepEqual(roles.filter((r) => !FINISHED_MARKER.includes(r)).sort(), [...ROLES].sort());
    if (roles.includes("replyBlock")) assert.ok(roles.includes("replyDone"), `${id}: replyBlock without replyDone`);
    for (const role of REQUIRED) assert.ok(table[role].length > 0, `${id}.${role} has a selector`);
  });

  test(`${id}: every entry is {css, pages} naming saved pages that exist`, () => {
    const { table } = loadSite(id);
    for (const [role, entries] of Object.entries(table)) {
      const seen = new Set();
      for (const entry of entries) {
        assert.equal(typeof entry.css, "string");
        assert.ok(entry.css.trim(), `${id}.${role}: empty css`);
        assert.ok(!seen.has(entry.css), `${id}.${role}: ${entry.css} twice`);
        seen.add(entry.css);
        for (const page of entry.pages) {
          assert.ok(existsSync(join(ROOT, "tests/e2e/pages", `${page}.html`)), `${id}.${role}: no saved page ${page}`);
        }
      }
    }
  });

  // Interfaces are translated (a saved Gemini page is in French): selectors go by structure
  // and stable attributes, never by what a label or placeholder says.
  test(`${id}: no selector matches visible or aria-label text`, () => {
    const { table } = loadSite(id);
    const TEXT = /\[\s*(aria-label|aria-placeholder|aria-description|placeholder|data-placeholder|title|alt|value)\s*[~|^$*]?=|:(contains|has-text)\(/i;
    for (const [role, entries] of Object.entries(table)) {
      for (const { css } of entries) assert.doesNotMatch(css, TEXT, `${id}.${role}: ${css}`);
    }
  });

  test(`${id}: its adapter defines the ${id} site with its own selectors`, () => {
    const { table, defined } = loadSite(id);
    assert.equal(defined.length, 1);
    assert.equal(defined[0].site, id);
    assert.equal(defined[0].selectors, table);
  });
}

// Interfaces are translated (a saved Gemini page is in French): selectors match structure
// and stable attributes, never text a person reads. (ChatGPT's and Claude's tables predate
// this rule and still hold a few aria-label fallbacks.)
const STRUCTURE_ONLY = ["gemini", "perplexity", "grok", "deepseek", "copilot"];
const VISIBLE_TEXT = /\[(?:aria-label|aria-placeholder|placeholder|title|alt|aria-description)\b|:(?:-soup-)?contains\(/i;

for (const id of STRUCTURE_ONLY) {
  test(`${id}: no selector reads visible or aria-label text`, () => {
    const { table } = loadSite(id);
    for (const [role, entries] of Object.entries(table)) {
      for (const { css } of entries) assert.doesNotMatch(css, VISIBLE_TEXT, `${id}.${role}: ${css}`);
    }
  });
}

test("the registry refuses a malformed table", () => {
  const W = load(["content/chat/selector-registry.js"]);
  assert.throws(() => W.selectors.define("x", { editor: [{ css: "div" }] }), /list of \{css, pages\}/);
  assert.throws(() => W.selectors.define("x", { editor: "div" }), /list of \{css, pages\}/);
  assert.throws(() => W.selectors.define("x", { editor: [{ css: 1, pages: [] }] }), /list of \{css, pages\}/);
});
