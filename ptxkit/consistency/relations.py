"""The derived relations of the PTX memory model (PTX ISA 9.x, §8.7–§8.9), one named function each.

Every function takes the :class:`Base` (the execution's primitive relations and event sets, built
once per candidate by :func:`base_relations`) and returns a relation in the chosen backend
(``ptxkit.consistency.rel``). :func:`derive` assembles them into :class:`Relations`.
:func:`static_relations` is the events-only part of the Base (cacheable across candidates with the
same events); :meth:`Relations.with_co` swaps the coherence order (nothing derived depends on it).

Model switches (``ptxkit.consistency.models.Model``) used here:
``proxies`` (v7.5: same-proxy in morally strong, virtual addresses, proxy-preserved base causality)
and ``cause_base_includes_po`` (v7.5: base causality contains program order; v6.0 does not, and its
causality adds ``observation; po-loc`` instead — see :func:`causality`).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass, field, replace
from typing import Generic, TypeVar

from ptxkit.consistency import vocab
from ptxkit.consistency.events import Event, Execution
from ptxkit.consistency.registry import Model, get_model
from ptxkit.consistency.rel import BACKENDS, Backend, Relation

BarrierInstance = tuple[tuple[int, int], "int | None", int]  # (CTA key, barrier id, instance)


def scope_includes(a: Event, b: Event) -> bool:
    """Does ``a``'s scope include the thread executing ``b`` (§8.5: cta ⊂ cluster ⊂ gpu ⊂ sys)?
    The one definition is :func:`ptxkit.consistency.vocab.scope_includes`."""
    return vocab.scope_includes(a.scope, a.placement, b.placement)


def same_scope_rows(ev: list[Event]) -> list[int]:
    """Row bitsets of ``sr``: i's scope includes j's thread and j's scope includes i's (§8.5, §8.7).
    Built by grouping threads by their key at each scope level — O(n · levels) big-int operations
    instead of n² calls of :func:`scope_includes`, which matters for kernels with thousands of
    initial writes. Event ids are list positions."""
    everyone: dict[vocab.Scope, dict[Hashable, int]] = {s: {} for s in vocab.Scope}
    scoped: dict[vocab.Scope, dict[Hashable, int]] = {s: {} for s in vocab.Scope}
    for e in ev:
        bit = 1 << e.id
        for level in vocab.Scope:
            k = level.group(e.placement)
            everyone[level][k] = everyone[level].get(k, 0) | bit
            if e.scope == level:
                scoped[level][k] = scoped[level].get(k, 0) | bit
    rows = []
    for e in ev:
        if e.scope is None:
            rows.append(0)
            continue
        level = vocab.Scope(e.scope)
        mine = everyone[level][level.group(e.placement)]  # the threads e's scope includes
        theirs = 0  # the events whose scope includes e's thread
        for lv in vocab.Scope:
            theirs |= scoped[lv].get(lv.group(e.placement), 0)
        rows.append(mine & theirs)
    return rows


@dataclass
class Base:
    """Primitive relations and event sets of one execution (everything but the Fence-SC choice).
    The event sets are bit masks over event ids, all computed by :func:`static_relations`."""

    ex: Execution
    model: Model
    R: Backend  # the backend class
    n: int
    # event sets (bitmasks)
    reads: int
    writes: int
    mem: int
    fences: int
    fence_sc: int
    barriers: int
    generic: int  # generic-proxy memory events
    alias_fences: int
    strong: int
    strong_write: int
    strong_read: int
    release: int
    acquire: int
    rels: dict[str, Relation] = field(default_factory=dict)

    def __getattr__(self, name: str) -> Relation:  # rels as attributes: base.po, base.rf …
        rels: dict[str, Relation] | None = self.__dict__.get("rels")
        if rels is not None and name in rels:
            return rels[name]
        raise AttributeError(name)


def _mask(events: list[Event], pred: Callable[[Event], bool]) -> int:
    m = 0
    for e in events:
        if pred(e):
            m |= 1 << e.id
    return m


def barrier_instances(ex: Execution) -> dict[int, BarrierInstance]:
    """Barrier event id → its instance key (cta, barrier id, instance). An event without
    ``instance`` joins the k-th instance for its k-th operation on that barrier (module events)."""
    out: dict[int, BarrierInstance] = {}
    count: dict[tuple[int, tuple[int, int], int | None], int] = {}
    for e in sorted((e for e in ex.events if e.kind == "B"), key=lambda e: (e.thread, e.pos)):
        k = (e.thread, e.cta_key, e.barrier_id)
        inst = e.instance if e.instance is not None else count.get(k, 0)
        count[k] = count.get(k, 0) + 1
        out[e.id] = (e.cta_key, e.barrier_id, inst)
    return out


def static_relations(ex: Execution, model: Model, backend: str = "bits") -> Base:
    """The part of :func:`base_relations` that depends on the events only (po, locations, scopes,
    proxies, morally strong, release/acquire patterns) — not on rf, co, rmw, dependencies or the
    barrier schedule. An explorer checking many candidates over one event list builds it once and
    passes it to ``base_relations(..., static=)`` (values of events do not matter here)."""
    R = BACKENDS[backend]
    ev = ex.events
    n = len(ev)
    reads, writes = _mask(ev, lambda e: e.kind == "R"), _mask(ev, lambda e: e.kind == "W")
    strong = _mask(ev, lambda e: e.is_strong)
    b = Base(ex, model, R, n, reads=reads, writes=writes, mem=reads | writes,
             fences=_mask(ev, lambda e: e.kind == "F"),
             fence_sc=_mask(ev, lambda e: e.is_fence_sc),
             barriers=_mask(ev, lambda e: e.kind == "B"),
             generic=_mask(ev, lambda e: e.is_mem and (e.proxy == "generic" or not model.proxies)),
             alias_fences=_mask(ev, lambda e: e.kind == "F" and e.fence_kind == "alias"),
             strong=strong, strong_write=strong & writes, strong_read=strong & reads,
             release=_mask(ev, lambda e: e.is_release), acquire=_mask(ev, lambda e: e.is_acquire))

    r = b.rels
    r["po"] = R.from_pairs(n, ex.po)
    def mem_key(attr: str) -> Callable[[int], Hashable | None]:
        return lambda i: ("m", getattr(ev[i], attr)) if ev[i].is_mem else None

    r["loc"] = R.from_key(n, mem_key("location"))
    if model.proxies:
        r["vloc"] = R.from_key(n, mem_key("vaddr"))
        r["same_proxy"] = R.from_key(n, lambda i: ev[i].proxy)
    else:  # v6.0 knows no proxies or virtual aliases
        r["vloc"] = r["loc"]
        r["same_proxy"] = R.cross(n, (1 << n) - 1, (1 << n) - 1)
    r["same_size"] = R.from_key(n, lambda i: ev[i].size)
    r["scta"] = R.from_key(n, lambda i: None if ev[i].is_init else ev[i].cta_key)
    r["sr"] = R.from_rows(n, same_scope_rows(ev))
    r["po_loc"] = r["po"] & r["loc"]
    r["po_vloc"] = r["po"] & r["vloc"]
    r["id"] = R.identity(n, (1 << n) - 1)
    r["morally_strong"] = morally_strong(b)
    r["release_pattern"] = release_pattern(b)
    r["acquire_pattern"] = acquire_pattern(b)
    return b


def base_relations(ex: Execution, model: Model, backend: str = "bits", *,
                   static: Base | None = None) -> Base:
    """Build the primitive relations (po, rf, co+, fr, rmw, dep, loc, vloc, scopes, proxies).
    ``static``: :func:`static_relations` of an execution with the same events (reused, not changed)."""
    if static is None:
        b = static_relations(ex, model, backend)  # fresh: fill it in place
    else:
        b = replace(static, ex=ex, rels=dict(static.rels))
    R, n, r = b.R, b.n, b.rels
    r["rf"] = R.from_pairs(n, ex.rf)
    # §8.9.6: coherence order is a partial order; generating pairs are closed here (Dat3M: co = co+)
    r["co"] = R.from_pairs(n, ex.co).plus()
    r["fr"] = r["rf"].inv() @ r["co"]
    r["rmw"] = R.from_pairs(n, ex.rmw)
    r["dep"] = R.from_pairs(n, ex.addr | ex.data | ex.ctrl)
    r["observation"] = observation(b)
    r["sync_ra"] = sync_release_acquire(b)
    if ex.bar_sync is not None:  # an explorer's own barrier schedule
        r["sync_barrier"] = R.from_pairs(n, ex.bar_sync) & r["scta"]
    else:
        r["sync_barrier"] = sync_barrier(b)
    return b


# --------------------------------------------------------------------------- §8.7 morally strong

def morally_strong(b: Base) -> Relation:
    """§8.7: (1) related in program order, or both strong with scopes including each other's thread;
    (2) [v7.5] performed via the same proxy; (3) if both are memory operations, they overlap
    completely (v7.5: the same *virtual* address, as in the ISCA'22 model; same size)."""
    R, n = b.R, b.n
    all_ = (1 << n) - 1
    ms1 = b.po | b.po.inv() | (R.cross(n, b.strong, b.strong) & b.sr)
    both_mem = R.cross(n, b.mem, b.mem)
    ms3 = (both_mem & b.vloc & b.same_size) | (R.cross(n, all_, all_) - both_mem)
    return (ms1 & b.same_proxy & ms3) - b.id


# --------------------------------------------------------------------------- §8.9.2 observation

def observation(b: Base) -> Relation:
    """§8.9.2: W precedes R in observation order if they are morally strong and R reads W, or
    through atomics: W obs Z and Z obs R for an atomic Z — i.e. ``(ms∩rf) ; (rmw ; ms∩rf)*``."""
    msrf = b.morally_strong & b.rf
    return msrf @ (b.rmw @ msrf).star()


# --------------------------------------------------------------------------- §8.8 patterns

def release_pattern(b: Base) -> Relation:
    """§8.8 release pattern on M, as (first op, the pattern's write): a release write on M, optionally
    followed in po by a strong write on M; or a release fence (fence.acq_rel/.sc) followed in po by
    a strong write."""
    same = b.po_vloc.opt()
    rel_w = same.filter(b.release & b.writes, b.strong_write)
    fence = b.po.filter(b.release & b.fences, b.strong_write)
    return rel_w | fence


def acquire_pattern(b: Base) -> Relation:
    """§8.8 acquire pattern on M, as (the pattern's read, last op): an acquire read on M, optionally
    preceded in po by a strong read on M; or a strong read followed in po by an acquire fence."""
    same = b.po_vloc.opt()
    acq_r = same.filter(b.strong_read, b.acquire & b.reads)
    fence = b.po.filter(b.strong_read, b.acquire & b.fences)
    return acq_r | fence


# --------------------------------------------------------------------------- §8.9.4 synchronizes-with

def sync_release_acquire(b: Base) -> Relation:
    """§8.9.4: a release pattern X synchronizes with an acquire pattern Y if X's write precedes Y's
    read in observation order and X's first and Y's last operation are morally strong."""
    return b.morally_strong & (b.release_pattern @ b.observation @ b.acquire_pattern)


def sync_barrier(b: Base) -> Relation:
    """§8.9.4: bar{.cta}.sync/.red/.arrive synchronizes with bar{.cta}.sync/.red of the same barrier
    instance *in the same CTA* (barriers are CTA-scoped; ``scta`` as Dat3M's ``syncbar & scta``)."""
    ev = b.ex.events
    inst = barrier_instances(b.ex)
    return b.R.from_predicate(b.n, lambda i, j: i != j and i in inst and j in inst
                              and inst[i] == inst[j] and ev[j].barrier_op in ("sync", "red"))


def sync_fence(b: Base, sc_order: set[tuple[int, int]] | None) -> Relation:
    """§8.9.3/§8.9.4: a fence.sc X synchronizes with a morally strong fence.sc Y that it precedes in
    Fence-SC order (an acyclic partial order: given pairs are transitively closed)."""
    order = b.R.from_pairs(b.n, sc_order or ()).plus()
    return (order & b.morally_strong).filter(b.fence_sc, b.fence_sc)


# --------------------------------------------------------------------------- §8.9.5 causality

def base_causality(b: Base, sw: Relation) -> Relation:
    """§8.9.5 base causality: X po Y (v7.5), or X sw Y, or the transitive combinations of po and sw:
    ``po? ; (sw ; po?)+  ∪  po``."""
    po_opt = b.po.opt()
    cb = po_opt @ (sw @ po_opt).plus()
    return cb | b.po if b.model.cause_base_includes_po else cb


def proxy_preserved_base_causality(b: Base, cb: Relation) -> Relation:
    """§8.9.5 proxy-preserved base causality (v7.5, ISCA'22 mixed-proxy model; clauses as Dat3M's
    ptx-v7.5.cat): X cb Y between memory operations and (a) both generic, same virtual address; or
    (b) same proxy, same CTA, same virtual address; or (c) the cb path passes a proxy fence of X's
    proxy in X's CTA and/or one of Y's proxy in Y's CTA; or (d) for virtual aliases of one physical
    location, the path passes a ``fence.proxy.alias`` (combined with (c)).
    Pairs that are not both memory operations (fences, barriers) keep their base causality: the
    proxy conditions speak of memory operations only (needed for the Fence-SC axiom)."""
    if not b.model.proxies:
        return cb
    R, n = b.R, b.n
    gen, mem, alias = b.generic, b.mem, b.alias_fences
    pfo = R.cross(n, b.fences, mem) & b.same_proxy & b.scta  # proxy fence → op it can order
    into_fence = cb & pfo.inv()
    out_fence = cb & pfo
    via_alias = cb.filter(None, alias)
    c = (b.vloc & cb).filter(gen, gen)
    if mem & ~gen == 0 and not alias:
        # all accesses generic, no alias fence: clauses (b)-(d) are contained in (a) (cb is transitive)
        return c | (cb - cb.filter(mem, mem))
    c = c | (b.same_proxy & b.scta & b.vloc & cb).filter(mem, mem)
    c = c | (b.vloc & (into_fence @ cb.filter(None, gen)))
    c = c | (b.vloc & (cb.filter(gen) @ out_fence))
    c = c | (b.vloc & (into_fence @ cb @ out_fence))
    c = c | (b.loc & (via_alias @ cb).filter(gen, gen))
    c = c | (b.loc & (into_fence @ via_alias @ cb.filter(None, gen)))
    c = c | (b.loc & (via_alias.filter(gen) @ cb @ out_fence))
    c = c | (b.loc & (into_fence @ via_alias @ cb @ out_fence))
    return c | (cb - cb.filter(mem, mem))


def causality(b: Base, cb: Relation, ppcb: Relation) -> Relation:
    """§8.9.5 causality order: X ppcb Y, or X observation Z and Z ppcb Y (v7.5).
    v6.0 (ISA 6.0 / ptx-v6.0.cat): ``cb ∪ observation ; (cb ∪ po-loc)``."""
    if b.model.cause_base_includes_po:
        return ppcb | (b.observation @ ppcb)
    return cb | (b.observation @ (cb | b.po_loc))


_T = TypeVar("_T")


class _FromBase(Generic[_T]):
    """A field of :class:`Base` read through :class:`Relations`, typed (``__getattr__`` is not)."""

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, rels: Relations, owner: type) -> _T:
        value: _T = getattr(rels.base, self.name)
        return value


