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

test("Firefox's reason (the closed port's `error`, no lastError) is read the same way", () => {
  // Firefox says this both when no manifest is found and when it does not allow this add-on.
  assert.equal(hostNotRegistered("No such native application com.whiteboard.host"), true);
  const port = new NativePort();
  port.scheduleReconnect = () => {};
  port.connect();
  disconnect({ error: { message: "No such native application com.whiteboard.host" } });
  assert.equal(port.status().lastError, "No such native application com.whiteboard.host");
  assert.equal(port.status().hostMissing, true);
  port.connect();
  disconnect({ error: null }); // a host that exited: Firefox gives no error
  assert.equal(port.status().lastError, "the host closed the connection");
  assert.equal(port.status().hostMissing, false);
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

test("a host speaking another protocol is named older or newer, and the port stays connected", async () => {
  const { PROTOCOL, protocolMismatch } = await import(pathToFileURL(join(EXTENSION, "background/native-port.js")).href);
  assert.equal(protocolMismatch(PROTOCOL.min), null);
  assert.equal(protocolMismatch(PROTOCOL.max), null);
  assert.equal(protocolMismatch(PROTOCOL.min - 1), "host_older");
  assert.equal(protocolMismatch(undefined), "host_older"); // a host from before `protocol` was reported
  assert.equal(protocolMismatch(PROTOCOL.max + 1), "host_newer");

  const port = new NativePort();
  port.scheduleReconnect = () => {};
  port.connect();
  assert.equal(port.status().mismatch, null); // nothing known before the ping's reply
  const [ping] = port.pending.keys();
  port.received({ id: ping, ok: true, version: "9.0.0", protocol: PROTOCOL.max + 1, tokenizer_ready: true });
  await new Promise((resolve) => setTimeout(resolve, 0));
  assert.equal(port.status().state, "connected");
  assert.equal(port.status().mismatch, "host_newer");
  assert.deepEqual(port.status().host, { version: "9.0.0", protocol: PROTOCOL.max + 1 });
});

test("Retry while connected to a host of another protocol starts a new host; with a matching one it does nothing", async () => {
  const { PROTOCOL } = await import(pathToFileURL(join(EXTENSION, "background/native-port.js")).href);
  let opened = 0;
  const connectNative = globalThis.chrome.runtime.connectNative;
  globalThis.chrome.runtime.connectNative = (...args) => { opened += 1; return connectNative(...args); };
  try {
    const answer = (port, protocol) => {
      const [ping] = port.pending.keys();
      port.received({ id: ping, ok: true, version: "x", protocol, tokenizer_ready: true });
      return new Promise((resolve) => setTimeout(resolve, 0));
    };
    const port = new NativePort();
    port.scheduleReconnect = () => {};
    port.connect();
    await answer(port, PROTOCOL.max);
    port.reconnectNow();
    assert.equal(opened, 1);
    assert.equal(port.status().state, "connected");

    const old = new NativePort();
    old.scheduleReconnect = () => {};
    old.connect();
    await answer(old, PROTOCOL.min - 1);
    const inFlight = old.request({ type: "session.get", key: "a.b:1" }, { timeoutMs: 1000 });
    old.reconnectNow();
    assert.equal(opened, 3);
    assert.equal(old.status().state, "connecting");
    assert.equal((await inFlight).error.code, "unavailable"); // a send waiting on it goes out unchanged
  } finally {
    globalThis.chrome.runtime.connectNative = connectNative;
  }
});
