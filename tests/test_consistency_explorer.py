"""Cross-check of the explorer's use of ``ptxkit.consistency`` on every candidate execution it
builds for the whole Dat3M corpus, both models.

The explorer decides each candidate with the model (``consistency.enumerate.search_co``: a pruned
search for a coherence order, after pruning partial rf choices with the monotone checks). Here every
candidate is re-decided without any of that machinery: a consistent candidate, exported with
``Candidate.to_execution`` (its coherence order, Fence-SC order and barrier schedule as explicit
``bar_sync`` edges), must pass ``check``; for an inconsistent one *every* partial coherence order is
enumerated (``exists_consistent``, brute force; co is not total, ISA §8.9.6) and none may pass. This
catches a wrong export (ids, dropped edges, lost barrier quorums) and an unsound search or prune."""

from __future__ import annotations

import importlib

import pytest
from conftest import LITMUS_CORPUS, needs_shared, shared_files

from ptxkit.consistency.enumerate import exists_consistent
from ptxkit.consistency.models import check

LITMUS = shared_files("litmus/PTX/**/*.litmus", LITMUS_CORPUS)


@needs_shared
@pytest.mark.parametrize("model", ["ptx-7.5", "ptx-6.0"])
def test_same_verdicts_as_explorer(model):
    explore_mod = importlib.import_module("ptxkit.explore.engine")
    parser = importlib.import_module("ptxkit.litmus.parser")
    compared, quorum, bad = 0, 0, []
    for path in LITMUS:
        res = explore_mod.explore(parser.parse_litmus_file(path), model, keep_candidates=None)  # every candidate
        cands = [c for lst in res.candidates_by_outcome.values() for c in lst] + list(res.witnesses.values())
        for c in cands:
            ex = c.to_execution(path.stem)
            assert ex.bar_sync is not None  # the explorer's barrier schedule travels with the execution
            quorum += any(e.kind == "B" and e.barrier_count is not None for e in ex.events)
            mine = check(ex, model) if c.consistent else exists_consistent(ex, model)
            compared += 1
            if mine.consistent != c.consistent:
                bad.append(f"{path.name}: explorer {c.consistent} ({c.axiom}), consistency "
                           f"{mine.consistent} {[str(v) for v in mine.violations]}")
    assert not bad, "\n".join(bad[:20])
    assert compared > 500
    assert quorum > 0  # the counted-barrier ("quorum") tests are among them
