"""The encrypted store: the vault (SQLite, each row AES-GCM), its schema and migrations,
suggestions, usage counts, the memory settings file, import and export of memories.
(Per-site settings are read on every send, so they live below: whiteboard/sites.py.)

May import: the base layer (crypto, files, config, the encrypted settings store, sites, text),
the wire's errors and bounds, and `memory/model.py` and `memory/errors.py`. Not the
service above it, meanings or recall (not even for annotations).
"""
