// The roles report (design §9): for each role of a site's selector table, how many elements
// each selector matches now and whether the role was found, found only by the structural
// fallback, or missing where the page must have one. It goes to the popup (page status) and
// into the copyable diagnostic, so it holds counts, our own selectors (and the user's, marked
// `user`), the site's build id and statuses: never page text.
(() => {
  const W = (globalThis.Whiteboard ??= {});
  if (W.roles) return;
  // <html> attributes where a site names its build (chatgpt.com: data-build; claude.ai: the rest).
  const BUILD_ATTRIBUTES = ["data-build", "data-build-id", "data-git-hash", "data-build-timestamp"];
  const TOKEN = /^[\w.:-]{1,80}$/;

  // What the sends on this page showed: the composer and send button the fallbacks found,
  // the send button seen with a draft in, and how many sends went through.
  class RolesSeen {
    constructor() {
      this.fallback = new Set();
      this.lastEditor = null;
      this.sendButtonAtSend = null; // "found" | "fallback" | "missing", at the last send
      this.sends = 0;
    }

    editor(el, byFallback = false) {
      if (el) this.lastEditor = el;
      if (el && byFallback) this.fallback.add("editor");
      return el;
    }

    sendButton(el, byFallback = false) {
      if (el && byFallback) this.fallback.add("sendButton");
      return el;
    }

    // A send is being prepared, with the draft still in the composer.
    atSend(sendButtonStatus) {
      this.sendButtonAtSend = sendButtonStatus;
      if (sendButtonStatus === "fallback") this.fallback.add("sendButton");
    }
  }

  function statusOf(role, found, adapter, matched) {
    const seen = adapter.seen;
    if (found) return "found";
    if (seen.fallback.has(role)) return "fallback";
    switch (role) {
      case "editor":
        return "missing";
      case "sendButton": // shown only with a draft typed: judged at a send
        return seen.sendButtonAtSend || "unchecked";
      case "userMessage": // the site shows the user's message once it is sent
        return seen.sends > 0 || matched.assistantMessage ? "missing" : "none";
      case "assistantMessage": // earlier exchanges have replies
        return (seen.sends > 0 && !matched.userMessage) || matched.userMessage >= 2 ? "missing" : "none";
      default:
        return "none";
    }
  }

  // {role: {status, matches: [{css, count}]}} for every role in the adapter's table.
  function report(adapter) {
    const counted = Object.entries(adapter.sel).map(([role, entries]) =>
      [role, entries.map((entry) => ({ css: entry.css, count: W.dom.all(document, [entry]).length,
                                       ...(entry.user ? { user: true } : {}) }))]);
    const matched = Object.fromEntries(counted.map(([role, m]) => [role, (m.find((e) => e.count > 0) || { count: 0 }).count]));
    return Object.fromEntries(counted.map(([role, matches]) =>
      [role, { status: statusOf(role, matched[role] > 0, adapter, matched), matches }]));
  }

  // The site's build id where the page names one: {attribute: value}, well-formed tokens only.
  function buildId() {
    const html = document.documentElement;
    const build = {};
    for (const name of BUILD_ATTRIBUTES) {
      const value = html.getAttribute(name);
      if (value && TOKEN.test(value)) build[name] = value;
    }
    return build;
  }

  W.RolesSeen = RolesSeen;
  W.roles = Object.freeze({ report, buildId });
})();
