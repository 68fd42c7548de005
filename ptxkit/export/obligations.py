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
from pathlib import Path

KINDS = ("R", "W", "F", "B")
FENCE_KINDS = ("sem", "proxy", "alias")
BARRIER_OPS = ("sync", "arrive", "red")
SEMS = ("weak", "relaxed", "acquire", "release", "acq_rel", "sc")
SCOPES = ("cta", "cluster", "gpu", "sys")
PROXIES = ("generic", "surface", "texture", "constant")
# The base relations every execution carries, in a fixed order (writers iterate this list).
BASE_RELATIONS = ("po", "rf", "co", "rmw", "addr", "data", "ctrl", "sync_fence", "sync_barrier")
# The relations an explorer chooses at run time; for a forbidden outcome the SMT twin leaves them free.
CHOSEN_RELATIONS = ("rf", "co", "sync_fence")
MODELS = ("ptx-7.5", "ptx-6.0")

Pair = tuple[int, int]


@dataclass(frozen=True)
class OEvent:
    """One event (ISA §8.2 memory operations, §8.9 fences/barriers)."""

    eid: int
    kind: str                 # 'R' | 'W' | 'F' | 'B' (barrier)
    thread: int | None = None  # None: an initial write
    loc: str | None = None     # physical location (aliases resolved)
    vloc: str | None = None    # virtual address as named by the program (§8.6)
    proxy: str = "generic"     # generic | surface | texture | constant (for fence.proxy.X: X)
    sem: str = "weak"          # weak relaxed acquire release acq_rel sc
    scope: str | None = None   # cta cluster gpu sys (None: no scope, e.g. weak or init)
    cta: int = 0
    cluster: int = 0
    gpu: int = 0
    value: int | None = None   # value read or written
    size: int = 4              # bytes accessed (complete overlap = same loc and size, §8.2)
    fence_kind: str | None = None  # F only: 'sem' | 'proxy' (fence.proxy.<proxy>) | 'alias'
    barrier_id: int | None = None  # B only: the barrier resource
    barrier_op: str | None = None  # B only: 'sync' | 'arrive' | 'red'
    instance: int | None = None    # B only: the dynamic barrier instance joined (resolved, never None)
    label: str = field(default="", compare=False)  # instruction text (comments only)

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"event {self.eid}: kind {self.kind!r} not in {KINDS}")
        if self.sem not in SEMS:
            raise ValueError(f"event {self.eid}: sem {self.sem!r} not in {SEMS}")
        if self.scope is not None and self.scope not in SCOPES:
            raise ValueError(f"event {self.eid}: scope {self.scope!r} not in {SCOPES}")
        if self.proxy not in PROXIES:
            raise ValueError(f"event {self.eid}: proxy {self.proxy!r} not in {PROXIES}")
        if self.kind == "F" and self.fence_kind not in FENCE_KINDS:
            raise ValueError(f"event {self.eid}: fence kind {self.fence_kind!r} not in {FENCE_KINDS}")
        if self.kind == "B" and (self.barrier_op not in BARRIER_OPS or self.barrier_id is None
                                 or self.instance is None):
            raise ValueError(f"event {self.eid}: barrier needs an id, an op in {BARRIER_OPS} and an instance")

    @property
    def is_init(self) -> bool:
        return self.thread is None


@dataclass
class OExecution:
    """A candidate execution: events indexed 0..n-1 (``events[i].eid == i``) and base relations."""

    events: list[OEvent]
    po: frozenset[Pair] = frozenset()
    rf: frozenset[Pair] = frozenset()
    co: frozenset[Pair] = frozenset()
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

    def __post_init__(self) -> None:
        if self.model not in MODELS:
            raise ValueError(f"model {self.model!r} not in {MODELS}")

    @property
    def ident(self) -> str:
        """The export name (Lean module / namespace component, SMT directory and query prefix):
        the sanitised source stem, else the sanitised test name."""
        return identifier(self.stem or self.name)


def outcome_text(outcome: dict[str, int]) -> str:
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
_RESERVED = frozenset(["at", "by", "do", "else", "end", "fun", "have", "if", "in", "let", "match", "then", "with", "where", "def", "theorem", "namespace", "open", "import", "section", "show", "from", "for", "instance", "structure", "inductive", "class", "example", "variable", "universe", "partial", "mutual", "deriving", "abbrev", "axiom", "private", "protected", "noncomputable", "unsafe", "local", "scoped", "export", "attribute", "set_option", "opaque", "macro", "macro_rules", "syntax", "elab", "elab_rules", "notation", "infix", "infixl", "infixr", "prefix", "postfix", "termination_by", "decreasing_by", "nomatch", "nofun", "calc", "suffices", "unless", "return", "try", "catch", "finally", "mut", "break", "continue", "using", "generalizing", "forall", "exists", "extends", "renaming", "hiding", "omit", "include", "initialize", "builtin_initialize", "declare_syntax_cat", "this", "nonrec", "unif_hint", "Type", "Sort", "Prop", "sorry"])


