#!/usr/bin/env node
// The manifest's chat content scripts derive from the sites table (extension/shared/sites.js):
// `matches` is https://<host>/* for every site's hosts, `js` the chat framework with each
// site's <id>.selectors.js and <id>.js in place. Run it after adding a site to the table.
//   node tools/sync-manifest.mjs [--check] [extension dir]
// --check changes nothing and exits 1 when manifest.json is not what the table says.
import { readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import vm from "node:vm";

export const DEFAULT_EXTENSION = resolve(fileURLToPath(import.meta.url), "../../extension");
const CHAT = "content/chat";
// The framework's scripts, in load order around the per-site files.
const BEFORE_SELECTORS = ["selector-registry.js"];
const BEFORE_ADAPTERS = ["dom-query.js", "editor-input.js", "send-interceptor.js", "turn-capture.js", "adapter-framework.js"];
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

export function synced(manifest, sites) {
  const next = structuredClone(manifest);
  const entry = chatEntry(next);
  entry.matches = chatMatches(sites);
  entry.js = chatScripts(sites);
  return next;
}

const render = (manifest) => `${JSON.stringify(manifest, null, 2)}\n`;

function main(args) {
  const check = args.includes("--check");
  const dir = args.find((a) => !a.startsWith("--")) || DEFAULT_EXTENSION;
  const path = join(dir, "manifest.json");
  const before = readFileSync(path, "utf8");
  const after = render(synced(JSON.parse(before), loadSites(dir)));
  if (before === after) return 0;
  if (check) {
    console.error(`${path} differs from the sites table: run node tools/sync-manifest.mjs`);
    return 1;
  }
  writeFileSync(path, after);
  console.log(`${path}: chat content scripts updated from the sites table`);
  return 0;
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  process.exitCode = main(process.argv.slice(2));
}
