"""The ``shuffle`` expansion of a float ``mma.sync`` (``ptxkit.fpsan.mma``): integer code only.

Every lane gathers with ``shfl.sync.idx`` the A fragments of the four lanes of its group (rows g and
g+8) and the B fragments of the lanes whose groupID is 2t/2t+1 (its columns), then accumulates the
sign-extended ring products on top of E(C) — ``mad.wide.s16`` on 16-bit halves, ``mad.lo`` for tf32
(PTX ISA §9.7.14.5.8 fragment layouts).
"""

from __future__ import annotations

from typing import Any

from ptxkit.fpsan.mma_plan import MmaPlan, accumulate, source_lanes


def generate_shuffle(p: MmaPlan, em: Any, a_pay: list[str], b_pay: list[str]) -> None:
    """Emit D = Σ_k sext(E(A))·sext(E(B)) + E(C) through ``em`` from the lanes' A/B payload words."""
    shape = p.shape

    # tf32 (32-bit payloads): gather across the warp with shuffles.
    # Source lanes, once per straight-line run (memo): A rows g/g+8 are held by the four lanes 4g+j
    # of this lane's group; B columns 2t/2t+1 by the lanes with groupID 2t+e, i.e. lanes 8t+4e+j.
    if "lanes" not in em.memo:
        em.memo["lanes"] = source_lanes(em.reg, em.op)
    a_src, b_src = em.memo["lanes"]

    def split(got: str) -> list[str]:
        """The fragment word's elements: 16-bit halves (lo, hi) as b16 registers for
        ``mad.wide.s16`` (whose signed 16×16→32 product is the sign-extended ring product), or the
        32-bit payload itself."""
        if shape.halves == 1:
            return [got]
        lo, hi = em.reg16(), em.reg16()
        em.op(f"mov.b32 {{{lo}, {hi}}}, {got}")
        return [lo, hi]

    def gather(pays: list[str], srcs: list[str], elem) -> list[list[str]]:
        """shfl every payload word from every source lane, placed by ``elem(j, i, h) -> (row, k)``.
        Memoised on the payload registers: consecutive mma sharing an operand gather it once."""
        key = ("gather", shape.k, shape.halves, elem is a_elem, tuple(pays))
        if key in em.memo:
            return em.memo[key]
        out: list[list[str | None]] = [[None] * shape.k, [None] * shape.k]
        for j, src in enumerate(srcs):
            for i, pay in enumerate(pays):
                got = em.reg()
                em.op(f"shfl.sync.idx.b32 {got}, {pay}, {src}, 0x1f, 0xffffffff")
                for h, part in enumerate(split(got)):
                    r, k = elem(j, i, h)
                    out[r][k] = part
        full = [[x for x in row if x is not None] for row in out]
        assert all(len(row) == shape.k for row in full), "fragment layout incomplete"
        em.memo[key] = full
        return full

    def a_elem(j, i, h):
        return shape.a_elem(j, i, h)

    def b_elem(jj, i, h):  # source jj = 4e + j: column e
        return jj >> 2, shape.b_elem(jj & 3, i, h)

    a_row = gather(a_pay, a_src, a_elem)
    b_col = gather(b_pay, b_src, b_elem)
    mad = "mad.lo.u32" if shape.halves == 1 else "mad.wide.s16"

    # Accumulate on top of E(C), per D element.
    def element(r: int, e: int, c_pay: str) -> str:
        acc = em.reg()  # a fresh register: C's payload may be a cached shadow read again later
        for k in range(shape.k):
            em.op(f"{mad} {acc}, {a_row[r][k]}, {b_col[e][k]}, {c_pay if k == 0 else acc}")
        return acc

    accumulate(p, em, element)
