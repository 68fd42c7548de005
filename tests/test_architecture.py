"""The package map of docs/architecture.md holds for the code: the import graph between ptxkit's
packages is acyclic and uses only the edges the map allows; no ptxkit module is imported inside a
function (hidden imports are how the old cycles grew); no module is over 700 lines."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import networkx as nx
import pytest

ROOT = Path(__file__).resolve().parent.parent
PKG = ROOT / "ptxkit"
MAX_LINES = 700


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _room(module: str) -> str:
    """``ptxkit.exec_sim.decode`` → ``exec_sim``; ``ptxkit.ir`` → ``ir``; ``ptxkit.__version__`` (a name
    of the root package, not a module) → ``""``."""
    parts = module.split(".")
    if len(parts) < 2 or not ((PKG / parts[1]).is_dir() or (PKG / f"{parts[1]}.py").is_file()):
        return ""
    return parts[1]


def _imports(path: Path) -> list[tuple[str, int, bool]]:
    """(imported ptxkit module, line, at module level) for every import of a ptxkit module."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    me = _module_name(path).split(".")
    package = me if path.name == "__init__.py" else me[:-1]
    top_level = {id(n) for n in tree.body}
    for node in tree.body:  # `if TYPE_CHECKING:` blocks count as module level
        if isinstance(node, ast.If):
            top_level.update(id(n) for n in node.body)
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
                names = [".".join([*base, node.module] if node.module else base)]
            else:
                names = [node.module or ""]
            # `from ptxkit import x` imports the module ptxkit.x
            if names == ["ptxkit"]:
                names = [f"ptxkit.{a.name}" for a in node.names]
        else:
            continue
        for name in names:
            if name == "ptxkit" or name.startswith("ptxkit."):
                out.append((name, node.lineno, id(node) in top_level))
    return out


def _allowed() -> dict[str, set[str]]:
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    block = re.search(r"```deps\n(.*?)```", text, re.S)
    assert block, "docs/architecture.md lost its ```deps block"
    allowed: dict[str, set[str]] = {}
    for line in block.group(1).splitlines():
        room, _, deps = line.partition(":")
        allowed[room.strip()] = set(deps.split())
    return allowed


SOURCES = sorted(PKG.rglob("*.py"))


def _graph() -> nx.DiGraph:
    g = nx.DiGraph()
    for path in SOURCES:
        src = _room(_module_name(path))
        g.add_node(src)
        for name, _line, _top in _imports(path):
            dst = _room(name)
            if dst and dst != src:
                g.add_edge(src, dst)
    return g


def test_every_room_is_on_the_map():
    allowed = _allowed()
    rooms = {_room(_module_name(p)) for p in SOURCES} - {""}
    assert rooms <= set(allowed), f"packages missing from docs/architecture.md: {sorted(rooms - set(allowed))}"
    for room, deps in allowed.items():
        assert deps <= set(allowed), f"{room} depends on unknown rooms {sorted(deps - set(allowed))}"


def test_package_graph_is_acyclic():
    g = _graph()
    cycles = [sorted(c) for c in nx.strongly_connected_components(g) if len(c) > 1]
    assert not cycles, f"import cycles between packages: {cycles}"


def test_map_itself_is_acyclic():
    allowed = _allowed()
    g = nx.DiGraph([(a, b) for a, deps in allowed.items() for b in deps])
    assert nx.is_directed_acyclic_graph(g)


def test_imports_follow_the_map():
    allowed = _allowed()
    bad = []
    for path in SOURCES:
        src = _room(_module_name(path))
        for name, line, _top in _imports(path):
            dst = _room(name)
            if dst and dst != src and dst not in allowed.get(src, set()):
                bad.append(f"{path.relative_to(ROOT)}:{line}: {src} imports {name}")
    assert not bad, "imports the map does not allow:\n" + "\n".join(bad)


def test_no_function_level_imports_of_ptxkit_modules():
    hidden = [f"{p.relative_to(ROOT)}:{line}: {name}"
              for p in SOURCES for name, line, top in _imports(p) if not top]
    assert not hidden, "function-level imports of ptxkit modules:\n" + "\n".join(hidden)


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(PKG)))
def test_module_size(path: Path):
    n = len(path.read_text(encoding="utf-8").splitlines())
    assert n <= MAX_LINES, f"{path.relative_to(ROOT)} has {n} lines (limit {MAX_LINES}): split it by job"


def test_checker_sees_a_planted_cycle_and_hidden_import(tmp_path: Path):
    """The checks above can fail: a function-level import and a back edge are detected."""
    f = tmp_path / "ptxkit" / "ir.py"
    f.parent.mkdir()
    f.write_text("from ptxkit.ptx import types\n\ndef f():\n    from ptxkit.commands import run\n")
    global ROOT
    old = ROOT
    try:
        ROOT = tmp_path
        found = _imports(f)
    finally:
        ROOT = old
    assert ("ptxkit.ptx", 1, True) in found and ("ptxkit.commands", 4, False) in found
    assert "ptx" not in _allowed()["ir"]
