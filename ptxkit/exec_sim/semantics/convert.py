"""``cvt`` (PTX ISA §9.7.9.21): integer↔integer, float↔integer and float↔float conversions with
the rounding modifiers, ``.sat`` and ``.ftz``, and the ``f16x2``/``bf16x2`` packing form."""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from ptxkit import ir
from ptxkit.exec_sim import floats as F
from ptxkit.exec_sim import fp8
from ptxkit.exec_sim.semantics.common import (
    FLOATS,
    INT_LIMITS,
    Decoding,
    LaneOp,
    Mask,
    State,
    Unsupported,
    bits_of,
    read_float,
    rounding_mode,
    types_of,
    write_float,
)
from ptxkit.exec_sim.values import np_type

_TF32_KEEP = np.uint32(0xFFFFE000)  # sign, exponent and the 10 mantissa bits of tf32


def _to_tf32(ins: ir.Instruction, dec: Decoding, styp: str, mode: str | None) -> LaneOp:
    """cvt.{rna,rn,rz}.tf32.f32 d, a (ISA §9.7.9.21; d is a .b32 holding the tf32 value, its 13 low
    mantissa bits zero). A finite input is rounded by integer arithmetic on its bits: .rna adds half a
    tf32 ulp (0x1000) before truncating, so ties go away from zero and a carry rounds into the exponent
    (up to infinity); .rn adds 0xFFF plus the kept lowest bit (ties to even); .rz truncates. NaN and
    infinity are only truncated — what the sm_80 code for cvt.rna.tf32.f32 (ISETP |a| < inf, IADD
    0x1000, LOP 0xffffe000) does."""
    if styp != "f32" or mode not in ("rna", "rn", "rz") or len(ins.operands) != 2:
        raise Unsupported()
    a, w = dec.src(ins.operands[1], "b32"), dec.dst(ins.operands[0], "b32")

    def op(st: State, m: Mask) -> None:
        x = np.asarray(a(st)).astype(np.uint32)
        finite = (x & np.uint32(0x7F800000)) != np.uint32(0x7F800000)
        if mode == "rna":
            add = np.uint32(0x1000)
        elif mode == "rn":
            add = np.uint32(0xFFF) + ((x >> np.uint32(13)) & np.uint32(1))
        else:
            add = np.uint32(0)
        w(st, np.where(finite, x + add, x) & _TF32_KEEP, m)
    return op


_FP8_PAIRS = {"e4m3x2": "e4m3", "e5m2x2": "e5m2"}


def _fp8_pair(ins: ir.Instruction, dec: Decoding, dtyp: str, styp: str, mode: str | None) -> LaneOp:
    """The 8-bit float pair conversions (ISA §9.7.9.21): ``cvt.rn.satfinite{.relu}.{e4m3x2,e5m2x2}.f32 d, a, b``
    (a → the upper byte of the b16 d), ``….f16x2 d, a`` (the upper half → the upper byte) and
    ``cvt.rn{.relu}.f16x2.{e4m3x2,e5m2x2} d, a`` (the upper byte → the upper half); :mod:`ptxkit.exec_sim.fp8`."""
    ops, relu = ins.operands, "relu" in ins.mods
    if mode != "rn":
        raise Unsupported(f"{dec.spelling(ins)} (8-bit float conversions round .rn)")
    if styp in _FP8_PAIRS and dtyp == "f16x2" and len(ops) == 2:
        a, w = dec.src(ops[1], "b16"), dec.dst(ops[0], "b32")
        fmt = _FP8_PAIRS[styp]

        def widen(st: State, m: Mask) -> None:
            x = np.asarray(a(st)).astype(np.uint16)
            lo = fp8.decode_f16_bits(x & np.uint16(0xFF), fmt, relu).astype(np.uint32)
            hi = fp8.decode_f16_bits(x >> np.uint16(8), fmt, relu).astype(np.uint32)
            w(st, (hi << np.uint32(16)) | lo, m)
        return widen
    if dtyp not in _FP8_PAIRS or "satfinite" not in ins.mods:
        raise Unsupported(f"{dec.spelling(ins)} (conversions to 8-bit floats need .satfinite)")
    fmt = _FP8_PAIRS[dtyp]
    w = dec.dst(ops[0], "b16")
    if styp == "f32" and len(ops) == 3:
        hi_src, lo_src = dec.src(ops[1], "b32"), dec.src(ops[2], "b32")

        def halves(st: State) -> tuple[np.ndarray, np.ndarray]:
            return (F.bits_to_float(np.asarray(lo_src(st)).astype(np.uint32), "f32"),
                    F.bits_to_float(np.asarray(hi_src(st)).astype(np.uint32), "f32"))
    elif styp == "f16x2" and len(ops) == 2:
        src = dec.src(ops[1], "b32")

        def halves(st: State) -> tuple[np.ndarray, np.ndarray]:
            x = np.asarray(src(st)).astype(np.uint32)
            return (F.bits_to_float(x.astype(np.uint16), "f16"),
                    F.bits_to_float((x >> np.uint32(16)).astype(np.uint16), "f16"))
    else:
        raise Unsupported()

    def narrow(st: State, m: Mask) -> None:
        lo, hi = (fp8.encode(v, fmt, relu).astype(np.uint16) for v in halves(st))
        w(st, (hi << np.uint16(8)) | lo, m)
    return narrow


