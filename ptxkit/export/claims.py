"""The proof obligations of an explored test: which claims establish the explorer's verdict.

:func:`to_obligations` turns an :class:`ptxkit.explore.result.ExploreResult` into
:class:`~ptxkit.export.obligations.TestObligations`, the data both the Lean and the SMT writer emit:

* every reached outcome → an *allowed* claim with its consistent witness;
* every outcome that only inconsistent candidates produce → a *forbidden* claim over all of them;
* the verdict's own claims. A verdict that *some* consistent execution has a property (``exists``
  Ok, ``~exists`` No, ``forall`` No) is established by an allowed witness with that property. A
  verdict that *no* consistent execution has one (``exists`` No, ``~exists`` Ok: none satisfies the
  condition; ``forall`` Ok: none violates it) needs a forbidden claim for every way a candidate could
  have it: its final registers are fixed by its trace, its final memory by the coherence order, so
  for each register outcome and each combination of final values (drawn from the values written to
  the observed locations) with the property, every candidate is claimed inconsistent for every
  coherence order ending with those values.

A forbidden claim quantifies over a *complete* list of candidates. A result whose search was cut
(``complete`` False) or whose candidate lists were capped (``candidates_capped``: run the explorer
with ``keep_candidates=None``) yields allowed claims only, and says why in ``unproven``.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from ptxkit.consistency.events import resolve_location
from ptxkit.explore.condition import Formula, Not, evaluate
from ptxkit.explore.program import Condition
from ptxkit.explore.result import Candidate, ExploreResult, Outcome
from ptxkit.export.obligations import Obligation, OExecution, TestObligations, from_execution

# the most final-value combinations one register outcome may need claims for (each is a claim)
MAX_COMBINATIONS = 4096


def to_obligations(result: TestObligations | ExploreResult) -> TestObligations:
    """The obligations of an explored test (a :class:`TestObligations` is returned as is)."""
    if isinstance(result, TestObligations):
        return result
    return from_explore_result(result)


def from_candidate(c: Candidate, outcome: dict[str, int | str | None] | None = None,
                   observed: tuple[str, ...] = (), final: dict[str, int] | None = None,
                   open_co: bool = False) -> OExecution:
    """An explorer candidate as the execution ``ptxkit.consistency`` decided (``Candidate.
    to_execution``: one conversion of the explorer's events), with its outcome. A consistent
    candidate keeps its coherence order; an inconsistent one (or any, with ``open_co``) gets none:
    the claim is then about every coherence order."""
    ox = from_execution(c.to_execution(), outcome)
    ox = replace(ox, observed=tuple(observed), final=dict(final or {}))
    if not c.consistent or open_co:
        ox.co = None  # every coherence order (see OExecution)
    return ox


def target(cond: Condition | None, verdict: str) -> Callable[[dict[str, object]], bool] | None:
    """The property no consistent execution may have for ``verdict`` to hold — None when the verdict
    is established by a witness instead (or there is no condition)."""
    if verdict == "NoExecution":  # no consistent execution at all: every candidate must be refuted
        return lambda env: True
    if cond is None:
        return None
    if (cond.quantifier, verdict) in (("exists", "No"), ("not exists", "Ok")):
        f: Formula = cond.formula
    elif (cond.quantifier, verdict) == ("forall", "Ok"):
        f = Not(cond.formula)
    else:
        return None
    filt = cond.filter

    def holds(env: dict[str, object]) -> bool:
        if any(v == "?" for v in env.values()):
            return True  # an unknown value may be anything: the claim must cover it
        values = {k: v for k, v in env.items() if isinstance(v, (int, str))}
        return (filt is None or evaluate(filt, values)) and evaluate(f, values)
    return holds


def from_explore_result(res: ExploreResult) -> TestObligations:
    """The obligations of an explored test (see the module docstring)."""
    prog = res.program
    keys = list(res.keys)
    loc_cols = [i for i, k in enumerate(keys) if k in prog.locations]
    reg_cols = [i for i in range(len(keys)) if i not in loc_cols]
    root = {keys[i]: resolve_location(prog.locations, keys[i])[0] for i in loc_cols}
    observed = tuple(sorted(set(root.values())))
    filename = str(prog.filename or "")
    # "<input>" / "<stdin>": no file, so the test name names the export
    stem = Path(filename).stem if filename and not filename.startswith("<") else ""
    t = TestObligations(name=prog.name or stem or "test", model=res.model, source=str(prog.filename),
                        condition="(none)" if res.condition is None else res.condition.text(),
                        verdict=res.verdict, stem=stem)

    def odict(o: Outcome) -> dict[str, int | str | None]:
        return {k: (None if v == "?" else v) for k, v in zip(keys, o)}

    def sat(o: Outcome) -> bool | None:
        if res.condition is None or any(v == "?" for v in o):
            return None
        return evaluate(res.condition.formula, dict(zip(keys, o)))

    def final(o: Outcome) -> dict[str, int]:
        return {root[keys[i]]: v for i in loc_cols if isinstance(v := o[i], int)}

    def forbidden(o: Outcome, cands: list[Candidate], open_co: bool) -> Obligation:
        seen: dict[tuple[object, ...], OExecution] = {}
        for c in cands:
            ox = from_candidate(c, odict(o), observed, final(o), open_co=open_co)
            seen.setdefault((ox.skeleton_key(), tuple(sorted(ox.rf)), tuple(sorted(ox.sync_fence or ()))), ox)
        return Obligation("forbidden", odict(o), candidates=list(seen.values()), satisfies_condition=sat(o))

    for o, c in sorted(res.witnesses.items(), key=lambda kv: str(kv[0])):
        t.obligations.append(Obligation("allowed", odict(o), witness=from_candidate(c, odict(o), observed, final(o)),
                                        satisfies_condition=sat(o)))
    if not res.complete:
        t.unproven = f"the exploration was cut ({res.reason}): no forbidden claim"
        return t
    if res.candidates_capped:
        t.unproven = (f"the explorer kept at most {res.keep_candidates} candidates per outcome: "
                      "no forbidden claim (explore with keep_candidates=None)")
        return t

    # outcomes only inconsistent candidates produce ('?': a final value no coherence order fixed)
    claimed: set[Outcome] = set()
    for o, cands in sorted(res.candidates_by_outcome.items(), key=lambda kv: str(kv[0])):
        if o in res.witnesses or any(c.consistent for c in cands):
            continue
        if any(all(v == "?" or v == w for v, w in zip(o, wo)) for wo in res.witnesses):
            continue  # some consistent execution has these register values: no claim to make
        t.obligations.append(forbidden(o, cands, open_co=False))
        claimed.add(o)

    holds = target(res.condition, res.verdict)
    if holds is None:
        return t
    # the verdict's claims: every register outcome × final-value combination with the property
    groups: dict[Outcome, list[Candidate]] = {}
    outcomes_of: dict[Outcome, list[Outcome]] = {}
    for o, cands in res.candidates_by_outcome.items():
        regs = tuple(o[i] for i in reg_cols)
        groups.setdefault(regs, []).extend(cands)
        outcomes_of.setdefault(regs, []).append(o)
    for regs, cands in sorted(groups.items(), key=lambda kv: str(kv[0])):
        if not loc_cols:
            o = regs
            if holds(dict(zip(keys, o))) and o not in claimed and o not in res.witnesses:
                t.obligations.append(forbidden(o, cands, open_co=True))
            continue
        if all(o in claimed for o in outcomes_of[regs]):
            continue  # every candidate with these registers is claimed inconsistent for every co already
        written = []
        for i in loc_cols:
            r = root[keys[i]]
            written.append(sorted({e.value for c in cands for e in c.events
                                   if e.kind == "W" and e.loc == r and isinstance(e.value, int)}))
        n = 1
        for w in written:
            n *= len(w)
        if n > MAX_COMBINATIONS:
            t.unproven = (f"{n} final-value combinations for registers {regs}: over {MAX_COMBINATIONS}, "
                          "not every verdict claim was written")
            continue
        for vals in itertools.product(*written):
            full: list[int | str] = ["?"] * len(keys)
            for i, v in zip(reg_cols, regs):
                full[i] = v
            for i, v in zip(loc_cols, vals):
                full[i] = v
            o = tuple(full)
            if o in res.witnesses or o in claimed or not holds(dict(zip(keys, o))):
                continue
            t.obligations.append(forbidden(o, cands, open_co=True))
            claimed.add(o)
    return t


__all__ = ["MAX_COMBINATIONS", "from_candidate", "from_explore_result", "target", "to_obligations"]
