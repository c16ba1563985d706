"""Wire protocol: framing, message schemas and the error model (design §2-3)."""
