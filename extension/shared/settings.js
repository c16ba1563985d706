// User settings in chrome.storage.local, shared by the worker (imported as a module for
// its side effect), the popup and options pages and the content scripts (classic
// scripts): one file, so the defaults exist once. Nothing here holds chat content.
// Needs shared/sites.js and shared/wire.js loaded first.
(() => {
  const W = (globalThis.Whiteboard ??= {});
  if (W.settings) return;
  const { SITES } = W.sites;
  const { STORAGE } = W.wire;
  const DEFAULTS = Object.freeze({
    budget: 2000, // tokens for everything injected into one send
    // chat sites whose sends are handled: each site's default from the sites table
    sites: Object.freeze(Object.fromEntries(Object.values(SITES).map((site) => [site.id, site.enabled]))),
    paused: Object.freeze({}), // hostname -> true: Whiteboard does nothing on that site
    // On a site with long-term memory on, the draft goes to the host as typing pauses, so
    // its meaning is ready at Enter (chat.draft; design §14).
    prepareRecall: true,
  });
  const MIN_BUDGET = 100;
  const MAX_BUDGET = 20000;

  function normalise(stored) {
    const s = stored && typeof stored === "object" ? stored : {};
    const budget = Number.isInteger(s.budget) ? Math.min(MAX_BUDGET, Math.max(MIN_BUDGET, s.budget)) : DEFAULTS.budget;
    return {
      budget,
      sites: { ...DEFAULTS.sites, ...(s.sites && typeof s.sites === "object" ? s.sites : {}) },
      paused: { ...(s.paused && typeof s.paused === "object" ? s.paused : {}) },
      prepareRecall: typeof s.prepareRecall === "boolean" ? s.prepareRecall : DEFAULTS.prepareRecall,
    };
  }

  async function load() {
    const stored = await chrome.storage.local.get(STORAGE.settings);
    return normalise(stored[STORAGE.settings]);
  }

  async function update(change) {
    const next = normalise(change(await load()));
    await chrome.storage.local.set({ [STORAGE.settings]: next });
    return next;
  }

  function onChange(listener) {
    chrome.storage.onChanged.addListener((changes, area) => {
      if (area === "local" && changes[STORAGE.settings]) listener(normalise(changes[STORAGE.settings].newValue));
    });
  }

  const isPaused = (settings, hostname) => Boolean(settings.paused[hostname]);

  W.settings = Object.freeze({ DEFAULTS, MIN_BUDGET, MAX_BUDGET, normalise, load, update, onChange, isPaused });
})();
