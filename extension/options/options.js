// Options → What goes with a send (<section id="sends">): the token budget for injected
// context and whether drafts go to the host as typing pauses (recall prepared before
// Enter). Stored in chrome.storage.local (no chat content); saved as they change, a budget
// out of range is refused under its field and nothing is saved.
import { element, fieldError, fillSection, statusLine } from "./page.js";

const settingsStore = globalThis.Whiteboard.settings;
const { MIN_BUDGET, MAX_BUDGET } = settingsStore;

const section = document.getElementById("sends");
const status = statusLine("sends-status");
const budget = element("input", { id: "budget", name: "budget", type: "number", min: MIN_BUDGET, max: MAX_BUDGET,
                                  step: 10, required: true });
const budgetError = element("p", { id: "budget-error", className: "field-error", hidden: true });
const prepareRecall = element("input", { id: "prepare-recall", name: "prepare-recall", type: "checkbox" });
budget.setAttribute("aria-describedby", "budget-hint budget-error");
prepareRecall.setAttribute("aria-describedby", "prepare-recall-hint");

function render(settings) {
  if (document.activeElement !== budget) budget.value = settings.budget;
  prepareRecall.checked = settings.prepareRecall;
}

budget.addEventListener("change", async () => {
  const value = Number(budget.value);
  if (!budget.value.trim() || !Number.isInteger(value) || value < MIN_BUDGET || value > MAX_BUDGET) {
    fieldError(budget, budgetError, `Not saved: a whole number of tokens from ${MIN_BUDGET} to ${MAX_BUDGET}.`);
    return;
  }
  fieldError(budget, budgetError, "");
  render(await settingsStore.update((s) => ({ ...s, budget: value })));
  status.saved(`Saved: at most ${value} tokens are added to one send.`);
});
prepareRecall.addEventListener("change", async () => {
  const on = prepareRecall.checked;
  render(await settingsStore.update((s) => ({ ...s, prepareRecall: on })));
  status.saved(on ? "Saved: recall is prepared while you type." : "Saved: drafts reach the host only when you send.");
});

fillSection(section, "What goes with a send", "",
  element("div", { className: "field" },
    element("label", { htmlFor: "budget", textContent: "Token budget for what is added to one send" }), budget,
    element("p", { id: "budget-hint", className: "hint",
                   textContent: "Selections and earlier context added to a message never exceed this many tokens." }),
    budgetError),
  element("div", { className: "field check" },
    prepareRecall, element("label", { htmlFor: "prepare-recall", textContent: "Prepare recall while I type" }),
    element("p", { id: "prepare-recall-hint", className: "hint", textContent:
      "On a site where long-term memory is on, your draft is sent to the Whiteboard host on this computer when " +
      "you pause typing, so memories can be found by meaning the moment you press Enter. It is kept in memory " +
      "for that tab only, dropped after the send, and never written anywhere. Off: the draft reaches the host " +
      "only when you send, and a busy computer may find memories by words alone." })),
  status.node);

settingsStore.onChange(render); // the popup or another options tab changed them
render(await settingsStore.load());
