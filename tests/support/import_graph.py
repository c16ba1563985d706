"""The host's import graph, read from the source with `ast` (nothing is imported), and the
two checks design §1 asks of it: no cycle, and no import from a higher layer.

What counts as an edge: every `import` and `from ... import` the module's code can run,
at module level or inside a function (a lazy import defers the cost, not the dependency:
the vault and the model settings importing each other inside functions was a cycle all
the same). Imports under `if TYPE_CHECKING:` count as well: never executed, they still
make the importer know the module above it (a store that names its service for an
annotation is written against that service). `from pkg import name` is an edge to `pkg.name` when
that is a module in the tree, else to `pkg`. Importing a module runs its parent packages'
`__init__` too; that implicit edge is not counted (each `__init__` is checked on its own
imports).
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Mapping
from pathlib import Path

Graph = dict[str, set[str]]


def modules(root: Path) -> dict[str, Path]:
    """Dotted name -> file, for the package at `root` (its name is the folder's)."""
    found = {}
    for path in sorted(root.rglob("*.py")):
        parts = list(path.relative_to(root.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def _imports(tree: ast.AST) -> Iterable[ast.Import | ast.ImportFrom]:
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node


def import_graph(root: Path) -> Graph:
    """Module -> the modules of the same package it imports."""
    known = modules(root)
    top = root.name
    graph: Graph = {name: set() for name in known}
    for name, path in known.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in _imports(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            else:
                if node.level:
                    base = package.split(".")
                    base = base[:len(base) - (node.level - 1)]
                    source = ".".join(base + ([node.module] if node.module else []))
                else:
                    source = node.module or ""
                targets = [f"{source}.{alias.name}" if f"{source}.{alias.name}" in known else source
                           for alias in node.names]
            for target in targets:
                while target and target not in known and "." in target:
                    target = target.rpartition(".")[0]  # `import a.b.c` where c is a name
                if (target == top or target.startswith(top + ".")) and target in known and target != name:
                    graph[name].add(target)
    return graph


def cycles(graph: Mapping[str, set[str]]) -> list[list[str]]:
    """Each set of modules that import one another, round a loop (Tarjan's SCC, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    found: list[list[str]] = []
    counter = 0
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == node:
                        break
                if len(group) > 1:
                    found.append(sorted(group))
    return found


def layer_of(module: str, layers: list[list[str]]) -> int:
    """The row of the longest prefix naming `module` (a package covers what is inside it, but
    the top package, listed for its `__init__`, only itself)."""
    best, rank = -1, -1
    for row, prefixes in enumerate(layers):
        for prefix in prefixes:
            inside = "." in prefix and module.startswith(prefix + ".")
            if (module == prefix or inside) and len(prefix) > best:
                best, rank = len(prefix), row
    if rank < 0:
        raise LookupError(f"{module} is in no layer of design §1")
    return rank


def upward(graph: Mapping[str, set[str]], layers: list[list[str]],
           allowed: Iterable[tuple[str, str]] = ()) -> list[str]:
    """Imports from a higher row than the importer's, as `importer -> imported`."""
    exceptions = set(allowed)
    return [f"{a} -> {b}" for a in sorted(graph) for b in sorted(graph[a])
            if layer_of(b, layers) > layer_of(a, layers) and (a, b) not in exceptions]


def past_the_face(graph: Mapping[str, set[str]], package: str, face: Iterable[str]) -> list[str]:
    """Imports into `package` from outside it that reach past its `face` (the modules the
    rest of the tree may use), as `importer -> imported`."""
    allowed = set(face)
    return [f"{a} -> {b}" for a in sorted(graph) if not (a == package or a.startswith(package + "."))
            for b in sorted(graph[a]) if b.startswith(package + ".") and b not in allowed]
