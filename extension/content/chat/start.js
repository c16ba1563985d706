// Starts the adapter for this chat site: send interception from document_start (before
// the site's own handlers), turn capture, and a report to the popup of whether the page's
// structure was recognised. An unrecognised page is left exactly as it is.
(() => {
  const W = globalThis.Whiteboard;
  const adapter = W.chat.adapterFor(location.hostname);
  if (!adapter || W.chatStarted) return;
  W.chatStarted = true;
  const RECOGNISE_AFTER_LOAD_MS = 5000; // single-page apps render their composer late
  const capture = new W.TurnCapture(adapter);
  const left = (deadline) => Math.max(1, Math.round(deadline - performance.now()));

  async function prepare(draft, deadline) {
    const memories = W.memoryPreview ? W.memoryPreview.takeForSend() : true; // the preview's one-send switch
    capture.engage();
    await W.page.ready;
    await capture.sync(left(deadline)); // the turns shown before this send come first
    // answer_by: past it the draft goes unchanged, so a late host must not use up selections.
    const reply = W.host.request({ type: "chat.prepare_send", site: W.page.hostname, draft,
                                   conversation_new: adapter.conversationIsNew(), budget: W.page.settings.budget,
                                   memories, answer_by: (Date.now() + left(deadline)) / 1000,
                                   learn: !W.sites.isSharedPage(adapter.site, location.pathname) },
                                 { timeoutMs: left(deadline) });
    try {
      adapter.noteSend(); // while the host works (off the send's path); the draft is still in
    } catch { /* bookkeeping for the roles report only: never in the send's way */ }
    reply.then((answer) => W.memoryPreview?.afterSend(answer)); // the chip says when recall used words only
    return reply;
  }

  new W.SendInterceptor(adapter, prepare).install();
  // Only the extension sends to a content script (chrome.tabs.sendMessage): the worker (no
  // tab) after a clear of this tab's session, or of all; Options' "Test on this tab".
  chrome.runtime.onMessage.addListener((envelope, sender, sendResponse) => {
    if (!envelope || sender.id !== chrome.runtime.id) return false;
    if (envelope.kind === W.wire.KIND.sessionCleared && !sender.tab) capture.forgetShown();
    if (envelope.kind === W.wire.KIND.testSelectors) sendResponse(testSelectors(envelope.selectors));
    return false;
  });

  // {site, hostname, counts: {role: n}, ignored: [{role, why}]} of selectors {role: css}
  // on this page, as the adapter would use them: counts only, never page text.
  function testSelectors(selectors) {
    const { entries, ignored } = W.siteOverrides.check(selectors);
    const counts = Object.fromEntries(Object.entries(entries).map(([role, e]) => [role, W.dom.all(document, [e]).length]));
    return { site: adapter.site, hostname: location.hostname, counts, ignored };
  }

  W.page.onEngage(async () => {
    capture.engage();
    await capture.sync(1000);
  });

  // "looking" until the composer appears; "unrecognised" if it has not within a few
  // seconds of the page finishing loading; "attached" whenever it appears. The report
  // (with its roles: roles.js) is sent again whenever it changes after a send settles.
  let lastReport = null;
  function report(status) {
    const json = JSON.stringify(status);
    if (json !== lastReport) W.page.report(status);
    lastReport = json;
  }
  let looking = true;
  const refresh = () => { if (!looking) report(adapter.recognition()); };
  capture.onSettled = refresh;

  function watchRecognition() {
    report({ state: "looking", site: adapter.site });
    const found = () => {
      if (!adapter.findEditor()) return false;
      looking = false;
      refresh();
      return true;
    };
    if (found()) return;
    const observer = new MutationObserver(() => { if (found()) observer.disconnect(); });
    observer.observe(document.documentElement, { childList: true, subtree: true });
    const giveUp = () => setTimeout(() => {
      looking = false;
      refresh();
    }, RECOGNISE_AFTER_LOAD_MS);
    if (document.readyState === "complete") giveUp();
    else addEventListener("load", giveUp, { once: true });
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", watchRecognition, { once: true });
  else watchRecognition();

  // The user's selectors for this host (Options, "Fix a site"), now and whenever they change.
  let overridesSeen = false;
  W.siteOverrides.watch(location.hostname, (checked) => {
    if (!overridesSeen && !Object.keys(checked.entries).length && !checked.ignored.length) return;
    overridesSeen = true;
    adapter.useOverrides(checked);
    capture.rewatch();
    refresh();
  });
})();
