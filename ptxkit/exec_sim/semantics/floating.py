"""Floating-point instructions (PTX ISA §9.7.3), half-precision ones (§9.7.4) and the
``.approx`` math functions: IEEE via numpy with the rounding modifiers of :mod:`ptxkit.exec_sim.floats`.
The approximate instructions (``ex2/lg2/sin/cos/tanh/rsqrt/rcp.approx/sqrt.approx/div.approx|full``)
are evaluated in double precision and rounded: close to, not bit-equal to, a GPU."""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction

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
            if t != "f64":
                return F.canonical_nan(r, t)
            if kind in ("min", "max"):  # one NaN operand gives the other; two, the second
                return F.nan_operand64(np.asarray(r), vals, "last", only_all=True)
            return F.nan_operand64(np.asarray(r), vals, "first" if kind == "div" else "last")
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
    if native and kind != "fma":
        a, b = vals[0], vals[1]
        return {"add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide}[kind](a, b)
    wide = np.float64
    x = [np.asarray(v).astype(wide) for v in vals]
    if t == "f64":
        return _f64(kind, x, mode)
    resid = None
    if kind in ("add", "sub"):
        y = x[1] if kind == "add" else -x[1]
        r, resid = F.two_sum(x[0], y)
        terms = (x[0], y)
    elif kind == "mul":
        r, terms = x[0] * x[1], None  # exact: a product of two f32/f16/bf16 fits in f64
    elif kind == "div":
        r = x[0] / x[1]
        p, pe = F.two_prod(r, x[1])
        resid = np.where(np.isfinite(r), np.sign(x[1]) * ((x[0] - p) - pe), 0)
        terms = None
    elif kind == "fma":
        p = x[0] * x[1]
        r, resid = F.two_sum(p, x[2])
        terms = (p, x[2])
    else:
        raise ValueError(kind)
    if terms is not None and mode == "rm":
        r = _zero_sum_sign(r, resid, terms)
    if t == "bf16":
        return F.bits_to_float(F.bf16_round(r, mode, resid), "bf16")
    return _round_with_tie(r, resid, t, mode)


def _zero_sum_sign(r: np.ndarray, resid: np.ndarray | None, terms: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
    """An exact zero sum rounded toward −∞ is −0 unless both terms are +0 (IEEE 754 §6.3)."""
    zero = (r == 0) if resid is None else (r == 0) & (resid == 0)
    plus = (terms[0] == 0) & ~np.signbit(terms[0]) & (terms[1] == 0) & ~np.signbit(terms[1])
    return np.where(zero & ~plus, -0.0, r)


def _native64(kind: str, x: list[np.ndarray]) -> np.ndarray:
    if kind == "fma":
        return x[0] * x[1] + x[2]
    return {"add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide}[kind](x[0], x[1])


def _f64(kind: str, x: list[np.ndarray], mode: str) -> np.ndarray:
    """An f64 op with any rounding mode: error-free transformations (TwoSum, TwoProduct) give the
    residual's sign; lanes they cannot handle — a result near or in the subnormal range, an exact zero
    (its sign), an overflow — are rounded exactly from rationals. NaN lanes are the native result's:
    the quieted NaN operand, as the GPU gives."""
    x = [np.array(v, np.float64) for v in np.broadcast_arrays(*x)]  # immediates are scalars
    nat = _native64(kind, x)
    if kind in ("add", "sub"):
        r, resid = F.two_sum(x[0], x[1] if kind == "add" else -x[1])
    elif kind == "mul":
        r, resid = F.two_prod(x[0], x[1])
    elif kind == "fma":
        r, resid = F.fma64(x[0], x[1], x[2])
    else:
        r = x[0] / x[1]
        p, pe = F.two_prod(r, x[1])
        resid = np.sign(x[1]) * ((x[0] - p) - pe)
    r = F.adjust(r, np.where(np.isnan(np.sign(resid)), 0, np.sign(resid)), mode) if mode != "rn" else r
    finite_in = np.logical_and.reduce([np.isfinite(v) for v in x])
    if kind == "div":
        finite_in &= x[1] != 0
    big, tiny = 2.0 ** 969, 2.0 ** -969  # past these, Dekker's split or the error term leaves f64's range
    hard = (np.abs(nat) < tiny) | (np.abs(nat) > big) | ~np.isfinite(nat)
    if kind != "add" and kind != "sub":
        mags = [np.abs(x[0] * x[1]) if kind != "div" else np.abs(x[0]), np.abs(x[0]), np.abs(x[1])]
        for m in mags:
            hard |= (m > big) | ((m < tiny) & (m != 0))
        hard |= (mags[0] == 0) & (x[0] != 0) & (x[1] != 0)  # a product that underflowed to zero
        if kind == "fma":
            hard |= np.abs(x[2]) > big
    hard &= finite_in
    r = np.atleast_1d(np.where(np.isnan(nat), nat, r))
    flat = [np.atleast_1d(v).ravel() for v in x]
    for i in np.flatnonzero(hard):
        r.flat[i] = _exact64(kind, [float(v[i]) for v in flat], mode)
    return r.reshape(np.shape(nat))


def _exact64(kind: str, v: list[float], mode: str) -> float:
    q = [Fraction(a) for a in v]
    exact = {"add": lambda: q[0] + q[1], "sub": lambda: q[0] - q[1], "mul": lambda: q[0] * q[1],
             "div": lambda: q[0] / q[1], "fma": lambda: q[0] * q[1] + q[2]}[kind]()
    if exact != 0:
        return F.round_fraction(exact, "f64", mode)
    neg = [math.copysign(1.0, a) < 0 for a in v]
    if kind in ("mul", "div"):
        return -0.0 if neg[0] != neg[1] else 0.0
    if kind == "fma":  # the product and the addend
        both_zero, signs = (v[0] == 0 or v[1] == 0) and v[2] == 0, (neg[0] != neg[1], neg[2])
    else:
        both_zero, signs = v[0] == 0 and v[1] == 0, (neg[0], neg[1] != (kind == "sub"))
    if both_zero and signs[0] == signs[1]:
        return -0.0 if signs[0] else 0.0
    return -0.0 if mode == "rm" else 0.0


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
    mid = (diff == half) & (resid != 0) & np.isfinite(out)
    # at a midpoint the exact value lies beyond it iff the residual points the same way
    beyond = mid & (np.sign(resid) == np.sign(diff))
    before = mid & (np.sign(resid) != np.sign(diff))
    return np.where(beyond, nb, np.where(before, out, out)).astype(out.dtype)


# (exponent mask, payload mask) of the formats abs/neg see as raw bits
_FIELDS = {"f16": (0x7C00, 0x3FF), "bf16": (0x7F80, 0x7F), "f32": (0x7F800000, 0x7FFFFF),
           "f64": (0x7FF0000000000000, 0xFFFFFFFFFFFFF)}


def _sign_op(u: np.ndarray, typ: str, kind: str, ftz_: bool) -> np.ndarray:
    """abs/neg of raw ``typ`` bits (unsigned array of its width)."""
    ut = u.dtype.type
    bits = 8 * u.dtype.itemsize
    sign, (emask, pmask) = ut(1 << (bits - 1)), (ut(f) for f in _FIELDS[typ])
    if ftz_:
        u = np.where(((u & emask) == 0) & ((u & pmask) != 0), u & sign, u)
    r = (u & ~sign) if kind == "abs" else (u ^ sign)
    nan = (u & ~sign) > emask
    if typ == "f64":  # the input NaN, quieted, its sign kept
        return np.where(nan, u | ut(1 << 51), r)
    return np.where(nan, ~sign, r)  # the canonical NaN


def float_unary_bits(ins: ir.Instruction, dec: Decoding, typ: str, kind: str) -> LaneOp:
    """abs/neg on floats (ISA §9.7.3.5-6, §9.7.4.5-6): the sign bit cleared/flipped, .ftz flushing a
    subnormal input to sign-preserving zero first. The ISA leaves a NaN result unspecified; an sm_90 GPU
    gives the canonical NaN (0x7fff, 0x7fffffff) for f16/bf16 (each half of f16x2/bf16x2) and f32, and
    the input NaN quieted, sign unchanged, for f64 (measured: ptxkit.corpus.gpuprobe)."""
    ops = operands(ins, 2)
    ftz_ = "ftz" in ins.mods
    if typ in ("f16x2", "bf16x2"):
        half = typ[:-2]
        a, w = dec.src(ops[1], "b32"), dec.dst(ops[0], "b32")

        def packed(st: State, m: Mask) -> None:
            x = np.asarray(a(st)).astype(np.uint32)
            lo = _sign_op((x & np.uint32(0xFFFF)).astype(np.uint16), half, kind, ftz_).astype(np.uint32)
            hi = _sign_op((x >> np.uint32(16)).astype(np.uint16), half, kind, ftz_).astype(np.uint32)
            w(st, (hi << np.uint32(16)) | lo, m)
        return packed
    width = 16 if typ in ("f16", "bf16") else bits_of(typ)
    a, w = dec.src(ops[1], f"b{width}"), dec.dst(ops[0], f"b{width}")
    ut = {16: np.uint16, 32: np.uint32, 64: np.uint64}[width]
    return lambda st, m: w(st, _sign_op(np.asarray(a(st)).astype(ut), typ, kind, ftz_), m)


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
            return F.canonical_nan(r, t)
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
             # an sm_90 GPU counts ±0 as normal (measured: ptxkit.corpus.gpuprobe)
             "normal": lambda: np.isfinite(x) & ((np.abs(x) >= tiny) | (x == 0)),
             "subnormal": lambda: (x != 0) & (np.abs(x) < tiny)}[t]()
        w(st, r, m)
    return op
