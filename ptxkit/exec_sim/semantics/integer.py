"""Integer arithmetic (PTX ISA §9.7.1), extended-precision arithmetic (§9.7.2) and logic and
shift instructions (§9.7.8), exact with wrap-around at every width (numpy fixed-width ints;
``.hi``/``.wide`` via widening or 32-bit limbs)."""

from __future__ import annotations

import numpy as np

from ptxkit import ir
from ptxkit.exec_sim.semantics import common as C
from ptxkit.exec_sim.semantics.floating import float_arith, float_unary_bits
from ptxkit.exec_sim.values import UINT_BITS, np_type


def _mulhi(a: C.Value, b: C.Value, typ: str) -> C.Value:
    bits = C.bits_of(typ)
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


def _wide(typ: str) -> str:
    return ("s" if typ[0] == "s" else "u") + str(2 * C.bits_of(typ))


def b_mul(ins: ir.Instruction, dec: C.Decoding) -> C.LaneOp:
    """mul{.lo,.hi,.wide} (ISA §9.7.1.3); the float forms are floating.float_arith's."""
    return _mul_add(ins, dec, addend=False)


def b_mad(ins: ir.Instruction, dec: C.Decoding) -> C.LaneOp:
    """mad{.lo,.hi,.wide}, mad.hi.sat.s32, mad.cc/madc (ISA §9.7.1.4, §9.7.2.3): mul's product plus c."""
    return _mul_add(ins, dec, addend=True)


def _product(a: C.Reader, b: C.Reader, typ: str, mods: tuple[str, ...]) -> C.Reader:
    """The lanes' a·b in mul's mode: .wide (the whole product, in the doubled type), .hi or .lo."""
    if "wide" in mods:
        wdt = np_type(_wide(typ))
        return lambda st: np.asarray(a(st)).astype(wdt) * np.asarray(b(st)).astype(wdt)
    if "hi" in mods:
        return lambda st: _mulhi(a(st), b(st), typ)
    return lambda st: a(st) * b(st)


def _mul_add(ins: ir.Instruction, dec: C.Decoding, addend: bool) -> C.LaneOp:
    typ = C.one_type(ins, dec)
    mods = ins.mods
    if typ in C.FLOATS:
        return float_arith(ins, dec, "fma" if addend else "mul", typ)
    ops = C.operands(ins, 4 if addend else 3)
    a, b = dec.src(ops[1], typ), dec.src(ops[2], typ)
    cc_in = ins.opcode == "madc"
    cc_out = addend and "cc" in mods
    wide = "wide" in mods
    rtyp = _wide(typ) if wide else typ  # the type of the product, c and d
    c = dec.src(ops[3], rtyp) if addend else None
    w = dec.dst(ops[0], rtyp)
    if wide and (cc_in or cc_out):
        raise C.Unsupported("mad.wide with carry")
    prod = _product(a, b, typ, mods)
    if c is None:
        return lambda st, m: w(st, prod(st), m)
    if "sat" in mods and not wide:
        if typ != "s32" or "hi" not in mods:
            raise C.Unsupported("mad.sat other than mad.hi.sat.s32")

        def op(st: C.State, m: C.Mask) -> None:
            r = prod(st).astype(np.int64) + np.asarray(c(st)).astype(np.int64)
            w(st, np.clip(r, -2 ** 31, 2 ** 31 - 1).astype(np.int32), m)
        return op
    if cc_in or cc_out:
        return _carry_op(ins, dec, typ, w, prod, c, cc_in, cc_out, add=True)
    return lambda st, m: w(st, prod(st) + c(st), m)


def _carry_op(ins: ir.Instruction, dec: C.Decoding, typ: str, w: C.Writer, a: C.Reader, b: C.Reader, cc_in: bool,
              cc_out: bool, add: bool) -> C.LaneOp:
    """add.cc/addc/sub.cc/subc/mad.cc/madc (ISA §9.7.2): the carry flag CC.CF is one bool per lane in
    ``st.cc``; subtraction sets it to NOT borrow and subc subtracts !CF (a + ~b + CF, as GPUs do)."""
    bits = C.bits_of(typ)
    ut = UINT_BITS[bits]

    def op(st: C.State, m: C.Mask) -> None:
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


_PACKED16 = ("s16x2", "u16x2")


