"""Proof obligations shared by the Lean 4 and SMT-LIB 2 writers (PTX ISA §8, "Memory Consistency Model").

An obligation is plain data, independent of how ``ptxkit.consistency`` or the explorer store
executions, so both writers (and the Lean reader) agree on one shape:

* :class:`OEvent` — one memory event with the attributes the model needs: kind ``R``/``W``/``F``/``B``
  (an RMW is an ``R`` and a ``W`` related by ``rmw``; ``B`` a barrier operation), physical location
  ``loc`` and virtual address ``vloc`` (§8.6 proxies and aliases), proxy, ``.sem`` and ``.scope``
  (§8.5), fence kind, barrier id/op/instance, and the issuing thread's placement (thread, cta,
  cluster, gpu). Initial writes have ``thread = None``.
* :class:`OExecution` — events plus the execution's base relations: po, rf, co, rmw, addr, data, ctrl,
  ``sync_fence`` (the Fence-SC order chosen at run time, §8.9.3) and ``sync_barrier`` (barrier
  synchronisation edges, §8.9.4). ``None`` means "not chosen": co / Fence-SC order are then searched
  by the consumers (every coherence order for a forbidden claim), barrier edges derived from the
  instances. All derived relations (morally strong, observation, patterns, causality …) are
  recomputed by each consumer from this data.
* :class:`Obligation` — one claim: an *allowed* outcome with a consistent witness, or a *forbidden*
  outcome with the finite list of its candidate executions (all claimed inconsistent).
* :class:`TestObligations` — every obligation of one explored test.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

from ptxkit.consistency import vocab
from ptxkit.consistency.events import INIT, Event, Execution
from ptxkit.consistency.registry import MODELS

# The base relations every execution carries, in a fixed order (writers iterate this list).
BASE_RELATIONS = ("po", "rf", "co", "rmw", "addr", "data", "ctrl", "sync_fence", "sync_barrier")
# The relations an explorer chooses at run time; for a forbidden outcome the SMT twin leaves them free.
CHOSEN_RELATIONS = ("rf", "co", "sync_fence")

Pair = tuple[int, int]


@dataclass(frozen=True)
class OEvent:
    """One event (ISA §8.2 memory operations, §8.9 fences/barriers)."""

    eid: int
    kind: vocab.Kind           # R | W | F | B (barrier); a str spelling is accepted and converted
    thread: int | None = None  # None: an initial write
    loc: str | None = None     # physical location (aliases resolved)
    vloc: str | None = None    # virtual address as named by the program (§8.6)
    proxy: vocab.Proxy = vocab.Proxy.generic  # for fence.proxy.X: X
    sem: vocab.Sem = vocab.Sem.weak
    scope: vocab.Scope | None = None  # None: no scope, e.g. weak or init
    cta: int = 0
    cluster: int = 0
    gpu: int = 0
    value: int | None = None   # value read or written
    size: int = 4              # bytes accessed (complete overlap = same loc and size, §8.2)
    fence_kind: vocab.FenceKind | None = None  # F only
    barrier_id: int | None = None  # B only: the barrier resource
    barrier_op: vocab.BarrierOp | None = None  # B only
    instance: int | None = None    # B only: the dynamic barrier instance joined (resolved, never None)
    label: str = field(default="", compare=False)  # instruction text (comments only)

    def __post_init__(self) -> None:
        try:  # the vocabulary's members, whatever spelling the caller used
            vocab.parse_event_fields(self, "")
        except ValueError as e:
            raise ValueError(f"event {self.eid}: {e}") from None
        if self.kind == vocab.Kind.F and self.fence_kind is None:
            raise ValueError(f"event {self.eid}: fence kind None not in {vocab.FENCE_KINDS}")
        if self.kind == vocab.Kind.B and (self.barrier_op is None or self.barrier_id is None
                                          or self.instance is None):
            raise ValueError(f"event {self.eid}: barrier needs an id, an op in {vocab.BARRIER_OPS} "
                             "and an instance")

    @property
    def is_init(self) -> bool:
        return self.thread is None

    @property
    def placement(self) -> vocab.Placement:
        """Where the issuing thread runs (``vocab.scope_includes``); clusters are small ints here."""
        return vocab.Placement(self.gpu, self.cluster, self.cta)


@dataclass
class OExecution:
    """A candidate execution: events indexed 0..n-1 (``events[i].eid == i``) and base relations."""

    events: list[OEvent]
    po: frozenset[Pair] = frozenset()
    rf: frozenset[Pair] = frozenset()
    co: frozenset[Pair] | None = frozenset()  # None: not chosen (a forbidden claim: every order)
    rmw: frozenset[Pair] = frozenset()
    addr: frozenset[Pair] = frozenset()
    data: frozenset[Pair] = frozenset()
    ctrl: frozenset[Pair] = frozenset()
    sync_fence: frozenset[Pair] | None = frozenset()
    # barrier synchronisation edges (§8.9.4) as the explorer's barrier schedule produced them;
    # None: derived from the barrier events' instances (as ptxkit.consistency does)
    sync_barrier: frozenset[Pair] | None = None
    outcome: dict[str, int | str | None] = field(default_factory=dict)  # 'P1:r0' -> 1, 'x' -> 2
    # physical locations whose writes co must order totally (their final value is observed) and the
    # final value each must end with (absent: any)
    observed: tuple[str, ...] = ()
    final: dict[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for name in BASE_RELATIONS:
            if getattr(self, name) is not None:
                setattr(self, name, frozenset((int(a), int(b)) for a, b in getattr(self, name)))
        n = len(self.events)
        for i, e in enumerate(self.events):
            if e.eid != i:
                raise ValueError(f"event at index {i} has eid {e.eid}")
        for name in BASE_RELATIONS:
            for a, b in getattr(self, name) or ():
                if not (0 <= a < n and 0 <= b < n):
                    raise ValueError(f"{name} edge ({a}, {b}) outside 0..{n - 1}")

    @property
    def n(self) -> int:
        return len(self.events)

    def relation(self, name: str) -> frozenset[Pair] | None:
        return getattr(self, name)

    def skeleton_key(self) -> tuple:
        """Identity of the execution without its run-time choices (rf, co, Fence-SC order)."""
        rels = tuple(None if getattr(self, r) is None else tuple(sorted(getattr(self, r)))
                     for r in BASE_RELATIONS if r not in CHOSEN_RELATIONS)
        return (tuple(self.events), rels, tuple(sorted(self.outcome.items(), key=str)), self.observed,
                tuple(sorted(self.final.items())))

    def without_choices(self) -> OExecution:
        return replace(self, rf=frozenset(), co=frozenset(), sync_fence=None)


@dataclass
class Obligation:
    """One claim about one outcome. ``kind == 'allowed'``: ``witness`` is consistent.
    ``kind == 'forbidden'``: every execution in ``candidates`` is inconsistent (the candidate list
    is the explorer's complete bounded list of executions with this outcome)."""

    kind: str  # 'allowed' | 'forbidden'
    outcome: dict[str, int | str | None]
    witness: OExecution | None = None
    candidates: list[OExecution] = field(default_factory=list)
    satisfies_condition: bool | None = None

    def __post_init__(self) -> None:
        if self.kind not in ("allowed", "forbidden"):
            raise ValueError(f"obligation kind {self.kind!r}")
        if self.kind == "allowed" and self.witness is None:
            raise ValueError("an allowed outcome needs a witness")

    def outcome_text(self) -> str:
        return outcome_text(self.outcome)

    def skeletons(self) -> list[OExecution]:
        """The candidates with rf/co/Fence-SC order dropped, deduplicated (the SMT twin chooses those)."""
        seen: dict[tuple, OExecution] = {}
        for c in self.candidates:
            seen.setdefault(c.skeleton_key(), c.without_choices())
        return list(seen.values())


@dataclass
class TestObligations:
    """Every obligation of one explored test."""

    __test__ = False  # not a pytest class despite its name

    name: str
    model: str = "ptx-7.5"
    source: str = ""
    condition: str = ""
    verdict: str = ""
    obligations: list[Obligation] = field(default_factory=list)
    # the source file's stem: exported files are named after it, not after ``name``, because test
    # names are not unique (four Dat3M pairs share one, e.g. IRIW2 / IRIW_gl_cta); "" → ``name``
    stem: str = ""
    # why some claim the verdict needs could not be made ("" when every one was)
    unproven: str = ""

    def __post_init__(self) -> None:
        if self.model not in MODELS:  # the one registry (ptxkit.consistency.registry)
            raise ValueError(f"model {self.model!r} not in {tuple(MODELS)}")

    @property
    def ident(self) -> str:
        """The export name (Lean module / namespace component, SMT directory and query prefix):
        the sanitised source stem, else the sanitised test name."""
        return identifier(self.stem or self.name)


def outcome_text(outcome: dict[str, int | str | None]) -> str:
    return " /\\ ".join(f"{k} == {'any' if v is None else v}" for k, v in outcome.items()) or "(no observable)"


def identifier(name: str) -> str:
    """A name usable as a Lean identifier part, an SMT symbol part and a file name."""
    s = re.sub(r"[^A-Za-z0-9_]", "_", name)
    if not s or not s[0].isalpha() or s in _RESERVED:
        s = "t_" + s
    return s


# Lean 4 tokens that look like identifiers and so cannot be a module / namespace component (the
# keywords of Lean 4's command, term and `do` syntax, plus the sorts); case matters in Lean. This is
# the single list: ``ptxkit.export.lean`` re-exports it as ``LEAN_KEYWORDS``.
_RESERVED = frozenset([
    "at", "by", "do", "else", "end", "fun", "have", "if", "in", "let", "match", "then", "with", "where",
    "def", "theorem", "namespace", "open", "import", "section", "show", "from", "for", "instance",
    "structure", "inductive", "class", "example", "variable", "universe", "partial", "mutual", "deriving",
    "abbrev", "axiom", "private", "protected", "noncomputable", "unsafe", "local", "scoped", "export",
    "attribute", "set_option", "opaque", "macro", "macro_rules", "syntax", "elab", "elab_rules", "notation",
    "infix", "infixl", "infixr", "prefix", "postfix", "termination_by", "decreasing_by", "nomatch", "nofun",
    "calc", "suffices", "unless", "return", "try", "catch", "finally", "mut", "break", "continue", "using",
    "generalizing", "forall", "exists", "extends", "renaming", "hiding", "omit", "include", "initialize",
    "builtin_initialize", "declare_syntax_cat", "this", "nonrec", "unif_hint", "Type", "Sort", "Prop",
    "sorry",
])


# --------------------------------------------------------------------------- from ptxkit.consistency

def from_execution(ex: Execution, outcome: dict[str, int | str | None] | None = None) -> OExecution:
    """Convert a ``ptxkit.consistency.events.Execution`` to an :class:`OExecution`.

    Barrier instances left ``None`` are resolved as that module documents (the k-th operation of a
    thread on barrier ``id`` joins instance k); clusters become small ints per (gpu, cluster)."""
    clusters: dict[object, int] = {}
    events: list[OEvent] = []
    for e in sorted(ex.events, key=lambda e: e.id):
        instance = None
        if e.kind == "B":
            instance = e.instance
            if instance is None:  # the k-th operation of a thread on a barrier joins instance k
                instance = sum(1 for o in ex.events if o.kind == "B" and o.thread == e.thread
                               and o.barrier_id == e.barrier_id and o.pos < e.pos)
        ck = e.cluster_key
        cl = clusters.setdefault(ck, len(clusters))
        events.append(OEvent(
            eid=e.id, kind=e.kind, thread=None if e.is_init else int(e.thread),
            loc=None if e.location is None else str(e.location),
            vloc=None if e.vaddr is None else str(e.vaddr),
            proxy=e.proxy, sem=e.sem, scope=e.scope, cta=int(e.cta), cluster=cl, gpu=int(e.gpu),
            # a pointer value (a litmus '&x') is no integer: None, as the Lean Option Int has it
            value=e.value if isinstance(e.value, int) else None, size=int(e.size),
            fence_kind=e.fence_kind if e.kind == "F" else None,
            barrier_id=e.barrier_id if e.kind == "B" else None,
            barrier_op=e.barrier_op if e.kind == "B" else None,
            instance=instance, label=e.label or e.short()))
    sc = ex.sc_order
    return OExecution(events, po=frozenset(ex.po), rf=frozenset(ex.rf), co=frozenset(ex.co),
                      rmw=frozenset(ex.rmw), addr=frozenset(ex.addr), data=frozenset(ex.data),
                      ctrl=frozenset(ex.ctrl), sync_fence=None if sc is None else frozenset(sc),
                      sync_barrier=None if ex.bar_sync is None else frozenset(ex.bar_sync),
                      outcome=dict(outcome or {}))


def to_execution(ox: OExecution) -> Execution:
    """Back to a ``ptxkit.consistency.events.Execution`` (for re-checking read-back Lean data)."""
    pos: dict[int, int] = {}
    # po of an OExecution is transitive and total per thread: a position is the number of predecessors
    for _a, b in ox.po:
        pos[b] = pos.get(b, 0) + 1
    events = []
    for e in ox.events:
        events.append(Event(
            id=e.eid, thread=INIT if e.thread is None else e.thread, kind=e.kind, pos=pos.get(e.eid, 0),
            location=e.loc, vaddr=e.vloc, value=e.value, size=e.size, sem=e.sem, scope=e.scope, proxy=e.proxy,
            fence_kind=e.fence_kind, barrier_id=e.barrier_id, barrier_op=e.barrier_op,
            instance=e.instance, cta=e.cta, cluster=e.cluster, gpu=e.gpu, label=e.label))
    return Execution(events, rf=set(ox.rf), co=set(ox.co or ()), rmw=set(ox.rmw), addr=set(ox.addr),
                     data=set(ox.data), ctrl=set(ox.ctrl),
                     sc_order=None if ox.sync_fence is None else set(ox.sync_fence),
                     bar_sync=None if ox.sync_barrier is None else set(ox.sync_barrier))
