// Popup → Long-term memory (<section id="memory">): the opt-in for the current chat site
// (off by default; held by the host), "Extract now" for this tab's conversation
// (memory.extract with manual: true) and a link to the memory manager page.
// Renders whenever popup.js announces a refresh ("whiteboard:popup-refreshed").
import { watchMeanings } from "../memory/meanings.js";
import { MANAGER_URL, siteMemory } from "../memory/opt-in.js";

const EXTRACT_TIMEOUT_MS = 120000; // a local model may be slow; the rules answer at once
const section = document.getElementById("memory");
const { labelList } = globalThis.Whiteboard.sites;
const { parseKey, KIND } = globalThis.Whiteboard.wire;

function element(tag, props = {}, ...children) {
  const node = Object.assign(document.createElement(tag), props);
  node.append(...children);
  return node;
}

const toggle = element("input", { type: "checkbox", id: "memory-opt-in" });
const toggleLabel = element("label", { htmlFor: "memory-opt-in" });
const extract = element("button", { type: "button", id: "memory-extract", textContent: "Extract now" });
const status = element("p", { id: "memory-status", className: "memory-status", role: "status" });
const manage = element("a", { id: "memory-manage", href: MANAGER_URL, target: "_blank", textContent: "Manage memories" });
const meanings = element("p", { id: "memory-meanings", className: "memory-status", role: "status" });
const suggested = element("p", { id: "memory-suggestions", className: "memory-status", role: "status" });
section.append(element("h2", { textContent: "Long-term memory" }),
               element("p", { className: "memory-opt-in" }, toggle, " ", toggleLabel),
               element("p", { className: "memory-actions" }, extract, " ", manage), status, meanings, suggested);
let stopMeanings = null;

let current = { key: null, hostname: null, on: false };

// The page records the conversation it shows first (the click is the user's act).
function engage(tabId) {
  const asked = chrome.tabs.sendMessage(tabId, { kind: KIND.engage }).catch(() => null);
  return Promise.race([asked, new Promise((resolve) => setTimeout(resolve, 3000))]);
}

function show(settings) {
  current.on = Boolean(settings && settings.long_term && !settings.paused);
  toggle.checked = Boolean(settings && settings.long_term);
  extract.disabled = !current.on || !current.key;
}

async function render({ key, page, connected }) {
  const chatSite = page && page.site ? page.hostname : null;
  current = { key: chatSite ? key : null, hostname: chatSite, on: false };
  toggleLabel.textContent = chatSite ? `Remember lasting facts about me on ${chatSite}` : "Remember lasting facts about me";
  toggle.disabled = true;
  extract.disabled = true;
  if (!chatSite) {
    status.textContent = `Long-term memory works on ${labelList("and")}.`;
    return;
  }
  if (!connected) {
    status.textContent = "The host is not connected: memory settings cannot be read.";
    return;
  }
  const reply = await siteMemory(chatSite);
  if (!reply.ok) {
    status.textContent = reply.error.message;
    return;
  }
  toggle.disabled = false;
  show(reply);
  if (stopMeanings) stopMeanings();
  stopMeanings = reply.long_term ? watchMeanings(meanings, suggested) : null;
  status.textContent = reply.paused ? "Long-term memory is paused for this site on the host: nothing is remembered or added." :
    current.on ? "Memories recalled for your message are added to it; you see them above the composer first." :
      "Off: nothing is remembered or added on this site.";
}

toggle.addEventListener("change", async () => {
  toggle.disabled = true;
  const wanted = toggle.checked;
  const reply = await siteMemory(current.hostname, wanted);
  toggle.disabled = false;
  if (!reply.ok) {
    toggle.checked = !wanted;
    status.textContent = reply.error.message;
    return;
  }
  show(reply);
  status.textContent = wanted ? `Long-term memory is on for ${current.hostname}.` : `Long-term memory is off for ${current.hostname}.`;
});

extract.addEventListener("click", async () => {
  extract.disabled = true;
  status.textContent = "Extracting…";
  await engage(parseKey(current.key).tabId);
  const reply = await chrome.runtime.sendMessage({ kind: KIND.host, message: { type: "memory.extract", key: current.key, manual: true },
                                                   timeoutMs: EXTRACT_TIMEOUT_MS });
  extract.disabled = !current.on;
  if (!reply.ok) {
    status.textContent = reply.error.code === "not_found" ? "Nothing captured in this tab yet." : reply.error.message;
    return;
  }
  const found = reply.memories.map((m) => m.text);
  const waiting = reply.suggested.length ? ` ${reply.suggested.length} suggested: accept or discard them in Manage memories.` : "";
  status.textContent = `${reply.added} added, ${reply.updated} updated, ${reply.unchanged} already known` +
    (found.length ? `: ${found.join(" · ")}.` : ".") + waiting;
});

document.addEventListener("whiteboard:popup-refreshed", (e) => render(e.detail));
