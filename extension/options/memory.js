// Options → Long-term memory (<section id="long-term-memory">): the opt-in for each chat
// site (off by default; held by the host, site.settings) and a link to the memory manager.
import { MANAGER_URL, siteMemory } from "../memory/opt-in.js";

const section = document.getElementById("long-term-memory");
const { SITES } = globalThis.Whiteboard.sites;

function element(tag, props = {}, ...children) {
  const node = Object.assign(document.createElement(tag), props);
  node.append(...children);
  return node;
}

const status = element("p", { id: "memory-options-status", className: "hint", role: "status" });
const rows = element("div", { id: "memory-sites" });
section.append(
  element("h2", { textContent: "Long-term memory" }),
  element("p", { className: "hint", textContent: "Where it is on, lasting facts you state (preferences, skills, goals, " +
    "background) are kept encrypted on this computer and added to later messages, shown above the composer first." }),
  rows,
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

for (const info of Object.values(SITES)) for (const hostname of info.hosts) row(hostname, info.label);
