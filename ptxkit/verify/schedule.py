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


def schedule_dependence(module: ir.Module, tab: Table, ctx: Context, init: InitValue) -> str:
    """Why the observed execution may not stand for every schedule ('' when it does)."""
    timer = _timer_read(module, _read_registers(module))
    if timer:
        return timer
    if not ctx.strong_reads:
        return ""
    w = np.flatnonzero(tab.write)
    order = w[np.argsort(tab.key[w], kind="stable")]
    wkey = tab.key[order]
    if len(wkey) == 0:
        return ""
    starts = np.flatnonzero(np.r_[True, wkey[1:] != wkey[:-1]])
    ends = np.r_[starts[1:], len(wkey)]
    ukey = wkey[starts]
    wthr = tab.thread[order]
    lo = np.minimum.reduceat(wthr, starts)
    hi = np.maximum.reduceat(wthr, starts)
    used = _read_registers(module)
    lines = _by_line(module)
    loops: dict[int, awaitloop.AwaitLoop | None] = {}
    nt = ctx.cta_threads
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
                    _awaits(module, loop, tab, order[starts[jj]:ends[jj]], int(t), int(k), init, nt,
                            ctx.cluster_of_cta, ctx.events[ev].opcode)
                    for jj, t, k in zip(j[other].tolist(), threads[other].tolist(), keys[other].tolist())):
                continue
        return (f"line {info.line}: the value of '{info.opcode}' depends on which write of another "
                "thread it observes (a synchronising read whose result is used, e.g. a spin loop or "
                "a flag): other schedules were not explored")
    return ""


def _awaits(module: ir.Module, loop: awaitloop.AwaitLoop, tab: Table, writes: np.ndarray, t: int, key: int,
            init: InitValue, cta_threads: int, clusters: np.ndarray, opcode: str) -> bool:
    """The await-loop conditions (module docstring) for thread ``t`` spinning on ``key``."""
    if len(writes) != 1:
        return False
    wr = int(writes[0])
    sem = next((m for m in loop.load.mods if m in ("relaxed", "acquire", "volatile")), None)
    scope = next((m for m in loop.load.mods if m in ("cta", "cluster", "gpu", "sys")), "sys")
    if sem is None or not tab.strong[wr] or int(tab.thread[wr]) == t:
        return False
    code = {"cta": 1, "cluster": 2, "gpu": 3, "sys": 4}[scope]
    tw, tt = np.array([int(tab.thread[wr])]), np.array([t])
    if not (_includes(tab.scope[wr:wr + 1], tw, tt, cta_threads, clusters)[0]
            and _includes(np.array([code]), tt, tw, cta_threads, clusters)[0]):
        return False
    v = init(key, int(tab.size[wr]))
    return v is not None and awaitloop.exits_on(module, loop, v) is False
