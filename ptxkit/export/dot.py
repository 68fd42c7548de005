"""Witness graphs of PTX memory-model executions as Graphviz DOT (and PNG when ``dot`` is installed).

Events are nodes grouped in one cluster per thread (plus one for the initial writes); edges are
po (immediate successors only), rf, co and fr (transitive reductions), sw (synchronizes-with,
§8.9.4), and optionally cause (§8.9.5). The edges of a violated axiom (its cycle or offending pair)
are drawn thick and red, labelled with the axiom — herd7's habit of showing *why* an execution is
forbidden.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

from ptxkit.consistency.axioms import Violation
from ptxkit.consistency.events import Execution
from ptxkit.consistency.models import DEFAULT_MODEL, CheckResult, check
from ptxkit.explore.result import ExploreResult
from ptxkit.export.files import atomic_write, prepare_directory

STYLE = {
    "po": 'color="black"',
    "rf": 'color="red3", fontcolor="red3"',
    "co": 'color="blue3", fontcolor="blue3"',
    "fr": 'color="darkorange2", fontcolor="darkorange2"',
    "sw": 'color="green4", fontcolor="green4", penwidth=2',
    "cause": 'color="purple", fontcolor="purple", style="dashed"',
    "dep": 'color="gray40", fontcolor="gray40", style="dotted"',
    "rmw": 'color="brown", fontcolor="brown", style="bold"',
}


def _q(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def to_dot(ex: Execution, result: CheckResult | None = None, *, model: str = DEFAULT_MODEL,
           title: str | None = None, show_cause: bool = False) -> str:
    """The DOT text of one execution. ``result`` (computed if None) supplies sw/cause and the
    violations to highlight."""
    if result is None:
        result = check(ex, model)
    rels = result.relations
    n = len(ex.events)
    # violation edges keyed by (src, dst, relation): drawn in place of the plain edge of that relation
    highlight: dict[tuple[int, int, str], str] = {}
    for v in result.violations:
        for a, b, name in v.edges:
            highlight.setdefault((a, b, name), f"{name} [{v.axiom}]")
    lines = ["digraph execution {", '  rankdir="TB"; newrank=true; node [shape=box, fontname="monospace"];']
    verdict = "consistent" if result.consistent else "forbidden: " + ", ".join(
        sorted({f"{v.axiom} §{v.section}" for v in result.violations}))
    lines.append(f"  label={_q((title or ex.name or 'execution') + ' — ' + result.model + ' — ' + verdict)};")
    lines.append('  labelloc="t";')

    groups: dict[int, list[int]] = {}
    for e in ex.events:
        groups.setdefault(e.thread, []).append(e.id)
    for t in sorted(groups):
        evs = sorted(groups[t], key=lambda i: ex.events[i].pos)
        first = ex.events[evs[0]]
        name = "init" if t < 0 else f"P{t} (cta {first.cta}, gpu {first.gpu})"
        lines.append(f"  subgraph cluster_{'init' if t < 0 else t} {{ label={_q(name)}; style=rounded;")
        for i in evs:
            e = ex.events[i]
            label = f"{i}: {e.short()}" + (f"\n{e.label}" if e.label and not e.is_init else "")
            extra = ', style=filled, fillcolor="mistyrose"' if any(i in k[:2] for k in highlight) else ""
            lines.append(f"    e{i} [label={_q(label)}{extra}];")
        lines.append("  }")

    def edge(a: int, b: int, name: str, label: str | None = None) -> str:
        style = STYLE.get(name, "")
        hl = highlight.pop((a, b, name), None)
        if hl is not None:
            return f'  e{a} -> e{b} [label={_q(hl)}, color="red", fontcolor="red", penwidth=3];'
        lab = name if label is None else label
        return f"  e{a} -> e{b} [label={_q(lab)}{', ' + style if style else ''}];"

    po = ex.po
    for a, b in sorted(po):
        if not any((a, c) in po and (c, b) in po for c in range(n)):
            lines.append(edge(a, b, "po", ""))
    for a, b in sorted(ex.rf):
        lines.append(edge(a, b, "rf"))
    co = rels.co.pairs() if rels is not None else ex.co
    co_red = {(a, b) for a, b in co if not any((a, c) in co and (c, b) in co for c in range(n))}
    for a, b in sorted(co_red):
        lines.append(edge(a, b, "co"))
    if rels is not None:
        fr = rels.fr.pairs()
        # fr to the co-first write after the one read from (the rest follow by co)
        fr_red = {(r, w) for r, w in fr if not any((r, c) in fr and (c, w) in co for c in range(n))}
        for a, b in sorted(fr_red):
            lines.append(edge(a, b, "fr"))
        for a, b in sorted(rels.sw.pairs()):
            lines.append(edge(a, b, "sw"))
        if show_cause:
            cause = rels.cause.pairs()
            for a, b in sorted(cause - po):
                lines.append(edge(a, b, "cause"))
    for a, b in sorted(ex.addr | ex.data | ex.ctrl):
        lines.append(edge(a, b, "dep"))
    for a, b in sorted(ex.rmw):
        lines.append(edge(a, b, "rmw"))
    # violation edges that are not drawn yet (e.g. a cause step or a fence order)
    for (a, b, _), hl in sorted(highlight.items()):
        lines.append(f'  e{a} -> e{b} [label={_q(hl)}, color="red", fontcolor="red", penwidth=3];')
    lines.append("}")
    return "\n".join(lines) + "\n"


def have_graphviz() -> bool:
    return shutil.which("dot") is not None


def _png(dot_text: str) -> bytes | None:
    """Graphviz's PNG of a DOT text (None when ``dot`` fails: the .dot file is still written)."""
    r = subprocess.run(["dot", "-Tpng"], input=dot_text.encode(), capture_output=True, timeout=60)
    return r.stdout if r.returncode == 0 else None


