"""Classic litmus shapes as hand-built executions, each verdict argued from the PTX ISA (chapter 8).

Every execution fixes rf (the outcome under test); ``exists_consistent`` then tries every partial
coherence order, so "forbidden" means *no* co choice (and no Fence-SC order) makes it consistent.
"""

from __future__ import annotations

import pytest

from ptxkit.consistency.enumerate import exists_consistent
from ptxkit.consistency.events import ExecutionBuilder
from ptxkit.consistency.models import check, may_extend, validate


def verdict(b: ExecutionBuilder, model: str = "ptx-7.5") -> bool:
    ex = b.build()
    assert validate(ex) == []
    return exists_consistent(ex, model).consistent


def mp(flag_w: str, flag_r: str, scope: str = "gpu", cta1: int = 0, gpu1: int = 0,
       fences: str | None = None) -> ExecutionBuilder:
    """MP: P0 ``st x,1; [fence]; st y,1`` | P1 ``ld y (=1); [fence]; ld x (=0)``."""
    b = ExecutionBuilder("MP").thread(0).thread(1, cta=cta1, gpu=gpu1)
    b.write(0, "x", 1)
    if fences:
        b.fence(0, fences, scope)
    wy = b.write(0, "y", 1, sem=flag_w, scope=None if flag_w == "weak" else scope)
    b.read(1, "y", sem=flag_r, scope=None if flag_r == "weak" else scope, rf=wy)
    if fences:
        b.fence(1, fences, scope)
    b.read(1, "x", rf="init")
    return b


# --------------------------------------------------------------------------- MP

def test_mp_release_acquire_forbidden():
    # §8.8: st.release y is a release pattern, ld.acquire y an acquire pattern; they are morally
    # strong (both strong, .gpu includes the other thread, §8.7) and the read observes the write
    # (§8.9.2), so they synchronize (§8.9.4). W(x) po;sw;po R(x) is base causality, same address,
    # generic proxy (§8.9.5) ⇒ W(x) causes R(x); R(x)=0 reads init, co-before W(x): §8.10.6 forbids.
    assert not verdict(mp("release", "acquire"))


def test_mp_relaxed_allowed():
    # relaxed flag accesses are morally strong but form no release/acquire pattern: no sw, so
    # nothing orders W(x) before R(x) in causality order — the stale read is allowed.
    assert verdict(mp("relaxed", "relaxed"))


def test_mp_weak_allowed():
    assert verdict(mp("weak", "weak"))


def test_mp_fences_acq_rel_forbidden():
    # §8.8: fence.acq_rel; st.relaxed y is a release pattern, ld.relaxed y; fence.acq_rel an acquire
    # pattern; the fences are morally strong (both .gpu, same GPU) ⇒ sw, and the outcome is forbidden.
    assert not verdict(mp("relaxed", "relaxed", fences="acq_rel"))


def test_mp_fences_but_weak_flag_allowed():
    # A fence followed by a *weak* write is not a release pattern (it needs a strong write, §8.8).
    assert verdict(mp("weak", "weak", fences="acq_rel"))


def test_mp_cta_scope_across_ctas_allowed():
    # §8.7: .cta scope does not include a thread of another CTA ⇒ not morally strong ⇒ no sw.
    assert verdict(mp("release", "acquire", scope="cta", cta1=1))


def test_mp_cta_scope_same_cta_forbidden():
    assert not verdict(mp("release", "acquire", scope="cta", cta1=0))


def test_mp_gpu_scope_across_gpus_allowed():
    # .gpu does not include a thread on another GPU; .sys would.
    assert verdict(mp("release", "acquire", scope="gpu", gpu1=1))
    assert not verdict(mp("release", "acquire", scope="sys", gpu1=1))


