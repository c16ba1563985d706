// The user's own selectors for a chat site (Options, "Fix a site"): chrome.storage.local
// `siteOverrides` = {host: {role: selector}}. On a page of that host each selector is tried
// before the role's built-in list, so a site's redesign can be repaired without a release.
// A selector only ever changes what is found on the sites of the table (a host outside it is
// dropped, and content scripts run only there); one that is not valid CSS, too long, too
// costly on the page or matching what the role cannot be (an editor that is not editable, a
// send button that is not a button, a message that is the whole page) is ignored with a note.
// Loaded as a classic script by the chat content scripts and the options page.
(() => {
  const W = (globalThis.Whiteboard ??= {});
  if (W.siteOverrides) return;
  const KEY = W.wire.STORAGE.siteOverrides;
  // The roles the roles report names (roles.js), in its order.
  const ROLES = Object.freeze(["editor", "sendButton", "form", "userMessage", "assistantMessage", "userText",
                               "assistantText", "streaming"]);
  const MAX_CHARS = 500;
  const MAX_HAS = 2; // :has() makes a selector's cost grow with the page: few are allowed
  const MAX_QUERY_MS = 20; // one query of the whole page slower than this: too costly for every send
  // What a role's match must be, whatever the selector says.
  const KIND = {
    editor: 'textarea, [contenteditable]:not([contenteditable="false"])',
    sendButton: 'button, [role="button"], input[type="submit"]',
    form: "form",
  };
  const PAGE = "html, head, body";

  // Why `css` cannot be the user's selector for `role` (a short phrase), or null.
  function problem(role, css) {
    if (!ROLES.includes(role)) return `"${String(role).slice(0, 40)}" is not a role`;
    if (typeof css !== "string" || !css.trim()) return "not a selector";
    if (css.length > MAX_CHARS) return `longer than ${MAX_CHARS} characters`;
    if ((css.match(/:has\(/gi) || []).length > MAX_HAS) return `more than ${MAX_HAS} :has()`;
    try {
      document.createDocumentFragment().querySelector(css);
    } catch {
      return "not a valid CSS selector";
    }
    return null;
  }

  // The element a role's match may be: checked on every match, so no selector can make a
  // click anywhere a send or the whole page a message.
  // A send button must also sit in a composer area (structure.js) that holds an editor.
  function acceptsFor(role) {
    if (role === "sendButton") {
      return (el) => el.matches(KIND.sendButton) && Boolean(W.structure.areaOf(el)?.querySelector(KIND.editor));
    }
    return KIND[role] ? (el) => el.matches(KIND[role]) : (el) => !el.matches(PAGE);
  }

  // {overrides: {host: {role: css}}, notes: [phrase]} of what a user pasted or typed: only the
  // table's hosts and the roles above, each selector checked.
  function parse(value, hosts) {
    const overrides = {};
    const notes = [];
    if (!value || typeof value !== "object" || Array.isArray(value)) {
      return { overrides, notes: ["expected a JSON object: {host: {role: selector}}"] };
    }
    for (const [host, roles] of Object.entries(value)) {
      if (!hosts.includes(host)) {
        notes.push(`${host.slice(0, 80)}: not a chat site of Whiteboard, ignored`);
        continue;
      }
      if (!roles || typeof roles !== "object" || Array.isArray(roles)) {
        notes.push(`${host}: expected {role: selector}, ignored`);
        continue;
      }
      for (const [role, css] of Object.entries(roles)) {
        const why = problem(role, css);
        if (why) notes.push(`${host} ${role.slice(0, 40)}: ${why}, ignored`);
        else (overrides[host] ??= {})[role] = css.trim();
      }
    }
    return { overrides, notes };
  }

  // This page's usable overrides: {entries: {role: {css, pages, user, accepts}}, ignored:
  // [{role, why}]}. Each is queried once here to measure its cost on this page.
  function check(roles) {
    const entries = {};
    const ignored = [];
    for (const [role, css] of Object.entries(roles && typeof roles === "object" ? roles : {})) {
      let why = problem(role, css);
      if (!why) {
        const start = performance.now();
        document.querySelectorAll(css);
        if (performance.now() - start > MAX_QUERY_MS) why = "too slow on this page";
      }
      if (why) ignored.push({ role: ROLES.includes(role) ? role : "unknown", why });
      else entries[role] = Object.freeze({ css: css.trim(), pages: [], user: true, accepts: acceptsFor(role) });
    }
    return { entries, ignored };
  }

  // A selector table with the user's entries first in their roles.
  function merged(table, entries) {
    const next = { ...table };
    for (const [role, entry] of Object.entries(entries)) next[role] = [entry, ...(table[role] || [])];
    return Object.freeze(next);
  }

  // Calls onChange(check(this host's overrides)) once the page is parsed (so the cost check
  // queries the page, not an empty document) and whenever they change.
  function watch(hostname, onChange) {
    const now = (all) => onChange(check(all && typeof all === "object" ? all[hostname] : null));
    const apply = (all) => (document.readyState === "loading"
      ? document.addEventListener("DOMContentLoaded", () => now(all), { once: true }) : now(all));
    chrome.storage.local.get(KEY).then((got) => apply(got[KEY]), () => {});
    chrome.storage.onChanged.addListener((changes, area) => {
      if (area === "local" && changes[KEY]) apply(changes[KEY].newValue);
    });
  }

  W.siteOverrides = Object.freeze({ KEY, ROLES, parse, check, merged, watch });
})();
