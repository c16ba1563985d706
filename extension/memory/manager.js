// The memory manager: search, edit, pin, delete, export, import and wipe long-term memories;
// accept or discard the suggestions (facts extracted with too little confidence to keep).
// Everything goes to the host through the service worker (KIND.host). Memory text
// is only ever set as textContent / value: a memory holding HTML shows as text.
const $ = (id) => document.getElementById(id);
const { KIND, REASON } = globalThis.Whiteboard.wire;
const PAGE = 50;
const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
let offset = 0;
let total = 0;

async function host(message, timeoutMs = 5000) {
  const reply = await chrome.runtime.sendMessage({ kind: KIND.host, message, timeoutMs });
  if (!reply || !reply.ok) {
    const error = (reply && reply.error) || { message: "no answer from the Whiteboard host" };
    throw Object.assign(new Error(error.message), { reason: error.reason });
  }
  return reply;
}

function say(text, isError = false) {
  $("status").textContent = text;
  $("status").className = isError ? "error" : "";
}

function monthOf(seconds) {
  const d = new Date(seconds * 1000);
  return `${MONTHS[d.getMonth()]} ${d.getFullYear()}`;
}

// The parts a memory and a suggestion show alike.
function filled(template, fact, when) {
  const item = $(template).content.firstElementChild.cloneNode(true);
  const q = (sel) => item.querySelector(sel);
  q(".type").textContent = fact.type;
  q(".when").textContent = monthOf(when);
  q(".site").textContent = [fact.site && `from ${fact.site}`, fact.origin].filter(Boolean).join(", ");
  q(".confidence").textContent = `confidence ${Math.round(fact.confidence * 100)}%`;
  q(".text").textContent = fact.text;
  return [item, q];
}

function suggestionRow(suggestion) {
  const [item, q] = filled("suggestion", suggestion, suggestion.created_at);
  q(".do-accept").addEventListener("click", () => act(async () => {
    await host({ type: "memory.accept", suggestion_id: suggestion.suggestion_id });
    return "Accepted: it is a memory now.";
  }));
  q(".do-discard").addEventListener("click", () => act(async () => {
    await host({ type: "memory.discard", suggestion_id: suggestion.suggestion_id });
    return "Discarded: it will not be suggested again.";
  }));
  return item;
}

function row(memory) {
  const [item, q] = filled("row", memory, memory.updated_at);
  q(".used").textContent = memory.usage_count ? `used ${memory.usage_count}×` : "";
  item.classList.toggle("pinned", memory.pinned);
  q(".pin-badge").hidden = !memory.pinned;
  const pin = q(".do-pin");
  pin.textContent = memory.pinned ? "Unpin" : "Pin";
  pin.setAttribute("aria-pressed", String(memory.pinned));
  pin.addEventListener("click", () => act(async () => {
    await host({ type: "memory.update", memory_id: memory.memory_id, pinned: !memory.pinned });
    return memory.pinned ? "Unpinned: it goes only when a message recalls it."
      : "Pinned: it goes first with every message on sites where long-term memory is on.";
  }));
  const edit = q(".edit");
  const area = edit.querySelector("textarea");
  q(".do-edit").addEventListener("click", () => {
    area.value = memory.text;
    edit.hidden = false;
    area.focus();
  });
  q(".cancel").addEventListener("click", () => { edit.hidden = true; });
  q(".save").addEventListener("click", () => act(async () => {
    // The revision the text was read at: an edit made elsewhere meanwhile is a conflict, never overwritten.
    await host({ type: "memory.update", memory_id: memory.memory_id, text: area.value, rev: memory.rev });
    return "Saved. The earlier text is kept under “Earlier texts”.";
  }));
  q(".do-history").addEventListener("click", () => act(async () => {
    const { memory: full } = await host({ type: "memory.get", memory_id: memory.memory_id });
    const list = q(".history");
    list.replaceChildren(...(full.old_texts.length ? full.old_texts : [null]).map((old) => {
      const li = document.createElement("li");
      li.textContent = old ? `${old.text} (until ${monthOf(old.replaced_at)})` : "No earlier texts.";
      return li;
    }));
    list.hidden = !list.hidden;
  }, false));
  q(".do-delete").addEventListener("click", () => {
    if (!confirm(`Delete this memory?\n\n${memory.text}`)) return;
    act(async () => {
      await host({ type: "memory.delete", memory_id: memory.memory_id, rev: memory.rev });
      return "Deleted.";
    });
  });
  return item;
}

async function refresh() {
  const query = $("query").value.trim();
  const message = { type: "memory.list", offset, limit: PAGE };
  if (query) message.query = query;
  if ($("type").value) message.memory_type = $("type").value;
  const reply = await host(message);
  total = reply.total;
  $("list").replaceChildren(...reply.memories.map(row));
  if (!reply.memories.length) {
    const empty = document.createElement("li");
    empty.textContent = query ? "Nothing matches." : "No memories yet.";
    $("list").append(empty);
  }
  $("damaged").replaceChildren(...reply.damaged.map((d) => {
    const li = document.createElement("li");
    li.textContent = `Memory ${d.memory_id} cannot be read: ${d.problem}`;
    return li;
  }));
  $("page").textContent = total ? `${offset + 1}–${Math.min(offset + PAGE, total)} of ${total}` : "";
  $("prev").disabled = offset === 0;
  $("next").disabled = offset + PAGE >= total;
  const waiting = await host({ type: "memory.suggestions" });
  $("suggestions").replaceChildren(...waiting.suggestions.map(suggestionRow));
  $("suggestions-section").hidden = !waiting.suggestions.length;
  $("damaged").append(...waiting.damaged.map((d) => {
    const li = document.createElement("li");
    li.textContent = `Suggestion ${d.memory_id} cannot be read: ${d.problem}`;
    return li;
  }));
}

