"""Known OpenAI-compatible endpoints: the one list the options page's drop-down, `whiteboard
config presets` and docs/models.md show. A preset fills in the base URL and a default model;
any field can still be set by hand, and `custom` takes any base URL. Nothing is contacted
until the user tests or uses the model."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Preset:
    name: str
    label: str
    base_url: str  # "" for custom: the user gives it
    default_model: str  # "" where only the user knows (whatever is loaded locally)
    needs_key: bool
    note: str  # one line for the user: where it runs and what it needs


PRESETS: dict[str, Preset] = {p.name: p for p in (
    Preset("ollama", "Ollama on this computer", "http://localhost:11434/v1", "llama3.2", False,
           "Runs on this computer: nothing leaves it. `ollama pull llama3.2` first; any pulled model works."),
    Preset("lmstudio", "LM Studio on this computer", "http://localhost:1234/v1", "", False,
           "Runs on this computer. Start the local server (Developer tab) and give the loaded model's identifier."),
    Preset("llamacpp", "llama.cpp server on this computer", "http://localhost:8080/v1", "local", False,
           "Runs on this computer (`llama-server -m model.gguf`); it answers with the model it was started with."),
    Preset("vllm", "vLLM on this computer", "http://localhost:8000/v1", "", False,
           "Runs on this computer (`vllm serve <model>`); give the model name it serves."),
    Preset("jan", "Jan on this computer", "http://localhost:1337/v1", "", False,
           "Runs on this computer. Turn on Jan's local API server and give the model's id."),
    Preset("openai", "OpenAI", "https://api.openai.com/v1", "gpt-4o-mini", True,
           "Hosted: prompts go to OpenAI. Needs an API key from platform.openai.com."),
    Preset("xai", "xAI (Grok)", "https://api.x.ai/v1", "grok-3-mini", True,
           "Hosted: prompts go to xAI. Needs an API key from console.x.ai."),
    Preset("gemini", "Google Gemini (OpenAI-compatible endpoint)",
           "https://generativelanguage.googleapis.com/v1beta/openai", "gemini-2.5-flash", True,
           "Hosted: prompts go to Google. Needs a Gemini API key from Google AI Studio."),
    Preset("mistral", "Mistral AI", "https://api.mistral.ai/v1", "mistral-small-latest", True,
           "Hosted: prompts go to Mistral AI. Needs an API key from console.mistral.ai."),
    Preset("groq", "Groq", "https://api.groq.com/openai/v1", "llama-3.1-8b-instant", True,
           "Hosted: prompts go to Groq. Needs an API key from console.groq.com."),
    Preset("deepseek", "DeepSeek", "https://api.deepseek.com/v1", "deepseek-chat", True,
           "Hosted: prompts go to DeepSeek. Needs an API key from platform.deepseek.com."),
    Preset("openrouter", "OpenRouter", "https://openrouter.ai/api/v1", "openai/gpt-4o-mini", True,
           "Hosted: prompts go to OpenRouter and the provider it picks. Needs an API key from openrouter.ai."),
    Preset("custom", "Any OpenAI-compatible base URL", "", "", False,
           "Any server that speaks /chat/completions; an API key only if it wants one."),
)}
