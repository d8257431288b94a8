"""The server's floors: modules import downwards only, with no circle, and SQL and FastAPI stay on their floors.

Every module of ``forsale.server`` is parsed (not imported) and every import counts: at module level,
inside functions and under ``TYPE_CHECKING``, since a circle dodged by a local import is still a circle
for whoever reads the code. :data:`FLOORS` declares the order in one place; a module's floor is the first
entry its dotted name starts with.

What is not yet right is listed, by edge, in :data:`NOT_YET` (the restructuring of issue 31 is under
way): an upward import, or an import that closes a circle within a floor. The tests fail when a new one
appears, and also when a listed one disappears, so the list shrinks as the code does and never says more
than is true.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import forsale.server

SERVER = Path(forsale.server.__file__).resolve().parent

FLOORS = (
    ("base", ("errors", "names", "metrics", "tokens")),
    ("store", ("store",)),
    ("ops", ("ops",)),
    ("people", ("people",)),
    ("table", ("table",)),
    ("lobby", ("lobby",)),
    ("http", ("http",)),
    ("app", ("app", "")),
)
"""From the ground up: a module may import from its own floor and the floors below it, never above."""

SQL_FLOOR = "store"
"""The only floor that imports SQLAlchemy."""
NO_WEB = ("base", "store", "ops", "people", "table", "lobby")
"""Floors that import neither FastAPI nor Starlette: what a table does does not depend on the transport."""

NOT_YET: frozenset[tuple[str, str]] = frozenset()
"""Imports (module, imported module) still to be removed, each a debt of issue 31: upward ones, and those
that close a circle within a floor."""
SQL_NOT_YET: frozenset[str] = frozenset()
"""Modules off the storage floor that still hold SQL (their queries are to move to ``store/``)."""
WEB_NOT_YET: frozenset[str] = frozenset()
"""Modules below the transport that still import FastAPI or Starlette (a request, a WebSocket, a cookie)."""


def module_name(path: Path) -> str:
    parts = path.relative_to(SERVER).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules() -> dict[str, Path]:
    return {module_name(path): path for path in sorted(SERVER.rglob("*.py"))}


def imports(name: str, path: Path, known: set[str]) -> Iterator[str]:
    """Every module ``name`` imports (as dotted names, relative ones resolved: ``forsale.server.x.y``)."""
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    package = ["forsale", "server", *filter(None, package)]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            module = ".".join(base + ([node.module] if node.module else []))
            for alias in node.names:  # ``from . import chat`` imports the module chat
                sub = f"{module}.{alias.name}"
                yield sub if sub.removeprefix("forsale.server.") in known else module


def graph() -> dict[str, set[str]]:
    """The server's modules (``table.live``...) and the server modules each imports."""
    found = modules()
    known = set(found)
    edges: dict[str, set[str]] = {}
    for name, path in found.items():
        edges[name] = set()
        for target in imports(name, path, known):
            if target.startswith("forsale.server"):
                inner = target.removeprefix("forsale.server").lstrip(".")
                while inner not in known and "." in inner:
                    inner = inner.rsplit(".", 1)[0]
                if inner in known and inner != name and not (inner == "" and name):
                    edges[name].add(inner)
    return edges


def floor(name: str) -> int:
    for level, (_, prefixes) in enumerate(FLOORS):
        if any(name == p or name.startswith(p + ".") for p in prefixes if p) or name in prefixes:
            return level
    raise AssertionError(f"forsale.server.{name} is on no floor: add it to FLOORS")


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def path_around(edges: dict[str, set[str]], circle: list[str]) -> list[str]:
    """One circle through the first module of a strongly connected ``circle``, module by module, to print."""
    inside, start = set(circle), circle[0]
    paths = {start: [start]}
    queue = [start]
    while queue:  # breadth first: the shortest way back to the start
        node = queue.pop(0)
        for child in sorted(edges[node] & inside):
            if child == start:
                return [*paths[node], start]
            if child not in paths:
                paths[child] = [*paths[node], child]
                queue.append(child)
    raise AssertionError(f"{circle} holds no circle through {start}")


def upward(edges: dict[str, set[str]]) -> set[tuple[str, str]]:
    return {(a, b) for a, targets in edges.items() for b in targets if floor(b) > floor(a)}


def test_every_module_is_on_a_floor() -> None:
    for name in graph():
        floor(name)


def test_no_module_imports_a_floor_above_its_own() -> None:
    found = upward(graph())
    new = sorted(found - NOT_YET)
    assert not new, "upward imports (module -> a module on a higher floor):\n" + "\n".join(
        f"  {a} -> {b}" for a, b in new
    )
    edges = graph()
    gone = sorted((a, b) for a, b in NOT_YET if b not in edges.get(a, set()))
    assert not gone, "NOT_YET lists imports that are gone; remove them from it:\n" + "\n".join(map(str, gone))


def test_the_import_graph_has_no_circle_but_those_of_the_imports_still_upward() -> None:
    edges = graph()
    for a, b in NOT_YET:
        edges[a].discard(b)
    circles = cycles(edges)
    assert not circles, "import circles:\n" + "\n".join("  " + " -> ".join(path_around(edges, c)) for c in circles)


def test_sqlalchemy_is_imported_on_the_storage_floor_only() -> None:
    found = modules()
    known = set(found)
    off = {
        name
        for name, path in found.items()
        if FLOORS[floor(name)][0] != SQL_FLOOR
        and any(t == "sqlalchemy" or t.startswith("sqlalchemy.") for t in imports(name, path, known))
    }
    assert off == SQL_NOT_YET, (
        f"SQLAlchemy off the storage floor: {sorted(off - SQL_NOT_YET)}; gone: {sorted(SQL_NOT_YET - off)}"
    )


def test_fastapi_and_starlette_stay_above_the_table() -> None:
    found = modules()
    known = set(found)
    web = ("fastapi", "starlette")
    off = {
        name
        for name, path in found.items()
        if FLOORS[floor(name)][0] in NO_WEB and any(t.split(".")[0] in web for t in imports(name, path, known))
    }
    assert off == WEB_NOT_YET, (
        f"FastAPI or Starlette below the transport: {sorted(off - WEB_NOT_YET)}; gone: {sorted(WEB_NOT_YET - off)}"
    )


def test_the_checker_sees_a_circle_and_an_upward_import() -> None:
    """The checks above would pass on an empty graph: this one shows they can fail."""
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert path_around({"a": {"b"}, "b": {"c", "a"}, "c": {"a"}}, ["a", "b", "c"]) == ["a", "b", "a"]
    assert upward({"store.x": {"table.y"}, "table.y": {"store.x"}}) == {("store.x", "table.y")}
