"""Events and candidate executions of the PTX memory consistency model (PTX ISA 9.x chapter 8).

This is the data model shared by the checker (``relations``/``axioms``/``models``), the explorer
(``ptxkit.explore.engine``) and the exporters (DOT, Lean, SMT).

Events (ISA §8.2 memory operations, §8.6 proxies, §9.7.13 fences/barriers)
--------------------------------------------------------------------------
``Event.id`` is its index in ``Execution.events`` (ids are 0..n-1, so relations can be bit
matrices). ``kind`` is one of

* ``'R'`` a read (``ld``, ``suld``, ``tld``, ``ld.const``, the read half of an RMW),
* ``'W'`` a write (``st``, ``sust``, the write half of an RMW, an initial write),
* ``'F'`` a fence: ``fence_kind`` ``'sem'`` (``fence.sc``/``fence.acq_rel``/``membar``),
  ``'proxy'`` (``fence.proxy.<p>``: ``proxy`` holds ``<p>``) or ``'alias'`` (``fence.proxy.alias``),
* ``'B'`` a barrier operation (``bar{.cta}.sync|arrive|red``, ``barrier.sync`` …): ``barrier_op``
  ``'sync'`` (arrive *and* wait: one event), ``'arrive'`` (arrive only) or ``'red'`` (like sync).

An RMW (``atom``, ``red``) is **two events**, an ``R`` then a ``W`` of the same thread, linked by
``Execution.rmw`` (as in Dat3M and the ISA's "atomic operation … read and write").

Locations: ``location`` is the *physical* location (after resolving Dat3M's ``y @ generic aliases x``);
``vaddr`` the *virtual* (generic) address used to reach it (``loc`` vs ``vloc`` in the ISCA'22 model):
a generic alias ``y`` of ``x`` has location ``x``, vaddr ``y``; a surface/texture/constant alias
``s @ surface aliases x`` has location ``x`` (resolved), vaddr ``x`` and proxy ``surface``.
Accesses overlap *completely* iff ``(location, size)`` are equal; partially overlapping accesses are
outside this model (the explorer must not produce them).

Semantics ``sem`` ∈ weak, relaxed, acquire, release, acq_rel, sc (ISA §8.4: ``.weak``/plain
accesses are not *strong*; every other access and every fence is). The halves of an RMW may carry
the atomic's own ``.sem`` (a read with ``release`` is strong but not an acquire; ``ExecutionBuilder.rmw``
splits acq_rel into an acquire read and a release write — both spellings mean the same).
``scope`` ∈ cta, cluster, gpu, sys (None for weak accesses and proxy fences; ISA §8.5).
A surface/texture alias of a generic alias (``s1 @ surface aliases y``, ``y @ generic aliases x``)
has location ``x`` and vaddr ``y`` (see :func:`resolve_location`).
Placement: every event carries its thread's ``cta``, ``cluster`` and ``gpu`` (ints; two threads share
a CTA iff equal ``(gpu, cta)``, a cluster iff equal ``(gpu, cluster)``; ``cluster=None`` means the
CTA's own cluster). Initial writes have ``thread == INIT`` (-1), are weak, and are co-before every
other write to their location.

Execution (the candidate the axioms judge)
-----------------------------------------
* ``po`` is *derived*: events of the same thread ordered by ``pos`` (their place in the executed
  instruction stream; transitive by construction). ``Execution.po`` returns the full (closed) set.
* ``rf``: pairs (write, read); every read of a complete execution has exactly one.
* ``co``: pairs (write, write) on the same location — **generating pairs are enough**: the checker
  uses the transitive closure ``co+`` (ISA §8.9.6: coherence order is a *partial* order; Dat3M
  ``let co = co+``). It must be acyclic. ``ExecutionBuilder`` adds init→write pairs itself.
* ``rmw``: pairs (read, write) of one atomic operation.
* ``addr``/``data``/``ctrl``: dependency pairs (read, dependent event) for No-Thin-Air (§8.10.4).
* ``sc_order``: the Fence-SC order (§8.9.3) as pairs of ``fence.sc`` events, or ``None`` — then the
  checker searches for an order itself (there are few ``fence.sc`` per litmus test).
* barrier instances: a ``'B'`` event's ``instance`` names the dynamic barrier instance it joined;
  ``None`` means "the k-th operation of this thread on barrier ``barrier_id`` in its CTA belongs to
  instance k" (right whenever all participating threads reach the barrier equally often).
  Barrier arrivals synchronize with the waits of the same instance in the same CTA (§8.9.4).
  An explorer that schedules barriers itself (quorums) may instead give ``bar_sync``: the
  synchronizes-with pairs (arrive, wait) of its schedule; they replace the instance-derived ones
  (still restricted to one CTA).
"""

