// "Import chat history" on the memory page: the export the user chose (a ChatGPT or Claude
// zip, or its conversations.json; a Takeout zip or its MyActivity.json) read as a stream of
// text chunks small enough for native messaging (memory.import_chats, docs/protocol.md).
// A zip is read with the browser's own DecompressionStream: only the central directory and
// the chosen member are read from the file, never the whole of it at once. Nothing is kept:
// each chunk goes to the host and is let go.
(() => {
  const CHUNK_CHARS = 256 * 1024; // the host takes 512 Ki characters; JSON escapes may double a chunk's bytes
  const MAX_UNZIPPED = 4 * 1024 ** 3; // as the host's cap on a zip: a bomb stops here
  const EXPORT_NAME = /(?:^|\/)(?:conversations(?:-\d+)?|MyActivity|My Activity)\.json$/i;

  function refused(name, why) {
    return new Error(`${name} ${why}`);
  }

  async function zipMembers(file) {
    const tailSize = Math.min(file.size, 65557);
    const tail = new DataView(await file.slice(file.size - tailSize).arrayBuffer());
    let end = -1;
    for (let i = tail.byteLength - 22; i >= 0; i--) {
      if (tail.getUint32(i, true) === 0x06054b50) { end = i; break; }
    }
    if (end < 0) throw refused(file.name, "is not a readable zip (it may be cut short; download the export again)");
    const count = tail.getUint16(end + 10, true);
    const size = tail.getUint32(end + 12, true);
    const start = tail.getUint32(end + 16, true);
    if (start === 0xffffffff || start + size > file.size) {
      throw refused(file.name, "is a zip this page cannot read (over 4 GB, or cut short): unpack it and choose " +
        "its conversations.json");
    }
    const dir = new DataView(await file.slice(start, start + size).arrayBuffer());
    const members = [];
    let p = 0;
    for (let n = 0; n < count && p + 46 <= dir.byteLength; n++) {
      if (dir.getUint32(p, true) !== 0x02014b50) break;
      const nameLength = dir.getUint16(p + 28, true);
      const name = new TextDecoder().decode(new Uint8Array(dir.buffer, dir.byteOffset + p + 46, nameLength));
      members.push({ name, method: dir.getUint16(p + 10, true), compressed: dir.getUint32(p + 20, true),
                     size: dir.getUint32(p + 24, true), local: dir.getUint32(p + 42, true) });
      p += 46 + nameLength + dir.getUint16(p + 30, true) + dir.getUint16(p + 32, true);
    }
    return members.filter((m) => EXPORT_NAME.test(m.name)).sort((a, b) => a.name.localeCompare(b.name));
  }

  async function memberBytes(file, member) {
    const header = new DataView(await file.slice(member.local, member.local + 30).arrayBuffer());
    if (header.byteLength < 30 || header.getUint32(0, true) !== 0x04034b50) {
      throw refused(file.name, "is not a readable zip (it may be cut short; download the export again)");
    }
    const from = member.local + 30 + header.getUint16(26, true) + header.getUint16(28, true);
    const raw = file.slice(from, from + member.compressed).stream();
    if (member.method === 0) return raw;
    if (member.method !== 8) throw refused(file.name, "is compressed in a way this page cannot read");
    return raw.pipeThrough(new DecompressionStream("deflate-raw"));
  }

  // The JSON files of the export: [{ name, size, stream() }], each stream giving bytes.
  async function exportFiles(file) {
    const head = new Uint8Array(await file.slice(0, 2).arrayBuffer());
    if (head[0] !== 0x50 || head[1] !== 0x4b) return [{ name: file.name, size: file.size, stream: () => file.stream() }];
    const members = await zipMembers(file);
    if (!members.length) {
      throw refused(file.name, "holds no conversations.json or MyActivity.json: choose a ChatGPT, Claude or " +
        "Google Takeout (Gemini Apps) export");
    }
    // Progress counts unpacked bytes: the member's unpacked size (as the zip says) is the whole.
    return members.map((m) => ({ name: `${file.name}: ${m.name}`, size: m.size,
                                 stream: () => memberBytes(file, m) }));
  }

  // Text chunks of one export file, in order; `read(bytes)` reports each block of bytes read.
  async function* textChunks(entry, read) {
    const reader = (await entry.stream()).getReader();
    const decoder = new TextDecoder("utf-8", { fatal: true });
    let pending = "";
    let unzipped = 0;
    for (;;) {
      const { value, done } = await reader.read();
      if (value) {
        unzipped += value.byteLength;
        if (unzipped > MAX_UNZIPPED) throw refused(entry.name, "unpacks to more than 4 GiB; this is not an export");
        read(value.byteLength);
      }
      try {
        pending += done ? decoder.decode() : decoder.decode(value, { stream: true });
      } catch {
        throw refused(entry.name, "is not valid UTF-8; this is not an export");
      }
      while (pending.length >= CHUNK_CHARS || (done && pending.length)) {
        // Never split a surrogate pair: the host takes each chunk as text of its own.
        let cut = Math.min(CHUNK_CHARS, pending.length);
        const last = pending.charCodeAt(cut - 1);
        if (cut < pending.length && last >= 0xd800 && last <= 0xdbff) cut -= 1;
        yield pending.slice(0, cut);
        pending = pending.slice(cut);
      }
      if (done) return;
    }
  }

  globalThis.Whiteboard = globalThis.Whiteboard || {};
  globalThis.Whiteboard.history = { exportFiles, textChunks, CHUNK_CHARS };
})();
