// The chat sites Whiteboard has an adapter for: one entry per site, and everything else
// (settings defaults, handoff, popup, options, the manifest's chat content scripts through
// `node tools/sync-manifest.mjs`) derives from it. A site `id` has its adapter in
// content/chat/<id>.js and its selectors in content/chat/<id>.selectors.js.
// Loaded as a classic script (content scripts, extension pages) and as a module import.
(() => {
  const W = (globalThis.Whiteboard ??= {});
  if (W.sites) return;

  const TABLE = [
    {
      id: "chatgpt",
      label: "ChatGPT",
      hosts: ["chatgpt.com"],
      startUrl: "https://chatgpt.com/", // where a handoff to this site opens
      enabled: true, // handled unless the user turns it off in Options
      handoffTo: "claude", // the popup's "Continue in ..." on this site
    },
    {
      id: "claude",
      label: "Claude",
      hosts: ["claude.ai"],
      startUrl: "https://claude.ai/new",
      enabled: true,
      handoffTo: "chatgpt",
    },
  ];

  const SITES = Object.freeze(Object.fromEntries(TABLE.map((site) =>
    [site.id, Object.freeze({ ...site, hosts: Object.freeze([...site.hosts]) })])));

  // The site id whose adapter runs on `hostname`, or null.
  function siteFor(hostname) {
    for (const site of Object.values(SITES)) if (site.hosts.includes(hostname)) return site.id;
    return null;
  }

  const allHosts = () => Object.values(SITES).flatMap((site) => site.hosts);
  // The sites' labels as a phrase: labelList("or") -> "ChatGPT or Claude".
  function labelList(conjunction) {
    const labels = Object.values(SITES).map((site) => site.label);
    return labels.length < 2 ? labels.join("") : `${labels.slice(0, -1).join(", ")} ${conjunction} ${labels.at(-1)}`;
  }

  W.sites = Object.freeze({ SITES, siteFor, allHosts, labelList });
})();
