"""The built-in rules: memory accesses, CTA barriers, release/acquire patterns and fences (PTX ISA §8).

* :class:`AccessRule` records every global/shared access (ISA §8.2; local memory is private to a
  thread, const/param memory is read-only: neither can race).
* :class:`BarrierRule`: ``bar``/``barrier`` (§9.7.13.1) — the arrivals of one barrier phase of a CTA
  synchronize with the waiting threads' returns (§8.9.4); it also checks that an ``.aligned``
  barrier (every ``bar.*``) is reached by the same instruction in every thread of the phase and by
  whole warps, and that every arrival names the same thread count.
* :class:`SyncRule`: release/acquire patterns (§8.8) through morally strong reads-from (§8.7,
  §8.9.2 observation, closed through RMWs) and ``fence.acq_rel``/``fence.sc``/``membar``.
  ``fence.sc`` pairs are also ordered by Fence-SC order (§8.9.3); treating them as acq_rel fences
  gives fewer happens-before edges, never more, so no race is missed.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ptxkit.exec_sim.events import EvKind, SimEvent
from ptxkit.verify.context import Context, Finding, Rule

_TRACKED = ("global", "shared")


def _strong(sem: str) -> bool:
    return sem not in ("weak", "")


class AccessRule:
    """Records reads and writes for the race analysis (``verify.races``)."""

    name = "access"

    def on_event(self, ev: SimEvent, ctx: Context) -> None:
        if ev.kind not in (EvKind.LD, EvKind.ST, EvKind.RMW) or ev.space not in _TRACKED or ev.addr is None:
            return
        keys = ctx.event_keys(ev)
        strong = ev.kind == EvKind.RMW or _strong(ev.sem)
        # the stored value of a write; the value a strong load read (reported for strong loads only)
        value = ev.detail.get("value") if ev.kind in (EvKind.ST, EvKind.LD) else None
        ctx.access(ctx.seq, ev.lanes, keys, ev.size, ev.kind != EvKind.LD, strong, ev.scope, ev.proxy,
                   value if isinstance(value, np.ndarray) else None)
        if (ev.kind == EvKind.LD and strong) or (ev.kind == EvKind.RMW and ev.detail.get("ret", True)):
            ctx.strong_reads.append((ctx.seq, ev.lanes, keys))

    def finish(self, ctx: Context) -> None:
        pass


@dataclass
class _Phase:
    vec: np.ndarray | None = None
    waiters: list[np.ndarray] = field(default_factory=list)
    arrivals: list[tuple[int, int, int, int | None, bool, np.ndarray]] = field(default_factory=list)
    partial: bool = False  # some warp arrived with only part of its live lanes


class BarrierRule:
    """CTA barriers: synchronization and well-formedness (see module docstring)."""

    name = "barrier"

    def __init__(self) -> None:
        self.phases: dict[tuple[int, int], _Phase] = {}

    def on_event(self, ev: SimEvent, ctx: Context) -> None:
        if ev.kind == EvKind.BAR_ARRIVE:
            self._arrive(ev, ctx)
        elif ev.kind == EvKind.BAR_RELEASE:
            self._release(ev, ctx)

    def _arrive(self, ev: SimEvent, ctx: Context) -> None:
        if ev.detail.get("warp"):
            self._warp_sync(ev, ctx)
            return
        b = int(ev.detail["barrier"])
        ctas = np.asarray(ctx.cta_of(ev.lanes))
        for c in np.unique(ctas).tolist():
            lanes = ev.lanes[ctas == c]
            ph = self.phases.setdefault((c, b), _Phase())
            vec = ctx.clocks.joined(lanes)
            ph.vec = vec if ph.vec is None else np.maximum(ph.vec, vec)
            if ev.detail.get("wait", True):
                ph.waiters.append(lanes)
            ph.partial |= bool(ev.detail.get("partial_warp", False))
            ph.arrivals.append((ev.line, int(ev.detail.get("col", 0)), int(ev.detail.get("pc", -1)),
                                ev.detail.get("count"), bool(ev.detail.get("aligned", True)), lanes))
        ctx.clocks.ep[ev.lanes] += 1

    @staticmethod
    def _warp_sync(ev: SimEvent, ctx: Context) -> None:
        """bar.warp.sync orders memory among the participating threads of a warp (§9.7.13.1); the
        simulator runs it for the converged lanes at once, so each warp's lanes join here."""
        warps = ctx.warp_of(ev.lanes)
        for w in np.unique(warps).tolist():
            lanes = ev.lanes[warps == w]
            row = ctx.clocks.new_row(ctx.clocks.joined(lanes))
            ctx.clocks.ep[lanes] += 1
            ctx.clocks.set_row(lanes, row)

    def _release(self, ev: SimEvent, ctx: Context) -> None:
        b, c = int(ev.detail["barrier"]), int(ev.detail["cta"])
        ph = self.phases.pop((c, b), None)
        if ph is None or ph.vec is None:
            return
        row = ctx.clocks.new_row(ph.vec)
        if ph.waiters:
            w = np.concatenate(ph.waiters)
            ctx.clocks.set_row(w, row)
            ctx.phase[w] += 1
        self._check(ph, b, c, ctx)

    def _check(self, ph: _Phase, b: int, c: int, ctx: Context) -> None:
        arr = ph.arrivals
        first = arr[0]
        if any(a[4] for a in arr):
            # .aligned: a whole-CTA barrier (no thread count) is one instruction for every thread;
            # with a count (named barriers of warp-specialised code, bar.arrive by producers and
            # bar.sync by consumers, ISA §9.7.13.1 example) only the lanes of a warp must agree
            whole_cta = all(a[3] is None for a in arr)
            other = next((a for a in arr if a[2] != first[2]), None) if whole_cta else None
            if other is not None:
                ctx.finding(Finding("barrier-divergence",
                                    f"barrier {b} of CTA {c}: threads reach it at two different "
                                    f"instructions (an .aligned barrier must be the same instruction in "
                                    f"every thread, ISA §9.7.13.1)", first[0], first[1],
                                    (int(first[5][0]), int(other[5][0])), other[0], other[1]))
                return
            warps = np.concatenate([np.unique(ctx.warp_of(a[5])) for a in arr])
            if len(np.unique(warps)) != len(warps) or ph.partial:
                ctx.finding(Finding("barrier-divergence",
                                    f"barrier {b} of CTA {c}: a warp reaches the .aligned barrier in "
                                    "several parts (divergent warp, ISA §9.7.13.1)", first[0], first[1],
                                    (int(first[5][0]),)))
                return
        counts = {a[3] for a in arr}
        if len(counts) > 1:
            other = next(a for a in arr if a[3] != first[3])
            ctx.finding(Finding("barrier-count",
                                f"barrier {b} of CTA {c}: arrivals name different thread counts "
                                f"({', '.join('all' if x is None else str(x) for x in counts)})",
                                first[0], first[1], (int(first[5][0]), int(other[5][0])), other[0], other[1]))

    def finish(self, ctx: Context) -> None:
        pass


