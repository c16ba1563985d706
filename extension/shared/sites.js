// The chat sites Whiteboard has an adapter for, by hostname (worker, popup, content scripts).
(() => {
  const SITES = Object.freeze({
    chatgpt: Object.freeze({ label: "ChatGPT", hosts: Object.freeze(["chatgpt.com"]) }),
    claude: Object.freeze({ label: "Claude", hosts: Object.freeze(["claude.ai"]) }),
  });

  function siteFor(hostname) {
    for (const [site, info] of Object.entries(SITES)) if (info.hosts.includes(hostname)) return site;
    return null;
  }

  globalThis.whiteboardSites = Object.freeze({ SITES, siteFor });
})();
