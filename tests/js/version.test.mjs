// One version: pyproject.toml's. tools/sync-manifest.mjs writes it into manifest.json, and
// --check fails the moment the two disagree.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";

import { projectVersion, withVersion } from "../../tools/sync-manifest.mjs";
import { EXTENSION, ROOT } from "./load.mjs";

const TOOL = join(ROOT, "tools", "sync-manifest.mjs");
const manifestOf = (dir) => JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8"));

test("manifest.json's version is pyproject.toml's", () => {
  const version = projectVersion(readFileSync(join(ROOT, "pyproject.toml"), "utf8"));
  assert.equal(manifestOf(EXTENSION).version, version);
});

test("projectVersion reads [project]'s version, not another table's", () => {
  const text = '[build-system]\nversion = "9"\n\n[project]\nname = "whiteboard"\nversion = "1.2.3"\n\n[tool.x]\nversion = "4"\n';
  assert.equal(projectVersion(text), "1.2.3");
  assert.throws(() => projectVersion('[tool.x]\nversion = "4"\n'), /no \[project\] version/);
});

test("a pre-release goes in as its release number with the full string as version_name", () => {
  const base = { manifest_version: 3, name: "W", version: "0.1.0", description: "d" };
  assert.deepEqual(Object.keys(withVersion(base, "0.2.0rc1")), ["manifest_version", "name", "version", "version_name", "description"]);
  assert.equal(withVersion(base, "0.2.0rc1").version_name, "0.2.0rc1");
  assert.equal(withVersion(base, "0.2.0rc1").version, "0.2.0");
  assert.equal("version_name" in withVersion({ ...base, version_name: "old" }, "0.3.0"), false);
  assert.throws(() => withVersion(base, "dev"), /release number/);
});

test("the tool's --check fails on a stale version and a run brings the manifest in step", () => {
  const root = mkdtempSync(join(tmpdir(), "wb-version-"));
  try {
    cpSync(EXTENSION, join(root, "extension"), { recursive: true });
    writeFileSync(join(root, "pyproject.toml"), '[project]\nname = "whiteboard"\nversion = "7.8.9rc2"\n');
    const run = (...args) => spawnSync(process.execPath, [TOOL, ...args, join(root, "extension")], { encoding: "utf8" });
    const stale = run("--check");
    assert.equal(stale.status, 1, stale.stderr);
    assert.match(stale.stderr, /version/);
    assert.equal(run().status, 0);
    assert.equal(manifestOf(join(root, "extension")).version, "7.8.9");
    assert.equal(manifestOf(join(root, "extension")).version_name, "7.8.9rc2");
    assert.equal(run("--check").status, 0);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