@dataclass
class _Write:
    row: int  # the clock a reader acquires (0: none)
    thread: int
    scope: str
    proxy: str
    size: int


class SyncRule:
    """Release/acquire patterns and fences (ISA §8.8, §8.9.4) over the writes each read observes."""

    name = "sync"

    def __init__(self) -> None:
        self.last: dict[int, _Write] = {}  # location → the last strong write (none after a weak one)
        self.fence_row: dict[int, int] = {}  # thread → clock at its last acq_rel/sc fence
        self.pending: dict[int, int] = {}  # thread → clocks observed by strong reads since its last fence

    def on_event(self, ev: SimEvent, ctx: Context) -> None:
        k = ev.kind
        if k == EvKind.FENCE:
            if ev.proxy == "generic" and ev.sem in ("acq_rel", "sc", "acquire", "release"):
                self._fence(ev, ctx)
            elif ev.proxy.startswith("async"):
                ctx.clocks.proxy_fence(ev.lanes)
            return
        if k not in (EvKind.LD, EvKind.ST, EvKind.RMW) or ev.space not in _TRACKED or ev.addr is None:
            return
        strong = k == EvKind.RMW or _strong(ev.sem)
        keys = ctx.event_keys(ev)
        if not strong:
            if k == EvKind.ST and self.last:
                for key in keys.tolist():
                    self.last.pop(key, None)
            return
        clocks = ctx.clocks
        for t, key in zip(ev.lanes.tolist(), keys.tolist()):
            got = 0
            if k != EvKind.ST:  # the read: observe the write it reads from
                w = self.last.get(key)
                # (a write of the thread itself is observed too: a release sequence may pass through
                # the thread's own RMWs; acquiring its own clock changes nothing)
                if w is not None and w.row > 0 and w.proxy == ev.proxy and \
                        w.size == ev.size and _moral(ctx, w.scope, w.thread, ev.scope, t):
                    got = w.row
                    if ev.sem in ("acquire", "acq_rel", "sc"):
                        clocks.acquire(np.array([t]), got)
                    else:
                        self.pending[t] = clocks.join_rows(self.pending.get(t, 0), got)
            if k != EvKind.LD:  # the write: what a reader of it acquires
                row = self.fence_row.get(t, 0)
                if ev.sem in ("release", "acq_rel", "sc"):
                    row = int(clocks.release(np.array([t]))[0])
                if k == EvKind.RMW:
                    row = clocks.join_rows(row, got)  # a release sequence continues through RMWs
                self.last[key] = _Write(row, t, ev.scope, ev.proxy, ev.size)

    def _fence(self, ev: SimEvent, ctx: Context) -> None:
        clocks = ctx.clocks
        for t in ev.lanes.tolist():
            p = self.pending.pop(t, 0)
            if p and ev.sem != "release":
                clocks.acquire(np.array([t]), p)
        if ev.sem != "acquire":
            rows = clocks.release(ev.lanes)
            for t, r in zip(ev.lanes.tolist(), rows.tolist()):
                self.fence_row[t] = r

    def finish(self, ctx: Context) -> None:
        pass


def _moral(ctx: Context, scope_a: str, t: int, scope_b: str, u: int) -> bool:
    """Morally strong (ISA §8.7) as far as scopes go: each scope includes the other thread."""
    ta, tb = np.array([t]), np.array([u])
    return bool(ctx.scope_includes(scope_a, ta, tb)[0] and ctx.scope_includes(scope_b, tb, ta)[0])


def default_rules() -> list[Rule]:
    """The rules every verification runs, in order (the access is recorded before its own sync)."""
    return [AccessRule(), BarrierRule(), SyncRule()]
