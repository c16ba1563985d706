// Desktop apps (MCP, docs/mcp.md): whether apps such as Claude Desktop or Cursor may read
// memories through `whiteboard mcp`, and which did (memory.desktop). Shared by Options'
// switch (options/desktop-apps.js) and the memory page's line (memory/apps-line.js).
import "../shared/wire.js";

const { KIND } = globalThis.Whiteboard.wire;

// Read (no `enabled`) or change the switch: the host's reply, or {ok: false, error}.
export async function desktopApps(enabled) {
  const message = enabled === undefined ? { type: "memory.desktop" } : { type: "memory.desktop", enabled };
  const reply = await chrome.runtime.sendMessage({ kind: KIND.host, message, timeoutMs: 5000 }).catch(() => null);
  return reply || { ok: false, error: { message: "no answer from the Whiteboard host" } };
}

// "Claude (last read 27 Nov, 21:40), Cursor (never read)": the apps, the last to read first.
export function clientsText(clients) {
  const when = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" });
  return clients.map((c) => `${c.name} (${c.last_read ? `last read ${when.format(c.last_read * 1000)}` :
    "never read"})`).join(", ");
}