def b_cvt(ins: ir.Instruction, dec: Decoding) -> LaneOp:
    ts = types_of(ins.mods)
    if len(ts) < 2:
        raise Unsupported()
    dtyp, styp = ts[0], ts[1]
    mode = rounding_mode(ins.mods)
    sat = "sat" in ins.mods
    ftz_ = "ftz" in ins.mods
    ops = ins.operands
    if dtyp == "tf32":
        return _to_tf32(ins, dec, styp, mode)
    if dtyp in _FP8_PAIRS or styp in _FP8_PAIRS:
        return _fp8_pair(ins, dec, dtyp, styp, mode)
    if "satfinite" in ins.mods:
        raise Unsupported(f"{dec.spelling(ins)} (modifier .satfinite)")
    if mode == "rna":
        raise Unsupported(f"{dec.spelling(ins)} (.rna is defined for .tf32 destinations)")
    if dtyp in ("f16x2", "bf16x2") and styp == "f32" and len(ops) == 3:
        # cvt.rn.f16x2.f32 d, a, b: d = {cvt(a) : cvt(b)} (a in the upper half)
        half = dtyp[:-2]
        a, b = dec.src(ops[1], "f32"), dec.src(ops[2], "f32")
        w = dec.dst(ops[0], "b32")
        relu = "relu" in ins.mods

        def pack(st: State, m: Mask) -> None:
            parts = []
            for f in (a, b):
                x = np.asarray(f(st)).astype(np.float32)
                if relu:
                    x = np.where(np.isnan(x), x, np.maximum(x, 0))
                parts.append(F.float_to_bits(x, half, mode or "rn").astype(np.uint32))
            w(st, (parts[0] << np.uint32(16)) | parts[1], m)
        return pack
    if len(ops) != 2 or "relu" in ins.mods:
        raise Unsupported()
    d, s = ops
    dfl, sfl = dtyp in FLOATS, styp in FLOATS
    if dtyp in ("f16x2", "bf16x2") or styp in ("f16x2", "bf16x2") or dtyp in ("e4m3x2", "e5m2x2", "tf32") \
            or styp in ("e4m3x2", "e5m2x2"):
        raise Unsupported()
    if not dfl and not sfl:  # integer → integer
        a = dec.src(s, styp)
        w = dec.dst(d, dtyp)
        dt = np_type(dtyp)
        lo, hi = INT_LIMITS[dtyp if dtyp[0] != "b" else "u" + dtyp[1:]]

        def icvt(st: State, m: Mask) -> None:
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
        a = read_float(dec, s, styp)
        w = dec.dst(d, dtyp)
        dt = np_type(dtyp)
        lo, hi = INT_LIMITS[dtyp if dtyp[0] != "b" else "u" + dtyp[1:]]
        rnd = {"rni": np.rint, "rzi": np.trunc, "rmi": np.floor, "rpi": np.ceil}.get(mode or "rzi", np.trunc)
        # NaN converts to 0 (ISA §9.7.9.21), except on the GPU's 64-bit paths: an f64 source or a 64-bit
        # destination gives the top bit of the destination (INT_MIN; 0x80…0 unsigned) — measured on
        # sm_90 (ptxkit.corpus.gpuprobe)
        nan_top = styp == "f64" or bits_of(dtyp) == 64

        def f2i(st: State, m: Mask) -> None:
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
            if nan_top and np.any(nan):
                r = np.where(nan, dt(lo) if dtyp[0] == "s" else dt(1 << (bits_of(dtyp) - 1)), r)
            w(st, r, m)
        return f2i
    if dfl and not sfl:  # integer → float
        a = dec.src(s, styp)
        wf = write_float(dec, d, dtyp, mode)

        def i2f(st: State, m: Mask) -> None:
            x = np.atleast_1d(np.asarray(a(st)))
            xf = x.astype(np.float64)  # exact below 2**53; the lanes above are rounded exactly, one by one
            big = (x > 2 ** 53) if x.dtype.kind == "u" else (x > 2 ** 53) | (x < -(2 ** 53))
            for i in np.flatnonzero(big):
                xf.flat[i] = F.round_fraction(Fraction(int(x.flat[i])), dtyp, mode or "rn")
            wf(st, xf, m)
        return i2f
    # float → float
    a = read_float(dec, s, styp)
    if dtyp == styp or mode in ("rni", "rzi", "rmi", "rpi"):
        rnd_same = {"rni": np.rint, "rzi": np.trunc, "rmi": np.floor, "rpi": np.ceil}.get(mode or "")
        wf = write_float(dec, d, dtyp, "rn")

        def same(st: State, m: Mask) -> None:
            x = np.asarray(a(st))
            if ftz_:
                x = F.ftz(x, styp)
            if rnd_same is not None:
                x = rnd_same(x)
            if sat:
                x = np.where(np.isnan(x), 0, np.clip(x, 0, 1)).astype(x.dtype)
            if ftz_:
                x = F.ftz(x, dtyp)
            wf(st, F.canonical_nan(x, dtyp), m)
        return same
    width = 16 if dtyp in ("f16", "bf16") else bits_of(dtyp)
    w = dec.dst(d, f"b{width}")
    # .ftz flushes what is subnormal in f32 (ISA §9.7.9.21): an f32 or bf16 source, an f32 result; an
    # f16 subnormal is a normal f32 and stays
    flush_in, flush_out = ftz_ and styp in ("f32", "bf16"), ftz_ and dtyp == "f32"

    def f2f(st: State, m: Mask) -> None:
        x = np.asarray(a(st))
        src = x
        if flush_in:
            x = F.ftz(x, "f32")
        if bits_of(dtyp) > bits_of(styp) or (dtyp == "f32" and styp == "bf16"):
            x = x.astype(np_type(dtyp) if dtyp != "bf16" else np.float32)
        else:
            x = x.astype(np.float64)
        if sat:
            x = np.where(np.isnan(x), 0, np.clip(x, 0, 1)).astype(x.dtype)
        out = F.float_to_bits(x, dtyp, mode or "rn")
        if flush_out:
            out = np.where((out & np.uint32(0x7F800000)) == 0, out & np.uint32(0x80000000), out)
        w(st, _nan_bits(out, src, styp, dtyp, ftz_), m)
    return f2f


