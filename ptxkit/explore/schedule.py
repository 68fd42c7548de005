"""Barrier schedules of a candidate execution (``bar{.cta}.sync/arrive``, PTX ISA §9.7.13.1).

The synchronizes-with edges the barriers of a candidate can produce, one set per distinct schedule
(passed to ``ptxkit.consistency`` as ``Execution.bar_sync``).
"""

from __future__ import annotations

from collections import defaultdict

from ptxkit.explore.trace import Ev

WARP_SIZE = 32  # ISA §10.3 (WARP_SZ)


def _warp(e: Ev):
    """The warp of a kernel barrier event; None for a Dat3M quorum (also a 3-tuple ``bar``)."""
    return e.bar[3] if len(e.bar) > 3 else None


def _arrivals(events: list[Ev], members: list[int]) -> int:
    """Arrival count of a barrier instance: the warp size per distinct warp for kernel barriers
    (ISA §9.7.13.1), one per thread for Dat3M quorums (warp None)."""
    warps = {_warp(events[j]) for j in members} - {None}
    return WARP_SIZE * len(warps) + sum(1 for j in members if _warp(events[j]) is None)


def barrier_schedules(events: list[Ev], limit: int = 10000) -> list[tuple[frozenset, dict]]:
    """Every distinct synchronization relation the barriers of a candidate can produce, with the
    instance each barrier event joined ([] when every schedule deadlocks). Instances are per
    (CTA, id) (ISA §9.7.13.1; Dat3M's ``bar.cta.sync a[, b[, c]]``:
    the id is ``(a, b)``, ``c`` the quorum). A ``sync`` waits until its instance completes: when
    ``count`` threads arrived, or, without a count, when every thread of the CTA whose remaining trace
    reaches this id has arrived; an arrival after a counted instance completed passes at once and
    joins it. Edge a→b: a's arrival precedes b's departure in the same instance (``arrive`` never
    waits, so no edge enters it).

    Kernel barriers (``bar`` tuples with a warp, from ``.ptx``) count arrivals per warp: the
    instruction "marks warps' arrival at barrier" and a thread count "must be a multiple of the warp
    size" (ISA §9.7.13.1; older editions: "barriers are executed on a per-warp basis as if all the
    threads in a warp are active"), the count growing by the warp size per warp. An instance then holds
    32 × (its distinct warps) arrivals, and a late arrival joins a completed instance only when its
    warp already arrived there (it is the same warp arrival); a new warp starts the next instance,
    as the hardware barrier resets once it completes. Dat3M quorums stay per thread."""
    per_thread: dict[int, list[int]] = defaultdict(list)
    for i, e in enumerate(events):
        if e.kind == "F" and e.fkind == "bar":
            per_thread[e.tid].append(i)
    if not per_thread:
        return [(frozenset(), {})]
    tids = sorted(per_thread)
    def key(i):
        return ((events[i].gpu, events[i].cta), events[i].bar[0])
    results: dict[frozenset, dict] = {}
    seen: set = set()

    def close_ready(pos, waiting, open_inst, closed, edges, inst):
        changed = True
        while changed:
            changed = False
            for k in list(open_inst):
                members = open_inst[k]
                count = events[members[0]].bar[1]
                if count is not None:
                    done = _arrivals(events, members) >= count
                else:
                    arrived = {events[j].tid for j in members}
                    expect = {u for u in tids if any(key(j) == k for j in per_thread[u][pos[u]:])}
                    done = expect <= arrived
                if done:
                    for a in members:
                        for b in members:
                            if a != b and events[b].bar[2] != "arrive":
                                edges.add((a, b))
                    for b in members:
                        if waiting.get(events[b].tid) == k:
                            del waiting[events[b].tid]
                    del open_inst[k]
                    closed[k] = list(members)
                    inst[0] += 1
                    for b in members:
                        inst[1][b] = inst[0]
                    changed = True

    def run(pos, waiting, open_inst, closed, edges, inst):
        state = (tuple(sorted(pos.items())), tuple(sorted(waiting.items())),
                 tuple(sorted((k, tuple(v)) for k, v in open_inst.items())),
                 tuple(sorted((k, tuple(v)) for k, v in closed.items())), frozenset(edges))
        if state in seen or len(results) > limit:
            return
        seen.add(state)
        moved = False
        for t in tids:
            if t in waiting or pos[t] >= len(per_thread[t]):
                continue
            moved = True
            i = per_thread[t][pos[t]]
            e, k = events[i], key(i)
            npos, nwait = dict(pos), dict(waiting)
            nopen = {kk: list(v) for kk, v in open_inst.items()}
            nclosed = {kk: list(v) for kk, v in closed.items()}
            nedges = set(edges)
            ninst = [inst[0], dict(inst[1])]
            npos[t] += 1
            if e.bar[1] is not None and k in nclosed and k not in nopen and \
                    all(events[j].tid != t for j in nclosed[k]) and \
                    (_warp(e) is None or any(_warp(events[j]) == _warp(e) for j in nclosed[k])):
                for a in nclosed[k]:  # late arrival at a completed counted instance
                    nedges.add((a, i))
                ninst[1][i] = ninst[1][nclosed[k][0]]
                nclosed[k].append(i)
            else:
                nopen.setdefault(k, []).append(i)
                if e.bar[2] != "arrive":
                    nwait[t] = k
            close_ready(npos, nwait, nopen, nclosed, nedges, ninst)
            run(npos, nwait, nopen, nclosed, nedges, ninst)
        if not moved and not waiting:
            results.setdefault(frozenset(edges), dict(inst[1]))
        # moved == False with threads waiting: a deadlock — this schedule has no execution

    run({t: 0 for t in tids}, {}, {}, {}, set(), [0, {}])
    return sorted(results.items(), key=lambda kv: sorted(kv[0]))
