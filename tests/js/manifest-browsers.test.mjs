// One manifest for Chrome and Firefox: the background both run is derived from one entry.
import assert from "node:assert/strict";
import { test } from "node:test";

import { withBackground } from "../../tools/sync-manifest.mjs";

test("background.scripts (Firefox) is the service worker (Chrome), whatever it said before", () => {
  const before = { background: { service_worker: "background/worker.js", scripts: ["stale.js"], type: "module" } };
  assert.deepEqual(withBackground(before).background,
    { service_worker: "background/worker.js", scripts: ["background/worker.js"], type: "module" });
});

test("a manifest without a service worker is refused, not half-written", () => {
  assert.throws(() => withBackground({ background: { scripts: ["a.js"] } }), /service_worker/);
});
