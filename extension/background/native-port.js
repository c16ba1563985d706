// One connectNative port to the host (design §2): request ids, a time limit on every
// request, host events routed to their request, reconnect with backoff after a
// disconnect, and the disconnect reason kept for the popup.

export const HOST_NAME = "com.whiteboard.host";
export const DEFAULT_TIMEOUT_MS = 1000;
const BACKOFF_MS = [250, 500, 1000, 2000, 5000, 10000, 30000];
const { failure } = globalThis.Whiteboard.wire;
// Browsers say why a port closed in words only (Chrome: "Specified native messaging host not
// found.", "Access to the specified native messaging host is forbidden."; Firefox, for both: "No
// such native application com.whiteboard.host"): read here, once, so the popup branches on
// `hostMissing` in the status, never on the text.
const NOT_REGISTERED = /native messaging host (?:is )?(?:not found|forbidden)|not installed|no such native application/i;

// Where a browser puts that reason: Chrome in runtime.lastError during onDisconnect, Firefox in
// the closed port's `error`. The one place the two differ for the port.
const disconnectReason = (port) => chrome.runtime.lastError?.message || port?.error?.message || null;

// The wire protocol versions this extension speaks: the host's PROTOCOL_VERSION
// (host/whiteboard/protocol/__init__.py) must lie in it. The one place the two are compared.
export const PROTOCOL = Object.freeze({ min: 1, max: 1 });

// Which side is out of date, from the `protocol` a host's ping reported: null when this
// extension speaks it, "host_older" or "host_newer" when not. The port stays connected
// either way, so a send still goes through (unchanged, if the host cannot prepare it).
export function protocolMismatch(protocol) {
  if (!Number.isInteger(protocol) || protocol < PROTOCOL.min) return "host_older";
  return protocol > PROTOCOL.max ? "host_newer" : null;
}

// Whether the browser's reason for a closed port means the host is not registered for this
// browser (or not for this extension): the fix is `whiteboard install`.
export const hostNotRegistered = (reason) => typeof reason === "string" && NOT_REGISTERED.test(reason);

export class NativePort {
  constructor(hostName = HOST_NAME) {
    this.hostName = hostName;
    this.port = null;
    this.nextId = 1;
    this.pending = new Map(); // request id -> {resolve, onEvent, timer, timeoutMs}
    this.state = "disconnected"; // "connecting" | "connected" | "disconnected"
    this.lastError = null; // why the last port closed (the browser's message), for the popup
    this.hostInfo = null; // the ping reply: version, protocol
    this.attempt = 0;
    this.retryTimer = null;
    this.listeners = new Set();
  }

  status() {
    return { state: this.state, lastError: this.lastError, host: this.hostInfo, hostName: this.hostName,
             hostMissing: this.state === "disconnected" && hostNotRegistered(this.lastError),
             mismatch: this.hostInfo ? protocolMismatch(this.hostInfo.protocol) : null,
             retryInMs: this.retryTimer ? this.retryDelay : null };
  }

  onStatus(listener) {
    this.listeners.add(listener);
  }

  setState(state) {
    this.state = state;
    for (const listener of this.listeners) listener(this.status());
  }

  connect() {
    if (this.port) return;
    clearTimeout(this.retryTimer);
    this.retryTimer = null;
    this.setState("connecting");
    let port;
    try {
      port = chrome.runtime.connectNative(this.hostName);
    } catch (err) {
      this.closed(String(err && err.message || err));
      return;
    }
    this.port = port;
    port.onMessage.addListener((msg) => this.received(msg));
    port.onDisconnect.addListener((closed) => {
      if (this.port !== port) return;
      this.port = null;
      this.closed(disconnectReason(closed) || "the host closed the connection");
    });
    // The port is only known to work once the host answers.
    this.send({ type: "ping" }, { timeoutMs: 5000 }).then((reply) => {
      if (this.port !== port) return;
      if (reply.ok) {
        this.attempt = 0;
        this.lastError = null;
        this.hostInfo = { version: reply.version, protocol: reply.protocol };
        this.setState("connected");
      } else if (reply.error.code === "timeout") {
        this.drop("the host started but did not answer a ping");
      }
    });
  }

  // Close the port ourselves: its host exits, pending requests fail as unavailable.
  drop(reason) {
    const port = this.port;
    this.port = null;
    port.disconnect();
    this.closed(reason);
  }

  closed(reason) {
    this.lastError = reason;
    this.hostInfo = null;
    for (const [id, entry] of this.pending) this.settle(id, entry, failure("unavailable", `Whiteboard host unavailable: ${reason}`));
    this.setState("disconnected");
    this.scheduleReconnect();
  }

  scheduleReconnect() {
    clearTimeout(this.retryTimer);
    this.retryDelay = BACKOFF_MS[Math.min(this.attempt, BACKOFF_MS.length - 1)];
    this.attempt += 1;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      this.connect();
    }, this.retryDelay);
  }

  // A user's "Retry" or a request arriving while disconnected: try now, not after the backoff.
  // Connected to a host of another protocol, Retry starts a new host (the user has updated it).
  reconnectNow() {
    if (this.port && this.status().mismatch) this.drop("restarted to check the host's version again");
    this.attempt = 0;
    this.connect();
  }

  received(msg) {
    if (!msg || typeof msg !== "object") return;
    if (typeof msg.event === "string") {
      const entry = this.pending.get(msg.ref);
      if (entry) {
        entry.onEvent?.(msg);
        entry.arm(); // a stream's time limit is the silence between messages
      }
      return;
    }
    const entry = this.pending.get(msg.id);
    if (entry) this.settle(msg.id, entry, msg);
  }

  settle(id, entry, reply) {
    clearTimeout(entry.timer);
    this.pending.delete(id);
    entry.resolve(reply);
  }

  // Sends `message` (without id) and resolves with the host's reply, or with
  // {ok:false, error:{code:"unavailable"|"timeout"}}; it never rejects.
  // `onSent(id)` learns the request's id once it is sent (to cancel it later by `ref`).
  request(message, { timeoutMs = DEFAULT_TIMEOUT_MS, onEvent, onSent } = {}) {
    if (!this.port) this.reconnectNow();
    return this.send(message, { timeoutMs, onEvent, onSent });
  }

  send(message, { timeoutMs, onEvent, onSent }) {
    const id = this.nextId++;
    return new Promise((resolve) => {
      if (!this.port) {
        resolve(failure("unavailable", `Whiteboard host unavailable: ${this.lastError || "not connected"}`));
        return;
      }
      const entry = { resolve, onEvent, timer: null };
      entry.arm = () => {
        clearTimeout(entry.timer);
        entry.timer = setTimeout(() => this.settle(id, entry, failure("timeout", `the host did not answer within ${timeoutMs} ms`)), timeoutMs);
      };
      this.pending.set(id, entry);
      entry.arm();
      try {
        this.port.postMessage({ ...message, id });
        onSent?.(id);
      } catch (err) {
        this.settle(id, entry, failure("unavailable", `could not reach the host: ${err && err.message || err}`));
      }
    });
  }
}
