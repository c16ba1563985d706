// The chat page's side of "Continue in <site>" (design §7).
// Sending end: the popup asks this page to record the conversation shown (KIND.engage, the
// user's click is the act) before it asks the host for the handoff note.
// Receiving end: when this tab was opened for a handoff, the worker holds the note for
// it. Once the adapter finds the composer, the note goes in through the editor's own
// input path (as typed text, never HTML) for the user to read and send; nothing is sent.
(() => {
  const W = globalThis.Whiteboard;
  const adapter = W.chat.adapterFor(location.hostname);
  if (!adapter || W.handoffInsert) return;
  W.handoffInsert = true;
  const { KIND } = W.wire;
  const WAIT_MS = 15000; // single-page apps render their composer late

  function composer() {
    return new Promise((resolve) => {
      const found = adapter.findEditor();
      if (found) return resolve(found);
      const observer = new MutationObserver(() => {
        const editor = adapter.findEditor();
        if (editor) {
          observer.disconnect();
          resolve(editor);
        }
      });
      observer.observe(document.documentElement, { childList: true, subtree: true });
      setTimeout(() => {
        observer.disconnect();
        resolve(null);
      }, WAIT_MS);
    });
  }

  async function insert() {
    const editor = await composer();
    if (!editor) return;
    const reply = await W.host.notify({ kind: KIND.handoffTake });
    if (!reply || !reply.ok || !reply.text) return;
    await W.editorInput.replaceText(editor, reply.text);
  }

  // Only the extension's own pages (the popup) send this, told by their address: a popup
  // opened in a tab has a `tab` in Firefox, and this extension's content scripts elsewhere
  // have a web page's address.
  const OWN_PAGES = chrome.runtime.getURL("");
  chrome.runtime.onMessage.addListener((envelope, sender, sendResponse) => {
    if (!envelope || envelope.kind !== KIND.engage || sender.id !== chrome.runtime.id ||
        !String(sender.url || "").startsWith(OWN_PAGES)) return false;
    W.page.engage().then(() => sendResponse({ ok: true }));
    return true;
  });

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", insert, { once: true });
  else insert();
})();
