// Options → Desktop apps (MCP) (<section id="desktop-apps">): a switch for whether apps that run
// `whiteboard mcp` (Claude Desktop, Cursor, VS Code...) may search and list memories and suggest
// new ones, and the apps that did. Applied as it changes, like every setting of the page.
import { clientsText, desktopApps } from "../memory/desktop-apps.js";
import { element, fillSection, statusLine } from "./page.js";

const section = document.getElementById("desktop-apps");
const box = element("input", { type: "checkbox", id: "desktop-apps-on", disabled: true });
const status = statusLine("desktop-apps-status");
const clients = element("p", { id: "desktop-apps-clients", className: "hint" });
const hint = element("p", { id: "desktop-apps-hint", className: "hint", textContent: "Apps you register with " +
  "`whiteboard mcp install` (Claude Desktop, Cursor, VS Code...) can then search and list your memories on this " +
  "computer and suggest new ones, which wait for your Accept. Off: they get no memory." });
box.setAttribute("aria-describedby", hint.id);
fillSection(section, "Desktop apps (MCP)", "",
  element("div", { className: "field check" }, box,
          element("label", { htmlFor: box.id, textContent: "Let desktop apps read my memories" }), hint),
  clients, status.node);

function show(reply) {
  if (!reply.ok) {
    status.failed(reply.error.message);
    return false;
  }
  box.checked = reply.enabled;
  box.disabled = false;
  clients.textContent = reply.clients.length ? `Apps that connected: ${clientsText(reply.clients)}.` : "";
  return true;
}

box.addEventListener("change", async () => {
  box.disabled = true;
  const reply = await desktopApps(box.checked);
  if (!reply.ok) box.checked = !box.checked;
  box.disabled = false;
  if (show(reply)) status.saved(`Saved: desktop apps (MCP) are ${reply.enabled ? "on" : "off"}.`);
});
show(await desktopApps());
