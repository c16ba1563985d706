// A small in-page stand-in for the chat site's own scripts, added to a real saved
// chatgpt.com / claude.ai page (the saved pages carry no working scripts). It reacts
// the way the site does where Whiteboard cares: the send button appears once text is
// typed, Enter / the send button / the form send the composer's text, the editor is
// cleared, the user's turn is added in the site's own markup, and a reply streams in
// (ChatGPT: a stop button while streaming; Claude: data-is-streaming="true" -> "false").
// Used by `whiteboard demo` and the end-to-end tests; window.__sim records every send.
(() => {
  const script = document.currentScript;
  const site = script.dataset.site;
  const config = { replyMs: Number(script.dataset.replyMs || 900), chunks: Number(script.dataset.chunks || 12),
                   reply: script.dataset.reply || "echo" };
  const sim = { site, sent: [], replies: [], streaming: false, config };
  window.__sim = sim;
  sim.configure = (options) => Object.assign(config, options);

  const S = {
    chatgpt: {
      editor: "#prompt-textarea",
      sendButton: "button[data-testid=send-button]",
      userMessage: "[data-message-author-role=user]",
      assistantMessage: "[data-message-author-role=assistant]",
      form: "form[data-type=unified-composer]",
    },
    claude: {
      editor: "[data-testid=chat-input]",
      sendButton: "button[aria-label='Send message']",
      userMessage: "[data-testid=user-message]",
      assistantMessage: "[data-is-streaming]",
      form: null,
    },
  }[site];
  sim.selectors = S; // for tests acting as the page's own script
  const editor = () => document.querySelector(S.editor);
  const make = (tag, attrs = {}, text) => {
    const el = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
    if (text !== undefined) el.textContent = text;
    return el;
  };

  // --- composer ---
  function composerSlot() {
    if (site === "chatgpt") {
      const speech = document.querySelector("[data-testid=composer-speech-button-container]");
      return speech ? speech.parentElement : document.querySelector(S.form);
    }
    return editor().closest("fieldset") || editor().parentElement;
  }

  function syncSendButton() {
    const hasText = editor().innerText.trim().length > 0;
    let button = document.querySelector(S.sendButton);
    if (hasText && !button && !sim.streaming) {
      button = site === "chatgpt"
        ? make("button", { id: "composer-submit-button", "data-testid": "send-button", "aria-label": "Send prompt",
                           type: "button", class: "composer-submit-btn" }, "↑")
        : make("button", { "aria-label": "Send message", type: "button" }, "↑");
      button.addEventListener("click", () => send("click"));
      composerSlot().append(button);
    } else if (!hasText && button) {
      button.remove();
    }
  }

  function send(via) {
    const box = editor();
    const text = box.innerText.trim();
    if (!text || sim.streaming) return;
    sim.sent.push({ text, via, at: performance.now(), markup: box.querySelectorAll(":not(p):not(br):not(div):not(span)").length });
    const empty = make("p");
    empty.append(make("br")); // as ProseMirror leaves it: an empty paragraph keeps its line
    box.replaceChildren(empty);
    syncSendButton();
    addTurn("user", text);
    if (config.reply !== "none") streamReply(`Simulated reply ${sim.sent.length}: I read ${text.length} characters.`);
  }

  // --- conversation ---
  function thread() {
    const messages = document.querySelectorAll(`${S.userMessage}, ${S.assistantMessage}`);
    if (!messages.length) {
      let fresh = document.querySelector("[data-sim-thread]");
      if (!fresh) {
        fresh = make("div", { "data-sim-thread": "" });
        const composer = editor().closest("form, fieldset") || editor();
        composer.parentElement.insertBefore(fresh, composer);
      }
      return { parent: fresh };
    }
    // The turn holding the last message is the child of the element holding every turn.
    const first = messages[0];
    let turn = messages[messages.length - 1];
    while (turn.parentElement && !turn.parentElement.contains(first)) turn = turn.parentElement;
    if (messages.length === 1) turn = turn.closest("section[data-turn], article") || turn;
    return { parent: turn.parentElement };
  }

  function addTurn(role, text) {
    const n = document.querySelectorAll(`${S.userMessage}, ${S.assistantMessage}`).length + 1;
    let turn;
    let body;
    if (site === "chatgpt") {
      body = make("div", { class: role === "user" ? "whitespace-pre-wrap" : "markdown prose" }, role === "user" ? text : "");
      turn = make("section", { "data-testid": `conversation-turn-${n}`, "data-turn": role });
      turn.append(make("div", { "data-message-author-role": role, "data-message-id": `sim-${n}` }));
      turn.firstChild.append(body);
    } else if (role === "user") {
      body = make("p", { class: "whitespace-pre-wrap break-words" }, text);
      turn = make("div", { class: "sim-turn" });
      turn.append(make("div", { "data-testid": "user-message" }));
      turn.firstChild.append(body);
    } else {
      body = make("div", { class: "standard-markdown" });
      turn = make("div", { "data-is-streaming": "true", class: "sim-turn" });
      turn.append(make("div", { class: "font-claude-response" }));
      turn.firstChild.append(body);
    }
    body.style.whiteSpace = "pre-wrap"; // the saved pages' stylesheets are not loaded
    thread().parent.append(turn);
    return { turn, body };
  }

  function streamReply(text) {
    sim.streaming = true;
    const { turn, body } = addTurn("assistant", text);
    let stop = null;
    if (site === "chatgpt") {
      document.querySelector(S.sendButton)?.remove();
      stop = make("button", { "data-testid": "stop-button", "aria-label": "Stop streaming", type: "button" }, "■");
      composerSlot().append(stop);
    }
    const words = text.split(" ");
    const step = Math.ceil(words.length / config.chunks);
    let shown = 0;
    const timer = setInterval(() => {
      shown = Math.min(words.length, shown + step);
      body.textContent = words.slice(0, shown).join(" ");
      if (shown < words.length) return;
      clearInterval(timer);
      if (stop) stop.remove();
      if (site === "claude") turn.setAttribute("data-is-streaming", "false");
      sim.streaming = false;
      sim.replies.push({ text, at: performance.now() });
      syncSendButton();
    }, Math.max(10, config.replyMs / config.chunks));
  }

  // --- the site's own handlers: on the editor and the form, as the real sites attach them ---
  function attach() {
    const box = editor();
    if (!box) return;
    box.addEventListener("keydown", (e) => {
      if (e.key !== "Enter" || e.shiftKey || e.isComposing || e.keyCode === 229) return;
      e.preventDefault();
      send("enter");
    });
    box.addEventListener("input", syncSendButton);
    const form = S.form && document.querySelector(S.form);
    if (form) form.addEventListener("submit", (e) => { e.preventDefault(); send("submit"); });
    for (const b of document.querySelectorAll(S.sendButton)) b.addEventListener("click", () => send("click"));
    syncSendButton();
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", attach, { once: true });
  else attach();
})();
