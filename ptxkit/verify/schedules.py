"""The other schedules of a launch whose control flow depends on atomic RMW results (PTX ISA §8,
§9.7.13.5 ``atom``): the "last block" ticket, a work counter whose returned index is used.

``verify.check`` decides one observed execution and says ``inconclusive`` when a strong read whose
result is used reads another thread's write (``Outcome.dependent``). When every such read is an
``atom`` on one location L, every write of L is an ``atom`` (a strong RMW), at most one thread per
CTA performs one RMW on L, and the launch has no clusters, this module runs one execution per order
of those RMWs and decides all of them.

Soundness (DRF theorem of the PTX model, ISA §8: a program whose SC executions are race-free has
only SC executions). Let T be the RMW threads of L and E any SC execution; its coherence order of
the RMWs on L is a sequence σ of threads of T (RMWs on one location are totally ordered and read
their predecessor, ISA §8.5 atomicity). Every read of E takes its value from (a) the happens-before
latest write (weak reads of a race-free execution), (b) the thread's own writes or a recognised await
loop (``verify.schedule``: the same in every schedule), or (c) its position in σ (the RMWs on L). By
induction along E, E performs the same accesses with the same values as the simulated run R_σ forced
to the order σ — provided R_σ is race-free, has no other schedule-dependent read and the same RMW
threads T (checked for every run; otherwise ``inconclusive``). So when all |T|! runs are race-free
and well-synchronized, every SC execution is one of them (no race: the DRF theorem gives the rest);
equal outputs in all runs → ``verified``, two runs that differ → ``different`` with both orders as
the witness. More than ``max_schedules`` orders, or an order the simulator did not realise (the
observed order is checked, not assumed) → ``inconclusive``.

The order is forced by the least invasive knob of the simulator: the CTA order of the launch
(``run_kernel(cta_order=…)``): lanes of a batch apply an ``atom`` in slot order and batches run one
after another, so the RMW CTAs taking the slots in the order σ perform their RMWs in σ when they
reach the ``atom`` together; every run's observed order is read back from its accesses.

The runs are independent: ``jobs`` > 1 spreads them over a ``multiprocessing`` pool, ``ray`` (an
address for ``ray.init``; ray is optional and imported only then) over a Ray cluster.
"""

from __future__ import annotations

import itertools
import math
import time
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from ptxkit.errors import UsageError
from ptxkit.verify.check import Launch, Outcome, verify_launch
from ptxkit.verify.context import SPACE_SHARED
from ptxkit.workers import fork_map

DEFAULT_MAX_SCHEDULES = 720  # 6! : the RMW orders of six CTAs


@dataclass(frozen=True)
class Plan:
    """What is explored: the orders of the RMWs on ``key`` by ``threads``, one in each of ``ctas``."""

    key: int
    ctas: tuple[int, ...]
    line: int
    threads: tuple[int, ...] = ()


@dataclass
class Run:
    """One forced order's result (what a worker sends back)."""

    order: tuple[int, ...]  # the CTA order the launch was forced to
    verdict: str
    reason: str
    observed: tuple[int, ...]  # the CTAs of the RMWs on the plan's location, in coherence order
    buffers: dict[str, np.ndarray]


def plan_of(launch: Launch, out: Outcome) -> Plan | str:
    """The exploration plan of an inconclusive outcome with dependent reads, or why none applies."""
    tab, ctx = out.table, out.ctx
    if tab is None or ctx is None or not out.dependent:
        return out.reason
    if launch.cluster != (1, 1, 1):
        return out.reason + " (clusters: the RMW orders are not explored)"
    keys: set[int] = set()
    for e in out.dependent:
        info = ctx.events[e]
        if not info.opcode.startswith("atom"):
            return out.reason
        keys.update(tab.key[tab.ev == e].tolist())
    if len(keys) != 1:
        return out.reason + " (RMWs on several locations: their orders are not explored)"
    key = keys.pop()
    if key & SPACE_SHARED:
        return out.reason + " (a shared-memory RMW: its orders within a CTA are not explored)"
    size = int(tab.size[(tab.key == key)].max())
    near = (tab.key > key - 8) & (tab.key < key + size)
    if ((tab.key[near] != key) | (tab.size[near] != size)).any():
        return out.reason + " (partly overlapping accesses of the RMW location)"
    wr = np.flatnonzero((tab.key == key) & tab.write)
    if not all(ctx.events[int(e)].opcode.startswith("atom") for e in np.unique(tab.ev[wr]).tolist()):
        return out.reason + " (a plain store to the RMW location: its orders are not explored)"
    threads = tab.thread[wr]
    ctas = threads // ctx.cta_threads
    if len(np.unique(threads)) != len(threads) or len(np.unique(ctas)) != len(ctas):
        return out.reason + " (several RMWs per thread or per CTA on the location: not explored)"
    line = ctx.events[out.dependent[0]].line
    return Plan(key, tuple(sorted(int(c) for c in ctas)), line, tuple(sorted(int(t) for t in threads)))


