// The memory page's line about desktop apps (MCP): on or off, and the apps that read
// memories with when each did last (memory.desktop). Attached after #meanings on load.
import { clientsText, desktopApps } from "./desktop-apps.js";

const line = Object.assign(document.createElement("p"), { id: "desktop-apps", className: "hint" });
document.getElementById("meanings").after(line);

const reply = await desktopApps();
if (reply.ok) {
  const apps = reply.clients.length ? ` Apps that connected: ${clientsText(reply.clients)}.` : "";
  line.textContent = reply.enabled ? `Desktop apps (MCP) can read your memories.${apps}` :
    `Desktop apps (MCP) are off: no app reads your memories (turn it on in Options).${apps}`;
}