@dataclass
class Relations:
    """All named relations of one execution for one Fence-SC order choice."""

    base: Base
    sync_fence: Relation
    sw: Relation
    base_causality: Relation
    proxy_preserved: Relation
    cause: Relation

    def __getattr__(self, name: str) -> Relation:
        rel: Relation = getattr(self.__dict__["base"], name)
        return rel

    # the Base's fields, read through (``__getattr__`` covers only the relations)
    ex = _FromBase[Execution]()
    n = _FromBase[int]()
    writes = _FromBase[int]()
    fence_sc = _FromBase[int]()

    def with_co(self, co: Relation) -> Relations:
        """The same relations with another (transitively closed) coherence order ``co`` (a relation
        of this backend): only co and fr change — no derived relation depends on co (§8.9.5)."""
        b = self.base
        base = replace(b, rels={**b.rels, "co": co, "fr": b.rels["rf"].inv() @ co})
        return Relations(base, self.sync_fence, self.sw, self.base_causality, self.proxy_preserved, self.cause)

    def named(self) -> dict[str, Relation]:
        """Every relation by name (for DOT/Lean/SMT exporters and the backend agreement test)."""
        out = dict(self.base.rels)
        out.update(sync_fence=self.sync_fence, sw=self.sw, base_causality=self.base_causality,
                   proxy_preserved=self.proxy_preserved, cause=self.cause)
        return out


def derive(b: Base, sc_order: set[tuple[int, int]] | None) -> Relations:
    """The relations depending on the Fence-SC order choice (sw, base/proxy-preserved causality)."""
    sf = sync_fence(b, sc_order)
    sw = b.sync_ra | sf | b.sync_barrier
    cb = base_causality(b, sw)
    ppcb = proxy_preserved_base_causality(b, cb)
    return Relations(b, sf, sw, cb, ppcb, causality(b, cb, ppcb))


def compute(ex: Execution, model: Model | str = "ptx-7.5", backend: str = "bits",
            sc_order: set[tuple[int, int]] | None = None) -> Relations:
    """Convenience: base + derived relations (``sc_order`` None → the execution's own, or none)."""
    m = get_model(model)
    return derive(base_relations(ex, m, backend), sc_order if sc_order is not None else ex.sc_order)
