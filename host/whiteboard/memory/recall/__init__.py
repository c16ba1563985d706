"""Recall: the RAM full-text index (FTS5 + BM25), what a send recalls and how it is
counted, and the memory block put into a draft (its format and stripping).

May import: the base layer (text, ranking, privacy), the wire's errors and
`memory/model.py`. It takes the service as an argument and does not import it.
"""
