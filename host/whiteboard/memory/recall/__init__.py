"""Recall: the RAM full-text index (FTS5 + BM25), what a send recalls (the pinned
memories, then those recalled), and the memories' block put into a draft.

May import: the base layer (text, ranking, privacy, blocks), the wire's errors and
`memory/model.py`. It takes the service as an argument and does not import it.
"""
