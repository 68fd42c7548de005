"""Floating-point instructions (PTX ISA §9.7.3), half-precision ones (§9.7.4) and the
``.approx`` math functions: IEEE via numpy with the rounding modifiers of :mod:`ptxkit.exec_sim.floats`.
The approximate instructions (``ex2/lg2/sin/cos/tanh/rsqrt/rcp.approx/sqrt.approx/div.approx|full``)
are evaluated in double precision and rounded: close to, not bit-equal to, a GPU."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ptxkit import ir
from ptxkit.exec_sim import floats as F
from ptxkit.exec_sim.semantics.common import (
    Decoding,
    LaneOp,
    Mask,
    State,
    Unsupported,
    Value,
    bits_of,
    one_type,
    operands,
    read_float,
    rounding_mode,
    uint_of,
    write_float,
)
from ptxkit.exec_sim.values import np_type

ScalarFn = Callable[[list[Value]], Value]  # one float op on the lanes' values of one (half) type
ScalarBuilder = Callable[[str], ScalarFn]


def _packed(ins: ir.Instruction, dec: Decoding, typ: str, scalar_builder: ScalarBuilder) -> LaneOp:
    """Apply a scalar float op to both 16-bit halves of f16x2/bf16x2 operands."""
    half = typ[:-2]
    ops = ins.operands
    readers = [dec.src(o, "b32") for o in ops[1:]]
    w = dec.dst(ops[0], "b32")
    fn = scalar_builder(half)

    def op(st: State, m: Mask) -> None:
        out = np.uint32(0)
        for k in range(2):
            vals = [F.bits_to_float((np.asarray(r(st)) >> np.uint32(16 * k)).astype(np.uint16), half)
                    for r in readers]
            res = fn(vals)
            out = out | (F.float_to_bits(np.asarray(res), half).astype(np.uint32) << np.uint32(16 * k))
        w(st, out, m)
    return op


def _lanewise(ins: ir.Instruction, dec: Decoding, typ: str, scalar: ScalarBuilder, nsrc: int) -> LaneOp:
    """``scalar(t)`` lane by lane on the ``nsrc`` sources: on both halves of packed ``f16x2``/``bf16x2``
    operands, else on ``typ`` values (the result written as is: ``scalar`` rounds)."""
    if typ in ("f16x2", "bf16x2"):
        return _packed(ins, dec, typ, scalar)
    ops = operands(ins, nsrc + 1)
    readers = [read_float(dec, o, typ) for o in ops[1:]]
    w = write_float(dec, ops[0], typ, "rn")
    fn = scalar(typ)
    return lambda st, m: w(st, fn([r(st) for r in readers]), m)


def float_arith(ins: ir.Instruction, dec: Decoding, kind: str, typ: str) -> LaneOp:
    mods = ins.mods
    if "relu" in mods:
        raise Unsupported(f"{'.'.join((ins.opcode, *mods))} (modifier .relu)")
    mode = rounding_mode(mods) or "rn"
    ftz_ = "ftz" in mods
    sat = "sat" in mods
    nan_prop = "NaN" in mods
    approx = "approx" in mods or "full" in mods

    def scalar(t: str) -> ScalarFn:
        def fn(vals: list[Value]) -> Value:
            if ftz_:
                vals = [F.ftz(np.asarray(v), t) for v in vals]
            with np.errstate(all="ignore"):
                r = _float_compute(kind, t, vals, mode, approx, nan_prop)
            if sat:
                r = np.where(np.isnan(r), 0, np.clip(r, 0, 1)).astype(r.dtype)
            if ftz_:
                r = F.ftz(np.asarray(r), t)
            return r
        return fn

    nsrc = {"add": 2, "sub": 2, "mul": 2, "div": 2, "fma": 3, "min": 2, "max": 2}[kind]
    return _lanewise(ins, dec, typ, scalar, nsrc)


def _float_compute(kind: str, t: str, vals: list[Value], mode: str, approx: bool, nan_prop: bool) -> Value:
    """One float op on numpy arrays of type ``t`` (bf16 values arrive as float32)."""
    native = t in ("f32", "f64", "f16") and mode == "rn"
    if kind in ("min", "max"):
        a, b = (np.asarray(v) for v in vals)
        f = np.fmin if kind == "min" else np.fmax
        r = f(a, b)
        # -0.0 < +0.0 for min/max (ISA §9.7.3.10-11)
        eq = a == b
        pick_a = np.signbit(a) if kind == "min" else ~np.signbit(a)
        r = np.where(eq, np.where(pick_a, a, b), r)
        both = np.isnan(a) & np.isnan(b)
        anyn = (np.isnan(a) | np.isnan(b)) if nan_prop else both
        if np.any(anyn):
            r = np.where(anyn, np.asarray(np.nan, dtype=r.dtype), r)
        return r.astype(a.dtype)
    if native:
        a = vals[0]
        if kind == "add":
            return a + vals[1]
        if kind == "sub":
            return a - vals[1]
        if kind == "mul":
            return a * vals[1]
        if kind == "div":
            return a / vals[1]
        if kind == "fma" and t == "f64":
            r, _ = F.fma64(np.asarray(a, np.float64), np.asarray(vals[1], np.float64), np.asarray(vals[2], np.float64))
            return r
    wide = np.float64
    x = [np.asarray(v).astype(wide) for v in vals]
    resid = None
    if t == "f64":
        if kind in ("add", "sub"):
            y = x[1] if kind == "add" else -x[1]
            r, resid = F.two_sum(x[0], y)
        elif kind == "mul":
            r, resid = F.two_prod(x[0], x[1])
        elif kind == "fma":
            r, resid = F.fma64(x[0], x[1], x[2])
        elif kind == "div":
            r = x[0] / x[1]
            p, pe = F.two_prod(r, x[1])
            resid = np.sign(x[1]) * ((x[0] - p) - pe)
        else:
            raise ValueError(kind)
        return F.adjust(r, np.where(np.isnan(np.sign(resid)), 0, np.sign(resid)), mode) if mode != "rn" else r
    if kind == "add":
        r = x[0] + x[1]
    elif kind == "sub":
        r = x[0] - x[1]
    elif kind == "mul":
        r = x[0] * x[1]
    elif kind == "div":
        r = x[0] / x[1]
    elif kind == "fma":
        p = x[0] * x[1]  # exact for f32/f16/bf16 operands
        r, resid = F.two_sum(p, x[2])
    else:
        raise ValueError(kind)
    if t == "bf16":
        return F.bits_to_float(F.bf16_round(r, mode), "bf16")
    return _round_with_tie(r, resid, t, mode)


def _round_with_tie(r: np.ndarray, resid: np.ndarray | None, t: str, mode: str) -> np.ndarray:
    """Round a wide value r (+ tiny residual) to t; the residual breaks exact-midpoint ties."""
    out = F.round_float(r, t, mode, resid)
    if resid is None or mode != "rn":
        return out
    back = out.astype(np.float64)
    diff = r - back
    if not np.any(diff):
        return out
    toward = np.where(diff > 0, np.inf, -np.inf)
    nb = np.nextafter(out, toward.astype(out.dtype)).astype(out.dtype)
    half = (nb.astype(np.float64) - back) / 2
    mid = (diff == half) & (resid != 0)
    # at a midpoint the exact value lies beyond it iff the residual points the same way
    beyond = mid & (np.sign(resid) == np.sign(diff))
    before = mid & (np.sign(resid) != np.sign(diff))
    return np.where(beyond, nb, np.where(before, out, out)).astype(out.dtype)


def float_unary_bits(ins: ir.Instruction, dec: Decoding, typ: str, kind: str) -> LaneOp:
    """abs/neg on floats: sign-bit operations (NaN payloads kept), .ftz flushes first."""
    ops = operands(ins, 2)
    ftz_ = "ftz" in ins.mods
    if typ in ("f16x2", "bf16x2", "bf16", "f16"):
        bits = 32 if typ.endswith("x2") else 16
        mask = np.uint32(0x80008000) if bits == 32 else np.uint16(0x8000)
        a, w = dec.src(ops[1], f"b{bits}"), dec.dst(ops[0], f"b{bits}")
        if kind == "abs":
            return lambda st, m: w(st, np.asarray(a(st)) & ~mask, m)
        return lambda st, m: w(st, np.asarray(a(st)) ^ mask, m)
    ut = uint_of(typ)
    sign = ut(1 << (bits_of(typ) - 1))
    a, w = dec.src(ops[1], typ), dec.dst(ops[0], typ)
    dt = np_type(typ)

    def op(st: State, m: Mask) -> None:
        x = np.asarray(a(st))
        if ftz_:
            x = F.ftz(x, typ)
        u = x.view(ut)
        u = (u & ~sign) if kind == "abs" else (u ^ sign)
        w(st, np.asarray(u).view(dt), m)
    return op


_UNARY: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "rcp": lambda x: 1.0 / x,
    "sqrt": np.sqrt,
    "rsqrt": lambda x: 1.0 / np.sqrt(x),
    "ex2": np.exp2,
    "lg2": np.log2,
    "sin": np.sin,
    "cos": np.cos,
    "tanh": np.tanh,
}


def b_unary_float(ins: ir.Instruction, dec: Decoding) -> LaneOp:
    """rcp/sqrt/rsqrt/ex2/lg2/sin/cos/tanh. ``.rn`` rcp/sqrt are correctly rounded (exact in f64 for
    f32); ``.approx`` forms are computed in f64 and rounded: close to, not bit-equal to, a GPU."""
    typ = one_type(ins, dec)
    kind = ins.opcode
    mode = rounding_mode(ins.mods) or "rn"
    ftz_ = "ftz" in ins.mods
    f = _UNARY[kind]
    if typ == "f64" and mode != "rn":
        raise Unsupported(f"{'.'.join((ins.opcode, *ins.mods))} (directed rounding in f64)")

    def scalar(t: str) -> ScalarFn:
        def fn(vals: list[Value]) -> Value:
            x = np.asarray(vals[0])
            if ftz_:
                x = F.ftz(x, t)
            with np.errstate(all="ignore"):
                if t == "f64" or (kind in ("rcp", "sqrt") and t == "f32" and mode == "rn"
                                  and "approx" not in ins.mods):
                    r = f(x) if t == "f64" else f(x.astype(np.float32)).astype(np.float32)
                else:
                    r = F.round_float(f(x.astype(np.float64)), t if t != "bf16" else "f32", mode)
                    if t == "bf16":
                        r = F.bits_to_float(F.bf16_round(r), "bf16")
            if ftz_:
                r = F.ftz(np.asarray(r), t)
            return r
        return fn

    return _lanewise(ins, dec, typ, scalar, 1)


def b_copysign(ins: ir.Instruction, dec: Decoding) -> LaneOp:
    typ = one_type(ins, dec)
    ut = uint_of(typ)
    sign = ut(1 << (bits_of(typ) - 1))
    ops = operands(ins, 3)
    a, b, w = dec.src(ops[1], typ), dec.src(ops[2], typ), dec.dst(ops[0], typ)
    return lambda st, m: w(st, ((np.asarray(b(st)).view(ut) & ~sign) | (np.asarray(a(st)).view(ut) & sign))
                           .view(np_type(typ)), m)


def b_testp(ins: ir.Instruction, dec: Decoding) -> LaneOp:
    typ = one_type(ins, dec)
    what = [x for x in ins.mods if x in ("finite", "infinite", "number", "notanumber", "normal", "subnormal")]
    if not what:
        raise Unsupported("testp without a test")
    ops = operands(ins, 2)
    a, w = dec.src(ops[1], typ), dec.dst(ops[0], "pred")
    tiny = np.finfo(np_type(typ)).tiny

    def op(st: State, m: Mask) -> None:
        x = np.asarray(a(st))
        t = what[0]
        r = {"finite": lambda: np.isfinite(x), "infinite": lambda: np.isinf(x),
             "number": lambda: ~np.isnan(x), "notanumber": lambda: np.isnan(x),
             "normal": lambda: np.isfinite(x) & (np.abs(x) >= tiny),
             "subnormal": lambda: (x != 0) & (np.abs(x) < tiny)}[t]()
        w(st, r, m)
    return op
