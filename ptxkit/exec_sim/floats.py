"""Floating-point helpers over numpy lanes (PTX ISA §4.2 rounding modifiers, §9.7.3 float arithmetic).

Registers hold raw bit patterns; these helpers turn them into numpy floats (f16 → float16,
bf16 → float32 with the low 16 bits zero, f32, f64) and back, and implement the directed rounding
modes ``.rz/.rm/.rp`` by rounding to nearest and then stepping one ulp toward the exact value when
the residual has the wrong sign. The residual comes from a wider evaluation (f32 ops in f64) or from
an error-free transformation (TwoSum/TwoProduct for f64), so the result is exact except where a
residual is itself below the wide format's resolution (documented in the module README of the core).
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

NP_FLOAT = {"f16": np.float16, "f32": np.float32, "f64": np.float64, "bf16": np.float32}
RAW = {"f16": np.uint16, "bf16": np.uint16, "f32": np.uint32, "f64": np.uint64}
WIDE = {"f16": np.float32, "bf16": np.float64, "f32": np.float64, "f64": np.float64}
_TINY = {"f16": np.float16(2.0 ** -14), "f32": np.float32(2.0 ** -126), "f64": np.float64(2.0 ** -1022),
         "bf16": np.float32(2.0 ** -126)}


def bits_to_float(bits: np.ndarray, typ: str) -> np.ndarray:
    bits = np.asarray(bits)
    if typ == "bf16":
        return (bits.astype(np.uint32) << np.uint32(16)).view(np.float32)
    return bits.astype(RAW[typ], copy=False).view(NP_FLOAT[typ])


def bf16_round(x: np.ndarray, mode: str = "rn", resid: np.ndarray | None = None) -> np.ndarray:
    """float32/float64 (+ an optional smaller f64 residual) → bf16 bits (uint16) with a rounding mode;
    NaN → canonical 0x7fff. An f64 value is first rounded to odd in f32 (truncated, the lowest bit
    set when inexact), so the second rounding is the correct one in every mode."""
    x = np.asarray(x)
    if x.dtype == np.float64:
        with np.errstate(all="ignore"):
            r32 = x.astype(np.float32)
            back = r32.astype(np.float64)
            d = x - back
            toward = np.sign(d) if resid is None else np.where(d != 0, np.sign(d), np.sign(resid))
            toward = np.where(np.isnan(toward), 0, toward)
            inward = (toward != 0) & (np.sign(back) != toward) & (back != 0)
            r32 = np.where(inward, np.nextafter(r32, np.float32(0)), r32).astype(np.float32)
            inexact = (toward != 0) & np.isfinite(r32)
            r32 = np.where(inexact, (r32.view(np.uint32) | np.uint32(1)).view(np.float32), r32)
    else:
        r32 = x.astype(np.float32)
    u = r32.view(np.uint32).astype(np.uint64)
    nan = np.isnan(r32)
    if mode == "rn":
        r = (u + np.uint64(0x7FFF) + ((u >> np.uint64(16)) & np.uint64(1))) >> np.uint64(16)
    else:
        trunc = u >> np.uint64(16)
        inexact = (u & np.uint64(0xFFFF)) != 0
        neg = (u >> np.uint64(31)) != 0
        up = np.zeros_like(inexact) if mode == "rz" else (inexact & neg if mode == "rm" else inexact & ~neg)
        r = trunc + up.astype(np.uint64)
    r = np.where(nan, np.uint64(0x7FFF), r)
    return r.astype(np.uint16)


def float_to_bits(x: np.ndarray, typ: str, mode: str = "rn") -> np.ndarray:
    x = np.asarray(x)
    if typ == "bf16":
        return bf16_round(x, mode)
    if x.dtype != NP_FLOAT[typ]:
        x = round_float(x, typ, mode)
    return x.view(RAW[typ])


def _step(r: np.ndarray, toward: np.ndarray | float) -> np.ndarray:
    return np.nextafter(r, toward).astype(r.dtype)


def adjust(r: np.ndarray, resid_sign: np.ndarray, mode: str) -> np.ndarray:
    """Given round-to-nearest ``r`` and the sign of (exact − r), apply a directed rounding mode."""
    if mode in ("rn", "rni", None):
        return r
    dt = r.dtype.type
    if mode in ("rm", "rmi"):
        return np.where(resid_sign < 0, _step(r, dt(-np.inf)), r)
    if mode in ("rp", "rpi"):
        return np.where(resid_sign > 0, _step(r, dt(np.inf)), r)
    if mode in ("rz", "rzi"):
        away = ((resid_sign < 0) & (r > 0)) | ((resid_sign > 0) & (r < 0))
        return np.where(away, _step(r, dt(0)), r)
    raise ValueError(mode)


def round_float(x: np.ndarray, typ: str, mode: str = "rn", resid: np.ndarray | None = None) -> np.ndarray:
    """Round wider floats ``x`` (+ an optional smaller residual) to ``typ`` with ``mode``."""
    with np.errstate(all="ignore"):
        if typ == "bf16":
            return bits_to_float(bf16_round(x, mode), "bf16")
        r = np.asarray(x).astype(NP_FLOAT[typ])
        if mode in ("rn", None) and resid is None:
            return r
        back = r.astype(np.asarray(x).dtype)
        diff = np.asarray(x) - back
        sign = np.sign(diff)
        if resid is not None:
            sign = np.where(sign == 0, np.sign(resid), sign)
            if mode in ("rn", None):
                # x exactly halfway between two results: the residual breaks the tie
                return r
        sign = np.where(np.isnan(sign), 0, sign)
        return adjust(r, sign, mode)


def ftz(x: np.ndarray, typ: str) -> np.ndarray:
    """Flush subnormals to sign-preserving zero (``.ftz``, ISA §9.7.3)."""
    tiny = _TINY[typ]
    with np.errstate(invalid="ignore"):
        sub = (np.abs(x) < tiny) & (x != 0)
    if not np.any(sub):
        return x
    return np.where(sub, np.copysign(x.dtype.type(0), x), x)


def two_sum(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Error-free a + b = s + e (Knuth)."""
    s = a + b
    bb = s - a
    e = (a - (s - bb)) + (b - bb)
    return s, e


