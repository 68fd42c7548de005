"""The explorer's engine on small hand-argued tests (expected outcomes from the ISA text, not from
the code): atomics and value sets, thin air, coherence, proxies, the two models."""

from __future__ import annotations

import pytest

from ptxkit.explore.engine import explore
from ptxkit.litmus.parser import parse_litmus


def run(text, model="ptx-7.5", **kw):
    return explore(parse_litmus(text, "t.litmus"), model, **kw)


COUNTER = """PTX counter
{ x=0; }
 P0@cta 0,gpu 0 | P1@cta 0,gpu 0 | P2@cta 1,gpu 0 ;
 atom.relaxed.gpu.add r0, x, 1 | atom.relaxed.gpu.add r0, x, 1 | atom.relaxed.gpu.add r0, x, 1 ;
COND
"""


def test_atomic_counter_never_loses_an_update():
    # ISA §8.10.3 Atomicity: morally strong RMWs (gpu scope, same GPU) are never interleaved, so the
    # reads see 0, 1, 2 in some order and x ends at 3
    res = run(COUNTER.replace("COND", "forall (x == 3)"))
    assert res.verdict == "Ok" and res.complete
    res = run(COUNTER.replace("COND", ""))
    finals = {dict(zip(res.keys, o))["x"] for o in res.outcomes}
    reads = {tuple(sorted(v for k, v in zip(res.keys, o) if k.endswith("r0"))) for o in res.outcomes}
    assert finals == {3} and reads == {(0, 1, 2)}
    assert len(res.outcomes) == 6  # 3! orders


def test_cta_scoped_atomics_across_ctas_can_lose_updates():
    # ISA §8.7: .cta-scoped operations of different CTAs are not morally strong: no atomicity
    text = COUNTER.replace(".gpu.add", ".cta.add")
    assert run(text.replace("COND", "exists (x == 1)")).verdict == "Ok"


def test_no_values_out_of_thin_air():
    # LB with data dependencies: values only come from writes, and rf ∪ dep must be acyclic (§8.10.5)
    text = """PTX LB+data
{ x=0; y=0; }
 P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;
 ld.relaxed.gpu r0, x | ld.relaxed.gpu r1, y ;
 st.relaxed.gpu y, r0 | st.relaxed.gpu x, r1 ;
exists (P0:r0 == 1 \\/ P1:r1 == 1)
"""
    assert run(text).verdict == "No"
    # with constants the load-buffering outcome is allowed
    text2 = text.replace("st.relaxed.gpu y, r0", "st.relaxed.gpu y, 1").replace(
        "st.relaxed.gpu x, r1", "st.relaxed.gpu x, 1").replace("\\/", "/\\")
    assert run(text2).verdict == "Ok"


CORR = """PTX CoRR
{ x=0; }
 P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;
 st.SEM.gpu x, 1 | ld.SEM.gpu r0, x ;
                 | ld.SEM.gpu r1, x ;
exists (P1:r0 == 1 /\\ P1:r1 == 0)
"""


@pytest.mark.parametrize("model", ["ptx-7.5", "ptx-6.0"])
def test_coherence_of_relaxed_reads(model):
    # CoRR with strong accesses: a later read cannot read a co-earlier write (Causality, §8.10.6;
    # v6.0 also SC-per-Location)
    text = CORR.replace("st.SEM", "st.relaxed").replace("ld.SEM", "ld.relaxed")
    assert run(text, model).verdict == "No"


def test_proxy_needs_a_proxy_fence():
    # ISA §8.6: a surface write is not observed through the generic proxy without proxy fences
    text = """PTX proxy-MP
{ x=0; flag=0; s @ surface aliases x; }
 P0@cta 0,gpu 0 | P1@cta 0,gpu 0 ;
 sust.weak s, 1 | ld.acquire.gpu r0, flag ;
 FENCE0 st.release.gpu flag, 1 | ld.weak r1, x ;
exists (P1:r0 == 1 /\\ P1:r1 == 0)
"""
    no_fence = text.replace("FENCE0 ", "")
    assert run(no_fence).verdict == "Ok"
    fenced = text.replace("FENCE0 st.release.gpu flag, 1 |", "fence.proxy.surface | ;\n st.release.gpu flag, 1 |")
    assert run(fenced).verdict == "No"
    # v6.0 has no proxies: the surface write is just a write to x
    assert run(no_fence, "ptx-6.0").verdict == "No"


def test_outcome_counts_and_numbers():
    text = """PTX MP
{ x=0; y=0; }
 P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;
 st.weak x, 1 | ld.weak r0, y ;
 st.weak y, 1 | ld.weak r1, x ;
exists (P1:r0 == 1 /\\ P1:r1 == 0)
"""
    res = run(text)
    assert res.verdict == "Ok"
    assert sorted(res.outcomes) == [(0, 0), (0, 1), (1, 0), (1, 1)]
    assert res.consistent == 4 and res.satisfied == 1
    # each consistent outcome has a witness whose rf explains its values (one rf edge per load)
    assert sorted(res.witnesses) == sorted(res.outcomes)
    for _out, w in res.witnesses.items():
        assert len(w.rf) == 2
        for wr, rd in w.rf:
            assert w.events[wr].value == w.events[rd].value and w.events[wr].loc == w.events[rd].loc
