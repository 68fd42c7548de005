"""The oracle-driven explorer behind `ptxkit explore` (PTX ISA §8, Memory Consistency Model).

Pipeline for a :class:`ConcurrentProgram`:

1. **Values** — every thread runs alone under an oracle (``ptxkit.explore.oracle``); the values a
   read may return start as the initial values and grow with every value some run writes, to a
   fixpoint (bounded: hitting a bound makes the result incomplete). Local instructions run on the
   simulator's semantics (one execution core); ``shfl.sync`` results are oracle-supplied like loads
   (the value the source lane offers), and combinations of traces must agree on them.
2. **Traces** — each thread's runs under the final value sets: events in program order with values,
   dependencies, barrier ids, final registers. Loops are unrolled to ``unroll``; spin iterations
   are pruned (see ``oracle``).
3. **Candidates** — one trace per thread; a read must be able to read its value from some write of
   the same physical location (else the combination is dropped early). Then every reads-from choice,
   every barrier schedule (``bar.cta.sync/arrive`` instances, ISA §9.7.13.1; a combination whose
   barriers deadlock has no execution), every Fence-SC order (§8.9.3, only the order among morally
   strong ``fence.sc`` pairs matters; duplicates dropped).
4. **Check** — the project's model ``ptxkit.consistency`` decides each candidate: partial rf choices
   are pruned with ``may_extend`` (its monotone checks), complete ones are decided by
   ``consistency.enumerate.search_co``, which searches a *partial* coherence order (§8.9.6) and
   returns the violated axiom otherwise. The barrier schedule is passed as explicit
   synchronizes-with edges (``Execution.bar_sync``), the Fence-SC order as ``sc_order``.

The result (:class:`ExploreResult`) keeps, for the proof/graph exporters, the program, the candidate
executions per outcome (``candidates_by_outcome``: list of :class:`Candidate`, capped at
``keep_candidates`` each) and one consistent witness per outcome (``witnesses``).
"""


from __future__ import annotations

import itertools
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Hashable, Iterable, Iterator
from typing import Any

from ptxkit.consistency import relations as _rels
from ptxkit.consistency.enumerate import search_co
from ptxkit.consistency.events import Execution
from ptxkit.consistency.models import MODELS, CheckResult, get_model, may_extend, sc_orders
from ptxkit.consistency.relations import Base, Relations
from ptxkit.errors import PtxkitError
from ptxkit.explore.access import resolve
from ptxkit.explore.condition import Loc, evaluate, operands
from ptxkit.explore.condition import Reg as RegOf  # Pn:reg of a condition (ptxkit.ir.Reg: an operand)
from ptxkit.explore.oracle import ThreadRunner
from ptxkit.explore.program import ConcurrentProgram, Condition, ThreadProgram
from ptxkit.explore.result import Candidate, ExploreResult, Outcome, to_events
from ptxkit.explore.schedule import Schedules, barrier_schedules
from ptxkit.explore.trace import Dep, Ev, OracleKey, RunStats, Trace, Value, fmt_instruction
from ptxkit.ir import Instruction, Reg
from ptxkit.workers import fork_map

MAX_VALUES = 64
MAX_TRACES = 5000
PRUNE_MIN_LEAVES = 8  # check a partial rf choice when at least this many completions hang below it


class SearchCut(Exception):
    """A bound (``--timeout``) cut the search; the message says which."""

# ---------------------------------------------------------------------------- the explorer

def wind_down(timeout: float) -> float:
    """Seconds before ``--timeout`` at which the search stops, so that merging the workers' counts
    and printing fit in S too on a loaded machine (a 2 s timeout took 2.57 s under a parallel test
    suite on 2 cores)."""
    return min(0.2, 0.1 * timeout)


