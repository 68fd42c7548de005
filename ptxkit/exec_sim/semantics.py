"""Instruction semantics over numpy lanes, one builder per family (PTX ISA §9.7).

``build(ins, dec)`` returns a closure ``op(st, mask)`` executing the instruction for every lane of the
state ``st`` (``mask`` None = all lanes; otherwise only lanes set are written). Integer arithmetic is
exact with wrap-around at every width (numpy fixed-width ints; ``.hi``/``.wide`` via widening or 32-bit
limbs). Float arithmetic is IEEE via numpy with the rounding modifiers of :mod:`floats`. The
approximate instructions (``ex2/lg2/sin/cos/tanh/rsqrt/rcp.approx/sqrt.approx/div.approx|full``) are
evaluated in double precision and rounded: close to, not bit-equal to, a GPU. Anything else raises
:class:`NotImplementedInstruction` with the instruction's position when executed.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ptxkit import ir
from ptxkit.exec_sim import floats as F
from ptxkit.exec_sim import warp as W
from ptxkit.exec_sim.memory import CONST_WINDOW, LOCAL_WINDOW, SHARED_WINDOW, UINT
from ptxkit.exec_sim.values import SINT_BITS, UINT_BITS, np_type
from ptxkit.ptx.types import is_type, type_bits

ROUNDING = ("rn", "rz", "rm", "rp", "rni", "rzi", "rmi", "rpi", "rna", "rs")
FLOATS = ("f16", "bf16", "f32", "f64", "f16x2", "bf16x2")
SPACES = ("global", "shared", "local", "param", "const")


def _types(mods) -> list[str]:
    return [m for m in mods if is_type(m)]


def _one_type(ins, dec) -> str:
    ts = _types(ins.mods)
    if not ts:
        raise dec.error(f"{dec.spelling(ins)} needs a type")
    return ts[-1]


def _mode(mods) -> str | None:
    for m in mods:
        if m in ROUNDING:
            return m
    return None


# modifiers whose meaning the builders do not model: refuse them rather than ignore them
_REFUSED_MODS = frozenset({"satfinite", "rna", "rs", "xorsign", "oob", "abs", "relu"})
_RELU_OK = frozenset({"min", "max", "cvt"})  # integer min/max.relu and cvt.relu (f16x2 pack) are modelled


def build(ins: ir.Instruction, dec) -> Callable:
    f = _BUILDERS.get(ins.opcode)
    if f is None:
        return dec.unsupported()
    bad = [x for x in ins.mods if x in _REFUSED_MODS and not (x == "relu" and ins.opcode in _RELU_OK)]
    if bad:
        return dec.unsupported(f"{dec.spelling(ins)} (modifier .{bad[0]})")
    try:
        return f(ins, dec)
    except _Unsupported as e:
        return dec.unsupported(e.args[0] if e.args else None)


class _Unsupported(Exception):
    pass


def _ops(ins, n: int | None = None):
    if n is not None and len(ins.operands) != n:
        raise _Unsupported(f"{'.'.join((ins.opcode,) + ins.mods)} with {len(ins.operands)} operands")
    return ins.operands


# ---------------------------------------------------------------------- helpers
def _bits(typ: str) -> int:
    return type_bits(typ)


def _u(typ: str):
    return UINT_BITS[_bits(typ)]


def _s(typ: str):
    return SINT_BITS[_bits(typ)]


def _arr(x, n):
    return x if np.ndim(x) else np.full(n, x)


def _simple(ins, dec, typ, fn, nsrc):
    """d = fn(srcs...) for every lane."""
    ops = _ops(ins, nsrc + 1)
    w = dec.dst(ops[0], typ)
    srcs = [dec.src(o, typ) for o in ops[1:]]
    if nsrc == 1:
        a, = srcs
        return lambda st, m: w(st, fn(a(st)), m)
    if nsrc == 2:
        a, b = srcs
        return lambda st, m: w(st, fn(a(st), b(st)), m)
    a, b, c = srcs
    return lambda st, m: w(st, fn(a(st), b(st), c(st)), m)


# ---------------------------------------------------------------------- integer arithmetic (§9.7.1)
def _mulhi(a, b, typ):
    bits = _bits(typ)
    signed = typ[0] == "s"
    if bits <= 32:
        wide = np.int64 if signed else np.uint64
        return ((np.asarray(a).astype(wide) * np.asarray(b).astype(wide)) >> bits).astype(np_type(typ))
    ua = np.asarray(a).view(np.uint64) if np.ndim(a) else np.uint64(np.asarray(a).view(np.uint64))
    ub = np.asarray(b).view(np.uint64) if np.ndim(b) else np.uint64(np.asarray(b).view(np.uint64))
    m32 = np.uint64(0xFFFFFFFF)
    s32 = np.uint64(32)
    a_lo, a_hi = ua & m32, ua >> s32
    b_lo, b_hi = ub & m32, ub >> s32
    ll = a_lo * b_lo
    lh = a_lo * b_hi
    hl = a_hi * b_lo
    hh = a_hi * b_hi
    mid = (ll >> s32) + (lh & m32) + (hl & m32)
    hi = hh + (lh >> s32) + (hl >> s32) + (mid >> s32)
    if signed:
        hi = hi - np.where(np.asarray(a) < 0, ub, np.uint64(0)) - np.where(np.asarray(b) < 0, ua, np.uint64(0))
    return np.asarray(hi).view(np_type(typ))


def _wide(typ):
    return ("s" if typ[0] == "s" else "u") + str(2 * _bits(typ))


def _b_mul(ins, dec):
    typ = _one_type(ins, dec)
    mods = ins.mods
    if typ in FLOATS:
        return _float_arith(ins, dec, "mul", typ)
    ops = _ops(ins, 3)
    a, b = dec.src(ops[1], typ), dec.src(ops[2], typ)
    if "wide" in mods:
        wt = _wide(typ)
        wdt = np_type(wt)
        w = dec.dst(ops[0], wt)
        return lambda st, m: w(st, np.asarray(a(st)).astype(wdt) * np.asarray(b(st)).astype(wdt), m)
    w = dec.dst(ops[0], typ)
    if "hi" in mods:
        return lambda st, m: w(st, _mulhi(a(st), b(st), typ), m)
    return lambda st, m: w(st, a(st) * b(st), m)


def _b_mad(ins, dec):
    typ = _one_type(ins, dec)
    mods = ins.mods
    if typ in FLOATS:
        return _float_arith(ins, dec, "fma", typ)
    ops = _ops(ins, 4)
    a, b = dec.src(ops[1], typ), dec.src(ops[2], typ)
    cc_in = ins.opcode == "madc"
    cc_out = "cc" in mods
    if "wide" in mods:
        wt = _wide(typ)
        wdt = np_type(wt)
        c = dec.src(ops[3], wt)
        w = dec.dst(ops[0], wt)
        if cc_in or cc_out:
            raise _Unsupported("mad.wide with carry")
        return lambda st, m: w(st, np.asarray(a(st)).astype(wdt) * np.asarray(b(st)).astype(wdt) + c(st), m)
    c = dec.src(ops[3], typ)
    w = dec.dst(ops[0], typ)
    prod = (lambda st: _mulhi(a(st), b(st), typ)) if "hi" in mods else (lambda st: a(st) * b(st))
    if "sat" in mods:
        if typ != "s32" or "hi" not in mods:
            raise _Unsupported("mad.sat other than mad.hi.sat.s32")

        def op(st, m):
            r = prod(st).astype(np.int64) + np.asarray(c(st)).astype(np.int64)
            w(st, np.clip(r, -2 ** 31, 2 ** 31 - 1).astype(np.int32), m)
        return op
    if cc_in or cc_out:
        return _carry_op(ins, dec, typ, w, prod, c, cc_in, cc_out, add=True)
    return lambda st, m: w(st, prod(st) + c(st), m)


def _carry_op(ins, dec, typ, w, a, b, cc_in, cc_out, add):
    """add.cc/addc/sub.cc/subc/mad.cc/madc (ISA §9.7.2): the carry flag CC.CF is one bool per lane in
    ``st.cc``; subtraction sets it to NOT borrow and subc subtracts !CF (a + ~b + CF, as GPUs do)."""
    bits = _bits(typ)
    ut = UINT_BITS[bits]

    def op(st, m):
        n = st.n
        x = np.broadcast_to(np.asarray(a(st)), (n,)).view(ut)
        y = np.broadcast_to(np.asarray(b(st)), (n,)).view(ut)
        if add:
            cin = st.cc.astype(ut) if cc_in else np.zeros(n, ut)
        else:
            # the hardware keeps a carry, not a borrow: sub is a + ~b + CF, so the borrow-in of
            # subc is !CF and sub.cc leaves CF = !borrow (ZLUDA's subc_cc_s32 test, run on NVIDIA GPUs)
            cin = (~st.cc).astype(ut) if cc_in else np.zeros(n, ut)
        if bits < 64:
            wide = x.astype(np.int64) + y.astype(np.int64) + cin if add else \
                x.astype(np.int64) - y.astype(np.int64) - cin
            r = wide.astype(ut)
            carry = (wide >> bits) != 0 if add else wide < 0
        elif add:
            r1 = x + y
            r = r1 + cin
            carry = (r1 < x) | (r < r1)
        else:
            r1 = x - y
            r = r1 - cin
            carry = (x < y) | (r1 < cin)
        w(st, r.view(np_type(typ)), m)
        if cc_out:
            if not add:
                carry = ~carry
            st.cc = carry.copy() if m is None else np.where(m, carry, st.cc)
    return op


def _b_addsub(ins, dec):
    typ = _one_type(ins, dec)
    mods = ins.mods
    add = ins.opcode in ("add", "addc")
    if typ in FLOATS:
        return _float_arith(ins, dec, "add" if add else "sub", typ)
    ops = _ops(ins, 3)
    a, b = dec.src(ops[1], typ), dec.src(ops[2], typ)
    w = dec.dst(ops[0], typ)
    cc_in = ins.opcode in ("addc", "subc")
    cc_out = "cc" in mods
    if cc_in or cc_out:
        return _carry_op(ins, dec, typ, w, a, b, cc_in, cc_out, add)
    if "sat" in mods:
        if typ != "s32":
            raise _Unsupported(".sat on other than .s32")
        if add:
            return lambda st, m: w(st, np.clip(np.asarray(a(st)).astype(np.int64) + np.asarray(b(st)).astype(np.int64),
                                               -2 ** 31, 2 ** 31 - 1).astype(np.int32), m)
        return lambda st, m: w(st, np.clip(np.asarray(a(st)).astype(np.int64) - np.asarray(b(st)).astype(np.int64),
                                           -2 ** 31, 2 ** 31 - 1).astype(np.int32), m)
    if add:
        return lambda st, m: w(st, a(st) + b(st), m)
    return lambda st, m: w(st, a(st) - b(st), m)


def _divrem(a, b, typ, rem):
    """Integer div/rem truncating toward zero; division by zero gives all ones (quotient) or the
    dividend (remainder), as the hardware does (the ISA leaves it unspecified)."""
    bits = _bits(typ)
    a = np.asarray(a)
    b = np.asarray(b)
    if typ[0] != "s":
        zero = b == 0
        bb = np.where(zero, 1, b).astype(a.dtype)
        q = a // bb
        r = a - q * bb
        if rem:
            return np.where(zero, a, r).astype(a.dtype)
        return np.where(zero, np.iinfo(a.dtype).max, q).astype(a.dtype)
    ut = UINT_BITS[bits]
    ua = np.where(a < 0, (-(a.astype(np.int64) if bits < 64 else a)).astype(a.dtype).view(ut)
                  if bits == 64 else (-a.astype(np.int64)).astype(ut), a.astype(ut))
    ub = np.where(b < 0, (-b.astype(np.int64)).astype(ut) if bits < 64 else (-b).view(ut), b.astype(ut))
    zero = ub == 0
    ubb = np.where(zero, ut(1), ub).astype(ut)
    q = (ua // ubb).astype(ut)
    neg = (a < 0) ^ (b < 0)
    q = np.where(neg, (ut(0) - q).astype(ut), q).view(a.dtype)
    if rem:
        r = (a - q * np.where(zero, 1, b).astype(a.dtype)).astype(a.dtype)
        return np.where(zero, a, r).astype(a.dtype)
    return np.where(zero, a.dtype.type(-1), q).astype(a.dtype)


def _b_div(ins, dec):
    typ = _one_type(ins, dec)
    if typ in FLOATS:
        return _float_arith(ins, dec, "div", typ)
    return _simple(ins, dec, typ, lambda a, b: _divrem(_arr(a, 1), b, typ, False), 2)


def _b_rem(ins, dec):
    typ = _one_type(ins, dec)
    return _simple(ins, dec, typ, lambda a, b: _divrem(_arr(a, 1), b, typ, True), 2)


def _b_minmax(ins, dec):
    typ = _one_type(ins, dec)
    is_min = ins.opcode == "min"
    if typ in FLOATS:
        return _float_arith(ins, dec, ins.opcode, typ)
    relu = "relu" in ins.mods
    f = np.minimum if is_min else np.maximum
    if len(ins.operands) == 4:  # three-input min/max (sm_100)
        def g3(a, b, c):
            r = f(f(a, b), c)
            return np.maximum(r, 0).astype(r.dtype) if relu else r
        return _simple(ins, dec, typ, g3, 3)

    def g(a, b):
        r = f(a, b)
        return np.maximum(r, 0).astype(np.asarray(r).dtype) if relu else r
    return _simple(ins, dec, typ, g, 2)


def _b_abs(ins, dec):
    typ = _one_type(ins, dec)
    if typ in FLOATS:
        return _float_unary_bits(ins, dec, typ, "abs")
    return _simple(ins, dec, typ, lambda a: np.where(a < 0, (a.dtype.type(0) - a), a).astype(np.asarray(a).dtype), 1)


def _b_neg(ins, dec):
    typ = _one_type(ins, dec)
    if typ in FLOATS:
        return _float_unary_bits(ins, dec, typ, "neg")
    return _simple(ins, dec, typ, lambda a: np.asarray(a).dtype.type(0) - a, 1)


def _b_sad(ins, dec):
    typ = _one_type(ins, dec)
    return _simple(ins, dec, typ, lambda a, b, c: np.where(a < b, b - a, a - b) + c, 3)


def _b_mul24(ins, dec):
    typ = _one_type(ins, dec)
    hi = "hi" in ins.mods  # .hi: bits 47..16 of the 48-bit product (ISA §9.7.1.5)
    signed = typ[0] == "s"

    def low24(x):
        x = np.asarray(x).astype(np.int64)
        x = x & 0xFFFFFF
        return np.where(signed & (x >= 0x800000), x - 0x1000000, x) if signed else x

    def prod(a, b):
        t = low24(a) * low24(b)
        return t >> 16 if hi else t

    if ins.opcode == "mul24":
        return _simple(ins, dec, typ, lambda a, b: prod(a, b).astype(np.int64).astype(np_type(typ)), 2)
    return _simple(ins, dec, typ, lambda a, b, c: (prod(a, b) + np.asarray(c).astype(np.int64))
                   .astype(np.int64).astype(np_type(typ)), 3)


def _b_dp(ins, dec):
    """dp4a.atype.btype d, a, b, c: c + four byte products; dp2a.{lo,hi}: c + two (16-bit half of a) x
    (byte of b, low or high pair) products (ISA §9.7.1.23-24). Signedness per operand type."""
    ts = _types(ins.mods)
    if len(ts) != 2 or len(ins.operands) != 4:
        raise _Unsupported()
    at, bt = ts
    four = ins.opcode == "dp4a"
    hi = "hi" in ins.mods
    dtyp = "s32" if "s" in (at[0], bt[0]) else "u32"
    ops = ins.operands
    a, b, c = dec.src(ops[1], "u32"), dec.src(ops[2], "u32"), dec.src(ops[3], dtyp)
    w = dec.dst(ops[0], dtyp)

    def part(x, i, bits, signed):
        v = (np.asarray(x).astype(np.int64) >> (bits * i)) & ((1 << bits) - 1)
        return np.where(v >= 1 << (bits - 1), v - (1 << bits), v) if signed else v

    def op(st, m):
        x, y = a(st), b(st)
        if four:
            acc = sum(part(x, i, 8, at[0] == "s") * part(y, i, 8, bt[0] == "s") for i in range(4))
        else:
            acc = sum(part(x, i, 16, at[0] == "s") * part(y, i + (2 if hi else 0), 8, bt[0] == "s")
                      for i in range(2))
        r = (np.asarray(c(st)).astype(np.int64) + acc) & 0xFFFFFFFF
        w(st, r.astype(np.uint32).view(np_type(dtyp)), m)
    return op


# ---------------------------------------------------------------------- logic and shifts (§9.7.8)
def _b_logic(ins, dec):
    typ = _one_type(ins, dec)
    f = {"and": np.bitwise_and, "or": np.bitwise_or, "xor": np.bitwise_xor}[ins.opcode]
    return _simple(ins, dec, typ, f, 2)


def _b_not(ins, dec):
    typ = _one_type(ins, dec)
    if typ == "pred":
        return _simple(ins, dec, typ, np.logical_not, 1)
    return _simple(ins, dec, typ, np.invert, 1)


def _b_cnot(ins, dec):
    typ = _one_type(ins, dec)
    return _simple(ins, dec, typ, lambda a: (np.asarray(a) == 0).astype(np_type(typ)), 1)


def _shift(a, n, typ, left):
    bits = _bits(typ)
    a = np.asarray(a)
    n = np.asarray(n).astype(np.uint64)
    big = n >= bits
    k = np.minimum(n, bits - 1).astype(a.dtype)
    if left:
        return np.where(big, a.dtype.type(0), a << k).astype(a.dtype)
    if typ[0] == "s":
        return (a >> k).astype(a.dtype)  # >= width: all sign bits, as >> (bits-1)
    return np.where(big, a.dtype.type(0), a >> k).astype(a.dtype)


def _b_shl(ins, dec):
    typ = _one_type(ins, dec)
    ops = _ops(ins, 3)
    a, b, w = dec.src(ops[1], typ), dec.src(ops[2], "u32"), dec.dst(ops[0], typ)
    left = ins.opcode == "shl"
    return lambda st, m: w(st, _shift(a(st), b(st), typ, left), m)


def _b_shf(ins, dec):
    """shf.{l,r}.{wrap,clamp}.b32 (ISA §9.7.8.6): funnel shift of the 64-bit {b:a}."""
    ops = _ops(ins, 4)
    left = "l" in ins.mods
    wrap = "wrap" in ins.mods
    a, b, c = dec.src(ops[1], "u32"), dec.src(ops[2], "u32"), dec.src(ops[3], "u32")
    w = dec.dst(ops[0], "b32")

    def op(st, m):
        n = np.asarray(c(st)).astype(np.uint64)
        n = n & np.uint64(31) if wrap else np.minimum(n, np.uint64(32))
        v = (np.asarray(b(st)).astype(np.uint64) << np.uint64(32)) | np.asarray(a(st)).astype(np.uint64)
        if left:
            r = (v << n) >> np.uint64(32)
        else:
            r = v >> n
        w(st, (r & np.uint64(0xFFFFFFFF)).astype(np.uint32), m)
    return op


def _b_bfe(ins, dec):
    """bfe (ISA §9.7.8.9)."""
    typ = _one_type(ins, dec)
    bits = _bits(typ)
    ut = UINT_BITS[bits]
    signed = typ[0] == "s"
    ops = _ops(ins, 4)
    a, b, c = dec.src(ops[1], typ), dec.src(ops[2], "u32"), dec.src(ops[3], "u32")
    w = dec.dst(ops[0], typ)
    one = ut(1)

    def op(st, m):
        av = np.asarray(a(st)).view(ut) if np.ndim(a(st)) else np.asarray(a(st)).view(ut)
        pos = (np.asarray(b(st)) & 0xFF).astype(np.int64)
        ln = (np.asarray(c(st)) & 0xFF).astype(np.int64)
        field_ = np.where(pos >= bits, ut(0), av >> np.minimum(pos, bits - 1).astype(ut)).astype(ut)
        eff = np.clip(np.minimum(ln, bits - pos), 0, bits)
        mask = np.where(eff >= bits, ~ut(0), (one << np.minimum(eff, bits - 1).astype(ut)) - one).astype(ut)
        d = field_ & mask
        if signed:
            sb = np.minimum(pos + ln - 1, bits - 1)
            sbit = ((av >> np.maximum(sb, 0).astype(ut)) & one).astype(bool) & (ln > 0)
            d = np.where(sbit, d | ~mask, d).astype(ut)
        w(st, np.asarray(d).view(np_type(typ)), m)
    return op


def _b_bfi(ins, dec):
    """bfi (ISA §9.7.8.10): insert the low len bits of a into b at pos."""
    typ = _one_type(ins, dec)
    bits = _bits(typ)
    ut = UINT_BITS[bits]
    ops = _ops(ins, 5)
    a, b = dec.src(ops[1], typ), dec.src(ops[2], typ)
    c, d_ = dec.src(ops[3], "u32"), dec.src(ops[4], "u32")
    w = dec.dst(ops[0], typ)
    one = ut(1)

    def op(st, m):
        av, bv = np.asarray(a(st)).view(ut), np.asarray(b(st)).view(ut)
        pos = (np.asarray(c(st)) & 0xFF).astype(np.int64)
        ln = (np.asarray(d_(st)) & 0xFF).astype(np.int64)
        eff = np.clip(np.minimum(ln, bits - pos), 0, bits)
        mask = np.where(eff >= bits, ~ut(0), (one << np.minimum(eff, bits - 1).astype(ut)) - one).astype(ut)
        p = np.minimum(pos, bits - 1).astype(ut)
        ins_ = np.where(pos >= bits, ut(0), (mask << p)).astype(ut)
        r = (bv & ~ins_) | ((av << p) & ins_)
        w(st, np.asarray(r, dtype=ut).view(np_type(typ)), m)
    return op


def _b_prmt(ins, dec):
    """prmt.b32{.mode} (ISA §9.7.8.7)."""
    ops = _ops(ins, 4)
    modes = [x for x in ins.mods if x in ("f4e", "b4e", "rc8", "ecl", "ecr", "rc16")]
    mode = modes[0] if modes else None
    a, b, c = dec.src(ops[1], "u32"), dec.src(ops[2], "u32"), dec.src(ops[3], "u32")
    w = dec.dst(ops[0], "b32")

    def op(st, m):
        n = st.n
        v = (np.asarray(b(st)).astype(np.uint64) << np.uint64(32)) | np.asarray(a(st)).astype(np.uint64)
        v = np.broadcast_to(v, (n,))
        byts = [((v >> np.uint64(8 * i)) & np.uint64(0xFF)).astype(np.uint32) for i in range(8)]
        byts = np.stack(byts)  # (8, n)
        s = np.broadcast_to(np.asarray(c(st)).astype(np.uint32), (n,))
        lanes = np.arange(n)
        out = np.zeros(n, np.uint32)
        if mode is None:
            for i in range(4):
                sel = (s >> np.uint32(4 * i)) & np.uint32(0xF)
                val = byts[(sel & 7).astype(np.int64), lanes]
                sign = (sel & 8) != 0
                val = np.where(sign, np.where(val & 0x80, np.uint32(0xFF), np.uint32(0)), val)
                out |= val.astype(np.uint32) << np.uint32(8 * i)
        else:
            s2 = (s & np.uint32(3)).astype(np.int64)
            table = {
                "f4e": [[0, 1, 2, 3], [1, 2, 3, 4], [2, 3, 4, 5], [3, 4, 5, 6]],
                "b4e": [[0, 7, 6, 5], [1, 0, 7, 6], [2, 1, 0, 7], [3, 2, 1, 0]],
                "rc8": [[0, 0, 0, 0], [1, 1, 1, 1], [2, 2, 2, 2], [3, 3, 3, 3]],
                "ecl": [[0, 1, 2, 3], [1, 1, 2, 3], [2, 2, 2, 3], [3, 3, 3, 3]],
                "ecr": [[0, 0, 0, 0], [0, 1, 1, 1], [0, 1, 2, 2], [0, 1, 2, 3]],
                "rc16": [[0, 1, 0, 1], [2, 3, 2, 3], [0, 1, 0, 1], [2, 3, 2, 3]],
            }[mode]
            t = np.array(table, np.int64)
            for i in range(4):
                val = byts[t[s2, i], lanes]
                out |= val.astype(np.uint32) << np.uint32(8 * i)
        w(st, out, m)
    return op


def _b_lop3(ins, dec):
    """lop3.b32 d, a, b, c, immLut (ISA §9.7.8.5)."""
    ops = ins.operands
    if len(ops) != 5 or not isinstance(ops[4], ir.Imm) or isinstance(ops[0], ir.Pipe):
        raise _Unsupported("lop3 with a predicate output or a non-constant LUT")
    lut = ops[4].value & 0xFF
    a, b, c = dec.src(ops[1], "b32"), dec.src(ops[2], "b32"), dec.src(ops[3], "b32")
    w = dec.dst(ops[0], "b32")

    def op(st, m):
        x, y, z = np.asarray(a(st)), np.asarray(b(st)), np.asarray(c(st))
        r = np.zeros(np.broadcast_shapes(x.shape, y.shape, z.shape), np.uint32)
        for i in range(8):
            if lut >> i & 1:
                r |= (x if i & 4 else ~x) & (y if i & 2 else ~y) & (z if i & 1 else ~z)
        w(st, r, m)
    return op


def _b_popc(ins, dec):
    typ = _one_type(ins, dec)
    ops = _ops(ins, 2)
    a, w = dec.src(ops[1], typ), dec.dst(ops[0], "u32")
    return lambda st, m: w(st, np.bitwise_count(np.asarray(a(st))).astype(np.uint32), m)


def _clz(x, bits):
    x = np.asarray(x).astype(np.uint64)
    n = np.zeros(x.shape, np.int64)
    for sh in (32, 16, 8, 4, 2, 1):
        if sh >= bits:
            continue
        big = (x >> np.uint64(bits - sh)) == 0
        # leading sh bits zero: count them and shift up
        n = np.where(big, n + sh, n)
        x = np.where(big, (x << np.uint64(sh)) & np.uint64((1 << bits) - 1 if bits < 64 else 2 ** 64 - 1), x)
    n = np.where((x >> np.uint64(bits - 1)) == 0, n + 1, n)
    return n


def _b_clz(ins, dec):
    typ = _one_type(ins, dec)
    bits = _bits(typ)
    ops = _ops(ins, 2)
    a, w = dec.src(ops[1], typ), dec.dst(ops[0], "u32")
    return lambda st, m: w(st, np.minimum(_clz(a(st), bits), bits).astype(np.uint32), m)


def _b_bfind(ins, dec):
    """bfind{.shiftamt} (ISA §9.7.8.12): position of the most significant non-sign bit, or 0xffffffff."""
    typ = _one_type(ins, dec)
    bits = _bits(typ)
    shiftamt = "shiftamt" in ins.mods
    ops = _ops(ins, 2)
    a, w = dec.src(ops[1], typ), dec.dst(ops[0], "u32")

    def op(st, m):
        x = np.asarray(a(st))
        if typ[0] == "s":
            x = np.where(x < 0, ~x, x)
        ux = x.view(UINT_BITS[bits]) if x.dtype.kind == "i" else x
        lz = _clz(ux, bits)
        pos = bits - 1 - lz
        none = ux == 0
        r = np.where(none, 0xFFFFFFFF, (bits - 1 - pos) if shiftamt else pos)
        w(st, r.astype(np.int64).astype(np.uint32), m)
    return op


_REV8 = np.array([int(f"{i:08b}"[::-1], 2) for i in range(256)], np.uint64)


def _b_brev(ins, dec):
    typ = _one_type(ins, dec)
    bits = _bits(typ)
    ops = _ops(ins, 2)
    a, w = dec.src(ops[1], typ), dec.dst(ops[0], typ)

    def op(st, m):
        x = np.asarray(a(st)).astype(np.uint64)
        r = np.zeros(x.shape, np.uint64)
        for i in range(bits // 8):
            byte = (x >> np.uint64(8 * i)) & np.uint64(0xFF)
            r |= _REV8[byte.astype(np.int64)] << np.uint64(bits - 8 - 8 * i)
        w(st, r.astype(UINT_BITS[bits]).view(np_type(typ)), m)
    return op


def _b_copysign(ins, dec):
    typ = _one_type(ins, dec)
    ut = _u(typ)
    sign = ut(1 << (_bits(typ) - 1))
    ops = _ops(ins, 3)
    a, b, w = dec.src(ops[1], typ), dec.src(ops[2], typ), dec.dst(ops[0], typ)
    return lambda st, m: w(st, ((np.asarray(b(st)).view(ut) & ~sign) | (np.asarray(a(st)).view(ut) & sign))
                           .view(np_type(typ)), m)


def _b_testp(ins, dec):
    typ = _one_type(ins, dec)
    what = [x for x in ins.mods if x in ("finite", "infinite", "number", "notanumber", "normal", "subnormal")]
    if not what:
        raise _Unsupported("testp without a test")
    ops = _ops(ins, 2)
    a, w = dec.src(ops[1], typ), dec.dst(ops[0], "pred")
    tiny = np.finfo(np_type(typ)).tiny

    def op(st, m):
        x = np.asarray(a(st))
        t = what[0]
        r = {"finite": lambda: np.isfinite(x), "infinite": lambda: np.isinf(x),
             "number": lambda: ~np.isnan(x), "notanumber": lambda: np.isnan(x),
             "normal": lambda: np.isfinite(x) & (np.abs(x) >= tiny),
             "subnormal": lambda: (x != 0) & (np.abs(x) < tiny)}[t]()
        w(st, r, m)
    return op


# ---------------------------------------------------------------------- comparison and selection (§9.7.7)
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


def _b_setp(ins, dec):
    typ = _one_type(ins, dec)
    cmps = [x for x in ins.mods if x in _CMP]
    bops = [x for x in ins.mods if x in ("and", "or", "xor")]
    if not cmps:
        raise _Unsupported()
    cmp = cmps[0]
    is_float = typ in FLOATS
    ops = ins.operands
    d = ops[0]
    if typ in ("f16x2", "bf16x2"):
        bop = {"and": np.logical_and, "or": np.logical_or, "xor": np.logical_xor}[bops[0]] if bops else None
        return _b_set_x2(ins, dec, "pred", typ, cmp, bop)
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


def _b_set_x2(ins, dec, dtyp, styp, cmp, bop):
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


def _b_set(ins, dec):
    ts = _types(ins.mods)
    if len(ts) < 2:
        raise _Unsupported()
    dtyp, styp = ts[-2], ts[-1]
    cmps = [x for x in ins.mods if x in _CMP]
    bops = [x for x in ins.mods if x in ("and", "or", "xor")]
    if styp in ("f16x2", "bf16x2"):
        bop = {"and": np.logical_and, "or": np.logical_or, "xor": np.logical_xor}[bops[0]] if bops else None
        return _b_set_x2(ins, dec, dtyp, styp, cmps[0], bop)
    is_float = styp in FLOATS
    ops = ins.operands
    a, b = dec.src(ops[1], styp), dec.src(ops[2], styp)
    c = dec.src(ops[3], "pred") if len(ops) > 3 else None
    w = dec.dst(ops[0], dtyp)
    bop = {"and": np.logical_and, "or": np.logical_or, "xor": np.logical_xor}[bops[0]] if bops else None
    one = np_type(dtyp)(1.0) if dtyp in FLOATS else _u(dtyp)(-1 & ((1 << _bits(dtyp)) - 1)).view(np_type(dtyp))
    zero = np_type(dtyp)(0)

    def op(st, m):
        t = _compare(cmps[0], a(st), b(st), is_float)
        if bop is not None:
            t = bop(t, c(st))
        w(st, np.where(t, one, zero).astype(np_type(dtyp)), m)
    return op


def _b_selp(ins, dec):
    typ = _one_type(ins, dec)
    ops = _ops(ins, 4)
    a, b, c = dec.src(ops[1], typ), dec.src(ops[2], typ), dec.src(ops[3], "pred")
    w = dec.dst(ops[0], typ)
    dt = np_type(typ)
    return lambda st, m: w(st, np.where(c(st), a(st), b(st)).astype(dt, copy=False), m)


def _b_slct(ins, dec):
    ts = _types(ins.mods)
    typ, ctyp = ts[-2], ts[-1]
    ops = _ops(ins, 4)
    a, b, c = dec.src(ops[1], typ), dec.src(ops[2], typ), dec.src(ops[3], ctyp)
    w = dec.dst(ops[0], typ)
    return lambda st, m: w(st, np.where(c(st) >= 0, a(st), b(st)).astype(np_type(typ)), m)


# ---------------------------------------------------------------------- data movement (§9.7.9)
def _b_mov(ins, dec):
    typ = _one_type(ins, dec)
    ops = _ops(ins, 2)
    d, s = ops
    bits = _bits(typ) if typ != "pred" else 1
    if isinstance(s, ir.Vec) and isinstance(d, ir.Vec):  # mov.vN: element-wise, all sources read first
        if len(s.items) != len(d.items):
            raise _Unsupported("vector mov with different lengths")
        rs = [dec.src(x, typ) for x in s.items]
        ws = [dec.dst(x, typ) for x in d.items]

        def vmov(st, m):
            vals = [r(st) for r in rs]
            for w, v in zip(ws, vals):
                w(st, v, m)
        return vmov
    if isinstance(s, ir.Vec):  # pack: first element in the low bits
        k = len(s.items)
        eb = bits // k
        et = f"b{eb}"
        srcs = [dec.src(x, et) if not isinstance(x, ir.Sink) else (lambda st: UINT_BITS[eb](0)) for x in s.items]
        w = dec.dst(d, typ)
        ut = UINT_BITS[bits]

        def pack(st, m):
            r = ut(0)
            for i, f in enumerate(srcs):
                r = r | (np.asarray(f(st)).astype(ut) << ut(eb * i))
            w(st, np.asarray(r, dtype=ut).view(np_type(typ)), m)
        return pack
    if isinstance(d, ir.Vec):  # unpack
        k = len(d.items)
        eb = bits // k
        a = dec.src(s, f"b{bits}")
        ws = [dec.dst(x, f"b{eb}") for x in d.items]
        ut = UINT_BITS[bits]
        et = UINT_BITS[eb]

        def unpack(st, m):
            v = np.asarray(a(st)).view(ut)
            for i, w_ in enumerate(ws):
                w_(st, (v >> ut(eb * i)).astype(et), m)
        return unpack
    a = dec.src(s, typ)
    w = dec.dst(d, typ)
    return lambda st, m: w(st, a(st), m)


def _b_cvta(ins, dec):
    """cvta{.to}.space.size (ISA §9.7.9.19): shared/local windows of the generic space."""
    ops = _ops(ins, 2)
    typ = _one_type(ins, dec)
    to = "to" in ins.mods
    space = [x for x in ins.mods if x.split("::")[0] in SPACES]
    sp = space[0].split("::")[0] if space else "global"
    base = {"shared": SHARED_WINDOW, "local": LOCAL_WINDOW, "const": CONST_WINDOW}.get(sp, 0)
    a, w = dec.src(ops[1], typ), dec.dst(ops[0], typ)
    ut = _u(typ)
    b = ut(base & ((1 << _bits(typ)) - 1))
    if to:
        return lambda st, m: w(st, np.asarray(a(st)).view(ut) - b, m)
    return lambda st, m: w(st, np.asarray(a(st)).view(ut) + b, m)


def _space(ins, sym_space):
    for x in ins.mods:
        base = x.split("::")[0]
        if base in SPACES:
            return base
    return sym_space or "generic"


def _vec(mods) -> int:
    for x in mods:
        if x in ("v2", "v4", "v8"):
            return int(x[1:])
    return 1


def _b_ld(ins, dec):
    """ld / ld.global.nc / ldu (ISA §9.7.9.8): vector loads read consecutive elements."""
    typ = _one_type(ins, dec)
    hint = any("cache_hint" in x for x in ins.mods)
    ops = ins.operands[:2] if hint and len(ins.operands) == 3 else _ops(ins, 2)
    addr, sym_space = dec.addr(ops[1])
    space = _space(ins, sym_space)
    size = max(_bits(typ) // 8, 1)
    n = _vec(ins.mods)
    dsts = list(ops[0].items) if isinstance(ops[0], ir.Vec) else [ops[0]]
    if len(dsts) != n:
        raise _Unsupported("vector load with a mismatched destination count")
    ws = [dec.dst(x, typ) for x in dsts]
    dt = np_type(typ)

    def op(st, m):
        base = addr(st)
        if np.ndim(base) == 0:
            base = np.full(st.n, base, np.uint64)
        for i, w in enumerate(ws):
            raw = st.mem.load(space, base + np.uint64(i * size) if i else base, size, m, st)
            w(st, raw.view(dt) if dt != raw.dtype else raw, m)
    return op


def _b_st(ins, dec):
    typ = _one_type(ins, dec)
    hint = any("cache_hint" in x for x in ins.mods)
    ops = ins.operands[:2] if hint and len(ins.operands) == 3 else _ops(ins, 2)
    addr, sym_space = dec.addr(ops[0])
    space = _space(ins, sym_space)
    size = max(_bits(typ) // 8, 1)
    srcs = list(ops[1].items) if isinstance(ops[1], ir.Vec) else [ops[1]]
    rs = [dec.src(x, typ) for x in srcs]
    ut = UINT[size]

    def op(st, m):
        base = addr(st)
        if np.ndim(base) == 0:
            base = np.full(st.n, base, np.uint64)
        for i, r in enumerate(rs):
            v = np.asarray(r(st))
            st.mem.store(space, base + np.uint64(i * size) if i else base, size,
                         v.view(ut) if v.dtype != ut else v, m, st)
    return op


_ATOM_OPS = ("and", "or", "xor", "cas", "exch", "add", "inc", "dec", "min", "max")


def _b_atom(ins, dec):
    """atom / red (ISA §9.7.13.5-6): lanes applied in lane order (one valid serialisation)."""
    typ = _one_type(ins, dec)
    opn = [x for x in ins.mods if x in _ATOM_OPS]
    if not opn or _vec(ins.mods) != 1:
        raise _Unsupported()
    opn = opn[0]
    ops = list(ins.operands)
    red = ins.opcode == "red"
    dst = None if red else ops.pop(0)
    addr, sym_space = dec.addr(ops[0])
    space = _space(ins, sym_space)
    size = max(_bits(typ) // 8, 1)
    rt = f"b{size * 8}"
    a = dec.src(ops[1], rt)
    b = dec.src(ops[2], rt) if len(ops) > 2 else None
    w = dec.dst(dst, rt) if dst is not None else None

    def op(st, m):
        base = addr(st)
        if np.ndim(base) == 0:
            base = np.full(st.n, base, np.uint64)
        old = st.mem.atomic(space, opn, typ, base, size, a(st), b(st) if b else None, m, st)
        if w is not None:
            w(st, old, m)
    return op


def _b_nop(ins, dec):
    return lambda st, m: None


def _b_createpolicy(ins, dec):
    w = dec.dst(ins.operands[0], "b64")
    return lambda st, m: w(st, np.uint64(0), m)


def _b_trap(ins, dec):
    err = dec.error("trap executed")

    def op(st, m):
        raise err
    return op


def _b_cp(ins, dec):
    """cp.async.{ca,cg}.shared{::cta}.global [dst], [src], cp-size{, src-size} (ISA §9.7.9.25):
    performed at once (a valid schedule of an asynchronous copy; commit/wait are then no-ops).
    Bytes past src-size are zero-filled."""
    mods = ins.mods
    if "async" not in mods:
        raise _Unsupported()
    if any(x in mods for x in ("commit_group", "wait_group", "wait_all")) and "bulk" not in mods:
        return lambda st, m: None
    if "bulk" in mods or "mbarrier" in mods:
        raise _Unsupported()
    ops = ins.operands
    if len(ops) < 3 or not isinstance(ops[2], ir.Imm):
        raise _Unsupported("cp.async without a constant cp-size")
    dst, dspace = dec.addr(ops[0])
    src, sspace = dec.addr(ops[1])
    size = ops[2].value
    # a 4th operand is src-size, unless it is the .L2::cache_hint policy
    has_src_size = len(ops) > 4 or (len(ops) == 4 and not any("cache_hint" in x for x in mods))
    src_size = dec.src(ops[3], "u32") if has_src_size else None
    chunk = 4 if size >= 4 else size

    def op(st, m):
        d = np.broadcast_to(np.asarray(dst(st), dtype=np.uint64), (st.n,))
        s_ = np.broadcast_to(np.asarray(src(st), dtype=np.uint64), (st.n,))
        limit = None if src_size is None else np.broadcast_to(np.asarray(src_size(st)).astype(np.int64), (st.n,))
        for k in range(0, size, chunk):
            v = st.mem.load("global", s_ + np.uint64(k), chunk, m, st)
            if limit is not None:
                keep = limit >= k + chunk
                v = np.where(keep, v, v.dtype.type(0))  # partial chunks do not occur for aligned sizes
            st.mem.store("shared", d + np.uint64(k), chunk, v, m, st)
    return op


# ---------------------------------------------------------------------- conversion (§9.7.9.21)
_INT_LIMITS = {t: (np.iinfo(np_type(t)).min, np.iinfo(np_type(t)).max)
               for t in ("u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64")}


def _read_float(dec, op, typ):
    if typ == "bf16":
        r = dec.src(op, "u16")
        return lambda st: F.bits_to_float(np.asarray(r(st)), "bf16")
    return dec.src(op, typ)


def _write_float(dec, op, typ, mode):
    """Writer taking a wide float array, rounding it to ``typ`` with ``mode``."""
    if typ == "bf16":
        w = dec.dst(op, "u16")
        return lambda st, v, m: w(st, F.bf16_round(np.asarray(v), mode or "rn"), m)
    w = dec.dst(op, typ)
    dt = np_type(typ)

    def wr(st, v, m):
        v = np.asarray(v)
        if v.dtype != dt:
            v = F.round_float(v, typ, mode or "rn")
        w(st, v, m)
    return wr


def _b_cvt(ins, dec):
    ts = _types(ins.mods)
    if len(ts) < 2:
        raise _Unsupported()
    dtyp, styp = ts[0], ts[1]
    mode = _mode(ins.mods)
    sat = "sat" in ins.mods
    ftz_ = "ftz" in ins.mods
    ops = ins.operands
    if dtyp in ("f16x2", "bf16x2") and styp == "f32" and len(ops) == 3:
        # cvt.rn.f16x2.f32 d, a, b: d = {cvt(a) : cvt(b)} (a in the upper half)
        half = dtyp[:-2]
        a, b = dec.src(ops[1], "f32"), dec.src(ops[2], "f32")
        w = dec.dst(ops[0], "b32")
        relu = "relu" in ins.mods

        def pack(st, m):
            parts = []
            for f in (a, b):
                x = np.asarray(f(st)).astype(np.float32)
                if relu:
                    x = np.where(np.isnan(x), x, np.maximum(x, 0))
                parts.append(F.float_to_bits(x, half, mode or "rn").astype(np.uint32))
            w(st, (parts[0] << np.uint32(16)) | parts[1], m)
        return pack
    if len(ops) != 2 or "relu" in ins.mods:
        raise _Unsupported()
    d, s = ops
    dfl, sfl = dtyp in FLOATS, styp in FLOATS
    if dtyp in ("f16x2", "bf16x2") or styp in ("f16x2", "bf16x2") or dtyp in ("e4m3x2", "e5m2x2", "tf32") \
            or styp in ("e4m3x2", "e5m2x2"):
        raise _Unsupported()
    if not dfl and not sfl:  # integer → integer
        a = dec.src(s, styp)
        w = dec.dst(d, dtyp)
        dt = np_type(dtyp)
        lo, hi = _INT_LIMITS[dtyp if dtyp[0] != "b" else "u" + dtyp[1:]]

        def icvt(st, m):
            x = np.asarray(a(st))
            if sat:
                if x.dtype.kind == "u":
                    x = np.minimum(x, np.uint64(hi)).astype(x.dtype) if hi < np.iinfo(x.dtype).max else x
                    w(st, x.astype(dt), m)
                    return
                x64 = x.astype(np.int64)
                x64 = np.clip(x64, max(lo, -2 ** 63), min(hi, 2 ** 63 - 1))
                w(st, x64.astype(dt), m)
                return
            # sign/zero extension by the SOURCE type, then truncation to the destination
            if x.dtype.kind == "i":
                w(st, x.astype(np.int64).astype(dt), m)
            else:
                w(st, x.astype(np.uint64).astype(dt), m)
        return icvt
    if sfl and not dfl:  # float → integer
        a = _read_float(dec, s, styp)
        w = dec.dst(d, dtyp)
        dt = np_type(dtyp)
        lo, hi = _INT_LIMITS[dtyp if dtyp[0] != "b" else "u" + dtyp[1:]]
        rnd = {"rni": np.rint, "rzi": np.trunc, "rmi": np.floor, "rpi": np.ceil}.get(mode or "rzi", np.trunc)

        def f2i(st, m):
            x = np.asarray(a(st))
            if ftz_:
                x = F.ftz(x, styp)
            x = rnd(x.astype(np.float64))
            nan = np.isnan(x)
            x = np.where(nan, 0, x)
            over = x >= float(hi)
            under = x <= float(lo)
            xi = np.clip(x, float(lo), float(hi))
            if dtyp[0] == "u":
                r = np.where(over, hi, xi.astype(np.uint64) if hi > 2 ** 63 else xi.astype(np.int64)).astype(dt)
            else:
                r = np.where(over, hi, np.where(under, lo, xi.astype(np.int64))).astype(dt)
            w(st, r, m)
        return f2i
    if dfl and not sfl:  # integer → float
        a = dec.src(s, styp)
        wf = _write_float(dec, d, dtyp, mode)
        target = np.float32 if dtyp in ("f32", "bf16") else np_type(dtyp)

        def i2f(st, m):
            x = np.asarray(a(st))
            if dtyp == "bf16":
                wf(st, x.astype(np.float64), m)  # bf16_round applies the mode (exact below 2**53)
                return
            r = x.astype(target)  # round-to-nearest (C conversion)
            if mode not in (None, "rn"):
                # the sign of x - r, compared exactly as integers (r is integral; clamp the 2**63/2**64 edge)
                edge = 2.0 ** (64 if x.dtype.kind == "u" else 63)
                big = r.astype(np.float64) >= edge
                back = np.where(big, 0, r).astype(x.dtype if x.dtype.itemsize == 8 else np.int64)
                xx = x if x.dtype.itemsize == 8 else x.astype(np.int64)
                sign = np.where(big, -1, np.where(xx > back, 1, np.where(xx < back, -1, 0)))
                r = F.adjust(r, sign, mode)
            wf(st, r, m)
        return i2f
    # float → float
    a = _read_float(dec, s, styp)
    if dtyp == styp or mode in ("rni", "rzi", "rmi", "rpi"):
        rnd = {"rni": np.rint, "rzi": np.trunc, "rmi": np.floor, "rpi": np.ceil}.get(mode)
        wf = _write_float(dec, d, dtyp, "rn")

        def same(st, m):
            x = np.asarray(a(st))
            if ftz_:
                x = F.ftz(x, styp)
            if rnd is not None:
                x = rnd(x)
            if sat:
                x = np.where(np.isnan(x), 0, np.clip(x, 0, 1)).astype(x.dtype)
            if ftz_:
                x = F.ftz(x, dtyp)
            wf(st, x, m)
        return same
    wf = _write_float(dec, d, dtyp, mode)

    def f2f(st, m):
        x = np.asarray(a(st))
        if ftz_:
            x = F.ftz(x, styp)
        if _bits(dtyp) > _bits(styp) or (dtyp == "f32" and styp == "bf16"):
            x = x.astype(np_type(dtyp) if dtyp != "bf16" else np.float32)
        else:
            x = x.astype(np.float64)
        if sat:
            x = np.where(np.isnan(x), 0, np.clip(x, 0, 1)).astype(x.dtype)
        wf(st, x, m)
    return f2f


# ---------------------------------------------------------------------- floating point (§9.7.3-4)
def _float_rw(ins, dec, typ):
    """(reader factory, writer factory) for scalar float ops; packed x2 types are split in halves."""
    return (lambda op: _read_float(dec, op, typ)), (lambda op, mode: _write_float(dec, op, typ, mode))


def _packed(ins, dec, typ, scalar_builder):
    """Apply a scalar float op to both 16-bit halves of f16x2/bf16x2 operands."""
    half = typ[:-2]
    ops = ins.operands
    readers = [dec.src(o, "b32") for o in ops[1:]]
    w = dec.dst(ops[0], "b32")
    fn = scalar_builder(half)

    def op(st, m):
        out = np.uint32(0)
        for k in range(2):
            vals = [F.bits_to_float((np.asarray(r(st)) >> np.uint32(16 * k)).astype(np.uint16), half)
                    for r in readers]
            res = fn(vals)
            out = out | (F.float_to_bits(np.asarray(res), half).astype(np.uint32) << np.uint32(16 * k))
        w(st, out, m)
    return op


def _float_arith(ins, dec, kind, typ):
    mods = ins.mods
    if "relu" in mods:
        raise _Unsupported(f"{'.'.join((ins.opcode,) + mods)} (modifier .relu)")
    mode = _mode(mods) or "rn"
    ftz_ = "ftz" in mods
    sat = "sat" in mods
    nan_prop = "NaN" in mods
    approx = "approx" in mods or "full" in mods

    def scalar(t):
        def fn(vals):
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

    if typ in ("f16x2", "bf16x2"):
        return _packed(ins, dec, typ, scalar)
    nsrc = {"add": 2, "sub": 2, "mul": 2, "div": 2, "fma": 3, "min": 2, "max": 2}[kind]
    ops = ins.operands
    if len(ops) != nsrc + 1:
        raise _Unsupported(f"{'.'.join((ins.opcode,) + mods)} with {len(ops)} operands")
    readers = [_read_float(dec, o, typ) for o in ops[1:]]
    w = _write_float(dec, ops[0], typ, "rn")
    fn = scalar(typ)
    return lambda st, m: w(st, fn([r(st) for r in readers]), m)


def _float_compute(kind, t, vals, mode, approx, nan_prop):
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


def _round_with_tie(r, resid, t, mode):
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


def _float_unary_bits(ins, dec, typ, kind):
    """abs/neg on floats: sign-bit operations (NaN payloads kept), .ftz flushes first."""
    ops = _ops(ins, 2)
    ftz_ = "ftz" in ins.mods
    if typ in ("f16x2", "bf16x2", "bf16", "f16"):
        bits = 32 if typ.endswith("x2") else 16
        mask = np.uint32(0x80008000) if bits == 32 else np.uint16(0x8000)
        a, w = dec.src(ops[1], f"b{bits}"), dec.dst(ops[0], f"b{bits}")
        if kind == "abs":
            return lambda st, m: w(st, np.asarray(a(st)) & ~mask, m)
        return lambda st, m: w(st, np.asarray(a(st)) ^ mask, m)
    ut = _u(typ)
    sign = ut(1 << (_bits(typ) - 1))
    a, w = dec.src(ops[1], typ), dec.dst(ops[0], typ)
    dt = np_type(typ)

    def op(st, m):
        x = np.asarray(a(st))
        if ftz_:
            x = F.ftz(x, typ)
        u = x.view(ut)
        u = (u & ~sign) if kind == "abs" else (u ^ sign)
        w(st, np.asarray(u).view(dt), m)
    return op


_UNARY = {
    "rcp": lambda x: 1.0 / x,
    "sqrt": np.sqrt,
    "rsqrt": lambda x: 1.0 / np.sqrt(x),
    "ex2": np.exp2,
    "lg2": np.log2,
    "sin": np.sin,
    "cos": np.cos,
    "tanh": np.tanh,
}


def _b_unary_float(ins, dec):
    """rcp/sqrt/rsqrt/ex2/lg2/sin/cos/tanh. ``.rn`` rcp/sqrt are correctly rounded (exact in f64 for
    f32); ``.approx`` forms are computed in f64 and rounded: close to, not bit-equal to, a GPU."""
    typ = _one_type(ins, dec)
    kind = ins.opcode
    mode = _mode(ins.mods) or "rn"
    ftz_ = "ftz" in ins.mods
    f = _UNARY[kind]
    if typ == "f64" and mode != "rn":
        raise _Unsupported(f"{'.'.join((ins.opcode,) + ins.mods)} (directed rounding in f64)")

    def scalar(t):
        def fn(vals):
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

    if typ in ("f16x2", "bf16x2"):
        return _packed(ins, dec, typ, scalar)
    ops = _ops(ins, 2)
    a = _read_float(dec, ops[1], typ)
    w = _write_float(dec, ops[0], typ, "rn")
    fn = scalar(typ)
    return lambda st, m: w(st, fn([a(st)]), m)


# ---------------------------------------------------------------------- table
_BUILDERS: dict[str, Callable] = {
    "add": _b_addsub, "sub": _b_addsub, "addc": _b_addsub, "subc": _b_addsub,
    "mul": _b_mul, "mad": _b_mad, "madc": _b_mad, "fma": _b_mad,
    "div": _b_div, "rem": _b_rem, "min": _b_minmax, "max": _b_minmax,
    "abs": _b_abs, "neg": _b_neg, "sad": _b_sad, "mul24": _b_mul24, "mad24": _b_mul24,
    "and": _b_logic, "or": _b_logic, "xor": _b_logic, "not": _b_not, "cnot": _b_cnot,
    "shl": _b_shl, "shr": _b_shl, "shf": _b_shf, "bfe": _b_bfe, "bfi": _b_bfi, "prmt": _b_prmt,
    "lop3": _b_lop3, "popc": _b_popc, "clz": _b_clz, "bfind": _b_bfind, "brev": _b_brev,
    "copysign": _b_copysign, "testp": _b_testp,
    "setp": _b_setp, "set": _b_set, "selp": _b_selp, "slct": _b_slct,
    "mov": _b_mov, "cvta": _b_cvta, "cvt": _b_cvt,
    "ld": _b_ld, "ldu": _b_ld, "st": _b_st, "atom": _b_atom, "red": _b_atom,
    "rcp": _b_unary_float, "sqrt": _b_unary_float, "rsqrt": _b_unary_float, "ex2": _b_unary_float,
    "lg2": _b_unary_float, "sin": _b_unary_float, "cos": _b_unary_float, "tanh": _b_unary_float,
    "membar": _b_nop, "fence": _b_nop, "prefetch": _b_nop, "prefetchu": _b_nop, "nanosleep": _b_nop,
    "pmevent": _b_nop, "discard": _b_nop, "applypriority": _b_nop, "brkpt": _b_nop,
    "createpolicy": _b_createpolicy, "trap": _b_trap, "cp": _b_cp,
    "dp4a": _b_dp, "dp2a": _b_dp,
    "shfl": W.b_shfl, "vote": W.b_vote, "match": W.b_match, "redux": W.b_redux,
    "activemask": W.b_activemask, "bar": W.b_bar_warp, "ldmatrix": W.b_ldmatrix, "mma": W.b_mma, "wmma": W.b_wmma, "elect": W.b_elect,
}
