// The page's roles report (content/chat/roles.js) in the popup: a line naming the roles its
// site's selectors could not find (or found only by the page's structure), and a copyable
// diagnostic for a bug report: roles found, matches per selector (the user's own marked),
// the user's selectors ignored, the site's build id, the extension and browser versions.
// Never page text: the report holds none.
const LABELS = { editor: "composer", sendButton: "send button", userMessage: "your messages", assistantMessage: "replies" };
const $ = (id) => document.getElementById(id);
const { listPhrase } = globalThis.Whiteboard.sites;

// "your messages", "replies" -> "Your messages and replies".
function phrase(roles) {
  const text = listPhrase(roles.map((role) => LABELS[role]), "and");
  return text.charAt(0).toUpperCase() + text.slice(1);
}

const withStatus = (roles, status) => Object.keys(LABELS).filter((role) => roles[role] && roles[role].status === status);

export function diagnostic(page, version, userAgent) {
  const adapter = page.adapter;
  const roles = Object.fromEntries(Object.entries(adapter.roles).map(([role, r]) =>
    [role, { status: String(r.status), matches: r.matches.map((m) => ({ css: String(m.css), count: Number(m.count),
                                                                          ...(m.user ? { user: true } : {}) })) }]));
  // The user's own selectors (Options, "Fix a site") the page ignored, and why.
  const ignored = (adapter.ignored || []).map((i) => ({ role: String(i.role), why: String(i.why) }));
  return JSON.stringify({
    whiteboard: version,
    browser: (/(Chrome|Chromium|Edg|Firefox)\/\d+/.exec(userAgent) || ["unknown"])[0],
    site: page.site,
    host: page.hostname,
    build: adapter.build || {},
    state: adapter.state,
    roles,
    ...(ignored.length ? { ignored } : {}),
  }, null, 1);
}

function render(page) {
  const section = $("page-roles");
  const roles = page && page.site && page.adapter && page.adapter.roles;
  section.hidden = !roles;
  if (!roles) return;
  const missing = withStatus(roles, "missing");
  const fallback = withStatus(roles, "fallback");
  const found = withStatus(roles, "found");
  const lines = [];
  if (missing.length) lines.push(`${phrase(missing)} not recognised on this page: Whiteboard may need an update.`);
  if (fallback.length) lines.push(`${phrase(fallback)} found by the page's structure only: Whiteboard may need an update.`);
  if (missing.length || fallback.length) lines.push("Options → Fix a site can repair it now.");
  for (const { role, why } of page.adapter.ignored || []) lines.push(`Your selector for ${role} is ignored: ${why}.`);
  $("roles-problems").textContent = lines.join(" ");
  $("roles-problems").hidden = !lines.length;
  $("roles-found").textContent = found.length ? `Recognised: ${found.map((role) => LABELS[role]).join(", ")}.` : "";
  $("diagnostic-text").textContent = diagnostic(page, chrome.runtime.getManifest().version, navigator.userAgent);
}

async function copy() {
  const text = $("diagnostic-text").textContent;
  try {
    await navigator.clipboard.writeText(text);
    $("diagnostic-status").textContent = "Diagnostic copied: paste it into a bug report. It holds no page text.";
  } catch {
    $("diagnostic").open = true; // the clipboard refused: select it for the user to copy
    getSelection().selectAllChildren($("diagnostic-text"));
    $("diagnostic-status").textContent = "Copy the selected diagnostic with Ctrl+C.";
  }
}

$("copy-diagnostic").addEventListener("click", copy);
document.addEventListener("whiteboard:popup-refreshed", (e) => render(e.detail.page));
