// The memory preview near the composer (design §5), only on a chat site where the user
// turned long-term memory on. While there is a draft, a chip says memories may go with
// the send; nothing reaches the host until the user clicks it (design §8: the click is
// the act). Then the host says which memories a send of this draft would carry
// (chat.preview records nothing), the chip shows "N memories will be added", the list
// opens, and a switch leaves them out of the next send only. While the list is open it
// follows the draft. After a send whose memories were found by words only (the draft's
// meaning was not ready, no model), the chip says so and why, until the user types again.
// It also starts the draft's meaning ahead of Enter (draft-meaning.js; design §14).
// Everything is shown with textContent: a memory's text can never become markup.
(() => {
  const W = globalThis.Whiteboard;
  const adapter = W.chat.adapterFor(location.hostname);
  if (!adapter || W.memoryPreview) return;
  const { readText } = W.editorInput;
  const { el, mount, place } = W.ui;
  // Mirror of the host's site.settings (memory/mirror.js): popup, options and every chat reply.
  const MIRROR_KEY = W.wire.STORAGE.memorySites;
  const QUIET_MS = 400;
  const hostname = location.hostname;

  const CSS = `
    .chip { background: #1f2937; color: #f9fafb; border-radius: 12px; padding: 3px 10px; }
    .chip.off { background: #6b7280; text-decoration: line-through; }
    .card { margin-top: 4px; background: #fff; color: #111827; border: 1px solid #d1d5db; border-radius: 8px;
            padding: 8px 10px; max-width: 420px; box-shadow: 0 2px 8px rgba(0, 0, 0, .15); }
    .card[hidden] { display: none; }
    ul { margin: 0 0 6px; padding-left: 16px; }
    li { margin: 2px 0; white-space: pre-wrap; overflow-wrap: anywhere; }
    .type { color: #6b7280; margin-right: 4px; }
    label { display: flex; gap: 6px; align-items: center; }
    @media (prefers-color-scheme: dark) {
      .chip { background: #e5e7eb; color: #111827; }
      .chip.off { background: #9ca3af; }
      .card { background: #1f2937; color: #f3f4f6; border-color: #4b5563; box-shadow: 0 2px 8px rgba(0, 0, 0, .6); }
      .type { color: #a5adba; }
    }
  `;

  const ASK_TEXT = "Long-term memory on · see what goes with this send";
  let optedIn = false;
  let shown = null; // the memories the host named for the draft on screen, once asked
  let leaveOut = false;
  let timer = null;
  let asked = 0; // the newest preview request; older answers are dropped
  let lastSend = null; // why the last send's memories were found by words only, until the user types

  let ui = null; // mounted the first time a chip is shown
  const chip = el("button", { type: "button", class: "chip", onclick: toggleCard });
  const list = el("ul");
  const skip = el("input", { type: "checkbox", "data-wb": "leave-out" });
  skip.addEventListener("change", () => {
    leaveOut = skip.checked;
    render();
  });
  const card = el("div", { class: "card", hidden: "" }, list, el("label", {}, skip, "Leave out of the next send"));
  // Clicks on the chip and the switch leave the focus in the composer: the user goes on
  // typing, or presses Enter to send.
  for (const control of [chip, skip]) control.addEventListener("mousedown", (e) => e.preventDefault());

  function currentDraft() {
    const editor = adapter.findEditor();
    return editor ? readText(editor).trim() : "";
  }

  function hide() {
    shown = null;
    card.hidden = true;
    if (ui) ui.host.hidden = true;
  }

  function chipText() {
    if (lastSend) return lastSend;
    if (leaveOut) return "Memories left out of the next send";
    if (!shown) return ASK_TEXT;
    const n = shown.length;
    if (!n) return "No memories for this draft";
    return `${n} ${n === 1 ? "memory" : "memories"} will be added`;
  }

  function render() {
    if (!optedIn || !W.page.chatEnabled || (!currentDraft() && !lastSend)) return hide();
    chip.textContent = chipText();
    chip.classList.toggle("off", leaveOut);
    list.replaceChildren(...(shown || []).map((m) => el("li", {},
      el("span", { class: "type", text: m.pinned ? `${m.type} · pinned` : m.type }), m.text)));
    if (!ui) {
      ui = mount("whiteboard-memory-preview", CSS);
      ui.root.append(chip, card);
    }
    const editor = adapter.findEditor();
    const box = editor ? editor.getBoundingClientRect() : null;
    if (box) place(ui.host, { left: box.left, bottom: Math.max(0, innerHeight - box.top + 6) });
    else place(ui.host, { right: 16, bottom: 96 });
    ui.host.hidden = false;
  }

  async function fetchPreview() {
    const draft = currentDraft();
    if (!optedIn || !W.page.chatEnabled || !draft) return hide();
    const mine = ++asked;
    const reply = await W.host.request({ type: "chat.preview", site: W.page.hostname, draft }, { timeoutMs: 2000 });
    if (mine !== asked || card.hidden) return;
    shown = reply.ok && reply.enabled ? reply.memories : [];
    render();
  }

  function toggleCard(event) {
    if (!event.isTrusted) return; // only the user's own click asks the host (docs/extension.md, "Hostile pages")
    card.hidden = !card.hidden;
    if (card.hidden) return;
    fetchPreview();
  }

  // Typing: once it pauses, the chip follows the draft and an open list asks again. The
  // pause also lets a send's own editor changes settle before the chip comes back.
  function onDraftChange() {
    lastSend = null;
    clearTimeout(timer);
    asked += 1;
    timer = setTimeout(() => {
      if (!card.hidden) return fetchPreview();
      shown = null;
      render();
    }, QUIET_MS);
  }

  function applyMirror(sites) {
    optedIn = Boolean(sites && sites[hostname]);
    if (!optedIn) hide();
    else render();
  }

  chrome.storage.local.get(MIRROR_KEY).then((got) => applyMirror(got[MIRROR_KEY]), () => {});
  chrome.storage.onChanged.addListener((changes, area) => {
    if (area === "local" && changes[MIRROR_KEY]) applyMirror(changes[MIRROR_KEY].newValue);
  });
  addEventListener("input", (e) => { if (optedIn && adapter.editorFrom(e.target)) onDraftChange(); }, true);

  const draftMeaning = new W.DraftMeaning(adapter, {
    readDraft: () => {
      const editor = adapter.findEditor();
      return editor ? readText(editor) : ""; // as the send reads it: the host keys the vector by it
    },
    allowed: () => optedIn && W.page.chatEnabled && W.page.settings.prepareRecall,
    send: (draft) => W.host.request({ type: "chat.draft", site: W.page.hostname, draft }, { timeoutMs: 2000 }),
  });
  draftMeaning.install();

  // The host's note on a send's memories (chat.prepare_send `memory_note`), in plain words.
  function sendNote(note) {
    const why = note.replace(/;? *used full text:? */, "").replace(/^semantic search unavailable,? */, "");
    return /full text/.test(note) ? `Last send: memories matched by words only${why ? ` (${why})` : ""}`
      : `Last send: ${note}`;
  }

  W.memoryPreview = Object.freeze({
    // For the send about to be prepared: whether memories go with it. The switch applies
    // to this one send, so it is reset, and the chip goes until the next draft.
    takeForSend() {
      const include = !leaveOut;
      leaveOut = false;
      skip.checked = false;
      clearTimeout(timer);
      asked += 1;
      lastSend = null;
      draftMeaning.sent();
      hide();
      return include;
    },
    // The host's reply to the send: say when its memories were found by words only, and why.
    afterSend(reply) {
      if (!reply || !reply.ok || !reply.memory_note || !optedIn) return;
      lastSend = sendNote(reply.memory_note);
      render();
    },
  });
})();
