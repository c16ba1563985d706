"""Meanings: the bundled embedding model or a remote endpoint, the meaning adapter and the
context gate, the stored vectors and their search (MeaningIndexer), and drafts' meanings and
rewrites made while the user types.

May import: the base layer, `memory/model.py` and `memory/errors.py`, and llm's settings
and endpoint (a remote embedding endpoint is the model's; a draft's rewrite asks the chat
model within its own time limits). numpy and the model load here, and only
when a memory is first recalled or stored, never at a host's start-up.
"""
