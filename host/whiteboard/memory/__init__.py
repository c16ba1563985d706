"""Long-term memory (design §5): vault, index, extraction, dedupe, recall, injection."""