def _packed16(ins: ir.Instruction, dec: C.Decoding) -> C.LaneOp:
    """add / min / max{.relu} on .s16x2 / .u16x2 (ISA §9.7.1.1, §9.7.1.10-11): each 16-bit half on its
    own; add wraps within the half, .relu (min/max .s16x2) clamps a negative half to 0."""
    typ = next(x for x in ins.mods if x in _PACKED16)
    if ins.opcode not in ("add", "min", "max") or len(ins.operands) != 3 \
            or any(x in ins.mods for x in ("sat", "cc")) or ("relu" in ins.mods and typ != "s16x2"):
        raise C.Unsupported()
    half = np.int16 if typ == "s16x2" else np.uint16
    relu = "relu" in ins.mods
    a, b = dec.src(ins.operands[1], "b32"), dec.src(ins.operands[2], "b32")
    w = dec.dst(ins.operands[0], "b32")
    f = {"add": np.add, "min": np.minimum, "max": np.maximum}[ins.opcode]

    def op(st: C.State, m: C.Mask) -> None:
        x = np.atleast_1d(np.asarray(a(st)).astype(np.uint32)).view(np.uint16).view(half)  # [low, high] pairs
        y = np.atleast_1d(np.asarray(b(st)).astype(np.uint32)).view(np.uint16).view(half)
        with np.errstate(over="ignore"):
            r = f(x, y).astype(half)
        if relu:
            r = np.maximum(r, half(0))
        w(st, r.view(np.uint32), m)
    return op


def b_addsub(ins: ir.Instruction, dec: C.Decoding) -> C.LaneOp:
    if any(x in ins.mods for x in _PACKED16):
        return _packed16(ins, dec)
    typ = C.one_type(ins, dec)
    mods = ins.mods
    add = ins.opcode in ("add", "addc")
    if typ in C.FLOATS:
        return float_arith(ins, dec, "add" if add else "sub", typ)
    ops = C.operands(ins, 3)
    a, b = dec.src(ops[1], typ), dec.src(ops[2], typ)
    w = dec.dst(ops[0], typ)
    cc_in = ins.opcode in ("addc", "subc")
    cc_out = "cc" in mods
    if cc_in or cc_out:
        return _carry_op(ins, dec, typ, w, a, b, cc_in, cc_out, add)
    if "sat" in mods:
        if typ != "s32":
            raise C.Unsupported(".sat on other than .s32")
        if add:
            return lambda st, m: w(st, np.clip(np.asarray(a(st)).astype(np.int64) + np.asarray(b(st)).astype(np.int64),
                                               -2 ** 31, 2 ** 31 - 1).astype(np.int32), m)
        return lambda st, m: w(st, np.clip(np.asarray(a(st)).astype(np.int64) - np.asarray(b(st)).astype(np.int64),
                                           -2 ** 31, 2 ** 31 - 1).astype(np.int32), m)
    if add:
        return lambda st, m: w(st, a(st) + b(st), m)
    return lambda st, m: w(st, a(st) - b(st), m)


def _divrem(a: C.Value, b: C.Value, typ: str, rem: bool) -> np.ndarray:
    """Integer div/rem truncating toward zero; division by zero gives all ones (quotient) or the
    dividend (remainder), as the hardware does (the ISA leaves it unspecified)."""
    bits = C.bits_of(typ)
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


def b_div(ins: ir.Instruction, dec: C.Decoding) -> C.LaneOp:
    typ = C.one_type(ins, dec)
    if typ in C.FLOATS:
        return float_arith(ins, dec, "div", typ)
    return C.simple(ins, dec, typ, lambda a, b: _divrem(C.as_lanes(a, 1), b, typ, False), 2)


def b_rem(ins: ir.Instruction, dec: C.Decoding) -> C.LaneOp:
    typ = C.one_type(ins, dec)
    return C.simple(ins, dec, typ, lambda a, b: _divrem(C.as_lanes(a, 1), b, typ, True), 2)


