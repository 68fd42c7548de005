"""Could another schedule perform other accesses? (the premise of ``verified``, see ``verify.check``).

A load's value can differ between schedules of a race-free program only if it is a strong read
(``ld.relaxed/acquire/volatile``, ``atom``) of a location that another thread writes: such reads
decide which write they observe by timing (spin loops, flags, counters whose returned value is
used). Weak reads in a race-free execution read the happens-before-latest write, the same in every
schedule. A strong read whose destination register is never read (``atom`` used as a reduction)
cannot steer the program either, and an await loop (``verify.awaitloop``) behaves the same in every
schedule when its location has one morally strong writer and the loop does not exit on the initial
value.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ptxkit import ir
from ptxkit.ptx import isa
from ptxkit.verify import awaitloop
from ptxkit.verify.context import Context
from ptxkit.verify.races import Table, _includes

_NONE = np.zeros(0, np.int64)
InitValue = Callable[[int, int], int | None]  # (location key, size) → initial value, None if unknown


def _read_registers(module: ir.Module) -> set[str]:
    """Registers any instruction reads (source operands, address bases, guards)."""
    out: set[str] = set()
    for f in module.functions():
        for ins in f.instructions():
            for i in isa.uses(ins):
                out.update(isa.registers(ins.operands[i]))
            if ins.guard is not None:
                out.add(ins.guard.pred)
    return out


def _by_line(module: ir.Module) -> dict[int, ir.Instruction]:
    out: dict[int, ir.Instruction] = {}
    for f in module.functions():
        for ins in f.instructions():
            if ins.span is not None:
                out.setdefault(ins.span.line, ins)
    return out


_TIMERS = ("%clock", "%clock64", "%globaltimer", "%globaltimer_lo", "%globaltimer_hi")


def _timer_read(module: ir.Module, used: set[str]) -> str:
    """A read of a timer register (ISA §10: %clock, %globaltimer …) whose value is used: its value
    depends on the schedule."""
    for f in module.functions():
        for ins in f.instructions():
            srcs = [r for i in isa.uses(ins) for r in isa.registers(ins.operands[i])]
            if any(r in _TIMERS for r in srcs):
                dsts = [r for i in isa.defs(ins) for r in isa.registers(ins.operands[i])]
                if any(r in used for r in dsts):
                    line = ins.span.line if ins.span else 0
                    return f"line {line}: '{ins.opcode}' reads a timer whose value depends on the schedule"
    return ""


def timer_read(module: ir.Module) -> str:
    """A used read of a timer register ('' when none): its value depends on the schedule."""
    return _timer_read(module, _read_registers(module))


def schedule_dependence(module: ir.Module, tab: Table, ctx: Context, init: InitValue) -> str:
    """Why the observed execution may not stand for every schedule ('' when it does)."""
    timer = _timer_read(module, _read_registers(module))
    if timer:
        return timer
    dep = dependent_reads(module, tab, ctx, init)
    return dep[0][1] if dep else ""


def dependent_reads(module: ir.Module, tab: Table, ctx: Context, init: InitValue) -> list[tuple[int, str]]:
    """The events (observation index, why) of the strong reads whose value may differ in another
    schedule: their result is used, another thread writes their location, and they are not a
    recognised await loop. (Timer reads are :func:`schedule_dependence`'s concern.)"""
    out: list[tuple[int, str]] = []
    if not ctx.strong_reads:
        return out
    w = np.flatnonzero(tab.write)
    order = w[np.argsort(tab.key[w], kind="stable")]
    wkey = tab.key[order]
    if len(wkey) == 0:
        return out
    starts = np.flatnonzero(np.r_[True, wkey[1:] != wkey[:-1]])
    ends = np.r_[starts[1:], len(wkey)]
    ukey = wkey[starts]
    wthr = tab.thread[order]
    lo = np.minimum.reduceat(wthr, starts)
    hi = np.maximum.reduceat(wthr, starts)
    used = _read_registers(module)
    lines = _by_line(module)
    loops: dict[int, awaitloop.AwaitLoop | None] = {}
    # each thread's strong reads per location, in observation order
    sr = np.flatnonzero(tab.strong & ~tab.write)
    sr = sr[np.lexsort((tab.pos[sr], tab.ev[sr]))]
    grouped: dict[tuple[int, int], list[int]] = {}
    for r, t_, k_ in zip(sr.tolist(), tab.thread[sr].tolist(), tab.key[sr].tolist()):
        grouped.setdefault((t_, k_), []).append(r)
    reads_of = {tk: np.array(rs, np.int64) for tk, rs in grouped.items()}
    for ev, threads, keys in ctx.strong_reads:
        info = ctx.events[ev]
        ins = lines.get(info.line)
        if ins is not None:
            dsts = [r for i in isa.defs(ins) for r in isa.registers(ins.operands[i])]
            if not any(r in used for r in dsts):
                continue
        j = np.minimum(np.searchsorted(ukey, keys), len(ukey) - 1)
        hit = ukey[j] == keys
        other = hit & ((lo[j] != threads) | (hi[j] != threads))
        if not other.any():
            continue
        if ins is not None and ins.opcode in ("ld", "ldu"):
            if info.line not in loops:
                loops[info.line] = awaitloop.find(module, ins)
            loop = loops[info.line]
            if loop is not None and all(
                    _awaits(module, loop, tab, ctx, order[starts[jj]:ends[jj]], reads_of.get((t, k), _NONE),
                            t, k, init)
                    for jj, t, k in zip(j[other].tolist(), threads[other].tolist(), keys[other].tolist())):
                continue
        out.append((ev, f"line {info.line}: the value of '{info.opcode}' depends on which write of "
                        "another thread it observes (a synchronising read whose result is used, e.g. a "
                        "spin loop or a flag): other schedules were not explored"))
    return out


def _awaits(module: ir.Module, loop: awaitloop.AwaitLoop, tab: Table, ctx: Context, writes: np.ndarray,
            reads: np.ndarray, t: int, key: int, init: InitValue) -> bool:
    """The await-loop conditions (module docstring) for thread ``t`` spinning on ``key``: ``reads`` are
    t's strong reads of ``key`` (rows, observation order), ``writes`` every write of ``key``.

    The writes that happen before the loop's first read are its history (in every schedule the loop
    first sees the latest of them, or the initial value); exactly one other write W, by another thread,
    morally strong with the loop's read, may be concurrent, observed after the history. The loop must
    not exit on the history's value: the value the first read saw in the run (every read but the last
    was observed before W), or the initial value of a global location when the loop did not fail in
    the run and there is no history; the loop body decides on it (``awaitloop.exits_on``)."""
    if len(reads) == 0:
        return False
    line = ctx.events[int(tab.ev[reads[-1]])].line
    reads = reads[[ctx.events[int(tab.ev[r])].line == line for r in reads.tolist()]]
    r0 = int(reads[0])
    own = tab.thread[writes] == t  # the thread's own writes: program order
    hist = np.where(own, tab.ev[writes] < tab.ev[r0],
                    ctx.clocks.rows[tab.sid[r0], tab.thread[writes]] >= tab.ep[writes])
    concurrent = writes[~hist]
    if len(concurrent) != 1:
        return False
    wr = int(concurrent[0])
    w_at = (int(tab.ev[wr]), int(tab.pos[wr]))
    if any((int(tab.ev[h]), int(tab.pos[h])) > w_at for h in writes[hist].tolist()):
        return False
    after = [r for r in reads.tolist() if int(tab.ev[r]) > w_at[0]]
    if len(after) != 1 or after[0] != int(reads[-1]):
        return False  # another loop instance, or the last read is not the one that saw W
    sem = next((m for m in loop.load.mods if m in ("relaxed", "acquire", "volatile")), None)
    scope = next((m for m in loop.load.mods if m in ("cta", "cluster", "gpu", "sys")), "sys")
    if sem is None or not tab.strong[wr] or int(tab.thread[wr]) == t or int(tab.size[wr]) != int(tab.size[r0]):
        return False
    code = {"cta": 1, "cluster": 2, "gpu": 3, "sys": 4}[scope]
    tw, tt = np.array([int(tab.thread[wr])]), np.array([t])
    nt, clusters = ctx.cta_threads, ctx.cluster_of_cta
    if not (_includes(tab.scope[wr:wr + 1], tw, tt, nt, clusters)[0]
            and _includes(np.array([code]), tt, tw, nt, clusters)[0]):
        return False
    if len(reads) > 1:
        # the first read saw the history's value (the run shows every read before W); does the loop go
        # on with it? (asked of the loop body, not inferred from the run: the reads before W could
        # belong to an earlier run of the loop that exited)
        seen = int(tab.value[r0]) & ((1 << 64) - 1)
        return awaitloop.exits_on(module, loop, seen) is False
    if hist.any():
        return False  # the history's value is not recorded
    v = init(key, int(tab.size[wr]))
    return v is not None and awaitloop.exits_on(module, loop, v) is False
