// "Meanings indexed 3,200 / 10,000": how far the host's meaning (embedding) index is, from
// memory.status, polled while it is indexing. Used by the memory page (#meanings, attached
// on load) and the popup's memory section (watchMeanings on its own node).
import "../shared/wire.js";

const { KIND } = globalThis.Whiteboard.wire;
const POLL_MS = 2000;
const number = new Intl.NumberFormat("en");

export function meaningsText(m) {
  if (m.state === "off") {
    return `Recall by meaning is off on this computer (${m.reason}): memories are found by their words only.`;
  }
  if (m.state === "loading") return "Loading the meaning model…";
  const done = `Meanings indexed ${number.format(m.indexed)} / ${number.format(m.total)}`;
  if (m.state === "indexing") return `${done}; until then the others are found by their words.`;
  if (m.state === "retrying") {
    return `${done}, stopped: ${m.reason}. ` +
      "Whiteboard tries again every 30 seconds; meanwhile the others are found by their words.";
  }
  return m.total ? `Recall by meaning is on: ${number.format(m.indexed)} memories indexed.` : "";
}

// memory.status's meanings.set_aside (how many) and set_aside (the first few, by id): the
// memories the embedding model refused; never their text.
export function setAsideText(count, setAside = []) {
  if (!count) return "";
  const more = count - setAside.length;
  const named = setAside.map((s) => s.memory_id).join(", ") + (more > 0 ? ` and ${number.format(more)} more` : "");
  const why = setAside.length ? ` (${setAside[0].problem})` : "";
  return count === 1 ?
    `1 memory could not be indexed, ${named}: the model refused it${why}. ` +
      "It is found by its words, and tried again when you edit it or in an hour." :
    `${number.format(count)} memories could not be indexed, ${named}: the model refused them${why}. ` +
      "They are found by their words, and tried again when edited or in an hour.";
}

export function suggestionsText(count) {
  if (!count) return "";
  return count === 1 ? "1 suggested memory waits for your Accept or Discard on the memory page." :
    `${number.format(count)} suggested memories wait for your Accept or Discard on the memory page.`;
}

// memory.status's synced: when memories last arrived from the user's other computers.
export function syncedText(synced, now = Date.now()) {
  if (!synced || !synced.arrived || now - synced.at * 1000 > 24 * 3600 * 1000) return "";
  const from = synced.computers.length ? ` from ${synced.computers.join(", ")}` : " from another computer";
  const when = new Date(synced.at * 1000).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
  return synced.arrived === 1 ? `1 memory arrived${from} at ${when}.` :
    `${number.format(synced.arrived)} memories arrived${from} at ${when}.`;
}

// Shows the line in `node` and keeps it current while indexing; returns a stop function.
// `suggestionsNode` (the popup's) also gets how many extracted facts wait for the user.
export function watchMeanings(node, suggestionsNode = null) {
  let timer = null;
  let stopped = false;
  async function poll() {
    const reply = await chrome.runtime.sendMessage({ kind: KIND.host, message: { type: "memory.status" }, timeoutMs: 5000 })
      .catch(() => null);
    if (stopped) return;
    if (!reply || !reply.ok) {
      node.textContent = "";
      if (suggestionsNode) suggestionsNode.textContent = "";
      return;
    }
    if (suggestionsNode) {
      suggestionsNode.textContent = [suggestionsText(reply.suggestions), syncedText(reply.synced)].filter(Boolean).join(" ");
    }
    const damaged = reply.damaged_vectors.map((d) => d.memory_id);
    const setAside = setAsideText(reply.meanings.set_aside, reply.set_aside);
    node.textContent = meaningsText(reply.meanings) + (damaged.length ?
      ` The stored meaning of ${damaged.join(", ")} cannot be read (kept as it is); found by words only.` : "") +
      (setAside ? ` ${setAside}` : "");
    if (["loading", "indexing", "retrying"].includes(reply.meanings.state)) timer = setTimeout(poll, POLL_MS);
  }
  poll();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}

const pageLine = document.getElementById("meanings");
if (pageLine) watchMeanings(pageLine);