# --------------------------------------------------------------------------- from ptxkit.consistency

def from_execution(ex, outcome: dict[str, int] | None = None) -> OExecution:
    """Convert a ``ptxkit.consistency.events.Execution`` to an :class:`OExecution`.

    Barrier instances left ``None`` are resolved as that module documents (the k-th operation of a
    thread on barrier ``id`` joins instance k); clusters become small ints per (gpu, cluster)."""
    clusters: dict[object, int] = {}
    counts: dict[tuple[int, int], int] = {}
    events: list[OEvent] = []
    for e in sorted(ex.events, key=lambda e: e.id):
        instance = None
        if e.kind == "B":
            instance = e.instance
            if instance is None:
                key = (e.thread, e.barrier_id)
                # events of a thread are visited in id order; use program position to be safe below
                instance = sum(1 for o in ex.events if o.kind == "B" and o.thread == e.thread
                               and o.barrier_id == e.barrier_id and o.pos < e.pos)
                counts[key] = counts.get(key, 0) + 1
        ck = e.cluster_key
        cl = clusters.setdefault(ck, len(clusters))
        events.append(OEvent(
            eid=e.id, kind=e.kind, thread=None if e.is_init else int(e.thread),
            loc=None if e.location is None else str(e.location),
            vloc=None if e.vaddr is None else str(e.vaddr),
            proxy=e.proxy, sem=e.sem, scope=e.scope, cta=int(e.cta), cluster=cl, gpu=int(e.gpu),
            value=None if e.value is None else int(e.value), size=int(e.size),
            fence_kind=e.fence_kind if e.kind == "F" else None,
            barrier_id=e.barrier_id if e.kind == "B" else None,
            barrier_op=e.barrier_op if e.kind == "B" else None,
            instance=instance, label=e.label or e.short()))
    sc = getattr(ex, "sc_order", None)
    return OExecution(events, po=frozenset(ex.po), rf=frozenset(ex.rf), co=frozenset(ex.co),
                      rmw=frozenset(ex.rmw), addr=frozenset(ex.addr), data=frozenset(ex.data),
                      ctrl=frozenset(ex.ctrl), sync_fence=None if sc is None else frozenset(sc),
                      outcome=dict(outcome or {}))


def to_execution(ox: OExecution):
    """Back to a ``ptxkit.consistency.events.Execution`` (for re-checking read-back Lean data)."""
    from ptxkit.consistency.events import INIT, Event, Execution

    pos: dict[int, int] = {}
    # po of an OExecution is transitive and total per thread: a position is the number of predecessors
    for a, b in ox.po:
        pos[b] = pos.get(b, 0) + 1
    events = []
    for e in ox.events:
        events.append(Event(
            id=e.eid, thread=INIT if e.thread is None else e.thread, kind=e.kind, pos=pos.get(e.eid, 0),
            location=e.loc, vaddr=e.vloc, value=e.value, size=e.size, sem=e.sem, scope=e.scope, proxy=e.proxy,
            fence_kind=e.fence_kind, barrier_id=e.barrier_id, barrier_op=e.barrier_op,
            instance=e.instance, cta=e.cta, cluster=e.cluster, gpu=e.gpu, label=e.label))
    return Execution(events, rf=set(ox.rf), co=set(ox.co), rmw=set(ox.rmw), addr=set(ox.addr),
                     data=set(ox.data), ctrl=set(ox.ctrl),
                     sc_order=None if ox.sync_fence is None else set(ox.sync_fence))


# --------------------------------------------------------------------------- from the explorer

def to_obligations(result) -> TestObligations:
    """The obligations of an explored test. Accepts a :class:`TestObligations` as is, or an explorer
    result (``ptxkit.explore.engine``), converted by :func:`from_explore_result`."""
    if isinstance(result, TestObligations):
        return result
    return from_explore_result(result)


_PROXY = {"GEN": "generic", "SUR": "surface", "TEX": "texture", "CON": "constant"}
_FENCE_SEMS = ("sc", "acq_rel", "acquire", "release", "relaxed")


