"""The PTX memory model as Dat3M's ``ptx-v7.5.cat`` / ``ptx-v6.0.cat`` state it (PTX ISA §8), over
boolean numpy matrices — the explorer's reference checker for Dat3M litmus tests.

Why a separate transcription: the explorer must agree with Dat3M's expected outcomes row by row, so
this module follows the two ``.cat`` files relation by relation (names kept), with the ISA sections
cited. ``ptxkit.consistency`` is the project's model proper; the tests cross-check the two.

Usage: ``Static(events, model)`` precomputes everything that depends only on the events (po, scopes,
morally strong, release/acquire patterns, proxies); ``Static.check(rf, sync_fence, sync_barrier)``
then decides an execution, choosing a *partial* coherence order (ISA §8.9.6: co is not total) and
returning the violated axiom when none exists.

Events are duck-typed objects with: ``kind`` ('R'|'W'|'F'), ``tid`` (-1 for init writes), ``cta``,
``gpu``, ``loc`` (physical location), ``vaddr`` (the name used), ``proxy`` ('GEN'|'SUR'|'TEX'|'CON'),
``sem`` ('weak'|'relaxed'|'acquire'|'release'|'acq_rel'|'sc'|None), ``scope`` (None|'cta'|'gpu'|'sys'),
``fkind`` (fences: 'sc'|'acq_rel'|'acquire'|'release'|'proxy'|'alias'|'bar'), ``init`` (bool).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterator, Sequence

import numpy as np

MODELS = ("ptx-7.5", "ptx-6.0")


# ---------------------------------------------------------------------------- relation helpers

def comp(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Relational composition a;b."""
    return (a.astype(np.uint8) @ b.astype(np.uint8)) > 0


def tc(a: np.ndarray) -> np.ndarray:
    """Transitive closure a+ (repeated squaring: ⌈log2 n⌉ compositions at most)."""
    r = a.copy()
    if not r.any():
        return r
    while True:
        nxt = r | comp(r, r)
        if (nxt == r).all():
            return r
        r = nxt


def acyclic(a: np.ndarray) -> bool:
    return not tc(a).diagonal().any()


def diag(mask: np.ndarray) -> np.ndarray:
    return np.diag(mask)


def _includes(scope: str | None, e, f) -> bool:
    """Does ``e``'s scope include ``f``'s thread (ISA §8.5)?"""
    if scope is None or f.tid < 0:
        return False
    if scope == "sys":
        return True
    if scope == "gpu":
        return e.gpu == f.gpu
    return e.gpu == f.gpu and e.cta == f.cta  # cta (and cluster = the CTA's own cluster)


@dataclass
class Verdict:
    consistent: bool
    axiom: str | None = None        # the first violated axiom when inconsistent
    co: np.ndarray | None = None     # a coherence order that works (transitively closed)
    cause: np.ndarray | None = None
    extra: dict = field(default_factory=dict)


