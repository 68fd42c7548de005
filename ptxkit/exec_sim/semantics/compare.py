"""Comparison and selection instructions: ``set``, ``setp``, ``selp``, ``slct`` (PTX ISA §9.7.7),
including the packed ``f16x2``/``bf16x2`` forms (§9.7.4.8)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ptxkit import ir
from ptxkit.exec_sim import floats as F
from ptxkit.exec_sim.semantics import common as C
from ptxkit.exec_sim.values import np_type

_CMP = ("eq", "ne", "lt", "le", "gt", "ge", "lo", "ls", "hi", "hs",
        "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan")


def _compare(cmp: str, a: C.Value, b: C.Value, is_float: bool) -> C.Value:
    if cmp in ("lo", "ls", "hi", "hs"):
        cmp = {"lo": "lt", "ls": "le", "hi": "gt", "hs": "ge"}[cmp]
    if is_float:
        nan = np.isnan(a) | np.isnan(b)
        if cmp == "num":
            return ~nan
        if cmp == "nan":
            return nan
        if cmp.endswith("u"):
            return _compare(cmp[:-1], a, b, False) | nan
        if cmp == "ne":
            return (a != b) & ~nan
    return {"eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal,
            "gt": np.greater, "ge": np.greater_equal}[cmp](a, b)


Combine = Callable[[C.State, C.Value], C.Value]  # t -> t BOP c


def _combine(ins: ir.Instruction, dec: C.Decoding) -> Combine | None:
    """The ``.BoolOp`` of set/setp with its predicate ``c`` (ISA §9.7.7.1-2): t ↦ t BOP c; None without one."""
    bops = [x for x in ins.mods if x in ("and", "or", "xor")]
    if not bops:
        return None
    if len(ins.operands) < 4:
        raise C.Unsupported(f"{dec.spelling(ins)} without its predicate operand c")
    f = {"and": np.logical_and, "or": np.logical_or, "xor": np.logical_xor}[bops[0]]
    c = dec.src(ins.operands[3], "pred")
    return lambda st, t: f(t, c(st))


def _floatview(typ: str) -> Callable[[C.Value], C.Value]:
    """Reader adapter: f16x2/bf16 values come as raw bits; convert to floats for comparisons."""
    if typ == "bf16":
        return lambda x: F.bits_to_float(np.asarray(x).view(np.uint16), "bf16")
    return lambda x: x


def b_setp(ins: ir.Instruction, dec: C.Decoding) -> C.LaneOp:
    typ = C.one_type(ins, dec)
    cmps = [x for x in ins.mods if x in _CMP]
    if not cmps:
        raise C.Unsupported()
    cmp = cmps[0]
    is_float = typ in C.FLOATS
    ops = ins.operands
    d = ops[0]
    comb = _combine(ins, dec)
    if typ in ("f16x2", "bf16x2"):
        return b_set_x2(ins, dec, "pred", typ, cmp, comb)
    p_dst, q_dst = (d.a, d.b) if isinstance(d, ir.Pipe) else (d, None)
    wp = dec.dst(p_dst, "pred")
    wq = dec.dst(q_dst, "pred") if q_dst is not None else None
    rt = "u16" if typ == "bf16" else typ
    a, b = dec.src(ops[1], rt), dec.src(ops[2], rt)
    conv = _floatview(typ)
    ftz_ = "ftz" in ins.mods and is_float

    def op(st: C.State, m: C.Mask) -> None:
        x, y = conv(a(st)), conv(b(st))
        if ftz_:
            x, y = F.ftz(np.asarray(x), typ), F.ftz(np.asarray(y), typ)
        t = np.broadcast_to(_compare(cmp, x, y, is_float), (st.n,))
        if comb is not None:
            wp(st, comb(st, t), m)
            if wq is not None:
                wq(st, comb(st, ~t), m)
        else:
            wp(st, t.copy(), m)
            if wq is not None:
                wq(st, ~t, m)
    return op


def _halves(dec: C.Decoding, op: ir.Operand, half: str) -> Callable[[C.State, int], np.ndarray]:
    r = dec.src(op, "b32")
    return lambda st, k: F.bits_to_float((np.asarray(r(st)) >> np.uint32(16 * k)).astype(np.uint16), half)


def b_set_x2(ins: ir.Instruction, dec: C.Decoding, dtyp: str, styp: str, cmp: str, comb: Combine | None) -> C.LaneOp:
    """set/setp on f16x2/bf16x2 sources: each 16-bit half compared on its own (ISA §9.7.4.?)."""
    half = styp[:-2]
    ops = ins.operands
    a, b = _halves(dec, ops[1], half), _halves(dec, ops[2], half)

    def cmp_half(st: C.State, k: int) -> C.Value:
        t = _compare(cmp, a(st, k), b(st, k), True)
        return comb(st, t) if comb is not None else t

    if ins.opcode == "setp":
        d = ops[0]
        p_dst, q_dst = (d.a, d.b) if isinstance(d, ir.Pipe) else (d, None)
        wp = dec.dst(p_dst, "pred")
        wq = dec.dst(q_dst, "pred") if q_dst is not None else None

        def op(st: C.State, m: C.Mask) -> None:
            wp(st, np.broadcast_to(cmp_half(st, 0), (st.n,)).copy(), m)
            if wq is not None:
                wq(st, np.broadcast_to(cmp_half(st, 1), (st.n,)).copy(), m)
        return op
    one = {"f16x2": 0x3C00, "bf16x2": 0x3F80}.get(dtyp, 0xFFFF)
    w = dec.dst(ops[0], "b32")

    def set2(st: C.State, m: C.Mask) -> None:
        r = np.uint32(0)
        for k in range(2):
            r = r | (np.where(cmp_half(st, k), np.uint32(one), np.uint32(0)) << np.uint32(16 * k)).astype(np.uint32)
        w(st, np.broadcast_to(r, (st.n,)).astype(np.uint32), m)
    return set2


def b_set(ins: ir.Instruction, dec: C.Decoding) -> C.LaneOp:
    ts = C.types_of(ins.mods)
    if len(ts) < 2:
        raise C.Unsupported()
    dtyp, styp = ts[-2], ts[-1]
    cmps = [x for x in ins.mods if x in _CMP]
    comb = _combine(ins, dec)
    if styp in ("f16x2", "bf16x2"):
        return b_set_x2(ins, dec, dtyp, styp, cmps[0], comb)
    is_float = styp in C.FLOATS
    ops = ins.operands
    a, b = dec.src(ops[1], styp), dec.src(ops[2], styp)
    w = dec.dst(ops[0], dtyp)
    all_ones = (1 << C.bits_of(dtyp)) - 1
    one = np_type(dtyp)(1.0) if dtyp in C.FLOATS else C.uint_of(dtyp)(all_ones).view(np_type(dtyp))
    zero = np_type(dtyp)(0)

    def op(st: C.State, m: C.Mask) -> None:
        t = _compare(cmps[0], a(st), b(st), is_float)
        if comb is not None:
            t = comb(st, t)
        w(st, np.where(t, one, zero).astype(np_type(dtyp)), m)
    return op


def b_selp(ins: ir.Instruction, dec: C.Decoding) -> C.LaneOp:
    typ = C.one_type(ins, dec)
    ops = C.operands(ins, 4)
    a, b, c = dec.src(ops[1], typ), dec.src(ops[2], typ), dec.src(ops[3], "pred")
    w = dec.dst(ops[0], typ)
    dt = np_type(typ)
    return lambda st, m: w(st, np.asarray(np.where(c(st), a(st), b(st))).astype(dt, copy=False), m)


def b_slct(ins: ir.Instruction, dec: C.Decoding) -> C.LaneOp:
    ts = C.types_of(ins.mods)
    typ, ctyp = ts[-2], ts[-1]
    ops = C.operands(ins, 4)
    a, b, c = dec.src(ops[1], typ), dec.src(ops[2], typ), dec.src(ops[3], ctyp)
    w = dec.dst(ops[0], typ)
    return lambda st, m: w(st, np.asarray(np.where(c(st) >= 0, a(st), b(st))).astype(np_type(typ)), m)
