"""`whiteboard mcp`: the memory vault served to desktop apps over MCP's stdio transport
(docs/mcp.md), on the official SDK (`mcp`), imported only here and only when this runs.

The SDK's own stdio transport reads a line of any length and drops one that does not
parse without a word; this one reads at most MAX_LINE bytes a line, answers a line that is
too long or not JSON-RPC with a JSON-RPC error (id null when none can be read) and goes
on, and ends the server when stdin closes. Each tool call runs on a worker thread and
answers "busy, try again" if the vault keeps it waiting past its deadline.
"""

from __future__ import annotations

import json
import logging
import os
import sys
from typing import Annotated, BinaryIO, Literal

import anyio
import mcp_types as types
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.shared.exceptions import MCPError
from mcp.shared.message import SessionMessage
from pydantic import Field

from .. import version
from ..config import RelativeDirectory, check_directory_variables
from ..memory.model import MEMORY_TYPES
from ..protocol.errors import BadRequest, WhiteboardError
from ..server import presence
from . import desk as D

log = logging.getLogger("whiteboard.mcp")
MAX_LINE = 1024 * 1024  # bytes of one JSON-RPC message, its newline included
# A call's deadline: the vault waited for (BUSY_WAIT) at each of its steps, and the time a
# step takes; the first search waits for the meanings besides (desk.FIRST_SEARCH_WAIT).
CALL_DEADLINE = 3 * D.BUSY_WAIT + 2.0

MemoryType = Literal[MEMORY_TYPES]  # type: ignore[valid-type]

INSTRUCTIONS = ("Whiteboard is the user's own long-term memory, kept encrypted on this computer. Search it for "
                "what the user told you before (preferences, projects, skills, context); `remember` only suggests "
                "a fact: the user accepts it before it becomes a memory.")


class ArgumentsChecked:
    """A tools/call naming no tool of ours, or with arguments its input schema refuses, is
    answered with a JSON-RPC error (-32602) naming the fields at fault, never their values
    (the SDK would answer with a tool result quoting them)."""

    def __init__(self):
        self.server: MCPServer | None = None
        self._validators: dict | None = None

    async def __call__(self, ctx, call_next):
        if ctx.method == "tools/call":
            await self._check(ctx.params)
        return await call_next(ctx)

    async def _check(self, params) -> None:
        if self._validators is None:
            from jsonschema import Draft202012Validator

            self._validators = {t.name: Draft202012Validator(t.input_schema) for t in await self.server.list_tools()}
        name = params.get("name") if isinstance(params, dict) else None
        validator = self._validators.get(name) if isinstance(name, str) else None
        if validator is None:
            raise MCPError(types.INVALID_PARAMS, f"Unknown tool; the tools are {', '.join(sorted(self._validators))}")
        arguments = params.get("arguments")
        arguments = {} if arguments is None else arguments
        if not isinstance(arguments, dict):
            raise MCPError(types.INVALID_PARAMS, f"Invalid arguments for {name}: an object is expected")
        problems = sorted({_problem(e) for e in validator.iter_errors(arguments)})
        if problems:
            raise MCPError(types.INVALID_PARAMS, f"Invalid arguments for {name}: {'; '.join(problems)}")


def _problem(error) -> str:
    if error.validator == "required":
        missing = [k for k in error.validator_value if isinstance(error.instance, dict) and k not in error.instance]
        return f"{', '.join(missing)}: required"
    where = ".".join(str(p) for p in error.absolute_path) or "arguments"
    return f"{where}: fails {error.validator} {json.dumps(error.validator_value)[:80]}"


