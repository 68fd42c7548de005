"""Every Dat3M litmus test (both expected-outcome CSVs, with their model) and every bundled
``corpora/litmus/*.ptx`` kernel: explore it, export the Lean and SMT obligations, and

* discharge every SMT query with z3 — each allowed outcome's witness SAT, each forbidden outcome's
  candidate skeletons UNSAT with rf / coherence order / Fence-SC order left free. z3 decides from an
  encoding of the model written independently of the explorer's checker, so any disagreement with
  ``explore`` fails here;
* parse the Lean file back and re-check every witness and candidate with ``ptxkit.consistency``
  (the checker the Lean library mirrors).

Time bounds: the exploration gets 30 s, each z3 query 60 s (the whole file takes about a minute
and a half on two cores)."""

from __future__ import annotations

import csv
import re
import shlex
from pathlib import Path

import pytest
from conftest import LITMUS_CORPUS, ROOT

from ptxkit.export.claims import target, to_obligations
from ptxkit.export.lean import write_lean
from ptxkit.export.lean_reader import recheck
from ptxkit.export.smt import check_file, write_smt

pytest.importorskip("z3")

KEEP = None  # keep every candidate: forbidden outcomes need the complete list


def _rows() -> list[tuple[str, str]]:
    out = []
    for csvname, model in (("PTXv7_5-expected.csv", "ptx-7.5"), ("PTXv6_0-expected.csv", "ptx-6.0")):
        path = LITMUS_CORPUS / csvname
        if path.is_file():
            with path.open() as f:
                out += [(row[0], model) for row in csv.reader(f) if row]
    return out


def _discharge(res, tmp_path: Path) -> None:
    t = to_obligations(res)
    # only a test without any candidate execution (every barrier schedule deadlocks) has nothing to claim
    assert t.obligations or res.candidates == 0, "no obligation exported"
    if res.complete:
        # every claim the verdict needs was made (none skipped for a capped list or a huge product)
        assert t.unproven == "", t.unproven
        if res.condition is not None and target(res.condition, res.verdict) is None:
            # a verdict that some execution satisfies (violates, for forall) the condition: its witness
            want = res.condition.quantifier != "forall"
            assert any(o.kind == "allowed" and o.satisfies_condition == want for o in t.obligations)
    bad = []
    for p in write_smt(t, tmp_path / "smt"):
        expect, got, _ = check_file(p, timeout_ms=60000)
        if expect != got:
            bad.append(f"{p.name}: explore says {expect}, z3 says {got}")
    assert not bad, bad
    lean = write_lean(t, tmp_path / "lean")
    wrong = [f"{r.claim.kind}_{r.claim.index}: {r.detail}" for r in recheck(lean) if not r.ok]
    assert not wrong, wrong


@pytest.mark.slow
@pytest.mark.parametrize("rel,model", _rows(), ids=[f"{m}:{r.split('/PTX/')[-1]}" for r, m in _rows()])
def test_dat3m_exports_agree_with_explore(rel, model, tmp_path):
    from ptxkit.explore.engine import explore
    from ptxkit.litmus.parser import parse_litmus_file

    res = explore(parse_litmus_file(LITMUS_CORPUS / rel), model, keep_candidates=KEEP, timeout=30)
    _discharge(res, tmp_path)


PTX_LITMUS = sorted((ROOT / "corpora" / "litmus").glob("*.ptx"))


@pytest.mark.slow
@pytest.mark.parametrize("path", PTX_LITMUS, ids=[p.name for p in PTX_LITMUS])
def test_bundled_ptx_litmus_exports_agree_with_explore(path, tmp_path):
    """The kernels state their exploration in a ``// explore: ARGS`` header line."""
    from ptxkit.cli import build_parser
    from ptxkit.commands.explore import _condition, load_program
    from ptxkit.explore.engine import Explorer

    m = re.search(r"^// explore: (.*)$", path.read_text(), re.M)
    assert m, "no '// explore:' header"
    args = build_parser().parse_args(["explore", str(path), *shlex.split(m.group(1))])
    prog = load_program(args)
    cond = _condition(args, len(prog.threads), prog.filename)
    res = Explorer(prog, args.model, unroll=args.unroll, condition=cond, keep_candidates=KEEP,
                   timeout=30).run()
    _discharge(res, tmp_path)
