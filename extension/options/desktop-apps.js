// Options → Desktop apps (MCP): a switch for whether apps that run `whiteboard mcp` (Claude
// Desktop, Cursor, VS Code...) may search and list memories and suggest new ones, and the
// apps that did. Self-contained: it adds its own section at the end of the page.
import { clientsText, desktopApps } from "../memory/desktop-apps.js";

function element(tag, props = {}, ...children) {
  const node = Object.assign(document.createElement(tag), props);
  node.append(...children);
  return node;
}

const box = element("input", { type: "checkbox", id: "desktop-apps-on", disabled: true });
const status = element("p", { id: "desktop-apps-status", className: "hint", role: "status" });
const clients = element("p", { id: "desktop-apps-clients", className: "hint" });
document.body.append(element("section", { id: "desktop-apps" },
  element("h2", { textContent: "Desktop apps (MCP)" }),
  element("label", { className: "memory-site" }, box, " Let desktop apps read my memories"),
  element("p", { className: "hint", textContent: "Apps you register with `whiteboard mcp install` (Claude Desktop, " +
    "Cursor, VS Code...) can then search and list your memories on this computer and suggest new ones, which wait " +
    "for your Accept. Off: they get no memory." }),
  clients, status));

function show(reply) {
  if (!reply.ok) {
    status.textContent = reply.error.message;
    return;
  }
  box.checked = reply.enabled;
  box.disabled = false;
  clients.textContent = reply.clients.length ? `Apps that connected: ${clientsText(reply.clients)}.` : "";
}

box.addEventListener("change", async () => {
  box.disabled = true;
  const reply = await desktopApps(box.checked);
  if (!reply.ok) box.checked = !box.checked;
  box.disabled = false;
  show(reply);
  if (reply.ok) status.textContent = `Desktop apps (MCP) are ${reply.enabled ? "on" : "off"}.`;
});
show(await desktopApps());
