// memory/meanings.js: the line the memory page and the popup show for memory.status's
// `meanings` (docs/protocol.md), one per state the host reports.
import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";
import { pathToFileURL } from "node:url";

import { EXTENSION } from "./load.mjs";

globalThis.document = { getElementById: () => null }; // no #meanings line: nothing attaches on load
const { meaningsText, setAsideText, syncedText } = await import(pathToFileURL(join(EXTENSION, "memory/meanings.js")).href);

const progress = (state, indexed, total, reason = null) => ({ state, indexed, total, model: "m", reason });

test("indexing shows how far, with thousands separated", () => {
  assert.equal(meaningsText(progress("indexing", 3200, 10000)),
    "Meanings indexed 3,200 / 10,000; until then the others are found by their words.");
});

test("a failed run says it stopped and why, not that it is still indexing", () => {
  const text = meaningsText(progress("retrying", 0, 12, "indexing meanings failed: the endpoint cannot be reached"));
  assert.match(text, /^Meanings indexed 0 \/ 12, stopped: indexing meanings failed: the endpoint cannot be reached\./);
  assert.match(text, /tries again every 30 seconds/);
});

test("off names the reason; loading and ready say so; an empty vault says nothing", () => {
  assert.match(meaningsText(progress("off", 0, 5, "no wheel for this platform")),
    /^Recall by meaning is off on this computer \(no wheel for this platform\)/);
  assert.equal(meaningsText(progress("loading", 0, 5)), "Loading the meaning model…");
  assert.equal(meaningsText(progress("ready", 5, 5)), "Recall by meaning is on: 5 memories indexed.");
  assert.equal(meaningsText(progress("ready", 0, 0)), "");
});

test("memories the model refused are counted and named by id, with why; none says nothing", () => {
  const refused = { memory_id: "m_refused1", problem: "the embeddings endpoint at http://127.0.0.1:8080 answered HTTP 400" };
  assert.equal(setAsideText(1, [refused]),
    "1 memory could not be indexed, m_refused1: the model refused it " +
    "(the embeddings endpoint at http://127.0.0.1:8080 answered HTTP 400). " +
    "It is found by its words, and tried again when you edit it or in an hour.");
  assert.match(setAsideText(1234, [refused, { ...refused, memory_id: "m_refused2" }]),
    /^1,234 memories could not be indexed, m_refused1, m_refused2 and 1,232 more: the model refused them \(/);
  assert.equal(setAsideText(0, []), "");
  assert.equal(setAsideText(undefined), ""); // a host from before set_aside
});

test("sync: memories that arrived from other computers in the last day, by the computers' names", () => {
  const at = Date.UTC(2026, 10, 27, 9, 30) / 1000;
  const now = at * 1000 + 60_000;
  assert.match(syncedText({ arrived: 1200, at, computers: ["desktop", "work laptop"] }, now),
    /^1,200 memories arrived from desktop, work laptop at .+\.$/);
  assert.match(syncedText({ arrived: 1, at, computers: [] }, now), /^1 memory arrived from another computer at /);
  assert.equal(syncedText(null, now), "");
  assert.equal(syncedText({ arrived: 3, at, computers: ["desktop"] }, now + 25 * 3600 * 1000), "");
});
