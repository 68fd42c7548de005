"""The explorer's result (``ptxkit explore``): candidate executions and the counts per outcome.

:class:`Candidate` is one candidate execution with the relations chosen for it and the verdict of
``ptxkit.consistency``; :class:`ExploreResult` keeps, for the proof/graph exporters, the program,
the candidate executions per outcome (``candidates_by_outcome``: every one when the explorer ran
with ``keep_candidates=None``; otherwise at most that many, and ``candidates_capped`` says whether
a list was cut — a cut list proves no outcome forbidden) and one consistent witness per outcome
(``witnesses``).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field

from ptxkit.consistency.axioms import Violation
from ptxkit.consistency.events import INIT, Event, Execution
from ptxkit.consistency.vocab import PROXY_BY_TAG, BarrierOp, FenceKind, Kind, Scope, Sem
from ptxkit.explore.condition import Value, evaluate
from ptxkit.explore.program import ConcurrentProgram, Condition
from ptxkit.explore.trace import Ev, fmt_instruction

# an outcome: one final value per column of ``ExploreResult.keys`` ('?': not fixed, see claims)
Outcome = tuple[Value, ...]


@dataclass
class Candidate:
    """One candidate execution: events (init writes first, then threads in program order), the
    relations chosen for it (index pairs into ``events``), and the verdict of ``ptxkit.consistency``."""

    events: list[Ev]
    rf: list[tuple[int, int]]
    rmw: list[tuple[int, int]]
    dep: list[tuple[int, int]]
    sync_fence: list[tuple[int, int]]    # the Fence-SC order chosen (§8.9.3), as sc_order pairs
    sync_barrier: list[tuple[int, int]]  # the barrier schedule's synchronizes-with edges (§8.9.4)
    consistent: bool
    axiom: str | None = None
    # the coherence order (transitively closed): the consistent one, or for an inconsistent candidate
    # the last one the search tried (the one ``violation`` was found for)
    co: list[tuple[int, int]] = field(default_factory=list)
    cause: list[tuple[int, int]] = field(default_factory=list)
    outcome: Outcome | None = None
    barrier_instance: dict[int, int] = field(default_factory=dict)  # barrier event -> instance number
    model: str = "ptx-7.5"
    violation: Violation | None = None
    data: list[tuple[int, int]] = field(default_factory=list)  # the part of dep that is not control
    ctrl: list[tuple[int, int]] = field(default_factory=list)

    def to_execution(self, name: str = "", with_co: bool | None = None) -> Execution:
        """This candidate as the ``ptxkit.consistency`` Execution it was checked as: same event order
        and ids; co the chosen (closed) order when consistent, else only init → write (``with_co``
        True: the order the search failed last, for witness graphs); the Fence-SC order and the barrier
        schedule (``bar_sync``) the chosen ones; barrier instances the schedule's."""
        evs = to_events(self.events, self.barrier_instance)
        co = {(i, j) for i, e in enumerate(evs) if e.is_init for j, f in enumerate(evs)
              if f.kind == "W" and not f.is_init and f.location == e.location}
        if self.consistent if with_co is None else with_co:
            co |= set(self.co)
        return Execution(evs, rf=set(self.rf), co=co, rmw=set(self.rmw), data=set(self.data),
                         ctrl=set(self.ctrl), sc_order=set(self.sync_fence), name=name,
                         bar_sync=set(self.sync_barrier))


def to_events(events: list[Ev], barrier_instance: dict[int, int] | None = None) -> list[Event]:
    """The explorer's events as ``ptxkit.consistency.events.Event`` (ids = indices), in the model's
    vocabulary (``ptxkit.consistency.vocab``)."""
    out = []
    pos: dict[int, int] = {}
    for i, e in enumerate(events):
        p = pos.get(e.tid, 0)
        pos[e.tid] = p + 1
        thread = INIT if e.init else e.tid
        label = fmt_instruction(e.instr) if e.instr is not None else e.describe()  # the instruction
        span = e.instr.span if e.instr is not None else None
        scope = None if e.scope is None else Scope.parse(e.scope, "scope")
        if e.kind in ("R", "W"):
            out.append(Event(i, thread, Kind.parse(e.kind, "kind"), p, location=e.loc, vaddr=e.vaddr, value=e.value,
                             sem=Sem.parse(e.sem or "weak", "sem"), scope=scope, proxy=PROXY_BY_TAG[e.proxy],
                             cta=e.cta, gpu=e.gpu, label=label, span=span))
        elif e.fkind == "bar":
            assert e.bar is not None
            ids, count, mode = e.bar[0], e.bar[1], e.bar[2]
            bid = ids[0] if len(ids) == 1 else ids[0] * 65536 + ids[1]
            out.append(Event(i, thread, Kind.B, p, barrier_id=bid, barrier_op=BarrierOp.parse(mode, "barrier op"),
                             barrier_count=count, instance=(barrier_instance or {}).get(i), cta=e.cta, gpu=e.gpu,
                             label=label, span=span))
        elif e.fkind in ("proxy", "alias"):
            out.append(Event(i, thread, Kind.F, p, fence_kind=FenceKind.parse(e.fkind, "fence kind"),
                             proxy=PROXY_BY_TAG[e.proxy], cta=e.cta, gpu=e.gpu, label=label, span=span))
        else:
            out.append(Event(i, thread, Kind.F, p, fence_kind=FenceKind.sem, sem=Sem.parse(e.fkind or "sc", "sem"),
                             scope=scope, cta=e.cta, gpu=e.gpu, label=label, span=span))
    return out


@dataclass
class ExploreResult:
    program: ConcurrentProgram
    model: str
    keys: list[str]                         # outcome column names, e.g. 'P1:r0', 'x'
    outcomes: Counter[Outcome]              # outcome tuple -> number of consistent executions
    candidates: int = 0
    consistent: int = 0
    complete: bool = True
    reason: str = ""                        # why incomplete
    condition: Condition | None = None
    satisfied: int = 0                      # consistent executions satisfying the condition
    verdict: str = "Ok"                     # 'Ok' | 'No' | 'Inconclusive'
    witnesses: dict[Outcome, Candidate] = field(default_factory=dict)  # outcome -> a consistent Candidate
    candidates_by_outcome: dict[Outcome, list[Candidate]] = field(default_factory=lambda: defaultdict(list))
    elapsed: float = 0.0
    spins_pruned: int = 0
    consistent_filtered: int = 0            # consistent executions passing the filter
    pruned: int = 0                         # candidates never built (a partial rf was inconsistent)
    keep_candidates: int | None = None      # the cap on each candidate list (None: every candidate kept)
    candidates_capped: bool = False         # some list reached the cap and dropped candidates
    # no consistent execution at all (complete search): why, with a witness (verdict 'NoExecution')
    stuck: str = ""

    def outcome_dicts(self) -> list[dict[str, object]]:
        return [{"values": dict(zip(self.keys, o)), "count": n,
                 "satisfies": (None if self.condition is None else
                               evaluate(self.condition.formula, dict(zip(self.keys, o))))}
                for o, n in sorted(self.outcomes.items(), key=lambda kv: kv[0])]

