"""Cross-check: ``ptxkit.consistency`` and the explorer's own checker (``ptxkit.litmus.cat``, a
transcription of Dat3M's cat files) give the same verdict on every candidate execution the explorer
builds for the whole Dat3M corpus, both models. A consistent candidate comes with its coherence order; for an
inconsistent one every partial coherence order is tried (co is not total, ISA 8.9.6)."""

from __future__ import annotations

import pytest

from conftest import LITMUS_CORPUS, needs_shared, shared_files
from ptxkit.consistency.enumerate import exists_consistent
from ptxkit.consistency.models import check

LITMUS = shared_files("litmus/PTX/**/*.litmus", LITMUS_CORPUS)


@needs_shared
@pytest.mark.parametrize("model", ["ptx-7.5", "ptx-6.0"])
def test_same_verdicts_as_explorer(model):
    explore_mod = pytest.importorskip("ptxkit.exec_sim.explore")
    parser = pytest.importorskip("ptxkit.litmus.parser")
    compared, bad = 0, []
    for path in LITMUS:
        res = explore_mod.explore(parser.parse_litmus_file(path), model, keep_candidates=10**6)  # every candidate
        cands = [c for lst in res.candidates_by_outcome.values() for c in lst] + list(res.witnesses.values())
        for c in cands:
            ex = c.to_execution(path.stem)
            if ex.bar_sync is None:  # the explorer's barrier schedule (quorums), when not passed on
                ex.bar_sync = set(c.sync_barrier)
            mine = check(ex, model) if c.consistent else exists_consistent(ex, model)
            compared += 1
            if mine.consistent != c.consistent:
                bad.append(f"{path.name}: explorer {c.consistent} ({c.axiom}), consistency "
                           f"{mine.consistent} {[str(v) for v in mine.violations]}")
    assert not bad, "\n".join(bad[:20])
    assert compared > 500
