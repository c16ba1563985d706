// Options → Sites → "Fix a site": the user's own selectors for a chat site, per host and
// role, stored in chrome.storage.local `siteOverrides` ({host: {role: selector}}; checked and
// applied by shared/site-overrides.js, on open tabs at once). Shown as JSON to copy into a bug
// report or paste from one; "Test on this tab" asks the content script of an open tab of the
// host how many elements each selector matches there (counts only, never page text).
// Renders into <section id="site-fixes">, and adds the Chat sites table's "Custom selectors"
// column (how many roles each site has of the user's, and a link here). A role's selector is
// saved as it changes, like every setting of the page; a pasted JSON waits for "Apply".
import { element, fillSection, statusLine } from "./page.js";
import { addSiteColumn } from "./sites-table.js";

const section = document.getElementById("site-fixes");
const { SITES, allHosts } = globalThis.Whiteboard.sites;
const { KEY, ROLES, parse } = globalThis.Whiteboard.siteOverrides;
const { KIND, STORAGE } = globalThis.Whiteboard.wire;

const hostChoice = element("select", { id: "fix-host" }, ...Object.values(SITES).flatMap((site) =>
  site.hosts.map((host) => element("option", { value: host, textContent: `${site.label} (${host})` }))));
const inputs = Object.fromEntries(ROLES.map((role) => [role, element("input", {
  id: `fix-${role}`, name: role, type: "text", autocomplete: "off", spellcheck: false, placeholder: "built-in selectors" })]));
const counts = Object.fromEntries(ROLES.map((role) => [role, element("span", { id: `fix-count-${role}`, className: "fix-count" })]));
const json = element("textarea", { id: "fix-json", rows: 6, spellcheck: false });
const notes = element("ul", { id: "fix-notes" });
const status = statusLine("fix-status");
const button = (id, text, onClick) => {
  const b = element("button", { type: "button", id, textContent: text });
  b.addEventListener("click", () => onClick().catch((err) => say(String(err && err.message || err))));
  return b;
};

let stored = {};

const columnCells = [];  // [site, cell] of the Chat sites table's column

const say = (text, list = []) => {
  status.saved(text);
  notes.replaceChildren(...list.map((note) => element("li", { textContent: note })));
};

// What follows the stored selectors: the JSON and the table's column.
function showStored() {
  json.value = JSON.stringify(stored, null, 2);
  for (const [site, cell] of columnCells) {
    const roles = new Set(site.hosts.flatMap((host) => Object.keys(stored[host] || {})));
    cell.textContent = roles.size ? `${roles.size} ${roles.size === 1 ? "role" : "roles"}` : "None";
  }
}

// The chosen host's fields from the stored selectors (what was typed there is replaced).
function render() {
  const roles = stored[hostChoice.value] || {};
  for (const role of ROLES) {
    inputs[role].value = roles[role] || "";
    counts[role].textContent = "";
  }
  showStored();
}

async function load(fields = true) {
  const value = (await chrome.storage.local.get(KEY))[KEY];
  stored = parse(value || {}, allHosts()).overrides;
  if (fields) render();
  else showStored();
}

// fields: show the stored selectors in the fields too (a pasted JSON); a field the user
// typed in keeps what was typed, an ignored selector included, with the note saying why.
async function save(value, done, fields = true) {
  const { overrides, notes: problems } = parse(value, allHosts());
  await chrome.storage.local.set({ [KEY]: overrides });
  stored = overrides;
  if (fields) render();
  else showStored();
  say(problems.length ? `${done} Some selectors were ignored:` : done, problems);
}

let saving = Promise.resolve();  // a field's save, which a test on the tab waits for

// This host's selectors as typed, with the other hosts' as stored.
function typed() {
  const roles = Object.fromEntries(ROLES.map((role) => [role, inputs[role].value.trim()]).filter(([, css]) => css));
  const next = { ...stored };
  if (Object.keys(roles).length) next[hostChoice.value] = roles;
  else delete next[hostChoice.value];
  return next;
}

async function pasteJson() {
  let value;
  try {
    value = JSON.parse(json.value || "{}");
  } catch {
    say("That is not JSON: nothing was changed.");
    return;
  }
  await save(value, "Applied.");
}

async function copyJson() {
  json.select();
  await navigator.clipboard.writeText(json.value);
  say("Copied.");
}

// Open tabs of the chosen host, as their content scripts reported them (the worker's page
// status; tab ids only: without the tabs permission a tab's URL is not ours to read).
async function tabsOf(host) {
  const ids = (await chrome.tabs.query({})).map((tab) => tab.id).filter(Number.isInteger);
  const pages = await chrome.storage.session.get(ids.map((id) => STORAGE.page(id)));
  return ids.filter((id) => pages[STORAGE.page(id)]?.hostname === host);
}

async function testOnTab() {
  await saving;
  const host = hostChoice.value;
  const selectors = typed()[host] || {};
  for (const tabId of await tabsOf(host)) {
    let answer = null;
    try {
      answer = await chrome.tabs.sendMessage(tabId, { kind: KIND.testSelectors, selectors }, { frameId: 0 });
    } catch { /* the tab moved on or closed */ }
    if (!answer || answer.hostname !== host) continue;
    for (const role of ROLES) {
      counts[role].textContent = role in answer.counts ? `${answer.counts[role]} found` : "";
    }
    say(`Tested on an open ${host} tab.`, answer.ignored.map(({ role, why }) => `${role}: ${why}, ignored`));
    return;
  }
  say(`Open a ${host} chat tab to test on.`);
}

hostChoice.addEventListener("change", () => {
  render();
  say("");
});
chrome.storage.onChanged.addListener((changes, area) => {
  if (area === "local" && changes[KEY]) load(false);
});

for (const role of ROLES) {
  inputs[role].addEventListener("change", () => {
    saving = save(typed(), `Saved: ${role} on ${hostChoice.value}.`, false)
      .catch((err) => status.failed(String(err && err.message || err)));
  });
}

addSiteColumn({
  id: "fixes", heading: "Custom selectors",
  cell(site) {
    const count = element("span", { className: "fix-column-count" });
    columnCells.push([site, count]);
    const link = element("a", { href: "#site-fixes", textContent: "Fix…" });
    link.setAttribute("aria-label", `Fix ${site.label}: custom selectors`);
    link.addEventListener("click", () => {
      hostChoice.value = site.hosts[0];
      render();
      say("");
    });
    return element("span", { className: "fix-column" }, count, " ", link);
  },
});

fillSection(section, "Fix a site", "When a chat site changes its page and Whiteboard stops recognising " +
    "part of it (the popup says which), a CSS selector here is tried before Whiteboard's own, on that site only, " +
    "from the next change on the page. Leave a role empty to keep Whiteboard's selectors.",
  element("label", { className: "fix-field" }, "Site ", hostChoice),
  ...ROLES.map((role) => element("label", { className: "fix-field" }, role, inputs[role], counts[role])),
  element("div", { className: "fix-actions" }, button("fix-test", "Test on this tab", testOnTab)),
  element("label", { className: "fix-field", htmlFor: "fix-json" }, "All sites' selectors as JSON (to share or paste)"),
  json,
  element("div", { className: "fix-actions" }, button("fix-apply", "Apply pasted JSON", pasteJson),
          button("fix-copy", "Copy", copyJson)),
  status.node, notes);

await load();
