"""Every regular expression in the host runs in linear time on hostile text (issue 20 item 2).

The patterns are found, not listed: every module of the `whiteboard` package is imported and
each compiled pattern it holds (alone or in a list, tuple or dict) is attacked with worst cases
generated from its own pieces (support/hostile_text.pattern_units). A pattern written inline
(`re.sub(r"...", ...)` or `re.compile` inside a function) would escape that search, so the
source is checked for those too: a new pattern lives at module level and is covered at once.

Each pattern is applied as `finditer` over the whole text: every start position is tried,
which is what `search`, `sub`, `split` and `findall` do at worst (a `match` tries one). A
pattern the host only applies from positions its code chooses is attacked through that code
instead (APPLIED_BY): its own worst cases, the way the host runs it.
"""

from __future__ import annotations

import ast
import importlib
import pkgutil
import re
import time
from pathlib import Path

import pytest

import whiteboard
from support.hostile_text import pattern_units, unit_text
from whiteboard.privacy import redact

MB = 1_048_576
SCREEN_SIZE = 8_192
LADDER = (16_384, 65_536, 262_144, MB)  # each step 4x the last
TOP = 2  # the slowest screened inputs of each pattern go up the ladder
# Linear time grows 4x per step; a quadratic pattern 16x. 8x with a floor for timer noise.
MAX_GROWTH = 8.0
NOISE = 0.1  # seconds under which a step's growth is not judged
SECONDS_PER_MB = 2.0  # absolute bound at the top of the ladder, on a loaded machine
REPEATS = 3  # a failing measure is repeated and the fastest kept (a busy core only slows)
HOST = Path(whiteboard.__file__).parent
INLINE_CALLS = {"search", "match", "fullmatch", "sub", "subn", "split", "findall", "finditer"}


def _modules():
    for info in pkgutil.walk_packages(whiteboard.__path__, "whiteboard."):
        if info.name.rsplit(".", 1)[-1] != "__main__":
            yield importlib.import_module(info.name)


def _patterns_in(value, name, home, depth=0):
    """Patterns in a module global: itself, in containers, in a class of the module or in an
    instance of one (a table of rules as dataclasses)."""
    if isinstance(value, re.Pattern):
        yield name, value
    elif depth >= 3:
        return
    elif isinstance(value, (list, tuple, set, frozenset)):
        for i, item in enumerate(value):
            yield from _patterns_in(item, f"{name}[{i}]", home, depth + 1)
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _patterns_in(item, f"{name}[{key!r}]", home, depth + 1)
    elif getattr(type(value) if not isinstance(value, type) else value, "__module__", None) == home:
        for attr, item in vars(value).items() if hasattr(value, "__dict__") else ():
            yield from _patterns_in(item, f"{name}.{attr}", home, depth + 1)


PATTERN_HOMES: set[str] = set()  # "module:global" holding a pattern


def host_patterns() -> dict[str, re.Pattern]:
    found: dict[tuple, str] = {}
    for module in _modules():
        PATTERN_HOMES.update(f"{module.__name__}:{attr}" for attr, value in vars(module).items()
                             if any(_patterns_in(value, attr, module.__name__)))
        source = Path(module.__file__).read_text(encoding="utf-8")
        for attr, value in vars(module).items():
            defined_here = f"\n{attr} = " in source or f"\n{attr}: " in source
            for name, pattern in _patterns_in(value, f"{module.__name__}.{attr}", module.__name__):
                key = (pattern.pattern, pattern.flags)
                if defined_here or key not in found:  # named where it is defined
                    found[key] = name
    return {name: re.compile(source, flags) for (source, flags), name in found.items()}


PATTERNS = host_patterns()
# redact() tries the rest of an address only from inside a run it has just searched
# (privacy._email): from every position of a run it is quadratic by design.
APPLIED_BY = {"whiteboard.privacy._EMAIL_REST": redact}


def find_all(pattern: re.Pattern):
    return lambda text: [None for _match in pattern.finditer(text)]


def cost(apply, text: str, repeats: int = 1) -> float:
    best = float("inf")
    for _ in range(repeats):
        start = time.process_time()
        apply(text)
        best = min(best, time.process_time() - start)
    return best