class Static:
    """Event-only relations of one candidate's event set."""

    def __init__(self, events: Sequence, model: str = "ptx-7.5", fence_sc_is_acq_rel: bool = True):
        if model not in MODELS:
            raise ValueError(model)
        self.ev = list(events)
        self.model = model
        self.v75 = model == "ptx-7.5"
        n = self.n = len(self.ev)
        E = self.ev
        arr = lambda f: np.array([bool(f(e)) for e in E], dtype=bool)
        self.R = arr(lambda e: e.kind == "R")
        self.W = arr(lambda e: e.kind == "W")
        self.F = arr(lambda e: e.kind == "F")
        self.M = self.R | self.W
        self.IW = arr(lambda e: e.init)
        self.RLX = arr(lambda e: e.kind != "F" and e.sem == "relaxed")
        self.ACQ = arr(lambda e: e.kind == "R" and e.sem in ("acquire", "acq_rel", "sc"))
        self.REL = arr(lambda e: e.kind == "W" and e.sem in ("release", "acq_rel", "sc"))
        acqrel_f = ("acq_rel", "sc") if fence_sc_is_acq_rel else ("acq_rel",)
        self.F_ACQ_REL = arr(lambda e: e.kind == "F" and e.fkind in acqrel_f)
        self.F_SC = arr(lambda e: e.kind == "F" and e.fkind == "sc")
        self.F_ALIAS = arr(lambda e: e.kind == "F" and e.fkind == "alias")
        self.GEN = arr(lambda e: e.proxy == "GEN") if self.v75 else np.ones(n, bool)

        tid = np.array([e.tid for e in E])
        idx = np.arange(n)
        same_t = (tid[:, None] == tid[None, :]) & (tid[:, None] >= 0)
        # po: events carry their thread order in list order (the explorer builds them so)
        self.po = same_t & (idx[:, None] < idx[None, :])
        self.id = np.eye(n, dtype=bool)
        def ids(vals):  # equal non-None values -> equal ints; None -> distinct negatives
            table: dict = {}
            return np.array([table.setdefault(v, len(table)) if v is not None else -1 - k
                             for k, v in enumerate(vals)])

        li = ids([e.loc if e.kind != "F" else None for e in E])
        vi = ids([e.vaddr if e.kind != "F" else None for e in E])
        self.loc = li[:, None] == li[None, :]
        self.vloc = vi[:, None] == vi[None, :]
        pi = ids([e.proxy for e in E])
        self.same_proxy = pi[:, None] == pi[None, :]
        ci = ids([(e.gpu, e.cta) if e.tid >= 0 else None for e in E])
        self.scta = ci[:, None] == ci[None, :]
        strong_w = self.W & (self.RLX | self.REL)
        strong_r = self.R & (self.RLX | self.ACQ)
        self.strong_w, self.strong_r = strong_w, strong_r
        strong_op = strong_w | strong_r | self.F
        inc = np.array([[_includes(e.scope, e, f) for f in E] for e in E], dtype=bool).reshape(n, n)
        sr = inc & inc.T
        ms1 = self.po | self.po.T | (strong_op[:, None] & strong_op[None, :] & sr)
        mm = self.M[:, None] & self.M[None, :]
        if self.v75:
            ms3 = (mm & self.vloc) | ~mm
            self.ms = ms1 & self.same_proxy & ms3 & ~self.id
            po_l = self.po & self.vloc
        else:
            ms2 = (mm & self.loc) | ~mm
            self.ms = ms1 & ms2 & ~self.id
            po_l = self.po & self.loc
        self.po_loc = self.po & self.loc
        I = self.id
        # §8.8 release / acquire patterns
        self.rp = (comp(comp(diag(self.W & self.REL), po_l | I), diag(strong_w))
                   | comp(comp(diag(self.F_ACQ_REL), self.po), diag(strong_w)))
        self.ap = (comp(comp(diag(strong_r), po_l | I), diag(self.R & self.ACQ))
                   | comp(comp(diag(strong_r), self.po), diag(self.F_ACQ_REL)))
        self.po_refl = self.po | I
        # proxy fences (§8.6): [F]; (same-proxy & scta); [M]
        self.pfo = self.F[:, None] & self.same_proxy & self.scta & self.M[None, :]
        ww = self.W[:, None] & self.W[None, :]
        self.ww_loc = ww & self.loc & ~I
        self.ms_ww = self.ww_loc & self.ms
        # co must start with the initial write of each location
        self.co_init = self.IW[:, None] & self.W[None, :] & self.loc & ~I

    # ------------------------------------------------------------------ dynamic part
    def cause_of(self, rf: np.ndarray, rmw: np.ndarray, sync_fence: np.ndarray,
                  sync_barrier: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """observation and cause (§8.9.2, §8.9.5)."""
        ms, po, I = self.ms, self.po, self.id
        if self.v75:
            obs = (ms & rf) | rmw
            sync = ms & comp(comp(self.rp, tc(obs)), self.ap)
        else:
            obs = ms & rf
            while True:  # let rec observation = (ms & rf) | (observation; rmw; observation)
                nxt = obs | comp(comp(obs, rmw), obs)
                if (nxt == obs).all():
                    break
                obs = nxt
            sync = ms & comp(comp(self.rp, obs), self.ap)
        x = sync | sync_fence | (sync_barrier & self.scta)
        y = tc(comp(x, self.po_refl))
        cb = comp(self.po_refl, y)
        if self.v75:
            cb = cb | po
            cause = comp(obs | I, self._ppcb(cb))
        else:
            cause = cb | comp(obs, cb | self.po_loc)
        return obs, cause

    def sw_of(self, rf: np.ndarray, rmw: np.ndarray, sync_fence: np.ndarray,
              sync_barrier: np.ndarray) -> np.ndarray:
        """synchronizes-with (§8.9.4): release/acquire pattern sync, Fence-SC sync, barrier sync."""
        ms = self.ms
        if self.v75:
            sync = ms & comp(comp(self.rp, tc((ms & rf) | rmw)), self.ap)
        else:
            obs, _ = self.cause_of(rf, rmw, sync_fence, sync_barrier)
            sync = ms & comp(comp(self.rp, obs), self.ap)
        return sync | sync_fence | (sync_barrier & self.scta)

    def _ppcb(self, cb: np.ndarray) -> np.ndarray:
        """proxy-preserved base causality (§8.9.5, Dat3M's nine cases)."""
        G, M = diag(self.GEN), diag(self.M)
        A = diag(self.F_ALIAS)
        pre = cb & self.pfo.T          # m -cb-> proxy fence of m's proxy (same CTA)
        post = cb & self.pfo           # proxy fence -cb-> m of its proxy
        vloc, loc = self.vloc, self.loc
        r = comp(comp(G, vloc & cb), G)
        r |= comp(comp(M, self.same_proxy & self.scta & vloc & cb), M)
        r |= vloc & comp(comp(pre, cb), G)
        r |= vloc & comp(comp(G, cb), post)
        r |= vloc & comp(comp(pre, cb), post)
        if self.F_ALIAS.any():
            cba = comp(comp(cb, A), cb)
            r |= loc & comp(comp(G, cba), G)
            r |= loc & comp(comp(pre, cba), G)
            r |= loc & comp(comp(G, cba), post)
            r |= loc & comp(comp(pre, cba), post)
        return r

    def partial_violation(self, rf: np.ndarray, rmw: np.ndarray, dep: np.ndarray, sync_fence: np.ndarray,
                          sync_barrier: np.ndarray) -> str | None:
        """The monotone axioms on a *partial* rf (some reads unassigned): adding rf edges only adds
        observation, sync and cause edges, so No-Thin-Air, the rf half of Causality and "a write
        causally after itself" (Coherence) violated now stay violated in every completion."""
        if not acyclic(rf | dep):
            return "No-Thin-Air"
        _, cause = self.cause_of(rf, rmw, sync_fence, sync_barrier)
        if comp(rf, cause).diagonal().any():
            return "Causality"
        if (self.W & cause.diagonal()).any():
            return "Coherence"
        return None

    def check(self, rf: np.ndarray, rmw: np.ndarray, dep: np.ndarray, sync_fence: np.ndarray,
              sync_barrier: np.ndarray, total_locs: frozenset = frozenset(),
              all_cos: bool = False) -> Iterator[Verdict] | Verdict:
        """Decide one execution. With ``all_cos`` yield one Verdict per consistent co that is total
        over the writes to ``total_locs`` (for final values); else return the first Verdict."""
        gen = self._check(rf, rmw, dep, sync_fence, sync_barrier, total_locs, all_cos)
        if all_cos:
            return gen
        return next(gen)

    def _check(self, rf, rmw, dep, sf, sb, total_locs, all_cos):
        obs, cause = self.cause_of(rf, rmw, sf, sb)
        fsc = diag(self.F_SC)
        if (comp(comp(fsc, cause), fsc) & ~sf).any():
            yield Verdict(False, "Fence-SC", cause=cause)
            return
        if not acyclic(rf | dep):
            yield Verdict(False, "No-Thin-Air", cause=cause)
            return
        rf_cause = comp(rf, cause)
        if rf_cause.diagonal().any():
            yield Verdict(False, "Causality", cause=cause)
            return
        # Coherence: same-location writes ordered by cause must be in co; co starts at init
        wcw = self.W[:, None] & self.W[None, :] & self.loc & cause
        if wcw.diagonal().any():  # a write causally after itself can never be in (irreflexive) co
            yield Verdict(False, "Coherence", cause=cause)
            return
        required = self.co_init | wcw
        co0 = tc(required)
        if co0.diagonal().any():
            yield Verdict(False, "Coherence", cause=cause)
            return
        # pairs co must orient: morally strong same-location writes (Coherence, 2nd half), plus all
        # write pairs of locations whose final value is observed
        tl = np.array([e.kind == "W" and e.loc in total_locs for e in self.ev], dtype=bool)
        must = self.ms_ww | (self.ww_loc & tl[:, None] & tl[None, :])
        iu = np.triu_indices(self.n, 1)
        pairs = [(int(a), int(b)) for a, b in zip(*iu) if must[a, b]]
        ms_rf = self.ms & rf
        rfT = rf.T
        found = False
        last_axiom = "Causality"

        def violated(co):
            fr = comp(rfT, co)
            if comp(self.ms & fr, self.ms & co)[rmw].any():
                return "Atomicity"
            if comp(fr, cause).diagonal().any():
                return "Causality"
            if not self.v75:
                if not acyclic((self.ms & (rf | co | fr)) | self.po_loc):
                    return "SC-per-Location"
            return None

        stack = [(co0, 0)]
        while stack:
            co, k = stack.pop()
            v = violated(co)
            if v is not None:
                last_axiom = v
                continue
            while k < len(pairs) and (co[pairs[k]] or co[pairs[k][::-1]]):
                k += 1
            if k == len(pairs):
                found = True
                yield Verdict(True, co=co, cause=cause, extra={"obs": obs})
                if not all_cos:
                    return
                continue
            a, b = pairs[k]
            for (x, y) in ((b, a), (a, b)):
                nco = co.copy()
                nco[x, y] = True
                nco = tc(nco)
                if not nco.diagonal().any():
                    stack.append((nco, k + 1))
        if not found:
            yield Verdict(False, last_axiom, cause=cause)