def from_candidate(c, outcome: dict | None = None, observed: tuple[str, ...] = (),
                   final: dict[str, int] | None = None, open_co: bool = False) -> OExecution:
    """Convert an explorer ``Candidate`` (``ptxkit.explore.engine``) to an :class:`OExecution`.

    The explorer lists init writes first, then each thread's events in program order; barriers are
    fences with ``fkind == 'bar'`` and explicit synchronisation edges (``sync_barrier``), kept as
    given (instances are the connected groups of those edges, for consumers that need them).
    A consistent candidate carries its (closed) coherence order; an inconsistent one none (``co``
    None: every coherence order was tried); ``open_co`` drops it in any case."""
    evs = list(c.events)
    n = len(evs)
    parent = list(range(n))

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for a, b in c.sync_barrier:
        parent[find(a)] = find(b)
    roots: dict[int, int] = {}
    bar_ids: dict[object, int] = {}
    clusters: dict[tuple, int] = {}
    events = []
    for i, e in enumerate(evs):
        thread = None if e.init or e.tid < 0 else int(e.tid)
        kw: dict = dict(eid=i, thread=thread, cta=int(e.cta), gpu=int(e.gpu),
                        cluster=clusters.setdefault((e.gpu, e.cta), len(clusters)),
                        proxy=_PROXY.get(e.proxy, "generic"),
                        value=None if e.value is None or isinstance(e.value, str) else int(e.value),
                        label=e.describe() if hasattr(e, "describe") else "")
        if e.kind == "F" and e.fkind == "bar":
            mode = e.bar[2] if e.bar else "sync"
            kw.update(kind="B", barrier_id=bar_ids.setdefault(e.bar[0] if e.bar else None, len(bar_ids)),
                      barrier_op="arrive" if mode == "arrive" else "red" if mode == "red" else "sync",
                      instance=roots.setdefault(find(i), len(roots)), scope=e.scope)
        elif e.kind == "F":
            fk = "proxy" if e.fkind == "proxy" else "alias" if e.fkind == "alias" else "sem"
            kw.update(kind="F", fence_kind=fk, scope=e.scope if fk == "sem" else None,
                      sem=e.fkind if fk == "sem" and e.fkind in _FENCE_SEMS else "weak")
        else:
            kw.update(kind=e.kind, loc=str(e.loc), vloc=str(e.vaddr if e.vaddr is not None else e.loc),
                      sem=e.sem or "weak", scope=e.scope)
        events.append(OEvent(**kw))
    po = {(i, j) for i in range(n) for j in range(i + 1, n)
          if events[i].thread is not None and events[i].thread == events[j].thread}
    return OExecution(events, po=frozenset(po), rf=frozenset(c.rf),
                      co=frozenset(c.co) if c.consistent and not open_co else None,
                      rmw=frozenset(c.rmw), data=frozenset(c.dep), sync_fence=frozenset(c.sync_fence),
                      sync_barrier=frozenset(c.sync_barrier), outcome=dict(outcome or {}),
                      observed=tuple(observed), final=dict(final or {}))


def condition_text(cond) -> str:
    """A herd-style rendering of a ``ptxkit.explore.program.Condition``."""
    if cond is None:
        return "(none)"

    def op(o):
        return str(o[1]) if o[0] == "int" else (f"P{o[1]}:{o[2]}" if o[0] == "reg" else
                                                 f"{o[1]}[{o[2]}]" if o[0] == "elem" else str(o[1]))

    def f(x):
        tag = x[0]
        if tag == "true":
            return "true"
        if tag in ("and", "or"):
            return f"({f(x[1])} {'/' + chr(92) if tag == 'and' else chr(92) + '/'} {f(x[2])})"
        if tag == "not":
            return f"~{f(x[1])}"
        return f"{op(x[2])} {x[1]} {op(x[3])}"

    q = {"exists": "exists", "not exists": "~exists", "forall": "forall"}.get(cond.quantifier, cond.quantifier)
    text = f"{q} {f(cond.formula)}"
    return text + (f" filter {f(cond.filter)}" if cond.filter is not None else "")


