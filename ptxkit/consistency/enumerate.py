"""Small enumeration helpers over candidate executions (used by tests and usable by the explorer).

§8.9.6: coherence order is a *partial* order, so a candidate's co may leave weak racing writes
unordered. :func:`co_choices` yields every strict partial order on each location's writes (init
first), so "some consistent execution exists" questions are answered without assuming co total.
"""

from __future__ import annotations

import itertools
from typing import Iterator

from ptxkit.consistency.events import Execution
from ptxkit.consistency.models import DEFAULT_MODEL, CheckResult, Model, check
from ptxkit.consistency.rel import BitRel


def _orders(writes: list[int], n: int) -> Iterator[set[tuple[int, int]]]:
    """Every strict partial order on ``writes`` (as transitively closed pair sets)."""
    pairs = list(itertools.combinations(writes, 2))
    seen: set[frozenset] = set()
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


def exists_consistent(ex: Execution, model: "Model | str" = DEFAULT_MODEL) -> CheckResult:
    """The first consistent co choice for ``ex`` (rf fixed), else the last inconsistent result."""
    last = None
    for cand in co_choices(ex):
        res = check(cand, model, first_only=True)
        if res.consistent:
            return res
        last = res
    assert last is not None
    return last
