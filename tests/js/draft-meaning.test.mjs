// content/chat/draft-meaning.js: the draft goes to the host (chat.draft) once the user's own
// typing pauses, the latest text only and once; a page's script typing starts nothing;
// nothing while not allowed (memory off, paused, the Options switch off); a send resets it.
import assert from "node:assert/strict";
import { test } from "node:test";

import { load } from "./load.mjs";

function setup({ allowed = true } = {}) {
  const editor = { id: "composer" };
  const elsewhere = { id: "search box" };
  const listeners = {};
  let timer = null;
  let text = "";
  const sent = [];
  const state = { allowed };
  const W = load(["content/chat/send-interceptor.js", "content/chat/draft-meaning.js"], {
    addEventListener: (type, fn) => { listeners[type] = fn; },
    // One pending timer: the newest replaces it (the debounce clears the old one first).
    setTimeout: (fn, ms) => { timer = { fn, ms }; return timer; },
    clearTimeout: (t) => { if (t === timer) timer = null; },
    Whiteboard: { editorInput: { readText: () => text, replaceText: () => true } },
  });
  const adapter = { editorFrom: (t) => (t === editor ? editor : null) };
  const meaning = new W.DraftMeaning(adapter, { readDraft: () => text, allowed: () => state.allowed,
                                                send: (draft) => sent.push(draft) });
  meaning.install();
  const type = (value, init = {}) => {
    text = value;
    listeners.input({ isTrusted: true, target: editor, ...init });
  };
  const pause = () => {
    const due = timer;
    timer = null;
    if (due) due.fn();
    return due;
  };
  return { W, editor, elsewhere, listeners, type, pause, sent, state, meaning, setText: (v) => { text = v; } };
}

test("the draft goes when the user's typing pauses, after the debounce, the latest text only", () => {
  const { W, type, pause, sent } = setup();
  type("Which");
  type("Which programming");
  type("Which programming language?");
  const due = pause();
  assert.equal(due.ms, W.DraftMeaning.PAUSE_MS);
  assert.deepEqual(sent, ["Which programming language?"]);
  type("Which programming language?"); // the same text again (a caret move): not sent twice
  pause();
  assert.deepEqual(sent, ["Which programming language?"]);
});

test("a page's script filling the composer, or typing elsewhere, starts nothing", () => {
  const { type, pause, sent, listeners, elsewhere, setText } = setup();
  for (let n = 0; n < 100; n += 1) type(`script text ${n}`, { isTrusted: false });
  assert.equal(pause(), null);
  setText("typed in the site's search box");
  listeners.input({ isTrusted: true, target: elsewhere });
  listeners.keyup({ isTrusted: true, target: elsewhere, key: "a" });
  assert.equal(pause(), null);
  assert.deepEqual(sent, []);
});

test("a trusted keyup resets the pause too, but the Enter of a send does not start one", () => {
  const { editor, listeners, pause, sent, setText } = setup();
  setText("Draft typed then the caret moved");
  listeners.keyup({ isTrusted: true, target: editor, key: "ArrowLeft" });
  pause();
  assert.deepEqual(sent, ["Draft typed then the caret moved"]);
  setText("Draft sent with Enter");
  listeners.keyup({ isTrusted: true, target: editor, key: "Enter" });
  assert.equal(pause(), null);
});

test("nothing while not allowed, nothing empty or already prepared", () => {
  const { type, pause, sent, state } = setup({ allowed: false });
  type("memory off here");
  pause();
  state.allowed = true;
  type("   ");
  pause();
  type("Hi\n\n---\n[Whiteboard context · 1 memory]\n- x\n---");
  pause();
  assert.deepEqual(sent, []);
});

test("after a send the same text may go again (the host dropped the tab's vector)", () => {
  const { type, pause, sent, meaning } = setup();
  type("Same question");
  pause();
  type("Same question, edited");
  meaning.sent(); // Enter before the pause: the waiting draft is not sent
  assert.equal(pause(), null);
  type("Same question");
  pause();
  assert.deepEqual(sent, ["Same question", "Same question"]);
});
