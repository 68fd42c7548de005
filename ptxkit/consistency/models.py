"""The selectable PTX memory models as data, and the generic checking engine.

``MODELS`` maps a name to a :class:`Model`: which axioms apply and which switches the relations use.

* ``ptx-7.5`` (default): PTX ISA 7.5+ chapter 8 with proxies (§8.6) — Coherence, Fence-SC,
  Atomicity, No-Thin-Air, Causality. **Causality variant: ``irreflexive((rf ∪ fr); cause)``**, the
  ISA's wording (§8.10.6: "R cannot read from W" / "R cannot read from a write co-before W"),
  ASPLOS'19 and Dat3M — not the ISCA'22 Alloy ``(rf ∪ co ∪ fr)?`` (that one is ``ptx-7.5-alloy``).
* ``ptx-6.0``: PTX ISA 6.0 — no proxies, base causality without bare program order, causality
  ``cb ∪ observation;(cb ∪ po-loc)``, and the SC-per-Location axiom.

``check(execution, model)`` → :class:`CheckResult`. When the execution carries no Fence-SC order
(``sc_order is None``) the engine tries every orientation of the morally strong fence.sc pairs and
the execution is consistent iff one of them satisfies every axiom (§8.9.3: the order is "determined
at runtime", so it is existentially chosen).

``may_extend(partial, model)`` → a Violation or None — the incremental check for pruning. It
evaluates only *monotone* conditions (``axioms.MONOTONE``): Causality, Atomicity, No-Thin-Air,
SC-per-Location, the "co contradicts cause" part of Coherence and the "fences cause each other"
part of Fence-SC, with the Fence-SC order taken as given-or-empty. All relations they use only grow
when events are appended to threads (po grows at the end) and rf/co/dep/Fence-SC edges are added,
and each check is "some cycle/pair exists" — so a violation found on a partial execution persists in
every extension, and pruning it is sound. Not monotone (checked only by ``check`` on complete
executions): Coherence's "cause ⊆ co" and the total-co requirement for morally strong writes (more co
edges can satisfy them), and Fence-SC's "cause ⊆ Fence-SC order" (an order is still to be chosen).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

from ptxkit.consistency.axioms import AXIOMS, MONOTONE, Violation
from ptxkit.consistency.events import Execution
from ptxkit.consistency.registry import DEFAULT_MODEL, MODELS, Model, get_model
from ptxkit.consistency.rel import BitRel
from ptxkit.consistency.relations import Base, Relations, base_relations, derive


@dataclass
class CheckResult:
    """The verdict on one candidate execution."""

    consistent: bool
    violations: list[Violation] = field(default_factory=list)
    relations: Relations | None = None  # for the chosen (or first tried) Fence-SC order
    sc_order: set[tuple[int, int]] | None = None
    model: str = DEFAULT_MODEL

    def __bool__(self) -> bool:
        return self.consistent


def sc_orders(rels_base: Base) -> list[set[tuple[int, int]]]:
    """Every orientation of the morally strong fence.sc pairs induced by a total order of the
    fence.sc events (these are exactly the acyclic ones). [set()] when there is nothing to order."""
    fs = [i for i in range(rels_base.n) if rels_base.fence_sc >> i & 1]
    ms = rels_base.morally_strong
    pairs = [(a, b) for a, b in itertools.combinations(fs, 2) if (a, b) in ms]
    if not pairs:
        return [set()]
    seen: set[frozenset[tuple[int, int]]] = set()
    out: list[set[tuple[int, int]]] = []
    involved = sorted({x for p in pairs for x in p})
    for perm in itertools.permutations(involved):
        rank = {f: i for i, f in enumerate(perm)}
        o = frozenset((a, b) if rank[a] < rank[b] else (b, a) for a, b in pairs)
        if o not in seen:
            seen.add(o)
            out.append(set(o))
    return out


def _violations(rels: Relations, axioms: tuple[str, ...], first_only: bool) -> list[Violation]:
    out: list[Violation] = []
    for name in axioms:
        v = AXIOMS[name](rels)
        if v is not None:
            out.append(v)
            if first_only:
                break
    return out


def check(ex: Execution, model: Model | str = DEFAULT_MODEL, *, backend: str = "bits",
          first_only: bool = False, static: Base | None = None) -> CheckResult:
    """Is the complete candidate execution ``ex`` consistent under ``model``? (See module doc.)
    ``static``: ``relations.static_relations`` of the same events, when the caller caches it."""
    m = get_model(model)
    base = base_relations(ex, m, backend, static=static)
    orders = [ex.sc_order] if ex.sc_order is not None else sc_orders(base)
    first: CheckResult | None = None
    for order in orders:
        rels = derive(base, order)
        vs = _violations(rels, m.axioms, first_only)
        if not vs:
            return CheckResult(True, [], rels, order, m.name)
        if first is None:
            first = CheckResult(False, vs, rels, order, m.name)
    assert first is not None
    return first


def may_extend(partial: Execution, model: Model | str = DEFAULT_MODEL, *,
               backend: str = "bits", static: Base | None = None) -> Violation | None:
    """None if the partial execution may still extend to a consistent one; otherwise a violation of
    a monotone axiom that every extension keeps (sound pruning; see the module docstring).
    ``static`` as for :func:`check` (the events of ``partial``, not of its extensions)."""
    m = get_model(model)
    return _monotone_violation(derive(base_relations(partial, m, backend, static=static),
                                       partial.sc_order or set()), m)


def _monotone_violation(rels: Relations, model: Model | str = DEFAULT_MODEL) -> Violation | None:
    """The first violated monotone check (``axioms.MONOTONE``) of ``model`` on ``rels``, or None."""
    for name in get_model(model).axioms:
        f = MONOTONE.get(name)
        if f is not None:
            v = f(rels)
            if v is not None:
                return v
    return None


def validate(ex: Execution) -> list[str]:
    """Well-formedness problems of a candidate (rf/co/rmw shape); empty when fine."""
    ev = ex.events
    probs: list[str] = []
    seen_r: set[int] = set()
    for w, r in ex.rf:
        if ev[w].kind != "W" or ev[r].kind != "R" or ev[w].location != ev[r].location:
            probs.append(f"rf {w}->{r} is not write→read on one location")
        if r in seen_r:
            probs.append(f"read {r} reads from two writes")
        seen_r.add(r)
    for a, b in ex.co:
        if ev[a].kind != "W" or ev[b].kind != "W" or ev[a].location != ev[b].location:
            probs.append(f"co {a}->{b} is not between writes to one location")
    for r, w in ex.rmw:
        if ev[r].kind != "R" or ev[w].kind != "W" or ev[r].thread != ev[w].thread:
            probs.append(f"rmw {r}->{w} is not a read and a write of one thread")
    if BitRel.from_pairs(len(ev), ex.co).find_cycle():
        probs.append("co is cyclic")
    return probs


__all__ = ["DEFAULT_MODEL", "MODELS", "CheckResult", "Model", "check", "get_model", "may_extend", "sc_orders",
           "validate"]
