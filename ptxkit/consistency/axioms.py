"""The axioms of the PTX memory model (PTX ISA 9.x §8.10), each returning *why* it fails.

Every axiom is ``f(rels: Relations) -> Violation | None``. A :class:`Violation` carries the offending
edges (``(src, dst, relation name)``), the cycle when there is one, and a sentence.

``monotone`` marks the axioms (or parts) that stay violated when a partial execution grows (more
events at the end of threads, more rf/co/dep/Fence-SC edges): every relation they use is built from
the execution's relations with ∪, ∩ against event-attribute relations, ; and closures only — never
a difference with or complement of a growing relation. ``may_extend`` (models.py) prunes with those.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from ptxkit.consistency.rel import Relation
from ptxkit.consistency.relations import Relations


@dataclass
class Violation:
    """Why an execution is inconsistent: which axiom, where the ISA states it, the evidence."""

    axiom: str
    section: str
    edges: list[tuple[int, int, str]] = field(default_factory=list)
    cycle: list[int] = field(default_factory=list)
    explanation: str = ""

    def __str__(self) -> str:
        return f"{self.axiom} (PTX ISA §{self.section}): {self.explanation}"


def _ev(rels: Relations, i: int) -> str:
    e = rels.ex.events[i]
    who = "init" if e.is_init else f"P{e.thread}"
    return f"{who}:{e.short()}#{i}"


def _cycle_edges(rels: Relations, cycle: list[int],
                 names: Sequence[tuple[str, Relation]]) -> list[tuple[int, int, str]]:
    """Label each cycle edge with the first named relation containing it."""
    out = []
    for a, b in zip(cycle, cycle[1:] + cycle[:1]):
        label = next((nm for nm, r in names if (a, b) in r), "?")
        out.append((a, b, label))
    return out


def _cause_path(rels: Relations, a: int, b: int) -> list[tuple[int, int, str]]:
    """Explain a cause edge a→b by a path through po/sw/observation/rf edges (best effort)."""
    steps = rels.po | rels.sw | rels.observation
    path = steps.path(a, b)
    if not path:
        return [(a, b, "cause")]
    names = [("po", rels.po), ("sw", rels.sw), ("observation", rels.observation)]
    return _cycle_edges(rels, path, names)[:-1] if len(path) > 1 else []


# --------------------------------------------------------------------------- §8.10.1 Coherence

def coherence(rels: Relations) -> Violation | None:
    """§8.10.1: if a write W precedes an overlapping write W' in causality order, W precedes W' in
    coherence order. (§8.9.6 adds: morally strong overlapping writes are ordered by co — checked by
    :func:`coherence_ms_total`.)"""
    bad = (rels.cause.filter(rels.writes, rels.writes) & rels.loc) - rels.co
    for a, b in sorted(bad.pairs()):
        edges = _cause_path(rels, a, b)
        if (b, a) in rels.co:
            edges.append((b, a, "co"))
        return Violation("Coherence", "8.10.1", edges or [(a, b, "cause")], [],
                         f"{_ev(rels, a)} precedes {_ev(rels, b)} in causality order "
                         f"but not in coherence order")
    return None


def coherence_contradicted(rels: Relations) -> Violation | None:
    """The monotone part of Coherence: cause says W→W' while co already says W'→W (co is acyclic,
    so no extension of co can repair it)."""
    bad = rels.cause.filter(rels.writes, rels.writes) & rels.loc & rels.co.inv()
    for a, b in sorted(bad.pairs()):
        return Violation("Coherence", "8.10.1", [*_cause_path(rels, a, b), (b, a, "co")], [a, b],
                         f"{_ev(rels, a)} causes {_ev(rels, b)} but follows it in coherence order")
    return None


def coherence_ms_total(rels: Relations) -> Violation | None:
    """§8.9.6: overlapping morally strong writes are related by coherence order one way or the other."""
    ms_w = (rels.morally_strong.filter(rels.writes, rels.writes) & rels.loc)
    bad = ms_w - rels.co - rels.co.inv()
    for a, b in sorted(bad.pairs()):
        return Violation("Coherence", "8.9.6", [(a, b, "morally_strong")], [],
                         f"morally strong writes {_ev(rels, a)} and {_ev(rels, b)} are unordered "
                         f"in coherence order")
    return None


# --------------------------------------------------------------------------- §8.10.2 Fence-SC

def fence_sc(rels: Relations) -> Violation | None:
    """§8.10.2: Fence-SC order cannot contradict causality order: for morally strong fence.sc F1, F2,
    F1 cause F2 implies F1 precedes F2 in Fence-SC order."""
    fs = rels.fence_sc
    bad = (rels.cause.filter(fs, fs) & rels.morally_strong) - rels.sync_fence
    for a, b in sorted(bad.pairs()):
        return Violation("Fence-SC", "8.10.2", _cause_path(rels, a, b), [],
                         f"{_ev(rels, a)} precedes {_ev(rels, b)} in causality order but not in "
                         f"Fence-SC order")
    return None


def fence_sc_cyclic(rels: Relations) -> Violation | None:
    """Monotone part of Fence-SC: causality relates two morally strong fence.sc both ways, so no
    Fence-SC order (acyclic) can agree with it."""
    fs = rels.fence_sc
    c = rels.cause.filter(fs, fs) & rels.morally_strong
    bad = c & c.inv()
    for a, b in sorted(bad.pairs()):
        return Violation("Fence-SC", "8.10.2", _cause_path(rels, a, b) + _cause_path(rels, b, a),
                         [a, b], f"{_ev(rels, a)} and {_ev(rels, b)} cause each other")
    return None


# --------------------------------------------------------------------------- §8.10.3 Atomicity

def atomicity(rels: Relations) -> Violation | None:
    """§8.10.3: an atomic A and a morally strong overlapping write W: A cannot read from a write
    co-before W while A's write follows W in coherence order (no W between A's read and write)."""
    ms = rels.morally_strong
    bad = ((ms & rels.fr) @ (ms & rels.co)) & rels.rmw
    for r, w in sorted(bad.pairs()):
        mids = [m for m in range(rels.n) if (r, m) in (ms & rels.fr) and (m, w) in (ms & rels.co)]
        m = mids[0]
        return Violation("Atomicity", "8.10.3", [(r, m, "fr"), (m, w, "co"), (r, w, "rmw")], [r, m, w],
                         f"{_ev(rels, m)} comes between the read {_ev(rels, r)} and the write "
                         f"{_ev(rels, w)} of one atomic operation")
    return None


# --------------------------------------------------------------------------- §8.10.4 No-Thin-Air

def no_thin_air(rels: Relations) -> Violation | None:
    """§8.10.4: values may not appear out of thin air: ``acyclic(rf ∪ dep)``."""
    g = rels.rf | rels.dep
    cyc = g.find_cycle()
    if cyc is None:
        return None
    return Violation("No-Thin-Air", "8.10.4", _cycle_edges(rels, cyc, [("rf", rels.rf), ("dep", rels.dep)]),
                     cyc, "a cycle of reads-from and dependencies: " + " → ".join(_ev(rels, i) for i in cyc))


# --------------------------------------------------------------------------- §8.10.5 SC-per-Location

def sc_per_location(rels: Relations) -> Violation | None:
    """§8.10.5 (PTX 6.0 only; removed in 7.5): ``acyclic((morally-strong ∩ (rf ∪ co ∪ fr)) ∪ po-loc)``."""
    com = rels.rf | rels.co | rels.fr
    g = (rels.morally_strong & com) | rels.po_loc
    cyc = g.find_cycle()
    if cyc is None:
        return None
    names = [("rf", rels.rf), ("co", rels.co), ("fr", rels.fr), ("po-loc", rels.po_loc)]
    return Violation("SC-per-Location", "8.10.5", _cycle_edges(rels, cyc, names), cyc,
                     "a cycle of morally strong communication and po-loc: "
                     + " → ".join(_ev(rels, i) for i in cyc))


# --------------------------------------------------------------------------- §8.10.6 Causality

def causality(rels: Relations) -> Violation | None:
    """§8.10.6 (ISA wording, ASPLOS'19, Dat3M): ``irreflexive((rf ∪ fr) ; cause)``:
    a read R that precedes an overlapping write W in causality cannot read from W; a write W that
    precedes an overlapping read R in causality hides every write co-before W from R."""
    for name, com in (("rf", rels.rf), ("fr", rels.fr)):
        bad = com @ rels.cause
        for a in bad.reflexive_points():
            b = next(b for b in range(rels.n) if (a, b) in com and (b, a) in rels.cause)
            edges = [(a, b, name), *_cause_path(rels, b, a)]
            return Violation("Causality", "8.10.6", edges, [a, b],
                             f"{_ev(rels, a)} —{name}→ {_ev(rels, b)}, yet {_ev(rels, b)} precedes "
                             f"{_ev(rels, a)} in causality order")
    return None


def causality_alloy(rels: Relations) -> Violation | None:
    """The ISCA'22 Alloy variant ``irreflexive((rf ∪ co ∪ fr)? ; cause)`` (stronger: also forbids
    causality cycles and co against causality). Offered as model ``ptx-7.5-alloy``."""
    v = causality(rels)
    if v:
        return v
    refl = rels.cause.reflexive_points()
    if refl:
        a = refl[0]
        return Violation("Causality", "8.10.6", [(a, a, "cause")], [a],
                         f"{_ev(rels, a)} precedes itself in causality order")
    bad = rels.co @ rels.cause
    for a in bad.reflexive_points():
        b = next(b for b in range(rels.n) if (a, b) in rels.co and (b, a) in rels.cause)
        return Violation("Causality", "8.10.6", [(a, b, "co"), *_cause_path(rels, b, a)], [a, b],
                         f"{_ev(rels, a)} —co→ {_ev(rels, b)} but {_ev(rels, b)} causes {_ev(rels, a)}")
    return None


Axiom = Callable[[Relations], "Violation | None"]

AXIOMS: dict[str, Axiom] = {
    "coherence": coherence,
    "coherence-ms-total": coherence_ms_total,
    "fence-sc": fence_sc,
    "atomicity": atomicity,
    "no-thin-air": no_thin_air,
    "sc-per-location": sc_per_location,
    "causality": causality,
    "causality-alloy": causality_alloy,
}

# The monotone checks may_extend uses (name → check on a *partial* execution).
MONOTONE: dict[str, Axiom] = {
    "coherence": coherence_contradicted,
    "fence-sc": fence_sc_cyclic,
    "atomicity": atomicity,
    "no-thin-air": no_thin_air,
    "sc-per-location": sc_per_location,
    "causality": causality,
    "causality-alloy": causality_alloy,
}