// Run an action, then show the list as it now is, then the action's outcome (the text it
// returns), so the status never runs ahead of the list; errors are shown, never thrown away.
async function act(fn, reload = true) {
  try {
    const outcome = await fn();
    if (reload) await refresh();
    if (typeof outcome === "string") say(outcome);
  } catch (err) {
    // Changed elsewhere since it was shown: show it as it is now, then say so.
    if (err.reason === REASON.conflict) await refresh().catch(() => {});
    say(err.message, true);
  }
}

async function exportAll() {
  const memories = [];
  let document_ = null;
  let next = 0;
  while (next !== null) {
    const reply = await host({ type: "memory.export", offset: next }, 30000);
    document_ = reply.document;
    memories.push(...reply.document.memories);
    next = reply.next_offset;
  }
  const blob = new Blob([JSON.stringify({ ...document_, memories }, null, 2)], { type: "application/json" });
  const link = document.createElement("a");
  link.href = URL.createObjectURL(blob);
  link.download = `whiteboard-memories-${new Date().toISOString().slice(0, 10)}.json`;
  link.click();
  setTimeout(() => URL.revokeObjectURL(link.href), 10000);
  return `Exported ${memories.length} memories.`;
}

async function importFile(file) {
  let document_;
  try {
    document_ = JSON.parse(await file.text());
  } catch {
    throw new Error(`${file.name} is not a JSON file`);
  }
  const r = await host({ type: "memory.import", document: document_ }, 60000);
  return `Imported: ${r.added} added, ${r.updated} updated, ${r.unchanged} unchanged.`;
}

// "Import chat history": the export streamed to the host chunk by chunk (history.js), each
// chunk sent when the host has read the one before; what is found waits as suggestions.
let historyCancelled = false;

async function importHistory(file) {
  const { exportFiles, textChunks } = globalThis.Whiteboard.history;
  const files = await exportFiles(file);
  const total = files.reduce((sum, f) => sum + f.size, 0) || 1;
  let read = 0;
  let found = 0;
  let conversations = 0;
  let stopped = null;
  historyCancelled = false;
  $("history").hidden = false;
  const show = (turns, facts) => {
    $("history-bar").value = Math.min(1, read / total);
    $("history-progress").textContent = `${Math.round(100 * Math.min(1, read / total))}% read: ` +
      `${turns} of your messages, ${facts} facts found`;
  };
  try {
    for (const entry of files) {
      const importId = `imp_${crypto.randomUUID().replaceAll("-", "")}`;
      const chunks = textChunks(entry, (bytes) => { read += bytes; });
      let next = await chunks.next();
      for (let seq = 0; !next.done; seq++) {
        if (historyCancelled) {
          await host({ type: "memory.import_chats_cancel", import_id: importId });
          return "Import cancelled: nothing more was kept; what you approved before stays.";
        }
        const text = next.value;
        next = await chunks.next();
        const r = await host({ type: "memory.import_chats", import_id: importId, seq, text, last: next.done },
                             120000);
        show(r.turns, r.facts);
        if (r.done) {
          found += r.suggested.length;
          conversations += r.conversations;
          stopped = stopped || r.stopped;
        }
      }
    }
  } finally {
    $("history").hidden = true;
  }
  const more = stopped ? " Suggestions are full: go through them, then import the same file again to read the rest."
    : "";
  return `Read ${conversations} conversations: ${found} facts wait under Suggestions for you to accept or ` +
    `discard.${more}`;
}

let searchTimer = null;
$("query").addEventListener("input", () => {
  clearTimeout(searchTimer);
  searchTimer = setTimeout(() => { offset = 0; act(refresh, false); }, 200);
});
$("type").addEventListener("change", () => { offset = 0; act(refresh, false); });
$("prev").addEventListener("click", () => { offset = Math.max(0, offset - PAGE); act(refresh, false); });
$("next").addEventListener("click", () => { offset += PAGE; act(refresh, false); });
$("export").addEventListener("click", () => act(exportAll, false));
// A real button opens the hidden file input: a label is not reachable from the keyboard.
$("import-button").addEventListener("click", () => $("import").click());
$("history-button").addEventListener("click", () => $("history-file").click());
$("import").addEventListener("change", (event) => {
  const file = event.target.files[0];
  event.target.value = "";
  if (file) act(() => importFile(file));
});
$("history-file").addEventListener("change", (event) => {
  const file = event.target.files[0];
  event.target.value = "";
  if (file) act(() => importHistory(file));
});
$("history-cancel").addEventListener("click", () => { historyCancelled = true; });
$("wipe").addEventListener("click", () => {
  const answer = prompt(`Delete all ${total} memories? This cannot be undone. Type DELETE to confirm.`);
  if (answer !== "DELETE") return;
  act(async () => {
    const r = await host({ type: "memory.wipe", confirm: true }, 30000);
    return `Deleted ${r.deleted} memories.`;
  });
});
$("add").addEventListener("submit", (event) => {
  event.preventDefault();
  act(async () => {
    const r = await host({ type: "memory.add", text: $("add-text").value, memory_type: $("add-type").value });
    $("add-text").value = "";
    return r.created ? "Added." : "That memory was already kept.";
  });
});

act(refresh, false);
act(async () => {
  $("pinned-tokens").textContent = (await host({ type: "memory.settings" })).pinned_tokens;
}, false);
