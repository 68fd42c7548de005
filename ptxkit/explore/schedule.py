"""Barrier schedules of a candidate execution (``bar{.cta}.sync/arrive``, PTX ISA §9.7.13.1).

A *schedule* is one way the barrier events of a candidate can group into barrier phases (instances);
what the memory model needs from it is its synchronizes-with edges (§8.9.4: the arrivals of a phase
synchronize with its releases), passed to ``ptxkit.consistency`` as ``Execution.bar_sync``. Only
the distinct edge sets are kept (schedules that group the same arrivals the same way are one).

The search runs the barrier events alone, one arrival at a time, over a state that forgets the
order of arrivals inside an open phase (a set), so two interleavings that group the same arrivals
meet in one state. Arrivals at a barrier without a thread count never make a choice (the phase
takes every thread that still reaches it, in whatever order they come), so when one is possible it
is taken first and alone (a persistent set: it commutes with every other arrival); barrier-only
programs with uncounted barriers thus take one path, whatever the number of threads. Counted
barriers do make choices (which arrivals complete a phase); the states explored are bounded by
``limit`` and a search cut there says so (``Schedules.complete`` False → verdict Inconclusive).
"""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Hashable
from dataclasses import dataclass, field

from ptxkit.explore.trace import Bar, Ev

WARP_SIZE = 32  # ISA §10.3 (WARP_SZ)
SCHEDULE_STATES = 200_000  # barrier states explored per candidate before the search is cut

Key = tuple[tuple[int, int], tuple[int, ...]]  # ((gpu, cta), barrier id)
Edges = frozenset[tuple[int, int]]
Phases = dict[Key, tuple[frozenset[int], frozenset[int]]]  # last completed phase: (members, late)
# search state: positions, waiting threads, open phases, completed phases, edges, instances, counter
State = tuple[dict[int, int], dict[int, Key], dict[Key, frozenset[int]], Phases, set[tuple[int, int]],
              dict[int, int], list[int]]


@dataclass
class Schedules:
    """The distinct schedules of one candidate's barriers: (sw edges, barrier event → instance).
    Empty with ``deadlock`` set when every schedule deadlocks (a witness: the waiting barrier
    events of one stuck state, and per stuck phase its arrivals so far and the count it needs)."""

    schedules: list[tuple[Edges, dict[int, int]]]
    complete: bool = True
    reason: str = ""
    deadlock: list[tuple[int, int, int | None]] = field(default_factory=list)  # (event, arrived, needed)
    states: int = 0  # barrier states the search visited


def _bar(e: Ev) -> Bar:
    assert e.bar is not None  # only barrier events are scheduled
    return e.bar


def _warp(e: Ev) -> int | None:
    """The warp of a kernel barrier event; None for a Dat3M quorum (or a 3-tuple ``bar``)."""
    b = _bar(e)
    return b[3] if len(b) > 3 else None


