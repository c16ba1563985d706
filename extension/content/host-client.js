// Content scripts reach the host only through the worker (design §8). Every call
// resolves with the host's reply or {ok:false, error:{code, message}}; none rejects, so a
// missing host, a slow one or a reloaded extension can never block the page.
(() => {
  const W = (globalThis.Whiteboard ??= {});
  if (W.host) return;
  const { failure, KIND, STREAM_PORT } = W.wire;

  const DEFAULT_TIMEOUT_MS = 1000;
  // The worker enforces the time limit; this guard covers a worker that cannot answer at all.
  const GUARD_MS = 300;

  function request(message, { timeoutMs = DEFAULT_TIMEOUT_MS } = {}) {
    return new Promise((resolve) => {
      const guard = setTimeout(() => resolve(failure("timeout", `no answer within ${timeoutMs} ms`)), timeoutMs + GUARD_MS);
      const done = (reply) => {
        clearTimeout(guard);
        resolve(reply && typeof reply === "object" ? reply : failure("unavailable", "the extension did not answer"));
      };
      try {
        chrome.runtime.sendMessage({ kind: KIND.host, message, timeoutMs }).then(done, (err) => done(failure("unavailable", String(err && err.message || err))));
      } catch (err) {
        done(failure("unavailable", String(err && err.message || err))); // extension reloaded: context invalidated
      }
    });
  }

  // Streamed requests: `onEvent` gets each host event, the promise the final reply.
  // `timeoutMs` is the longest silence allowed between two messages. Aborting `signal`
  // asks the worker to cancel the request (the host still sends its one reply).
  function stream(message, { timeoutMs = 30000, onEvent, signal } = {}) {
    return new Promise((resolve) => {
      let port;
      try {
        port = chrome.runtime.connect({ name: STREAM_PORT });
      } catch (err) {
        resolve(failure("unavailable", String(err && err.message || err)));
        return;
      }
      port.onMessage.addListener((msg) => {
        if (msg && typeof msg.event === "string") {
          onEvent?.(msg);
          return;
        }
        resolve(msg);
        port.disconnect();
      });
      port.onDisconnect.addListener(() => resolve(failure("unavailable", "the extension closed the stream")));
      port.postMessage({ message, timeoutMs });
      signal?.addEventListener("abort", () => {
        try { port.postMessage({ cancel: true }); } catch { /* the stream has ended */ }
      }, { once: true });
    });
  }

  // Messages for the worker itself (not the host); answers are not awaited by callers.
  function notify(envelope) {
    try {
      return chrome.runtime.sendMessage(envelope).catch(() => null);
    } catch {
      return Promise.resolve(null);
    }
  }

  W.host = Object.freeze({ request, stream, notify, DEFAULT_TIMEOUT_MS });
})();
