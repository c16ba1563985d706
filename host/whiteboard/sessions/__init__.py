"""RAM-only session memory (design §4): store, context builder, rolling summary."""
