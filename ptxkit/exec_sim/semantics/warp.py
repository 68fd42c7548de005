"""Warp-collective instructions over lanes grouped 32 at a time: ``shfl`` (PTX ISA §9.7.9.6),
``vote`` (§9.7.13.7), ``match`` (§9.7.13.8), ``redux`` (§9.7.13.10), ``activemask`` (§9.7.13.9),
``elect`` (§9.7.13.12), ``bar.warp.sync`` (§9.7.13.1).

The machine pads every CTA to whole warps, so lane ``i`` of a batch is lane ``i % 32`` of warp
``i // 32`` and warp-wide data is a ``reshape(-1, 32)`` away. Lanes not in the active mask keep
their destinations; a shuffle reading from a lane outside the mask reads that lane's current
register (the ISA leaves it undefined).
"""

from __future__ import annotations

import numpy as np

from ptxkit import ir
from ptxkit.exec_sim.events import EvKind
from ptxkit.exec_sim.observe import access_info, report
from ptxkit.exec_sim.semantics.common import Decoding, LaneOp, Mask, Reader, State, Value, first_mod
from ptxkit.exec_sim.values import np_type


def _syncs(op: LaneOp, mm: Reader | None) -> LaneOp:
    """Tag a ``.sync`` collective's closure with its membermask reader: the scheduler runs it only when
    every non-exited thread the membermask names has reached it (ISA §9.7.9.6 shfl.sync, §9.7.13.7-10
    vote/match/redux.sync, §9.7.13.1 bar.warp.sync: the executing thread waits until all non-exited
    threads in membermask have executed the same instruction)."""
    if mm is not None:
        setattr(op, "membermask", mm)  # noqa: B010 (read by machine._converged)
    return op


def lanes_of(n: int) -> np.ndarray:
    return np.arange(n, dtype=np.int64) % 32


def active_lanes(m: Mask, n: int) -> np.ndarray:
    return np.ones(n, bool) if m is None else m


def in_membermask(membermask: Value, n: int) -> np.ndarray:
    """Which of ``n`` lanes the ``membermask`` names: bit ``lane % 32`` set."""
    return ((np.broadcast_to(np.asarray(membermask).astype(np.uint64), (n,)) >> lanes_of(n).astype(np.uint64))
            & np.uint64(1)).astype(bool)


def _warp_rows(st: State, m: Mask, a: Reader, mm: Reader) -> tuple[np.ndarray, np.ndarray]:
    """The source ``a`` and the participating lanes (active, not exited, in the membermask ``mm``),
    one row per warp."""
    n = st.n
    member = in_membermask(mm(st), n) & active_lanes(m, n) & ~st.exited
    return np.broadcast_to(np.asarray(a(st)), (n,)).reshape(-1, 32), member.reshape(-1, 32)


def b_shfl(ins: ir.Instruction, dec: Decoding) -> LaneOp:
    """shfl.sync.{up,down,bfly,idx}.b32 d[|p], a, b, c, membermask."""
    mode = first_mod(ins, ("up", "down", "bfly", "idx"))
    ops = ins.operands
    d = ops[0]
    dd, pp = (d.a, d.b) if isinstance(d, ir.Pipe) else (d, None)
    a = dec.src(ops[1], "b32")
    b = dec.src(ops[2], "u32")
    c = dec.src(ops[3], "u32")
    w = dec.dst(dd, "b32")
    wp = dec.dst(pp, "pred") if pp is not None else None
    mm = dec.src(ops[4], "u32") if len(ops) > 4 else None

    def op(st: State, m: Mask) -> None:
        n = st.n
        lane = lanes_of(n)
        bv = np.broadcast_to(np.asarray(b(st)).astype(np.int64), (n,)) & 0x1F
        cv = np.broadcast_to(np.asarray(c(st)).astype(np.int64), (n,))
        clamp = cv & 0x1F
        seg = (cv >> 8) & 0x1F
        max_lane = (lane & seg) | (clamp & ~seg)
        min_lane = lane & seg
        if mode == "up":
            j = lane - bv
            ok = j >= max_lane
        elif mode == "down":
            j = lane + bv
            ok = j <= max_lane
        elif mode == "bfly":
            j = lane ^ bv
            ok = j <= max_lane
        else:
            j = min_lane | (bv & ~seg)
            ok = j <= max_lane
        j = np.where(ok, j, lane)
        src = np.arange(n) - lane + j
        val = np.broadcast_to(np.asarray(a(st)), (n,))[src]
        w(st, val, m)
        if wp is not None:
            wp(st, ok, m)
    return _syncs(op, mm)


def _warp_reduce_bits(flags: np.ndarray, n: int) -> np.ndarray:
    """Per-warp ballot of boolean lanes → uint32 per warp (broadcast back to lanes)."""
    f = flags.reshape(-1, 32).astype(np.uint64)
    weights = (np.uint64(1) << np.arange(32, dtype=np.uint64))
    ballot = (f * weights).sum(axis=1).astype(np.uint32)
    return np.repeat(ballot, 32)


def b_vote(ins: ir.Instruction, dec: Decoding) -> LaneOp:
    """vote.sync.{all,any,uni}.pred / vote.sync.ballot.b32 (membermask honoured for ballot)."""
    kind = first_mod(ins, ("all", "any", "uni", "ballot"))
    ops = ins.operands
    p = dec.src(ops[1], "pred")
    mm = dec.src(ops[2], "u32") if len(ops) > 2 else None
    if kind == "ballot":
        w = dec.dst(ops[0], "b32")
    else:
        w = dec.dst(ops[0], "pred")

    def op(st: State, m: Mask) -> None:
        n = st.n
        act = active_lanes(m, n) & ~st.exited
        pv = np.broadcast_to(p(st), (n,))
        if mm is not None:
            act = act & in_membermask(mm(st), n)
        if kind == "ballot":
            w(st, _warp_reduce_bits(pv & act, n), m)
            return
        yes = (pv & act).reshape(-1, 32).sum(axis=1)
        tot = act.reshape(-1, 32).sum(axis=1)
        if kind == "all":
            r = yes == tot
        elif kind == "any":
            r = yes > 0
        else:
            r = (yes == tot) | (yes == 0)
        w(st, np.repeat(r, 32), m)
    return _syncs(op, mm)