def build(desk: D.Desk) -> MCPServer:
    checked = ArgumentsChecked()
    server = MCPServer("whiteboard", title="Whiteboard memory", version=version(), instructions=INSTRUCTIONS,
                       log_level="WARNING", middleware=[checked])
    checked.server = server
    read_only = types.ToolAnnotations(read_only_hint=True, destructive_hint=False, open_world_hint=False)

    @server.tool(name="search_memories", title="Search memories", annotations=read_only, structured_output=False,
                 description=(
        "Search the user's memories for what is relevant to a request, by meaning and by words: the same "
        "recall Whiteboard uses when the user sends a chat message in the browser. Returns at most `limit` "
        "memories, best first, each with its id, type, date (last changed) and text."))
    async def search_memories(
            query: Annotated[str, Field(description="What to look for: the user's request or a topic.",
                                        min_length=1, max_length=4000)],
            limit: Annotated[int, Field(description="At most this many memories.", ge=1,
                                        le=D.SEARCH_MAX)] = D.SEARCH_LIMIT) -> str:
        # The first search waits for the meanings (the model loading) too; each, for its query's meaning.
        return await _call(desk.search, query, limit, deadline=CALL_DEADLINE + D.FIRST_SEARCH_WAIT + D.QUERY_WAIT)

    @server.tool(name="list_memories", title="List memories", annotations=read_only, structured_output=False,
                 description=(
        "List the user's memories, newest first, each with its id, type, date and text; filter by type, by "
        "the site it was learned on (e.g. claude.ai) and by pinned (sent with every chat)."))
    async def list_memories(
            type: Annotated[MemoryType | None, Field(description="Only memories of this type.")] = None,
            site: Annotated[str | None, Field(description="Only memories learned on this site, e.g. chatgpt.com.",
                                              max_length=253)] = None,
            pinned: Annotated[bool | None, Field(description="Only pinned (true) or unpinned (false) ones.")] = None,
            limit: Annotated[int, Field(description="At most this many.", ge=1, le=D.LIST_MAX)] = D.LIST_LIMIT,
            offset: Annotated[int, Field(description="Skip this many (the next page).", ge=0)] = 0) -> str:
        return await _call(desk.list, type, site, pinned, limit, offset)

    @server.tool(name="remember", title="Suggest a memory", structured_output=False, annotations=types.ToolAnnotations(
        read_only_hint=False, destructive_hint=False, idempotent_hint=True, open_world_hint=False), description=(
        "Suggest a fact about the user to remember (a preference, an objective, a skill, context). It is NOT "
        "stored as a memory: it waits as a suggestion until the user accepts it in Whiteboard, and is not "
        "recalled before that. Secrets and <private> spans are removed first."))
    async def remember(
            text: Annotated[str, Field(description="The fact, in one or two sentences.", min_length=1,
                                       max_length=2000)],
            type: Annotated[MemoryType, Field(description="What kind of fact it is.")] = "context",
    ) -> str:
        return await _call(desk.remember, text, type)

    pinned_description = ("The memories the user pinned: what they want every chat to know. Attach to a chat "
                          "as its standing context.")

    @server.resource(D.PINNED_URI, name="pinned_memories", title="Pinned memories", mime_type="text/plain",
                     description=pinned_description)
    async def pinned_resource() -> str:
        return await _call(desk.pinned)

    @server.prompt(name="pinned_memories", title="Pinned memories", description=pinned_description)
    async def pinned_prompt() -> str:
        return await _call(desk.pinned)

    return server


async def _call(fn, *args, deadline: float = CALL_DEADLINE) -> str:
    """fn(*args) on a worker thread; its typed errors as the tool's error text."""
    with anyio.move_on_after(deadline):
        try:
            return await anyio.to_thread.run_sync(fn, *args, abandon_on_cancel=True)
        except D.Busy:
            raise ToolError(D.BUSY_TEXT) from None
        except BadRequest as exc:
            raise MCPError(types.INVALID_PARAMS, exc.message) from None
        except WhiteboardError as exc:  # the vault locked, damaged, its key missing: the message says which
            raise ToolError(exc.message) from None
    # Still running (the vault held by another process): it finishes in the background.
    raise ToolError(D.BUSY_TEXT)


# ---- the transport -------------------------------------------------------------------------


def read_line(stream: BinaryIO) -> bytes | int | None:
    """The next line; None at the end of input; for a line over MAX_LINE, its size (it is
    read to its end and dropped, so the next line parses)."""
    line = stream.readline(MAX_LINE + 1)
    if not line:
        return None
    if len(line) <= MAX_LINE:
        return line
    size = len(line)
    while not line.endswith(b"\n"):
        line = stream.readline(MAX_LINE)
        if not line:
            break
        size += len(line)
    return size