def test_mp_via_rmw_chain_forbidden():
    # §8.9.2: observation passes through atomics: W(y)=1 obs the atom's read, its write y=2 obs
    # ld.acquire y=2 ⇒ st.release y sw ld.acquire y (Dat3M Manual/MP+RMW: unreachable).
    b = ExecutionBuilder().thread(0).thread(1).thread(2)
    b.write(0, "x", 1, sem="relaxed", scope="gpu")
    wy = b.write(0, "y", 1, sem="release", scope="gpu")
    _, aw = b.rmw(1, "y", 1, 2, sem="relaxed", scope="gpu", rf=wy)
    b.read(2, "y", sem="acquire", scope="gpu", rf=aw)
    b.read(2, "x", sem="relaxed", scope="gpu", rf="init")
    b.add_co(wy, aw)
    assert not verdict(b)


# --------------------------------------------------------------------------- SB

def sb(fence: str | None, scope: str = "gpu", cta1: int = 0) -> ExecutionBuilder:
    b = ExecutionBuilder("SB").thread(0).thread(1, cta=cta1)
    b.write(0, "x", 1)
    if fence:
        b.fence(0, fence, scope)
    b.read(0, "y", rf="init")
    b.write(1, "y", 1)
    if fence:
        b.fence(1, fence, scope)
    b.read(1, "x", rf="init")
    return b


def test_sb_fence_sc_forbidden():
    # §8.9.3: the two morally strong fence.sc are ordered by Fence-SC order, say F0 before F1; F0
    # synchronizes with F1 (§8.9.4) ⇒ W(x) po;sw;po R(x) ⇒ W(x) causes R(x), which read init ⇒ fr;cause
    # cycle (§8.10.6). The other order is symmetric (W(y) causes R(y)). Both reads 0: forbidden.
    assert not verdict(sb("sc"))


def test_sb_fence_acq_rel_allowed():
    # fence.acq_rel only synchronizes through a release/acquire pattern that *observes* a write;
    # in SB each read observes the initial write (not morally strong, not a pattern) ⇒ allowed.
    assert verdict(sb("acq_rel"))


def test_sb_no_fence_allowed():
    assert verdict(sb(None))


def test_sb_fence_sc_cta_out_of_scope_allowed():
    # fence.sc.cta in different CTAs: not morally strong (§8.7) ⇒ not in Fence-SC order ⇒ allowed
    # (Dat3M Manual/SB+sc-cta-outScope: r1 != 1 reachable).
    assert verdict(sb("sc", scope="cta", cta1=1))


# --------------------------------------------------------------------------- LB

def lb(dep: bool, sem: str = "weak") -> ExecutionBuilder:
    """LB: P0 ``ld x (=1); st y,1`` | P1 ``ld y (=1); st x,1``."""
    b = ExecutionBuilder("LB")
    sc = None if sem == "weak" else "gpu"
    r0 = b.read(0, "x", 1, sem="acquire" if sem == "acq" else ("relaxed" if sem != "weak" else "weak"), scope=sc)
    w0 = b.write(0, "y", 1, sem="release" if sem == "acq" else ("relaxed" if sem != "weak" else "weak"), scope=sc)
    r1 = b.read(1, "y", 1, sem="acquire" if sem == "acq" else ("relaxed" if sem != "weak" else "weak"), scope=sc)
    w1 = b.write(1, "x", 1, sem="release" if sem == "acq" else ("relaxed" if sem != "weak" else "weak"), scope=sc)
    b.add_rf(w1, r0).add_rf(w0, r1)
    if dep:
        b.add_dep("data", r0, w0).add_dep("data", r1, w1)
    return b


def test_lb_plain_allowed():
    # v7.5 has no rule against po;rf cycles without dependencies or synchronization.
    assert verdict(lb(False))


def test_lb_data_dependencies_forbidden():
    # §8.10.4 No-Thin-Air: rf ∪ dep has the cycle r0 -data-> w0 -rf-> r1 -data-> w1 -rf-> r0.
    res = exists_consistent(lb(True).build())
    assert not res.consistent
    assert res.violations[0].axiom == "No-Thin-Air"
    assert len(res.violations[0].cycle) == 4


def test_lb_release_acquire_forbidden():
    # st.release y / ld.acquire y synchronize (P0→P1) ⇒ r0 po;sw;po w1, and w1 -rf-> r0: rf;cause.
    assert not verdict(lb(False, "acq"))


