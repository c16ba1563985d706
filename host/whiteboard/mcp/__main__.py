"""`python -m whiteboard.mcp`: what a desktop app runs (apps.entry); the same as `whiteboard mcp`."""

from .server import run

run()
