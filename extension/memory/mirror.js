// The extension's mirror of which sites have long-term memory on (and not paused):
// {memorySites: {hostname: true}} in chrome.storage.local (Whiteboard.wire.STORAGE). The host holds the choice
// (site.settings), and every browser on the machine shares it; the mirror lets the chat
// page's content script show the memory preview at once without asking the host
// (content/chat/memory-preview.js). Written when an extension page reads or changes a
// site's settings, and by the worker when the host connects and from every chat reply.
import "../shared/wire.js";

const MIRROR_KEY = globalThis.Whiteboard.wire.STORAGE.memorySites;

let writes = Promise.resolve(); // one read-modify-write at a time, or two sites' updates could race

async function write(hostname, on) {
  const sites = { ...((await chrome.storage.local.get(MIRROR_KEY))[MIRROR_KEY] || {}) };
  if (on === Boolean(sites[hostname])) return;
  if (on) sites[hostname] = true;
  else delete sites[hostname];
  await chrome.storage.local.set({ [MIRROR_KEY]: sites });
}

export function mirrorSite(hostname, on) {
  writes = writes.catch(() => {}).then(() => write(hostname, on));
  return writes;
}
