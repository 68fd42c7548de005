"""The 8-bit float formats of ``cvt`` (PTX ISA §5.2.5.1 "Alternate floating-point data formats", §9.7.9.21):
E4M3 (bias 7, no infinities, only S.1111.111 is NaN, largest finite 448) and E5M2 (bias 15, the upper byte of an
f16: infinities and NaNs as IEEE, largest finite 57344). Rounding is to nearest, ties to even, from the exact source
value, and ``.satfinite`` (which both conversions to 8 bits require) clamps out-of-range values and infinities to
the largest finite value of the sign; NaN gives the canonical NaN 0x7F."""

from __future__ import annotations

from functools import cache

import numpy as np

FORMATS = {"e4m3": (4, 3, 7), "e5m2": (5, 2, 15)}  # exponent bits, mantissa bits, bias
_MAX_CODE = {"e4m3": 0x7E, "e5m2": 0x7B}  # the largest finite positive code
NAN_CODE = 0x7F


@cache
def values(fmt: str) -> np.ndarray:
    """The float64 value of each of the 256 codes (NaN codes NaN, E5M2's 0x7C/0xFC ±inf)."""
    e_bits, m_bits, bias = FORMATS[fmt]
    out = np.empty(256, np.float64)
    for code in range(256):
        sign = -1.0 if code & 0x80 else 1.0
        e, m = (code >> m_bits) & ((1 << e_bits) - 1), code & ((1 << m_bits) - 1)
        if fmt == "e4m3" and e == 0xF and m == 0x7:
            out[code] = np.nan
        elif fmt == "e5m2" and e == 0x1F:
            out[code] = sign * np.inf if m == 0 else np.nan
        elif e == 0:
            out[code] = sign * m * 2.0 ** (1 - bias - m_bits)
        else:
            out[code] = sign * (1 + m / (1 << m_bits)) * 2.0 ** (e - bias)
    return out


def encode(x: np.ndarray, fmt: str, relu: bool = False) -> np.ndarray:
    """``cvt.rn.satfinite{.relu}.{e4m3,e5m2}`` of the exact values ``x`` (any float dtype) → uint8 codes."""
    x = np.asarray(x, dtype=np.float64)
    top = _MAX_CODE[fmt]
    finite = values(fmt)[: top + 1]  # increasing
    mag = np.abs(np.nan_to_num(x, nan=0.0, posinf=finite[-1], neginf=-finite[-1]))
    lo = np.clip(np.searchsorted(finite, mag, side="right") - 1, 0, top)
    hi = np.minimum(lo + 1, top)
    below, above = mag - finite[lo], finite[hi] - mag
    up = (hi != lo) & ((above < below) | ((above == below) & (lo & 1 == 1)))
    code = np.where(up, hi, lo).astype(np.uint8)
    negative = np.signbit(x)
    code = np.where(negative, code | np.uint8(0x80), code)
    if relu:
        code = np.where(negative, np.uint8(0), code)
    return np.where(np.isnan(x), np.uint8(NAN_CODE), code).astype(np.uint8)


def decode_f16_bits(codes: np.ndarray, fmt: str, relu: bool = False) -> np.ndarray:
    """``cvt.rn{.relu}.f16x2.{e4m3x2,e5m2x2}`` of each code → f16 bits (every finite code is exact in f16; an E5M2
    code is the upper byte of its f16; E4M3's NaN gives the canonical f16 NaN 0x7FFF)."""
    codes = np.asarray(codes).astype(np.uint16)
    v = values(fmt)[codes]
    bits = (codes << np.uint16(8)) if fmt == "e5m2" else v.astype(np.float16).view(np.uint16)
    bits = np.where(np.isnan(v), np.uint16(0x7FFF) if fmt == "e4m3" else bits, bits).astype(np.uint16)
    if relu:
        bits = np.where(~np.isnan(v) & (codes >= 0x80), np.uint16(0), bits)
    return bits.astype(np.uint16)
