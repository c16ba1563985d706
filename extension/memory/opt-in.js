// Long-term memory opt-in per site (DESIGN §5), for extension pages (popup, options).
// The host holds the choice (site.settings; off by default). chrome.storage.local keeps a
// mirror, {memorySites: {hostname: true}}, so the chat page's content script knows at once
// whether to show the memory preview without asking the host (content/chat/memory-preview.js).
export const MIRROR_KEY = "memorySites";

const host = (message) => chrome.runtime.sendMessage({ kind: "host", message, timeoutMs: 5000 });

async function mirror(hostname, on) {
  const sites = { ...((await chrome.storage.local.get(MIRROR_KEY))[MIRROR_KEY] || {}) };
  if (on === Boolean(sites[hostname])) return;
  if (on) sites[hostname] = true;
  else delete sites[hostname];
  await chrome.storage.local.set({ [MIRROR_KEY]: sites });
}

// The host's settings for a site, {ok, site, long_term, paused} or {ok: false, error};
// a change (`long_term` given) is mirrored once the host has it.
export async function siteMemory(hostname, longTerm) {
  const reply = await host({ type: "site.settings", site: hostname, ...(longTerm === undefined ? {} : { long_term: longTerm }) });
  if (reply.ok) await mirror(hostname, reply.long_term && !reply.paused);
  return reply;
}

export const MANAGER_URL = chrome.runtime.getURL("memory/manager.html");
