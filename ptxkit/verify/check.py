"""One verification: run the launch under observation, then decide (see docs/cli.md ``verify``).

Soundness argument (PTX ISA §8, the DRF theorem of the PTX model: a program whose sequentially
consistent executions are all race-free has only sequentially consistent executions):

1. The simulator runs one SC execution E (lock-step warps, CTAs side by side). The rules compute
   happens-before of E (program order per thread — lanes of a warp are separate threads —, barrier
   phases, release/acquire patterns through morally strong observation) without extra edges, so a race
   reported in E is a race of an SC execution of the program: ``race`` is always a true witness.
2. ``verified`` needs every SC execution race-free. Every SC execution performs the same accesses as E
   with the same values *unless* some thread reads a value another thread wrote through a strong
   (synchronising) read whose result the program uses (weak reads in a race-free execution read the
   unique happens-before-latest write, which the same happens-before gives in every schedule).
   ``verify.schedule`` finds those reads; when there are any the verdict here is ``inconclusive``
   (``verify.schedules`` then explores the other orders of atomic RMWs where it can), never ``verified``.
3. Barrier misuse (divergence, count mismatch), deadlock and the async rules give
   ``not-well-synchronized``; a cut bound (steps, bookkeeping, pairs) gives ``inconclusive``.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ptxkit import ir
from ptxkit.errors import BoundExceeded
from ptxkit.exec_sim.args import KernelArg
from ptxkit.exec_sim.launch import DEFAULT_MAX_STEPS, RunResult, run_kernel
from ptxkit.exec_sim.machine import Deadlock
from ptxkit.exec_sim.memory import GLOBAL_BASE
from ptxkit.verify.async_rules import async_rules
from ptxkit.verify.context import SPACE_SHARED, Context, Finding, Rule
from ptxkit.verify.races import Race, Table, find_races
from ptxkit.verify.rules import default_rules
from ptxkit.verify.schedule import dependent_reads, timer_read

VERDICTS = ("verified", "race", "not-well-synchronized", "different", "inconclusive")


@dataclass
class Launch:
    """What ``ptxkit run`` takes: the kernel and its launch configuration."""

    module: ir.Module
    kernel: str | None
    args: list[KernelArg]
    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    shared_bytes: int = 0
    max_steps: int = DEFAULT_MAX_STEPS
    cluster: tuple[int, int, int] = (1, 1, 1)
    cta_order: tuple[int, ...] | None = None  # schedule knob (exec_sim.launch.run_kernel)


@dataclass
class Outcome:
    """The verdict and everything that explains it."""

    verdict: str
    reason: str = ""
    race: Race | None = None
    table: Table | None = None
    ctx: Context | None = None
    findings: list[Finding] = field(default_factory=list)
    result: RunResult | None = None
    stats: dict[str, Any] = field(default_factory=dict)
    dependent: list[int] = field(default_factory=list)  # events of schedule-dependent strong reads


def verify_launch(launch: Launch, extra_rules: list[Rule] | None = None) -> Outcome:
    """Observe one execution of ``launch`` and decide it (module docstring)."""
    t0 = time.perf_counter()
    nthreads = launch.block[0] * launch.block[1] * launch.block[2]
    ncta = launch.grid[0] * launch.grid[1] * launch.grid[2]
    ctx = Context(nthreads, ncta, default_rules() + async_rules() + list(extra_rules or []),
                  launch.cluster[0] * launch.cluster[1] * launch.cluster[2],
                  cluster_ids(launch.grid, launch.cluster))
    stats: dict[str, Any] = {"threads": nthreads * ncta}
    try:
        result = run_kernel(launch.module, launch.kernel, launch.args, launch.grid, launch.block,
                            launch.shared_bytes, max_steps=launch.max_steps, observer=ctx.observe,
                            cluster=launch.cluster, cta_order=launch.cta_order)
    except Deadlock as e:
        d = e.diagnostics[0]
        ctx.finish()
        f = Finding("deadlock", d.message, d.line, d.col)
        return Outcome("not-well-synchronized", d.message, ctx=ctx, findings=[*ctx.findings, f],
                       stats=_times(stats, t0))
    except BoundExceeded as e:
        return Outcome("inconclusive", e.diagnostics[0].message, ctx=ctx, stats=_times(stats, t0))
    ctx.finish()
    t1 = time.perf_counter()
    stats.update(events=ctx.seq, accesses=ctx.acc.count, clock_rows=ctx.clocks.nrows,
                 simulate_s=round(t1 - t0, 3))
    tab = Table.of(ctx.acc)
    try:
        races = find_races(tab, ctx.clocks, nthreads, ctx.cluster_of_cta)
    except BoundExceeded as e:
        return Outcome("inconclusive", e.diagnostics[0].message, table=tab, ctx=ctx, result=result,
                       stats=_times(stats, t0))
    out = Outcome("verified", table=tab, ctx=ctx, findings=list(ctx.findings), result=result, stats=stats)
    if ctx.findings:
        out.verdict, out.reason = "not-well-synchronized", ctx.findings[0].message
    elif races:
        out.verdict, out.race = "race", races[0]
        out.reason = "two conflicting accesses are not ordered by happens-before and not morally strong"
    else:
        init = _initial_values(launch, result)
        why = timer_read(launch.module)
        dep = [] if why else dependent_reads(launch.module, tab, ctx, init)
        if dep:
            why, out.dependent = dep[0][1], [e for e, _ in dep]
        if why:
            out.verdict, out.reason = "inconclusive", why
        else:
            out.reason = ("race-free in the observed execution, and no synchronising read whose value "
                          "is used reads another thread's write: every schedule performs the same "
                          "accesses (DRF theorem, ISA §8)")
    _times(stats, t0)
    return out


def _initial_values(launch: Launch, result: RunResult) -> Callable[[int, int], int | None]:
    """The launch-time value of a global location (a buffer argument's bytes); None otherwise
    (shared memory starts undefined, ISA §5.1.5)."""
    def init(key: int, size: int) -> int | None:
        if key & SPACE_SHARED:
            return None
        addr = GLOBAL_BASE + key
        for a in launch.args:
            base = result.addresses.get(a.name)
            if a.kind == "buffer" and base is not None and base <= addr and addr + size <= base + a.buffer.nbytes:
                raw = a.buffer.view(np.uint8)[addr - base:addr - base + size]
                return int.from_bytes(raw.tobytes(), "little")
        return None
    return init


def cluster_ids(grid: tuple[int, int, int], cluster: tuple[int, int, int]) -> np.ndarray:
    """The cluster of each CTA (linear ctaid, x fastest): clusters tile the grid (ISA §2.2.2)."""
    c = np.arange(grid[0] * grid[1] * grid[2])
    x, y, z = c % grid[0], (c // grid[0]) % grid[1], c // (grid[0] * grid[1])
    nx, ny = grid[0] // cluster[0], grid[1] // cluster[1]
    return np.asarray(x // cluster[0] + nx * (y // cluster[1] + ny * (z // cluster[2])), np.int64)


def _times(stats: dict[str, Any], t0: float) -> dict[str, Any]:
    stats["total_s"] = round(time.perf_counter() - t0, 3)
    return stats


def thread_coords(t: int, block: tuple[int, int, int],
                  grid: tuple[int, int, int]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """(tid, ctaid) of a global thread index (CTA-major, x fastest)."""
    n = block[0] * block[1] * block[2]
    c, i = divmod(int(t), n)
    tid = (i % block[0], (i // block[0]) % block[1], i // (block[0] * block[1]))
    cta = (c % grid[0], (c // grid[0]) % grid[1], c // (grid[0] * grid[1]))
    return tid, cta


def first_reads(tab: Table) -> np.ndarray:
    """Rows that are reads (for reports)."""
    return np.flatnonzero(~tab.write)
