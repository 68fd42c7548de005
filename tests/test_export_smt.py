"""The SMT-LIB twin (ptxkit/export/smt.py) discharged with z3, against independent verdicts:
ISA litmus shapes argued by hand, the ``ptxkit.consistency`` checker on random executions, a
brute-force enumeration of run-time choices, and the explorer on every Dat3M / bundled litmus test
(tests/test_export_corpus.py)."""

from __future__ import annotations

import itertools
import random
from dataclasses import replace

import pytest

from ptxkit.consistency.events import ExecutionBuilder
from ptxkit.consistency.models import check
from ptxkit.consistency.registry import MODELS
from ptxkit.export.lean_reader import co_choices
from ptxkit.export.obligations import Obligation, OExecution, TestObligations, from_execution, to_execution
from ptxkit.export.smt import check_file, check_text, encode_execution, queries, write_smt

z3 = pytest.importorskip("z3")


def z3_consistent(ox: OExecution, model: str = "ptx-7.5", free: bool = False) -> bool:
    got, _ = check_text("\n".join(encode_execution(ox, model, free=free)))
    assert got in ("sat", "unsat"), got
    return got == "sat"


# ----------------------------------------------------------------------------- ISA shapes by hand

def mp(flag_seen: bool, data_seen: bool, wsem="release", rsem="acquire", wscope="gpu", rscope="gpu",
       ctas=(0, 1)):
    """Message passing: P0 st x,1; st.<wsem> y,1 | P1 ld.<rsem> y; ld x."""
    b = ExecutionBuilder("MP")
    b.thread(0, cta=ctas[0])
    b.thread(1, cta=ctas[1])
    wx = b.write(0, "x", 1)
    wy = b.write(0, "y", 1, sem=wsem, scope=None if wsem == "weak" else wscope)
    b.read(1, "y", sem=rsem, scope=None if rsem == "weak" else rscope, rf=wy if flag_seen else "init")
    b.read(1, "x", rf=wx if data_seen else "init")
    return b.build()


def sb(fence: str | None, scope="gpu", r0=0, r1=0):
    """Store buffering: P0 st x,1; [fence]; ld y | P1 st y,1; [fence]; ld x (reads from init if 0)."""
    b = ExecutionBuilder("SB")
    b.thread(0, cta=0)
    b.thread(1, cta=1)
    wx = b.write(0, "x", 1, sem="relaxed", scope="sys")
    if fence:
        b.fence(0, sem=fence, scope=scope)
    wy = b.write(1, "y", 1, sem="relaxed", scope="sys")
    if fence:
        b.fence(1, sem=fence, scope=scope)
    b.read(0, "y", sem="relaxed", scope="sys", rf=wy if r0 else "init")
    b.read(1, "x", sem="relaxed", scope="sys", rf=wx if r1 else "init")
    return b.build()


# (execution, model, expected consistent) — each argued from the PTX ISA chapter 8 text
ISA_CASES = [
    # §8.8/§8.9.4: release → acquire on y synchronizes; x=1 is then causally before ld x (§8.10.6)
    ("MP rel/acq gpu, r=(1,0)", lambda: mp(True, False), "ptx-7.5", False),
    ("MP rel/acq gpu, r=(1,1)", lambda: mp(True, True), "ptx-7.5", True),
    ("MP rel/acq gpu, r=(0,0)", lambda: mp(False, False), "ptx-7.5", True),
    # relaxed accesses form no release/acquire pattern: nothing orders ld x after st x
    ("MP relaxed, r=(1,0)", lambda: mp(True, False, "relaxed", "relaxed"), "ptx-7.5", True),
    # .cta scope does not include a thread of another CTA: not morally strong, no sync (§8.7)
    ("MP rel/acq cta across CTAs", lambda: mp(True, False, wscope="cta", rscope="cta"), "ptx-7.5", True),
    ("MP rel/acq cta same CTA", lambda: mp(True, False, wscope="cta", rscope="cta", ctas=(0, 0)), "ptx-7.5", False),
    ("MP rel/acq gpu, r=(1,0), v6.0", lambda: mp(True, False), "ptx-6.0", False),
    # SB: without fences both reads may see 0; morally strong fence.sc pairs forbid it (§8.10.2)
    ("SB relaxed (0,0)", lambda: sb(None), "ptx-7.5", True),
    ("SB fence.sc.gpu (0,0)", lambda: sb("sc"), "ptx-7.5", False),
    ("SB fence.sc.gpu (1,1)", lambda: sb("sc", r0=1, r1=1), "ptx-7.5", True),
    ("SB fence.acq_rel (0,0)", lambda: sb("acq_rel"), "ptx-7.5", True),
    ("SB fence.sc.cta across CTAs (0,0)", lambda: sb("sc", scope="cta"), "ptx-7.5", True),
    ("SB fence.sc.gpu (0,0) v6.0", lambda: sb("sc"), "ptx-6.0", False),
]


