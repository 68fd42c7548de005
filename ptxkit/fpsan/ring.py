"""FPSan ring arithmetic, pinned to Triton 3.9.0 (``docs/fpsan.md`` §1–§2).

Floats of width w are mapped by the bijection φ (:func:`embed`) onto Z/2^w, computed on, and mapped
back by φ⁻¹ (:func:`unembed`). Everything here works on numpy ``uint64`` arrays (scalars accepted) so
it serves three users: the test oracle, the PTX rewrite (folding float immediates at rewrite time),
and the constants the rewrite emits. Multiplication of ``uint64`` wraps mod 2^64, which is exactly
what every width ≤ 64 needs once masked.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np

U64 = np.uint64
_M64 = (1 << 64) - 1


# --------------------------------------------------------------------------- constants (fpsan.md §1)

def inverse_mod(a: int, bits: int = 64) -> int:
    """Inverse of an odd ``a`` mod 2^bits by 2-adic Newton (the doc's procedure: x = 2 - a, then
    x = x(2 - ax) while the number of correct bits 2, 4, 8, … is below 64)."""
    assert a & 1, "only odd numbers are invertible mod 2^k"
    m = (1 << 64) - 1
    x = (2 - a) & m
    good = 2
    while good < 64:
        x = (x * (2 - a * x)) & m
        good *= 2
    return x & ((1 << bits) - 1)


# The 8-bit formats (PTX .e4m3/.e5m2, ISA §5.2.5.1) get φ by the same procedure (fpsan.md §1 is stated
# per type: shift = trailing zeros of bits(1.0), masks from the width); the doc's 32→8 narrowing
# multiplier 0xb7b7b7b7 is the cast into them.
_ONE_BITS = {"f16": 0x3C00, "bf16": 0x3F80, "f32": 0x3F800000, "f64": 0x3FF0000000000000,
             "e4m3": 0x38, "e5m2": 0x3C}
_WIDTH = {"f16": 16, "bf16": 16, "f32": 32, "f64": 64, "e4m3": 8, "e5m2": 8}


@dataclass(frozen=True)
class FloatRing:
    """The φ constants of one float type, derived by the doc's procedure (not copied)."""

    name: str
    w: int
    shift: int
    mulA: int
    mulBPos: int
    mulBNeg: int
    invA: int
    invBPos: int
    invBNeg: int

    @property
    def mask(self) -> int:
        return (1 << self.w) - 1

    @property
    def sign(self) -> int:
        return 1 << (self.w - 1)

    @property
    def mag(self) -> int:
        return self.sign - 1

    @property
    def unshifts(self) -> tuple[int, ...]:
        """The shifts that undo ``z ^= z >> shift`` (``s = shift; while s < w: …; s *= 2``)."""
        out, s = [], self.shift
        while s < self.w:
            out.append(s)
            s *= 2
        return tuple(out)


@cache
def ring(name: str) -> FloatRing:
    """The :class:`FloatRing` of ``f16``/``bf16``/``f32``/``f64``/``e4m3``/``e5m2``."""
    if name not in _WIDTH:
        raise KeyError(f"no FPSan ring for type {name!r}")
    w = _WIDTH[name]
    sign = 1 << (w - 1)
    mag = sign - 1
    one = _ONE_BITS[name]
    shift = (one & -one).bit_length() - 1  # trailing zeros of bits(1.0)
    mulA = 14940041 & mag
    one_mixed = (one * mulA) & mag
    one_mixed ^= one_mixed >> shift
    mulBPos = inverse_mod(one_mixed) & mag
    mulBNeg = (-mulBPos) % (1 << (w - 1))
    return FloatRing(name, w, shift, mulA, mulBPos, mulBNeg,
                     inverse_mod(mulA) & mag, inverse_mod(mulBPos) & mag, inverse_mod(mulBNeg) & mag)


def ring_for_type(ptx_type: str) -> FloatRing:
    """The ring of a PTX float type (packed types give their lane type)."""
    base = {"f16x2": "f16", "bf16x2": "bf16", "f32x2": "f32"}.get(ptx_type, ptx_type)
    return ring(base)


