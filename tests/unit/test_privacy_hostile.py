"""The privacy filter on hostile text (issue 12 item 2): linear time on every input, and exactly
the redactions of the old backtracking patterns (tests/support/privacy_reference.py)."""

import random
import string
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from support.hostile_text import (
    ATOMS,
    SEPARATORS,
    audit_inputs,
    hostile_inputs,
    per_pattern_inputs,
    repeat_to,
)
from support.privacy_reference import reference_redact
from whiteboard.privacy import REDACTED, redact

MB = 1_000_000
# Generous bounds: the measured figures are in tests/bench/bench_privacy.py. The old patterns
# took 8.5 s on 20 KB of `foo-foo-…` and did not finish 1.8 MB of `a.a.…` in 120 s.
SECONDS_PER_MB = 2.0
SECONDS_PER_GRID_CASE = 0.5  # 16 KB: a quadratic pattern takes seconds


def timed(text: str) -> float:
    start = time.process_time()
    redact(text)
    return time.process_time() - start


@pytest.mark.parametrize("name,text", list(audit_inputs(MB)), ids=lambda v: v if len(v) < 40 else None)
def test_audit_inputs_of_a_megabyte_are_fast(name, text):
    assert timed(text) < SECONDS_PER_MB * len(text) / MB, name


def test_every_pattern_attacked_at_a_megabyte():
    """One hostile unit per pattern at full size (the whole grid runs below at 16 KB)."""
    slow = {name: t for name, text in per_pattern_inputs(MB) if (t := timed(text)) > SECONDS_PER_MB}
    assert not slow


def test_grid_of_hostile_inputs_is_linear():
    slow = {name: t for name, text in hostile_inputs(16_384) if (t := timed(text)) > SECONDS_PER_GRID_CASE}
    assert not slow


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(ATOMS + SEPARATORS), min_size=1, max_size=6).map("".join).filter(bool))
def test_any_repeated_unit_is_fast(unit):
    assert timed(repeat_to(unit, 65_536)) < SECONDS_PER_GRID_CASE


# Equivalence with the old patterns, on short texts where backtracking costs nothing.
PIECES = ATOMS + SEPARATORS + ["@b.cc", ".dd", "=1", ": x", "\"v\"", "'v'", "0123456789abcdef" * 2,
                               "ABCDEFGHIJ1234567890", "١", "]", "[", "-eyJabcdefgh", "abcdefgh"]


@settings(max_examples=1500, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=25).map("".join))
def test_same_redactions_as_the_old_patterns(text):
    assert redact(text) == reference_redact(text)


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet=st.sampled_from(string.printable + "é١_"), max_size=120))
def test_same_redactions_on_arbitrary_text(text):
    assert redact(text) == reference_redact(text)


SECRET_SHAPES = {
    "api_key": lambda body: f"sk-proj-{body}",
    "bearer_token": lambda body: f"Bearer {body}",
    "jwt": lambda body: f"eyJ{body}.{body}.{body}",
    "assignment": lambda body: f"db_password = {body}",
    "long_token": lambda body: f"{body}{body}{body}",
}


# Filler without "b": "bearer" right before `db_password = …` would take the name as its token
# and leave the value (as the old patterns did too).
FILLER = st.text(alphabet=string.ascii_lowercase.replace("b", "") + " ,.;!?\n", max_size=200)


@settings(max_examples=300, deadline=None)
@given(kind=st.sampled_from(sorted(SECRET_SHAPES)),
       body=st.text(alphabet=string.ascii_uppercase + string.digits, min_size=16, max_size=40)
       .filter(lambda b: any(c.isdigit() for c in b) and any(c.isalpha() for c in b)),
       before=FILLER, after=FILLER)
def test_a_secret_in_any_text_is_gone(kind, body, before, after):
    text = f"{before} {SECRET_SHAPES[kind](body)} {after}"
    out = redact(text)
    assert body not in out.text and REDACTED in out.text and kind in out.kinds


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=200).map("".join))
def test_output_never_grows_unboundedly(text):
    out = redact(text)
    # [REDACTED] replaces at least `key=v` (five characters) or a longer secret.
    assert len(out.text) <= 3 * len(text)
    assert out.count <= len(text)


def test_random_base64url_chat_turn_of_100k_characters():
    rng = random.Random(7)
    text = "".join(rng.choices(string.ascii_letters + string.digits + "-_", k=100_000))
    out = redact(text)
    assert out.text.endswith(REDACTED) and len(out.text) < 20 and out.kinds == ("long_token",)  # one run
    assert timed(text) < SECONDS_PER_MB
