"""Sync: the vault's memories on several computers, through a folder that a sync engine the
user already runs carries (Syncthing, a cloud drive), end-to-end encrypted (docs/sync.md).

`crdt.py` the merge (a hybrid logical clock, last-writer-wins registers per field, pure);
`passphrase.py` the sync key wrapped by a passphrase in the folder; `folder.py` the
change files (authenticated records, what is skipped and why); `exchange.py` one exchange
between the vault and the folder, and enable / join / disable / status.

Sits with extraction, above the service: it writes through the service's batch and the
vault's sync rows (store/sync_rows.py). May import the memory parts, the service, the base.
"""
