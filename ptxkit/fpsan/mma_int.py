"""The ``int8`` expansion of a float ``mma.sync`` tile (``ptxkit.fpsan.mma``, and every n8 tile of a
``wgmma``, ``ptxkit.fpsan.wgmma``): the ring products on the integer tensor cores, as Triton's own
FPSan dot does (8-bit limbs, ``mma.sync…s32.s8/u8``): exact, integer-only, no data exchange.

16-bit payloads (f16/bf16): sext(p) = hi·2^8 + lo with lo = p & 0xff unsigned and hi = p >> 8 a
signed byte, so Σ_k sext(a)·sext(b) = HH·2^16 + (HL + LH)·2^8 + LL mod 2^32 with four integer mma
``m16n8k16`` (u8·u8, s8·u8 chained into u8·s8, s8·s8). The limb fragments come from the payload words
by one ``prmt`` each: the float m16n8k16 fragment gives lane (g, t) the k-values {2t, 2t+1, 2t+8,
2t+9} of its rows (A) or column (B), the integer one the k'-values 4t..4t+3 — the same lane, so
k' = 4t + i ↔ k = (2t, 2t+1, 2t+8, 2t+9)[i] is one permutation of the sum's index applied to A and B
alike (PTX ISA §9.7.14.5.8, "Matrix Fragments for mma.m16n8k16"). m16n8k8 pads the k'-slots 2, 3
with zero bytes.

32-bit payloads (tf32, embedded as f32): the product mod 2^32 only needs the unsigned bytes a_i, b_j
with i + j ≤ 3: S_s = Σ_{i+j=s} Σ_k a_i·b_j and D = Σ_s S_s·2^(8s). Each S_s is one integer mma with
up to four byte pairs side by side in the k'-slots of a lane (m16n8k32 for k = 8: the lane's two
k-values t, t+4 × four pairs fill its eight k'-slots; m16n8k16 for k = 4), pad slots zeroed on B.

The integer sums are exact in s32 (|Σ| < 2^21 for 16-bit limbs, < 2^23 for bytes), D is combined mod
2^32 (mod 2^16 for f16 accumulators) and written through the emitter's ``finish``.
"""

from __future__ import annotations

from typing import Any

from ptxkit.fpsan.mma_plan import MmaPlan, accumulate


def _zero(em: Any) -> str:
    if "int8_zero" not in em.memo:
        z = em.reg()
        em.op(f"mov.b32 {z}, 0")
        em.memo["int8_zero"] = z
    return str(em.memo["int8_zero"])


def _prmt(em: Any, x: str, y: str | None, sel: int, mask: int = 0) -> str:
    """prmt.b32 of (x, y or zero) with selector ``sel`` (ISA §9.7.8.7), then ``and`` with ``mask``
    when nonzero; memoised on its inputs (payload registers live as long as the memo)."""
    key = ("prmt", x, y, sel, mask)
    if key not in em.memo:
        d = em.reg()
        em.op(f"prmt.b32 {d}, {x}, {y if y is not None else _zero(em)}, {sel:#x}")
        if mask:
            em.op(f"and.b32 {d}, {d}, {mask:#x}")
        em.memo[key] = d
    return str(em.memo[key])


def _mma(em: Any, shape: str, ta: str, tb: str, a: list[str], b: list[str], c: list[str]) -> list[str]:
    d = [em.reg() for _ in range(4)]
    em.op(f"mma.sync.aligned.{shape}.row.col.s32.{ta}.{tb}.s32 {{{', '.join(d)}}}, {{{', '.join(a)}}}, "
          f"{{{', '.join(b)}}}, {{{', '.join(c)}}}")
    return d


def _rows16(p: MmaPlan, a_pay: list[str]) -> list[tuple[str, str | None]]:
    """The payload words of each A row half (g, g+8): m16n8k16 k-pairs (2t, 2t+1) and (2t+8, 2t+9)."""
    if p.shape.k == 16:
        return [(a_pay[0], a_pay[2]), (a_pay[1], a_pay[3])]
    return [(a_pay[0], None), (a_pay[1], None)]


