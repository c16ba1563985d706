"""Memory failures as typed wire errors. Messages name files and memory ids, never content."""

from __future__ import annotations

from ..protocol.errors import BadRequest, Unavailable


class VaultUnavailable(Unavailable):
    """The vault cannot be opened: key missing or wrong, file damaged or locked."""


class MemoryDamaged(Unavailable):
    """One row does not decrypt or parse: it stays on disk untouched."""

    def __init__(self, memory_id: str, problem: str):
        super().__init__(f"memory {memory_id} cannot be read: {problem}; it is kept unchanged on disk "
                         "(restore the key file it was written with, or delete this memory)")
        self.memory_id = memory_id
        self.problem = problem


class MemoryBusy(Unavailable):
    """The service stayed held (an import, a wipe, the vault opening) past a send's short
    wait (MemoryService.turn): the send goes on without memories."""

    reason = "busy"

    def __init__(self):
        super().__init__("long-term memory is busy (an import, a wipe or the vault opening); "
                         "this send goes without memories")


class MemoryChanged(BadRequest):
    """A change based on a revision of a memory that another process or window has changed
    since: nothing was done; the caller reloads the memory and decides again."""

    reason = "conflict"

    def __init__(self, memory_id: str, rev: int):
        super().__init__(f"memory {memory_id} changed since revision {rev} (edited elsewhere); nothing was changed: "
                         "reload it and edit again")
        self.memory_id = memory_id


class RowRejected(Exception):
    """The vault refused the row at `position` of an insert: a value SQLite cannot store
    (the problem names the column, never a value)."""

    def __init__(self, position: int, problem: str):
        super().__init__(problem)
        self.position, self.problem = position, problem


class EmbedFailed(Exception):
    """An embedding model gave no usable vectors; the message names its origin only. Never
    reaches the wire: the caller falls back to full text and says so in a note.
    `whole_endpoint`: the failure says nothing about the texts sent (unreachable, too slow,
    not allowed, overloaded), so the indexer does not look for one memory to blame."""

    def __init__(self, message: str, whole_endpoint: bool = False):
        super().__init__(message)
        self.whole_endpoint = whole_endpoint