# --------------------------------------------------------------------------- IRIW

def iriw(sem: str, fence: str | None = None) -> ExecutionBuilder:
    """IRIW: W x | W y | R x=1; R y=0 | R y=1; R x=0."""
    sc = None if sem == "weak" else "gpu"
    b = ExecutionBuilder("IRIW")
    wx = b.write(0, "x", 1, sem="relaxed" if sem != "weak" else "weak", scope=sc)
    wy = b.write(1, "y", 1, sem="relaxed" if sem != "weak" else "weak", scope=sc)
    b.read(2, "x", sem=sem, scope=sc, rf=wx)
    if fence:
        b.fence(2, fence, "gpu")
    b.read(2, "y", sem=sem, scope=sc, rf="init")
    b.read(3, "y", sem=sem, scope=sc, rf=wy)
    if fence:
        b.fence(3, fence, "gpu")
    b.read(3, "x", sem=sem, scope=sc, rf="init")
    return b


def test_iriw_acquire_allowed():
    # PTX is not multi-copy atomic for acquire loads: nothing orders the two readers' views.
    assert verdict(iriw("acquire"))


def test_iriw_fence_sc_forbidden():
    # With fence.sc between the reads, Fence-SC order relates the morally strong F2, F3 (§8.9.3);
    # say F2 first, so F2 sw F3 (§8.9.4). W(x) obs R2(x) (relaxed, morally strong, §8.9.2) and
    # R2(x) po F2 sw F3 po R3(x) is base causality on one address ⇒ W(x) causes R3(x) (§8.9.5),
    # but R3(x) read init, co-before W(x): fr;cause (§8.10.6). The other order is symmetric on y.
    assert not verdict(iriw("relaxed", fence="sc"))


# --------------------------------------------------------------------------- coherence shapes

def test_corr_relaxed_forbidden():
    # CoRR: W x=1 | R x=1; R x=0 with morally strong W, R1: W obs R1 (§8.9.2), R1 po R2 same
    # address generic ⇒ W causes R2 (§8.9.5), and R2 reads init co-before W ⇒ §8.10.6 forbids.
    b = ExecutionBuilder()
    w = b.write(0, "x", 1, sem="relaxed", scope="gpu")
    b.read(1, "x", sem="relaxed", scope="gpu", rf=w)
    b.read(1, "x", sem="relaxed", scope="gpu", rf="init")
    assert not verdict(b)


def test_corr_weak_allowed_v75_forbidden_v60():
    # Weak reads are not morally strong with W: no observation, so v7.5 allows the stale second read.
    # v6.0's SC-per-Location concerns only morally strong communication plus po-loc, so it allows it
    # too — Dat3M Manual/CoRR-weak-weak (exists r1=1,r2=0) is 1 in both CSVs.
    b = ExecutionBuilder()
    w = b.write(0, "x", 1)
    b.read(1, "x", rf=w)
    b.read(1, "x", rf="init")
    assert verdict(b)
    assert verdict(b, "ptx-6.0")


def test_2plus2w_release_forbidden_with_total_co():
    # 2+2W: P0 st x,1; st.release y,2 | P1 st y,1; st.release x,2 with co x: 2 before 1, y: 2 before 1.
    # The relaxed/release writes of one location are morally strong ⇒ co must order them; with no
    # synchronization (no reads) cause adds nothing beyond po, and po pairs are different locations
    # ⇒ allowed in v7.5 (no SC-per-location); Dat3M WRW+2W-like shapes agree.
    b = ExecutionBuilder()
    x1 = b.write(0, "x", 1, sem="relaxed", scope="gpu")
    y2 = b.write(0, "y", 2, sem="relaxed", scope="gpu")
    y1 = b.write(1, "y", 1, sem="relaxed", scope="gpu")
    x2 = b.write(1, "x", 2, sem="relaxed", scope="gpu")
    b.add_co(x2, x1).add_co(y2, y1)
    assert check(b.build()).consistent


