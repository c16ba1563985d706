// The chat sites Whiteboard has an adapter for: one entry per site, and everything else
// (settings defaults, handoff, popup, options, the manifest's chat content scripts through
// `node tools/sync-manifest.mjs`) derives from it. A site `id` has its adapter in
// content/chat/<id>.js and its selectors in content/chat/<id>.selectors.js.
// Loaded as a classic script (content scripts, extension pages) and as a module import.
(() => {
  const W = (globalThis.Whiteboard ??= {});
  if (W.sites) return;

  // Each entry: `id`, `label`, `hosts` (where its adapter runs), `startUrl` (where a handoff
  // to the site opens), `enabled` (handled unless the user turns it off in Options) and
  // `sharePaths`: the path prefixes of its shared and public conversations (a stranger's
  // words: nothing there teaches long-term memory, docs/extension.md "Hostile pages").
  // Perplexity shares a thread at its own /search/ address, so only its public Pages and
  // Discover feed are told apart by path.
  // "Continue in ..." offers every enabled site but the one the tab is on.
  const TABLE = [
    { id: "chatgpt", label: "ChatGPT", hosts: ["chatgpt.com"], startUrl: "https://chatgpt.com/", enabled: true,
      sharePaths: ["/share/", "/s/"] },
    { id: "claude", label: "Claude", hosts: ["claude.ai"], startUrl: "https://claude.ai/new", enabled: true,
      sharePaths: ["/share/", "/public/"] },
    { id: "gemini", label: "Gemini", hosts: ["gemini.google.com"], startUrl: "https://gemini.google.com/app", enabled: true,
      sharePaths: ["/share/"] },
    { id: "perplexity", label: "Perplexity", hosts: ["www.perplexity.ai"], startUrl: "https://www.perplexity.ai/",
      enabled: true, sharePaths: ["/page/", "/discover/"] },
    { id: "grok", label: "Grok", hosts: ["grok.com"], startUrl: "https://grok.com/", enabled: true,
      sharePaths: ["/share/"] },
    { id: "deepseek", label: "DeepSeek", hosts: ["chat.deepseek.com"], startUrl: "https://chat.deepseek.com/",
      enabled: true, sharePaths: ["/share/"] },
    { id: "copilot", label: "Copilot", hosts: ["copilot.microsoft.com", "www.copilot.com"],
      startUrl: "https://copilot.microsoft.com/", enabled: true, sharePaths: ["/shares/"] },
  ];

  const SITES = Object.freeze(Object.fromEntries(TABLE.map((site) =>
    [site.id, Object.freeze({ ...site, hosts: Object.freeze([...site.hosts]),
                              sharePaths: Object.freeze([...(site.sharePaths || [])]) })])));

  // The site id whose adapter runs on `hostname`, or null.
  function siteFor(hostname) {
    for (const site of Object.values(SITES)) if (site.hosts.includes(hostname)) return site.id;
    return null;
  }

  // Whether `pathname` on site `id` is a shared or public conversation (case as the site
  // serves it: its share paths are lower case).
  const isSharedPage = (id, pathname) => Boolean(SITES[id]?.sharePaths.some((prefix) =>
    pathname.toLowerCase().startsWith(prefix)));

  const allHosts = () => Object.values(SITES).flatMap((site) => site.hosts);
  // Where "Continue in ..." may go from site `from`: every site enabled in `enabledSites`
  // (settings.sites: id -> boolean) other than `from`, in table order.
  const handoffTargets = (from, enabledSites) =>
    Object.keys(SITES).filter((id) => id !== from && (enabledSites?.[id] ?? SITES[id].enabled));
  // Words as a phrase: listPhrase(["a", "b", "c"], "or") -> "a, b or c".
  const listPhrase = (words, conjunction) =>
    words.length < 2 ? words.join("") : `${words.slice(0, -1).join(", ")} ${conjunction} ${words.at(-1)}`;
  // The sites' labels as a phrase: labelList("or") -> "ChatGPT or Claude".
  const labelList = (conjunction) => listPhrase(Object.values(SITES).map((site) => site.label), conjunction);

  W.sites = Object.freeze({ SITES, siteFor, isSharedPage, allHosts, labelList, listPhrase, handoffTargets });
})();
