// The popup: connection state (with the next step when the host is missing), the current
// tab's page and session (messages, token meter, distilled), clear this tab, clear all,
// pause on this site. `?tab=<id>` shows a given tab (the popup opened as a page).
const settingsStore = globalThis.Whiteboard.settings;
const { SITES } = globalThis.Whiteboard.sites;
const { KIND } = globalThis.Whiteboard.wire;
const SHOWN = 10;
const CLIP = 240;
const $ = (id) => document.getElementById(id);

const worker = (envelope) => chrome.runtime.sendMessage(envelope);
const host = (message) => worker({ kind: KIND.host, message, timeoutMs: 3000 });

async function currentTabId() {
  const asked = Number(new URLSearchParams(location.search).get("tab"));
  if (Number.isInteger(asked) && asked > 0) return asked;
  const [tab] = await chrome.tabs.query({ active: true, currentWindow: true });
  return tab ? tab.id : null;
}

function renderConnection({ state, lastError, hostMissing, mismatch, host: info }) {
  $("connection").dataset.state = state === "connected" && mismatch ? "mismatch" : state;
  const next = $("next-step");
  next.hidden = state !== "disconnected" && !(state === "connected" && mismatch);
  $("retry").hidden = next.hidden;
  if (state === "connected" && mismatch) {
    renderMismatch(mismatch, info, next);
  } else if (state === "connected") {
    $("connection-text").textContent = `Connected to the Whiteboard host ${info ? info.version : ""}`.trim();
  } else if (state === "connecting") {
    $("connection-text").textContent = "Connecting to the Whiteboard host…";
  } else if (hostMissing) {
    $("connection-text").textContent = "Whiteboard host not found";
    next.replaceChildren("The host is not installed for this browser. In a terminal run ",
                         code("whiteboard install"), ", then press Retry. Sends go through unchanged meanwhile.");
  } else {
    $("connection-text").textContent = "Whiteboard host not connected";
    next.replaceChildren(`Reason: ${lastError || "unknown"}. Retrying on its own; `, code("whiteboard doctor"),
                         " shows what is wrong. Sends go through unchanged meanwhile.");
  }
}

// The host speaks a protocol this extension does not (background/native-port.js decides
// which side is older): say which to update, with the command that does it.
function renderMismatch(mismatch, info, next) {
  const manifest = chrome.runtime.getManifest();
  const mine = manifest.version_name || manifest.version;
  const theirs = info && info.version ? ` ${info.version}` : "";
  if (mismatch === "host_older") {
    $("connection-text").textContent = `Whiteboard's helper${theirs} is older than this extension (${mine})`;
    next.replaceChildren("Update the helper: in a terminal run ", code("pipx upgrade whiteboard && whiteboard install"),
                         " (from a checkout: ", code("git pull && bash installers/install.sh"),
                         "), then press Retry. Sends go through meanwhile, perhaps without Whiteboard's context.");
  } else {
    $("connection-text").textContent = `This extension (${mine}) is older than Whiteboard's helper${theirs}`;
    next.replaceChildren("Update the extension: on chrome://extensions, Load unpacked the folder that ",
                         code("whiteboard extension path"), " prints (or Update, for a store install). ",
                         "Sends go through meanwhile, perhaps without Whiteboard's context.");
  }
}

function code(text) {
  const el = document.createElement("code");
  el.textContent = text;
  return el;
}

function renderPage(page, settings) {
  const paused = page && settingsStore.isPaused(settings, page.hostname);
  $("page-host").textContent = page ? page.hostname : "This tab";
  $("pause").disabled = !page;
  $("pause").textContent = paused ? "Resume on this site" : "Pause on this site";
  $("clear-tab").disabled = !page;
  let text;
  if (!page) text = "Whiteboard does not run on this page.";
  else if (paused) text = "Paused on this site: Whiteboard does nothing here.";
  else if (!page.site) text = "Select text to add it to this tab's session.";
  else if (!settings.sites[page.site]) text = `${SITES[page.site].label} is turned off in Options: sends go through untouched.`;
  else if (!page.adapter || page.adapter.state === "looking") text = `${SITES[page.site].label}: looking for the chat…`;
  else if (page.adapter.state === "attached") text = `${SITES[page.site].label}: attached. Sends get your selections and context.`;
  else text = `${SITES[page.site].label} page not recognised (${page.adapter.detail}). Sends go through; Whiteboard may need an update.`;
  $("page-text").textContent = text;
}

