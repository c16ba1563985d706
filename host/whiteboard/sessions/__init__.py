"""RAM-only session memory (DESIGN §4): store, context builder, rolling summary."""
