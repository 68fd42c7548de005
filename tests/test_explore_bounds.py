"""Bounds never yield a false verdict: hitting --unroll / --max-executions / --timeout makes the
verdict Inconclusive; spin loops are pruned rather than cut; barrier schedules and deadlocks."""

from __future__ import annotations

import pytest
from conftest import LITMUS_CORPUS, needs_shared

from ptxkit.explore.engine import explore
from ptxkit.explore.schedule import barrier_schedules
from ptxkit.litmus.parser import parse_litmus, parse_litmus_file

# P0's loop body stores, so an iteration is not a spin: the path reading f == 0 again and again
# can only be cut by the unroll bound.
LOOP = """PTX loop-with-store
{ x=0; f=0; P0:r0=0; }
 P0@cta 0,gpu 0        | P1@cta 0,gpu 0       ;
 LC00:                 | st.relaxed.gpu f, 1  ;
 st.weak x, 1          |                      ;
 ld.relaxed.gpu r0, f  |                      ;
 beq r0, 0, LC00       |                      ;
exists (P0:r0 == 1)
"""


@pytest.mark.parametrize("k", [0, 1, 3])
def test_unroll_bound_gives_inconclusive(k):
    res = explore(parse_litmus(LOOP, "loop.litmus"), unroll=k)
    assert not res.complete and "unrolled" in res.reason
    # even though a witness for `exists` was found, the search was cut: never Ok/No
    assert res.satisfied > 0
    assert res.verdict == "Inconclusive"


@needs_shared
@pytest.mark.parametrize("name,expected", [("Manual/Ticketlock-acq2rlx-1", "No"),
                                           ("Manual/Ticketlock-acq2rlx-2", "Ok"),
                                           ("Manual/XF-Barrier-rlx", "Ok"),
                                           ("Manual/XF-Barrier-relacq", "No"),
                                           ("Manual/MICRO24-Fig4a-correct", "No")])
def test_spin_loops_are_pruned_not_cut(name, expected):
    # expected values from PTXv7_5-expected.csv; unroll=0 still decides, as the loops only spin
    prog = parse_litmus_file(LITMUS_CORPUS / "litmus" / "PTX" / f"{name}.litmus")
    res = explore(prog, unroll=0)
    assert res.complete and res.spins_pruned > 0
    assert res.verdict == expected


@needs_shared
@pytest.mark.parametrize("k", [1, 2, 5])
def test_max_executions_gives_inconclusive(k):
    prog = parse_litmus_file(LITMUS_CORPUS / "litmus" / "PTX" / "Manual" / "Co-Total-4-threads.litmus")
    full = explore(prog)
    assert full.complete and full.candidates > 5
    res = explore(prog, max_executions=k)
    assert not res.complete and res.candidates == k
    assert res.verdict == "Inconclusive"


def test_timeout_gives_inconclusive():
    res = explore(parse_litmus(LOOP.replace("beq r0, 0, LC00", "           "), "t.litmus"), timeout=0.0)
    assert res.verdict == "Inconclusive" and "timeout" in res.reason


def _bar_events(spec):
    """spec: per thread a list of (ids, count, mode)."""
    from ptxkit.explore.trace import Ev

    evs = []
    for t, bars in enumerate(spec):
        for b in bars:
            evs.append(Ev("F", t, fkind="bar", bar=b))
    return evs


def test_barrier_deadlock_has_no_schedule():
    # PC-bar-sync-sync-3: P0 waits on 0 then 1, P1 on 1 then 0 — no schedule completes
    evs = _bar_events([[((0,), None, "sync"), ((1,), None, "sync")],
                       [((1,), None, "sync"), ((0,), None, "sync")]])
    assert barrier_schedules(evs).schedules == []


def test_barrier_sync_pairs_and_arrive_direction():
    evs = _bar_events([[((1,), None, "sync")], [((1,), None, "sync")]])
    (edges, inst), = barrier_schedules(evs).schedules
    assert edges == {(0, 1), (1, 0)} and inst[0] == inst[1]
    # arrive never waits: its arrival reaches the sync, nothing reaches it
    evs = _bar_events([[((1,), None, "arrive")], [((1,), None, "sync")]])
    (edges, _), = barrier_schedules(evs).schedules
    assert edges == {(0, 1)}


def test_barrier_quorum():
    # three threads, quorum 2: the pair that completes synchronizes both ways, the late one only
    # receives; quorum 4 with three threads never completes
    evs = _bar_events([[((1, 1), 2, "sync")]] * 3)
    got = {e for e, _ in barrier_schedules(evs).schedules}
    assert frozenset({(0, 1), (1, 0), (0, 2), (1, 2)}) in got
    assert all(len(e) == 4 for e in got) and len(got) == 3
    assert barrier_schedules(_bar_events([[((1, 1), 4, "sync")]] * 3)).schedules == []