def b_activemask(ins: ir.Instruction, dec: Decoding) -> LaneOp:
    w = dec.dst(ins.operands[0], "b32")

    def op(st: State, m: Mask) -> None:
        act = active_lanes(m, st.n) & ~st.exited
        w(st, _warp_reduce_bits(act, st.n), m)
    return op


def b_elect(ins: ir.Instruction, dec: Decoding) -> LaneOp:
    """elect.sync d|p, membermask (ISA §9.7.13.12): the lowest active lane of the membermask is elected."""
    ops = ins.operands
    d = ops[0]
    dd, pp = (d.a, d.b) if isinstance(d, ir.Pipe) else (d, None)
    w = dec.dst(dd, "b32") if not isinstance(dd, ir.Sink) else None
    wp = dec.dst(pp, "pred") if pp is not None and not isinstance(pp, ir.Sink) else None
    mm = dec.src(ops[1], "u32") if len(ops) > 1 else None

    def op(st: State, m: Mask) -> None:
        n = st.n
        member = in_membermask(mm(st), n) if mm is not None else np.ones(n, bool)
        act = (active_lanes(m, n) & ~st.exited & member).reshape(-1, 32)
        first = np.argmax(act, axis=1)
        leader = np.repeat(first, 32)
        if w is not None:
            w(st, leader.astype(np.uint32), m)
        if wp is not None:
            wp(st, lanes_of(n) == leader, m)
    return _syncs(op, mm)


def b_match(ins: ir.Instruction, dec: Decoding) -> LaneOp:
    """match.any.sync / match.all.sync .b32/.b64."""
    kind = "all" if "all" in ins.mods else "any"
    typ = [x for x in ins.mods if x in ("b32", "b64")]
    if not typ:
        return dec.unsupported()
    ops = ins.operands
    d = ops[0]
    dd, pp = (d.a, d.b) if isinstance(d, ir.Pipe) else (d, None)
    a = dec.src(ops[1], typ[0])
    mm = dec.src(ops[2], "u32")
    w = dec.dst(dd, "b32")
    wp = dec.dst(pp, "pred") if pp is not None else None

    def op(st: State, m: Mask) -> None:
        v, mem = _warp_rows(st, m, a, mm)
        eq = (v[:, :, None] == v[:, None, :]) & mem[:, None, :]  # [warp, me, other]
        weights = (np.uint64(1) << np.arange(32, dtype=np.uint64))
        same = (eq.astype(np.uint64) * weights).sum(axis=2).astype(np.uint32)
        if kind == "any":
            w(st, same.reshape(-1), m)
            return
        allmask = (mem.astype(np.uint64) * weights).sum(axis=1).astype(np.uint32)
        ok = (same == allmask[:, None])
        w(st, np.where(ok, allmask[:, None], 0).astype(np.uint32).reshape(-1), m)
        if wp is not None:
            wp(st, ok.reshape(-1), m)
    return _syncs(op, mm)


def b_redux(ins: ir.Instruction, dec: Decoding) -> LaneOp:
    """redux.sync.{add,min,max,and,or,xor}.{u32,s32,b32} d, a, membermask."""
    opn = first_mod(ins, ("add", "min", "max", "and", "or", "xor"))
    typ = first_mod(ins, ("u32", "s32", "b32"))
    ops = ins.operands
    a = dec.src(ops[1], typ)
    mm = dec.src(ops[2], "u32")
    w = dec.dst(ops[0], typ)
    dt = np_type(typ)

    def op(st: State, m: Mask) -> None:
        v, mem = _warp_rows(st, m, a, mm)
        if opn == "add":
            r = np.where(mem, v.astype(np.int64), 0).sum(axis=1).astype(np.int64).astype(np.uint64)
            r = (r & np.uint64(0xFFFFFFFF)).astype(np.uint32).view(dt)
        elif opn in ("min", "max"):
            info = np.iinfo(dt)
            ident = info.max if opn == "min" else info.min
            f = np.min if opn == "min" else np.max
            r = f(np.where(mem, v, ident), axis=1).astype(dt)
        else:
            ident = 0xFFFFFFFF if opn == "and" else 0
            bitop = {"and": np.bitwise_and, "or": np.bitwise_or, "xor": np.bitwise_xor}[opn]
            u = v.view(np.uint32) if v.dtype != np.uint32 else v
            r = bitop.reduce(np.where(mem, u, np.uint32(ident)), axis=1).astype(np.uint32).view(dt)
        w(st, np.repeat(r, 32), m)
    return _syncs(op, mm)


def b_bar_warp(ins: ir.Instruction, dec: Decoding) -> LaneOp:
    """bar.warp.sync: a no-op under lock-step execution of the warp; it also orders memory among the
    participating threads (§9.7.13.1), which an observer is told as a BAR_ARRIVE with ``warp``."""
    info = access_info(ins, EvKind.BAR_ARRIVE)

    def op(st: State, m: Mask) -> None:
        if st.observer is not None:
            report(st, EvKind.BAR_ARRIVE, info, "", None, 0, m, {"warp": True})
    return _syncs(op, dec.src(ins.operands[0], "u32") if ins.operands else None)
