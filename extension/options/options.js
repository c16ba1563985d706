// Options: the token budget for injected context, which chat sites are handled, whether
// drafts go to the host as typing pauses (recall prepared before Enter), and the sites
// paused from the popup. Stored in chrome.storage.local (no chat content).
const settingsStore = globalThis.Whiteboard.settings;
const { SITES } = globalThis.Whiteboard.sites;
const $ = (id) => document.getElementById(id);

function render(settings) {
  $("budget").value = settings.budget;
  $("budget").min = settingsStore.MIN_BUDGET;
  $("budget").max = settingsStore.MAX_BUDGET;
  $("prepare-recall").checked = settings.prepareRecall;
  $("sites").replaceChildren(...Object.entries(SITES).map(([site, info]) => {
    const label = document.createElement("label");
    label.className = "site";
    const box = document.createElement("input");
    box.type = "checkbox";
    box.name = site;
    box.checked = Boolean(settings.sites[site]);
    label.append(box, ` ${info.label} (${info.hosts.join(", ")})`);
    return label;
  }));
  const paused = Object.keys(settings.paused);
  $("paused").replaceChildren(...(paused.length ? paused : [null]).map((hostname) => {
    const item = document.createElement("li");
    if (!hostname) {
      item.textContent = "None.";
      return item;
    }
    const resume = document.createElement("button");
    resume.type = "button";
    resume.textContent = "Resume";
    resume.addEventListener("click", async () => render(await settingsStore.update((s) => {
      const next = { ...s.paused };
      delete next[hostname];
      return { ...s, paused: next };
    })));
    item.append(`${hostname} `, resume);
    return item;
  }));
}

$("form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const budget = Number($("budget").value);
  const sites = Object.fromEntries(Object.keys(SITES).map((site) => [site, $("sites").querySelector(`[name="${site}"]`).checked]));
  const prepareRecall = $("prepare-recall").checked;
  const saved = await settingsStore.update((s) => ({ ...s, budget: Math.round(budget), sites, prepareRecall }));
  render(saved);
  $("saved").textContent = "Saved.";
});

render(await settingsStore.load());