def b_minmax(ins: ir.Instruction, dec: C.Decoding) -> C.LaneOp:
    if any(x in ins.mods for x in _PACKED16):
        return _packed16(ins, dec)
    typ = C.one_type(ins, dec)
    is_min = ins.opcode == "min"
    if typ in C.FLOATS:
        return float_arith(ins, dec, ins.opcode, typ)
    relu = "relu" in ins.mods
    f = np.minimum if is_min else np.maximum
    if len(ins.operands) == 4:  # three-input min/max (sm_100)
        def g3(a: C.Value, b: C.Value, c: C.Value) -> C.Value:
            r = f(f(a, b), c)
            return np.maximum(r, 0).astype(r.dtype) if relu else r
        return C.simple(ins, dec, typ, g3, 3)

    def g(a: C.Value, b: C.Value) -> C.Value:
        r = f(a, b)
        return np.maximum(r, 0).astype(np.asarray(r).dtype) if relu else r
    return C.simple(ins, dec, typ, g, 2)


def b_abs(ins: ir.Instruction, dec: C.Decoding) -> C.LaneOp:
    typ = C.one_type(ins, dec)
    if typ in C.FLOATS:
        return float_unary_bits(ins, dec, typ, "abs")
    return C.simple(ins, dec, typ, lambda a: np.where(a < 0, (a.dtype.type(0) - a), a).astype(np.asarray(a).dtype), 1)


def b_neg(ins: ir.Instruction, dec: C.Decoding) -> C.LaneOp:
    typ = C.one_type(ins, dec)
    if typ in C.FLOATS:
        return float_unary_bits(ins, dec, typ, "neg")
    return C.simple(ins, dec, typ, lambda a: np.asarray(a).dtype.type(0) - a, 1)


def b_sad(ins: ir.Instruction, dec: C.Decoding) -> C.LaneOp:
    typ = C.one_type(ins, dec)
    return C.simple(ins, dec, typ, lambda a, b, c: np.where(a < b, b - a, a - b) + c, 3)


def b_mul24(ins: ir.Instruction, dec: C.Decoding) -> C.LaneOp:
    typ = C.one_type(ins, dec)
    hi = "hi" in ins.mods  # .hi: bits 47..16 of the 48-bit product (ISA §9.7.1.5)
    signed = typ[0] == "s"

    def low24(x: C.Value) -> np.ndarray:
        x = np.asarray(x).astype(np.int64)
        x = x & 0xFFFFFF
        return np.where(signed & (x >= 0x800000), x - 0x1000000, x) if signed else x

    def prod(a: C.Value, b: C.Value) -> np.ndarray:
        t = low24(a) * low24(b)
        return t >> 16 if hi else t

    if ins.opcode == "mul24":
        return C.simple(ins, dec, typ, lambda a, b: prod(a, b).astype(np.int64).astype(np_type(typ)), 2)
    return C.simple(ins, dec, typ, lambda a, b, c: (prod(a, b) + np.asarray(c).astype(np.int64))
                   .astype(np.int64).astype(np_type(typ)), 3)


def b_dp(ins: ir.Instruction, dec: C.Decoding) -> C.LaneOp:
    """dp4a.atype.btype d, a, b, c: c + four byte products; dp2a.{lo,hi}: c + two (16-bit half of a) x
    (byte of b, low or high pair) products (ISA §9.7.1.23-24). Signedness per operand type."""
    ts = C.types_of(ins.mods)
    if len(ts) != 2 or len(ins.operands) != 4:
        raise C.Unsupported()
    at, bt = ts
    four = ins.opcode == "dp4a"
    hi = "hi" in ins.mods
    dtyp = "s32" if "s" in (at[0], bt[0]) else "u32"
    ops = ins.operands
    a, b, c = dec.src(ops[1], "u32"), dec.src(ops[2], "u32"), dec.src(ops[3], dtyp)
    w = dec.dst(ops[0], dtyp)

    def part(x: C.Value, i: int, bits: int, signed: bool) -> np.ndarray:
        v = (np.asarray(x).astype(np.int64) >> (bits * i)) & ((1 << bits) - 1)
        return np.where(v >= 1 << (bits - 1), v - (1 << bits), v) if signed else v

    def op(st: C.State, m: C.Mask) -> None:
        x, y = a(st), b(st)
        if four:
            acc = sum(part(x, i, 8, at[0] == "s") * part(y, i, 8, bt[0] == "s") for i in range(4))
        else:
            acc = sum(part(x, i, 16, at[0] == "s") * part(y, i + (2 if hi else 0), 8, bt[0] == "s")
                      for i in range(2))
        r = (np.asarray(c(st)).astype(np.int64) + acc) & 0xFFFFFFFF
        w(st, r.astype(np.uint32).view(np_type(dtyp)), m)
    return op