def _split(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    c = a * np.float64(134217729.0)  # 2^27 + 1 (Veltkamp)
    hi = c - (c - a)
    return hi, a - hi


def two_prod(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Error-free a * b = p + e for float64 (Dekker), barring overflow."""
    p = a * b
    ah, al = _split(a)
    bh, bl = _split(b)
    e = ((ah * bh - p) + ah * bl + al * bh) + al * bl
    return p, e


def fma64(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """a*b + c for float64 as (rounded result, residual sign source): double-double evaluation,
    correctly rounded except in rare double-rounding ties."""
    with np.errstate(all="ignore"):
        p, pe = two_prod(a, b)
        s, se = two_sum(p, c)
        t = pe + se
        r = s + t
        bad = ~np.isfinite(p) | ~np.isfinite(r)
        if np.any(bad):
            r = np.where(bad, a * b + c, r)
        resid = (s - r) + t
        return r, resid


# What an sm_90 GPU writes for a NaN result, which the ISA leaves unspecified (measured on an H200 with
# ptxkit.corpus.gpuprobe; tests/data/gpu_probe holds the vectors): f32, f16 and bf16 arithmetic, abs,
# neg, min/max and the conversions into f32/f16 that go through the FP unit write the canonical NaN,
# every payload bit set and the sign clear; f64 arithmetic keeps an operand's NaN, quieted.
_CANON = {"f32": np.uint32(0x7FFFFFFF).view(np.float32), "f16": np.uint16(0x7FFF).view(np.float16),
          "bf16": np.uint32(0x7FFF0000).view(np.float32)}


def canonical_nan(r: np.ndarray, typ: str) -> np.ndarray:
    """``r`` (a ``typ`` array; bf16 as float32) with each NaN made the canonical NaN (f64: unchanged)."""
    r = np.asarray(r)
    if typ not in _CANON:
        return r
    nan = np.isnan(r)
    if not np.any(nan):
        return r
    return np.where(nan, _CANON[typ], r).astype(r.dtype)


def nan_operand64(r: np.ndarray, operands: list, which: str, only_all: bool = False) -> np.ndarray:
    """An f64 result where an operand is NaN (``only_all``: every operand): that NaN quieted, sign and
    payload kept — the ``last`` NaN operand for add/sub/mul/fma/min/max, the ``first`` for div, as an
    sm_90 GPU writes them (measured: ptxkit.corpus.gpuprobe). An invalid operation's own NaN stays."""
    ops = [np.asarray(v, np.float64) for v in operands]
    nans = [np.isnan(v) for v in ops]
    if not any(np.any(n) for n in nans):
        return r
    out = np.array(r, np.float64)
    for v, n in (zip(ops, nans) if which == "last" else list(zip(ops, nans))[::-1]):
        if np.any(n):
            quiet = (v.view(np.uint64) | np.uint64(1 << 51)).view(np.float64)
            out = np.where(n, quiet, out)
    if only_all:
        out = np.where(np.logical_and.reduce(np.broadcast_arrays(*nans)), out, r)
    return out


_FORMAT = {"f16": (-14, 10, 15), "bf16": (-126, 7, 127), "f32": (-126, 23, 127), "f64": (-1022, 52, 1023)}


def round_fraction(q: Fraction, typ: str, mode: str) -> float:
    """The exact rational ``q`` rounded to ``typ`` with ``mode`` (rn/rz/rm/rp; IEEE 754 §4.3, overflow
    per §7.4: to infinity unless the mode rounds toward zero from it), as a Python float; 0 for 0."""
    if q == 0:
        return 0.0
    emin, mbits, emax = _FORMAT[typ]
    neg = q < 0
    q = -q if neg else q
    e = q.numerator.bit_length() - q.denominator.bit_length()
    if Fraction(2) ** e > q:
        e -= 1
    quantum = max(e, emin) - mbits
    scaled = q / Fraction(2) ** quantum
    m = scaled.numerator // scaled.denominator
    rem = scaled - m
    if mode in ("rn", None):
        up = rem > Fraction(1, 2) or (rem == Fraction(1, 2) and m % 2 == 1)
    elif mode == "rz":
        up = False
    else:
        up = rem > 0 and (mode == "rp") != neg
    m += int(up)
    top = (2 ** (mbits + 1) - 1) * Fraction(2) ** (emax - mbits)  # the largest finite value
    value = m * Fraction(2) ** quantum
    if value > top:
        toward_inf = mode in ("rn", None) or (mode == "rp" and not neg) or (mode == "rm" and neg)
        r = math.inf if toward_inf else float(top)
    else:
        r = math.ldexp(m, quantum)
    return -r if neg else r