from __future__ import annotations

import itertools
from collections.abc import Hashable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Literal, Protocol

from ptxkit.consistency.vocab import (
    BARRIER_OPS,
    BarrierOp,
    FenceKind,
    Kind,
    Placement,
    Proxy,
    Scope,
    Sem,
    is_acquire,
    is_fence_sc,
    is_release,
    is_strong,
    parse_event_fields,
    rmw_split,
)
from ptxkit.ir import Span

INIT = -1  # thread id of the initial writes


@dataclass(frozen=True)
class Event:
    """One memory-model event (see the module docstring for every field's meaning)."""

    id: int
    thread: int
    kind: Kind  # R | W | F | B (a str is accepted and converted)
    pos: int = 0  # position in its thread's program order
    location: Hashable | None = None  # physical location (R/W)
    vaddr: Hashable | None = None  # virtual (generic) address used; defaults to location
    size: int = 4  # bytes accessed; complete overlap = same (location, size)
    value: Hashable | None = None  # value read / written: bits (int) or a symbolic address (litmus pointers)
    sem: Sem = Sem.weak
    scope: Scope | None = None
    proxy: Proxy = Proxy.generic
    fence_kind: FenceKind | None = None  # F only
    barrier_id: int | None = None  # B only
    barrier_op: BarrierOp | None = None  # B only
    barrier_count: int | None = None  # B only: expected thread count (None = whole CTA)
    instance: int | None = None  # B only: dynamic barrier instance (see module docstring)
    cta: int = 0
    cluster: int | None = None
    gpu: int = 0
    label: str = ""  # the instruction text, for witnesses
    span: Span | None = field(default=None, compare=False)
    # -- the classification (ISA §8.4 operation types, §8.8 release/acquire patterns), computed once from
    # the fields above by the vocabulary's predicates (ptxkit.consistency.vocab): the checker asks each
    # event's class for every pair of events, and an event never changes
    is_init: bool = field(init=False, compare=False, repr=False)  # an initial write
    is_mem: bool = field(init=False, compare=False, repr=False)  # a read or a write
    is_strong: bool = field(init=False, compare=False, repr=False)  # vocab.is_strong
    is_release: bool = field(init=False, compare=False, repr=False)  # vocab.is_release
    is_acquire: bool = field(init=False, compare=False, repr=False)  # vocab.is_acquire
    is_fence_sc: bool = field(init=False, compare=False, repr=False)  # vocab.is_fence_sc

    def __post_init__(self) -> None:
        # the vocabulary's members, whatever spelling the caller used (ValueError names a bad one)
        parse_event_fields(self, "event ")
        if self.kind in (Kind.R, Kind.W) and self.vaddr is None:
            object.__setattr__(self, "vaddr", self.location)
        k, sem, fk = self.kind, self.sem, self.fence_kind
        for name, value in (("is_init", self.thread == INIT), ("is_mem", k in (Kind.R, Kind.W)),
                            ("is_strong", is_strong(k, sem)), ("is_release", is_release(k, sem, fk)),
                            ("is_acquire", is_acquire(k, sem, fk)), ("is_fence_sc", is_fence_sc(k, sem, fk))):
            object.__setattr__(self, name, value)

    @property
    def placement(self) -> Placement:
        """Where the issuing thread runs, for ``vocab.scope_includes``."""
        return Placement(self.gpu, self.cluster_key, self.cta)

    @property
    def cta_key(self) -> tuple[int, int]:
        return (self.gpu, self.cta)

    @property
    def cluster_key(self) -> tuple[int, object]:
        return (self.gpu, ("cta", self.cta) if self.cluster is None else self.cluster)

    def short(self) -> str:
        """A compact herd-like label: ``Wrel.gpu x=1``, ``Racq.sys y=0``, ``F.sc.gpu``, ``B.sync 0``."""
        if self.kind in ("R", "W"):
            sem = {"weak": "", "relaxed": "rlx", "acquire": "acq", "release": "rel",
                   "acq_rel": "ar", "sc": "sc"}[self.sem]
            scope = f".{self.scope}" if self.scope else ""
            proxy = "" if self.proxy == "generic" else f"[{self.proxy}]"
            where = self.vaddr if self.vaddr is not None else self.location
            return f"{self.kind}{sem}{scope}{proxy} {where}={self.value}"
        if self.kind == "F":
            if self.fence_kind == "proxy":
                return f"F.proxy.{self.proxy}"
            if self.fence_kind == "alias":
                return "F.proxy.alias"
            return f"F.{self.sem}.{self.scope}"
        return f"B.{self.barrier_op} {self.barrier_id}"


