// Selection capture on any page (design §8): a small button appears near a text
// selection; only a click on it sends the selection to the host, where it joins this
// tab's session (the seed when it is the first thing) and waits for the next send.
(() => {
  const W = (globalThis.Whiteboard ??= {});
  if (W.captureButton) return;
  const { mount, el, place } = W.ui;
  const MAX_CHARS = 100000; // a selection larger than this is cut; the host caps tokens later

  const CSS = `
    button { display: flex; align-items: center; gap: 6px; padding: 5px 10px; border-radius: 999px;
             background: #1f2937; color: #f9fafb; box-shadow: 0 2px 8px rgba(0,0,0,.25); white-space: nowrap; }
    button:hover { background: #111827; }
    .dot { width: 8px; height: 8px; border-radius: 50%; background: #34d399; }
    @media (prefers-color-scheme: dark) {
      button { background: #e5e7eb; color: #111827; box-shadow: 0 2px 8px rgba(0,0,0,.6); }
      button:hover { background: #f9fafb; }
      .dot { background: #059669; }
    }
  `;
  let ui = null;
  let pending = ""; // the selected text the button would capture

  function ensureUi() {
    if (ui) return ui;
    ui = mount("whiteboard-capture", CSS);
    const button = el("button", { type: "button", title: "Add the selection to this tab's Whiteboard session",
                                   onmousedown: (e) => e.preventDefault(), onclick: capture },
                      el("span", { class: "dot" }), el("span", { text: "Ask Whiteboard" }));
    ui.root.append(button);
    return ui;
  }

  function hide() {
    if (ui) ui.host.hidden = true;
    pending = "";
  }

  function insideEditable(node) {
    const element = node && (node.nodeType === Node.ELEMENT_NODE ? node : node.parentElement);
    return Boolean(element && element.closest("input, textarea, [contenteditable=''], [contenteditable='true']"));
  }

  function update() {
    const page = W.page;
    const selection = document.getSelection();
    const text = selection && !selection.isCollapsed ? selection.toString().trim() : "";
    if (!text || page.paused || insideEditable(selection.anchorNode) || insideEditable(selection.focusNode)) {
      hide();
      return;
    }
    const rects = selection.getRangeAt(selection.rangeCount - 1).getClientRects();
    const last = rects[rects.length - 1];
    if (!last) return hide();
    pending = text.slice(0, MAX_CHARS);
    const { host } = ensureUi();
    // Above Whiteboard's own panel (and anything the page added since): last in the body.
    if (host.parentElement && host !== host.parentElement.lastElementChild) host.parentElement.append(host);
    place(host, { left: Math.max(4, Math.min(last.right + 6, innerWidth - 150)),
                  top: Math.max(4, Math.min(last.bottom + 6, innerHeight - 40)) });
    host.hidden = false;
  }

  async function capture(event) {
    event.preventDefault();
    event.stopPropagation();
    if (!event.isTrusted) return; // only the user's own click sends (docs/extension.md, "Hostile pages")
    const text = pending;
    hide();
    if (!text) return;
    W.panel.show({ notice: "Adding the selection…" });
    await W.page.engage();
    const reply = await W.host.request({ type: "session.add", role: "user", source: "selection", content: text },
                                       { timeoutMs: 5000 });
    if (!reply.ok) {
      W.panel.show({ error: reply.error.message });
      return;
    }
    const note = reply.redacted ? ` (${reply.redacted} secret${reply.redacted > 1 ? "s" : ""} removed)` : "";
    W.panel.show({ notice: `Selection added${note}. Ask about it below; it also goes with your next message on ${W.sites.labelList("or")}.`, selection: text });
  }

  // Selections end with the user's mouse or keyboard gesture (a page's synthetic one does
  // not show the button); wait a tick so the selection is final.
  const later = () => setTimeout(update, 0);
  addEventListener("mouseup", (e) => { if (e.isTrusted && (!ui || e.target !== ui.host)) later(); }, true);
  addEventListener("keyup", (e) => {
    if (e.isTrusted && (e.shiftKey || e.key === "Shift" || e.key.startsWith("Arrow"))) later();
  }, true);
  addEventListener("mousedown", (e) => { if (!ui || e.target !== ui.host) hide(); }, true);
  addEventListener("scroll", hide, { capture: true, passive: true });
  W.page.onChange(() => { if (W.page.paused) hide(); });

  W.captureButton = Object.freeze({ update, hide });
})();
