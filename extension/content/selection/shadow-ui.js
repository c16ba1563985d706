// Whiteboard's in-page UI lives in closed shadow roots: page CSS cannot restyle it and
// page scripts cannot reach into it. Text is always set with textContent, never HTML.
(() => {
  const W = (globalThis.Whiteboard ??= {});
  if (W.ui) return;

  const BASE_CSS = `
    :host { all: initial !important; position: fixed !important; z-index: 2147483647 !important;
            display: block !important; contain: layout style !important;
            top: var(--wb-top, auto) !important; left: var(--wb-left, auto) !important;
            right: var(--wb-right, auto) !important; bottom: var(--wb-bottom, auto) !important; }
    :host([hidden]) { display: none !important; }
    * { box-sizing: border-box; font-family: system-ui, -apple-system, "Segoe UI", sans-serif;
        font-size: 13px; line-height: 1.4; letter-spacing: normal; text-transform: none; }
    button { cursor: pointer; border: 0; margin: 0; font-weight: 600; }
    :focus-visible { outline: 2px solid #2563eb !important; outline-offset: 2px; }
    @media (prefers-color-scheme: dark) { :focus-visible { outline-color: #93c5fd !important; } }
  `;

  // A fixed-position element on the page with its own closed shadow root. `all: initial`
  // (important, so the page cannot override it) also resets positions: place the element
  // with place(host, {top, left, ...}), which sets the custom properties the :host rule reads.
  function mount(tag, css) {
    const host = document.createElement(tag);
    host.hidden = true;
    const root = host.attachShadow({ mode: "closed" });
    const style = document.createElement("style");
    style.textContent = BASE_CSS + css;
    root.append(style);
    (document.body || document.documentElement).append(host);
    return { host, root };
  }

  function el(tag, props = {}, ...children) {
    const node = document.createElement(tag);
    for (const [name, value] of Object.entries(props)) {
      if (name === "text") node.textContent = value;
      else if (name.startsWith("on")) node.addEventListener(name.slice(2), value);
      else node.setAttribute(name, value);
    }
    node.append(...children);
    return node;
  }

  function place(host, edges) {
    for (const [edge, px] of Object.entries(edges)) host.style.setProperty(`--wb-${edge}`, `${Math.round(px)}px`);
  }

  W.ui = Object.freeze({ mount, el, place });
})();
