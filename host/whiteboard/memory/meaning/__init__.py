"""Meanings: the bundled embedding model or a remote endpoint, the meaning adapter and the
context gate, and the stored vectors and their search (MeaningIndexer).

May import: the base layer, `memory/model.py` and `memory/errors.py`, and llm's settings
(a remote embedding endpoint is the model's). numpy and the model load here, and only
when a memory is first recalled or stored, never at a host's start-up.
"""
