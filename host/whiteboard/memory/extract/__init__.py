"""Extraction: turns into memories. Rules, the statement parser and the learned
classifier find candidates; the model may propose them too; dedupe decides new, update
or duplicate; conversation.py schedules it per tab and writes through the service.

May import: the base layer, the wire's errors, `memory/model.py`, `memory/errors.py`,
store/, recall/ (the index for dedupe, the block format to strip) and `memory/service.py`.
"""
