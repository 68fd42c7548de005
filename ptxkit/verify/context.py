"""The checker's shared state and its plug-in shape (PTX ISA §8 memory model).

The simulator reports :class:`~ptxkit.exec_sim.events.SimEvent` s to :meth:`Context.observe`, which
numbers them and hands each to every :class:`Rule` in order. A rule turns events into
happens-before edges (through ``ctx.clocks``: ``release``/``acquire``/``new_row``), records memory
accesses for the race analysis (``ctx.access``) and reports well-synchronization problems
(``ctx.finding``). The built-in rules (``verify.rules``) cover program order, CTA barriers,
release/acquire patterns and fences; the asynchronous machinery (mbarrier, cp.async, the async proxy)
plugs in as further rules.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from ptxkit.exec_sim.events import SimEvent
from ptxkit.verify.clocks import Clocks

SCOPES = {"": 0, "cta": 1, "cluster": 2, "gpu": 3, "sys": 4}
PROXIES: dict[str, int] = {"generic": 0}  # other proxies get codes as they appear
SPACE_SHARED = 1 << 62


def cluster_of(clusters: np.ndarray, t: np.ndarray | int, cta_threads: int) -> np.ndarray:
    """The cluster of thread(s) ``t``; agents (pseudo-threads past the launch) are alone in theirs."""
    c = np.asarray(t) // cta_threads
    inside = c < len(clusters)
    return np.where(inside, clusters[np.minimum(c, len(clusters) - 1)], -1 - c)


@dataclass
class Finding:
    """A well-synchronization problem (ISA §9.7.13: barrier, mbarrier, async-group rules)."""

    rule: str
    message: str
    line: int = 0
    col: int = 0
    threads: tuple[int, ...] = ()
    other_line: int = 0
    other_col: int = 0


@dataclass
class EventInfo:
    """What the report needs of an event that performed an access: where and what."""

    line: int
    col: int
    opcode: str
    kind: str


@dataclass
class Accesses:
    """Memory accesses recorded for the race analysis, one entry per (lane, element), in chunks."""

    thread: list[np.ndarray] = field(default_factory=list)
    sid: list[np.ndarray] = field(default_factory=list)
    ep: list[np.ndarray] = field(default_factory=list)
    ev: list[np.ndarray] = field(default_factory=list)  # event index (observation order)
    pos: list[np.ndarray] = field(default_factory=list)  # position in the event (lane order)
    key: list[np.ndarray] = field(default_factory=list)  # location: space | CTA | byte address
    size: list[np.ndarray] = field(default_factory=list)
    write: list[np.ndarray] = field(default_factory=list)
    strong: list[np.ndarray] = field(default_factory=list)
    scope: list[np.ndarray] = field(default_factory=list)
    proxy: list[np.ndarray] = field(default_factory=list)
    phase: list[np.ndarray] = field(default_factory=list)  # the thread's CTA-barrier phase
    value: list[np.ndarray] = field(default_factory=list)  # a write's value / a strong load's result
    count: int = 0


class Rule(Protocol):
    """A plug-in of the checker: sees every event (in observation order), then the end of the run."""

    name: str

    def on_event(self, ev: SimEvent, ctx: Context) -> None: ...

    def finish(self, ctx: Context) -> None: ...


class Context:
    """Launch geometry, clocks, recorded accesses and findings of one observed execution."""

    def __init__(self, nthreads: int, ncta: int, rules: list[Rule], cluster_ctas: int = 1,
                 cluster_of_cta: np.ndarray | None = None) -> None:
        self.cta_threads = nthreads
        self.ncta = ncta
        self.cluster_ctas = max(cluster_ctas, 1)
        # the cluster of each CTA (linear ids; default: consecutive runs of cluster_ctas CTAs)
        self.cluster_of_cta = (np.arange(ncta) // self.cluster_ctas if cluster_of_cta is None
                               else np.asarray(cluster_of_cta, np.int64))
        self.clocks = Clocks(nthreads * ncta)
        self.phase = np.zeros(nthreads * ncta, np.int32)  # barrier phases each thread has passed
        self.rules = rules
        self.seq = 0
        self.events: list[EventInfo] = []
        self.acc = Accesses()
        self.findings: list[Finding] = []
        self.strong_reads: list[tuple[int, np.ndarray, np.ndarray]] = []  # (event, threads, keys)

    # ---------------------------------------------------------------- geometry
    def cta_of(self, t: np.ndarray | int) -> np.ndarray | int:
        return t // self.cta_threads

    def warp_of(self, t: np.ndarray) -> np.ndarray:
        """A global warp number per thread (a warp: 32 consecutive threads of one CTA, §2.2)."""
        per = (self.cta_threads + 31) // 32
        return np.asarray((t // self.cta_threads) * per + (t % self.cta_threads) // 32)

    def scope_includes(self, scope: str, t: np.ndarray, u: np.ndarray) -> np.ndarray:
        """ISA §8.5: is thread ``u`` in the ``scope`` instance of thread ``t``?"""
        if scope in ("gpu", "sys"):
            return np.ones(np.broadcast(t, u).shape, bool)
        if scope == "cluster":
            return np.asarray(cluster_of(self.cluster_of_cta, t, self.cta_threads)
                              == cluster_of(self.cluster_of_cta, u, self.cta_threads))
        if scope == "cta":
            return np.asarray(t // self.cta_threads == u // self.cta_threads)
        return np.zeros(np.broadcast(t, u).shape, bool)  # not strong

    def keys(self, space: str, threads: np.ndarray, addr: np.ndarray) -> np.ndarray:
        """Location keys: global byte offsets; shared bytes tagged with the CTA that owns them
        (``detail['cta']`` of an event may name another CTA of the cluster, ISA §5.1.6 mapa)."""
        a = addr.astype(np.int64) & ((1 << 40) - 1)
        if space == "shared":
            return SPACE_SHARED | (np.asarray(self.cta_of(threads), np.int64) << 40) | a
        return a

    def keys_for_cta(self, ctas: np.ndarray, addr: np.ndarray) -> np.ndarray:
        """Shared-memory keys in the windows of the given CTAs (distributed shared memory)."""
        a = addr.astype(np.int64) & ((1 << 40) - 1)
        return SPACE_SHARED | (ctas.astype(np.int64) << 40) | a

    def event_keys(self, ev: SimEvent) -> np.ndarray:
        """The location keys of a memory event's lanes (a ``.shared::cluster`` access names the owning
        CTA per lane in ``detail['cta']``)."""
        assert ev.addr is not None
        if ev.space == "shared" and "cta" in ev.detail:
            return self.keys_for_cta(np.asarray(ev.detail["cta"]), ev.addr)
        return self.keys(ev.space, ev.lanes, ev.addr)

    # ---------------------------------------------------------------- rules' services
    def finding(self, f: Finding) -> None:
        self.findings.append(f)

    def access(self, ev_index: int, threads: np.ndarray, keys: np.ndarray, size: int, write: bool,
               strong: bool, scope: str, proxy: str, value: np.ndarray | None = None) -> None:
        """Record an access of ``size`` bytes at ``keys`` by each of ``threads`` (at their current clocks)."""
        a = self.acc
        k = len(threads)
        if k == 0:
            return
        a.thread.append(threads.astype(np.int32))
        a.sid.append(self.clocks.sid[threads].astype(np.int32))
        a.ep.append(self.clocks.ep[threads].copy())
        a.ev.append(np.full(k, ev_index, np.int32))
        a.pos.append(np.arange(k, dtype=np.int32))
        a.key.append(keys.astype(np.int64))
        a.size.append(np.full(k, size, np.int8))
        a.write.append(np.full(k, write))
        a.strong.append(np.full(k, strong))
        a.scope.append(np.full(k, SCOPES.get(scope, 0), np.int8))
        a.proxy.append(np.full(k, PROXIES.setdefault(proxy, len(PROXIES)), np.int8))
        a.phase.append(self.phase[np.minimum(threads, len(self.phase) - 1)].copy())
        # a write of unknown value gets a value no other write has (-1 - its row): never "the same"
        a.value.append(value.astype(np.int64) if value is not None
                       else -1 - (a.count + np.arange(k, dtype=np.int64)))
        a.count += k

    # ---------------------------------------------------------------- the observer
    def observe(self, ev: SimEvent) -> None:
        self.events.append(EventInfo(ev.line, int(ev.detail.get("col", 0)), ev.opcode, ev.kind.value))
        for r in self.rules:
            r.on_event(ev, self)
        self.seq += 1

    def finish(self) -> None:
        for r in self.rules:
            r.finish(self)
