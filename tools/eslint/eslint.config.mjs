// ESLint flat config for the extension's JavaScript and the JS tooling and tests.
// Run from the repository root (tests/run.sh and .ci/run do):
//   tools/eslint/node_modules/.bin/eslint -c tools/eslint/eslint.config.mjs extension tools tests/js tests/e2e/example_site
import js from "@eslint/js";
import globals from "globals";

const style = {
  eqeqeq: ["error", "always"],
  "no-var": "error",
  "prefer-const": "error",
  "no-unused-vars": ["error", { args: "after-used", caughtErrors: "none" }],
  "no-shadow": "off",
  "object-shorthand": "error",
};

// Loaded with <script type="module">, as the worker's modules, or imported by those.
const MODULES = ["extension/background/**/*.js", "extension/popup/*.js", "extension/options/*.js",
                 "extension/memory/mirror.js", "extension/memory/opt-in.js", "extension/memory/meanings.js",
                 "extension/memory/desktop-apps.js", "extension/memory/apps-line.js"];

export default [
  { ignores: ["**/node_modules/**", "tests/e2e/example_site/site-entry.js"] }, // a fragment of the sites table
  js.configs.recommended,
  {
    // ... and the test-only example site's adapter and selectors (tests/e2e/example_site).
    files: ["extension/**/*.js", "tests/e2e/example_site/example-chat*.js"],
    languageOptions: {
      ecmaVersion: 2024,
      sourceType: "script", // content scripts and the shared files are classic scripts
      globals: { ...globals.browser, chrome: "readonly", Whiteboard: "readonly" },
    },
    rules: style,
  },
  { files: MODULES, languageOptions: { sourceType: "module" } },
  {
    files: ["tools/**/*.mjs", "tests/js/**/*.mjs"],
    languageOptions: { ecmaVersion: 2024, sourceType: "module", globals: { ...globals.node } },
    rules: style,
  },
];
