"""Wire protocol: framing, message schemas and the error model (DESIGN §2-3)."""
