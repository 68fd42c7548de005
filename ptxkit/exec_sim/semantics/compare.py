"""Comparison and selection instructions: ``set``, ``setp``, ``selp``, ``slct`` (PTX ISA §9.7.7),
including the packed ``f16x2``/``bf16x2`` forms (§9.7.4.8)."""

from __future__ import annotations

import numpy as np

from ptxkit import ir
from ptxkit.exec_sim import floats as F
from ptxkit.exec_sim.semantics.common import (
    FLOATS,
    Unsupported,
    bits_of,
    one_type,
    operands,
    types_of,
    uint_of,
)
from ptxkit.exec_sim.values import np_type

_CMP = ("eq", "ne", "lt", "le", "gt", "ge", "lo", "ls", "hi", "hs",
        "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan")


def _compare(cmp: str, a, b, is_float: bool):
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


def _floatview(typ):
    """Reader adapter: f16x2/bf16 values come as raw bits; convert to floats for comparisons."""
    if typ == "bf16":
        return lambda x: F.bits_to_float(np.asarray(x).view(np.uint16), "bf16")
    return lambda x: x


def b_setp(ins, dec):
    typ = one_type(ins, dec)
    cmps = [x for x in ins.mods if x in _CMP]
    bops = [x for x in ins.mods if x in ("and", "or", "xor")]
    if not cmps:
        raise Unsupported()
    cmp = cmps[0]
    is_float = typ in FLOATS
    ops = ins.operands
    d = ops[0]
    if typ in ("f16x2", "bf16x2"):
        bop = {"and": np.logical_and, "or": np.logical_or, "xor": np.logical_xor}[bops[0]] if bops else None
        return b_set_x2(ins, dec, "pred", typ, cmp, bop)
    p_dst, q_dst = (d.a, d.b) if isinstance(d, ir.Pipe) else (d, None)
    wp = dec.dst(p_dst, "pred")
    wq = dec.dst(q_dst, "pred") if q_dst is not None else None
    rt = "u16" if typ == "bf16" else typ
    a, b = dec.src(ops[1], rt), dec.src(ops[2], rt)
    conv = _floatview(typ)
    ftz_ = "ftz" in ins.mods and is_float
    c = dec.src(ops[3], "pred") if len(ops) > 3 else None
    bop = {"and": np.logical_and, "or": np.logical_or, "xor": np.logical_xor}[bops[0]] if bops else None

    def op(st, m):
        x, y = conv(a(st)), conv(b(st))
        if ftz_:
            x, y = F.ftz(np.asarray(x), typ), F.ftz(np.asarray(y), typ)
        t = np.broadcast_to(_compare(cmp, x, y, is_float), (st.n,))
        if bop is not None:
            cv = c(st)
            wp(st, bop(t, cv), m)
            if wq is not None:
                wq(st, bop(~t, cv), m)
        else:
            wp(st, t.copy(), m)
            if wq is not None:
                wq(st, ~t, m)
    return op


def _halves(dec, op, half):
    r = dec.src(op, "b32")
    return lambda st, k: F.bits_to_float((np.asarray(r(st)) >> np.uint32(16 * k)).astype(np.uint16), half)


def b_set_x2(ins, dec, dtyp, styp, cmp, bop):
    """set/setp on f16x2/bf16x2 sources: each 16-bit half compared on its own (ISA §9.7.4.?)."""
    half = styp[:-2]
    ops = ins.operands
    a, b = _halves(dec, ops[1], half), _halves(dec, ops[2], half)
    c = dec.src(ops[3], "pred") if len(ops) > 3 else None

    def cmp_half(st, k):
        t = _compare(cmp, a(st, k), b(st, k), True)
        return bop(t, c(st)) if bop is not None else t

    if ins.opcode == "setp":
        d = ops[0]
        p_dst, q_dst = (d.a, d.b) if isinstance(d, ir.Pipe) else (d, None)
        wp = dec.dst(p_dst, "pred")
        wq = dec.dst(q_dst, "pred") if q_dst is not None else None

        def op(st, m):
            wp(st, np.broadcast_to(cmp_half(st, 0), (st.n,)).copy(), m)
            if wq is not None:
                wq(st, np.broadcast_to(cmp_half(st, 1), (st.n,)).copy(), m)
        return op
    one = {"f16x2": 0x3C00, "bf16x2": 0x3F80}.get(dtyp, 0xFFFF)
    w = dec.dst(ops[0], "b32")

    def op(st, m):
        r = np.uint32(0)
        for k in range(2):
            r = r | (np.where(cmp_half(st, k), np.uint32(one), np.uint32(0)) << np.uint32(16 * k)).astype(np.uint32)
        w(st, np.broadcast_to(r, (st.n,)).astype(np.uint32), m)
    return op


def b_set(ins, dec):
    ts = types_of(ins.mods)
    if len(ts) < 2:
        raise Unsupported()
    dtyp, styp = ts[-2], ts[-1]
    cmps = [x for x in ins.mods if x in _CMP]
    bops = [x for x in ins.mods if x in ("and", "or", "xor")]
    if styp in ("f16x2", "bf16x2"):
        bop = {"and": np.logical_and, "or": np.logical_or, "xor": np.logical_xor}[bops[0]] if bops else None
        return b_set_x2(ins, dec, dtyp, styp, cmps[0], bop)
    is_float = styp in FLOATS
    ops = ins.operands
    a, b = dec.src(ops[1], styp), dec.src(ops[2], styp)
    c = dec.src(ops[3], "pred") if len(ops) > 3 else None
    w = dec.dst(ops[0], dtyp)
    bop = {"and": np.logical_and, "or": np.logical_or, "xor": np.logical_xor}[bops[0]] if bops else None
    one = np_type(dtyp)(1.0) if dtyp in FLOATS else uint_of(dtyp)(-1 & ((1 << bits_of(dtyp)) - 1)).view(np_type(dtyp))
    zero = np_type(dtyp)(0)

    def op(st, m):
        t = _compare(cmps[0], a(st), b(st), is_float)
        if bop is not None:
            t = bop(t, c(st))
        w(st, np.where(t, one, zero).astype(np_type(dtyp)), m)
    return op


def b_selp(ins, dec):
    typ = one_type(ins, dec)
    ops = operands(ins, 4)
    a, b, c = dec.src(ops[1], typ), dec.src(ops[2], typ), dec.src(ops[3], "pred")
    w = dec.dst(ops[0], typ)
    dt = np_type(typ)
    return lambda st, m: w(st, np.where(c(st), a(st), b(st)).astype(dt, copy=False), m)


def b_slct(ins, dec):
    ts = types_of(ins.mods)
    typ, ctyp = ts[-2], ts[-1]
    ops = operands(ins, 4)
    a, b, c = dec.src(ops[1], typ), dec.src(ops[2], typ), dec.src(ops[3], ctyp)
    w = dec.dst(ops[0], typ)
    return lambda st, m: w(st, np.where(c(st) >= 0, a(st), b(st)).astype(np_type(typ)), m)
