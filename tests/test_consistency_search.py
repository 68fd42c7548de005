"""``consistency.enumerate.search_co`` — the coherence-order search ``ptxkit explore`` decides every
candidate with — against brute force: every strict partial order on each location's writes
(``co_choices``, ISA §8.9.6: co is partial) checked one by one with ``check``. Also: a cached
``static_relations`` of other values gives the same relations as building from scratch."""

from __future__ import annotations

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from test_consistency_backends import executions

from ptxkit.consistency.enumerate import co_choices, search_co
from ptxkit.consistency.events import ExecutionBuilder
from ptxkit.consistency.models import MODELS, check, may_extend
from ptxkit.consistency.relations import base_relations, derive, static_relations


def _init_only(ex):
    """``ex`` with its coherence order cut back to the initial writes (what the explorer searches);
    at most 3 writes per location besides the initial one, so brute force stays small."""
    ev = ex.events
    for loc in {e.location for e in ev if e.kind == "W"}:
        assume(sum(e.kind == "W" and not e.is_init and e.location == loc for e in ev) <= 3)
    return ex.with_(co={(a, b) for a, b in ex.co if ev[a].is_init})


def _final(ex, co, loc):
    ws = [e.id for e in ex.events if e.kind == "W" and e.location == loc]
    if not ws:
        return None
    top = [w for w in ws if not any((w, x) in co for x in ws)]
    assert len(top) == 1
    return ex.events[top[0]].value


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(executions(), st.sampled_from(sorted(MODELS)), st.sampled_from(["bits", "pairs"]))
def test_search_agrees_with_brute_force(ex, model, backend):
    ex = _init_only(ex)
    brute = [c for c in co_choices(ex) if check(c, model, first_only=True).consistent]
    found = list(search_co(ex, model, backend=backend))
    assert len(found) == 1
    assert found[0].consistent == bool(brute)
    if found[0].consistent:  # the order it found is a real witness
        co = found[0].relations.co.pairs()
        assert check(ex.with_(co=co, sc_order=found[0].sc_order), model).consistent
    else:
        assert found[0].violations  # and it says why


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(executions(), st.sampled_from(["ptx-7.5", "ptx-6.0"]))
def test_final_values_agree_with_brute_force(ex, model):
    """With ``total_locs``: the final values of x over all consistent executions are those of the
    brute force over coherence orders total on x (partial elsewhere)."""
    ex = _init_only(ex)
    xs = [e.id for e in ex.events if e.kind == "W" and e.location == "x"]
    want = set()
    for c in co_choices(ex):
        closed = base_relations(c, MODELS[model]).co
        if all((a, b) in closed or (b, a) in closed for a in xs for b in xs if a != b) \
                and check(c, model, first_only=True).consistent:
            want.add(_final(ex, closed, "x"))
    got = {_final(ex, r.relations.co, "x") for r in search_co(ex, model, total_locs={"x"}, all_cos=True)
           if r.consistent}
    assert got == want


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(executions(), executions())
def test_static_part_can_be_reused(ex, other):
    """The events-only relations of one execution serve another with the same events and other rf/co."""
    m = MODELS["ptx-7.5"]
    mixed = other.with_(events=ex.events) if len(other.events) == len(ex.events) else ex.with_(rf=set())
    st_ = static_relations(mixed, m)
    a, b = derive(base_relations(ex, m), None), derive(base_relations(ex, m, static=st_), None)
    for name, rel in a.named().items():
        assert rel.pairs() == b.named()[name].pairs(), name


def test_may_extend_prunes_only_doomed_partial_executions():
    """MP with release/acquire: once the acquire read has read the flag, a data read from the
    initial write is hopeless (Causality, §8.10.6); reading the flag's initial value is not."""
    b = ExecutionBuilder("MP")
    b.thread(0, cta=0)
    b.thread(1, cta=1)
    wx = b.write(0, "x", 1)
    wy = b.write(0, "y", 1, sem="release", scope="gpu")
    ry = b.read(1, "y", 1, sem="acquire", scope="gpu")
    rx = b.read(1, "x", 0)
    ex = b.build()
    assert may_extend(ex.with_(rf={(wy, ry)})) is None
    v = may_extend(ex.with_(rf={(wy, ry), (b.init("x"), rx)}))
    assert v is not None and v.axiom == "Causality"
    assert may_extend(ex.with_(rf={(b.init("x"), rx)})) is None
    assert wx is not None
