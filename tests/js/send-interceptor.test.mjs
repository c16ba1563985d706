// content/chat/send-interceptor.js: only the user's own gestures start a send. Events a
// page's script dispatches (isTrusted false) are ignored and left to the page; a submit,
// trusted even when the page calls form.requestSubmit(), acts only while the user's own
// click on its submitter is being handled. The real browser: tests/e2e/test_hostile_page.py.
import assert from "node:assert/strict";
import { test } from "node:test";

import { load } from "./load.mjs";

class Node {
  constructor(parent = null) { this.parent = parent; }
  contains(other) {
    for (let n = other; n; n = n.parent) if (n === this) return true;
    return false;
  }
}

// The interceptor on a fake page: a form holding the composer and a submit button.
function setup() {
  const form = new Node();
  const editor = new Node(form);
  const button = new Node(form);
  const icon = new Node(button); // what a click on the button's drawing hits
  const elsewhere = new Node();
  const listeners = {};
  const prepared = [];
  const timers = [];
  const W = load(["content/chat/send-interceptor.js"], {
    Node,
    addEventListener: (type, fn) => { listeners[type] = fn; },
    setTimeout: (fn) => timers.push(fn),
    performance: { now: () => 0 },
    Whiteboard: { editorInput: { readText: () => "My draft", replaceText: () => true }, page: { chatEnabled: true } },
  });
  const adapter = {
    editorFrom: (t) => (t === editor ? editor : null),
    sendButtonFrom: () => null, // a submit button the adapter does not know as the send button
    formFrom: (t) => (t === form ? form : null),
    findEditor: () => editor,
    editorFor: () => editor, // the composer in the submitted form's composer area
  };
  const interceptor = new W.SendInterceptor(adapter, (draft) => {
    prepared.push(draft);
    return new Promise(() => {}); // the host never answers: only whether it was asked matters
  });
  interceptor.install();
  const fire = (type, init) => {
    const event = { type, isTrusted: true, button: 0, key: "", defaultPrevented: false, stopped: false,
                    preventDefault() { this.defaultPrevented = true; },
                    stopImmediatePropagation() { this.stopped = true; }, ...init };
    listeners[type](event);
    return event;
  };
  const nextTask = () => { for (const fn of timers.splice(0)) fn(); };
  return { form, editor, button, icon, elsewhere, fire, nextTask, prepared };
}

test("a page's synthetic Enter, click or submit starts nothing and is left to the page", () => {
  const { form, editor, button, fire, prepared } = setup();
  for (const event of [fire("keydown", { key: "Enter", target: editor, isTrusted: false }),
                       fire("click", { target: button, isTrusted: false }),
                       fire("submit", { target: form, submitter: button, isTrusted: false })]) {
    assert.equal(event.defaultPrevented || event.stopped, false, event.type); // not swallowed either
  }
  assert.deepEqual(prepared, []);
});

test("the user's own Enter in the composer starts a send", () => {
  const { editor, fire, prepared } = setup();
  const enter = fire("keydown", { key: "Enter", target: editor });
  assert.ok(enter.defaultPrevented && enter.stopped);
  assert.deepEqual(prepared, ["My draft"]);
});

test("form.requestSubmit() from the page, trusted as its submit event is, starts nothing", () => {
  const { form, button, fire, prepared } = setup();
  assert.equal(fire("submit", { target: form, submitter: null }).defaultPrevented, false);
  assert.equal(fire("submit", { target: form, submitter: button }).defaultPrevented, false); // requestSubmit(button)
  assert.deepEqual(prepared, []);
});

test("a submit acts only while the user's click on its submitter is being handled", () => {
  const { form, editor, button, icon, elsewhere, fire, nextTask, prepared } = setup();
  // The page piggybacks on the user's click into the composer, or elsewhere: nothing.
  for (const target of [editor, elsewhere]) {
    fire("click", { target });
    fire("submit", { target: form, submitter: button });
    nextTask();
  }
  // A synthetic click on the button (button.click()) gives a trusted submit: nothing.
  fire("click", { target: button, isTrusted: false });
  fire("submit", { target: form, submitter: button });
  // The user's click on the button, gone by the next task: a later submit is the page's.
  fire("click", { target: icon });
  nextTask();
  fire("submit", { target: form, submitter: button });
  assert.deepEqual(prepared, []);
  // The user's click on the button's drawing submits the form: that submit is the send.
  fire("click", { target: icon });
  const submit = fire("submit", { target: form, submitter: button });
  assert.ok(submit.defaultPrevented);
  assert.deepEqual(prepared, ["My draft"]);
});
