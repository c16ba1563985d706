// content/chat/send-interceptor.js: a draft that already carries a Whiteboard block is
// sent as it is (the block went in once). The blocks are the host's (memory/recall/inject.py).
import assert from "node:assert/strict";
import { test } from "node:test";

import { load } from "./load.mjs";

const W = load(["content/chat/send-interceptor.js"], { Whiteboard: { editorInput: {} } });
const { isPrepared } = W.SendInterceptor;

const SELECTION = "---\n[Whiteboard selection · 1 passage]\n> Kyoto has 1,600 temples.\n" +
  "(Text I selected on a page before writing this message; my message may refer to it.)\n---";

test("drafts carrying a block of each kind are prepared", () => {
  for (const kind of ["selection · 2 passages", "context · 3 memories", "background · earlier in this tab"]) {
    assert.ok(isPrepared(`Summarise this\n\n---\n[Whiteboard ${kind}]\n> x\n---`), kind);
  }
  assert.ok(isPrepared(`Summarise this\n\n${SELECTION}`));
  // Read back from a rich editor, paragraphs may come with blank lines between them.
  assert.ok(isPrepared("Summarise this\n\n---\n\n[Whiteboard selection · 1 passage]\n\n> x\n\n---"));
  assert.ok(isPrepared("---  \n[Whiteboard context · 1 memory]"));
});

test("drafts that only look alike are not", () => {
  for (const draft of ["Plain question", "--- \nnot a block", "text --- [Whiteboard selection]",
                       "---\n[Whiteboard]\n---", "---\n[Whiteboard notes · mine]\n---", "x\n----\n[Whiteboard context · 1]",
                       "[Whiteboard selection · 1 passage]"]) {
    assert.equal(isPrepared(draft), false, JSON.stringify(draft));
  }
});

test("hostile drafts are checked in linear time", () => {
  const hostile = ["---\n".repeat(200000), `---${" ".repeat(500000)}`, `---\n${" \n".repeat(200000)}[Whiteboard x`,
                   "---\n[Whiteboard selection".padEnd(800000, "a")];
  for (const draft of hostile) {
    const started = performance.now();
    assert.equal(isPrepared(draft), false);
    assert.ok(performance.now() - started < 1000, `took ${performance.now() - started} ms on ${draft.length} chars`);
  }
});