def from_explore_result(res) -> TestObligations:
    """The obligations of an :class:`ptxkit.explore.engine.ExploreResult`.

    * every outcome with a consistent witness → an *allowed* obligation;
    * every outcome key whose candidates are all inconsistent and that no consistent outcome agrees
      with (on its concrete columns; ``'?'`` marks final values the explorer could not fix because no
      coherence order was consistent) → a *forbidden* obligation over those candidates. The list is
      complete only when the exploration was (``res.complete``) and the explorer kept every
      candidate (run it with a large ``keep_candidates``); otherwise no forbidden claim is made.
    """
    from ptxkit.explore.condition import eval_formula
    from ptxkit.explore.access import resolve

    prog = res.program
    keys = list(res.keys)
    loc_keys = [k for k in keys if ":" not in k and "[" not in k and k in prog.locations]
    observed = tuple(sorted({resolve(prog.locations, k)[0] for k in loc_keys}))
    filename = str(prog.filename or "")
    # "<input>" / "<stdin>": no file, so the test name names the export
    stem = Path(filename).stem if filename and not filename.startswith("<") else ""
    t = TestObligations(name=prog.name or stem or "test", model=res.model,
                        source=str(prog.filename), condition=condition_text(res.condition),
                        verdict=res.verdict, stem=stem)

    def odict(o) -> dict:
        return {k: (None if v == "?" else v) for k, v in zip(keys, o)}

    def sat(o) -> bool | None:
        if res.condition is None or any(v == "?" for v in o):
            return None
        return bool(eval_formula(res.condition.formula, dict(zip(keys, o))))

    def final(o) -> dict[str, int]:
        return {resolve(prog.locations, k)[0]: v for k, v in zip(keys, o)
                if k in loc_keys and isinstance(v, int)}

    for o, c in sorted(res.witnesses.items(), key=lambda kv: str(kv[0])):
        t.obligations.append(Obligation("allowed", odict(o), witness=from_candidate(c, odict(o), observed, final(o)),
                                        satisfies_condition=sat(o)))
    if not res.complete:
        return t
    # the explorer keeps at most ``keep_candidates`` candidates per outcome (8 by default): a list that
    # long may be cut, and a cut list proves nothing
    keep = getattr(res, "keep_candidates", None) or 8
    for o, cands in sorted(res.candidates_by_outcome.items(), key=lambda kv: str(kv[0])):
        if o in res.witnesses or any(c.consistent for c in cands) or len(cands) >= keep:
            continue
        if any(all(v == "?" or v == w for v, w in zip(o, wo)) for wo in res.witnesses):
            continue  # some consistent execution has these register values: no claim to make
        t.obligations.append(Obligation("forbidden", odict(o), candidates=[
            from_candidate(c, odict(o), observed, final(o)) for c in cands], satisfies_condition=sat(o)))
    if loc_keys and res.condition is not None:
        t.obligations += _final_value_claims(res, keys, loc_keys, observed, keep, odict, final)
    return t


def _final_value_claims(res, keys, loc_keys, observed, keep, odict, final) -> list[Obligation]:
    """Forbidden outcomes that fix final memory values and satisfy the condition (e.g. ``x == 2``):
    no consistent execution reaches them, yet the explorer files each candidate under the outcome its
    consistent coherence orders give. Claim: every candidate with the outcome's register values is
    inconsistent for every coherence order that ends each observed location with the stated value."""
    import itertools
    from collections import defaultdict

    from ptxkit.explore.condition import eval_formula
    from ptxkit.explore.access import resolve

    prog = res.program
    reg_cols = [i for i, k in enumerate(keys) if k not in loc_keys]
    loc_cols = [i for i, k in enumerate(keys) if k in loc_keys]
    groups: dict[tuple, dict] = defaultdict(dict)
    for o, cands in res.candidates_by_outcome.items():
        if len(cands) >= keep:
            return []  # a list may have been cut: no claim is safe
        for c in cands:
            ident = (id(c.events), tuple(c.rf), tuple(c.sync_fence), tuple(c.sync_barrier))
            groups[tuple(o[i] for i in reg_cols)].setdefault(ident, c)
    out = []
    for regs, cmap in sorted(groups.items(), key=lambda kv: str(kv[0])):
        if any(v == "?" for v in regs):
            continue
        cands = list(cmap.values())
        written = []
        for i in loc_cols:
            root = resolve(prog.locations, keys[i])[0]
            written.append(sorted({e.value for c in cands for e in c.events
                                   if e.kind == "W" and e.loc == root and isinstance(e.value, int)}))
        for vals in itertools.product(*written):
            o = [None] * len(keys)
            for i, v in zip(reg_cols, regs):
                o[i] = v
            for i, v in zip(loc_cols, vals):
                o[i] = v
            o = tuple(o)
            if o in res.witnesses or not eval_formula(res.condition.formula, dict(zip(keys, o))):
                continue
            out.append(Obligation("forbidden", odict(o), candidates=[
                from_candidate(c, odict(o), observed, final(o), open_co=True) for c in cands],
                satisfies_condition=True))
    return out
