"""SMT-LIB 2 twin of the Lean obligations (PTX ISA §8.9–8.10), discharged with z3.

The axioms are encoded here *independently* of the Python checker (``ptxkit.consistency``, which
``ptxkit explore`` decides with): this module re-derives every relation from the ISA text (PTX ISA
chapter 8, the reading ``ptxkit.consistency`` implements — see :func:`encode_execution`) as Boolean
SMT terms over a bit-matrix of the execution's events:

* a relation is a sparse matrix ``{(a, b): term}``; a missing cell is ``false``. Which cells *may* be
  true is over-approximated in Python (pure sparsity, so the files stay small); their truth value is
  left to the solver: the execution's base relations are named constants (``po_0_3``) asserted true
  (a witness) or left free under well-formedness constraints (a forbidden outcome's candidate space);
* composition, union, intersection, difference, inverse are written out cell by cell with ``define-fun``;
* transitive closure is computed by iterated squaring, ⌈log2 n⌉+1 rounds (exact on n events);
* ``acyclic r`` is an integer ranking function (``r(a, b) → rank a < rank b``), which the solver must find.

For an allowed outcome the witness's rf/co/Fence-SC order are fixed: the file is SAT iff the witness is
well formed and consistent. For a forbidden outcome each candidate *skeleton* (events, po, rmw,
dependencies, barrier synchronisation, outcome) is written with rf, co (any strict partial order per
location, initial writes first) and the Fence-SC order (any acyclic transitive order relating every
morally strong ``fence.sc`` pair, §8.9.3) left free: UNSAT proves no choice makes the outcome consistent.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from ptxkit.consistency import vocab
from ptxkit.consistency.registry import get_model
from ptxkit.consistency.vocab import FenceKind, Kind, Proxy
from ptxkit.explore.result import ExploreResult
from ptxkit.export.claims import to_obligations
from ptxkit.export.files import atomic_write, prepare_directory
from ptxkit.export.obligations import (
    BASE_RELATIONS,
    CHOSEN_RELATIONS,
    OEvent,
    OExecution,
    TestObligations,
)

Cells = dict[tuple[int, int], str]


# --------------------------------------------------------------------------- static event attributes

def _in_scope(e: OEvent, other: OEvent) -> bool:
    """Does ``e``'s scope include the thread executing ``other`` (ISA §8.5)? The one definition:
    :func:`ptxkit.consistency.vocab.scope_includes`."""
    return vocab.scope_includes(e.scope, e.placement, other.placement)


def _strong(e: OEvent) -> bool:
    return vocab.is_strong(e.kind, e.sem)


# Event tags, each the Python checker's own predicate (``ptxkit.consistency.vocab``): the SMT twin
# re-derives the relations independently, but it must classify events exactly as the checker does.
TAGS: dict[str, Callable[[OEvent], bool]] = {
    "W": lambda e: e.kind == Kind.W,
    "R": lambda e: e.kind == Kind.R,
    "M": lambda e: e.kind in (Kind.R, Kind.W),
    "F": lambda e: e.kind == Kind.F,
    "strong_write": lambda e: e.kind == Kind.W and _strong(e),
    "strong_read": lambda e: e.kind == Kind.R and _strong(e),
    "strong_operation": _strong,
    "W_REL": lambda e: e.kind == Kind.W and vocab.is_release(e.kind, e.sem, e.fence_kind),
    "R_ACQ": lambda e: e.kind == Kind.R and vocab.is_acquire(e.kind, e.sem, e.fence_kind),
    # fence.acq_rel / fence.sc (and the one-sided fence.release / fence.acquire) — §8.8 patterns
    "F_REL": lambda e: e.kind == Kind.F and vocab.is_release(e.kind, e.sem, e.fence_kind),
    "F_ACQ": lambda e: e.kind == Kind.F and vocab.is_acquire(e.kind, e.sem, e.fence_kind),
    "F_SC": lambda e: vocab.is_fence_sc(e.kind, e.sem, e.fence_kind),
    "F_ALIAS": lambda e: e.kind == Kind.F and e.fence_kind == FenceKind.alias,
    "GEN": lambda e: e.kind in (Kind.R, Kind.W) and e.proxy == Proxy.generic,
}


def _same_cta(a: OEvent, b: OEvent) -> bool:
    return not a.is_init and not b.is_init and a.gpu == b.gpu and a.cta == b.cta


PAIRS = {
    "loc": lambda a, b: a.loc is not None and a.loc == b.loc,
    "vloc": lambda a, b: a.vloc is not None and a.vloc == b.vloc,
    "sr": lambda a, b: _in_scope(a, b) and _in_scope(b, a),
    "scta": _same_cta,
    "same_proxy": lambda a, b: a.proxy == b.proxy,
    "M_M": lambda a, b: a.kind in ("R", "W") and b.kind in ("R", "W"),
    "same_size": lambda a, b: a.size == b.size,
    # §8.9.4: a barrier arrival synchronizes with the waits of the same instance in the same CTA
    "sync_barrier": lambda a, b: (a.kind == b.kind == "B" and a.thread != b.thread and _same_cta(a, b)
                                  and a.barrier_id == b.barrier_id and a.instance == b.instance
                                  and b.barrier_op in ("sync", "red")),
}


# --------------------------------------------------------------------------- the sparse relation algebra

@dataclass
class Rel:
    cells: Cells


@dataclass
class Encoder:
    """Writes SMT-LIB commands for one execution; relations are :class:`Rel` of SMT terms."""

    n: int
    prefix: str = ""
    out: list[str] = field(default_factory=list)
    _k: int = 0

    def emit(self, line: str) -> None:
        self.out.append(line)

    def _name(self, base: str) -> str:
        self._k += 1
        return f"{base}K{self._k}"  # 'K' never occurs in a base name: symbols stay unique

    def define(self, name: str, rel: dict[tuple[int, int], list[str]], op: str) -> Rel:
        """Materialise cells whose term is a disjunction/conjunction of several parts."""
        cells: Cells = {}
        for (a, b), parts in sorted(rel.items()):
            parts = [p for p in parts if p != ("false" if op == "or" else "true")]
            if (op == "or" and "true" in parts) or (op == "and" and not parts):
                cells[(a, b)] = "true"
                continue
            if op == "and" and "false" in parts:
                continue
            if not parts:
                continue
            if len(parts) == 1 and " " not in parts[0]:
                cells[(a, b)] = parts[0]
                continue
            sym = f"{self.prefix}{name}_{a}_{b}"
            body = parts[0] if len(parts) == 1 else f"({op} {' '.join(parts)})"
            self.emit(f"(define-fun {sym} () Bool {body})")
            cells[(a, b)] = sym
        return Rel(cells)

    # -- algebra (each result gets fresh names; ``name`` only makes the file readable)
    def union(self, name: str, *rs: Rel) -> Rel:
        acc: dict[tuple[int, int], list[str]] = {}
        for r in rs:
            for k, t in r.cells.items():
                acc.setdefault(k, []).append(t)
        return self.define(self._name(name), acc, "or")

    def inter(self, name: str, *rs: Rel) -> Rel:
        keys = set(rs[0].cells)
        for r in rs[1:]:
            keys &= set(r.cells)
        return self.define(self._name(name), {k: [r.cells[k] for r in rs] for k in keys}, "and")

    def diff(self, name: str, r: Rel, s: Rel) -> Rel:
        acc = {k: [t] + ([f"(not {s.cells[k]})"] if k in s.cells else []) for k, t in r.cells.items()}
        for k in list(acc):
            if k in s.cells and s.cells[k] == "true":
                del acc[k]
        return self.define(self._name(name), acc, "and")

    def seq(self, name: str, *rs: Rel) -> Rel:
        r = rs[0]
        for s in rs[1:]:
            by_src: dict[int, list[tuple[int, str]]] = {}
            for (c, b), t in s.cells.items():
                by_src.setdefault(c, []).append((b, t))
            acc: dict[tuple[int, int], list[str]] = {}
            for (a, c), t in r.cells.items():
                for b, u in by_src.get(c, ()):
                    term = t if u == "true" else u if t == "true" else f"(and {t} {u})"
                    acc.setdefault((a, b), []).append(term)
            r = self.define(self._name(name), acc, "or")
        return r

    def inv(self, r: Rel) -> Rel:
        return Rel({(b, a): t for (a, b), t in r.cells.items()})

    def ident(self) -> Rel:
        return Rel({(i, i): "true" for i in range(self.n)})

    def opt(self, name: str, r: Rel) -> Rel:
        return self.union(name, r, self.ident())

    def minus_id(self, r: Rel) -> Rel:
        return Rel({k: t for k, t in r.cells.items() if k[0] != k[1]})

    def tc(self, name: str, r: Rel) -> Rel:
        """r+ by squaring: after k rounds every path of length ≤ 2^k is covered."""
        rounds = max(1, math.ceil(math.log2(max(self.n, 2)))) + 1
        for _ in range(rounds):
            r = self.union(name, r, self.seq(name, r, r))
        return r

    # -- assertions
    def empty(self, label: str, r: Rel) -> None:
        for (a, b), t in sorted(r.cells.items()):
            self.emit(f"(assert (! (not {t}) :named {self.prefix}{label}_{a}_{b}))")

    def irreflexive(self, label: str, r: Rel) -> None:
        self.empty(label, Rel({k: t for k, t in r.cells.items() if k[0] == k[1]}))

    def acyclic(self, label: str, r: Rel) -> None:
        self.irreflexive(label, r)
        used = sorted({x for k in r.cells for x in k})
        for i in used:
            self.emit(f"(declare-const {self.prefix}rk_{label}_{i} Int)")
        for (a, b), t in sorted(r.cells.items()):
            if a != b:
                self.emit(f"(assert (! (=> {t} (< {self.prefix}rk_{label}_{a} {self.prefix}rk_{label}_{b}))"
                          f" :named {self.prefix}{label}_{a}_{b}))")


# --------------------------------------------------------------------------- one execution

def _may(ex: OExecution, name: str) -> set[tuple[int, int]]:
    """Pairs a free run-time choice may relate (over-approximation; the constraints do the rest)."""
    ev = ex.events
    if name == "rf":  # never from the reading thread's own future (the explorer's structural rule)
        return {(w.eid, r.eid) for w in ev for r in ev if w.kind == "W" and r.kind == "R"
                and w.loc is not None and w.loc == r.loc and w.value == r.value
                and (r.eid, w.eid) not in ex.po and r.eid != w.eid}
    if name == "co":
        return {(a.eid, b.eid) for a in ev for b in ev if a.kind == "W" and b.kind == "W"
                and a.eid != b.eid and a.loc is not None and a.loc == b.loc and not b.is_init}
    if name == "sync_fence":
        return {(a.eid, b.eid) for a in ev for b in ev if a.eid != b.eid
                and TAGS["F_SC"](a) and TAGS["F_SC"](b)}
    raise KeyError(name)


def encode_execution(ex: OExecution, model: str, free: bool, prefix: str = "") -> list[str]:
    """SMT-LIB commands asserting that ``ex`` (with rf/co/Fence-SC order free when ``free``) is a
    well-formed, consistent execution of ``model`` with its outcome's final memory values.

    The ISA reading (§8): observation chained through atomics (§8.9.2), the Fence-SC axiom over
    morally strong pairs (§8.10.2), fences and barriers keep their base causality in proxy-preserved
    base causality (§8.9.5 speaks of memory operations), fence.acquire/.release count in the
    release/acquire patterns (§8.8)."""
    n = ex.n
    enc = Encoder(n, prefix)
    ev = ex.events
    p = prefix
    enc.emit(f"; events of {p or 'the execution'}: " + "; ".join(
        f"{e.eid}={e.kind}{'' if e.thread is None else f'@P{e.thread}'}"
        f"{'' if e.loc is None else f' {e.vloc}({e.loc})'}{'' if e.value is None else f'={e.value}'}"
        f" {e.sem}{'' if e.scope is None else '.' + e.scope}" for e in ev))

    tag = {t: Rel({(e.eid, e.eid): "true" for e in ev if f(e)}) for t, f in TAGS.items()}
    pair = {k: Rel({(a.eid, b.eid): "true" for a in ev for b in ev if f(a, b)}) for k, f in PAIRS.items()}
    allp = Rel({(a, b): "true" for a in range(n) for b in range(n)})

    base: dict[str, Rel] = {}
    for name in BASE_RELATIONS:
        given = ex.relation(name)
        if name == "sync_barrier" and given is None:
            base[name] = pair["sync_barrier"]  # derived from the barrier instances
            continue
        chosen = (free and name in CHOSEN_RELATIONS) or given is None
        pairs = _may(ex, name) if chosen else (given or frozenset())
        cells: Cells = {}
        for a, b in sorted(pairs):
            sym = f"{p}{name}_{a}_{b}"
            enc.emit(f"(declare-const {sym} Bool)")
            if not chosen:
                enc.emit(f"(assert {sym})")
            cells[(a, b)] = sym
        base[name] = Rel(cells)
    po = base["po"]

    # ---- well-formedness of the run-time choices (ISA §8.9.6 coherence order, §8.9.3 Fence-SC order)
    rf, co_b, sf_b = base["rf"], base["co"], base["sync_fence"]
    for r in ev:
        if r.kind != "R":
            continue
        srcs = [t for (w, rr), t in rf.cells.items() if rr == r.eid]
        good = [t for (w, rr), t in rf.cells.items() if rr == r.eid
                and ev[w].kind == "W" and ev[w].loc == r.loc and ev[w].value == r.value]
        enc.emit(f"(assert (! {_exactly_one(good)} :named {p}wf_rf_{r.eid}))")
        for t in srcs:
            if t not in good:
                enc.emit(f"(assert (not {t}))")
    for (_a, b), t in rf.cells.items():
        if ev[b].kind != "R":
            enc.emit(f"(assert (not {t}))")
    writes = [e for e in ev if e.kind == "W"]
    free_co = free or ex.co is None
    if free_co:
        for wa in writes:
            for wb in writes:
                if wa.eid != wb.eid and wa.loc == wb.loc and wa.is_init and not wb.is_init:
                    enc.emit(f"(assert {co_b.cells[(wa.eid, wb.eid)]})")
        for (a, b), t in co_b.cells.items():
            for (b2, c), u in co_b.cells.items():
                if b2 == b and a != c and (a, c) in co_b.cells:
                    enc.emit(f"(assert (=> (and {t} {u}) {co_b.cells[(a, c)]}))")
    else:
        for a, b in co_b.cells:
            if not (ev[a].kind == ev[b].kind == "W" and ev[a].loc == ev[b].loc):
                enc.emit(f"(assert (! false :named {p}wfco_kind_{a}_{b}))")
    free_sf = free or ex.sync_fence is None
    if free_sf:
        for (a, b), t in sf_b.cells.items():
            for (b2, c), u in sf_b.cells.items():
                if b2 == b and a != c:
                    enc.emit(f"(assert (=> (and {t} {u}) {sf_b.cells[(a, c)]}))")
    enc.acyclic("wf_co", co_b)
    enc.acyclic("wf_sf", sf_b)

    co = enc.tc("co", co_b)  # co = co+ (§8.9.6: coherence order is a partial order; Dat3M co+)
    fr = enc.seq("fr", enc.inv(rf), co)
    m = get_model(model)
    proxies = m.proxies
    loc = pair["loc"]
    # v6.0 knows no virtual aliases or proxies: vloc is loc and every pair is "same proxy"
    vloc = pair["vloc"] if proxies else loc
    same_proxy = pair["same_proxy"] if proxies else allp
    gen = tag["GEN"] if proxies else tag["M"]

    # ---- morally strong (§8.7): po-related or both strong in each other's scope; same proxy;
    # memory operations overlap completely (same virtual address and size)
    ms1 = enc.union("ms1", po, enc.inv(po), enc.seq("ms1s", tag["strong_operation"], pair["sr"],
                                                    tag["strong_operation"]))
    not_mm = Rel({k: "true" for k in allp.cells if k not in pair["M_M"].cells})
    ms3 = enc.union("ms3", enc.inter("ms3a", pair["M_M"], vloc, pair["same_size"]), not_mm)
    ms = enc.minus_id(enc.inter("morally_strong", ms1, same_proxy, ms3))
    fsc_ms = enc.seq("fsc_ms", tag["F_SC"], ms, tag["F_SC"])
    if free_sf:  # Fence-SC order relates every morally strong pair of fence.sc one way (§8.9.3)
        for (a, b), t in sf_b.cells.items():
            if a < b and (a, b) in fsc_ms.cells:
                enc.emit(f"(assert (=> {fsc_ms.cells[(a, b)]} (or {t} {sf_b.cells[(b, a)]})))")
    # a fence.sc synchronizes with a morally strong fence.sc it precedes in Fence-SC order (§8.9.4)
    sync_fence = enc.inter("sync_fence", enc.tc("sf", sf_b), fsc_ms)
    sync_barrier = enc.inter("sync_barrier", base["sync_barrier"], pair["scta"])
    rmw = base["rmw"]
    po_loc = enc.inter("po_loc", po, loc)
    po_vloc = enc.inter("po_vloc", po, vloc)

    # ---- observation (§8.9.2)
    ms_rf = enc.inter("ms_rf", ms, rf)
    rounds = max(1, math.ceil(math.log2(max(n, 2)))) + 1
    chain = ms_rf  # (ms ∩ rf) ; (rmw ; ms ∩ rf)*: W obs Z, Z an atomic, Z obs R
    for _ in range(rounds):
        chain = enc.union("observation", chain, enc.seq("obs", chain, rmw, chain))
    observation = obs_sync = chain
    # ---- release / acquire patterns (§8.8) and synchronizes-with (§8.9.4)
    release_pattern = enc.union(
        "release_pattern",
        enc.seq("rp1", tag["W_REL"], enc.opt("rp1o", po_vloc), tag["strong_write"]),
        enc.seq("rp2", tag["F_REL"], po, tag["strong_write"]))
    acquire_pattern = enc.union(
        "acquire_pattern",
        enc.seq("ap1", tag["strong_read"], enc.opt("ap1o", po_vloc), tag["R_ACQ"]),
        enc.seq("ap2", tag["strong_read"], po, tag["F_ACQ"]))
    sync_ra = enc.inter("sync_ra", ms, enc.seq("syncs", release_pattern, obs_sync, acquire_pattern))

    # ---- causality order (§8.9.5)
    po_opt = enc.opt("po_opt", po)
    step = enc.seq("cb_step", enc.union("sw", sync_ra, sync_fence, sync_barrier), po_opt)
    cb = enc.seq("cb", po_opt, enc.tc("cb_tc", step))
    if m.cause_base_includes_po:
        cb = enc.union("base_causality", cb, po)
    if proxies:
        mem = tag["M"]
        pfo = enc.seq("proxy_fence_ops", tag["F"], enc.inter("pfo", same_proxy, pair["scta"]), mem)
        cb_in = enc.inter("cb_in", cb, enc.inv(pfo))   # cause-base & proxy-fence-ops^-1
        cb_out = enc.inter("cb_out", cb, pfo)          # cause-base & proxy-fence-ops
        alias = tag["F_ALIAS"]
        lines = [
            enc.seq("pp1", gen, enc.inter("pp1i", vloc, cb), gen),
            enc.seq("pp2", mem, enc.inter("pp2i", same_proxy, pair["scta"], vloc, cb), mem),
            enc.inter("pp3", vloc, enc.seq("pp3s", cb_in, cb, gen)),
            enc.inter("pp4", vloc, enc.seq("pp4s", gen, cb, cb_out)),
            enc.inter("pp5", vloc, enc.seq("pp5s", cb_in, cb, cb_out)),
            enc.inter("pp6", loc, enc.seq("pp6s", gen, cb, alias, cb, gen)),
            enc.inter("pp7", loc, enc.seq("pp7s", cb_in, cb, alias, cb, gen)),
            enc.inter("pp8", loc, enc.seq("pp8s", gen, cb, alias, cb, cb_out)),
            enc.inter("pp9", loc, enc.seq("pp9s", cb_in, cb, alias, cb, cb_out)),
        ]
        # pairs that are not two memory operations keep their base causality
        lines.append(enc.diff("ppnm", cb, pair["M_M"]))
        ppcb = enc.union("proxy_preserved_base_causality", *lines)
    else:
        ppcb = cb
    if m.cause_base_includes_po:
        cause = enc.union("cause", ppcb, enc.seq("cause2", observation, ppcb))
    else:
        cause = enc.union("cause", cb, enc.seq("cause2", observation, enc.union("cbpl", cb, po_loc)))

    # ---- axioms (§8.10): exactly those the model lists (``ptxkit.consistency.registry``)
    W, FSC = tag["W"], tag["F_SC"]

    def coherence() -> None:
        enc.empty("Coherence", enc.diff("coh", enc.inter("cohi", enc.seq("cohs", W, cause, W), loc), co))

    def coherence_ms_total() -> None:
        enc.empty("Coherence2", enc.diff("coh2", enc.inter("coh2i", enc.seq("coh2s", W, ms, W), loc),
                                         enc.union("coboth", co, enc.inv(co))))

    def fence_sc() -> None:
        fsc_cause = enc.inter("fsci", enc.seq("fscs", FSC, cause, FSC), ms)
        enc.empty("FenceSC", enc.diff("fsc", fsc_cause, sync_fence))

    def atomicity() -> None:
        enc.empty("Atomicity", enc.inter("atom", enc.seq("atoms", enc.inter("msfr", ms, fr),
                                                         enc.inter("msco", ms, co)), rmw))

    def no_thin_air() -> None:
        enc.acyclic("NoThinAir", enc.union("nta", rf, base["addr"], base["data"], base["ctrl"]))

    def sc_per_location() -> None:
        com = enc.union("com", rf, co, fr)
        enc.acyclic("ScPerLocation", enc.union("scpl", enc.inter("mscom", ms, com), po_loc))

    def causality() -> None:
        enc.irreflexive("Causality", enc.seq("caus", enc.union("rffr", rf, fr), cause))

    def causality_alloy() -> None:  # irreflexive((rf ∪ co ∪ fr)? ; cause)
        enc.irreflexive("CausalityAlloy", enc.seq("causa", enc.opt("rfcofr", enc.union("rfcofr_u", rf, co, fr)),
                                                  cause))

    encoders: dict[str, Callable[[], None]] = {
        "coherence": coherence, "coherence-ms-total": coherence_ms_total, "fence-sc": fence_sc,
        "atomicity": atomicity, "no-thin-air": no_thin_air, "sc-per-location": sc_per_location,
        "causality": causality, "causality-alloy": causality_alloy,
    }
    for name in m.axioms:
        enc.emit(f"; axiom {name}")
        encoders[name]()

    # ---- outcome: an observed location's writes are totally ordered by co (the explorer's and
    # Dat3M's final-state convention) and its final value is that of the co-last write
    for lname in ex.observed:
        lw = [w for w in writes if w.loc == lname]
        if free_co:
            for wa in lw:
                for wb in lw:
                    if wa.eid < wb.eid and not wa.is_init and not wb.is_init:
                        enc.emit(f"(assert (or {co.cells[(wa.eid, wb.eid)]} {co.cells[(wb.eid, wa.eid)]}))")
        val = ex.final.get(lname)
        if val is None:
            continue
        for w in lw:
            succ = [co.cells[(w.eid, x.eid)] for x in lw if (w.eid, x.eid) in co.cells]
            maximal = "true" if not succ else f"(not (or false {' '.join(succ)}))"
            if w.value != val:
                enc.emit(f"(assert (! (not {maximal}) :named {p}final_{_sym(lname)}_{w.eid}))")
    return enc.out


def _exactly_one(terms: list[str]) -> str:
    """Standard SMT-LIB (no solver extension): one of them, and no two of them."""
    if not terms:
        return "false"
    if len(terms) == 1:
        return terms[0]
    pairs = [f"(not (and {a} {b}))" for i, a in enumerate(terms) for b in terms[i + 1:]]
    return f"(and (or {' '.join(terms)}) {' '.join(pairs)})"


def _sym(s: str) -> str:
    return "".join(c if c.isalnum() or c == "_" else "_" for c in s)


# --------------------------------------------------------------------------- files

@dataclass
class SmtQuery:
    """One SMT-LIB file: its text and the status it claims (``sat`` or ``unsat``)."""

    name: str
    expect: str
    text: str
    claim: str


def queries(t: TestObligations) -> list[SmtQuery]:
    """Every SMT query of a test: one per allowed outcome (its witness, SAT) and one per candidate
    skeleton of a forbidden outcome (rf/co/Fence-SC order free, UNSAT)."""
    out: list[SmtQuery] = []
    for i, ob in enumerate(t.obligations):
        if ob.kind == "allowed":
            assert ob.witness is not None
            claim = f"outcome {ob.outcome_text()} is allowed: this witness is consistent under {t.model}"
            out.append(SmtQuery(f"{t.ident}_o{i}_allowed", "sat", _file(t, claim, "sat",
                                encode_execution(ob.witness, t.model, free=False)), claim))
        else:
            for k, sk in enumerate(ob.skeletons()):
                claim = (f"outcome {ob.outcome_text()} is forbidden under {t.model}: no rf / coherence"
                         f" order / Fence-SC order makes candidate skeleton {k} consistent")
                out.append(SmtQuery(f"{t.ident}_o{i}_forbidden_s{k}", "unsat", _file(t, claim, "unsat",
                                    encode_execution(sk, t.model, free=True)), claim))
    return out


def _file(t: TestObligations, claim: str, status: str, body: list[str]) -> str:
    head = [f"; ptxkit proof obligation for {t.name} ({t.source})",
            f"; model {t.model}; condition {t.condition}; explorer verdict {t.verdict}",
            f"; claim: {claim}",
            f"; expected answer: {status}",
            "(set-info :smt-lib-version 2.6)",
            "(set-option :produce-unsat-cores true)",
            "(set-logic QF_LIA)",
            f"(set-info :status {status})"]
    return "\n".join(head + body + ["(check-sat)", ""])


def write_smt(result: TestObligations | ExploreResult, directory: str | os.PathLike[str]) -> list[Path]:
    """Write one ``.smt2`` file per query of ``result`` (a :class:`TestObligations` or an explorer
    result, converted by :func:`ptxkit.export.obligations.to_obligations`) into ``directory/<ident>/``,
    ``<ident>`` being ``TestObligations.ident``: the source file's sanitised stem, not the test name,
    which several Dat3M files share (the test name stays in each file's header comment).
    Each file is plain SMT-LIB 2.6 (QF_LIA) with ``(set-info :status sat|unsat)`` stating the claim."""
    t = to_obligations(result)
    d = prepare_directory(Path(directory), "--smt") / t.ident
    prepare_directory(d, "--smt")
    paths = []
    for q in queries(t):
        path = d / f"{q.name}.smt2"
        atomic_write(path, q.text)
        paths.append(path)
    return paths


def check_text(text: str, timeout_ms: int = 60000) -> tuple[str, list[str]]:
    """Run z3 on an SMT-LIB text; returns ('sat'|'unsat'|'unknown', unsat core names)."""
    import z3

    body = "\n".join(line for line in text.splitlines() if line.strip() != "(check-sat)")
    s = z3.Solver()
    s.set("timeout", timeout_ms)
    s.from_string(body)
    res = s.check()
    core = [str(c) for c in s.unsat_core()] if res == z3.unsat else []
    return str(res), core


def check_file(path: str | Path, timeout_ms: int = 60000) -> tuple[str, str, list[str]]:
    """(expected status, z3's answer, unsat core) for a written ``.smt2`` file."""
    text = Path(path).read_text()
    expect = "unknown"
    for line in text.splitlines():
        if line.startswith("(set-info :status "):
            expect = line.split()[-1].rstrip(")")
    got, core = check_text(text, timeout_ms)
    return expect, got, core