def decode(line: bytes) -> SessionMessage | types.JSONRPCError | None:
    """A line as a message, or the JSON-RPC error that answers it; None for a blank line."""
    text = line.strip()
    if not text:
        return None
    try:
        return SessionMessage(types.jsonrpc_message_adapter.validate_json(text, by_name=False))
    except ValueError:
        pass
    try:
        raw = json.loads(text)
    except (ValueError, RecursionError):
        return _error(None, types.PARSE_ERROR, "Parse error: the line is not JSON")
    request_id = raw.get("id") if isinstance(raw, dict) else None
    if isinstance(request_id, bool) or not isinstance(request_id, (int, str)):
        request_id = None
    return _error(request_id, types.INVALID_REQUEST, "Invalid Request: not a JSON-RPC 2.0 message")


def client_of(message: SessionMessage) -> str | None:
    """The app's name when `message` is its initialize request."""
    msg = message.message
    if not isinstance(msg, types.JSONRPCRequest) or msg.method != "initialize":
        return None
    info = (msg.params or {}).get("clientInfo")
    return (info.get("title") or info.get("name")) if isinstance(info, dict) else ""


def _error(request_id, code: int, message: str) -> types.JSONRPCError:
    return types.JSONRPCError(jsonrpc="2.0", id=request_id, error=types.ErrorData(code=code, message=message))


async def serve(server: MCPServer, desk: D.Desk, stdin: BinaryIO, stdout: BinaryIO) -> None:
    to_server, from_stdin = anyio.create_memory_object_stream[SessionMessage](0)
    to_stdout, from_server = anyio.create_memory_object_stream[SessionMessage](0)
    errors = to_stdout.clone()

    async def reader() -> None:
        async with to_server, errors:
            while True:
                line = await anyio.to_thread.run_sync(read_line, stdin, abandon_on_cancel=True)
                if line is None:
                    return
                if isinstance(line, int):
                    await errors.send(SessionMessage(_error(None, types.INVALID_REQUEST,
                                                            f"Invalid Request: a line of {line} bytes; "
                                                            f"at most {MAX_LINE}")))
                    continue
                message = decode(line)
                if isinstance(message, types.JSONRPCError):
                    await errors.send(SessionMessage(message))
                elif message is not None:
                    client = client_of(message)
                    if client is not None:
                        tg.start_soon(_greet, desk, client)
                    await to_server.send(message)

    async def writer() -> None:
        async with from_server:
            async for item in from_server:
                data = item.message.model_dump_json(by_alias=True, exclude_unset=True).encode() + b"\n"
                await anyio.to_thread.run_sync(_write, stdout, data)

    async with anyio.create_task_group() as tg:
        tg.start_soon(writer)
        tg.start_soon(reader)
        async with to_stdout:
            await server._lowlevel_server.run(from_stdin, to_stdout,
                                              server._lowlevel_server.create_initialization_options())
        tg.cancel_scope.cancel()


async def _greet(desk: D.Desk, client: str) -> None:
    try:
        await anyio.to_thread.run_sync(desk.greeted, client)
    except WhiteboardError as exc:  # the settings file unwritable: the app is served, just not listed
        log.warning("could not note the app: %s", exc.message)


def _write(stdout: BinaryIO, data: bytes) -> None:
    stdout.write(data)
    stdout.flush()


def run() -> None:
    logging.basicConfig(stream=sys.stderr, level=os.environ.get("WHITEBOARD_LOG_LEVEL", "WARNING"))
    try:  # the CLI group's check, for `python -m whiteboard.mcp` (what apps run) too
        check_directory_variables()
    except RelativeDirectory as exc:
        print(f"whiteboard mcp: {exc}", file=sys.stderr)
        raise SystemExit(2) from None
    # stdout carries messages only: a stray print (ours or a library's) goes to stderr.
    stdout = os.fdopen(os.dup(sys.stdout.fileno()), "wb", buffering=0)
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    stdin = os.fdopen(os.dup(sys.stdin.fileno()), "rb")
    # This data folder's lock, held (open) until the process exits: `uninstall --purge`
    # refuses while an app's server has the vault open (server/presence.py).
    held = presence.hold(presence.MCP)
    desk = D.Desk()
    try:
        anyio.run(serve, build(desk), desk, stdin, stdout)
    finally:
        desk.close()
        if held is not None:
            held.close()
