"""Known OpenAI-compatible endpoints. A preset fills in the base URL and a default model;
any field can still be set by hand, and `custom` takes any base URL."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Preset:
    name: str
    label: str
    base_url: str  # "" for custom: the user gives it
    default_model: str  # "" where only the user knows (whatever is loaded locally)
    needs_key: bool


PRESETS: dict[str, Preset] = {p.name: p for p in (
    Preset("openai", "OpenAI", "https://api.openai.com/v1", "gpt-4o-mini", True),
    Preset("xai", "xAI (Grok)", "https://api.x.ai/v1", "grok-3-mini", True),
    Preset("gemini", "Google Gemini (OpenAI-compatible endpoint)",
           "https://generativelanguage.googleapis.com/v1beta/openai", "gemini-2.5-flash", True),
    Preset("ollama", "Ollama on this computer", "http://localhost:11434/v1", "llama3.2", False),
    Preset("lmstudio", "LM Studio on this computer", "http://localhost:1234/v1", "", False),
    Preset("custom", "Any OpenAI-compatible base URL", "", "", False),
)}
