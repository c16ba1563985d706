"""vBRIEF session export (design §7): a session as a structured, compressed document
with memory tiers that load progressively within a token budget (docs/vbrief.md)."""
