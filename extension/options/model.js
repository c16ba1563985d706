// Options → Model: the OpenAI-compatible endpoint the host uses (preset, base URL, model,
// API key) and a Test button. Everything lives on the host (llm.settings.get/set, llm.test):
// the API key goes to the host once, where it is stored encrypted, and is never kept in
// chrome.storage or sent back; this page only learns whether one is set.
// Renders into <section id="model">. The API key waits for Save (it is sent once); Test
// contacts the endpoint, nothing else on this page does.
import { element, fillSection } from "./page.js";

const section = document.getElementById("model");
const TEST_TIMEOUT_MS = 60000; // a local model may load on its first request

const { KIND, REASON } = globalThis.Whiteboard.wire;
const host = (message, timeoutMs = 5000) => chrome.runtime.sendMessage({ kind: KIND.host, message, timeoutMs });


// A labelled control with its hint (text or a node) as its description.
function field(label, input, hint) {
  const parts = [element("label", { htmlFor: input.id, textContent: label }), input];
  if (hint) {
    const node = typeof hint === "string" ? element("span", { className: "hint", textContent: hint }) : hint;
    node.id ||= `${input.id}-hint`;
    input.setAttribute("aria-describedby", node.id);
    parts.push(node);
  }
  return element("div", { className: "model-field" }, ...parts);
}

const ui = {
  preset: element("select", { id: "model-preset", name: "preset" }),
  note: element("span", { id: "model-preset-note", className: "hint" }),
  baseUrl: element("input", { id: "model-base-url", name: "base_url", type: "url", placeholder: "http://localhost:11434/v1", autocomplete: "off" }),
  model: element("input", { id: "model-name", name: "model", type: "text", placeholder: "model name", autocomplete: "off" }),
  apiKey: element("input", { id: "model-api-key", name: "api_key", type: "password", autocomplete: "off",
                             placeholder: "leave empty to keep the current key" }),
  keyState: element("p", { id: "model-key-state", className: "hint" }),
  clearKey: element("button", { type: "button", id: "model-clear-key", textContent: "Forget the key" }),
  env: element("p", { id: "model-env", className: "hint", hidden: true }),
  // The model's settings wait for Save (the key is sent once, a new URL may need confirming);
  // Enter in a field saves too.
  save: element("button", { type: "button", id: "model-save", textContent: "Save model" }),
  test: element("button", { type: "button", id: "model-test", textContent: "Test" }),
  status: element("p", { id: "model-status", role: "status" }),
};
let presets = [];

// Until one is chosen (preset "") the list starts with a line saying so, never blank.
function render(settings) {
  presets = settings.presets;
  const choose = settings.preset ? [] : [element("option", { value: "", textContent: "Choose an endpoint…" })];
  ui.preset.replaceChildren(...choose, ...presets.map((p) => element("option", { value: p.name, textContent: p.label })));
  ui.preset.value = settings.preset;
  showNote();
  ui.baseUrl.value = settings.base_url;
  ui.model.value = settings.model;
  ui.apiKey.value = "";
  ui.keyState.textContent = {
    stored: "API key: set (stored encrypted by the host on this computer).",
    env: "API key: set by WHITEBOARD_LLM_API_KEY in the browser's environment.",
    none: "API key: not set.",
  }[settings.api_key_source];
  ui.clearKey.hidden = settings.api_key_source !== "stored";
  ui.env.hidden = !settings.overridden_by_env.length;
  ui.env.textContent = `Overridden by the environment: ${settings.overridden_by_env.join(", ")} (these win over what is saved here).`;
  section.dataset.configured = String(settings.configured);
}

function setStatus(text, error = false) {
  ui.status.textContent = text;
  ui.status.className = error ? "error" : "";
}

function showNote() {
  const chosen = presets.find((p) => p.name === ui.preset.value);
  ui.note.textContent = chosen ? chosen.note : "Local servers keep everything on this computer; hosted ones need an API key.";
}

// A preset fills in its base URL and default model; either can still be edited. Nothing is
// contacted until Test (or a feature) uses the model.
ui.preset.addEventListener("change", () => {
  showNote();
  const chosen = presets.find((p) => p.name === ui.preset.value);
  if (!chosen) return;
  ui.baseUrl.value = chosen.base_url;
  ui.model.value = chosen.default_model;
});

// The host refuses http:// to another computer unless the user allows it (docs/models.md).
function confirmInsecure(url) {
  return confirm(`${url} is http:// to another computer: the API key and every prompt would cross the network ` +
                 "unencrypted, readable by anyone on the way.\n\nUse it anyway? Only on a network you trust; " +
                 "https:// is safe.");
}

async function save(extra = {}) {
  const message = { type: "llm.settings.set", base_url: ui.baseUrl.value.trim(), model: ui.model.value.trim(), ...extra };
  if (ui.preset.value) message.preset = ui.preset.value;
  if (ui.apiKey.value.trim()) message.api_key = ui.apiKey.value.trim();
  let reply = await host(message);
  if (!reply.ok && reply.error.reason === REASON.insecureUrl && confirmInsecure(message.base_url)) {
    reply = await host({ ...message, allow_insecure: true });
  }
  if (!reply.ok) {
    setStatus(`Not saved: ${reply.error.message}`, true); // the fields keep what was typed
    return;
  }
  render(reply);
  setStatus(reply.configured ? "Saved." : "Saved. Give a base URL and a model to use a model.");
}

async function test() {
  ui.test.disabled = true;
  setStatus("Testing…");
  const reply = await host({ type: "llm.test" }, TEST_TIMEOUT_MS);
  ui.test.disabled = false;
  if (reply.ok) setStatus(`OK: ${reply.model} at ${reply.endpoint} answered in ${reply.latency_ms} ms.`);
  else setStatus(`Test failed: ${reply.error.message}`, true);
}

async function load() {
  const reply = await host({ type: "llm.settings.get" });
  if (!reply.ok) {
    fillSection(section, "Model", "",
      element("p", { id: "model-status", className: "error", textContent: `Cannot read the model settings: ${reply.error.message}` }));
    return;
  }
  const form = element("form", { id: "model-form" },
    field("Endpoint", ui.preset, ui.note),
    field("Base URL", ui.baseUrl, "Everything before /chat/completions."),
    field("Model", ui.model),
    field("API key", ui.apiKey, "Sent to the Whiteboard host, which stores it encrypted; never kept in the browser."),
    ui.keyState, ui.clearKey, ui.env,
    element("div", { className: "model-actions" }, ui.save, ui.test), ui.status);
  form.addEventListener("submit", (event) => event.preventDefault());
  form.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && event.target instanceof HTMLInputElement) {
      event.preventDefault();
      save();
    }
  });
  ui.save.addEventListener("click", () => save());
  ui.clearKey.addEventListener("click", () => save({ clear_api_key: true }));
  ui.test.addEventListener("click", test);
  fillSection(section, "Model", "Optional. Answers questions about a selection, writes the rolling summary and " +
    "handoff notes. Any OpenAI-compatible endpoint, on this computer or hosted.", form);
  render(reply);
}

load();
