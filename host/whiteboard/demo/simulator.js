// A small in-page stand-in for the chat site's own scripts, added to a real saved chat page
// (the saved pages carry no working scripts). It reacts the way the site does where
// Whiteboard cares: the send button appears (or turns enabled) once text is typed, Enter /
// the send button / the form send the composer's text, the editor is cleared, the user's
// turn is added in the site's own markup, and a reply streams in, then shows the site's
// finished marker. Each site has one or more layouts (the first whose editor is on the page
// wins; else a "generic" redesign no selector knows, tests/e2e/pages/miss__redesigned-chat.html):
// ChatGPT's 2026-09 renderer (a growing data-markdown-animated block, the reply's unit key only
// once finished) or its old turns (a stop button while streaming); Claude's hub (the reply
// mounts with no data-is-streaming, "true" comes with its first words, "false" at the end) or
// its old turns (data-is-streaming "true" -> "false"); Gemini sets aria-busy="false";
// Perplexity, Grok, DeepSeek (May 2026) and Copilot add the reply's action bar; DeepSeek's
// October 2026 round button shows its stop icon while the reply streams. A marker that is an
// attribute or an action bar comes `finishMs` after the last words, so only the marker (not
// the page falling quiet) can tell a capture the reply is done; where a stop button marks
// the end, the marker goes with it.
// With data-mid-stream="1" the page opens with a reply mid-stream, held there until
// window.__sim.finishReply() (tests/e2e/test_sites.py).
// Used by `whiteboard demo` and the end-to-end tests; window.__sim records every send.
(() => {
  const script = document.currentScript;
  const site = script.dataset.site;
  const config = { replyMs: Number(script.dataset.replyMs || 900), chunks: Number(script.dataset.chunks || 12),
                   reply: script.dataset.reply || "echo", finishMs: Number(script.dataset.finishMs || 500),
                   midStream: script.dataset.midStream === "1" };

  const make = (tag, attrs = {}, text) => {
    const el = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
    if (text !== undefined) el.textContent = text;
    return el;
  };
  const nest = (...els) => {
    els.reduce((outer, inner) => { outer.append(inner); return inner; });
    return els[0];
  };
  const has = (css) => document.querySelector(css) !== null;
  const count = () => document.querySelectorAll(S.messages).length + 1;

  // A stop button replaces the send button while the reply streams (Claude's hub keeps its
  // send button, disabled); removing it marks the end.
  const stopButton = (attrs, { keepSend = false } = {}) => () => {
    if (!keepSend) document.querySelector(S.sendButton)?.remove();
    const stop = make("button", { type: "button", ...attrs }, "■");
    S.slot().append(stop);
    return () => stop.remove();
  };
  const disable = (button, on) => { button.disabled = !on; };
  const actionBar = () => nest(make("div", { class: "action-buttons flex flex-row" }), make("button", { type: "button" }));

  // Per site, its layouts: where things are, how a turn looks, how a finished reply is marked.
  // messages: every message shown; turn(role, text, n) -> {turn, body} (turn null when the
  // layout placed it itself); thread() where turns go (else found from the messages); a send
  // button the page lacks is made by newButton() in slot(); toggle(button, on) enables one the
  // page has; streamStart() -> stopped(); started(made) with the first words; finish(made).
  const SITES = {
    chatgpt: [{
      // 2026-09: a turn per exchange; one slot holds Start Voice (empty), the send button (a draft) or Stop.
      name: "new",
      editor: "form[data-chatgpt-composer] [data-composer-markdown]",
      form: "form[data-chatgpt-composer]",
      sendButton: "button[data-sim-send]",
      messages: "[data-content-search-unit-key]",
      attach: () => { [...document.querySelector(S.form).querySelectorAll("button")].at(-1).dataset.simVoice = ""; },
      sync: (hasText) => { document.querySelector("[data-sim-voice]").hidden = hasText || sim.streaming; },
      slot: () => document.querySelector("[data-sim-voice]").parentElement,
      // Never captured with a draft: the label oracle's tests use, no test id.
      newButton: () => make("button", { type: "button", "aria-label": "Send prompt", "data-sim-send": "" }, "↑"),
      thread: () => document.querySelector("[data-chatgpt-conversation-selection-target]"),
      turn(role, text, n) {
        if (role === "user") {
          const body = make("div", { class: "whitespace-pre-wrap" }, text);
          const turn = nest(make("div", { "data-turn-key": `sim-turn-${n}` }),
                            make("div", { class: "group/user-message", "data-chatgpt-search-unit-key": `fallback-turn-${n}:0:user` }),
                            make("div", { "data-content-search-unit-key": `fallback-turn-${n}:0:user` }),
                            make("div", { "data-user-message-bubble": "true" }), body);
          return { turn, body };
        }
        const turn = document.querySelector("[data-chatgpt-conversation-selection-target] > [data-turn-key]:last-child");
        const body = make("div", { "data-markdown-text-style": "assistant-message", "data-markdown-text-tone": "primary",
                                   "data-markdown-animated": "" });
        const part = make("div");
        part.append(make("span", { hidden: "", "data-chatgpt-agent-turn-start": "" }), body);
        turn.append(part);
        return { turn: null, body, part, n };
      },
      streamStart: stopButton({ "aria-label": "Stop" }),
      finish({ body, part, n }) { // the reply's unit appears when it has finished
        body.removeAttribute("data-markdown-animated");
        body.removeAttribute("data-markdown-text-tone");
        part.append(nest(make("div", { "data-content-search-unit-key": `fallback-turn-${n}:2:assistant` }),
                         make("div", { "data-chatgpt-selection-message-id": `sim-${n}` }), body));
      },
    }, {
      name: "old",
      editor: "#prompt-textarea",
      form: "form[data-type=unified-composer]",
      sendButton: "button[data-testid=send-button]",
      messages: "[data-message-author-role=user], [data-message-author-role=assistant]",
      slot: () => document.querySelector("[data-testid=composer-speech-button-container]")?.parentElement
        || document.querySelector(S.form),
      newButton: () => make("button", { id: "composer-submit-button", "data-testid": "send-button",
                                        "aria-label": "Send prompt", type: "button", class: "composer-submit-btn" }, "↑"),
      turn(role, text, n) {
        const body = make("div", { class: role === "user" ? "whitespace-pre-wrap" : "markdown prose" }, role === "user" ? text : "");
        const turn = nest(make("section", { "data-testid": `conversation-turn-${n}`, "data-turn": role }),
                          make("div", { "data-message-author-role": role, "data-message-id": `sim-${n}` }), body);
        return { turn, body };
      },
      streamStart: stopButton({ "data-testid": "stop-button", "aria-label": "Stop streaming" }),
    }],
    claude: [{
      name: "hub",
      editor: "[data-testid=bardhub-claudechat-root] [data-testid=chat-input]",
      form: null,
      sendButton: "button[data-testid=chat-input-send]",
      messages: "[data-testid=transcript-row]",
      slot: () => editor().closest("fieldset") || editor().parentElement,
      // Rendered all along, disabled and inert while the draft is empty.
      toggle: (button, on) => {
        button.disabled = !on;
        button.parentElement.inert = !on;
      },
      thread: () => document.querySelector("[data-testid=transcript-sizer]"),
      turn(role, text, n) {
        const turn = make("div", { "data-testid": "transcript-row", "data-perf-row": role === "user" ? "human" : "assistant" });
        if (role === "user") {
          const body = make("p", { class: "whitespace-pre-wrap break-words" }, text);
          turn.append(nest(make("div", { "data-cds": "UserMessage", "data-turn-key": `sim-${n}` }),
                           make("div", { "data-testid": "user-message" }), body));
          return { turn, body };
        }
        const body = make("div", { "data-perf-reply-text": "", class: "standard-markdown" });
        turn.append(nest(make("div", { "data-testid": "assistant-message", "data-cds": "AssistantMessage",
                                       "data-turn-key": `sim-${n}-hub-reply` }), make("div", { "data-cds": "Prose" }), body));
        return { turn, body };
      },
      streamStart: stopButton({ "data-testid": "chat-input-stop", "aria-label": "Stop response" }, { keepSend: true }),
      // The reply mounts with no data-is-streaming: "true" comes with its first words, "false" at the end.
      started: ({ turn }) => turn.firstChild.setAttribute("data-is-streaming", "true"),
      finish: ({ turn }) => turn.firstChild.setAttribute("data-is-streaming", "false"),
    }, {
      name: "old",
      editor: "[data-testid=chat-input]",
      form: null,
      sendButton: "button[aria-label='Send message']",
      messages: "[data-testid=user-message], [data-is-streaming]",
      slot: () => editor().closest("fieldset") || editor().parentElement,
      newButton: () => make("button", { "aria-label": "Send message", type: "button" }, "↑"),
      turn(role, text) {
        if (role === "user") {
          const body = make("p", { class: "whitespace-pre-wrap break-words" }, text);
          return { turn: nest(make("div", { class: "sim-turn" }), make("div", { "data-testid": "user-message" }), body), body };
        }
        const body = make("div", { class: "standard-markdown" });
        const turn = nest(make("div", { "data-is-streaming": "true", class: "sim-turn" }),
                          make("div", { class: "font-claude-response" }), body);
        return { turn, body };
      },
      finish: ({ turn }) => turn.setAttribute("data-is-streaming", "false"),
    }],
    gemini: [{
      name: "current",
      editor: "rich-textarea .ql-editor",
      form: null,
      sendButton: "gem-icon-button.send-button button, button.send-button",
      messages: "user-query, model-response",
      turn(role, text, n) {
        if (role === "user") {
          const body = make("p", { class: "query-text-line" }, text);
          return { turn: nest(make("user-query"), make("div", { class: "query-text", role: "heading" }), body), body };
        }
        const body = make("div", { class: "markdown markdown-main-panel", "aria-live": "polite", "aria-busy": "true" });
        return { turn: nest(make("model-response"), make("message-content", { id: `message-content-id-sim${n}` }), body), body };
      },
      finish: ({ turn }) => turn.querySelector("[aria-busy]").setAttribute("aria-busy", "false"),
      toggle: (button, on) => { // the button's container shows (class "visible") once text is typed
        (button.closest("gem-icon-button") || button).setAttribute("aria-disabled", String(!on));
        const container = button.closest(".send-button-container");
        container?.classList.toggle("disabled", !on);
        container?.classList.toggle("visible", on);
      },
    }],
    perplexity: [{
      // One layout, two markups: September 2026's (a group/user-bubble query, a .prose answer
      // carrying data-renderer="lm", wrapped in [data-workflow-final-text] once finished) where
      // the page shows bubbles, else the heading and #markdown-content-N of before.
      name: "current",
      editor: "#ask-input",
      form: null,
      sendButton: "[data-ask-input-container] button:not([data-state])",
      messages: "h1[class~='group/query'], div[id^='markdown-content-'], [class~='group/user-bubble'], .prose[data-renderer=lm]",
      turn(role, text) {
        const bubbles = has("[class~='group/user-bubble']");
        if (role === "user") {
          const body = bubbles ? make("div", { "data-renderer": "lm" }, text)
            : make("h1", { class: "group/query relative whitespace-pre-line" }, text);
          return { turn: bubbles ? nest(make("div", { class: "flex justify-end" }),
                                        make("div", { class: "group/user-bubble bg-subtle rounded-2xl" }), body)
            : nest(make("div", { class: "sim-turn" }), body), body };
        }
        if (bubbles) {
          const body = make("div", { class: "prose dark:prose-invert inline leading-relaxed", "data-renderer": "lm" });
          return { turn: nest(make("div", { role: "tabpanel" }), make("div", { class: "relative" }), body), body, bubbles };
        }
        const n = document.querySelectorAll("div[id^='markdown-content-']").length;
        const body = make("div", { "data-renderer": "lm" });
        return { turn: nest(make("div", { class: "sim-turn" }), make("div", { id: `markdown-content-${n}` }), body), body };
      },
      finish: ({ turn, body, bubbles }) => {
        if (bubbles) {
          const wrapper = make("div", { "data-workflow-final-text": "true" });
          body.before(wrapper);
          wrapper.append(body);
        }
        turn.append(nest(make("div"), make("button", { "data-state": "closed", type: "button" })));
      },
      toggle: disable,
    }],
    grok: [{
      name: "current",
      editor: ".query-bar .ProseMirror[contenteditable=true]",
      form: "form:has(.query-bar)",
      sendButton: "form:has(.query-bar) button[type=submit]",
      messages: "div[id^='response-'] .message-bubble",
      slot: () => document.querySelector(".query-bar"),
      newButton: () => make("button", { type: "submit" }, "↑"),
      turn(role, text, n) {
        const testIds = has("[data-testid=user-message]"); // the September 2026 layout names its roles
        const body = make("div", { class: "relative response-content-markdown markdown" });
        if (role === "user") body.append(make("p", {}, text));
        const bubble = make("div", { class: "message-bubble relative", ...(testIds ? { "data-testid": `${role}-message` } : {}) });
        const turn = make("div", { id: `response-sim${n}`, class: `relative group flex flex-col ${role === "user" ? "items-end" : "items-start"}` });
        turn.append(nest(bubble, body));
        if (role === "user") turn.append(actionBar());
        return { turn, body: role === "user" ? body.firstChild : body };
      },
      finish: ({ turn }) => turn.append(actionBar()),
      toggle: disable,
    }],
    deepseek: [{
      // The version served from 2026-10-04: hashed rows, one round button for send and stop
      // (its svg path says which), the conversation's list holding the composer.
      name: "2026-10",
      when: "div[role=button].ds-button--circle",
      editor: ".ds-virtual-list--printable textarea",
      form: null,
      sendButton: "div[role=button].ds-button--circle",
      messages: ".ds-message",
      thread: () => document.querySelector(".ds-virtual-list--printable .ds-virtual-list-visible-items"),
      turn(role, text) {
        const body = role === "user" ? make("div", { class: "ds-collapsible-text" }, text)
          : make("div", { class: "ds-markdown ds-assistant-message-main-content" });
        return { turn: nest(make("div", { class: "_81e7b5e" }), make("div", { class: "ds-message" }), body), body };
      },
      streamStart: () => { // the same button shows the stop icon until the reply has finished
        const path = document.querySelector(`${S.sendButton} path`);
        const send = path.getAttribute("d");
        path.setAttribute("d", "M2 4.88C2 3.29 3.29 2 4.88 2h6.24C12.71 2 14 3.29 14 4.88v6.24C14 12.71 12.71 14 11.12 14H4.88C3.29 14 2 12.71 2 11.12z");
        return () => path.setAttribute("d", send);
      },
      toggle: (button, on) => {
        button.classList.toggle("ds-button--disabled", !on);
        button.setAttribute("aria-disabled", String(!on));
      },
    }, {
      name: "current",
      editor: "textarea[name=search]",
      form: null,
      sendButton: "div:has(> div > textarea) > div .ds-icon-button[role=button]",
      messages: ".ds-message",
      turn(role, text, n) {
        const row = make("div", { "data-virtual-list-item-key": String(n) });
        const body = role === "user" ? make("div", { class: "fbb737a4" }, text)
          : make("div", { class: "ds-markdown ds-assistant-message-main-content" });
        return { turn: nest(row, make("div", { class: "ds-message" }), body), body };
      },
      finish: ({ turn }) => turn.append(nest(make("div", { class: "ds-flex" }),
                                             make("div", { class: "ds-icon-button", role: "button", tabindex: "0" }))),
      // The saved fragment lacks the stylesheet that keeps the scroll area's gutters to its edges.
      css: ".ds-scroll-area__gutters { pointer-events: none; }",
      toggle: (button, on) => {
        button.classList.toggle("ds-icon-button--disabled", !on);
        button.setAttribute("aria-disabled", String(!on));
      },
    }],
    copilot: [{
      name: "current",
      editor: "textarea#userInput",
      form: null,
      sendButton: "button[data-testid=submit-button]",
      messages: "[data-content=user-message], [data-content=ai-message]",
      slot: () => document.querySelector("[data-testid=composer] button[data-testid=audio-call-button]")?.parentElement
        || document.querySelector("[data-testid=composer]"),
      newButton: () => make("button", { "data-testid": "submit-button", type: "button" }, "↑"),
      turn(role, text, n) {
        if (role === "user") {
          const body = make("div", { "data-content": "user-message", class: "whitespace-pre-wrap" }, text);
          return { turn: nest(make("div", { class: "sim-turn" }), body), body };
        }
        const turn = make("div", { "data-content": "ai-message", "data-testid": "ai-message", role: "article" });
        const body = make("div", { id: `sim${n}-content-0` });
        turn.append(make("h6", { id: `sim${n}-author`, class: "sr-only" }, "Copilot said"), body);
        return { turn, body };
      },
      finish: ({ turn }) => turn.append(nest(make("div", { "data-testid": "message-item-reactions" }),
                                             make("button", { "data-testid": "copy-ai-message-button", type: "button" }))),
    }],
  };
  // A redesign no selector knows: its submit button is always there, its turns are bubbles.
  const GENERIC = {
    name: "generic",
    editor: "form [contenteditable=true]",
    form: "form",
    sendButton: "form button[type=submit]",
    messages: ".bubble-v9",
    thread: () => document.querySelector(".thread-v9"),
    turn(role, text) {
      const body = make("p", {}, role === "user" ? text : "");
      return { turn: nest(make("div", { class: `bubble-v9 ${role === "user" ? "mine" : "theirs"}` }), body), body };
    },
  };
  const S = (SITES[site] || []).find((layout) => has(layout.editor) && (!layout.when || has(layout.when))) || GENERIC;
  const sim = { site, layout: S.name, sendButton: S.sendButton, sent: [], replies: [], streaming: false, config };
  sim.selectors = S; // for tests acting as the page's own script
  window.__sim = sim;
  sim.configure = (options) => Object.assign(config, options);
  const editor = () => document.querySelector(S.editor);

  // The composer's text as the site reads it: a textarea's value; Quill's lines (one <p> each).
  function draftOf(box) {
    if (box instanceof HTMLTextAreaElement) return box.value;
    if (box.classList.contains("ql-editor")) return [...box.children].map((p) => p.textContent).join("\n");
    return box.innerText;
  }

  function clear(box) {
    if (box instanceof HTMLTextAreaElement) {
      box.value = "";
      return;
    }
    const empty = make("p");
    empty.append(make("br")); // as the rich editors leave it: an empty paragraph keeps its line
    box.replaceChildren(empty);
  }

  // --- composer ---
  // A site's own button is enabled by text (toggle); one the site shows only while there is
  // text (newButton, no toggle) is added and removed, a saved page's own included. Grok does
  // both: its older pages keep a disabled submit button, its September 2026 page adds one.
  function syncSendButton() {
    const hasText = draftOf(editor()).trim().length > 0;
    const on = hasText && !sim.streaming;
    if (S.sync) S.sync(hasText);
    let button = document.querySelector(S.sendButton);
    if (!button && on && S.newButton) {
      button = S.newButton();
      button.dataset.simMade = "";
      button.addEventListener("click", (e) => onButton(e));
      S.slot().append(button);
    } else if (button && !hasText && ("simMade" in button.dataset || (S.newButton && !S.toggle))) {
      button.remove();
    } else if (button && S.toggle) {
      S.toggle(button, on);
    }
  }

  function onButton(e) {
    if (S.form && e.currentTarget.type === "submit") return; // the form's submit sends
    send("click");
  }

  function send(via) {
    const box = editor();
    const text = draftOf(box).trim();
    if (!text || sim.streaming) return;
    const markup = box instanceof HTMLTextAreaElement ? 0 : box.querySelectorAll(":not(p):not(br):not(div):not(span)").length;
    sim.sent.push({ text, via, at: performance.now(), markup });
    clear(box);
    syncSendButton();
    addTurn("user", text);
    if (config.reply !== "none") streamReply(`Simulated reply ${sim.sent.length}: I read ${text.length} characters.`);
  }

  // --- conversation ---
  function thread() {
    if (S.thread) return S.thread();
    const messages = document.querySelectorAll(S.messages);
    if (!messages.length) {
      let fresh = document.querySelector("[data-sim-thread]");
      if (!fresh) {
        fresh = make("div", { "data-sim-thread": "" });
        const composer = editor().closest("form, fieldset") || editor();
        composer.parentElement.insertBefore(fresh, composer);
      }
      return fresh;
    }
    // The turn holding the last message is the child of the element holding every turn.
    const first = messages[0];
    let turn = messages[messages.length - 1];
    while (turn.parentElement && !turn.parentElement.contains(first)) turn = turn.parentElement;
    if (messages.length === 1) turn = turn.closest("section[data-turn], article") || turn;
    return turn.parentElement;
  }

  function addTurn(role, text) {
    const made = S.turn(role, text, count());
    made.body.style.whiteSpace = "pre-wrap"; // the saved pages' stylesheets are not loaded
    if (made.turn) thread().append(made.turn);
    return made;
  }

  // `hold`: the reply stays mid-stream after its last words until window.__sim.finishReply().
  function streamReply(text, hold = false) {
    sim.streaming = true;
    syncSendButton();
    const reply = addTurn("assistant", text);
    const stopped = S.streamStart ? S.streamStart() : null;
    const words = text.split(" ");
    const step = Math.ceil(words.length / config.chunks);
    let shown = 0;
    const done = () => {
      if (S.finish) S.finish(reply);
      sim.streaming = false;
      sim.replies.push({ text, at: performance.now() });
      syncSendButton();
    };
    const timer = setInterval(() => {
      if (shown === 0 && S.started) S.started(reply);
      shown = Math.min(words.length, shown + step);
      reply.body.textContent = words.slice(0, shown).join(" ");
      if (shown < words.length) return;
      clearInterval(timer);
      const end = () => {
        if (stopped) {
          stopped();
          done();
        } else {
          setTimeout(done, S.finish ? config.finishMs : 0);
        }
      };
      if (!hold) return end();
      sim.held = true;
      sim.finishReply = () => {
        sim.held = false;
        end();
      };
    }, Math.max(10, config.replyMs / config.chunks));
  }

  // --- the site's own handlers: on the editor and the form, as the real sites attach them ---
  function attach() {
    const box = editor();
    if (!box) return;
    if (S.attach) S.attach();
    // The saved pages' stylesheets are not loaded: give an icon-only send button a size to click.
    const style = make("style", {}, `${S.sendButton} { display: inline-block; min-width: 24px; min-height: 24px; }
                                       ${S.css || ""}`);
    document.head.append(style);
    // A rich editor renders its own DOM: the saved (prettified) page's whitespace between
    // its paragraphs is not there on the live site.
    if (!(box instanceof HTMLTextAreaElement)) {
      const walker = document.createTreeWalker(box, NodeFilter.SHOW_TEXT);
      const blank = [];
      while (walker.nextNode()) if (!walker.currentNode.data.trim()) blank.push(walker.currentNode);
      for (const node of blank) node.remove();
    }
    box.addEventListener("keydown", (e) => {
      if (e.key !== "Enter" || e.shiftKey || e.isComposing || e.keyCode === 229) return;
      e.preventDefault();
      send("enter");
    });
    box.addEventListener("input", syncSendButton);
    const form = S.form && document.querySelector(S.form);
    // A click on a submit button sends through the form's submit: it counts as the click.
    if (form) form.addEventListener("submit", (e) => { e.preventDefault(); send(e.submitter ? "click" : "submit"); });
    for (const b of document.querySelectorAll(S.sendButton)) b.addEventListener("click", (e) => onButton(e));
    syncSendButton();
    // A page opened (or reloaded) while a reply streams: its question and words are in, its end is not.
    if (config.midStream) {
      addTurn("user", "A question asked before the page opened");
      streamReply("Simulated reply 0: still streaming when the page opened.", true);
    }
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", attach, { once: true });
  else attach();
})();
