"""verify.races: the per-location reduction finds a race exactly when a brute-force check of every
pair of accesses does (ISA §8 data race: conflicting, unordered by happens-before, not morally strong).

Random executions: threads of two CTAs access a few cells (weak or strong reads/writes of 4 or 8
bytes, scopes cta/gpu) and synchronize at random (a release of one thread acquired by another, or a
barrier among all threads); the vector clocks give happens-before."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from ptxkit.verify import races
from ptxkit.verify.context import Context
from ptxkit.verify.races import Table, find_races

NT, NCTA = 3, 2  # threads per CTA, CTAs
T = NT * NCTA

step = st.one_of(
    st.tuples(st.just("acc"), st.integers(0, T - 1), st.integers(0, 3), st.booleans(), st.booleans(),
              st.sampled_from([4, 8]), st.sampled_from(["cta", "gpu"])),
    st.tuples(st.just("sync"), st.integers(0, T - 1), st.integers(0, T - 1)),
    st.tuples(st.just("bar")),
    # one instruction's weak writes by several threads to one cell, equal or different values
    st.tuples(st.just("grp"), st.sets(st.integers(0, T - 1), min_size=2, max_size=4), st.integers(0, 3),
              st.booleans()),
)


def _brute(tab: Table, ctx: Context) -> bool:
    n = len(tab.key)
    for b in range(n):
        for a in range(n):
            if (tab.ev[a], tab.pos[a]) >= (tab.ev[b], tab.pos[b]):
                continue
            if tab.thread[a] == tab.thread[b] or not (tab.write[a] or tab.write[b]):
                continue
            lo_a, hi_a = int(tab.key[a]), int(tab.key[a]) + int(tab.size[a])
            lo_b, hi_b = int(tab.key[b]), int(tab.key[b]) + int(tab.size[b])
            if hi_a <= lo_b or hi_b <= lo_a:
                continue
            ta, tb = int(tab.thread[a]), int(tab.thread[b])
            incl = {1: ta // NT == tb // NT, 3: True}
            moral = tab.strong[a] and tab.strong[b] and lo_a == lo_b and hi_a == hi_b \
                and incl[int(tab.scope[a])] and incl[int(tab.scope[b])]
            if moral:
                continue
            if ctx.clocks.rows[tab.sid[b], ta] >= tab.ep[a]:
                continue
            if tab.ev[a] == tab.ev[b] and tab.write[a] and tab.write[b] and not tab.strong[a] \
                    and not tab.strong[b] and tab.value[a] == tab.value[b] and lo_a == lo_b and hi_a == hi_b:
                continue  # one instruction storing one value: every order leaves the same value
            return True
    return False


@settings(max_examples=400, deadline=None)
@given(st.lists(step, min_size=1, max_size=40))
def test_reduction_agrees_with_all_pairs(steps):
    _check(steps)


@settings(max_examples=100, deadline=None)
@given(st.lists(step, min_size=1, max_size=40))
def test_reduction_in_small_chunks_agrees_with_all_pairs(steps):
    old = races.CHUNK
    races.CHUNK = 2  # cells analysed a few rows at a time (and cells larger than a chunk alone)
    try:
        _check(steps)
    finally:
        races.CHUNK = old


def _check(steps: list) -> None:
    ctx = Context(NT, NCTA, [])
    for s in steps:
        if s[0] == "acc":
            _, t, cell, write, strong, size, scope = s
            key = np.array([cell * 4 if size == 4 else (cell // 2) * 8], np.int64)
            ctx.access(ctx.seq, np.array([t]), key, size, write, strong, scope if strong else "", "generic")
        elif s[0] == "grp":
            _, ts, cell, equal = s
            lanes = np.array(sorted(ts))
            vals = np.full(len(lanes), 7, np.uint64) if equal else np.arange(len(lanes), dtype=np.uint64)
            ctx.access(ctx.seq, lanes, np.full(len(lanes), cell * 4, np.int64), 4, True, False, "", "generic",
                       vals)
        elif s[0] == "sync":
            _, t, u = s
            row = ctx.clocks.release(np.array([t]))[0]
            ctx.clocks.acquire(np.array([u]), int(row))
        else:
            everyone = np.arange(T)
            row = ctx.clocks.new_row(ctx.clocks.joined(everyone))
            ctx.clocks.ep[everyone] += 1
            ctx.clocks.set_row(everyone, row)
        ctx.seq += 1
    tab = Table.of(ctx.acc)
    found = find_races(tab, ctx.clocks, NT, ctx.cluster_of_cta)
    assert bool(found) == _brute(tab, ctx)
    for r in found:  # every reported pair is a real race
        assert tab.thread[r.a] != tab.thread[r.b]
        assert ctx.clocks.rows[tab.sid[r.b], tab.thread[r.a]] < tab.ep[r.a]