def barrier_schedules(events: list[Ev], limit: int | None = None,
                      deadline: float | None = None) -> Schedules:
    """Every distinct synchronization relation the barriers of a candidate can produce, with the
    instance each barrier event joined. Instances are per (CTA, id) (ISA §9.7.13.1; Dat3M's
    ``bar.cta.sync a[, b[, c]]``: the id is ``(a, b)``, ``c`` the quorum). A ``sync`` waits until
    its instance completes: when ``count`` arrivals were counted, or, without a count, when every
    thread of the CTA whose remaining trace reaches this id has arrived. Edge a→b: a's arrival
    precedes b's release in the same instance (``arrive`` never waits, so no edge enters it).

    Dat3M quorums (litmus tests) count one arrival per thread, and an arrival at a counted barrier
    whose last instance completed, with no instance open and the thread not part of it, passes at
    once (Dat3M's ``Barrier/quorum*-pass`` tests): it is released by that instance's completion, so
    the arrivals that completed it synchronize with it (§8.9.4) — not the other late arrivals, which
    it does not wait for.

    Kernel barriers (``bar`` tuples with a warp, from ``.ptx``) count per warp: the instruction
    "causes executing thread to wait for all non-exited threads from its warp and marks warps'
    arrival at barrier", and a thread count "must be a multiple of the warp size" (ISA §9.7.13.1).
    A warp is counted (32 arrivals) once every thread of it that still reaches this barrier has
    arrived; the instance completes at ``count`` — so two threads of one warp at ``bar.sync 0, 32``
    both belong to the instance and synchronize with each other. Once an instance completes, the
    next arrival starts the next instance (the hardware barrier resets)."""
    limit = SCHEDULE_STATES if limit is None else limit
    per_thread: dict[int, list[int]] = defaultdict(list)
    for i, e in enumerate(events):
        if e.kind == "F" and e.fkind == "bar":
            per_thread[e.tid].append(i)
    if not per_thread:
        return Schedules([(frozenset(), {})])
    tids = sorted(per_thread)

    def key(i: int) -> Key:
        e = events[i]
        assert e.bar is not None
        return (e.gpu, e.cta), tuple(e.bar[0])

    keys = {i: key(i) for ts in per_thread.values() for i in ts}
    counted = {keys[i] for i in keys if _bar(events[i])[1] is not None}
    # for each thread and position: the barrier keys its remaining events reach
    remaining: dict[int, list[frozenset[Key]]] = {}
    for t, ts in per_thread.items():
        acc: frozenset[Key] = frozenset()
        rows = [acc]
        for i in reversed(ts):
            acc = acc | {keys[i]}
            rows.append(acc)
        remaining[t] = rows[::-1]
    warp_of = {t: (events[ts[0]].gpu, events[ts[0]].cta, _warp(events[ts[0]])) for t, ts in per_thread.items()}
    results: dict[Edges, dict[int, int]] = {}
    seen: set[Hashable] = set()
    out = Schedules([])

    def units(members: frozenset[int]) -> int:
        """Counted arrivals of an open instance: one per thread (Dat3M), 32 per complete warp."""
        n = 0
        warps: set[tuple[int, int, int | None]] = set()
        for j in members:
            if _warp(events[j]) is None:
                n += 1
            else:
                warps.add(warp_of[events[j].tid])
        return n + WARP_SIZE * len(warps)

    def complete_warps(k: Key, members: frozenset[int], pos: dict[int, int]) -> frozenset[int]:
        """The members whose whole warp arrived: every warp-mate that still reaches ``k`` is in."""
        arrived = {events[j].tid for j in members}
        keep = set()
        for j in members:
            w = warp_of[events[j].tid]
            if w[2] is None or all(u in arrived or k not in remaining[u][pos[u]]
                                   for u in tids if warp_of[u] == w):
                keep.add(j)
        return frozenset(keep)

    def settle(pos: dict[int, int], waiting: dict[int, Key], open_: dict[Key, frozenset[int]],
               closed: dict[Key, tuple[frozenset[int], frozenset[int]]], edges: set[tuple[int, int]],
               inst: dict[int, int], counter: list[int]) -> None:
        changed = True
        while changed:
            changed = False
            for k in list(open_):
                members = open_[k]
                count = _bar(events[next(iter(members))])[1]
                if count is not None:
                    done = units(complete_warps(k, members, pos)) >= count
                else:
                    arrived = {events[j].tid for j in members}
                    done = all(u in arrived for u in tids if k in remaining[u][pos[u]])
                if not done:
                    continue
                for a in members:
                    for b in members:
                        if a != b and _bar(events[b])[2] != "arrive":
                            edges.add((a, b))
                for t in [t for t, w in waiting.items() if w == k]:
                    del waiting[t]
                del open_[k]
                closed[k] = (members, frozenset())
                counter[0] += 1
                for b in members:
                    inst[b] = counter[0]
                changed = True

    def move(t: int, pos: dict[int, int], waiting: dict[int, Key], open_: dict[Key, frozenset[int]],
             closed: dict[Key, tuple[frozenset[int], frozenset[int]]], edges: set[tuple[int, int]],
             inst: dict[int, int], counter: list[int]) -> None:
        i = per_thread[t][pos[t]]
        e, k = events[i], keys[i]
        assert e.bar is not None
        pos[t] += 1
        last = closed.get(k)
        if e.bar[1] is not None and _warp(e) is None and last is not None and k not in open_ and \
                all(events[j].tid != t for j in last[0] | last[1]):
            # late arrival at a completed Dat3M quorum: released by that completion at once
            if e.bar[2] != "arrive":
                for a in last[0]:
                    edges.add((a, i))
            inst[i] = inst[next(iter(last[0]))]
            closed[k] = (last[0], last[1] | {i})
        else:
            open_[k] = open_.get(k, frozenset()) | {i}
            if e.bar[2] != "arrive":
                waiting[t] = k
        settle(pos, waiting, open_, closed, edges, inst, counter)

    start: State = ({t: 0 for t in tids}, {}, {}, {}, set(), {}, [0])
    stack = [start]
    while stack:
        pos, waiting, open_, closed, edges, inst, counter = stack.pop()
        state = (tuple(sorted(pos.items())), tuple(sorted(waiting.items())),
                 tuple(sorted(open_.items())), tuple(sorted(closed.items())), frozenset(edges))
        if state in seen:
            continue
        seen.add(state)
        if len(seen) > limit or (deadline is not None and len(seen) % 256 == 0 and time.monotonic() > deadline):
            out.complete = False
            out.reason = (f"more than {limit} barrier states in one candidate" if len(seen) > limit
                          else "--timeout reached while scheduling barriers")
            break
        movable = [t for t in tids if t not in waiting and pos[t] < len(per_thread[t])]
        if not movable:
            if not waiting:
                results.setdefault(frozenset(edges), dict(inst))
            elif not out.deadlock:  # a deadlock: this schedule has no execution; keep one witness
                for t in sorted(waiting):
                    k = waiting[t]
                    j = per_thread[t][pos[t] - 1]
                    members = open_.get(k, frozenset())
                    need = _bar(events[j])[1]
                    out.deadlock.append((j, units(members) if need is not None
                                         else len({events[m].tid for m in members}), need))
            continue
        # persistent set: an arrival at an uncounted barrier commutes with every other move
        free = [t for t in movable if keys[per_thread[t][pos[t]]] not in counted]
        for t in (free[:1] if free else movable):
            nxt = (dict(pos), dict(waiting), dict(open_), dict(closed), set(edges), dict(inst), [counter[0]])
            move(t, *nxt)
            stack.append(nxt)
    out.schedules = sorted(results.items(), key=lambda kv: sorted(kv[0]))
    out.states = len(seen)
    if out.schedules:
        out.deadlock = []
    return out
