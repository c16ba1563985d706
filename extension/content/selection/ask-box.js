// The question box in the selection panel: ask the configured model about the selection
// just captured and watch the answer stream in (ask.start over the whiteboard-stream port).
// The first question about a fresh selection uses mode "new_selection" (the tab's earlier
// context is background only) and names the selection; later questions in the panel are
// "follow_up" (the model may refer to the exchange so far). Stop cancels the request.
// Answers are appended as text nodes, never parsed as HTML.
(() => {
  const W = (globalThis.Whiteboard ??= {});
  if (W.askBox) return;
  const { el } = W.ui;
  const SILENCE_MS = 90000; // longer than the host's own 60 s limit on a silent model
  // Failures the model settings can fix: the box offers Options → Model.
  const { noModel, modelUnavailable, replyTooLarge, insecureUrl } = W.wire.REASON;
  const MODEL_REASONS = [noModel, modelUnavailable, replyTooLarge, insecureUrl];

  const CSS = `
    .ask-box { display: flex; flex-direction: column; gap: 6px; padding: 8px 12px; border-bottom: 1px solid #e5e7eb; flex: none; }
    .thread { max-height: 32vh; overflow-y: auto; display: flex; flex-direction: column; gap: 6px; }
    .thread:empty { display: none; }
    .question { align-self: flex-end; max-width: 90%; padding: 4px 8px; border-radius: 8px; background: #e0e7ff; color: #1e1b4b;
                white-space: pre-wrap; overflow-wrap: anywhere; }
    .answer { padding: 4px 0; white-space: pre-wrap; overflow-wrap: anywhere; }
    .answer.streaming::after { content: "▍"; color: #10b981; }
    .ask-status { color: #4b5563; font-size: 12px; }
    .ask-status:empty { display: none; }
    .ask-status.error { color: #991b1b; }
    .ask-form { display: flex; gap: 6px; align-items: flex-end; }
    textarea { flex: 1; resize: none; padding: 6px 8px; border: 1px solid #d1d5db; border-radius: 6px; color: #111827; background: #fff; }
    .ask-form button, .options-link { padding: 6px 10px; border-radius: 6px; background: #1f2937; color: #f9fafb; }
    .ask-form button.stop { background: #b91c1c; }
    .ask-form button[hidden], .options-link[hidden] { display: none; }
    .options-link { align-self: flex-start; background: #f3f4f6; color: #1f2937; }
    @media (prefers-color-scheme: dark) {
      .ask-box { border-bottom-color: #374151; }
      .question { background: #312e81; color: #e0e7ff; }
      .ask-status { color: #a5adba; }
      .ask-status.error { color: #fca5a5; }
      textarea { border-color: #4b5563; color: #f3f4f6; background: #111827; }
      .ask-form button { background: #e5e7eb; color: #111827; }
      .options-link { background: #374151; color: #f3f4f6; }
    }
  `;
  let parts = null;
  let selection = ""; // the captured selection the next question is about
  let fresh = false; // no question asked about it yet: the next one is "new_selection"
  let running = null; // AbortController of the answer streaming in

  function build() {
    parts = {
      thread: el("div", { class: "thread", "aria-live": "polite" }),
      status: el("div", { class: "ask-status", role: "status" }),
      options: el("button", { type: "button", class: "options-link", text: "Open Whiteboard options → Model", hidden: "",
                              onclick: () => W.host.notify({ kind: W.wire.KIND.openOptions }) }),
      input: el("textarea", { class: "question-input", rows: "2", placeholder: "Ask about the selection…", "aria-label": "Question",
                              onkeydown: onKey }),
      // A click, not a form submit: a submit is trusted even from requestSubmit().
      ask: el("button", { type: "button", class: "ask", text: "Ask", onclick: ask }),
      stop: el("button", { type: "button", class: "stop", text: "Stop", hidden: "", onclick: stop }),
    };
    const controls = el("div", { class: "ask-form" }, parts.input, parts.ask, parts.stop);
    return el("section", { class: "ask-box" }, parts.thread, parts.status, parts.options, controls);
  }

  // A new selection starts a new thread; reopening the panel without one keeps the thread.
  function onShow({ selection: captured }) {
    if (captured) {
      running?.abort();
      running = null;
      setBusy(false);
      selection = captured;
      fresh = true;
      parts.thread.replaceChildren();
      parts.input.placeholder = "Ask about the selection…";
      setStatus("");
    }
    parts.input.focus();
  }

  function onKey(event) {
    if (event.key !== "Enter" || event.shiftKey || event.isComposing || event.keyCode === 229) return;
    event.preventDefault();
    ask(event);
  }

  function setStatus(text, { error = false, options = false } = {}) {
    parts.status.textContent = text;
    parts.status.classList.toggle("error", error);
    parts.options.hidden = !options;
  }

  function setBusy(busy) {
    parts.ask.hidden = busy;
    parts.stop.hidden = !busy;
    parts.input.disabled = busy;
  }

  async function ask(event) {
    event.preventDefault();
    if (!event.isTrusted) return; // only the user's own Enter or click asks (docs/extension.md, "Hostile pages")
    const question = parts.input.value.trim();
    if (!question || running) return;
    const mode = fresh ? "new_selection" : "follow_up";
    const message = { type: "ask.start", question, mode, budget: W.page.settings.budget };
    if (fresh && selection) message.selection = selection;
    const turn = el("div", { class: "question", text: question });
    const answer = el("div", { class: "answer streaming" });
    parts.thread.append(turn, answer);
    parts.input.value = "";
    setStatus("Thinking…");
    setBusy(true);
    const controller = (running = new AbortController());
    await W.page.engage();
    const reply = await W.host.stream(message, {
      timeoutMs: SILENCE_MS, signal: controller.signal,
      onEvent: (msg) => {
        if (msg.event !== "ask.delta" || typeof msg.text !== "string") return;
        answer.append(msg.text); // a text node: markup in an answer stays text
        parts.thread.scrollTop = parts.thread.scrollHeight;
        if (!controller.signal.aborted) setStatus("Answering…");
      },
    });
    if (running !== controller) return; // a new selection replaced this thread meanwhile
    running = null;
    setBusy(false);
    answer.classList.remove("streaming");
    if (!reply.ok) {
      if (!answer.textContent) answer.remove();
      parts.input.value = question; // nothing is lost: the question is back in the box
      const aboutModel = MODEL_REASONS.includes(reply.error.reason); // the model needs setting up or fixing
      setStatus(reply.error.message, { error: true, options: aboutModel });
      return;
    }
    answer.textContent = reply.answer; // the whole answer, as the host kept it
    if (reply.answer) { // the exchange joined the session: the next question is a follow-up
      fresh = false;
      parts.input.placeholder = "Ask a follow-up…";
    }
    const context = reply.used_tokens > 0
      ? `with ${reply.used_tokens} / ${reply.budget} tokens of this tab's context`
      : "from the selection and your question (nothing else in this tab yet)";
    setStatus(reply.cancelled ? "Stopped." : `Answered ${context}. Ask a follow-up below.`);
    W.panel.refresh();
  }

  function stop() {
    if (!running) return;
    running.abort();
    setStatus("Stopping…");
  }

  // Closing the panel stops an answer still streaming: nobody is left to read it.
  W.panel.extend({ css: CSS, build, onShow, onHide: stop });
  W.askBox = Object.freeze({ stop });
})();
