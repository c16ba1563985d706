// The popup's "Continue in <site>" on a chat site's tab: one button for every site enabled
// in Options other than this tab's (shared/sites.js handoffTargets), design §7: the page records the conversation shown, the
// host writes the handoff note (handoff.summary: by the model if one is configured, else
// extractively), and the worker opens the target site with the note in its composer. Nothing is sent: the user
// reads it and sends it. Renders into <section id="handoff">.
const { SITES, handoffTargets } = globalThis.Whiteboard.sites;
const settingsStore = globalThis.Whiteboard.settings;
const { KIND } = globalThis.Whiteboard.wire;
const NOTE_TIMEOUT_MS = 120000; // a local model may take a while to write the note
const section = document.getElementById("handoff");

const worker = (envelope) => chrome.runtime.sendMessage(envelope);

async function currentTabId() {
  const asked = Number(new URLSearchParams(location.search).get("tab"));
  if (Number.isInteger(asked) && asked > 0) return asked;
  const [tab] = await chrome.tabs.query({ active: true, currentWindow: true });
  return tab ? tab.id : null;
}

function element(tag, props = {}) {
  return Object.assign(document.createElement(tag), props);
}

// The page records what it shows (the click is the user's act); a page that cannot
// answer (its content script is gone) still leaves what the host already holds.
function engage(tabId) {
  const asked = chrome.tabs.sendMessage(tabId, { kind: KIND.engage }).catch(() => null);
  return Promise.race([asked, new Promise((resolve) => setTimeout(resolve, 3000))]);
}

async function continueIn(tabId, key, target, buttons, status) {
  for (const b of buttons) b.disabled = true;
  status.textContent = "Writing the handoff note…";
  await engage(tabId);
  const note = await worker({ kind: KIND.host, message: { type: "handoff.summary", key }, timeoutMs: NOTE_TIMEOUT_MS });
  if (!note.ok) {
    for (const b of buttons) b.disabled = false;
    status.textContent = note.error.code === "not_found"
      ? "Nothing to hand off yet: this tab's conversation has not been recorded."
      : `Could not write the handoff note: ${note.error.message}`;
    return;
  }
  const opened = await worker({ kind: KIND.handoffOpen, site: target, text: note.text });
  for (const b of buttons) b.disabled = false;
  status.textContent = opened.ok
    ? `Opened ${SITES[target].label} with the note in its composer: read it, then send it yourself.`
    : `Could not open ${SITES[target].label}: ${opened.error.message}`;
}

async function render() {
  const tabId = await currentTabId();
  const [status, settings] = await Promise.all([
    Number.isInteger(tabId) ? worker({ kind: KIND.status, tabId }) : null, settingsStore.load()]);
  const site = status && status.page && SITES[status.page.site];
  const targets = site ? handoffTargets(site.id, settings.sites) : [];
  if (!targets.length || !status.key) {
    section.hidden = true;
    return;
  }
  const buttons = targets.map((target) => element("button", {
    type: "button", className: "handoff-button", textContent: `Continue in ${SITES[target].label}` }));
  buttons.forEach((button, i) => { button.dataset.site = targets[i]; });
  const hint = element("p", { className: "hint",
    textContent: "Opens that site with a summary of this conversation in its composer, for you to read and send." });
  const note = element("p", { id: "handoff-status", role: "status" });
  for (const button of buttons) {
    button.addEventListener("click", () => continueIn(tabId, status.key, button.dataset.site, buttons, note));
  }
  section.replaceChildren(element("h2", { textContent: "Handoff" }),
                          element("div", { id: "handoff-targets" }), hint, note);
  section.querySelector("#handoff-targets").append(...buttons);
  section.hidden = false;
}

render();