def _nan_bits(out: np.ndarray, src: np.ndarray, styp: str, dtyp: str, ftz_: bool) -> np.ndarray:
    """The NaN an sm_90 GPU writes for a float→float cvt of a NaN (the ISA leaves it unspecified;
    measured with ptxkit.corpus.gpuprobe): f64 → f16/bf16 keeps the sign and the payload's top bits and
    sets the quiet bit; f16 → f64 quiets; the conversions through the FP unit (f16 → f32, bf16 → f32
    with .ftz, f32/bf16 → f16) write the canonical NaN; the rest (f32 ↔ f64, bf16 → f32 as a shift)
    keep the payload as numpy does."""
    nan = np.isnan(src)
    if not np.any(nan):
        return out
    if styp == "f64" and dtyp in ("f16", "bf16"):
        u = np.asarray(src).view(np.uint64)
        sign = (u >> np.uint64(48)) & np.uint64(0x8000)
        shift, head = (42, 0x7E00) if dtyp == "f16" else (45, 0x7FC0)
        top = (u & np.uint64(0xFFFFFFFFFFFFF)) >> np.uint64(shift)
        return np.where(nan, (sign | np.uint64(head) | top).astype(np.uint16), out)
    if styp == "f16" and dtyp == "f64":
        return np.where(nan, out | np.uint64(1 << 51), out)
    if (dtyp == "f32" and (styp == "f16" or (styp == "bf16" and ftz_))) or (dtyp == "f16" and styp != "f64"):
        canon = {"f32": np.uint32(0x7FFFFFFF), "f16": np.uint16(0x7FFF)}[dtyp]
        return np.where(nan, canon, out)
    return out
