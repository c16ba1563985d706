// Runs extension scripts (classic scripts that fill in the Whiteboard global) in a fresh
// V8 context, as the browser would load them, with only the globals a test hands in.
import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import vm from "node:vm";

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
export const EXTENSION = join(ROOT, "extension");

// Whiteboard after running `files` (paths under extension/) in order.
export function load(files, globals = {}) {
  const context = vm.createContext({ ...globals });
  for (const file of files) {
    vm.runInContext(readFileSync(join(EXTENSION, file), "utf8"), context, { filename: file });
  }
  return context.Whiteboard;
}

export const SHARED = ["shared/sites.js", "shared/wire.js", "shared/settings.js"];

// A value from another context as plain data of this one (deepStrictEqual compares prototypes).
export const plain = (value) => JSON.parse(JSON.stringify(value));
