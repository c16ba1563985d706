// Options → Chat sites (<section id="sites">): one table, a row per chat site of the sites
// table (shared/sites.js) with its host names under its name, and a column per setting:
// Whiteboard on (settings.sites, chrome.storage), long-term memory (the host's site.settings,
// every host name of the site at once) and paused (settings.paused, per host name, with
// Resume). A change is saved as it is made and the status line under the table says so.
// The popup changes the same settings: the table follows chrome.storage, so both stay in step.
//
// Another setting per site is another column: addSiteColumn({id, heading, cell}) from its own
// module, loaded after this one; cell(site, status) returns the cell's content for one site
// (site: the sites table's entry; status: the table's statusLine).
import { siteMemory } from "../memory/opt-in.js";
import { element, fillSection, statusLine } from "./page.js";

const settingsStore = globalThis.Whiteboard.settings;
const { SITES } = globalThis.Whiteboard.sites;
const { STORAGE } = globalThis.Whiteboard.wire;

const section = document.getElementById("sites");
const status = statusLine("sites-status");
const head = element("tr", {}, element("th", { scope: "col", textContent: "Site" }));
const body = element("tbody");
const rows = Object.fromEntries(Object.values(SITES).map((site) => [site.id, element("tr", { id: `site-row-${site.id}` },
  element("th", { scope: "row" }, element("span", { className: "site-name", textContent: site.label }),
    ...site.hosts.map((hostname) => element("span", { className: "site-host", textContent: hostname }))))]));
body.append(...Object.values(rows));

export function addSiteColumn({ id, heading, cell }) {
  head.append(element("th", { scope: "col", id: `sites-col-${id}`, textContent: heading }));
  for (const site of Object.values(SITES)) {
    rows[site.id].append(element("td", { className: `col-${id}` }, cell(site, status)));
  }
}

// Settings in chrome.storage: every cell that shows them redraws when they change, from
// this page or the popup.
let settings = await settingsStore.load();
const redraws = [];
settingsStore.onChange((next) => {
  settings = next;
  for (const redraw of redraws) redraw();
});

function checkbox(id, name) {
  return element("input", { type: "checkbox", id, name, className: "site-switch" });
}

addSiteColumn({
  id: "on", heading: "Whiteboard on",
  cell(site) {
    const box = checkbox(`site-on-${site.id}`, site.id);
    box.setAttribute("aria-label", `Whiteboard on ${site.label}`);
    const draw = () => { box.checked = Boolean(settings.sites[site.id]); };
    redraws.push(draw);
    draw();
    box.addEventListener("change", async () => {
      const on = box.checked;
      await settingsStore.update((s) => ({ ...s, sites: { ...s.sites, [site.id]: on } }));
      status.saved(on ? `Saved: Whiteboard is on for ${site.label}.`
        : `Saved: Whiteboard is off for ${site.label}; sends there go through untouched.`);
    });
    return box;
  },
});

// Long-term memory is held by the host per host name; a site with two (Copilot) has one
// switch for both, shown half-set if they differ.
const memoryReads = [];
addSiteColumn({
  id: "memory", heading: "Long-term memory",
  cell(site) {
    const box = checkbox(`memory-site-${site.id}`, `memory-${site.id}`);
    box.setAttribute("aria-label", `Long-term memory on ${site.label}`);
    box.disabled = true;
    const read = async () => {
      const replies = await Promise.all(site.hosts.map((hostname) => siteMemory(hostname)));
      const failed = replies.find((r) => !r.ok);
      if (failed) {
        box.disabled = true;
        status.failed(`Long-term memory settings cannot be read: ${failed.error.message}`);
        return;
      }
      const on = replies.filter((r) => r.long_term).length;
      box.checked = on === replies.length;
      box.indeterminate = on > 0 && on < replies.length;
      box.disabled = false;
    };
    memoryReads.push(read);
    read();
    box.addEventListener("change", async () => {
      const on = box.checked;
      box.disabled = true;
      const replies = await Promise.all(site.hosts.map((hostname) => siteMemory(hostname, on)));
      const failed = replies.find((r) => !r.ok);
      await read();
      if (failed) status.failed(`Not saved: ${failed.error.message}`);
      else status.saved(`Saved: long-term memory is ${on ? "on" : "off"} for ${site.label}.`);
    });
    return box;
  },
});
// The popup's switch changes the host's setting and its mirror in chrome.storage.
chrome.storage.onChanged.addListener((changes, area) => {
  if (area === "local" && changes[STORAGE.memorySites]) for (const read of memoryReads) read();
});

addSiteColumn({
  id: "paused", heading: "Paused",
  cell(site) {
    const cell = element("div", { className: "paused-cell" });
    const draw = () => {
      const paused = site.hosts.filter((hostname) => settingsStore.isPaused(settings, hostname));
      if (!paused.length) {
        cell.replaceChildren(element("span", { className: "quiet", textContent: "No" }));
        return;
      }
      cell.replaceChildren(...paused.map((hostname) => {
        const resume = element("button", { type: "button", className: "resume", textContent: "Resume" });
        resume.dataset.host = hostname;
        resume.setAttribute("aria-label", `Resume on ${hostname}`);
        resume.addEventListener("click", async () => {
          await settingsStore.update((s) => {
            const next = { ...s.paused };
            delete next[hostname];
            return { ...s, paused: next };
          });
          status.saved(`Saved: resumed on ${hostname}.`);
        });
        return element("span", { className: "paused-host" },
          element("span", { textContent: site.hosts.length > 1 ? `${hostname} paused` : "Paused" }), resume);
      }));
    };
    redraws.push(draw);
    draw();
    return cell;
  },
});

fillSection(section, "Chat sites",
  "Where Whiteboard adds your selections and context to what you send. Off: sends go through untouched " +
  "(selection capture works on every site). Long-term memory: lasting facts you state there are kept, " +
  "encrypted on this computer, and added to later messages. Pause a site from the popup.",
  element("table", { id: "sites-table" }, element("thead", {}, head), body), status.node);
