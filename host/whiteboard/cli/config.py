"""`whiteboard config`: which OpenAI-compatible model the host may use (see docs/models.md).

The API key is read with a hidden prompt (or from standard input when that is not a
terminal), never from the command line where shell history and `ps` would keep it.
"""

from __future__ import annotations

import sys
import time

import click

from ..llm.layer import ModelLayer
from ..llm.presets import PRESETS
from ..llm.prompts import ping_messages
from ..llm.settings import ENV_API_KEY, ENV_BASE_URL, ENV_MODEL, SettingsStore, resolve
from ..protocol.bounds import MAX_TIMEOUT_SECONDS
from ..protocol.errors import WhiteboardError
from . import main

ENV_NAMES = {"base_url": ENV_BASE_URL, "model": ENV_MODEL, "api_key": ENV_API_KEY}


@main.group("config")
def config_group() -> None:
    """Model settings: the OpenAI-compatible endpoint Whiteboard may use (optional)."""


@config_group.command("show")
def show() -> None:
    """Print the settings in force (the API key itself is never shown)."""
    store = SettingsStore()
    try:
        s = resolve(store)
    except WhiteboardError as exc:
        raise click.ClickException(exc.message) from None
    key = {"env": f"set (from {ENV_API_KEY})", "stored": f"set (stored encrypted in {store.path})",
           "none": "not set"}[s.key_source]
    click.echo(f"preset:    {s.preset or '-'}")
    click.echo(f"base URL:  {s.base_url or '-'}")
    click.echo(f"model:     {s.model or '-'}")
    click.echo(f"API key:   {key}")
    click.echo(f"timeouts:  connect {s.timeouts.connect:g} s, silence {s.timeouts.read:g} s, "
               f"total {s.timeouts.total:g} s")
    for name in s.from_env:
        click.echo(f"note: {name} comes from {ENV_NAMES[name]}, which overrides the stored value")
    if not s.configured:
        click.echo("No model configured: Whiteboard works offline. Set one with "
                   "`whiteboard config set --preset NAME [--model M] [--api-key]`.")


@config_group.command("set")
@click.option("--preset", type=click.Choice(list(PRESETS)), help="Fill in a known endpoint's URL and model.")
@click.option("--base-url", help="Any OpenAI-compatible base URL, e.g. http://localhost:11434/v1.")
@click.option("--model", help="Model name as the endpoint knows it.")
@click.option("--api-key", "ask_key", is_flag=True, help="Prompt for the API key (hidden; stdin when piped).")
@click.option("--clear-api-key", is_flag=True, help="Forget the stored API key.")
@click.option("--read-timeout", type=click.FloatRange(0, MAX_TIMEOUT_SECONDS, min_open=True),
              help="Longest silence from the model, in seconds (default 60).")
@click.option("--total-timeout", type=click.FloatRange(0, MAX_TIMEOUT_SECONDS, min_open=True),
              help="Longest whole request, in seconds (default 180).")
@click.option("--allow-insecure", is_flag=True,
              help="Allow an http:// base URL to another computer: the API key and prompts go unencrypted.")
def set_(preset, base_url, model, ask_key, clear_api_key, read_timeout, total_timeout, allow_insecure) -> None:
    """Change the stored model settings."""
    if not any([preset, base_url, model, ask_key, clear_api_key, read_timeout, total_timeout, allow_insecure]):
        raise click.UsageError("give at least one setting to change (see --help)")
    api_key = _read_api_key() if ask_key else None
    store = SettingsStore()
    try:
        saved = store.update(preset=preset, base_url=base_url, model=model, api_key=api_key,
                             clear_api_key=clear_api_key, read_timeout=read_timeout, total_timeout=total_timeout,
                             allow_insecure=allow_insecure)
    except WhiteboardError as exc:
        raise click.ClickException(exc.message) from None
    click.echo(f"Saved to {store.path}.")
    chosen = PRESETS.get(saved.preset)
    if chosen is not None and chosen.needs_key and not saved.api_key_enc:
        click.echo(f"note: {chosen.label} needs an API key: `whiteboard config set --api-key`")
    if not saved.model:
        click.echo("note: no model name yet: `whiteboard config set --model NAME`")


def _read_api_key() -> str:
    if sys.stdin.isatty():
        return click.prompt("API key", hide_input=True)
    return sys.stdin.readline().strip()  # piped: `pass show openai | whiteboard config set --api-key`


@config_group.command("clear")
def clear() -> None:
    """Forget the stored model settings and API key."""
    store = SettingsStore()
    click.echo("Cleared." if store.clear() else "Nothing was stored.")


@config_group.command("test")
def test() -> None:
    """One short round trip to the configured model."""
    layer = ModelLayer()
    try:
        client = layer.client()
        started = time.monotonic()
        sample = client.complete(ping_messages())
    except WhiteboardError as exc:
        raise click.ClickException(exc.message) from None
    elapsed = round((time.monotonic() - started) * 1000)
    click.echo(f"OK: {client.endpoint.model} at {client.endpoint.origin} answered in {elapsed} ms: "
               f"{sample.strip()[:80]!r}")


@config_group.command("presets")
def presets() -> None:
    """List the known endpoints."""
    for p in PRESETS.values():
        url = p.base_url or "(your base URL)"
        model = p.default_model or "(your model)"
        key = "API key needed" if p.needs_key else "no key needed"
        click.echo(f"{p.name:<10} {p.label}: {url}, {model}, {key}\n           {p.note}")
