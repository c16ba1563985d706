// A small in-page stand-in for the chat site's own scripts, added to a real saved chat page
// (the saved pages carry no working scripts). It reacts the way the site does where
// Whiteboard cares: the send button appears (or turns enabled) once text is typed, Enter /
// the send button / the form send the composer's text, the editor is cleared, the user's
// turn is added in the site's own markup, and a reply streams in, then shows the site's
// finished marker: ChatGPT removes its stop button, Claude sets data-is-streaming="false",
// Gemini sets aria-busy="false", Perplexity, Grok, DeepSeek and Copilot add the reply's
// action bar. A marker that is an attribute or an action bar comes `finishMs` after the last
// words, so only the marker (not the page falling quiet) can tell a capture the reply is done.
// Used by `whiteboard demo` and the end-to-end tests; window.__sim records every send.
(() => {
  const script = document.currentScript;
  const site = script.dataset.site;
  const config = { replyMs: Number(script.dataset.replyMs || 900), chunks: Number(script.dataset.chunks || 12),
                   reply: script.dataset.reply || "echo", finishMs: Number(script.dataset.finishMs || 500) };
  const sim = { site, sent: [], replies: [], streaming: false, config };
  window.__sim = sim;
  sim.configure = (options) => Object.assign(config, options);

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
  const count = () => document.querySelectorAll(`${S.userMessage}, ${S.assistantMessage}`).length + 1;
  const has = (css) => document.querySelector(css) !== null;

  // Per site: where things are, how a turn looks, and how a finished reply is marked.
  // turn(role, text) -> {turn, body}; a send button the page lacks is made by newButton().
  const SITES = {
    chatgpt: {
      editor: "#prompt-textarea",
      sendButton: "button[data-testid=send-button]",
      userMessage: "[data-message-author-role=user]",
      assistantMessage: "[data-message-author-role=assistant]",
      form: "form[data-type=unified-composer]",
      slot: () => document.querySelector("[data-testid=composer-speech-button-container]")?.parentElement
        || document.querySelector("form[data-type=unified-composer]"),
      newButton: () => make("button", { id: "composer-submit-button", "data-testid": "send-button",
                                        "aria-label": "Send prompt", type: "button", class: "composer-submit-btn" }, "↑"),
      turn(role, text) {
        const n = count();
        const body = make("div", { class: role === "user" ? "whitespace-pre-wrap" : "markdown prose" }, role === "user" ? text : "");
        const turn = nest(make("section", { "data-testid": `conversation-turn-${n}`, "data-turn": role }),
                          make("div", { "data-message-author-role": role, "data-message-id": `sim-${n}` }), body);
        return { turn, body };
      },
      streamStart() {
        document.querySelector(S.sendButton)?.remove();
        const stop = make("button", { "data-testid": "stop-button", "aria-label": "Stop streaming", type: "button" }, "■");
        S.slot().append(stop);
        return () => stop.remove();
      },
    },
    claude: {
      editor: "[data-testid=chat-input]",
      sendButton: "button[aria-label='Send message']",
      userMessage: "[data-testid=user-message]",
      assistantMessage: "[data-is-streaming]",
      form: null,
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
      finish: (turn) => turn.setAttribute("data-is-streaming", "false"),
    },
    gemini: {
      editor: "rich-textarea .ql-editor",
      sendButton: "gem-icon-button.send-button button, button.send-button",
      userMessage: "user-query",
      assistantMessage: "model-response",
      form: null,
      turn(role, text) {
        if (role === "user") {
          const body = make("p", { class: "query-text-line" }, text);
          return { turn: nest(make("user-query"), make("div", { class: "query-text", role: "heading" }), body), body };
        }
        const body = make("div", { class: "markdown markdown-main-panel", "aria-live": "polite", "aria-busy": "true" });
        return { turn: nest(make("model-response"), make("message-content", { id: `message-content-id-sim${count()}` }), body), body };
      },
      finish: (turn) => turn.querySelector("[aria-busy]").setAttribute("aria-busy", "false"),
      toggle: (button, on) => { // the button's container shows (class "visible") once text is typed
        (button.closest("gem-icon-button") || button).setAttribute("aria-disabled", String(!on));
        const container = button.closest(".send-button-container");
        container?.classList.toggle("disabled", !on);
        container?.classList.toggle("visible", on);
      },
    },
    perplexity: {
      editor: "#ask-input",
      sendButton: "[data-ask-input-container] button:not([data-state])",
      userMessage: "h1[class~='group/query']",
      assistantMessage: "div[id^='markdown-content-']",
      form: null,
      turn(role, text) {
        if (role === "user") {
          const body = make("h1", { class: "group/query relative whitespace-pre-line" }, text);
          return { turn: nest(make("div", { class: "sim-turn" }), body), body };
        }
        const n = document.querySelectorAll(S.assistantMessage).length;
        const body = make("div", { "data-renderer": "lm" });
        return { turn: nest(make("div", { class: "sim-turn" }), make("div", { id: `markdown-content-${n}` }), body), body };
      },
      finish: (turn) => turn.append(nest(make("div"), make("button", { "data-state": "closed", type: "button" }))),
      toggle: (button, on) => { button.disabled = !on; },
    },
    grok: {
      editor: ".query-bar .ProseMirror[contenteditable=true]",
      sendButton: "form:has(.query-bar) button[type=submit]",
      userMessage: "div[id^='response-'] .message-bubble",
      assistantMessage: "div[id^='response-'].items-start .message-bubble",
      form: "form:has(.query-bar)",
      slot: () => document.querySelector(".query-bar"),
      newButton: () => make("button", { type: "submit" }, "↑"),
      turn(role, text) {
        const testIds = has("[data-testid=user-message]"); // the September 2026 layout names its roles
        const body = make("div", { class: "relative response-content-markdown markdown" });
        if (role === "user") body.append(make("p", {}, text));
        const bubble = make("div", { class: "message-bubble relative", ...(testIds ? { "data-testid": `${role}-message` } : {}) });
        const turn = make("div", { id: `response-sim${count()}`, class: `relative group flex flex-col ${role === "user" ? "items-end" : "items-start"}` });
        turn.append(nest(bubble, body));
        if (role === "user") turn.append(actionBar());
        return { turn, body: role === "user" ? body.firstChild : body };
      },
      finish: (turn) => turn.append(actionBar()),
      toggle: (button, on) => { button.disabled = !on; },
    },
    deepseek: {
      editor: "textarea[name=search]",
      sendButton: "div:has(> div > textarea) > div .ds-icon-button[role=button]",
      userMessage: ".ds-message",
      assistantMessage: ".ds-message:has(.ds-assistant-message-main-content)",
      form: null,
      turn(role, text) {
        const row = make("div", { "data-virtual-list-item-key": String(count()) });
        if (role === "user") {
          const body = make("div", { class: "fbb737a4" }, text);
          return { turn: nest(row, make("div", { class: "ds-message" }), body), body };
        }
        const body = make("div", { class: "ds-markdown ds-assistant-message-main-content" });
        return { turn: nest(row, make("div", { class: "ds-message" }), body), body };
      },
      finish: (turn) => turn.append(nest(make("div", { class: "ds-flex" }),
                                         make("div", { class: "ds-icon-button", role: "button", tabindex: "0" }))),
      // The saved fragment lacks the stylesheet that keeps the scroll area's gutters to its edges.
      css: ".ds-scroll-area__gutters { pointer-events: none; }",
      toggle: (button, on) => {
        button.classList.toggle("ds-icon-button--disabled", !on);
        button.setAttribute("aria-disabled", String(!on));
      },
    },
    copilot: {
      editor: "textarea#userInput",
      sendButton: "button[data-testid=submit-button]",
      userMessage: "[data-content=user-message]",
      assistantMessage: "[data-content=ai-message]",
      form: null,
      slot: () => document.querySelector("[data-testid=composer] button[data-testid=audio-call-button]")?.parentElement
        || document.querySelector("[data-testid=composer]"),
      newButton: () => make("button", { "data-testid": "submit-button", type: "button" }, "↑"),
      turn(role, text) {
        if (role === "user") {
          const body = make("div", { "data-content": "user-message", class: "whitespace-pre-wrap" }, text);
          return { turn: nest(make("div", { class: "sim-turn" }), body), body };
        }
        const id = `sim${count()}`;
        const turn = make("div", { "data-content": "ai-message", "data-testid": "ai-message", role: "article" });
        const body = make("div", { id: `${id}-content-0` });
        turn.append(make("h6", { id: `${id}-author`, class: "sr-only" }, "Copilot said"), body);
        return { turn, body };
      },
      finish: (turn) => turn.append(nest(make("div", { "data-testid": "message-item-reactions" }),
                                         make("button", { "data-testid": "copy-ai-message-button", type: "button" }))),
    },
  };
  const S = SITES[site];
  const editor = () => document.querySelector(S.editor);

  function actionBar() {
    return nest(make("div", { class: "action-buttons flex flex-row" }), make("button", { type: "button" }));
  }

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
  // A site's own button is enabled by text (toggle); one the site adds only while there is
  // text (newButton) is added and removed. Grok does both: its older pages keep a disabled
  // submit button, its September 2026 page adds one.
  function syncSendButton() {
    const hasText = draftOf(editor()).trim().length > 0;
    const on = hasText && !sim.streaming;
    let button = document.querySelector(S.sendButton);
    if (!button && on && S.newButton) {
      button = S.newButton();
      button.dataset.simMade = "";
      button.addEventListener("click", (e) => onButton(e));
      S.slot().append(button);
    } else if (button && "simMade" in button.dataset && !hasText) {
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
    const messages = document.querySelectorAll(`${S.userMessage}, ${S.assistantMessage}`);
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
    const made = S.turn(role, text);
    made.body.style.whiteSpace = "pre-wrap"; // the saved pages' stylesheets are not loaded
    thread().append(made.turn);
    return made;
  }

  function streamReply(text) {
    sim.streaming = true;
    syncSendButton();
    const { turn, body } = addTurn("assistant", text);
    const stopped = S.streamStart ? S.streamStart() : null;
    const words = text.split(" ");
    const step = Math.ceil(words.length / config.chunks);
    let shown = 0;
    const done = () => {
      sim.streaming = false;
      sim.replies.push({ text, at: performance.now() });
      syncSendButton();
    };
    const timer = setInterval(() => {
      shown = Math.min(words.length, shown + step);
      body.textContent = words.slice(0, shown).join(" ");
      if (shown < words.length) return;
      clearInterval(timer);
      if (stopped) {
        stopped();
        done();
      } else {
        setTimeout(() => {
          S.finish(turn);
          done();
        }, config.finishMs);
      }
    }, Math.max(10, config.replyMs / config.chunks));
  }

  // --- the site's own handlers: on the editor and the form, as the real sites attach them ---
  function attach() {
    const box = editor();
    if (!box) return;
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
    if (form) form.addEventListener("submit", (e) => { e.preventDefault(); send("submit"); });
    for (const b of document.querySelectorAll(S.sendButton)) b.addEventListener("click", (e) => onButton(e));
    syncSendButton();
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", attach, { once: true });
  else attach();
})();
