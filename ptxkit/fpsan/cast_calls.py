"""The ring sequences of packed float conversions (``cvt``, ISA §9.7.9.21; docs/fpsan.md §2), written
once against the φ emitter interface (``fresh``/``emit``, :mod:`ptxkit.fpsan.phi`) so that the same code
is emitted inline (the sanitizer's context) or as the body of a helper ``.func`` called per site
(:func:`ptxkit.fpsan.mma_calls.helper`, which also picks ``.reg`` or ABI ``.param`` parameters).

Why helpers: each packed cast is 35–50 instructions (Triton's attention and fp8 matmul kernels have a
few hundred), and ptxas time grows faster than linearly with a function's size. A form gets a helper
where a function has at least :data:`MIN_SITES` of them (fewer cost more as calls than inline). The
helper computes exactly the inline sequence: the sanitized values are the same bits.
"""

from __future__ import annotations

from typing import Any

from ptxkit.fpsan import phi
from ptxkit.fpsan import ring as R
from ptxkit.fpsan.mma_calls import call, helper
from ptxkit.fpsan.phi import BITS_KIND, hexc

# a packed-cast form used at least this often in one function is emitted as a helper .func
MIN_SITES = 4


def narrow(em: Any, p: str, s: int, d: int, homomorphic: bool) -> str:
    """The S → D bit narrowing of the payload register ``p`` (S bits): Triton 3.9's fold (fpsan.md §2:
    t ^ f in the low D bits) or truncation (``--homomorphic-casts``); a fresh D-bit register."""
    kd, ks = BITS_KIND[d], BITS_KIND[s]
    o = em.fresh(kd)
    if homomorphic:
        em.emit(f"cvt.u{d}.u{s} {o}, {p}")
        return o
    se, disc, mm, f, g, f2, x = (em.fresh(ks) for _ in range(7))
    em.emit(f"cvt.s{s}.s{d} {se}, {p}")                       # sext_S(trunc_D(v))
    em.emit(f"xor.b{s} {disc}, {p}, {se}")
    em.emit(f"mul.lo.s{s} {mm}, {disc}, {hexc(R.narrow_mult(s, d), s)}")
    em.emit(f"shr.u{s} {f}, {mm}, {s - d}")
    em.emit(f"shr.u{s} {g}, {mm}, {s - d // 2}")              # (f >> D/2) within the top D bits
    em.emit(f"xor.b{s} {f2}, {f}, {g}")
    em.emit(f"xor.b{s} {x}, {f2}, {p}")                       # t ^ f in the low D bits
    em.emit(f"cvt.u{d}.u{s} {o}, {x}")
    return o


def unembed16(em: Any, v: str, ftype: str) -> str:
    """φ⁻¹ of a 16-bit payload into a fresh b16 register (the bits of an f16/bf16 lane)."""
    o = em.fresh("b16")
    phi.unembed(em, v, R.ring(ftype), o, False)
    return o


def pack_halves(em: Any, lo: str, hi: str, lt: str, homomorphic: bool) -> tuple[str, str]:
    """``cvt.rn.{f16,bf16}x2.f32`` on the f32 payloads of its two sources (b → low lane, a → high):
    the narrowing of each and φ⁻¹ of the lane type; the two b16 lane registers (low, high)."""
    return (unembed16(em, narrow(em, lo, 32, 16, homomorphic), lt),
            unembed16(em, narrow(em, hi, 32, 16, homomorphic), lt))


def widen_fp8_pair(em: Any, src: str, ft: str, to: str = "f16") -> tuple[str, str]:
    """``cvt.rn.f16x2.{e4m3x2,e5m2x2}`` of the b16 register ``src`` (byte 0 → low lane): φ of each byte
    (low-byte φ, :func:`ptxkit.fpsan.phi.embed_low`), the payload sign-extended to 16 bits, φ⁻¹ f16 (``to``: bf16, for
    Triton's E5M2 → bf16 asm)."""
    lanes = []
    for lane in (0, 1):
        byte = em.fresh("b16")
        em.emit(f"{'and.b16' if lane == 0 else 'shr.u16'} {byte}, {src}, {'0xFF' if lane == 0 else 8}")
        pay = phi.embed_low(em, byte, R.ring(ft), 16)
        t, w = em.fresh("b16"), em.fresh("b16")
        em.emit(f"shl.b16 {t}, {pay}, 8")
        em.emit(f"shr.s16 {w}, {t}, 8")  # sign-extend the 8-bit payload to 16 bits
        lanes.append(unembed16(em, w, to))
    return lanes[0], lanes[1]


