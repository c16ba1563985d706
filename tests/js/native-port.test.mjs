// background/native-port.js: a port that closes says in its status whether the host is not
// registered (Chrome gives only words), so the popup branches on that flag, never on the text.
import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";
import { pathToFileURL } from "node:url";

import { EXTENSION, SHARED, load } from "./load.mjs";

globalThis.Whiteboard = load(SHARED, { chrome: {} });
let disconnect = null; // fires the fake port's onDisconnect
globalThis.chrome = {
  runtime: {
    lastError: undefined,
    connectNative: () => ({
      onMessage: { addListener: () => {} },
      onDisconnect: { addListener: (fn) => { disconnect = fn; } },
      postMessage: () => {},
      disconnect: () => {},
    }),
  },
};
const { NativePort, hostNotRegistered } = await import(pathToFileURL(join(EXTENSION, "background/native-port.js")).href);

test("Chrome's reasons for a host that is not registered are told apart from a host that failed", () => {
  for (const reason of ["Specified native messaging host not found.",
                        "Access to the specified native messaging host is forbidden."]) {
    assert.equal(hostNotRegistered(reason), true, reason);
  }
  for (const reason of ["Native host has exited.", "Error when communicating with the native messaging host.",
                        "the host closed the connection", "", null, undefined]) {
    assert.equal(hostNotRegistered(reason), false, String(reason));
  }
});

test("the status says hostMissing only while disconnected for that reason", async () => {
  const port = new NativePort();
  port.scheduleReconnect = () => {}; // no timers left behind by the test
  port.connect();
  assert.equal(port.status().hostMissing, false); // connecting
  globalThis.chrome.runtime.lastError = { message: "Specified native messaging host not found." };
  disconnect();
  globalThis.chrome.runtime.lastError = undefined;
  assert.equal(port.status().state, "disconnected");
  assert.equal(port.status().hostMissing, true);
  const reply = await port.send({ type: "ping" }, { timeoutMs: 10 });
  assert.equal(reply.ok, false);
  assert.equal(reply.error.code, "unavailable");

  port.connect();
  globalThis.chrome.runtime.lastError = { message: "Native host has exited." };
  disconnect();
  globalThis.chrome.runtime.lastError = undefined;
  assert.equal(port.status().hostMissing, false);
});
