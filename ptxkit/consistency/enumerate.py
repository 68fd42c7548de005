"""Small enumeration helpers over candidate executions (used by tests and usable by the explorer).

§8.9.6: coherence order is a *partial* order, so a candidate's co may leave weak racing writes
unordered. :func:`co_choices` yields every strict partial order on each location's writes (init
first), so "some consistent execution exists" questions are answered without assuming co total.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Hashable, Iterator

from ptxkit.consistency.events import Execution
from ptxkit.consistency.models import (
    DEFAULT_MODEL,
    CheckResult,
    Model,
    _monotone_violation,
    _violations,
    check,
    get_model,
    sc_orders,
)
from ptxkit.consistency.rel import BitRel, PairRel, Relation
from ptxkit.consistency.relations import Base, base_relations, derive


def _orders(writes: list[int], n: int) -> Iterator[set[tuple[int, int]]]:
    """Every strict partial order on ``writes`` (as transitively closed pair sets)."""
    pairs = list(itertools.combinations(writes, 2))
    seen: set[frozenset[tuple[int, int]]] = set()
    for choice in itertools.product((0, 1, 2), repeat=len(pairs)):
        gen = []
        for (a, b), c in zip(pairs, choice):
            if c == 1:
                gen.append((a, b))
            elif c == 2:
                gen.append((b, a))
        closed = BitRel.from_pairs(n, gen).plus()
        if closed.reflexive_points():
            continue
        key = frozenset(closed.pairs())
        if key not in seen:
            seen.add(key)
            yield set(key)


def co_choices(ex: Execution, total: bool = False) -> Iterator[Execution]:
    """Copies of ``ex`` with every coherence order extending ``ex.co`` (init→write edges kept).
    ``total=True`` restricts to total orders per location."""
    n = len(ex.events)
    by_loc: dict[object, list[int]] = {}
    for e in ex.events:
        if e.kind == "W" and not e.is_init:
            by_loc.setdefault(e.location, []).append(e.id)
    per_loc = []
    for ws in by_loc.values():
        opts = list(_orders(ws, n))
        if total:
            k = len(ws)
            opts = [o for o in opts if len(o) == k * (k - 1) // 2]
        per_loc.append(opts)
    for combo in itertools.product(*per_loc):
        co = set(ex.co)
        for o in combo:
            co |= o
        yield ex.with_(co=co)


def exists_consistent(ex: Execution, model: Model | str = DEFAULT_MODEL) -> CheckResult:
    """The first consistent co choice for ``ex`` (rf fixed), else the last inconsistent result."""
    last = None
    for cand in co_choices(ex):
        res = check(cand, model, first_only=True)
        if res.consistent:
            return res
        last = res
    assert last is not None
    return last


def search_co(ex: Execution, model: Model | str = DEFAULT_MODEL, *, total_locs: frozenset[Hashable] = frozenset(),
              all_cos: bool = False, static: Base | None = None, backend: str = "bits",
              poll: Callable[[], None] | None = None) -> Iterator[CheckResult]:
    """Decide ``ex`` (rf, Fence-SC order, barrier schedule fixed; ``ex.co`` the pairs every coherence
    order must contain, e.g. init → write) by searching its coherence order (§8.9.6: a *partial*
    order). Yields a consistent :class:`CheckResult` for the first such order — with ``all_cos``
    for every one — or, when none exists, one inconsistent result (the violation found for the last
    order tried; ``result.relations.co`` is that order).

    Which orders are searched, and why that is complete: a consistent co must contain the causally
    ordered same-location write pairs (Coherence §8.10.1) and order every pair of overlapping morally
    strong writes (§8.9.6); every other axiom only gets *harder* with more co edges (Atomicity,
    Causality's fr half, SC-per-Location are monotone in co and fr = rf⁻¹;co), so the orders that
    orient exactly those pairs (closed transitively) are the only ones to try. Writes to
    ``total_locs`` are ordered totally as well (the caller reads their final values). Partial orders
    are pruned with the monotone checks (``models._monotone_violation``) before they are completed.
    When ``ex.sc_order`` is None every Fence-SC order is tried (``models.sc_orders``)."""
    m = get_model(model)
    base = base_relations(ex, m, backend, static=static)
    W = base.writes
    ev = ex.events
    total = 0
    for e in ev:
        if e.kind == "W" and e.location in total_locs:
            total |= 1 << e.id
    must = (base.morally_strong.filter(W, W) & base.loc) | (base.loc.filter(total, total) - base.id)
    orders = [ex.sc_order] if ex.sc_order is not None else sc_orders(base)
    last: CheckResult | None = None
    found = False
    for order in orders:
        rels = derive(base, order)
        # Coherence: causality between overlapping writes is coherence order
        co0 = (base.co | (rels.cause.filter(W, W) & base.loc)).plus()
        if co0.reflexive_points():  # causality contradicts itself on writes: no co can agree
            last = CheckResult(False, _violations(rels, m.axioms, True), rels, order, m.name)
            continue
        pairs = [(a, b) for a, b in sorted(must.pairs()) if a < b]
        stack = [(co0, 0)]
        while stack:
            if poll is not None:  # the caller's deadline (it raises to stop the search)
                poll()
            co, k = stack.pop()
            r = rels.with_co(co)
            v = _monotone_violation(r, m)
            if v is not None:
                last = CheckResult(False, [v], r, order, m.name)
                continue
            while k < len(pairs) and (pairs[k] in co or pairs[k][::-1] in co):
                k += 1
            if k == len(pairs):
                vs = _violations(r, m.axioms, True)
                if vs:
                    last = CheckResult(False, vs, r, order, m.name)
                    continue
                found = True
                yield CheckResult(True, [], r, order, m.name)
                if not all_cos:
                    return
                continue
            a, b = pairs[k]
            for x, y in ((b, a), (a, b)):  # a→b is popped first
                nco = _add_edge(co, x, y)
                if nco is not None:
                    stack.append((nco, k + 1))
    if not found:
        assert last is not None
        yield last


def _add_edge(co: Relation, x: int, y: int) -> Relation | None:
    """``(co ∪ {x→y})+`` for a transitively closed BitRel ``co``, or None when that is cyclic."""
    if not isinstance(co, BitRel):  # the reference backend: close from scratch
        assert isinstance(co, PairRel)
        nco = (co | PairRel.from_pairs(co.n, [(x, y)])).plus()
        return None if nco.reflexive_points() else nco
    if co.rows[y] >> x & 1:
        return None
    add = co.rows[y] | (1 << y)
    xbit = 1 << x
    rows = [r | add if (r & xbit or i == x) else r for i, r in enumerate(co.rows)]
    return type(co)(co.n, rows)