def test_coherence_ms_writes_must_be_ordered():
    # §8.9.6: two morally strong writes to x left unordered in co ⇒ inconsistent (Coherence).
    b = ExecutionBuilder()
    b.write(0, "x", 1, sem="relaxed", scope="gpu")
    b.write(1, "x", 2, sem="relaxed", scope="gpu")
    res = check(b.build())
    assert not res.consistent and res.violations[0].axiom == "Coherence"
    # …while two weak racing writes may stay unordered (co is partial).
    b = ExecutionBuilder()
    b.write(0, "x", 1)
    b.write(1, "x", 2)
    assert check(b.build()).consistent


def test_coherence_po_writes():
    # Same thread, same location: W1 po W2 is base causality ⇒ §8.10.1 needs W1 co W2.
    b = ExecutionBuilder()
    w1 = b.write(0, "x", 1)
    w2 = b.write(0, "x", 2)
    b.add_co(w2, w1)
    res = check(b.build())
    assert not res.consistent and res.violations[0].axiom == "Coherence"


# --------------------------------------------------------------------------- barriers

def test_barrier_mp_forbidden():
    # §8.9.4: bar.sync arrivals synchronize with the waits of the same barrier in the same CTA:
    # st x,1 po B0 sw B1 po ld x ⇒ the store causes the load, which cannot read init (§8.10.6).
    b = ExecutionBuilder()
    b.write(0, "x", 1)
    b.barrier(0, 0)
    b.barrier(1, 0)
    b.read(1, "x", rf="init")
    assert not verdict(b)


def test_barrier_other_cta_allowed():
    # bar.sync is CTA-scoped: the same barrier id in another CTA is a different barrier.
    b = ExecutionBuilder().thread(1, cta=1)
    b.write(0, "x", 1)
    b.barrier(0, 0)
    b.barrier(1, 0)
    b.read(1, "x", rf="init")
    assert verdict(b)


def test_barrier_different_ids_allowed():
    b = ExecutionBuilder()
    b.write(0, "x", 1)
    b.barrier(0, 0)
    b.barrier(1, 1)
    b.read(1, "x", rf="init")
    assert verdict(b)


def test_barrier_arrive_only_signals():
    # bar.arrive does not wait: P0 arrive, P1 sync ⇒ P0's earlier store is visible after P1's sync,
    # but P0's later load is not ordered after P1's store.
    b = ExecutionBuilder()
    b.write(0, "x", 1)
    b.barrier(0, 0, op="arrive")
    b.barrier(1, 0, op="sync")
    b.read(1, "x", rf="init")
    assert not verdict(b)
    b = ExecutionBuilder()
    b.barrier(0, 0, op="arrive")
    b.read(0, "x", rf="init")
    b.write(1, "x", 1)
    b.barrier(1, 0, op="sync")
    assert verdict(b)


# --------------------------------------------------------------------------- atomicity

def test_rmw_atomicity():
    # §8.10.3: two morally strong atom.add on x both reading 0 would put one write between the
    # other's read and write ⇒ forbidden; final x == 2 (Litmus Test 1 of §8.10.3).
    b = ExecutionBuilder()
    b.rmw(0, "x", 0, 1, scope="sys", rf="init")
    b.rmw(1, "x", 0, 1, scope="sys", rf="init")
    res = exists_consistent(b.build())
    assert not res.consistent
    assert {v.axiom for v in res.violations} & {"Atomicity", "Coherence"}


def test_rmw_atomicity_not_morally_strong_allowed():
    # Litmus Test 2 of §8.10.3: atom.cta vs atom.gpu in different CTAs are not morally strong ⇒ the
    # lost update (both read 0, final 1) is allowed.
    b = ExecutionBuilder().thread(1, cta=1)
    b.rmw(0, "x", 0, 1, scope="cta", rf="init")
    b.rmw(1, "x", 0, 1, scope="gpu", rf="init")
    assert verdict(b)


# --------------------------------------------------------------------------- proxies (v7.5)