Pair = tuple[int, int]


@dataclass
class Execution:
    """A candidate execution: events plus the chosen relations (module docstring)."""

    events: list[Event]
    rf: set[Pair] = field(default_factory=set)
    co: set[Pair] = field(default_factory=set)
    rmw: set[Pair] = field(default_factory=set)
    addr: set[Pair] = field(default_factory=set)
    data: set[Pair] = field(default_factory=set)
    ctrl: set[Pair] = field(default_factory=set)
    sc_order: set[Pair] | None = None
    name: str = ""
    bar_sync: set[Pair] | None = None  # explicit barrier synchronizes-with edges (see module doc)

    def __post_init__(self) -> None:
        for i, e in enumerate(self.events):
            if e.id != i:
                raise ValueError(f"event at index {i} has id {e.id}; ids must equal indices")

    def __len__(self) -> int:
        return len(self.events)

    @property
    def po(self) -> set[Pair]:
        """Program order (§8.9.1), transitively closed; initial writes are in no thread."""
        by_thread: dict[int, list[Event]] = {}
        for e in self.events:
            if not e.is_init:
                by_thread.setdefault(e.thread, []).append(e)
        out: set[Pair] = set()
        for evs in by_thread.values():
            evs.sort(key=lambda e: e.pos)
            for i, a in enumerate(evs):
                for b in evs[i + 1:]:
                    out.add((a.id, b.id))
        return out

    def threads(self) -> list[int]:
        return sorted({e.thread for e in self.events if not e.is_init})

    def reads(self) -> list[Event]:
        return [e for e in self.events if e.kind == "R"]

    def writes(self) -> list[Event]:
        return [e for e in self.events if e.kind == "W"]

    def with_(self, **changes: Any) -> Execution:
        """A copy with some relations replaced (sets are copied, events shared: they are frozen)."""
        base: dict[str, Any] = dict(events=list(self.events), rf=set(self.rf), co=set(self.co), rmw=set(self.rmw),
                    addr=set(self.addr), data=set(self.data), ctrl=set(self.ctrl),
                    sc_order=None if self.sc_order is None else set(self.sc_order), name=self.name,
                    bar_sync=None if self.bar_sync is None else set(self.bar_sync))
        base.update(changes)
        return Execution(**base)

    def restrict(self, keep: Iterable[int]) -> Execution:
        """The sub-execution on the events ``keep`` (renumbered in order; relations restricted)."""
        kept = sorted(set(keep))
        new_id = {old: i for i, old in enumerate(kept)}
        events = [replace(self.events[old], id=new_id[old]) for old in kept]

        def r(rel: set[Pair] | None) -> set[Pair] | None:
            if rel is None:
                return None
            return {(new_id[a], new_id[b]) for a, b in rel if a in new_id and b in new_id}

        def rs(rel: set[Pair]) -> set[Pair]:
            return {(new_id[a], new_id[b]) for a, b in rel if a in new_id and b in new_id}

        return Execution(events, rs(self.rf), rs(self.co), rs(self.rmw), rs(self.addr), rs(self.data),
                         rs(self.ctrl), r(self.sc_order), self.name, r(self.bar_sync))