def test_the_search_finds_the_host_patterns():
    names = set(PATTERNS)
    # Each module that compiles a pattern holds one where the search looks.
    compiling = {".".join(p.relative_to(HOST.parent).with_suffix("").parts).removesuffix(".__init__")
                 for p in HOST.rglob("*.py") if "re.compile(" in p.read_text(encoding="utf-8")}
    assert compiling <= {name.split(":")[0] for name in PATTERN_HOMES}
    assert len(names) > 100
    assert {"whiteboard.blocks._BLOCK", "whiteboard.privacy._JWT", "whiteboard.blocks._FENCE_LINE",
            "whiteboard.memory.extract.statement._LATIN_AND['fr']"} <= names
    assert any(n.startswith("whiteboard.memory.extract.rules.EN_COMPILED[") for n in names)


def _inline_regexes(path: Path) -> list[str]:
    found = []

    def visit(node, in_function):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and isinstance(node.func.value, ast.Name) and node.func.value.id == "re":
            if node.func.attr in INLINE_CALLS or (node.func.attr == "compile" and in_function):
                found.append(f"{path.relative_to(HOST.parent)}:{node.lineno} re.{node.func.attr}")
        inner = in_function or isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
        for child in ast.iter_child_nodes(node):
            visit(child, inner)

    tree = ast.parse(path.read_text(encoding="utf-8"))
    visit(tree, False)
    found += [f"{path.relative_to(HOST.parent)}:{n.lineno} from re import" for n in ast.walk(tree)
              if isinstance(n, ast.ImportFrom) and n.module in ("re", "regex")]
    return found


def test_every_pattern_is_compiled_at_module_level():
    """So that the search above sees it: no re.sub(r"..."), no re.compile in a function."""
    inline = [hit for path in sorted(HOST.rglob("*.py")) for hit in _inline_regexes(path)]
    assert not inline


def test_every_pattern_applied_otherwise_is_still_in_the_host():
    assert set(APPLIED_BY) <= set(PATTERNS)


def _ladder(apply, kind: str, unit: str, sizes=LADDER) -> str | None:
    """Why this input is too slow for this pattern, or None."""
    before = None
    for size in sizes:
        text = unit_text(kind, unit, size)
        took = cost(apply, text)
        if before is not None and took > NOISE and took > MAX_GROWTH * before \
                or took > SECONDS_PER_MB * size / MB:
            took = cost(apply, text, REPEATS)
            before = cost(apply, unit_text(kind, unit, size // 4), REPEATS) if before is not None else None
        if before is not None and took > NOISE and took > MAX_GROWTH * before:
            return f"{kind} {unit!r}: {before:.3f} s at {size // 4} chars, {took:.3f} s at {size}"
        if took > SECONDS_PER_MB * size / MB:
            return f"{kind} {unit!r}: {took:.3f} s at {size} chars"
        before = took
    return None


def too_slow(pattern: re.Pattern, apply, screen=SCREEN_SIZE, sizes=LADDER) -> list[str]:
    screened = sorted(((cost(apply, unit_text(kind, unit, screen)), kind, unit)
                       for kind, unit in pattern_units(pattern)), reverse=True)
    return [why for _, kind, unit in screened[:TOP] if (why := _ladder(apply, kind, unit, sizes))]


@pytest.mark.parametrize("name", sorted(PATTERNS))  # under 2 s of CPU each: not `slow`
def test_pattern_is_linear_on_hostile_text(name):
    pattern = PATTERNS[name]
    slow = too_slow(pattern, APPLIED_BY.get(name) or find_all(pattern))
    assert not slow, f"{name} = {pattern.pattern!r}"


# Quadratic patterns of the kinds found in the host (issue 20), each caught by 16 KB.
KNOWN_QUADRATIC = [(r"\n*^---[ \t]*\n\[Whiteboard", re.M), (r"\{.*\}", re.S), (r"(?:,\s*|\s+)(?:and|but)\s+", 0),
                   (r"^(?:(?:저는|나는)\s*)?(?P<x>.+(?:을|를)\s*좋아)", 0), (r"[a-z0-9.]+@[a-z]+\.[a-z]{2,}", 0)]


@pytest.mark.parametrize("source, flags", KNOWN_QUADRATIC)
def test_the_attack_catches_a_quadratic_pattern(source, flags):
    pattern = re.compile(source, flags)
    assert too_slow(pattern, find_all(pattern), screen=2_048, sizes=(4_096, 16_384))