def products16(p: MmaPlan, em: Any, a_pay: list[str], b_pay: list[str]) -> list[list[str]]:
    """(LL, HL + LH, HH) integer mma results (4 registers each, the C layout) of 16-bit payloads."""
    rows = _rows16(p, a_pay)
    col = (b_pay[0], b_pay[1] if p.shape.k == 16 else None)
    lo, hi = 0x6420, 0x7531  # bytes 0, 2, 4, 6 (low limbs) / 1, 3, 5, 7 (high limbs) of the pair
    if col[1] is None:
        lo, hi = 0x4420, 0x4431  # the pad slots read the zero register
    a_lo = [_prmt(em, x, y, lo) for x, y in rows]
    a_hi = [_prmt(em, x, y, hi) for x, y in rows]
    b_lo, b_hi = [_prmt(em, *col, lo)], [_prmt(em, *col, hi)]
    z = [_zero(em)] * 4
    ll = _mma(em, "m16n8k16", "u8", "u8", a_lo, b_lo, z)
    mid = _mma(em, "m16n8k16", "u8", "s8", a_lo, b_hi, _mma(em, "m16n8k16", "s8", "u8", a_hi, b_lo, z))
    hh = _mma(em, "m16n8k16", "s8", "s8", a_hi, b_hi, z)
    return [ll, mid, hh]


def products32(p: MmaPlan, em: Any, a_pay: list[str], b_pay: list[str]) -> list[list[str]]:
    """S_0..S_3 (4 registers each, the C layout) of 32-bit payloads (see the module docstring)."""
    k8 = p.shape.k == 8
    rows = [(a_pay[0], a_pay[2]), (a_pay[1], a_pay[3])] if k8 else [(a_pay[0], None), (a_pay[1], None)]
    col = (b_pay[0], b_pay[1]) if k8 else (b_pay[0], None)
    sums = []
    for s in range(4):
        pairs = [(i, s - i) for i in range(s + 1)]
        live = len(pairs)
        pairs += [(0, 0)] * (4 - live)  # pad slots: B bytes zeroed
        if k8:  # slots 4t..4t+3 = (x_i0, y_i0, x_i1, y_i1), 16+4t.. = (x_i2, y_i2, x_i3, y_i3): x, y = k t, t+4
            def sel(ix: list[int]) -> int:
                return ix[0] | (4 + ix[0]) << 4 | ix[1] << 8 | (4 + ix[1]) << 12

            ai, bj = [i for i, _ in pairs], [j for _, j in pairs]
            a = [_prmt(em, x, y, sel(ai[h:h + 2])) for h in (0, 2) for x, y in rows]
            b = []
            for h in (0, 2):
                m = 0 if live >= h + 2 else 0xffff if live == h + 1 else -1
                b.append(_zero(em) if m == -1 else _prmt(em, col[0], col[1], sel(bj[h:h + 2]), m))
            sums.append(_mma(em, "m16n8k32", "u8", "u8", a, b, [_zero(em)] * 4))
        else:  # slots 4t..4t+3 = bytes i0..i3 of the lane's one k-value
            def sel1(ix: list[int]) -> int:
                return ix[0] | ix[1] << 4 | ix[2] << 8 | ix[3] << 12

            a = [_prmt(em, x, x, sel1([i for i, _ in pairs])) for x, _ in rows]
            m = (1 << (8 * live)) - 1 if live < 4 else 0
            b = [_prmt(em, col[0], col[0], sel1([j for _, j in pairs]), m)]
            sums.append(_mma(em, "m16n8k16", "u8", "u8", a, b, [_zero(em)] * 4))
    return sums


def combine(em: Any, parts: list[str], shift: int, c_pay: str) -> str:
    """Σ_i parts[i]·2^(shift·i) + c_pay mod 2^32."""
    acc = parts[0]
    for i in range(1, len(parts)):
        x = em.reg()
        em.op(f"mad.lo.u32 {x}, {parts[i]}, {1 << (shift * i)}, {acc}")
        acc = x
    out = em.reg()
    em.op(f"add.u32 {out}, {acc}, {c_pay}")
    return str(out)


def generate_int(p: MmaPlan, em: Any, a_pay: list[str], b_pay: list[str],
                 c_pays: list[list[str]] | None = None) -> None:
    """D = Σ_k sext(E(A))·sext(E(B)) + E(C) through the integer tensor cores; ``c_pays`` overrides
    the C payloads (per C register, per half), e.g. a wgmma's zeroed accumulator."""
    sums = (products16 if p.shape.halves == 2 else products32)(p, em, a_pay, b_pay)

    def element(r: int, e: int, c_pay: str) -> str:  # s[2r + e]: the s32 D register of that element
        return combine(em, [s[2 * r + e] for s in sums], 8, c_pay)

    accumulate(p, em, element, c_pays)