@dataclass
class _Place:
    cta: int = 0
    gpu: int = 0
    cluster: int | None = None


class ExecutionBuilder:
    """Build executions by hand (tests) or incrementally (the explorer).

    ``w = b.write(0, 'x', 1, sem='release', scope='gpu')`` returns the new event's id;
    ``b.read(1, 'x', 1, rf=w)`` adds the read and its rf edge. Initial writes (value 0 unless
    ``b.init('x', v)`` says otherwise) are created on first use of a location, and ``build()`` adds
    ``co`` edges init → every other write of that location."""

    def __init__(self, name: str = "") -> None:
        self.name = name
        self.events: list[Event] = []
        self.rf: set[Pair] = set()
        self.co: set[Pair] = set()
        self.rmw_pairs: set[Pair] = set()
        self.deps: dict[str, set[Pair]] = {"addr": set(), "data": set(), "ctrl": set()}
        self.sc: set[Pair] | None = None
        self._places: dict[int, _Place] = {}
        self._next_pos: dict[int, int] = {}
        self._init: dict[Hashable, int] = {}
        self._init_values: dict[Hashable, int] = {}

    # -- placement and init
    def thread(self, t: int, cta: int = 0, gpu: int = 0, cluster: int | None = None) -> ExecutionBuilder:
        self._places[t] = _Place(cta, gpu, cluster)
        return self

    def init(self, location: Hashable, value: int = 0) -> int:
        """The initial write of ``location`` (created once)."""
        if location not in self._init:
            self._init_values[location] = value
            self._init[location] = self._add(Event(len(self.events), INIT, Kind.W, location=location,
                                                   value=value, label=f"init {location}={value}"))
        return self._init[location]

    def _add(self, e: Event) -> int:
        self.events.append(e)
        return e.id

    def _event(self, thread: int, kind: Kind, **kw: Any) -> int:
        place = self._places.setdefault(thread, _Place())
        pos = self._next_pos.get(thread, 0)
        self._next_pos[thread] = pos + 1
        loc = kw.get("location")
        if loc is not None:
            self.init(loc)
        e = Event(len(self.events), thread, kind, pos=pos, cta=place.cta, gpu=place.gpu,
                  cluster=place.cluster, **kw)
        return self._add(e)

    # -- events
    def write(self, thread: int, location: Hashable, value: int, sem: str = "weak",
              scope: str | None = None, proxy: str = "generic", vaddr: Hashable | None = None,
              label: str = "") -> int:
        return self._event(thread, Kind.W, location=location, value=value, sem=sem, scope=scope,
                           proxy=proxy, vaddr=vaddr, label=label)

    def read(self, thread: int, location: Hashable, value: int | None = None, sem: str = "weak",
             scope: str | None = None, proxy: str = "generic", vaddr: Hashable | None = None,
             rf: int | Literal["init"] | None = None, label: str = "") -> int:
        """A read; ``rf`` names the write it reads from (``'init'`` → the initial write)."""
        r = self._event(thread, Kind.R, location=location, value=value, sem=sem, scope=scope,
                        proxy=proxy, vaddr=vaddr, label=label)
        if rf is not None:
            w = self.init(location) if isinstance(rf, str) else rf
            self.rf.add((w, r))
            if value is None:
                self.events[r] = replace(self.events[r], value=self.events[w].value)
        return r

    def rmw(self, thread: int, location: Hashable, read_value: int | None, write_value: int,
            sem: str = "relaxed", scope: str | None = "gpu", rf: int | Literal["init"] | None = None,
            label: str = "") -> tuple[int, int]:
        """An atomic read-modify-write: R then W, linked by rmw; the halves' semantics are
        :func:`ptxkit.consistency.vocab.rmw_split` of ``sem`` (acq_rel: acquire read, release write)."""
        rsem, wsem = rmw_split(sem)
        r = self.read(thread, location, read_value, sem=rsem, scope=scope, rf=rf, label=label)
        w = self.write(thread, location, write_value, sem=wsem, scope=scope, label=label)
        self.rmw_pairs.add((r, w))
        return r, w

    def fence(self, thread: int, sem: str = "sc", scope: str = "gpu", label: str = "") -> int:
        return self._event(thread, Kind.F, sem=sem, scope=scope, fence_kind="sem", label=label)

    def proxy_fence(self, thread: int, proxy: str, label: str = "") -> int:
        """``fence.proxy.<proxy>`` (§8.6). It has no ``.sem``: ``sem`` stays 'weak' (it is never a
        release/acquire pattern); its ``proxy`` is the one it orders against the generic proxy."""
        return self._event(thread, Kind.F, proxy=proxy, fence_kind="proxy", label=label)

    def alias_fence(self, thread: int, label: str = "") -> int:
        """``fence.proxy.alias`` (§8.6: orders generic accesses through different virtual aliases)."""
        return self._event(thread, Kind.F, fence_kind="alias", label=label)

    def barrier(self, thread: int, barrier_id: int = 0, op: str = "sync", count: int | None = None,
                instance: int | None = None, label: str = "") -> int:
        if op not in BARRIER_OPS:
            raise ValueError(f"barrier op {op!r} not in {BARRIER_OPS}")
        return self._event(thread, Kind.B, barrier_id=barrier_id, barrier_op=op, barrier_count=count,
                           instance=instance, label=label)

    # -- relations
    def add_rf(self, w: int, r: int) -> ExecutionBuilder:
        self.rf.add((w, r))
        return self

    def add_co(self, *writes: int) -> ExecutionBuilder:
        """``add_co(a, b, c)`` adds a→b→c to co."""
        for a, b in itertools.pairwise(writes):
            self.co.add((a, b))
        return self

    def add_dep(self, kind: str, r: int, e: int) -> ExecutionBuilder:
        self.deps[kind].add((r, e))
        return self

    def add_sc(self, *fences: int) -> ExecutionBuilder:
        """Fence-SC order f1 → f2 → … (switches from "search" to "given")."""
        if self.sc is None:
            self.sc = set()
        for a, b in itertools.pairwise(fences):
            self.sc.add((a, b))
        return self

    def build(self) -> Execution:
        co = set(self.co)
        for e in self.events:
            if e.kind == "W" and not e.is_init:
                co.add((self._init[e.location], e.id))
        return Execution(list(self.events), set(self.rf), co, set(self.rmw_pairs),
                         set(self.deps["addr"]), set(self.deps["data"]), set(self.deps["ctrl"]),
                         None if self.sc is None else set(self.sc), self.name)


