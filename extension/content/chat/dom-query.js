// Querying with a role's ordered fallbacks: the first entry that matches anything wins,
// so an old-layout selector is used only when the newer one finds nothing.
(() => {
  const W = (globalThis.Whiteboard ??= {});
  if (W.dom) return;

  function first(root, entries) {
    for (const { css } of entries) {
      const found = root.querySelector(css);
      if (found) return found;
    }
    return null;
  }

  function all(root, entries) {
    for (const { css } of entries) {
      const found = root.querySelectorAll(css);
      if (found.length) return [...found];
    }
    return [];
  }

  // The nearest ancestor-or-self of `node` matching any entry.
  function closest(node, entries) {
    const element = node && (node.nodeType === Node.ELEMENT_NODE ? node : node.parentElement);
    if (!element) return null;
    for (const { css } of entries) {
      const found = element.closest(css);
      if (found) return found;
    }
    return null;
  }

  const any = (root, entries) => entries.some(({ css }) => root.querySelector(css) !== null);

  W.dom = Object.freeze({ first, all, closest, any });
})();
