// Each chat site's selectors live in a file of their own (<site>.selectors.js) and are
// registered here; adapter logic names selectors by role ("editor", "sendButton", ...),
// never by CSS. Every entry is {css, pages}: `pages` lists the saved real pages
// (tests/e2e/pages) the selector must match; tests/e2e/test_selectors.py checks each one
// in Chromium against every saved page. Within a role, entries are fallbacks in order.
(() => {
  const W = (globalThis.Whiteboard ??= {});
  if (W.selectors) return;
  const tables = new Map();

  function define(site, table) {
    for (const [role, entries] of Object.entries(table)) {
      if (!Array.isArray(entries) || entries.some((e) => typeof e.css !== "string" || !Array.isArray(e.pages))) {
        throw new Error(`selectors for ${site}.${role}: a list of {css, pages}`);
      }
    }
    tables.set(site, Object.freeze(table));
  }

  W.selectors = Object.freeze({ define, get: (site) => tables.get(site), sites: () => [...tables.keys()] });
})();