@pytest.mark.parametrize("name,make,model,expected", ISA_CASES, ids=[c[0] for c in ISA_CASES])
def test_isa_shapes(name, make, model, expected):
    ex = make()
    ox = from_execution(ex)
    # the witness as built (Fence-SC order left to the solver, §8.9.3)
    assert z3_consistent(ox, model) is expected
    # the same verdict from the Python checker (a second, independent implementation)
    assert check(ex, model).consistent is expected


def test_atomicity_and_coherence_by_hand():
    """§8.10.3: two morally strong atom.add on x, both reading 0, cannot both succeed;
    §8.10.1: a thread's own later write is co-after its earlier one."""
    b = ExecutionBuilder()
    b.thread(0, cta=0)
    b.thread(1, cta=1)
    _r0, w0 = b.rmw(0, "x", 0, 1, sem="relaxed", scope="gpu", rf="init")
    _r1, w1 = b.rmw(1, "x", 0, 1, sem="relaxed", scope="gpu", rf="init")
    b.add_co(w0, w1)
    assert not z3_consistent(from_execution(b.build()))
    b = ExecutionBuilder()
    a1 = b.write(0, "x", 1)
    a2 = b.write(0, "x", 2)
    b.add_co(a2, a1)  # against program order
    assert not z3_consistent(from_execution(b.build()))
    b = ExecutionBuilder()
    a1 = b.write(0, "x", 1)
    a2 = b.write(0, "x", 2)
    b.add_co(a1, a2)
    assert z3_consistent(from_execution(b.build()))


def test_well_formedness_is_checked():
    """A witness whose read takes a value no rf source wrote is rejected, not silently accepted."""
    ox = from_execution(mp(True, True))
    bad_ev = [replace(e, value=7) if e.kind == "R" and e.loc == "x" else e for e in ox.events]
    assert z3_consistent(ox)
    assert not z3_consistent(replace(ox, events=bad_ev))
    # an rf edge into a write
    w = next(e.eid for e in ox.events if e.kind == "W" and not e.is_init)
    assert not z3_consistent(replace(ox, rf=ox.rf | {(0, w)}))


# ----------------------------------------------------------------------------- random executions

# every semantics an event of that kind may carry (the vocabulary's; "sc"/"acq_rel" on an access is the
# model's spelling a litmus test can produce — the SMT twin once left them out of release/acquire)
SEMS_W = ["weak", "relaxed", "release", "acq_rel", "sc"]
SEMS_R = ["weak", "relaxed", "acquire", "acq_rel", "sc"]
SCOPES = ["cta", "gpu", "sys"]


def random_execution(rng: random.Random, max_ops: int = 3, co_partial: float = 0.2):
    """A random well-formed execution: 2–3 threads in 1–2 CTAs; reads, writes (incl. through a generic
    alias ``y`` of ``x`` and the surface proxy), RMWs, fences (sc/acq_rel, proxy, alias), barriers;
    random rf, and a random (sometimes partial) coherence order."""
    b = ExecutionBuilder("rand")
    nthreads = rng.randint(2, 3)
    for t in range(nthreads):
        b.thread(t, cta=rng.randint(0, 1))
    locs = ["x", "z"]
    writes = {loc: [] for loc in locs}
    reads = []
    val = 1
    for t in range(nthreads):
        for _ in range(rng.randint(1, max_ops)):
            k = rng.random()
            loc = rng.choice(locs)
            vaddr = "y" if loc == "x" and rng.random() < 0.25 else None
            proxy = "surface" if rng.random() < 0.1 else "generic"
            if k < 0.33:
                sem = rng.choice(SEMS_W)
                w = b.write(t, loc, val, sem=sem, scope=None if sem == "weak" else rng.choice(SCOPES),
                            proxy=proxy, vaddr=vaddr)
                writes[loc].append(w)
                val += 1
            elif k < 0.66:
                sem = rng.choice(SEMS_R)
                r = b.read(t, loc, None, sem=sem, scope=None if sem == "weak" else rng.choice(SCOPES),
                           proxy=proxy, vaddr=vaddr)
                reads.append((r, loc))
            elif k < 0.76:
                r, w = b.rmw(t, loc, None, val, sem=rng.choice(["relaxed", "acq_rel", "acquire", "release", "sc"]),
                             scope=rng.choice(SCOPES))
                val += 1
                reads.append((r, loc))
                writes[loc].append(w)
            elif k < 0.88:
                b.fence(t, sem=rng.choice(["sc", "acq_rel", "acquire", "release"]), scope=rng.choice(SCOPES))
            elif k < 0.93:
                if rng.random() < 0.5:
                    b.proxy_fence(t, "surface")
                else:
                    b.alias_fence(t)
            else:
                b.barrier(t, 0)
    for loc in locs:
        b.init(loc)
    for r, loc in reads:
        w = rng.choice([b._init[loc]] + writes[loc])
        b.rf.add((w, r))
        b.events[r] = replace(b.events[r], value=b.events[w].value)
    for loc in locs:
        ws = list(writes[loc])
        rng.shuffle(ws)
        for a, c in itertools.pairwise(ws):
            if rng.random() >= co_partial:
                b.add_co(a, c)
    return b.build()


