"""Long-term memory (DESIGN §5): vault, index, extraction, dedupe, recall, injection."""