class Explorer:
    def __init__(self, prog: ConcurrentProgram, model: str = "ptx-7.5", unroll: int = 4,
                 max_executions: int | None = None, timeout: float | None = None,
                 condition: Condition | None = None, keep_candidates: int | None = 8,
                 progress: Callable[[int, int], None] | None = None, started: float | None = None):
        """``timeout`` counts from ``started`` (a ``time.monotonic()`` value; default: ``run``)."""
        if model not in MODELS:
            raise PtxkitError(f"unknown model {model!r} (expected one of {', '.join(MODELS)})")
        self.prog = prog
        self.model = model
        self.m = get_model(model)
        self.unroll = unroll
        self.max_executions = max_executions
        self.timeout = timeout
        self.started = started
        self.cond = condition if condition is not None else prog.condition
        self.keep = keep_candidates
        self._sched_cache: dict[Hashable, Schedules] = {}
        self._static_cache: dict[Hashable, Base] = {}
        self._undefined = ""  # why some combination of traces had no defined behaviour
        self._cut = ""        # why the barrier-schedule search of some candidate was cut
        self._deadlock: list[str] = []  # a witness: the stuck barriers of one deadlocking candidate
        self.deadline: float | None = None
        self.pruned = 0  # candidate executions never built: a partial choice was already inconsistent
        self.progress = progress
        if self.cond is not None:  # every name must exist; kernel registers spelled as declared
            self.cond = prog.resolve_condition(self.cond)
        ops: list[RegOf | Loc] = operands(self.cond.formula) if self.cond else []
        if self.cond and self.cond.filter is not None:
            ops += operands(self.cond.filter)
        if not ops:  # no condition: every register and location is part of the outcome
            if prog.semantics != "ptx":
                ops = [RegOf(th.index, r) for th in prog.threads for r in sorted(_thread_regs(th))]
            ops += [Loc(n) for n, l in sorted(prog.locations.items())
                    if l.alias_of is None and l.space != "shared"]
        seen: set[str] = set()
        self.ops: list[RegOf | Loc] = []
        for o in ops:
            if o.key not in seen:
                seen.add(o.key)
                self.ops.append(o)
        self.keys = [o.key for o in self.ops]
        self.final_locs = frozenset(self._root(o.key) for o in self.ops if isinstance(o, Loc))

    def _root(self, name: str) -> str:
        return resolve(self.prog.locations, name)[0]

    # ------------------------------------------------------------------ phase 1+2
    def traces(self, stats: RunStats) -> list[list[Trace]]:
        prog = self.prog
        runners = []
        for th in prog.threads:
            live = {o.name for o in self.ops if isinstance(o, RegOf) and o.thread == th.index}
            runners.append(ThreadRunner(prog, th, live, self.unroll))
        values: dict[OracleKey, set[Value]] = {}
        for n in prog.locations:
            root = resolve(prog.locations, n)[0]
            values.setdefault(root, set()).add(prog.locations[root].initial)
        # Values form chains write → read → dependent write; No-Thin-Air (acyclic rf ∪ dep) bounds a
        # chain by the number of writes of one execution, so D+1 rounds (D = the most writes any
        # combination of traces performs) reach every value; a fixpoint may come sooner.
        # shfl.sync (real kernels): the values lane L offers at its k-th shfl.sync, keyed
        # ('shfl', cta, warp, k, L), grow the same way (an exchange is one more link of a chain,
        # its dependency crosses threads, so D counts the offers too)
        offered: dict[tuple[object, ...], set[Value]] = defaultdict(set)
        rnd = 0
        while True:
            rnd += 1
            frozen = {k: sorted(v, key=_vkey) for k, v in values.items()}

            def oracle(loc: OracleKey, frozen: dict[OracleKey, list[Value]] = frozen) -> list[Value]:
                return frozen.get(loc, [0] if isinstance(loc, str) else [])

            all_tr = [r.run(oracle, stats, lambda key, v: offered[key].add(v)) for r in runners]
            grown = False
            depth = 0
            # shfl.sync offers per thread (a path waiting for an offer made its own before it stopped)
            n_offers: dict[tuple[object, ...], int] = defaultdict(int)
            for sk in offered:
                k3 = sk[3]
                assert isinstance(k3, int)  # ('shfl', cta, warp, k, lane)
                n_offers[(sk[1], sk[2], sk[4])] = max(n_offers[(sk[1], sk[2], sk[4])], k3 + 1)
            for r, trs in zip(runners, all_tr):
                if len(trs) > MAX_TRACES:
                    stats.cut, stats.cut_reason = True, "too many thread traces"
                    return all_tr
                th = r.th
                offers = n_offers.get((th.cta, th.init_regs.get("%warpid"), th.init_regs.get("%laneid")), 0)
                depth += max((sum(e.kind == "W" for e in tr.events) + max(len(tr.shfl_out), offers)
                              for tr in trs), default=offers)
                for tr in trs:
                    for e in tr.events:
                        if e.kind == "W" and e.loc is not None and e.value is not None \
                                and e.value not in values.setdefault(e.loc, set()):
                            values[e.loc].add(e.value)
                            grown = True
            for sk, vs in offered.items():
                if not vs <= values.setdefault(sk, set()):
                    values[sk] |= vs
                    grown = True
            if not grown or rnd > depth:
                return all_tr
            if any(len(v) > MAX_VALUES for v in values.values()):
                stats.cut, stats.cut_reason = True, f"more than {MAX_VALUES} values per location"
                return all_tr

    # ------------------------------------------------------------------ phase 3+4
    def run(self, jobs: int = 1) -> ExploreResult:
        """Explore; ``jobs > 1`` splits the trace combinations (independent branches of the search)
        over worker processes and merges their counts."""
        t0 = time.monotonic()
        self.deadline = None if self.timeout is None else (self.started or t0) + self.timeout - wind_down(self.timeout)
        stats = RunStats(deadline=self.deadline)
        res = ExploreResult(self.prog, self.model, self.keys, Counter(), condition=self.cond,
                            keep_candidates=self.keep)
        per_thread = self.traces(stats)
        n_combos = 1
        for trs in per_thread:
            n_combos *= len(trs)
        if jobs > 1 and n_combos > 1:
            self._run_parallel(per_thread, res, min(jobs, n_combos))
        else:
            self._explore(self.combinations(per_thread), res)
        if stats.cut:
            res.complete = False
            res.reason = res.reason or stats.cut_reason
        for why in (self._undefined, self._cut):
            if why:
                res.complete = False
                res.reason = res.reason or why
        res.spins_pruned = stats.spins_pruned
        res.pruned = self.pruned
        if res.complete and res.consistent == 0:
            res.stuck = self._stuck(per_thread, stats, res)
        res.verdict = self._verdict(res)
        res.elapsed = time.monotonic() - t0
        return res

    def combinations(self, per_thread: list[list[Trace]]) -> Iterator[tuple[Trace, ...]]:
        """One trace per thread, depth first, dropping a prefix as soon as one of its reads wants a
        (location, value) that neither the initial memory, nor the chosen traces, nor any trace of
        a thread still to choose can write (a sound early cut: such a read has no rf candidate)."""
        init = {(resolve(self.prog.locations, n)[0], l.initial) for n, l in self.prog.locations.items()}
        writes = [[frozenset((e.loc, e.value) for e in tr.events if e.kind == "W") for tr in trs]
                  for trs in per_thread]
        needs = [[frozenset((e.loc, e.value) for e in tr.events if e.kind == "R") - init for tr in trs]
                 for trs in per_thread]
        k = len(per_thread)
        later: list[frozenset[tuple[str | None, Value | None]]] = [frozenset()] * (k + 1)  # writes of threads i..
        for i in range(k - 1, -1, -1):
            later[i] = later[i + 1].union(*writes[i]) if writes[i] else later[i + 1]
        if k == 0:
            yield ()
            return
        # depth-first without recursion (a kernel may have a thousand threads)
        chosen: list[Trace] = []
        haves: list[frozenset[tuple[str | None, Value | None]]] = [frozenset()]
        wants: list[frozenset[tuple[str | None, Value | None]]] = [frozenset()]
        nxt = [0]  # per depth: the next trace to try
        while nxt:
            i, j = len(nxt) - 1, nxt[-1]
            if j >= len(per_thread[i]):
                nxt.pop()
                if chosen:
                    chosen.pop()
                    haves.pop()
                    wants.pop()
                continue
            nxt[-1] += 1
            self._poll()
            tr = per_thread[i][j]
            h, w = haves[-1] | writes[i][j], wants[-1] | needs[i][j]
            if not w <= h | later[i + 1]:
                continue
            if (tr.shfl_in or tr.shfl_out) and not self._shfl_agree(chosen, tr):
                continue
            if i + 1 == k:
                if w <= h:
                    yield (*chosen, tr)
                continue
            chosen.append(tr)
            haves.append(h)
            wants.append(w)
            nxt.append(0)

    def _shfl_agree(self, chosen: list[Trace], tr: Trace) -> bool:
        """Do ``tr``'s shfl.sync exchanges agree with the traces already chosen (threads 0 … i-1)?
        A lane that received v from lane j at its k-th shfl.sync needs j's k-th shfl.sync to offer
        v. A source lane that never reaches its k-th shfl.sync leaves the value undefined (ISA
        shfl.sync): such a combination is skipped and the exploration marked incomplete."""
        i = len(chosen)
        pairs = [(tr, k, src, v, ins) for k, src, v, ins in tr.shfl_in if src < i]
        pairs += [(c, k, src, v, ins) for c in chosen for k, src, v, ins in c.shfl_in if src == i]
        for _recv, k, src, v, ins in pairs:
            giver = tr if src == i else chosen[src]
            if k >= len(giver.shfl_out):
                self._undefined = f"P{giver.tid} does not reach the shfl.sync lane {_recv.tid} reads " \
                                  f"from it ({fmt_instruction(ins)}): undefined"
                return False
            if giver.shfl_out[k][1] != v:
                return False
        return True

    def _stuck(self, per_thread: list[list[Trace]], stats: RunStats, res: ExploreResult) -> str:
        """Why a complete search found no consistent execution at all (the program deadlocks or
        never terminates in every schedule), with a witness."""
        for th, trs in zip(self.prog.threads, per_thread):
            if not trs:
                loop = stats.spin_at.get(th.index)
                if loop is not None:
                    return f"P{th.index} never terminates: every run spins in the loop at {loop} forever " \
                           "(no write it can read lets it leave)"
                return f"P{th.index} has no complete run (every run needs a value no write provides)"
        if self._deadlock:
            return "every barrier schedule deadlocks, e.g. " + "; ".join(self._deadlock)
        if res.candidates == 0:
            return "no combination of thread runs can read every value it reads from some write"
        return f"none of the {res.candidates} candidate executions is consistent (a thread waits for a " \
               "value only an inconsistent execution provides)"

    def _poll(self) -> None:
        """Stop the search (``SearchCut``) once ``--timeout`` has passed; called at every step of
        every phase (trace combinations, barrier schedules, rf choices, coherence orders)."""
        if self.deadline is not None and time.monotonic() > self.deadline:
            raise SearchCut(f"--timeout {self.timeout:g}s reached")

    def _explore(self, combos: Iterator[tuple[Trace, ...]], res: ExploreResult) -> None:
        inits = self._init_events()
        try:
            for combo in combos:
                for cand in self._candidates(combo, inits):
                    # one candidate whose final memory depends on the coherence order counts once per
                    # distinct final state (each is an execution of its own)
                    n = len(cand) if isinstance(cand, list) else 1
                    if self.max_executions is not None and res.candidates + n > self.max_executions:
                        # a candidate beyond the bound exists: the search is cut (K candidates in
                        # all is a complete search)
                        res.complete, res.reason = False, f"--max-executions {self.max_executions} reached"
                        return
                    res.candidates += n
                    if self.progress is not None and res.candidates % 64 == 0:
                        self.progress(res.candidates, res.consistent)
                    self._record(res, cand)
        except SearchCut as cut:
            res.complete, res.reason = False, str(cut)

    def _run_parallel(self, per_thread: list[list[Trace]], res: ExploreResult, jobs: int) -> None:
        global _JOB
        progress, self.progress = self.progress, None
        _JOB = (self, per_thread, jobs)
        try:
            parts = fork_map(_worker, range(jobs), jobs)
        finally:
            _JOB = None
            self.progress = progress
        for p, cut, undefined, deadlock in parts:
            res.pruned += p.pruned
            res.candidates += p.candidates
            res.consistent += p.consistent
            res.consistent_filtered += p.consistent_filtered
            res.satisfied += p.satisfied
            res.outcomes.update(p.outcomes)
            for k, w in p.witnesses.items():
                res.witnesses.setdefault(k, w)
            res.candidates_capped |= p.candidates_capped
            for k, lst in p.candidates_by_outcome.items():
                mine = res.candidates_by_outcome[k]
                room = len(lst) if self.keep is None else max(0, self.keep - len(mine))
                res.candidates_capped |= room < len(lst)
                mine.extend(lst[:room])
            if not p.complete:
                res.complete, res.reason = False, res.reason or p.reason
            self._cut, self._undefined = self._cut or cut, self._undefined or undefined
            self._deadlock = self._deadlock or deadlock
        if self.max_executions is not None and res.candidates > self.max_executions and res.complete:
            res.complete, res.reason = False, f"--max-executions {self.max_executions} reached"

    def _verdict(self, res: ExploreResult) -> str:
        if not res.complete:
            return "Inconclusive"
        if res.stuck:  # no execution at all: a condition over none would hold vacuously
            return "NoExecution"
        if self.cond is None:
            return "Ok"
        q = self.cond.quantifier
        if q == "exists":
            return "Ok" if res.satisfied > 0 else "No"
        if q == "not exists":
            return "Ok" if res.satisfied == 0 else "No"
        return "Ok" if res.satisfied == res.consistent_filtered else "No"

    def _record(self, res: ExploreResult, cand: Candidate | list[Candidate]) -> None:
        for c in (cand if isinstance(cand, list) else [cand]):
            assert c.outcome is not None  # set by _decide
            if c.consistent:
                res.consistent += 1
                env = dict(zip(self.keys, c.outcome or ()))
                passes = True
                if self.cond is not None and self.cond.filter is not None:
                    passes = evaluate(self.cond.filter, env)
                if passes:
                    res.outcomes[c.outcome] += 1
                    res.consistent_filtered += 1
                    if self.cond is not None and evaluate(self.cond.formula, env):
                        res.satisfied += 1
                res.witnesses.setdefault(c.outcome, c)
            lst = res.candidates_by_outcome[c.outcome]
            if self.keep is None or len(lst) < self.keep:
                lst.append(c)
            else:  # the exporters must know: a cut list proves nothing forbidden
                res.candidates_capped = True

    def _init_events(self) -> list[Ev]:
        out = []
        for n, l in self.prog.locations.items():
            if l.alias_of is None:
                out.append(Ev("W", -1, loc=n, vaddr=n, value=l.initial, init=True, sem="weak"))
        return out

    def _candidates(self, combo: tuple[Trace, ...], inits: list[Ev]) -> Iterator[Candidate | list[Candidate]]:
        # an initial write only for the locations this combination accesses or the outcome observes:
        # a location no event touches adds no relation, only n² work (a large kernel buffer)
        touched = {e.loc for tr in combo for e in tr.events if e.kind in ("R", "W")} | self.final_locs
        events: list[Ev] = [e for e in inits if e.loc in touched]
        base: list[int] = []
        for tr in combo:
            base.append(len(events))
            events.extend(tr.events)
        # reads-from candidates: same physical location and value; never a po-later write
        writes_by_loc: dict[str, list[int]] = defaultdict(list)
        for i, e in enumerate(events):
            if e.kind == "W" and e.loc is not None:
                writes_by_loc[e.loc].append(i)
        reads = [i for i, e in enumerate(events) if e.kind == "R"]
        choices = []
        for r in reads:
            er = events[r]
            opts = [w for w in writes_by_loc[er.loc or ""] if events[w].value == er.value
                    and not (events[w].tid == er.tid and w >= r)]
            if not opts:
                return  # early prune: this combination of traces is impossible
            choices.append(opts)
        # thread-local relations (ISA §8.10.4 dependencies: data/address vs control)
        tidx = {tr.tid: k for k, tr in enumerate(combo)}
        rmw: set[tuple[int, int]] = set()
        data: set[tuple[int, int]] = set()
        ctrl: set[tuple[int, int]] = set()
        reach = _cross_deps(combo, base, tidx)
        for k, tr in enumerate(combo):
            b = base[k]
            for j, e in enumerate(tr.events):
                if e.rmw_read is not None:
                    rmw.add((b + e.rmw_read, b + j))
                for d in e.deps:
                    for x in reach(k, d):
                        data.add((x, b + j))
                for d in e.ctrl - e.deps:
                    for x in reach(k, d):
                        ctrl.add((x, b + j))
        bkey = tuple((i, e.tid, e.cta, e.gpu, e.bar) for i, e in enumerate(events) if e.fkind == "bar")
        sched = self._sched_cache.get(bkey)
        if sched is None:
            sched = self._sched_cache[bkey] = barrier_schedules(events, deadline=self.deadline)
        if not sched.complete:
            self._cut = self._cut or sched.reason
        if not sched.schedules:
            # every barrier schedule deadlocks: no execution (keep one witness)
            if sched.deadlock and not self._deadlock:
                self._deadlock = [_waiting(events[j], got, need) for j, got, need in sched.deadlock]
            return
        cevents = to_events(events)
        # initial writes are co-before every write of their location (grouped: kernels observe
        # thousands of locations, and a pairwise scan is quadratic in them)
        writes_at: dict[Hashable, list[int]] = {}
        for j, f in enumerate(cevents):
            if f.kind == "W" and not f.is_init:
                writes_at.setdefault(f.location, []).append(j)
        init_co = {(i, j) for i, e in enumerate(cevents) if e.is_init for j in writes_at.get(e.location, ())}
        skel = Execution(cevents, co=init_co, rmw=rmw, data=data, ctrl=ctrl)
        # the event-only relations do not depend on values: share them between combinations
        skey = tuple((e.kind, e.tid, e.loc, e.vaddr, e.proxy, e.sem, e.scope, e.fkind, e.init, e.bar)
                     for e in events)
        st = self._static_cache.get(skey)
        if st is None:
            st = self._static_cache[skey] = _rels.static_relations(skel, self.m)
        # Fence-SC orders (§8.9.3): only the order among morally strong fence.sc pairs matters
        sf_list = sc_orders(st)
        regs_env = {}
        for o in self.ops:
            if isinstance(o, RegOf):  # a register the thread never wrote keeps its initial value (0)
                tr = combo[tidx[o.thread]]
                regs_env[o.key] = tr.regs.get(o.name, self.prog.threads[o.thread].init_regs.get(o.name, 0))
        for sf in sf_list:
            for sb, inst in sched.schedules:
                sk = skel.with_(sc_order=set(sf), bar_sync=set(sb))
                for rf in self._rf_choices(st, sk, reads, choices):
                    yield self._decide(st, events, sk.with_(rf=rf), regs_env, inst)

    def _rf_choices(self, st: Base, skel: Execution, reads: list[int],
                    choices: list[list[int]]) -> Iterator[set[tuple[int, int]]]:
        """Reads-from choices, depth first. A partial choice is checked with the model's monotone
        checks (``ptxkit.consistency.may_extend``: they stay violated as rf edges are added) before its
        subtree is expanded, so a violation found there prunes all its completions at once."""
        rf: set[tuple[int, int]] = set()
        k = len(reads)
        # leaves below depth d: product of the remaining choice counts
        below = [1] * (k + 1)
        for d in range(k - 1, -1, -1):
            below[d] = below[d + 1] * len(choices[d])

        def rec(d: int) -> Iterator[set[tuple[int, int]]]:
            if d == k:
                yield set(rf)
                return
            r = reads[d]
            for w in choices[d]:
                self._poll()
                rf.add((w, r))
                if d + 1 < k and below[d + 1] >= PRUNE_MIN_LEAVES and self._doomed(st, skel.with_(rf=rf)):
                    self.pruned += below[d + 1]
                else:
                    yield from rec(d + 1)
                rf.discard((w, r))

        yield from rec(0)

    def _doomed(self, st: Base, partial: Execution) -> bool:
        return may_extend(partial, self.m, static=st) is not None

    def _decide(self, st: Base, events: list[Ev], ex: Execution, regs_env: dict[str, Value],
                inst: dict[int, int]) -> Candidate | list[Candidate]:
        def pairs(r: Relations | None) -> list[tuple[int, int]]:
            return sorted(r.co.pairs()) if r is not None else []
        base: dict[str, Any] = dict(
            events=events, rf=sorted(ex.rf), rmw=sorted(ex.rmw), dep=sorted(ex.data | ex.ctrl),
            data=sorted(ex.data), ctrl=sorted(ex.ctrl), sync_fence=sorted(ex.sc_order or ()),
            sync_barrier=sorted(ex.bar_sync or ()), barrier_instance=inst, model=self.model)
        outs: dict[tuple[Any, ...], Candidate] = {}
        last: CheckResult | None = None
        writes_of: dict[Hashable, list[int]] = {}  # location → its writes (the final value is co-last)
        for i, e in enumerate(events):
            if e.kind == "W":
                writes_of.setdefault(e.loc, []).append(i)
        # final values: coherence orders total on the observed locations (one outcome each)
        for v in search_co(ex, self.m, total_locs=self.final_locs, all_cos=bool(self.final_locs), static=st,
                           poll=self._poll):
            last = v
            if not v.consistent:
                continue
            assert v.relations is not None
            co = v.relations.co
            env = dict(regs_env)
            for o in self.ops:
                if isinstance(o, Loc):
                    ws = writes_of.get(self._root(o.key), [])
                    top = [w for w in ws if not any((w, x) in co for x in ws)]
                    value = events[top[0]].value
                    assert value is not None  # a write's value
                    env[o.key] = value
            out = _outcome(env.get(k) for k in self.keys)
            outs.setdefault(out, Candidate(**base, consistent=True, co=pairs(v.relations), outcome=out))
        if outs:
            return list(outs.values()) if self.final_locs else next(iter(outs.values()))
        out = _outcome(regs_env.get(k, "?") for k in self.keys)
        viol = last.violations[0] if last is not None and last.violations else None
        return Candidate(**base, consistent=False, axiom=viol.axiom if viol else None, violation=viol,
                         co=pairs(last.relations) if last is not None else [], outcome=out)


