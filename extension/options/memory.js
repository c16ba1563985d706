// Options → Long-term memory (<section id="long-term-memory">): the opt-in for each chat
// site (off by default; held by the host, site.settings), the token cap of pinned memories
// and the confidence under which extracted facts wait as suggestions (memory.settings,
// shared by every browser) and a link to the memory manager.
import { MANAGER_URL, siteMemory } from "../memory/opt-in.js";

const section = document.getElementById("long-term-memory");
const { SITES } = globalThis.Whiteboard.sites;
const { KIND } = globalThis.Whiteboard.wire;

function element(tag, props = {}, ...children) {
  const node = Object.assign(document.createElement(tag), props);
  node.append(...children);
  return node;
}

const status = element("p", { id: "memory-options-status", className: "hint", role: "status" });
const rows = element("div", { id: "memory-sites" });
const pinnedTokens = element("input", { type: "number", id: "pinned-tokens", min: 0, max: 2000, step: 10, disabled: true });
const suggestBelow = element("input", { type: "number", id: "suggest-below", min: 50, max: 100, step: 5, disabled: true });
section.append(
  element("h2", { textContent: "Long-term memory" }),
  element("p", { className: "hint", textContent: "Where it is on, lasting facts you state (preferences, skills, goals, " +
    "background) are kept encrypted on this computer and added to later messages, shown above the composer first." }),
  rows,
  element("label", { htmlFor: "pinned-tokens", textContent: "Tokens for pinned memories in each message " }),
  pinnedTokens,
  element("p", { className: "hint", textContent: "Pinned memories (pin them in Manage memories) go first with every " +
    "message, within this many tokens; 0 sends none. Recalled memories have their own room." }),
  element("label", { htmlFor: "suggest-below", textContent: "Keep extracted facts from this confidence (%) " }),
  suggestBelow,
  element("p", { className: "hint", textContent: "Facts Whiteboard is less sure about wait in Manage memories as " +
    "suggestions, unused until you accept them; 100 makes every fact wait for you." }),
  element("p", {}, element("a", { id: "memory-options-manage", href: MANAGER_URL, target: "_blank", textContent: "Manage memories" })),
  status);

async function row(hostname, label) {
  const box = element("input", { type: "checkbox", id: `memory-site-${hostname}`, disabled: true });
  rows.append(element("label", { className: "memory-site" }, box, ` ${label} (${hostname})`));
  const reply = await siteMemory(hostname);
  if (!reply.ok) {
    status.textContent = reply.error.message;
    return;
  }
  box.checked = reply.long_term;
  box.disabled = false;
  box.addEventListener("change", async () => {
    box.disabled = true;
    const changed = await siteMemory(hostname, box.checked);
    box.disabled = false;
    if (!changed.ok) box.checked = !box.checked;
    status.textContent = changed.ok ? `Long-term memory is ${changed.long_term ? "on" : "off"} for ${hostname}.`
      : changed.error.message;
  });
}

// Read (no change) or change the memory settings; `said` tells what a change did.
async function memorySettings(change = {}, said = () => "") {
  const reply = await chrome.runtime.sendMessage({ kind: KIND.host, timeoutMs: 5000,
    message: { type: "memory.settings", ...change } });
  if (!reply || !reply.ok) {
    status.textContent = reply?.error?.message ?? "no answer from the Whiteboard host";
    return;
  }
  pinnedTokens.value = reply.pinned_tokens;
  suggestBelow.value = Math.round(reply.suggest_below * 100);
  pinnedTokens.disabled = suggestBelow.disabled = false;
  status.textContent = said(reply);
}

pinnedTokens.addEventListener("change", () => {
  const value = Math.round(Number(pinnedTokens.value));
  if (Number.isFinite(value) && value >= 0 && value <= 2000) {
    memorySettings({ pinned_tokens: value }, (r) => `Pinned memories get up to ${r.pinned_tokens} tokens per message.`);
  } else status.textContent = "Pinned memory tokens: a whole number from 0 to 2000.";
});
suggestBelow.addEventListener("change", () => {
  const value = Math.round(Number(suggestBelow.value));
  if (Number.isFinite(value) && value >= 50 && value <= 100) {
    memorySettings({ suggest_below: value / 100 },
      (r) => `Extracted facts under ${Math.round(r.suggest_below * 100)}% confidence wait as suggestions.`);
  } else status.textContent = "Keep extracted facts from: a whole percentage from 50 to 100.";
});
memorySettings();

for (const info of Object.values(SITES)) for (const hostname of info.hosts) row(hostname, info.label);
