"""DOT witnesses: well-formed graphs, the right edges, the violated axiom highlighted; PNG via graphviz."""

from __future__ import annotations

import re
import shutil

import pytest

from ptxkit.consistency.events import ExecutionBuilder
from ptxkit.consistency.models import check
from ptxkit.export.dot import to_dot, write_witness


def barrier_mp():
    b = ExecutionBuilder("bar-MP")
    w = b.write(0, "x", 1, label="st.global.u32 [x], 1")
    b.barrier(0, 0)
    b.barrier(1, 0)
    r = b.read(1, "x", rf="init", label="ld.global.u32 %r1, [x]")
    return b.build(), w, r


def parse_edges(text: str) -> list[tuple[int, int, str]]:
    return [(int(a), int(b), attrs) for a, b, attrs in re.findall(r"e(\d+) -> e(\d+) \[(.*)\];", text)]


def test_dot_structure_and_highlight():
    ex, w, r = barrier_mp()
    res = check(ex)
    assert not res.consistent
    text = to_dot(ex, res)
    assert text.startswith("digraph") and text.count("{") == text.count("}")
    nodes = {int(i) for i in re.findall(r"^\s+e(\d+) \[label=", text, re.M)}
    assert nodes == set(range(len(ex.events)))
    edges = parse_edges(text)
    assert all(a in nodes and b in nodes for a, b, _ in edges)
    kinds = {(a, b): attrs for a, b, attrs in edges}
    init = next(e.id for e in ex.events if e.is_init)
    assert 'label="rf"' in kinds[(init, r)]
    # the Causality violation: r -fr-> w is drawn red with the axiom's name
    assert "Causality" in kinds[(r, w)] and 'color="red"' in kinds[(r, w)]
    # sw between the two barriers, both ways (bar.sync arrives and waits)
    bars = [e.id for e in ex.events if e.kind == "B"]
    assert "sw" in kinds[(bars[0], bars[1])] or "Causality" in kinds[(bars[0], bars[1])]
    assert "forbidden: Causality §8.10.6" in text
    assert "cluster_init" in text and "cluster_0" in text and "cluster_1" in text


def test_dot_consistent_execution_has_no_red():
    b = ExecutionBuilder("MP-relaxed")
    b.write(0, "x", 1)
    f = b.write(0, "y", 1, sem="relaxed", scope="gpu")
    b.read(1, "y", sem="relaxed", scope="gpu", rf=f)
    b.read(1, "x", rf="init")
    ex = b.build()
    text = to_dot(ex, show_cause=True)
    assert "consistent" in text and 'color="red"' not in text
    # fr from the stale read to the write it missed
    assert any("fr" in attrs for _, _, attrs in parse_edges(text))


def test_write_witness_files(tmp_path):
    ex, _, _ = barrier_mp()
    paths = write_witness(ex, tmp_path, "bar-MP", png=shutil.which("dot") is not None)
    assert paths[0].name == "bar-MP.dot" and paths[0].read_text().startswith("digraph")


@pytest.mark.skipif(shutil.which("dot") is None, reason="graphviz 'dot' not installed")
def test_png_with_graphviz(tmp_path):
    ex, _, _ = barrier_mp()
    paths = write_witness(ex, tmp_path, "w")
    png = [p for p in paths if p.suffix == ".png"]
    assert png and png[0].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