_JOB: tuple[Explorer, list[list[Trace]], int] | None = None  # (explorer, traces, jobs) for forked workers


def _worker(k: int) -> tuple[ExploreResult, str, str, list[str]]:
    assert _JOB is not None
    ex, per_thread, jobs = _JOB
    res = ExploreResult(ex.prog, ex.model, ex.keys, Counter(), condition=ex.cond, keep_candidates=ex.keep)
    # worker k takes every jobs-th combination of thread traces (independent subtrees)
    ex._explore(itertools.islice(ex.combinations(per_thread), k, None, jobs), res)
    res.pruned = ex.pruned
    res.candidates_by_outcome = dict(res.candidates_by_outcome)
    return res, ex._cut, ex._undefined, ex._deadlock


def _waiting(e: Ev, got: int, need: int | None) -> str:
    """One stuck barrier of a deadlock witness, e.g. ``P1 waits at bar.cta.sync 1, 1, 4 (line 7):
    2 of 4 arrivals``."""
    line = f" (line {e.instr.span.line})" if e.instr is not None and e.instr.span is not None else ""
    text = fmt_instruction(e.instr) if e.instr is not None else "a barrier"
    of = f"{got} of {need} arrivals" if need is not None else f"{got} thread(s) arrived"
    return f"P{e.tid} waits at {text}{line}: {of}"