def b_logic(ins: ir.Instruction, dec: C.Decoding) -> C.LaneOp:
    typ = C.one_type(ins, dec)
    f = {"and": np.bitwise_and, "or": np.bitwise_or, "xor": np.bitwise_xor}[ins.opcode]
    return C.simple(ins, dec, typ, f, 2)


def b_not(ins: ir.Instruction, dec: C.Decoding) -> C.LaneOp:
    typ = C.one_type(ins, dec)
    if typ == "pred":
        return C.simple(ins, dec, typ, np.logical_not, 1)
    return C.simple(ins, dec, typ, np.invert, 1)


def b_cnot(ins: ir.Instruction, dec: C.Decoding) -> C.LaneOp:
    typ = C.one_type(ins, dec)
    return C.simple(ins, dec, typ, lambda a: (np.asarray(a) == 0).astype(np_type(typ)), 1)


def _shift(a: C.Value, n: C.Value, typ: str, left: bool) -> np.ndarray:
    bits = C.bits_of(typ)
    a = np.asarray(a)
    n = np.asarray(n).astype(np.uint64)
    big = n >= bits
    k = np.minimum(n, bits - 1).astype(a.dtype)
    if left:
        return np.where(big, a.dtype.type(0), a << k).astype(a.dtype)
    if typ[0] == "s":
        return (a >> k).astype(a.dtype)  # >= width: all sign bits, as >> (bits-1)
    return np.where(big, a.dtype.type(0), a >> k).astype(a.dtype)


def b_shl(ins: ir.Instruction, dec: C.Decoding) -> C.LaneOp:
    typ = C.one_type(ins, dec)
    ops = C.operands(ins, 3)
    a, b, w = dec.src(ops[1], typ), dec.src(ops[2], "u32"), dec.dst(ops[0], typ)
    left = ins.opcode == "shl"
    return lambda st, m: w(st, _shift(a(st), b(st), typ, left), m)


def b_shf(ins: ir.Instruction, dec: C.Decoding) -> C.LaneOp:
    """shf.{l,r}.{wrap,clamp}.b32 (ISA §9.7.8.6): funnel shift of the 64-bit {b:a}."""
    ops = C.operands(ins, 4)
    left = "l" in ins.mods
    wrap = "wrap" in ins.mods
    a, b, c = dec.src(ops[1], "u32"), dec.src(ops[2], "u32"), dec.src(ops[3], "u32")
    w = dec.dst(ops[0], "b32")

    def op(st: C.State, m: C.Mask) -> None:
        n = np.asarray(c(st)).astype(np.uint64)
        n = n & np.uint64(31) if wrap else np.minimum(n, np.uint64(32))
        v = (np.asarray(b(st)).astype(np.uint64) << np.uint64(32)) | np.asarray(a(st)).astype(np.uint64)
        if left:
            r = (v << n) >> np.uint64(32)
        else:
            r = v >> n
        w(st, (r & np.uint64(0xFFFFFFFF)).astype(np.uint32), m)
    return op


def b_bfe(ins: ir.Instruction, dec: C.Decoding) -> C.LaneOp:
    """bfe (ISA §9.7.8.9)."""
    typ = C.one_type(ins, dec)
    bits = C.bits_of(typ)
    ut = UINT_BITS[bits]
    signed = typ[0] == "s"
    ops = C.operands(ins, 4)
    a, b, c = dec.src(ops[1], typ), dec.src(ops[2], "u32"), dec.src(ops[3], "u32")
    w = dec.dst(ops[0], typ)
    one = ut(1)

    def op(st: C.State, m: C.Mask) -> None:
        av = np.asarray(a(st)).view(ut)
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


def b_bfi(ins: ir.Instruction, dec: C.Decoding) -> C.LaneOp:
    """bfi (ISA §9.7.8.10): insert the low len bits of a into b at pos."""
    typ = C.one_type(ins, dec)
    bits = C.bits_of(typ)
    ut = UINT_BITS[bits]
    ops = C.operands(ins, 5)
    a, b = dec.src(ops[1], typ), dec.src(ops[2], typ)
    c, d_ = dec.src(ops[3], "u32"), dec.src(ops[4], "u32")
    w = dec.dst(ops[0], typ)
    one = ut(1)

    def op(st: C.State, m: C.Mask) -> None:
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


