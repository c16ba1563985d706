#!/usr/bin/env node
// The manifest serves Chrome and Firefox alike (background below; browser_specific_settings is
// Firefox's, `key` and minimum_chrome_version Chrome's; `whiteboard extension pack` leaves each
// out of the other's zip). Its chat content scripts derive from the sites table (extension/shared/sites.js):
// `matches` is https://<host>/* for every site's hosts, `js` the chat framework with each
// site's <id>.selectors.js and <id>.js in place. Its version is pyproject.toml's (the one
// source). Run it after adding a site to the table or changing the version.
//   node tools/sync-manifest.mjs [--check] [extension dir]
// --check changes nothing and exits 1 when manifest.json is not what the table and pyproject say.
// pyproject.toml is read from the extension dir's parent.
import { readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import vm from "node:vm";

export const DEFAULT_EXTENSION = resolve(fileURLToPath(import.meta.url), "../../extension");
const CHAT = "content/chat";
// The framework's scripts, in load order around the per-site files.
const BEFORE_SELECTORS = ["selector-registry.js"];
const SHARED = ["shared/site-overrides.js"]; // also used by the options page
const BEFORE_ADAPTERS = ["dom-query.js", "structure.js", "roles.js", "editor-input.js", "send-interceptor.js", "turn-capture.js", "adapter-framework.js"];
const AFTER_ADAPTERS = ["start.js", "handoff.js", "draft-meaning.js", "memory-preview.js"];

// The table as the extension reads it: shared/sites.js run in a context of its own.
export function loadSites(extensionDir = DEFAULT_EXTENSION) {
  const context = vm.createContext({});
  vm.runInContext(readFileSync(join(extensionDir, "shared", "sites.js"), "utf8"), context);
  return context.Whiteboard.sites;
}

export function chatScripts(sites) {
  const ids = Object.keys(sites.SITES);
  return [
    ...SHARED,
    ...BEFORE_SELECTORS.map((f) => `${CHAT}/${f}`),
    ...ids.map((id) => `${CHAT}/${id}.selectors.js`),
    ...BEFORE_ADAPTERS.map((f) => `${CHAT}/${f}`),
    ...ids.map((id) => `${CHAT}/${id}.js`),
    ...AFTER_ADAPTERS.map((f) => `${CHAT}/${f}`),
  ];
}

export const chatMatches = (sites) => sites.allHosts().map((host) => `https://${host}/*`);

// The content_scripts entry of the chat adapters (the one that loads the framework).
export function chatEntry(manifest) {
  const entry = manifest.content_scripts.find((e) => e.js.includes(`${CHAT}/adapter-framework.js`));
  if (!entry) throw new Error(`manifest.json has no content script entry loading ${CHAT}/adapter-framework.js`);
  return entry;
}

// One background for both browsers: Chrome runs `service_worker` (and ignores `scripts` from
// 121 on), Firefox runs `scripts` (and ignores `service_worker`); both as a module. The list
// is derived from the service worker, so the two never name different code.
export function withBackground(manifest) {
  const { service_worker: worker, type } = manifest.background || {};
  if (!worker) throw new Error("manifest.json has no background.service_worker");
  return { ...manifest, background: { service_worker: worker, scripts: [worker], type } };
}

export function synced(manifest, sites) {
  const next = withBackground(structuredClone(manifest));
  const entry = chatEntry(next);
  entry.matches = chatMatches(sites);
  entry.js = chatScripts(sites);
  return next;
}

// [project] version from pyproject.toml's text (a plain `version = "..."` line, as ours is).
export function projectVersion(pyproject) {
  const section = pyproject.split(/^\[/m).find((s) => s.startsWith("project]"));
  const found = section && section.match(/^version\s*=\s*"([^"]+)"\s*$/m);
  if (!found) throw new Error('pyproject.toml has no [project] version = "..." line');
  return found[1];
}

// Chrome takes one to four dot-separated integers as `version`: a PEP 440 pre- or dev
// release (0.2.0rc1) goes in as its release part, with the full string as `version_name`.
export function withVersion(manifest, version) {
  const release = version.match(/^\d+(?:\.\d+){0,3}/);
  if (!release) throw new Error(`version ${version} does not start with a release number`);
  const next = { ...manifest, version: release[0] };
  delete next.version_name;
  if (release[0] !== version) next.version_name = version;
  // Keep the manifest's key order: version where it was, version_name right after it.
  const ordered = {};
  for (const [k, v] of Object.entries(next)) {
    if (k === "version_name") continue;
    ordered[k] = v;
    if (k === "version" && next.version_name) ordered.version_name = next.version_name;
  }
  return ordered;
}

const render = (manifest) => `${JSON.stringify(manifest, null, 2)}\n`;

function main(args) {
  const check = args.includes("--check");
  const dir = args.find((a) => !a.startsWith("--")) || DEFAULT_EXTENSION;
  const path = join(dir, "manifest.json");
  const before = readFileSync(path, "utf8");
  const version = projectVersion(readFileSync(join(dir, "..", "pyproject.toml"), "utf8"));
  const after = render(withVersion(synced(JSON.parse(before), loadSites(dir)), version));
  if (before === after) return 0;
  if (check) {
    console.error(`${path} differs from the sites table or pyproject.toml's version: run node tools/sync-manifest.mjs`);
    return 1;
  }
  writeFileSync(path, after);
  console.log(`${path}: chat content scripts and version (${version}) updated`);
  return 0;
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  process.exitCode = main(process.argv.slice(2));
}
