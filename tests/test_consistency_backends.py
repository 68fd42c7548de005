"""The bitset backend and the networkx/pair-set backend agree on every named relation and verdict,
on random executions (hypothesis); and the relation algebra matches its set-theoretic definition."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ptxkit.consistency.events import ExecutionBuilder
from ptxkit.consistency.models import MODELS, check
from ptxkit.consistency.rel import BitRel, PairRel
from ptxkit.consistency.relations import base_relations, derive, same_scope_rows, scope_includes
from ptxkit.consistency.vocab import Placement
from ptxkit.consistency.vocab import scope_includes as vocab_scope_includes

SEMS_W = ["weak", "relaxed", "release", "sc"]
SEMS_R = ["weak", "relaxed", "acquire", "sc"]
SCOPES = ["cta", "cluster", "gpu", "sys"]


@st.composite
def executions(draw):
    b = ExecutionBuilder("random")
    nthreads = draw(st.integers(1, 3))
    for t in range(nthreads):
        b.thread(t, cta=draw(st.integers(0, 1)), gpu=draw(st.integers(0, 1)),
                 cluster=draw(st.sampled_from([None, 0, 1])))
    writes: dict[str, list[int]] = {}
    reads = []
    for _ in range(draw(st.integers(1, 8))):
        t = draw(st.integers(0, nthreads - 1))
        kind = draw(st.sampled_from("RWWFBA"))
        loc = draw(st.sampled_from(["x", "y"]))
        proxy = draw(st.sampled_from(["generic", "generic", "surface"]))
        vaddr = draw(st.sampled_from([loc, loc, "z"]))
        if kind == "W":
            sem = draw(st.sampled_from(SEMS_W))
            w = b.write(t, loc, draw(st.integers(1, 3)), sem=sem,
                        scope=None if sem == "weak" else draw(st.sampled_from(SCOPES)),
                        proxy=proxy, vaddr=vaddr)
            writes.setdefault(loc, []).append(w)
        elif kind == "R":
            sem = draw(st.sampled_from(SEMS_R))
            reads.append((b.read(t, loc, 0, sem=sem, proxy=proxy, vaddr=vaddr,
                                 scope=None if sem == "weak" else draw(st.sampled_from(SCOPES))), loc))
        elif kind == "A":
            r, w = b.rmw(t, loc, 0, 1, sem=draw(st.sampled_from(["relaxed", "acquire", "release", "acq_rel"])),
                         scope=draw(st.sampled_from(SCOPES)))
            reads.append((r, loc))
            writes.setdefault(loc, []).append(w)
        elif kind == "F":
            which = draw(st.integers(0, 3))
            if which == 0:
                b.proxy_fence(t, "surface")
            elif which == 1:
                b.alias_fence(t)
            else:
                b.fence(t, draw(st.sampled_from(["sc", "acq_rel"])), draw(st.sampled_from(SCOPES)))
        else:
            b.barrier(t, draw(st.integers(0, 1)), op=draw(st.sampled_from(["sync", "arrive"])))
    for r, loc in reads:
        cands = [b.init(loc), *writes.get(loc, [])]
        b.add_rf(draw(st.sampled_from(cands)), r)
    for ws in writes.values():
        if len(ws) > 1:
            order = draw(st.permutations(ws))
            k = draw(st.integers(0, len(ws) - 1))
            b.add_co(*order[: k + 1])
    ev_ids = [r for r, _ in reads]
    if ev_ids and draw(st.booleans()):
        r = draw(st.sampled_from(ev_ids))
        later = [e.id for e in b.events if e.thread == b.events[r].thread and e.pos > b.events[r].pos]
        if later:
            b.add_dep(draw(st.sampled_from(["addr", "data", "ctrl"])), r, draw(st.sampled_from(later)))
    return b.build()


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(executions(), st.sampled_from(sorted(MODELS)))
def test_backends_agree(ex, model):
    m = MODELS[model]
    bb, pb = base_relations(ex, m, "bits"), base_relations(ex, m, "pairs")
    for order in (set(), None):
        rb, rp = derive(bb, order), derive(pb, order)
        nb, np_ = rb.named(), rp.named()
        assert nb.keys() == np_.keys()
        for name in nb:
            assert nb[name].pairs() == np_[name].pairs(), name
    cb, cp = check(ex, model, backend="bits"), check(ex, model, backend="pairs")
    assert cb.consistent == cp.consistent
    assert [v.axiom for v in cb.violations] == [v.axiom for v in cp.violations]


pairs_st = st.sets(st.tuples(st.integers(0, 5), st.integers(0, 5)), max_size=14)


@settings(max_examples=150, deadline=None)
@given(pairs_st, pairs_st, st.integers(0, 63), st.integers(0, 63))
def test_algebra_matches_set_definitions(a, b, s, t):
    n = 6
    A, B = BitRel.from_pairs(n, a), BitRel.from_pairs(n, b)
    assert (A | B).pairs() == a | b
    assert (A & B).pairs() == a & b
    assert (A - B).pairs() == a - b
    assert (A @ B).pairs() == {(x, z) for x, y in a for y2, z in b if y == y2}
    assert A.inv().pairs() == {(y, x) for x, y in a}
    assert A.filter(s, t).pairs() == {(x, y) for x, y in a if s >> x & 1 and t >> y & 1}
    # closure: the least transitive superset
    closure = set(a)
    while True:
        more = closure | {(x, z) for x, y in closure for y2, z in closure if y == y2}
        if more == closure:
            break
        closure = more
    assert A.plus().pairs() == closure == PairRel.from_pairs(n, a).plus().pairs()
    cyc = A.find_cycle()
    has_cycle = any(x == y for x, y in closure)
    assert (cyc is not None) == has_cycle == (PairRel.from_pairs(n, a).find_cycle() is not None)
    if cyc:
        for x, y in zip(cyc, cyc[1:] + cyc[:1]):
            assert (x, y) in a


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(executions(), st.sampled_from(sorted(MODELS)), st.data())
def test_may_extend_is_sound(ex, model, data):
    """may_extend's pruning claim: a violation found on a prefix (events cut from thread ends, some
    rf/co/dep edges dropped) is a violation of every extension — here, of the full execution."""
    from ptxkit.consistency.models import may_extend

    keep = set(range(len(ex.events)))
    for t in ex.threads():
        evs = sorted((e for e in ex.events if e.thread == t), key=lambda e: e.pos)
        cut = data.draw(st.integers(0, len(evs)))
        keep -= {e.id for e in evs[cut:]}
    drop = data.draw(st.sets(st.sampled_from(sorted(ex.rf | ex.co | ex.data) or [(-1, -1)])))
    partial = ex.with_(rf=ex.rf - drop, co=ex.co - drop, data=ex.data - drop)
    # an RMW cut in half is not a prefix the explorer builds: keep both halves or neither
    for r, w in ex.rmw:
        if (r in keep) != (w in keep):
            keep -= {r, w}
    v = may_extend(partial.restrict(keep), model)
    if v is not None:
        assert not check(ex, model).consistent, str(v)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(executions())
def test_same_scope_by_grouping_is_the_pairwise_definition(ex):
    """``sr`` is built by grouping threads per scope level (linear); it must be exactly the pairs the
    §8.5 predicate ``scope_includes`` accepts both ways."""
    ev = ex.events
    rows = same_scope_rows(ev)
    for a in ev:
        want = {b.id for b in ev if scope_includes(a, b) and scope_includes(b, a)}
        got = {j for j in range(len(ev)) if rows[a.id] >> j & 1}
        assert got == want, (a, got, want)


def test_scope_includes_follows_the_hierarchy_of_8_5():
    """§8.5 by hand: .cta reaches the threads of one CTA, .cluster those of one cluster, .gpu one
    device, .sys every thread; no scope (a weak access) reaches none."""
    t = Placement(gpu=0, cluster=0, cta=0)
    same_cta = Placement(gpu=0, cluster=0, cta=0)
    other_cta = Placement(gpu=0, cluster=0, cta=1)
    other_cluster = Placement(gpu=0, cluster=1, cta=2)
    other_gpu = Placement(gpu=1, cluster=0, cta=0)
    table = {  # scope -> which of (same_cta, other_cta, other_cluster, other_gpu) it includes
        "cta": (True, False, False, False),
        "cluster": (True, True, False, False),
        "gpu": (True, True, True, False),
        "sys": (True, True, True, True),
        None: (False, False, False, False),
    }
    for scope, want in table.items():
        got = tuple(vocab_scope_includes(scope, t, o) for o in (same_cta, other_cta, other_cluster, other_gpu))
        assert got == want, scope
    with pytest.raises(ValueError):
        vocab_scope_includes("block", t, t)
