// Popup: the tab's session as a vBRIEF file. Shows the memory tiers' token costs and the
// compression stats first, then saves exactly that document (a Blob and an <a download>:
// no `downloads` permission). Also imports a saved document into the tab, asking before
// it replaces a session. Renders into <section id="export">; popup.js announces the tab
// after each refresh ("whiteboard:popup-refreshed") and refreshes on "whiteboard:popup-refresh".
const $ = (id) => document.getElementById(id);
const section = $("export");
const EXPORT_MS = 60000; // with a model configured the host summarises while exporting
const IMPORT_MS = 15000;
// The toolbar popup closes when a file chooser takes focus, so there Import opens this
// page in a tab (`?tab=<id>`, as the popup does for a given tab) where the chooser works.
const IN_TAB = new URLSearchParams(location.search).has("tab");
const { parseKey, KIND } = globalThis.Whiteboard.wire;
const { SITES } = globalThis.Whiteboard.sites;
const host = (message, timeoutMs) => chrome.runtime.sendMessage({ kind: KIND.host, message, timeoutMs });

let tab = { key: null, page: null, connected: false };
let shown = null; // the document whose costs are on screen; Export saves this one
let pending = null; // a parsed document waiting for the user to confirm the replace
let generation = 0; // a newer refresh wins over a slower older one

function el(tag, props = {}, ...children) {
  const node = Object.assign(document.createElement(tag), props);
  node.append(...children);
  return node;
}

function build() {
  const style = el("link", { rel: "stylesheet", href: "export.css" });
  const button = (id, text, disabled = false) => el("button", { id, type: "button", disabled }, text);
  const status = el("p", { id: "export-status" });
  status.setAttribute("role", "status");
  const file = IN_TAB
    ? el("input", { id: "import-session", type: "file", accept: ".json,application/json", disabled: true })
    : button("import-session", "Import session…", true);
  return [
    style,
    el("h2", {}, "Export (vBRIEF)"),
    el("p", { id: "export-summary" }, "Counting the tiers…"),
    el("p", { id: "export-tiers", className: "tiers" }),
    el("p", { id: "export-stats", className: "stats" }),
    el("div", { className: "export-actions" }, button("export-session", "Export session", true),
       IN_TAB ? el("label", { className: "import-label" }, "Import session ", file) : file),
    el("p", { id: "import-confirm", hidden: true }, el("span", { id: "import-question" }), " ",
       button("import-replace", "Replace"), " ", button("import-cancel", "Cancel")),
    status,
  ];
}

function setState(state, text) {
  section.dataset.state = state; // for tests: loading | ready | empty | unavailable | error
  $("export-summary").textContent = text;
  $("export-session").disabled = state !== "ready";
  $("import-session").disabled = !tab.key || !tab.connected;
  if (state !== "ready") $("export-tiers").replaceChildren();
  if (state !== "ready") $("export-stats").textContent = "";
}

function say(text, failed = false) {
  $("export-status").textContent = text;
  $("export-status").classList.toggle("failed", failed);
}

function renderDocument(doc) {
  const info = doc.vBRIEFInfo;
  const tiers = $("export-tiers");
  tiers.replaceChildren();
  info.memoryTiers.forEach((tier, i) => {
    const item = document.createElement("span");
    item.dataset.tier = tier.tier;
    item.textContent = `${tier.label} ${tier.tokenCost}`;
    tiers.append(...(i ? [" · ", item] : [item]));
  });
  tiers.append(" tokens");
  const s = info.compressionStats;
  $("export-stats").textContent = `Compressed ${s.originalTokens} → ${s.compressedTokens} tokens ` +
    `(ratio ${s.compressionRatio.toFixed(2)}, ${s.tokensSaved} saved)`;
  const n = info.sessionInfo.totalObservations;
  setState("ready", `${n} observation${n === 1 ? "" : "s"}. Memory tiers and what each costs to load:`);
}

async function load() {
  const mine = ++generation;
  shown = null;
  if (!tab.connected) return setState("unavailable", "Export needs the Whiteboard host (see above).");
  if (!tab.key) return setState("empty", "Whiteboard does not run on this page: nothing to export.");
  setState("loading", "Counting the tiers…");
  const site = SITES[tab.page.site]; // the document names the chat site as the sites table labels it
  const reply = await host({ type: "vbrief.export", key: tab.key, ...(site ? { agent: site.label } : {}) }, EXPORT_MS);
  if (mine !== generation) return;
  if (reply.ok) {
    shown = reply.document;
    renderDocument(shown);
  } else if (reply.error.code === "not_found") {
    setState("empty", "Nothing captured in this tab yet: nothing to export.");
  } else if (reply.error.code === "unavailable" || reply.error.code === "timeout") {
    setState("unavailable", `Export needs the Whiteboard host: ${reply.error.message}`);
  } else {
    setState("error", `Could not export this session: ${reply.error.message}`);
  }
}

function fileName() {
  const site = tab.page.site || tab.page.hostname;
  return `whiteboard-${site}-${new Date().toISOString().slice(0, 10)}.vbrief.json`;
}

function save() {
  if (!shown) return;
  const blob = new Blob([JSON.stringify(shown, null, 2)], { type: "application/json" });
  const link = document.createElement("a");
  link.href = URL.createObjectURL(blob);
  link.download = fileName();
  link.click();
  setTimeout(() => URL.revokeObjectURL(link.href), 10000);
  say(`Saved ${link.download}.`);
}

async function importDocument(doc, replace) {
  const reply = await host({ type: "vbrief.import", key: tab.key, document: doc, replace }, IMPORT_MS);
  if (!reply.ok) return say(`Could not import: ${reply.error.message}`, true);
  const redacted = reply.redacted ? ` (${reply.redacted} redacted)` : "";
  say(`Imported: this tab's session now holds ${reply.count} message${reply.count === 1 ? "" : "s"}${redacted}.`);
  document.dispatchEvent(new Event("whiteboard:popup-refresh"));
}

async function chooseFile(file) {
  let doc;
  try {
    doc = JSON.parse(await file.text());
  } catch {
    return say(`${file.name} is not a JSON file.`, true);
  }
  if (!shown) return importDocument(doc, false);
  pending = doc; // the tab has a session: ask first
  $("import-question").textContent = `Replace this tab's session (${shown.vBRIEFInfo.sessionInfo.totalObservations} ` +
    `observations) with ${file.name}?`;
  $("import-confirm").hidden = false;
}

function answer(replace) {
  const doc = pending;
  pending = null;
  $("import-confirm").hidden = true;
  if (replace && doc) importDocument(doc, true);
  else say("Import cancelled: the session is unchanged.");
}

function openInTab() {
  const { tabId } = parseKey(tab.key);
  chrome.tabs.create({ url: chrome.runtime.getURL(`popup/popup.html?tab=${tabId}`) });
  window.close();
}

section.replaceChildren(...build());
document.addEventListener("whiteboard:popup-refreshed", (event) => {
  tab = event.detail;
  load();
});
$("export-session").addEventListener("click", save);
if (IN_TAB) {
  $("import-session").addEventListener("change", (event) => {
    const [file] = event.target.files;
    event.target.value = ""; // choosing the same file again still fires
    if (file) chooseFile(file);
  });
} else {
  $("import-session").addEventListener("click", openInTab);
}
$("import-replace").addEventListener("click", () => answer(true));
$("import-cancel").addEventListener("click", () => answer(false));