def test_proxy_surface_mp_needs_proxy_fence():
    # §8.6 / ISCA'22: a surface write and a generic read of the same memory are not ordered by
    # base causality alone (different proxies); a fence.proxy.surface in the writer's CTA after the
    # write restores proxy-preserved base causality.
    def build(with_fence: bool) -> ExecutionBuilder:
        b = ExecutionBuilder()
        b.write(0, "x", 2, proxy="surface")
        if with_fence:
            b.proxy_fence(0, "surface")
        f = b.write(0, "flag", 1, sem="release", scope="gpu")
        b.read(1, "flag", sem="acquire", scope="gpu", rf=f)
        b.read(1, "x", rf="init")
        return b

    assert verdict(build(False))
    assert not verdict(build(True))
    # v6.0 has no proxies: the plain MP argument forbids it even without the proxy fence.
    assert not verdict(build(False), "ptx-6.0")


def test_proxy_generic_alias_needs_alias_fence():
    # y is a generic alias of x (another virtual address): without fence.proxy.alias the write to x
    # does not preserve causality to the read of y.
    def build(with_fence: bool) -> ExecutionBuilder:
        b = ExecutionBuilder()
        b.write(0, "x", 1)
        if with_fence:
            b.alias_fence(0)
        f = b.write(0, "flag", 1, sem="release", scope="gpu")
        b.read(1, "flag", sem="acquire", scope="gpu", rf=f)
        b.read(1, "x", vaddr="y", rf="init")
        return b

    assert verdict(build(False))
    assert not verdict(build(True))


# --------------------------------------------------------------------------- incremental check

def test_may_extend_prunes_only_monotone():
    # A complete forbidden MP: its prefix with only P1's read of x=0 and the sync is already dead.
    ex = mp("release", "acquire").build()
    v = may_extend(ex)
    assert v is not None and v.axiom == "Causality"
    # Unordered morally strong writes are *not* a reason to prune (co may still be added).
    b = ExecutionBuilder()
    b.write(0, "x", 1, sem="relaxed", scope="gpu")
    b.write(1, "x", 2, sem="relaxed", scope="gpu")
    assert may_extend(b.build()) is None
    assert not check(b.build()).consistent


def _thread_prefixes(ex):
    """Every execution made of a program-order prefix of each thread (init writes kept, relations
    restricted; an RMW is kept whole or not at all, as the explorer builds it)."""
    import itertools

    per = [sorted((e for e in ex.events if e.thread == t and not e.is_init), key=lambda e: e.pos)
           for t in ex.threads()]
    inits = {e.id for e in ex.events if e.is_init}
    for cuts in itertools.product(*[range(len(evs) + 1) for evs in per]):
        keep = inits | {e.id for evs, c in zip(per, cuts) for e in evs[:c]}
        if any((r in keep) != (w in keep) for r, w in ex.rmw):
            continue
        yield ex.restrict(keep)


@pytest.mark.parametrize("shape,allowed", [
    (lambda: mp("release", "acquire"), False), (lambda: mp("relaxed", "relaxed"), True),
    (lambda: mp("release", "acquire", scope="cta", cta1=1), True), (lambda: sb("sc"), False),
    (lambda: sb(None), True), (lambda: lb(True), False), (lambda: lb(False), True),
    (lambda: lb(False, "acq"), False), (lambda: iriw("acquire"), True), (lambda: iriw("relaxed", fence="sc"), False),
])
def test_may_extend_sound_on_prefixes(shape, allowed):
    # Soundness of the pruning: a prefix may only be pruned if *no* extension is consistent. For the
    # allowed shapes (argued above) some co choice completes the full execution consistently, so none
    # of its prefixes may be pruned; for the forbidden ones pruning is allowed, and the monotone
    # (co-free) violations — MP, LB — are found on a prefix already.
    full = shape().build()
    assert exists_consistent(full).consistent is allowed
    pruned = [p for p in _thread_prefixes(full) if may_extend(p) is not None]
    if allowed:
        assert pruned == []
    elif full.name in ("MP", "LB"):
        assert pruned, "the Causality / No-Thin-Air cycle should be visible before the end"