# --------------------------------------------------------------------------- helpers

def _u(x) -> np.ndarray:
    """Any int / sequence / array → uint64 array (Python ints masked to 64 bits first)."""
    if isinstance(x, (int, np.integer)):
        return np.asarray(int(x) & _M64, dtype=U64)
    arr = np.asarray(x)
    if arr.dtype == object:
        return np.asarray([int(v) & _M64 for v in arr.ravel()], dtype=U64).reshape(arr.shape)
    return arr.astype(U64)


def _m(x: np.ndarray, w: int) -> np.ndarray:
    return x if w == 64 else (x & U64((1 << w) - 1))


def _signed(x: np.ndarray, w: int) -> np.ndarray:
    """Two's-complement value of w-bit ``x`` as int64."""
    x = _m(_u(x), w)
    if w == 64:
        return x.view(np.int64)
    s = x.astype(np.int64)
    return np.where(s >= (1 << (w - 1)), s - (1 << w), s)


def _from_signed(x: np.ndarray, w: int) -> np.ndarray:
    return _m(np.asarray(x).astype(np.int64).view(U64), w)


def _mul(a, b, w: int) -> np.ndarray:
    with np.errstate(over="ignore"):
        return _m(_u(a) * _u(b), w)


def _add(a, b, w: int) -> np.ndarray:
    with np.errstate(over="ignore"):
        return _m(_u(a) + _u(b), w)


def _sub(a, b, w: int) -> np.ndarray:
    with np.errstate(over="ignore"):
        return _m(_u(a) - _u(b), w)


def _shl(a, s: int, w: int) -> np.ndarray:
    return _m(_u(a) << U64(s), w) if s < 64 else np.zeros_like(_u(a))


def _shr(a, s: int) -> np.ndarray:
    return _u(a) >> U64(s) if s < 64 else np.zeros_like(_u(a))


# --------------------------------------------------------------------------- φ and φ⁻¹

def embed(bits, ftype: str) -> np.ndarray:
    """φ: float bit patterns → ring payloads (fpsan.md §1)."""
    r = ring(ftype)
    u = _m(_u(bits), r.w)
    neg = (u & U64(r.sign)) != 0
    y = _mul(u, r.mulA, r.w) & U64(r.mag)
    z = y ^ _shr(y, r.shift)
    p = _mul(z, np.where(neg, U64(r.mulBNeg), U64(r.mulBPos)), r.w) & U64(r.mag)
    return p ^ np.where(neg, U64(r.sign), U64(0))


def unembed(payload, ftype: str) -> np.ndarray:
    """φ⁻¹: ring payloads → float bit patterns."""
    r = ring(ftype)
    v = _m(_u(payload), r.w)
    neg = (v & U64(r.sign)) != 0
    z = _mul(v, np.where(neg, U64(r.invBNeg), U64(r.invBPos)), r.w) & U64(r.mag)
    for s in r.unshifts:
        z = z ^ _shr(z, s)
    x = _mul(z, r.invA, r.w) & U64(r.mag)
    return x ^ np.where(neg, U64(r.sign), U64(0))


def embed_int(bits: int, ftype: str) -> int:
    return int(embed(bits, ftype))


def unembed_int(payload: int, ftype: str) -> int:
    return int(unembed(payload, ftype))


# --------------------------------------------------------------------------- ring operations (§2)

def add(a, b, w: int) -> np.ndarray:
    return _add(a, b, w)


def sub(a, b, w: int) -> np.ndarray:
    return _sub(a, b, w)


def mul(a, b, w: int) -> np.ndarray:
    return _mul(a, b, w)


def neg(a, w: int) -> np.ndarray:
    return _sub(0, a, w)


def fma(a, b, c, w: int) -> np.ndarray:
    return _add(_mul(a, b, w), c, w)


def smin(a, b, w: int) -> np.ndarray:
    return _from_signed(np.minimum(_signed(a, w), _signed(b, w)), w)