@pytest.mark.parametrize("model", sorted(MODELS))
def test_random_witnesses_agree_with_consistency(model):
    """The ISA-wording encoding must give ptxkit.consistency's verdict on every random execution
    (both verdicts occur: the test fails if the sample is one-sided)."""
    seen = set()
    for seed in range(120):
        ex = random_execution(random.Random(seed))
        py = check(ex, model).consistent
        assert z3_consistent(from_execution(ex), model) is py, (seed, model)
        seen.add(py)
    assert seen == {True, False}


def _brute_force(ex, model: str) -> bool:
    """Some choice of rf (same location and value, not from the reader's own future), coherence
    order (any partial order, init first) and Fence-SC order makes ``ex`` consistent."""
    ox = from_execution(ex)
    reads = [e for e in ox.events if e.kind == "R"]
    opts = [[w.eid for w in ox.events if w.kind == "W" and w.loc == r.loc and w.value == r.value
             and (r.eid, w.eid) not in ox.po] for r in reads]
    for pick in itertools.product(*opts):
        rf = {(w, r.eid) for w, r in zip(pick, reads)}
        for co in co_choices(ox, ()):
            if check(to_execution(replace(ox, rf=frozenset(rf), co=frozenset(co), sync_fence=None)),
                     model).consistent:
                return True
    return False


def test_free_choices_agree_with_brute_force():
    """Forbidden-outcome mode (rf, co, Fence-SC order free) against an explicit enumeration of those
    choices checked by ptxkit.consistency, on small random executions with several writes."""
    seen = set()
    for seed in range(60):
        ex = random_execution(random.Random(1000 + seed), max_ops=2)
        if sum(e.kind == "W" for e in ex.events) > 6:
            continue
        want = _brute_force(ex, "ptx-7.5")
        got = z3_consistent(from_execution(ex).without_choices(), "ptx-7.5", free=True)
        assert got is want, seed
        seen.add(want)
    assert seen == {True, False}


# ----------------------------------------------------------------------------- files

def test_write_smt_files_and_statuses(tmp_path):
    t = TestObligations("MP-hand", "ptx-7.5", "hand-built", "~exists (P1:r0 == 1 /\\ P1:r1 == 0)", "Ok", [
        Obligation("allowed", {"P1:r0": 1, "P1:r1": 1}, witness=from_execution(mp(True, True))),
        Obligation("forbidden", {"P1:r0": 1, "P1:r1": 0}, candidates=[from_execution(mp(True, False))]),
    ])
    paths = write_smt(t, tmp_path)
    assert [p.name for p in paths] == ["MP_hand_o0_allowed.smt2", "MP_hand_o1_forbidden_s0.smt2"]
    for p in paths:
        text = p.read_text()
        assert "(check-sat)" in text and "; claim:" in text
        expect, got, _ = check_file(p)
        assert expect == got
    # the forbidden claim really depends on the release/acquire pair: weaken it and z3 finds an execution
    weak = [replace(e, sem="relaxed") if e.sem in ("release", "acquire") else e
            for e in from_execution(mp(True, False)).events]
    t2 = TestObligations("MP-weakened", "ptx-7.5", obligations=[Obligation(
        "forbidden", {}, candidates=[replace(from_execution(mp(True, False)), events=weak)])])
    (q,) = queries(t2)
    assert check_text(q.text)[0] == "sat"
