// A small in-page stand-in for the chat site's own scripts, added to a real saved
// chatgpt.com / claude.ai page (the saved pages carry no working scripts). It reacts
// the way the site does where Whiteboard cares: the send button appears once text is
// typed, Enter / the send button / the form send the composer's text, the editor is
// cleared, the user's turn is added in the site's own markup, and a reply streams in.
// The markup follows the page's layout: ChatGPT's old turns (a stop button while
// streaming) or its 2026-09 renderer (a growing data-markdown-animated block, the reply's
// unit key only once finished); Claude's old turns (data-is-streaming "true" -> "false") or
// its hub layout (the reply mounts with no data-is-streaming, which is set late); and a
// "generic" redesign no selector knows (tests/e2e/pages/miss__redesigned-chat.html).
// Used by `whiteboard demo` and the end-to-end tests; window.__sim records every send.
(() => {
  const script = document.currentScript;
  const site = script.dataset.site;
  const config = { replyMs: Number(script.dataset.replyMs || 900), chunks: Number(script.dataset.chunks || 12),
                   reply: script.dataset.reply || "echo" };
  const LAYOUTS = {
    chatgpt: [
      { name: "new", editor: "form[data-chatgpt-composer] [data-composer-markdown]", form: "form[data-chatgpt-composer]",
        sendButton: "button[data-sim-send]", messages: "[data-content-search-unit-key]" },
      { name: "old", editor: "#prompt-textarea", form: "form[data-type=unified-composer]",
        sendButton: "button[data-testid=send-button]",
        messages: "[data-message-author-role=user], [data-message-author-role=assistant]" },
    ],
    claude: [
      { name: "hub", editor: "[data-testid=bardhub-claudechat-root] [data-testid=chat-input]", form: null,
        sendButton: "button[data-testid=chat-input-send]", messages: "[data-testid=transcript-row]" },
      { name: "old", editor: "[data-testid=chat-input]", form: null, sendButton: "button[aria-label='Send message']",
        messages: "[data-testid=user-message], [data-is-streaming]" },
    ],
  }[site] || [];
  const GENERIC = { name: "generic", editor: "form [contenteditable=true]", form: "form",
                    sendButton: "form button[type=submit]", messages: ".bubble-v9" };
  const S = LAYOUTS.find((l) => document.querySelector(l.editor)) || GENERIC;
  const sim = { site, layout: S.name, sendButton: S.sendButton, sent: [], replies: [], streaming: false, config };
  sim.selectors = S; // for tests acting as the page's own script
  window.__sim = sim;
  sim.configure = (options) => Object.assign(config, options);

  const editor = () => document.querySelector(S.editor);
  const make = (tag, attrs = {}, text) => {
    const el = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
    if (text !== undefined) el.textContent = text;
    return el;
  };

  // --- composer ---
  // ChatGPT 2026-09: one slot holds Start Voice (empty), the send button (a draft) or Stop.
  const newSlot = { voice: null };
  function composerSlot() {
    if (S.name === "new") return newSlot.voice.parentElement;
    if (site === "chatgpt") {
      const speech = document.querySelector("[data-testid=composer-speech-button-container]");
      return speech ? speech.parentElement : document.querySelector(S.form);
    }
    return editor().closest("fieldset") || editor().parentElement;
  }

  function newSendButton() {
    if (S.name === "new") { // never captured with a draft: the label oracle's tests use, no test id
      return make("button", { type: "button", "aria-label": "Send prompt", "data-sim-send": "" }, "↑");
    }
    return site === "chatgpt"
      ? make("button", { id: "composer-submit-button", "data-testid": "send-button", "aria-label": "Send prompt",
                         type: "button", class: "composer-submit-btn" }, "↑")
      : make("button", { "aria-label": "Send message", type: "button" }, "↑");
  }

  function syncSendButton() {
    const hasText = editor().innerText.trim().length > 0;
    if (S.name === "generic") return; // its submit button is always there
    if (S.name === "hub") { // rendered all along, disabled and inert while the draft is empty
      const button = document.querySelector(S.sendButton);
      button.disabled = !hasText || sim.streaming;
      button.parentElement.inert = button.disabled;
      return;
    }
    if (newSlot.voice) newSlot.voice.hidden = hasText || sim.streaming;
    let button = document.querySelector(S.sendButton);
    if (hasText && !button && !sim.streaming) {
      button = newSendButton();
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
    if (S.name === "new") return { parent: document.querySelector("[data-chatgpt-conversation-selection-target]") };
    if (S.name === "hub") return { parent: document.querySelector("[data-testid=transcript-sizer]") };
    if (S.name === "generic") return { parent: document.querySelector(".thread-v9") };
    const messages = document.querySelectorAll(S.messages);
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

  const MARKUP = {
    // ChatGPT 2026-09: a turn per exchange; the reply's unit appears when it has finished.
    new(role, text, n) {
      if (role === "user") {
        const turn = make("div", { "data-turn-key": `sim-turn-${n}` });
        const unit = make("div", { "data-content-search-unit-key": `fallback-turn-${n}:0:user` });
        const body = make("div", { class: "whitespace-pre-wrap" }, text);
        unit.append(make("div", { "data-user-message-bubble": "true" }));
        unit.firstChild.append(body);
        turn.append(unit);
        return { turn, body };
      }
      const turn = document.querySelector("[data-chatgpt-conversation-selection-target] > [data-turn-key]:last-child");
      const body = make("div", { "data-markdown-text-style": "assistant-message", "data-markdown-text-tone": "primary",
                                 "data-markdown-animated": "" });
      const part = make("div");
      part.append(make("span", { hidden: "", "data-chatgpt-agent-turn-start": "" }), body);
      turn.append(part);
      return { turn: null, body, finish() {
        const unit = make("div", { "data-content-search-unit-key": `fallback-turn-${n}:2:assistant` });
        const answer = make("div", { "data-chatgpt-selection-message-id": `sim-${n}` });
        body.removeAttribute("data-markdown-animated");
        body.removeAttribute("data-markdown-text-tone");
        answer.append(body);
        unit.append(answer);
        part.append(unit);
      } };
    },
    old(role, text, n) {
      if (site === "chatgpt") {
        const body = make("div", { class: role === "user" ? "whitespace-pre-wrap" : "markdown prose" }, role === "user" ? text : "");
        const turn = make("section", { "data-testid": `conversation-turn-${n}`, "data-turn": role });
        turn.append(make("div", { "data-message-author-role": role, "data-message-id": `sim-${n}` }));
        turn.firstChild.append(body);
        return { turn, body };
      }
      if (role === "user") {
        const body = make("p", { class: "whitespace-pre-wrap break-words" }, text);
        const turn = make("div", { class: "sim-turn" });
        turn.append(make("div", { "data-testid": "user-message" }));
        turn.firstChild.append(body);
        return { turn, body };
      }
      const body = make("div", { class: "standard-markdown" });
      const turn = make("div", { "data-is-streaming": "true", class: "sim-turn" });
      turn.append(make("div", { class: "font-claude-response" }));
      turn.firstChild.append(body);
      return { turn, body, finish: () => turn.setAttribute("data-is-streaming", "false") };
    },
    // Claude's hub: the reply mounts with no data-is-streaming; "true" comes with its first
    // words, "false" at the end.
    hub(role, text, n) {
      const turn = make("div", { "data-testid": "transcript-row", "data-perf-row": role === "user" ? "human" : "assistant" });
      if (role === "user") {
        const body = make("p", { class: "whitespace-pre-wrap break-words" }, text);
        turn.append(make("div", { "data-cds": "UserMessage", "data-turn-key": `sim-${n}` }));
        turn.firstChild.append(make("div", { "data-testid": "user-message" }));
        turn.firstChild.firstChild.append(body);
        return { turn, body };
      }
      const message = make("div", { "data-testid": "assistant-message", "data-cds": "AssistantMessage",
                                    "data-turn-key": `sim-${n}-hub-reply` });
      const body = make("div", { "data-perf-reply-text": "", class: "standard-markdown" });
      message.append(make("div", { "data-cds": "Prose" }));
      message.firstChild.append(body);
      turn.append(message);
      return { turn, body, started: () => message.setAttribute("data-is-streaming", "true"),
               finish: () => message.setAttribute("data-is-streaming", "false") };
    },
    generic(role, text) {
      const body = make("p", {}, role === "user" ? text : "");
      const turn = make("div", { class: `bubble-v9 ${role === "user" ? "mine" : "theirs"}` });
      turn.append(body);
      return { turn, body };
    },
  };

  function addTurn(role, text) {
    const n = document.querySelectorAll(S.messages).length + 1;
    const made = MARKUP[S.name](role, text, n);
    made.body.style.whiteSpace = "pre-wrap"; // the saved pages' stylesheets are not loaded
    if (made.turn) thread().parent.append(made.turn);
    return made;
  }

  function stopButton() {
    if (S.name === "new") return make("button", { type: "button", "aria-label": "Stop" }, "■");
    if (S.name === "hub") return make("button", { type: "button", "data-testid": "chat-input-stop", "aria-label": "Stop response" }, "■");
    if (S.name === "old" && site === "chatgpt") {
      return make("button", { "data-testid": "stop-button", "aria-label": "Stop streaming", type: "button" }, "■");
    }
    return null;
  }

  function streamReply(text) {
    sim.streaming = true;
    const reply = addTurn("assistant", text);
    const stop = stopButton();
    if (stop) {
      if (S.name !== "hub") document.querySelector(S.sendButton)?.remove();
      syncSendButton();
      composerSlot().append(stop);
    }
    const words = text.split(" ");
    const step = Math.ceil(words.length / config.chunks);
    let shown = 0;
    const timer = setInterval(() => {
      if (shown === 0 && reply.started) reply.started();
      shown = Math.min(words.length, shown + step);
      reply.body.textContent = words.slice(0, shown).join(" ");
      if (shown < words.length) return;
      clearInterval(timer);
      if (stop) stop.remove();
      if (reply.finish) reply.finish();
      sim.streaming = false;
      sim.replies.push({ text, at: performance.now() });
      syncSendButton();
    }, Math.max(10, config.replyMs / config.chunks));
  }

  // --- the site's own handlers: on the editor and the form, as the real sites attach them ---
  function attach() {
    const box = editor();
    if (!box) return;
    if (S.name === "new") newSlot.voice = [...document.querySelector(S.form).querySelectorAll("button")].at(-1);
    box.addEventListener("keydown", (e) => {
      if (e.key !== "Enter" || e.shiftKey || e.isComposing || e.keyCode === 229) return;
      e.preventDefault();
      send("enter");
    });
    box.addEventListener("input", syncSendButton);
    const form = S.form && document.querySelector(S.form);
    if (form) form.addEventListener("submit", (e) => { e.preventDefault(); send(S.name === "generic" && e.submitter ? "click" : "submit"); });
    if (S.name !== "generic") for (const b of document.querySelectorAll(S.sendButton)) b.addEventListener("click", () => send("click"));
    syncSendButton();
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", attach, { once: true });
  else attach();
})();