def smax(a, b, w: int) -> np.ndarray:
    return _from_signed(np.maximum(_signed(a, w), _signed(b, w)), w)


def srem(a, b, w: int) -> np.ndarray:
    """``a srem (b | 1)``: C remainder (sign of the dividend), as PTX ``rem.s`` and LLVM ``srem``."""
    sa = _signed(a, w)
    sb = _signed(_u(b) | U64(1), w)
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
        r = np.fmod(sa, sb)
    r = np.where(sb == -1, 0, r)  # INT_MIN srem -1 is 0 (and must not trap)
    return _from_signed(r, w)


def newton_steps(w: int) -> int:
    """Newton steps for the inverse (w=16: 3, 32: 4, 64: 5)."""
    return {16: 3, 32: 4, 64: 5}[w]


def inv(u, w: int) -> np.ndarray:
    """``inv(u) = (x & ~1) | (u & 1)``, x the Newton inverse of ``u | 1`` (fpsan.md §2, div/rcp)."""
    u = _m(_u(u), w)
    a = u | U64(1)
    x = _sub(2, a, w)
    for _ in range(newton_steps(w)):
        x = _mul(x, _sub(2, _mul(a, x, w), w), w)
    return (x & ~U64(1)) | (u & U64(1))


def div(a, b, w: int) -> np.ndarray:
    return _mul(a, inv(b, w), w)


