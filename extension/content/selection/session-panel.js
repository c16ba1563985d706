// The panel that shows what this tab's session holds: messages, a token meter and
// whether anything was distilled. Opened by the capture button. Features add their own
// part with W.panel.extend({css, build() -> element, onShow({selection}), onHide()}), e.g. ask-box.js.
(() => {
  const W = (globalThis.Whiteboard ??= {});
  if (W.panel) return;
  const { mount, el, place } = W.ui;
  const SHOWN = 20; // newest messages listed
  const CLIP = 280; // characters shown per message

  const CSS = `
    .panel { width: 340px; max-height: 60vh; display: flex; flex-direction: column; background: #ffffff; color: #111827;
             border: 1px solid #d1d5db; border-radius: 12px; box-shadow: 0 8px 30px rgba(0,0,0,.2); overflow: hidden; }
    header { display: flex; align-items: center; justify-content: space-between; padding: 8px 12px; background: #1f2937; color: #f9fafb; }
    header button { background: transparent; color: #f9fafb; font-size: 16px; }
    .notice { padding: 8px 12px; background: #ecfdf5; color: #065f46; }
    .notice.error { background: #fef2f2; color: #991b1b; }
    .meter { padding: 8px 12px 0; color: #4b5563; }
    .bar { height: 6px; margin: 4px 12px 8px; background: #e5e7eb; border-radius: 3px; overflow: hidden; }
    .bar > div { height: 100%; background: #10b981; }
    ol { list-style: none; margin: 0; padding: 0 12px; overflow-y: auto; }
    li { padding: 6px 0; border-top: 1px solid #f3f4f6; white-space: pre-wrap; overflow-wrap: anywhere; }
    .role { display: block; font-size: 11px; font-weight: 700; color: #6b7280; text-transform: uppercase; }
    .empty { padding: 8px 12px; color: #6b7280; }
    footer { display: flex; gap: 8px; padding: 8px 12px; border-top: 1px solid #e5e7eb; }
    footer button { padding: 4px 10px; border-radius: 6px; background: #f3f4f6; color: #111827; }
    @media (prefers-color-scheme: dark) {
      .panel { background: #1f2937; color: #f3f4f6; border-color: #4b5563; box-shadow: 0 8px 30px rgba(0,0,0,.6); }
      header { background: #111827; }
      .notice { background: #064e3b; color: #d1fae5; }
      .notice.error { background: #450a0a; color: #fecaca; }
      .meter, .role, .empty { color: #a5adba; }
      .bar { background: #374151; }
      li { border-top-color: #374151; }
      footer { border-top-color: #374151; }
      footer button { background: #374151; color: #f3f4f6; }
    }
  `;
  let ui = null;
  let parts = null;
  const addons = [];

  function ensureUi() {
    if (ui) return;
    ui = mount("whiteboard-panel", CSS + addons.map((a) => a.css || "").join(""));
    place(ui.host, { right: 16, bottom: 16 });
    parts = {
      notice: el("div", { class: "notice", role: "status" }),
      meter: el("div", { class: "meter" }),
      fill: el("div"),
      list: el("ol"),
    };
    ui.root.append(el("div", { class: "panel" },
      el("header", {}, el("span", { text: "Whiteboard · this tab" }),
         el("button", { type: "button", class: "close", title: "Close", text: "×", onclick: hide })),
      parts.notice, ...addons.map((a) => a.build()), parts.meter, el("div", { class: "bar" }, parts.fill), parts.list,
      el("footer", {}, el("button", { type: "button", text: "Clear this tab", onclick: clearTab }))));
  }

  function hide() {
    if (!ui || ui.host.hidden) return;
    ui.host.hidden = true;
    for (const addon of addons) addon.onHide?.();
  }

  function setNotice(text, isError) {
    parts.notice.textContent = text || "";
    parts.notice.hidden = !text;
    parts.notice.classList.toggle("error", Boolean(isError));
  }

  function render(reply) {
    parts.list.replaceChildren();
    if (!reply.ok) {
      parts.meter.textContent = "";
      parts.fill.style.width = "0";
      parts.list.append(el("li", { class: "empty", text: reply.error.code === "not_found" ? "Nothing captured in this tab yet." : reply.error.message }));
      return;
    }
    const pct = Math.min(100, Math.round((100 * reply.used_tokens) / Math.max(1, reply.budget)));
    parts.meter.textContent = `${reply.messages.length} messages · ${reply.used_tokens} / ${reply.budget} tokens` +
      (reply.distilled ? " · distilled" : "");
    parts.fill.style.width = `${pct}%`;
    for (const m of reply.messages.slice(-SHOWN).reverse()) {
      const label = m.source === "selection" ? "selection" : m.role;
      const text = m.content.length > CLIP ? `${m.content.slice(0, CLIP)}…` : m.content;
      parts.list.append(el("li", {}, el("span", { class: "role", text: label }), text));
    }
  }

  async function refresh() {
    render(await W.host.request({ type: "session.get" }, { timeoutMs: 5000 }));
  }

  async function clearTab() {
    const reply = await W.host.request({ type: "session.clear" }, { timeoutMs: 5000 });
    setNotice(reply.ok ? "This tab's session is cleared." : reply.error.message, !reply.ok);
    await refresh();
  }

  // show({notice} | {error}, selection?): open the panel with a message and the session's
  // current state; `selection` is a selection just captured, for the addons.
  function show({ notice = "", error = "", selection = "" } = {}) {
    ensureUi();
    setNotice(error || notice, Boolean(error));
    ui.host.hidden = false;
    for (const addon of addons) addon.onShow?.({ selection });
    return refresh();
  }

  function extend(addon) {
    addons.push(addon);
  }

  W.page.onChange(() => { if (W.page.paused) hide(); });
  W.panel = Object.freeze({ show, hide, refresh, extend });
})();