def _cross_deps(combo: tuple[Trace, ...], base: list[int],
                tidx: dict[int, int]) -> Callable[[int, Dep], frozenset[int]]:
    """``reach(k, d)``: the event indices a dependency entry ``d`` of thread ``combo[k]`` stands for —
    a local read index, or ``('shfl', n)``: the value received at its n-th shfl.sync, which depends
    on whatever the source lane's shuffled register depended on (in turn, possibly, received)."""
    memo: dict[tuple[int, Dep], frozenset[int]] = {}

    def reach(k: int, d: Dep) -> frozenset[int]:
        if isinstance(d, int):
            return frozenset((base[k] + d,))
        key = (k, d)
        got = memo.get(key)
        if got is None:
            _, n = d
            src = next(s for kk, s, _v, _i in combo[k].shfl_in if kk == n)
            ks = tidx[src]
            out: set[int] = set()
            for x in combo[ks].shfl_out[n][2]:
                out |= reach(ks, x)
            got = memo[key] = frozenset(out)
        return got
    return reach


def _vkey(v: Value) -> tuple[bool, Value, str]:
    return (isinstance(v, str), v if not isinstance(v, str) else 0, str(v))


def _thread_regs(th: ThreadProgram) -> set[str]:
    regs = set(k for k in th.init_regs)
    for s in th.body:
        if isinstance(s, Instruction) and s.opcode != "setp" and s.operands and isinstance(s.operands[0], Reg) \
                and s.opcode in ("mov", "add", "sub", "mul", "div", "and", "or", "xor", "ld", "tld", "suld",
                                 "atom", "suatom"):
            regs.add(s.operands[0].name)
    return regs


def explore(prog: ConcurrentProgram, model: str = "ptx-7.5", **kw: Any) -> ExploreResult:
    """Explore every execution of ``prog`` under ``model`` (see :class:`Explorer`)."""
    return Explorer(prog, model, **kw).run()


def _outcome(values: Iterable[Value | None]) -> Outcome:
    """Final values as an outcome row: integers and location names (litmus ``&x``) as they are; a
    kernel address as its text; a value nothing fixed as '?'."""
    return tuple(v if isinstance(v, (int, str)) else "?" if v is None else str(v) for v in values)