def _write(path: Path, text: str, png: bool) -> list[Path]:
    atomic_write(path, text)
    out = [path]
    if png and have_graphviz():
        data = _png(text)
        if data is not None:
            atomic_write(path.with_suffix(".png"), data)
            out.append(path.with_suffix(".png"))
    return out


def write_witness(ex: Execution, directory: str | os.PathLike[str], name: str,
                  result: CheckResult | None = None, *, model: str = DEFAULT_MODEL, show_cause: bool = False,
                  png: bool = True) -> list[Path]:
    """Write ``DIR/NAME.dot`` (and ``NAME.png`` when graphviz's ``dot`` is on PATH); return the paths."""
    d = prepare_directory(directory, "--dot")
    return _write(d / f"{name}.dot", to_dot(ex, result, model=model, title=name, show_cause=show_cause), png)


def write_explore_dot(res: ExploreResult, directory: str | os.PathLike[str], png: bool = True) -> list[Path]:
    """``ptxkit explore --dot DIR``: one graph per outcome — its consistent witness, or (an outcome
    only inconsistent candidates produce) one of them with the violated axiom's edges in red (drawn
    with the coherence order its violation was found for); PNG too when graphviz is installed."""
    d = prepare_directory(directory, "--dot")
    stem = re.sub(r"[^A-Za-z0-9_.+-]", "_", res.program.name or Path(res.program.filename).stem)
    written: list[Path] = []
    outcomes = sorted(res.candidates_by_outcome.items(), key=lambda kv: str(kv[0]))
    for k, (outcome, cands) in enumerate(outcomes):
        c = res.witnesses.get(outcome) or (cands[0] if cands else None)
        if c is None:
            continue
        vals = ", ".join(f"{key}={v}" for key, v in zip(res.keys, outcome))
        kind = "allowed" if c.consistent else "forbidden"
        ex = c.to_execution(stem, with_co=True)
        text = to_dot(ex, check(ex, c.model), model=c.model, title=f"{stem} [{vals}] {kind}")
        written += _write(d / f"{stem}.{k}.{kind}.dot", text, png)
    return written


__all__ = ["Violation", "have_graphviz", "to_dot", "write_explore_dot", "write_witness"]