def exp2_k(w: int) -> int:
    return -(-w // 4)


def exp2(x, w: int) -> np.ndarray:
    """(1 + 2^k)^x by the closed form ``1 + (x<<k) + (C(x,2)<<2k) + (C(x,3)<<3k)`` (§2)."""
    k = exp2_k(w)
    x = _m(_u(x), w)
    c2 = _shr(_mul(x, _sub(x, 1, w), w), 1)
    xl = x & U64((1 << (w - 3 * k + 1)) - 1)
    # xl < 2^17, so the product fits in int64 and the division by 6 is exact
    xs = xl.astype(np.int64)
    c3 = (xs * (xs - 1) * (xs - 2) // 6).astype(U64)
    r = _add(1, _shl(x, k, w), w)
    r = _add(r, _shl(c2, 2 * k, w), w)
    return _add(r, _shl(c3, 3 * k, w), w)


LOG2E_F32 = 0x3FB8AA3B  # bits of 1/ln 2 as f32; φ_f32 of it is the exp multiplier


def exp(x, w: int) -> np.ndarray:
    """exp(x) = exp2(E(x) · φ_f32(1/ln2)) — the f32 constant zero-extended for every width."""
    c = embed_int(LOG2E_F32, "f32")
    return exp2(_mul(x, c & ((1 << w) - 1), w), w)


def sincos_base(w: int) -> tuple[int, int]:
    """(a, b) = (−3·5⁻¹, 4·5⁻¹) mod 2^w: the unit a + b·i whose powers give cos/sin."""
    m = (1 << w) - 1
    i5 = inverse_mod(5, w)
    return (-3 * i5) & m, (4 * i5) & m


def cmul(a: tuple, b: tuple, w: int) -> tuple[np.ndarray, np.ndarray]:
    """(a0 + a1 i)(b0 + b1 i) over Z/2^w[i]."""
    re = _sub(_mul(a[0], b[0], w), _mul(a[1], b[1], w), w)
    im = _add(_mul(a[0], b[1], w), _mul(a[1], b[0], w), w)
    return re, im


def sincos(x, w: int) -> tuple[np.ndarray, np.ndarray]:
    """(cos, sin) payloads = (Re, Im) of (a + b·i)^x, MSB-first square-and-multiply over w bits."""
    a, b = sincos_base(w)
    x = _m(_u(x), w)
    re = np.ones_like(x)
    im = np.zeros_like(x)
    for bit in range(w - 1, -1, -1):
        re, im = cmul((re, im), (re, im), w)
        mre, mim = cmul((re, im), (U64(a), U64(b)), w)
        take = ((x >> U64(bit)) & U64(1)) != 0
        re = np.where(take, mre, re)
        im = np.where(take, mim, im)
    return re, im


def sin(x, w: int) -> np.ndarray:
    return sincos(x, w)[1]


def cos(x, w: int) -> np.ndarray:
    return sincos(x, w)[0]


def murmur64(h: int) -> int:
    """The murmur3 64-bit finaliser (fmix64)."""
    h &= _M64
    h ^= h >> 33
    h = (h * 0xFF51AFD7ED558CCD) & _M64
    h ^= h >> 33
    h = (h * 0xC4CEB9FE1A85EC53) & _M64
    h ^= h >> 33
    return h


TAG_IDS = {"log": 1, "log2": 3, "sqrt": 6, "rsqrt": 7, "erf": 8, "floor": 9, "ceil": 10,
           "precise_sqrt": 11}
TAG_K = 314159


def tag(op: str, w: int) -> int:
    """T = low w bits of murmur64(opId)."""
    return murmur64(TAG_IDS[op]) & ((1 << w) - 1)


def tagged(x, op: str, w: int) -> np.ndarray:
    """``((E(x)·K) ^ T) · K`` — an opaque but deterministic unary function."""
    k = TAG_K & ((1 << w) - 1)
    return _mul(_mul(x, k, w) ^ U64(tag(op, w)), k, w)


def fnv1a64(symbol: str) -> int:
    h = 0xCBF29CE484222325
    for byte in symbol.encode():
        h ^= byte
        h = (h * 0x100000001B3) & _M64
    return h


def rotl(x, r: int, w: int) -> np.ndarray:
    r %= w
    x = _m(_u(x), w)
    if r == 0:
        return x
    return _m(_shl(x, r, w) | _shr(x, w - r), w)


def call_hash(symbol: str, args: list, w: int) -> np.ndarray:
    """Opaque pure call: ``Σ rotl(E(arg_i), i)  XOR  FNV-1a-64(symbol)`` (low w bits)."""
    acc = _u(0)
    for i, a in enumerate(args):
        acc = _add(acc, rotl(a, i, w), w)
    return acc ^ U64(fnv1a64(symbol) & ((1 << w) - 1))


# libdevice symbols of the "other pure math call" form used for PTX-level ops that Triton 3.9 has no
# tag for (fpsan.md §2): ``tanh.approx`` is ``__nv_tanhf``; same-type ``cvt.rni``/``cvt.rzi`` are
# ``rint``/``trunc``. f64 uses the double symbol; 16-bit lanes use the float symbol (libdevice has no
# 16-bit tanh/rint/trunc, so Triton calls the f32 function), hashed to the lane width like every width.
LIBCALL_SYMBOLS = {"tanh": ("__nv_tanhf", "__nv_tanh"), "rint": ("__nv_rintf", "__nv_rint"),
                   "trunc": ("__nv_truncf", "__nv_trunc")}


def libcall_symbol(op: str, ftype: str) -> str:
    """The libdevice symbol hashed for ``op`` on ``ftype`` (see :data:`LIBCALL_SYMBOLS`)."""
    f, d = LIBCALL_SYMBOLS[op]
    return d if ftype == "f64" else f


def abs_payload(x, w: int) -> np.ndarray:
    """The payload of |v| given the payload of v: float ``abs`` clears the sign bit of the float bits;
    φ(−v) = −φ(v) for v ≠ ±0 and φ(−0) = 2^(w−1), φ(+0) = 0, so it is the signed absolute value with
    2^(w−1) (−0) going to 0 (+0) — i.e. ``abs.sN`` then ``and`` with the magnitude mask."""
    s = np.abs(_signed(x, w))
    return _from_signed(s, w) & U64((1 << (w - 1)) - 1)


def set_sign_payload(x, neg, w: int) -> np.ndarray:
    """The payload of v with its float sign bit set (where ``neg``) given a payload x ≥ 0 of v: −x,
    except +0 (x = 0) which becomes −0 (2^(w−1)); that is ``(−x) | signMask``."""
    x = _m(_u(x), w)
    return np.where(neg, _sub(0, x, w) | U64(1 << (w - 1)), x)


def xorsign_minmax(a, b, op: str, w: int) -> np.ndarray:
    """``min``/``max.xorsign.abs`` (PTX ISA §9.7.3.10/11, f16/bf16/f32): the min/max of |a| and |b|,
    whose sign bit is then set to sign(a) XOR sign(b). In the ring: the signed min/max of the
    :func:`abs_payload` of both, then :func:`set_sign_payload` — the payload sign bit is the float sign
    bit, so the xor is read off the payloads. The same result as the native bit operations (abs, sign
    xor) applied to sanitized values around a ring min/max."""
    a, b = _m(_u(a), w), _m(_u(b), w)
    m = (smin if op == "min" else smax)(abs_payload(a, w), abs_payload(b, w), w)
    neg = ((a ^ b) & U64(1 << (w - 1))) != 0
    return set_sign_payload(m, neg, w)


def sext(x, s: int, d: int) -> np.ndarray:
    """Sign-extend an s-bit payload to d bits (the widening cast, §2)."""
    x = _m(_u(x), s)
    top = (x >> U64(s - 1)) & U64(1)
    ext = (((1 << d) - 1) ^ ((1 << s) - 1)) & _M64
    return _m(x | np.where(top != 0, U64(ext), U64(0)), d)


def narrow_mult(s: int, d: int) -> int:
    """R = (3511 mod 2^d) repeated across s bits."""
    unit = 3511 & ((1 << d) - 1)
    r = 0
    for i in range(0, s, d):
        r |= unit << i
    return r & ((1 << s) - 1)


def narrow(v, s: int, d: int, *, homomorphic: bool = False) -> np.ndarray:
    """Triton 3.9's narrowing fold S → D bits (or plain truncation with ``homomorphic``)."""
    v = _m(_u(v), s)
    t = _m(v, d)
    if homomorphic:
        return t
    disc = v ^ sext(t, d, s)
    f = _m(_shr(_mul(disc, narrow_mult(s, d), s), s - d), d)
    f = f ^ _shr(f, d // 2)
    return t ^ f


# --------------------------------------------------------------------------- float-level helpers

def float_binop(op: str, a_bits, b_bits, ftype: str) -> np.ndarray:
    """φ⁻¹(op(φ(a), φ(b))) for op in add/sub/mul/div/min/max/rem."""
    w = ring(ftype).w
    fn = {"add": add, "sub": sub, "mul": mul, "div": div, "min": smin, "max": smax, "rem": srem}[op]
    return unembed(fn(embed(a_bits, ftype), embed(b_bits, ftype), w), ftype)


def float_unop(op: str, a_bits, ftype: str) -> np.ndarray:
    """φ⁻¹(op(φ(a))) for op in neg/rcp/exp2/exp/sin/cos, a libcall (tanh/rint/trunc) or a tagged op."""
    w = ring(ftype).w
    e = embed(a_bits, ftype)
    ring_op = {"neg": neg, "rcp": inv, "exp2": exp2, "exp": exp, "sin": sin, "cos": cos}.get(op)
    if ring_op is not None:
        p = ring_op(e, w)
    elif op in LIBCALL_SYMBOLS:
        p = call_hash(libcall_symbol(op, ftype), [e], w)
    else:
        p = tagged(e, op, w)
    return unembed(p, ftype)


def float_cast(bits, src: str, dst: str, *, homomorphic: bool = False) -> np.ndarray:
    """A float → float cvt in the ring: sign-extend up, Triton's fold down, same width unchanged."""
    rs, rd = ring(src), ring(dst)
    p = embed(bits, src)
    if rd.w > rs.w:
        p = sext(p, rs.w, rd.w)
    elif rd.w < rs.w:
        p = narrow(p, rs.w, rd.w, homomorphic=homomorphic)
    return unembed(p, dst)
