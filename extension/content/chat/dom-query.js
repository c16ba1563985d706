// Querying with a role's ordered fallbacks: the first entry that matches anything wins,
// so an old-layout selector is used only when the newer one finds nothing. A user's entry
// (shared/site-overrides.js) carries `accepts`: only the elements it accepts are its matches.
(() => {
  const W = (globalThis.Whiteboard ??= {});
  if (W.dom) return;

  function first(root, entries) {
    for (const { css, accepts } of entries) {
      const found = accepts ? [...root.querySelectorAll(css)].find(accepts) : root.querySelector(css);
      if (found) return found;
    }
    return null;
  }

  function all(root, entries) {
    for (const { css, accepts } of entries) {
      const found = [...root.querySelectorAll(css)];
      const usable = accepts ? found.filter(accepts) : found;
      if (usable.length) return usable;
    }
    return [];
  }

  // The nearest ancestor-or-self of `node` matching any entry.
  function closest(node, entries) {
    const element = node && (node.nodeType === Node.ELEMENT_NODE ? node : node.parentElement);
    if (!element) return null;
    for (const { css, accepts } of entries) {
      let found = element.closest(css);
      while (found && accepts && !accepts(found)) found = found.parentElement?.closest(css) || null;
      if (found) return found;
    }
    return null;
  }

  const any = (root, entries) => first(root, entries) !== null;

  W.dom = Object.freeze({ first, all, closest, any });
})();
