// Keeps the memory opt-in mirror (memory/mirror.js) in step with the host, whose site
// settings other browsers on this machine may have changed: each chat site's settings are
// read whenever the port (re)connects; router.js takes `memory_on` from every chat reply.
import { mirrorSite } from "../memory/mirror.js";

const { allHosts } = globalThis.Whiteboard.sites;

export function mirrorOnConnect(port) {
  port.onStatus((status) => {
    if (status.state !== "connected") return;
    for (const hostname of allHosts()) {
      port.request({ type: "site.settings", site: hostname }, { timeoutMs: 5000 })
        .then((reply) => reply.ok && mirrorSite(hostname, reply.long_term && !reply.paused))
        .catch(() => {});
    }
  });
}
