"""The optional model layer: an OpenAI-compatible client, presets, stored settings,
prompts, the model-made rolling summary and the handoff summary (design §10)."""