def narrow_fp8_byte(em: Any, p: str, ft: str, homomorphic: bool, width: int = 32) -> str:
    """One lane of :func:`narrow_fp8_pair`: the ``width`` → 8 narrowing of the payload ``p``, φ⁻¹ of the 8-bit format
    in the low byte of a b16 register."""
    x = p if homomorphic else _fold_to_byte(em, p, width)
    if width != 16:
        b16 = em.fresh("b16")
        em.emit(f"cvt.u16.u32 {b16}, {x}")
        x = b16
    return phi.unembed_low(em, x, R.ring(ft), 16)


def narrow_fp8_pair(em: Any, lo: str, hi: str, ft: str, homomorphic: bool, width: int = 32) -> str:
    """``cvt.rn.satfinite.{e4m3x2,e5m2x2}.f32`` on the f32 payloads (b → low byte, a → high byte): the 32 → 8
    narrowing (the code of :func:`narrow` with 8-bit lanes: R = 0xb7b7b7b7), φ⁻¹ of the 8-bit format in the low
    byte; the packed b16 register. ``width`` 16: of two halves' payloads (a half's ``.to(float8*)``, R = 0xb7b7)."""
    lanes = [narrow_fp8_byte(em, p, ft, homomorphic, width) for p in (lo, hi)]
    hi16, out = em.fresh("b16"), em.fresh("b16")
    em.emit(f"shl.b16 {hi16}, {lanes[1]}, 8")
    em.emit(f"or.b16 {out}, {hi16}, {lanes[0]}")
    return out


# ------------------------------------------------------------------------------ the helper calls
# Each writes a fresh b32 register (helpers return b32) and the caller moves it into the destination,
# whatever that register's declared type.

def call_pack_halves(ctx: Any, lo: str, hi: str, lt: str) -> str:
    """:func:`pack_halves` through its helper; the packed b32 result."""
    hom = bool(ctx.homomorphic_casts)

    def body(em: Any, o: list[str], p: list[str]) -> None:
        a, b = pack_halves(em, p[0], p[1], lt, hom)
        em.emit(f"mov.b32 {o[0]}, {{{a}, {b}}}")

    name = helper(ctx, ("cvt-pack", lt, hom), "cvt", 1, ["b32 %i0", "b32 %i1"], body)
    out = ctx.fresh("b32")
    call(ctx, name, [out], [lo, hi], [])
    return str(out)


def call_widen_fp8_pair(ctx: Any, src: str, ft: str) -> str:
    """:func:`widen_fp8_pair` through its helper (``src``: a b16 register); the packed f16x2 bits."""

    def body(em: Any, o: list[str], p: list[str]) -> None:
        a, b = widen_fp8_pair(em, p[0], ft)
        em.emit(f"mov.b32 {o[0]}, {{{a}, {b}}}")

    name = helper(ctx, ("cvt-widen8", ft), "cvt", 1, ["b16 %i0"], body)
    out = ctx.fresh("b32")
    call(ctx, name, [out], [src], [])
    return str(out)


def call_narrow_fp8_pair(ctx: Any, lo: str, hi: str, ft: str) -> str:
    """:func:`narrow_fp8_pair` through its helper; the packed pair in the low 16 bits of a b32."""
    hom = bool(ctx.homomorphic_casts)

    def body(em: Any, o: list[str], p: list[str]) -> None:
        em.emit(f"cvt.u32.u16 {o[0]}, {narrow_fp8_pair(em, p[0], p[1], ft, hom)}")

    name = helper(ctx, ("cvt-narrow8", ft, hom), "cvt", 1, ["b32 %i0", "b32 %i1"], body)
    out = ctx.fresh("b32")
    call(ctx, name, [out], [lo, hi], [])
    return str(out)


def _fold_to_byte(em: Any, p: str, s: int) -> str:
    """Triton's S → 8 narrowing fold of the S-bit payload ``p`` (:func:`narrow` with 8-bit lanes), the result in the
    low byte of a fresh S-bit register."""
    t, se, disc, mm, f, g, f2, x = (em.fresh(f"b{s}") for _ in range(8))
    em.emit(f"shl.b{s} {t}, {p}, {s - 8}")
    em.emit(f"shr.s{s} {se}, {t}, {s - 8}")  # sext_S(trunc_8(v))
    em.emit(f"xor.b{s} {disc}, {p}, {se}")
    em.emit(f"mul.lo.s{s} {mm}, {disc}, {hexc(R.narrow_mult(s, 8), s)}")
    em.emit(f"shr.u{s} {f}, {mm}, {s - 8}")
    em.emit(f"shr.u{s} {g}, {mm}, {s - 4}")
    em.emit(f"xor.b{s} {f2}, {f}, {g}")
    em.emit(f"xor.b{s} {x}, {f2}, {p}")  # t ^ f in the low byte
    return x
