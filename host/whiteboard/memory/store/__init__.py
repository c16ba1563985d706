"""The encrypted store: the vault (SQLite, each row AES-GCM), its schema and migrations,
suggestions, usage counts, the memory settings and per-site settings files, import and
export of memories.

May import: the base layer (crypto, files, config, the encrypted settings store, text),
the wire's errors and bounds, and `memory/model.py` and `memory/errors.py`. Not the
service above it (transfer.py names it for annotations only), meanings or recall.
"""