function renderSession(reply) {
  const list = $("messages");
  list.replaceChildren();
  const meter = document.querySelector(".meter");
  if (!reply || !reply.ok) {
    meter.hidden = true;
    $("session-summary").textContent = !reply || reply.error.code === "not_found"
      ? "Nothing captured in this tab yet." : `Could not read the session: ${reply.error.message}`;
    return;
  }
  const n = reply.messages.length;
  const kept = reply.kept;
  $("session-summary").textContent = `${n} message${n === 1 ? "" : "s"} · ${reply.used_tokens} / ${reply.budget} tokens · ` +
    (reply.distilled
      ? `distilled: ${kept.full} in full, ${kept.shortened} shortened, ${kept.summarised} only in the summary`
      : "nothing distilled");
  meter.hidden = false;
  const pct = Math.min(100, Math.round((100 * reply.used_tokens) / Math.max(1, reply.budget)));
  $("meter-fill").style.width = `${pct}%`;
  $("meter-fill").classList.toggle("full", pct >= 90);
  for (const m of reply.messages.slice(-SHOWN).reverse()) {
    const item = document.createElement("li");
    const role = document.createElement("span");
    role.className = "role";
    role.textContent = m.source === "selection" ? "selection" : m.role;
    item.append(role, m.content.length > CLIP ? `${m.content.slice(0, CLIP)}…` : m.content);
    list.append(item);
  }
}

let state = { tabId: null, key: null, page: null };

async function refresh() {
  const [status, settings] = await Promise.all([worker({ kind: KIND.status, tabId: state.tabId }), settingsStore.load()]);
  state = { ...state, key: status.key, page: status.page };
  renderConnection(status.connection);
  renderPage(status.page, settings);
  renderSession(status.key && status.connection.state === "connected" ? await host({ type: "session.get", key: status.key }) : null);
  document.body.dataset.ready = "true"; // for tests and screenshots: the first render is done
  const connected = status.connection.state === "connected"; // feature sections (export.js) render from this
  document.dispatchEvent(new CustomEvent("whiteboard:popup-refreshed", { detail: { key: status.key, page: status.page, connected } }));
  return status.connection.state;
}

function notice(text) {
  $("notice").textContent = text;
}

document.addEventListener("whiteboard:popup-refresh", refresh); // a feature section changed the session
settingsStore.onChange(refresh); // Options changed a site's switch or pause: one settings source
$("retry").addEventListener("click", async () => {
  await worker({ kind: KIND.reconnect });
  // A host starting on a busy machine may take seconds: show it once it answers (or fails).
  for (let tries = 0; tries < 40; tries += 1) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    if ((await refresh()) !== "connecting") break;
  }
});
$("clear-tab").addEventListener("click", async () => {
  if (!state.key) return;
  const reply = await host({ type: "session.clear", key: state.key });
  notice(reply.ok ? "This tab's session is cleared." : reply.error.message);
  refresh();
});
$("clear-all").addEventListener("click", async () => {
  const reply = await host({ type: "session.clear_all" });
  notice(reply.ok ? `Cleared ${reply.cleared} session${reply.cleared === 1 ? "" : "s"}.` : reply.error.message);
  refresh();
});
$("pause").addEventListener("click", async () => {
  if (!state.page) return;
  const hostname = state.page.hostname;
  const settings = await settingsStore.update((s) => {
    const paused = { ...s.paused };
    if (paused[hostname]) delete paused[hostname];
    else paused[hostname] = true;
    return { ...s, paused };
  });
  notice(settingsStore.isPaused(settings, hostname) ? `Paused on ${hostname}.` : `Resumed on ${hostname}.`);
  refresh();
});

state.tabId = await currentTabId();
refresh();
