// Long-term memory opt-in per site (design §5), for extension pages (popup, options).
// The host holds the choice (site.settings; off by default); memory/mirror.js keeps the
// content scripts' copy of it up to date.
import { mirrorSite } from "./mirror.js";

const { KIND } = globalThis.Whiteboard.wire;
const host = (message) => chrome.runtime.sendMessage({ kind: KIND.host, message, timeoutMs: 5000 });

// The host's settings for a site, {ok, site, long_term, paused} or {ok: false, error};
// a change (`long_term` given) is mirrored once the host has it.
export async function siteMemory(hostname, longTerm) {
  const reply = await host({ type: "site.settings", site: hostname, ...(longTerm === undefined ? {} : { long_term: longTerm }) });
  if (reply.ok) await mirrorSite(hostname, reply.long_term && !reply.paused);
  return reply;
}

export const MANAGER_URL = chrome.runtime.getURL("memory/manager.html");
