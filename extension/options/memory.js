// Options → Long-term memory (<section id="long-term-memory">): the token cap of pinned
// memories, the confidence under which extracted facts wait as suggestions and whether drafts
// go to the model endpoint as the user types to find which memories they need (off by default)
// (memory.settings on the host, shared by every browser), and a link to the memory manager.
// Which sites have it on is the Chat sites table's column (sites-table.js). Saved as they
// change; a value out of range is refused under its field and nothing is saved.
import { MANAGER_URL } from "../memory/opt-in.js";
import { element, fieldError, fillSection, statusLine } from "./page.js";

const section = document.getElementById("long-term-memory");
const { KIND } = globalThis.Whiteboard.wire;

const status = statusLine("memory-options-status");

// A number field of the host's memory.settings: its label, hint, range and inline error.
function numberField(id, label, hint, min, max, step) {
  const input = element("input", { type: "number", id, min, max, step, disabled: true });
  const error = element("p", { id: `${id}-error`, className: "field-error", hidden: true });
  input.setAttribute("aria-describedby", `${id}-hint ${id}-error`);
  const node = element("div", { className: "field" }, element("label", { htmlFor: id, textContent: label }), input,
                       element("p", { id: `${id}-hint`, className: "hint", textContent: hint }), error);
  return { input, error, node, min, max };
}

const pinned = numberField("pinned-tokens", "Tokens for pinned memories in each message",
  "Pinned memories (pin them in Manage memories) go first with every message, within this many tokens; " +
  "0 sends none. Recalled memories have their own room.", 0, 2000, 10);
const suggest = numberField("suggest-below", "Keep extracted facts from this confidence (%)",
  "Facts Whiteboard is less sure about wait in Manage memories as suggestions, unused until you accept them; " +
  "100 makes every fact wait for you.", 50, 100, 5);

// The user's own opt-in for sending drafts to their model endpoint (rewrite_drafts), apart
// from configuring the model: it says plainly what leaves the computer, and when.
const rewrite = element("input", { type: "checkbox", id: "rewrite-drafts", disabled: true });
rewrite.setAttribute("aria-describedby", "rewrite-drafts-hint");
const rewriteField = element("div", { className: "field check" }, rewrite,
  element("label", { htmlFor: "rewrite-drafts", textContent: "Let my model find which memories a draft needs" }),
  element("p", { id: "rewrite-drafts-hint", className: "hint", textContent:
    "While you type on a site with memory on, your draft is sent to your model endpoint to find which memories " +
    "it may need (such as diet or allergies for a restaurant question). Secrets and <private> text are removed " +
    "first, and only the draft's first 300 characters go. Needs a model (Model, below) and Prepare recall while " +
    "I type. Off: drafts never go to the model, and memories are found on this computer alone." }));

fillSection(section, "Long-term memory",
  "Turn it on per site in the Chat sites table. Where it is on, lasting facts you state (preferences, skills, " +
  "goals, background) are kept encrypted on this computer and added to later messages, shown above the composer first.",
  pinned.node, suggest.node, rewriteField,
  element("p", {}, element("a", { id: "memory-options-manage", href: MANAGER_URL, target: "_blank",
                                  textContent: "Manage memories" })),
  status.node);

// Read (no change) or change the memory settings; `said` tells what a change did.
async function memorySettings(change = {}, said = null) {
  const reply = await chrome.runtime.sendMessage({ kind: KIND.host, timeoutMs: 5000,
    message: { type: "memory.settings", ...change } });
  if (!reply || !reply.ok) {
    status.failed(`${said ? "Not saved: " : ""}${reply?.error?.message ?? "no answer from the Whiteboard host"}`);
    return;
  }
  pinned.input.value = reply.pinned_tokens;
  suggest.input.value = Math.round(reply.suggest_below * 100);
  rewrite.checked = reply.rewrite_drafts;
  pinned.input.disabled = suggest.input.disabled = rewrite.disabled = false;
  if (said) status.saved(said(reply));
}

function onValid(field, wanted, save) {
  field.input.addEventListener("change", () => {
    const value = Number(field.input.value);
    if (!field.input.value.trim() || !Number.isInteger(value) || value < field.min || value > field.max) {
      fieldError(field.input, field.error, `Not saved: ${wanted} from ${field.min} to ${field.max}.`);
      return;
    }
    fieldError(field.input, field.error, "");
    save(value);
  });
}

onValid(pinned, "a whole number", (value) => memorySettings({ pinned_tokens: value },
  (r) => `Saved: pinned memories get up to ${r.pinned_tokens} tokens per message.`));
onValid(suggest, "a whole percentage", (value) => memorySettings({ suggest_below: value / 100 },
  (r) => `Saved: extracted facts under ${Math.round(r.suggest_below * 100)}% confidence wait as suggestions.`));
rewrite.addEventListener("change", () => memorySettings({ rewrite_drafts: rewrite.checked },
  (r) => (r.rewrite_drafts ? "Saved: your drafts go to your model endpoint while you type, to find their memories."
    : "Saved: drafts no longer go to your model endpoint.")));
memorySettings();
