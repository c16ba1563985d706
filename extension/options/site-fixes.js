// Options → Sites → "Fix a site": the user's own selectors for a chat site, per host and
// role, stored in chrome.storage.local `siteOverrides` ({host: {role: selector}}; checked and
// applied by shared/site-overrides.js, on open tabs at once). Shown as JSON to copy into a bug
// report or paste from one; "Test on this tab" asks the content script of an open tab of the
// host how many elements each selector matches there (counts only, never page text).
// Renders into <section id="site-fixes">; nothing else on the page depends on it.
const section = document.getElementById("site-fixes");
const { SITES, allHosts } = globalThis.Whiteboard.sites;
const { KEY, ROLES, parse } = globalThis.Whiteboard.siteOverrides;
const { KIND, STORAGE } = globalThis.Whiteboard.wire;

function element(tag, props = {}, ...children) {
  const node = Object.assign(document.createElement(tag), props);
  node.append(...children);
  return node;
}

const hostChoice = element("select", { id: "fix-host" }, ...Object.values(SITES).flatMap((site) =>
  site.hosts.map((host) => element("option", { value: host, textContent: `${site.label} (${host})` }))));
const inputs = Object.fromEntries(ROLES.map((role) => [role, element("input", {
  id: `fix-${role}`, name: role, type: "text", autocomplete: "off", spellcheck: false, placeholder: "built-in selectors" })]));
const counts = Object.fromEntries(ROLES.map((role) => [role, element("span", { id: `fix-count-${role}`, className: "fix-count" })]));
const json = element("textarea", { id: "fix-json", rows: 6, spellcheck: false });
const notes = element("ul", { id: "fix-notes" });
const status = element("span", { id: "fix-status", role: "status" });
const button = (id, text, onClick) => {
  const b = element("button", { type: "button", id, textContent: text });
  b.addEventListener("click", () => onClick().catch((err) => say(String(err && err.message || err))));
  return b;
};

let stored = {};

const say = (text, list = []) => {
  status.textContent = text;
  notes.replaceChildren(...list.map((note) => element("li", { textContent: note })));
};

function render() {
  const roles = stored[hostChoice.value] || {};
  for (const role of ROLES) {
    inputs[role].value = roles[role] || "";
    counts[role].textContent = "";
  }
  json.value = JSON.stringify(stored, null, 2);
}

async function load() {
  const value = (await chrome.storage.local.get(KEY))[KEY];
  stored = parse(value || {}, allHosts()).overrides;
  render();
}

async function save(value, done) {
  const { overrides, notes: problems } = parse(value, allHosts());
  await chrome.storage.local.set({ [KEY]: overrides });
  stored = overrides;
  render();
  say(problems.length ? `${done} Some selectors were ignored:` : done, problems);
}

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
  if (area === "local" && changes[KEY]) load();
});

section.append(
  element("h2", { textContent: "Fix a site" }),
  element("p", { className: "hint", textContent: "When a chat site changes its page and Whiteboard stops recognising " +
    "part of it (the popup says which), a CSS selector here is tried before Whiteboard's own, on that site only, " +
    "from the next change on the page. Leave a role empty to keep Whiteboard's selectors." }),
  element("label", { className: "fix-field" }, "Site ", hostChoice),
  ...ROLES.map((role) => element("label", { className: "fix-field" }, role, inputs[role], counts[role])),
  element("div", { className: "fix-actions" }, button("fix-save", "Save", () => save(typed(), "Saved.")),
          button("fix-test", "Test on this tab", testOnTab)),
  element("label", { className: "fix-field", htmlFor: "fix-json" }, "All sites' selectors as JSON (to share or paste)"),
  json,
  element("div", { className: "fix-actions" }, button("fix-apply", "Apply pasted JSON", pasteJson),
          button("fix-copy", "Copy", copyJson)),
  status, notes);

await load();