class _Located(Protocol):
    """What :func:`resolve_location` reads of a location (``ptxkit.explore.program.Location``)."""

    alias_of: str | None
    proxy: str


def resolve_location(locations: Mapping[str, _Located], name: str) -> tuple[str, str, str]:
    """Resolve a Dat3M location name to ``(physical location, virtual address, proxy)``.

    ``locations`` maps names to objects with ``alias_of`` and ``proxy`` (``ptxkit.explore.program.
    Location``). ``y @ generic aliases x`` → ``(x, y, 'generic')``: another virtual address of x.
    ``s @ surface aliases y`` → ``(phys(y), y, 'surface')``: the surface proxy reaches y's virtual
    address (ISCA'22: a non-generic proxy access has the generic address it aliases)."""
    seen: set[str] = set()
    loc = locations.get(name)
    if loc is None or loc.alias_of is None:
        return name, name, "generic"
    proxy = loc.proxy or "generic"
    vaddr = name if proxy == "generic" else loc.alias_of
    phys = name
    while True:
        cur = locations.get(phys)
        if cur is None or cur.alias_of is None or phys in seen:
            break
        seen.add(phys)
        phys = cur.alias_of
    if proxy != "generic":
        # the generic address a proxy alias reaches is itself resolved through surface aliases
        v = locations.get(vaddr)
        while v is not None and v.alias_of and (v.proxy or "generic") != "generic":
            vaddr = v.alias_of
            v = locations.get(vaddr)
    return phys, vaddr, proxy