def b_prmt(ins: ir.Instruction, dec: C.Decoding) -> C.LaneOp:
    """prmt.b32{.mode} (ISA §9.7.8.7)."""
    ops = C.operands(ins, 4)
    modes = [x for x in ins.mods if x in ("f4e", "b4e", "rc8", "ecl", "ecr", "rc16")]
    mode = modes[0] if modes else None
    a, b, c = dec.src(ops[1], "u32"), dec.src(ops[2], "u32"), dec.src(ops[3], "u32")
    w = dec.dst(ops[0], "b32")

    def op(st: C.State, m: C.Mask) -> None:
        n = st.n
        v = (np.asarray(b(st)).astype(np.uint64) << np.uint64(32)) | np.asarray(a(st)).astype(np.uint64)
        v = np.broadcast_to(v, (n,))
        byts = np.stack([((v >> np.uint64(8 * i)) & np.uint64(0xFF)).astype(np.uint32) for i in range(8)])  # (8, n)
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


def b_lop3(ins: ir.Instruction, dec: C.Decoding) -> C.LaneOp:
    """lop3.b32 d, a, b, c, immLut (ISA §9.7.8.5)."""
    ops = ins.operands
    if len(ops) != 5 or not isinstance(ops[4], ir.Imm) or isinstance(ops[0], ir.Pipe):
        raise C.Unsupported("lop3 with a predicate output or a non-constant LUT")
    lut = ops[4].value & 0xFF
    a, b, c = dec.src(ops[1], "b32"), dec.src(ops[2], "b32"), dec.src(ops[3], "b32")
    w = dec.dst(ops[0], "b32")

    def op(st: C.State, m: C.Mask) -> None:
        x, y, z = np.asarray(a(st)), np.asarray(b(st)), np.asarray(c(st))
        r = np.zeros(np.broadcast_shapes(x.shape, y.shape, z.shape), np.uint32)
        for i in range(8):
            if lut >> i & 1:
                r |= (x if i & 4 else ~x) & (y if i & 2 else ~y) & (z if i & 1 else ~z)
        w(st, r, m)
    return op


def b_popc(ins: ir.Instruction, dec: C.Decoding) -> C.LaneOp:
    typ = C.one_type(ins, dec)
    ops = C.operands(ins, 2)
    a, w = dec.src(ops[1], typ), dec.dst(ops[0], "u32")
    return lambda st, m: w(st, np.bitwise_count(np.asarray(a(st))).astype(np.uint32), m)


def _clz(x: C.Value, bits: int) -> np.ndarray:
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


def b_clz(ins: ir.Instruction, dec: C.Decoding) -> C.LaneOp:
    typ = C.one_type(ins, dec)
    bits = C.bits_of(typ)
    ops = C.operands(ins, 2)
    a, w = dec.src(ops[1], typ), dec.dst(ops[0], "u32")
    return lambda st, m: w(st, np.minimum(_clz(a(st), bits), bits).astype(np.uint32), m)


def b_bfind(ins: ir.Instruction, dec: C.Decoding) -> C.LaneOp:
    """bfind{.shiftamt} (ISA §9.7.8.12): position of the most significant non-sign bit, or 0xffffffff."""
    typ = C.one_type(ins, dec)
    bits = C.bits_of(typ)
    shiftamt = "shiftamt" in ins.mods
    ops = C.operands(ins, 2)
    a, w = dec.src(ops[1], typ), dec.dst(ops[0], "u32")

    def op(st: C.State, m: C.Mask) -> None:
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


def b_brev(ins: ir.Instruction, dec: C.Decoding) -> C.LaneOp:
    typ = C.one_type(ins, dec)
    bits = C.bits_of(typ)
    ops = C.operands(ins, 2)
    a, w = dec.src(ops[1], typ), dec.dst(ops[0], typ)

    def op(st: C.State, m: C.Mask) -> None:
        x = np.asarray(a(st)).astype(np.uint64)
        r = np.zeros(x.shape, np.uint64)
        for i in range(bits // 8):
            byte = (x >> np.uint64(8 * i)) & np.uint64(0xFF)
            r |= _REV8[byte.astype(np.int64)] << np.uint64(bits - 8 - 8 * i)
        w(st, r.astype(UINT_BITS[bits]).view(np_type(typ)), m)
    return op
