"""Long-term memory (design §5), opt-in per site, encrypted at rest.

By capability, lowest first (design §1's table; tests/unit/test_layers.py checks it):
`model.py` and `errors.py` (what a memory is, its errors); `store/` (the vault and its
files), `meaning/` (embeddings, vectors) and `recall/` (search, recall into a send, the
block); `service.py` (the vault with its RAM indexes); `extract/` (turns into memories,
through the service); `hub.py` (one service per host). The rest of `whiteboard/` uses
it through `service.py` and `hub.py` (and `model.py`, `errors.py`) only: the test
checks that too.
"""