def observed_order(out: Outcome, key: int) -> tuple[int, ...]:
    """The CTAs of the writes of ``key`` in observation order (= coherence order of RMWs)."""
    tab, ctx = out.table, out.ctx
    if tab is None or ctx is None:
        return ()
    wr = np.flatnonzero((tab.key == key) & tab.write)
    wr = wr[np.lexsort((tab.pos[wr], tab.ev[wr]))]
    return tuple(int(c) for c in (tab.thread[wr] // ctx.cta_threads).tolist())


def forced(plan: Plan, perm: tuple[int, ...], ncta: int) -> tuple[int, ...]:
    """The CTA order that puts the RMW CTAs in the order ``perm`` (the others after them)."""
    rest = [c for c in range(ncta) if c not in set(perm)]
    return (*perm, *rest)


def run_order(launch: Launch, plan: Plan, order: tuple[int, ...]) -> Run:
    """Verify the launch forced to the CTA order ``order`` (a worker's job)."""
    out = verify_launch(replace(launch, cta_order=order))
    verdict, reason = out.verdict, out.reason
    if verdict == "inconclusive" and out.dependent:
        p = plan_of(launch, out)
        if p == plan:
            verdict, reason = "verified", ""
        else:
            reason = f"under CTA order {list(order)}: {p if isinstance(p, str) else 'other RMW threads'}"
    bufs = out.result.buffers if out.result is not None else {}
    return Run(order, verdict, reason, observed_order(out, plan.key), dict(bufs))


_LAUNCH: list[tuple[Launch, Plan]] = []  # a pool worker's job context (set by the initializer)


def _job(order: tuple[int, ...]) -> Run:
    launch, plan = _LAUNCH[0]
    return run_order(launch, plan, order)


def _run_all(launch: Launch, plan: Plan, orders: list[tuple[int, ...]], jobs: int,
             ray_address: str | None) -> list[Run]:
    if ray_address is not None:
        try:
            import ray  # optional: a distributed engine for the runs (issue 11)
        except ImportError:
            raise UsageError("--ray: the 'ray' package is not installed (pip install ray)") from None
        ray.init(address=ray_address, ignore_reinit_error=True)
        task = ray.remote(run_order)
        runs: list[Run] = ray.get([task.remote(launch, plan, o) for o in orders])
        return runs
    if jobs > 1 and len(orders) > 1:
        _LAUNCH[:] = [(launch, plan)]  # the forked workers see it (ptxkit.workers)
        try:
            return fork_map(_job, orders, min(jobs, len(orders)))
        finally:
            _LAUNCH.clear()
    return [run_order(launch, plan, o) for o in orders]


def explore(launch: Launch, out: Outcome, max_schedules: int = DEFAULT_MAX_SCHEDULES, jobs: int = 1,
            ray_address: str | None = None) -> Outcome:
    """Decide an outcome that is inconclusive because of RMW results (module docstring); any other
    outcome comes back unchanged."""
    if out.verdict != "inconclusive" or not out.dependent:
        return out
    plan = plan_of(launch, out)
    if isinstance(plan, str):
        return out
    k = len(plan.ctas)
    total = math.factorial(k)
    stats: dict[str, Any] = dict(out.stats, rmw_line=plan.line, rmw_ctas=list(plan.ctas), schedules=total)
    if total > max_schedules:
        out.reason = (f"line {plan.line}: the results of {k} RMWs steer the kernel; their {total} orders "
                      f"exceed --max-schedules {max_schedules}")
        out.stats = stats
        return out
    ncta = launch.grid[0] * launch.grid[1] * launch.grid[2]
    orders = [forced(plan, p, ncta) for p in itertools.permutations(plan.ctas)]
    t0 = time.perf_counter()
    runs = _run_all(launch, plan, orders, jobs, ray_address)
    stats["explore_s"] = round(time.perf_counter() - t0, 3)  # the runs of every order, all workers
    for r in runs:
        if r.verdict != "verified":
            bad = verify_launch(replace(launch, cta_order=r.order))  # the full witness, in this process
            if r.verdict == "inconclusive":
                bad.verdict, bad.reason = "inconclusive", r.reason
            else:
                bad.reason = f"under CTA order {list(r.order)} (RMW order {list(r.observed)}): {bad.reason}"
            bad.stats = dict(stats, **bad.stats, cta_order=list(r.order))
            return bad
    seen = {r.observed for r in runs}
    missing = [p for p in itertools.permutations(plan.ctas) if p not in seen]
    if missing:
        out.reason = (f"line {plan.line}: the simulator did not realise the RMW order "
                      f"{list(missing[0])} (CTAs): not every schedule was checked")
        out.stats = stats
        return out
    base = runs[0]
    for r in runs[1:]:
        for name, buf in base.buffers.items():
            other = r.buffers.get(name)
            if other is None or other.tobytes() == buf.tobytes():
                continue
            a, b = buf.view(np.uint8), other.view(np.uint8)
            i = int(np.flatnonzero(a != b)[0]) // max(buf.itemsize, 1)
            diff = {"buffer": name, "index": i, "schedules": [list(base.observed), list(r.observed)],
                    "cta_orders": [list(base.order), list(r.order)],
                    "values": [buf[i].item(), other[i].item()]}
            out.verdict = "different"
            out.reason = (f"{name}[{i}] depends on the order of the RMWs at line {plan.line}: "
                          f"{buf[i].item()} when the CTAs' RMWs come in order {list(base.observed)}, "
                          f"{other[i].item()} in order {list(r.observed)}")
            out.stats = dict(stats, difference=diff)
            return out
    out.verdict = "verified"
    out.reason = (f"line {plan.line}: the RMW results steer the kernel; all {total} orders of the RMWs "
                  f"of CTAs {list(plan.ctas)} are race-free, well-synchronized and give the same outputs "
                  "(DRF theorem, ISA §8)")
    out.stats = stats
    return out