@pytest.mark.parametrize("model", ["ptx-7.5", "ptx-6.0", "ptx-7.5-alloy"])
def test_sc_order_given_or_searched(model):
    ex = sb("sc").build()
    assert not exists_consistent(ex, model).consistent
    # Given a Fence-SC order explicitly, the verdict is the same.
    fs = [e.id for e in ex.events if e.is_fence_sc]
    assert not check(ex.with_(sc_order={(fs[0], fs[1])}), model).consistent


def test_explicit_barrier_schedule():
    # An explorer's quorum schedule can give the barrier sw edges directly (Execution.bar_sync):
    # here P0's bar.sync did not join P1's instance, so the stale read is allowed.
    b = ExecutionBuilder()
    b.write(0, "x", 1)
    b0 = b.barrier(0, 0)
    b1 = b.barrier(1, 0)
    b.read(1, "x", rf="init")
    ex = b.build()
    assert not check(ex).consistent
    assert check(ex.with_(bar_sync=set())).consistent
    assert not check(ex.with_(bar_sync={(b0, b1)})).consistent


def test_rmw_halves_may_carry_the_atomic_sem():
    # Giving both halves of atom.acq_rel the sem 'acq_rel' means the same as acquire-read +
    # release-write (Event.is_acquire / is_release read the kind), so MP through an atom.acq_rel
    # flag is forbidden either way.
    from dataclasses import replace

    for split in (True, False):
        b = ExecutionBuilder()
        b.write(0, "x", 1)
        r, w = b.rmw(0, "y", 0, 1, sem="acq_rel", scope="gpu", rf="init")
        if not split:
            b.events[r] = replace(b.events[r], sem="acq_rel")
            b.events[w] = replace(b.events[w], sem="acq_rel")
        b.read(1, "y", sem="acquire", scope="gpu", rf=w)
        b.read(1, "x", rf="init")
        assert not verdict(b)


def test_resolve_location_aliases():
    # Dat3M: y @ generic aliases x; s1 @ surface aliases y; t @ texture aliases x
    from ptxkit.consistency.events import resolve_location
    from ptxkit.explore.program import Location

    locs = {"x": Location("x"), "y": Location("y", alias_of="x", proxy="generic"),
            "s1": Location("s1", alias_of="y", proxy="surface"),
            "t": Location("t", alias_of="x", proxy="texture")}
    assert resolve_location(locs, "x") == ("x", "x", "generic")
    assert resolve_location(locs, "y") == ("x", "y", "generic")  # another virtual address of x
    assert resolve_location(locs, "s1") == ("x", "y", "surface")  # the surface proxy reaching y
    assert resolve_location(locs, "t") == ("x", "x", "texture")
    assert resolve_location(locs, "undeclared") == ("undeclared", "undeclared", "generic")


@pytest.mark.parametrize("sems,forbidden", [(("acquire", "release", "acquire"), True),
                                            (("relaxed", "relaxed", "relaxed"), False)])
def test_wrc_cumulativity(sems, forbidden):
    # WRC: P0 st.relaxed x,1 | P1 ld x (=1); st y,1 | P2 ld y (=1); ld x (=0).
    # With acquire/release: P0's store is observed by P1's load (§8.9.2), P1's st.release y
    # synchronizes with P2's ld.acquire y (§8.9.4), so observation;base-causality puts P0's store
    # before P2's load of x in causality order (§8.9.5) — the stale read is forbidden (§8.10.6).
    # All relaxed: no release/acquire pattern, no sw — allowed.
    r1, w1, r2 = sems
    b = ExecutionBuilder("WRC")
    wx = b.write(0, "x", 1, sem="relaxed", scope="gpu")
    b.read(1, "x", sem=r1, scope="gpu", rf=wx)
    wy = b.write(1, "y", 1, sem=w1, scope="gpu")
    b.read(2, "y", sem=r2, scope="gpu", rf=wy)
    b.read(2, "x", rf="init")
    assert verdict(b) is not forbidden
