"""Design §1's layer rule, checked on the import graph derived from the source (issue 22):
a module imports from its own layer and the layers below it, and no modules import one
another round a loop. The layers are read from design §1's table, so the table and the
code cannot drift apart; the checker is shown to fail on a planted cycle and a planted
upward import."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from support.import_graph import cycles, import_graph, layer_of, past_the_face, upward

ROOT = Path(__file__).resolve().parents[2]
HOST = ROOT / "host" / "whiteboard"
DESIGN = ROOT / "docs" / "design.md"
# Design §1's one exception: the vBRIEF messages are the vBRIEF document types.
ALLOWED = {("whiteboard.protocol.messages.vbrief", "whiteboard.vbrief.models")}
# Design §1: outside memory/, code uses long-term memory through these only (its service,
# the host's hub, and what a memory is and its errors); the parts below are the service's.
MEMORY_FACE = {"whiteboard.memory.service", "whiteboard.memory.hub", "whiteboard.memory.model",
               "whiteboard.memory.errors"}


def design_layers(text: str, package: str = "whiteboard") -> list[list[str]]:
    """The rows of design §1's layer table, lowest first, as dotted module prefixes."""
    section = text[text.index('<a id="s1"></a>'):text.index('<a id="s2"></a>')]
    table = section[section.index("| layer | modules |"):].split("\n\n", 1)[0]
    rows = []
    for line in table.splitlines()[2:]:
        cell = re.sub(r"\([^)]*\)", "", line.split("|")[2])  # what is in brackets only explains
        names = []
        for path in re.findall(r"`([^`]+)`", cell):
            parts = path.removesuffix("/").removesuffix(".py").removesuffix("__init__").strip("/").split("/")
            names.append(".".join([package, *filter(None, parts)]))
        rows.append(names)
    return rows


LAYERS = design_layers(DESIGN.read_text(encoding="utf-8"))


def test_the_design_table_has_the_layers():
    assert LAYERS[0] == ["whiteboard.protocol"] and LAYERS[-1][0] == "whiteboard.cli", LAYERS
    assert ["whiteboard.sessions"] in LAYERS


def test_every_module_is_in_a_layer():
    for module in import_graph(HOST):
        layer_of(module, LAYERS)


def test_no_import_cycle():
    assert cycles(import_graph(HOST)) == []


def test_no_module_imports_from_a_higher_layer():
    assert upward(import_graph(HOST), LAYERS, ALLOWED) == []


def test_sessions_import_nothing_of_long_term_memory():
    graph = import_graph(HOST)
    assert not [f"{a} -> {b}" for a in graph if a.startswith("whiteboard.sessions")
                for b in graph[a] if b.startswith("whiteboard.memory")]


def test_the_rest_uses_memory_through_its_face_only():
    assert past_the_face(import_graph(HOST), "whiteboard.memory", MEMORY_FACE) == []


# ---- the checker itself fails where it must ---------------------------------------------


def plant(root: Path, files: dict[str, str]) -> Path:
    for name, source in files.items():
        path = root / "pkg" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(source)
    return root / "pkg"


def test_a_planted_cycle_is_found(tmp_path):
    """The cycle issue 22 removed, in miniature: each side imports the other inside a function."""
    pkg = plant(tmp_path, {
        "__init__.py": "",
        "llm/__init__.py": "",
        "llm/settings.py": "def vault_path():\n    from ..memory.vault import VAULT_FILE\n    return VAULT_FILE\n",
        "memory/__init__.py": "",
        "memory/vault.py": "VAULT_FILE = 'x'\n\ndef open_vault():\n    from ..llm import settings\n",
        "memory/index.py": "from . import vault\n",
    })
    assert cycles(import_graph(pkg)) == [["pkg.llm.settings", "pkg.memory.vault"]]


def test_a_longer_planted_cycle_and_a_self_contained_package(tmp_path):
    pkg = plant(tmp_path, {"__init__.py": "", "a.py": "import pkg.b\n", "b.py": "from .c import f\n",
                           "c.py": "from pkg import a\n\ndef f(): pass\n", "d.py": "from . import a\n"})
    assert cycles(import_graph(pkg)) == [["pkg.a", "pkg.b", "pkg.c"]]


def test_a_type_only_upward_import_is_found(tmp_path):
    """As store/transfer.py named the memory service above it for an annotation (issue 35):
    an import under `if TYPE_CHECKING:` is never run, but the store is written against it."""
    pkg = plant(tmp_path, {
        "__init__.py": "", "memory/__init__.py": "", "memory/service.py": "from .store import transfer\n",
        "memory/store/__init__.py": "",
        "memory/store/transfer.py": "import typing\n"
                                    "if typing.TYPE_CHECKING:\n    from ..service import MemoryService\n",
    })
    layers = [["pkg.memory.store"], ["pkg.memory"]]
    assert upward(import_graph(pkg), layers) == ["pkg.memory.store.transfer -> pkg.memory.service"]
    assert cycles(import_graph(pkg)) == [["pkg.memory.service", "pkg.memory.store.transfer"]]


def test_a_planted_upward_import_is_found(tmp_path):
    """A session module reaching into long-term memory, as sessions/relevance.py did."""
    pkg = plant(tmp_path, {
        "__init__.py": "", "text.py": "",
        "sessions/__init__.py": "", "sessions/relevance.py": "from .. import text\nfrom ..memory.index import bm25\n",
        "memory/__init__.py": "", "memory/index.py": "from .. import text\n\ndef bm25(): pass\n",
    })
    layers = [["pkg.text"], ["pkg.sessions"], ["pkg.memory"]]
    assert upward(import_graph(pkg), layers) == ["pkg.sessions.relevance -> pkg.memory.index"]
    assert upward(import_graph(pkg), layers, {("pkg.sessions.relevance", "pkg.memory.index")}) == []


def test_an_import_past_the_face_is_found(tmp_path):
    """An action reaching into recall's module, as actions/chat.py did before issue 22 ended."""
    pkg = plant(tmp_path, {
        "__init__.py": "", "actions/__init__.py": "",
        "actions/chat.py": "def send():\n    from ..memory.recall.recall import recall_for_send\n"
                           "    from ..memory import hub\n",
        "memory/__init__.py": "", "memory/hub.py": "from .recall import recall\n",
        "memory/recall/__init__.py": "", "memory/recall/recall.py": "def recall_for_send(): pass\n",
    })
    assert past_the_face(import_graph(pkg), "pkg.memory", {"pkg.memory.hub"}) == \
        ["pkg.actions.chat -> pkg.memory.recall.recall"]


def test_a_module_in_no_layer_is_refused(tmp_path):
    pkg = plant(tmp_path, {"__init__.py": "", "stray.py": ""})
    with pytest.raises(LookupError, match="pkg.stray"):
        layer_of("pkg.stray", [["pkg.other"]])
    assert "pkg.stray" in import_graph(pkg)


def test_the_design_table_is_read_as_written():
    table = """<a id="s1"></a>
| layer | modules | what it knows |
|---|---|---|
| wire | `protocol/` (`messages/`) | x |
| base | `__init__.py`, `config.py` | y |
| memory | `memory/` (`model.py`), `memory/store/` | z |

<a id="s2"></a>"""
    assert design_layers(table) == [["whiteboard.protocol"], ["whiteboard", "whiteboard.config"],
                                    ["whiteboard.memory", "whiteboard.memory.store"]]
