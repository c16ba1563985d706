"""Byte-level framing: exact reads, the inbound cap, the outbound limit (design §2)."""

import io
import json
import struct

import pytest

from whiteboard.protocol.errors import BadJson, TooLarge
from whiteboard.protocol.framing import (
    MAX_JSON_DEPTH,
    MAX_OUTBOUND,
    FrameWriter,
    OversizeFrame,
    ShortRead,
    decode_body,
    encode_frame,
    read_frame,
)


class TrickleStream(io.RawIOBase):
    """Returns at most `step` bytes per read, like a pipe under load."""

    def __init__(self, data: bytes, step: int = 1):
        self._data = memoryview(data)
        self._pos = 0
        self._step = step

    def readable(self):
        return True

    def read(self, n=-1):
        n = self._step if n < 0 else min(n, self._step)
        chunk = bytes(self._data[self._pos:self._pos + n])
        self._pos += len(chunk)
        return chunk


class NoBigReads(io.BytesIO):
    """Fails the test if anyone asks to read more than `limit` bytes at once."""

    def __init__(self, data: bytes, limit: int):
        super().__init__(data)
        self.limit = limit

    def read(self, n=-1):
        assert 0 <= n <= self.limit, f"read({n}) would allocate past the cap"
        return super().read(n)


def frame(body: bytes) -> bytes:
    return struct.pack("<I", len(body)) + body


def test_length_is_little_endian_and_counts_bytes_not_characters():
    encoded = encode_frame({"text": "日本語"})
    (length,) = struct.unpack("<I", encoded[:4])
    assert length == len(encoded) - 4
    assert json.loads(encoded[4:]) == {"text": "日本語"}


def test_reads_a_frame_delivered_one_byte_at_a_time():
    body = json.dumps({"id": 1, "type": "ping", "pad": "x" * 1000}).encode()
    stream = TrickleStream(frame(body) + frame(b"{}"), step=1)
    assert read_frame(stream) == body
    assert read_frame(stream) == b"{}"
    assert read_frame(stream) is None


@pytest.mark.parametrize("cut", [1, 3, 4, 10])
def test_a_stream_ending_inside_a_frame_is_a_short_read(cut):
    data = frame(b'{"id":1,"type":"ping"}')[:cut]
    with pytest.raises(ShortRead):
        read_frame(io.BytesIO(data))


def test_clean_eof_between_frames_is_none():
    assert read_frame(io.BytesIO(b"")) is None


def test_oversize_length_refused_from_the_header_before_allocating():
    cap = 1024
    big = b"x" * 5000
    stream = NoBigReads(frame(big) + frame(b'{"id":2}'), limit=1 << 16)
    with pytest.raises(OversizeFrame) as info:
        read_frame(stream, cap=cap)
    assert info.value.length == 5000
    # The oversize body was skipped: the next frame still parses.
    assert read_frame(stream, cap=cap) == b'{"id":2}'


def test_a_4_gib_length_is_refused_without_reading_it():
    stream = io.BytesIO(struct.pack("<I", 0xFFFFFFFF))
    with pytest.raises((OversizeFrame, ShortRead)):
        read_frame(stream, cap=1024)


def test_outbound_frame_over_1_mib_is_too_large():
    with pytest.raises(TooLarge):
        encode_frame({"text": "x" * MAX_OUTBOUND})


def test_outbound_limit_counts_encoded_bytes():
    # 200k CJK characters are far under 1 MiB as characters but not as bytes on the wire.
    with pytest.raises(TooLarge):
        encode_frame({"text": "字" * 200_000})


def test_outbound_just_under_the_limit_passes():
    overhead = len(encode_frame({"t": ""})) - 4
    encoded = encode_frame({"t": "x" * (MAX_OUTBOUND - overhead)})
    assert len(encoded) - 4 == MAX_OUTBOUND


def test_writer_writes_whole_frames():
    out = io.BytesIO()
    writer = FrameWriter(out)
    writer.write({"id": 1, "ok": True})
    writer.write({"id": 2, "ok": True})
    stream = io.BytesIO(out.getvalue())
    assert json.loads(read_frame(stream)) == {"id": 1, "ok": True}
    assert json.loads(read_frame(stream)) == {"id": 2, "ok": True}


@pytest.mark.parametrize("body", [b"\xff\xfe{}", b"{", b"not json", b'{"a": tru}'])
def test_bad_bodies_are_bad_json(body):
    with pytest.raises(BadJson):
        decode_body(body)


def test_deep_nesting_is_bad_json_not_a_crash():
    with pytest.raises(BadJson):
        decode_body(b"[" * 100_000 + b"]" * 100_000)


def test_nesting_at_the_limit_is_accepted_and_brackets_in_strings_do_not_count():
    ok = "[" * MAX_JSON_DEPTH + "]" * MAX_JSON_DEPTH
    assert decode_body(ok.encode()) is not None
    text = json.dumps({"content": "[[[[{{{{" * 100})
    assert decode_body(text.encode())["content"].startswith("[[[[")
