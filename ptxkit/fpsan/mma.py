"""FPSan for warp-level ``mma.sync`` (PTX ISA §9.7.14.5.14 and the fragment layouts of §9.7.14.5.8).

The ring semantics (docs/fpsan.md §2 "dot / mma") is::

    D[r][c] = Σ_k sext(E(A[r][k])) · sext(E(B[k][c])) + E(C[r][c])   mod 2^(accumulator width)

Each lane only holds a few fragment elements, so the expansion works across the warp:

1. every lane embeds its own A/B fragment elements (φ of the input type, bit-packed back into
   32-bit registers so a 16-bit pair still travels in one shuffle);
2. ``shfl.sync.idx`` gathers, for the lane's outputs at rows ``g``/``g+8`` and columns ``2t``/``2t+1``
   (g = laneid>>2, t = laneid&3), the A fragments of the four lanes of its group (which hold rows g and
   g+8 entirely) and the B fragments of the lanes whose groupID is ``2t``/``2t+1`` (columns);
3. integer multiply-adds accumulate the sign-extended products on top of E(C): for 16-bit inputs
   ``mad.wide.s16`` on the 16-bit halves of the gathered words (its signed 16×16→32 product is
   ``sext(E(a))·sext(E(b))`` mod 2^32, so no shifts to extract and sign-extend), ``mad.lo`` for tf32;
   φ⁻¹ writes D (through the sanitizer's ``define``, so a following mma with C == D reads the payload).

Compactness (ptxas time grows quickly with the expansion's size): the source-lane indices and every
gathered operand are memoised per straight-line run on the payload registers they come from
(``RewriteContext.memo``), so consecutive mma sharing A (the usual ``for n: D[n] += A·B[n]`` tile
loop) shuffle A once. Per m16n8k16 f16 mma: 16 shuffles for B (+16 for A when not shared), 16 word
splits, 64 ``mad.wide.s16`` — about half the lines of the first version (shl/shr per element, A
gathered per mma, every D unembedded and re-embedded).

Two expansions:

* ``shuffle`` (above): integer code only;
* ``limbs``: no data exchange at all. A 16-bit payload is ``hi·2^8 + lo`` with 8-bit limbs that f16
  holds exactly; four ``mma.sync …f32.f16.f16.f32`` on the limb fragments (same layout as the
  operands) give exact integer sums (< 2^24), combined as ``HH·2^16 + (HL+LH)·2^8 + LL + E(C)``
  mod 2^32. A tf32 (32-bit) payload has four unsigned byte limbs and ten tf32 mma (byte pairs with
  i + j ≤ 3; higher ones vanish mod 2^32). The output then contains float mma, but only on exact
  small integers. Being per fragment element, it also models ``wmma.mma`` (:func:`rewrite_wmma`),
  whose fragment layouts the ISA leaves unspecified.

``ptxkit.fpsan_ptx`` picks per function (:func:`auto_mode`): ptxas time is superlinear in the number
of ``shfl.sync`` (sanitized ``triton_attn_fwd_sm80.ptx``, 128 mma: 52 s of ptxas with shuffles, 3 s
with limbs, 0.3 s unsanitized), so functions with many mma use limbs.

The standalone rewrite (:func:`expand_mma`) is emitted as one ``{ … }`` block with block-scoped
``.reg`` declarations, so it needs no fresh-register service and sibling blocks may reuse the names
(ISA §5.1.1: registers declared in a block are visible only there). D is written last because
nvcc/Triton often pass D == C.

Modelled: ``m16n8k16`` and ``m16n8k8`` with ``.f16``/``.bf16`` A/B and ``.f32`` or ``.f16``
accumulators, ``m16n8k8``/``m16n8k4`` with ``.tf32`` A/B (embedded as f32 payloads) and ``.f32``
accumulators; ``wmma.mma`` with f32 accumulators and f16 (k = 16) or tf32 (k = 8) inputs; f64
``m8n8k4`` (``mma_f64``: 64-bit payloads through shuffles); ``wgmma.mma_async`` (``wgmma``: descriptors
decoded at run time, ldmatrix, integer limbs). A third expansion, ``int8`` (``mma_int``), computes the
limb products on the integer tensor cores like Triton's own FPSan dot: integer-only and no data
exchange. Not modelled (reported by :class:`MmaNotModelled`): other shapes (``m8n8k4`` f16 quad-pair
layouts), fp8 variants, guarded mma.
"""

from __future__ import annotations

import re
from typing import Any

from ptxkit.fpsan import wgmma
from ptxkit.fpsan.ctx import RewriteContext
from ptxkit.fpsan.mma_calls import tile_call
from ptxkit.fpsan.mma_f64 import F64_FORM, plan_f64, rewrite_mma_f64
from ptxkit.fpsan.mma_int import generate_int
from ptxkit.fpsan.mma_limbs import generate_limbs, generate_limbs32, rewrite_wmma, wmma_plan
from ptxkit.fpsan.mma_plan import (
    SHAPES,
    BlockEmitter,
    CtxEmitter,
    MmaForm,
    MmaNotModelled,
    MmaPlan,
    classify,
    phi,
    phi_inv,
    plan,
)
from ptxkit.fpsan.mma_shuffle import generate_shuffle
from ptxkit.ir import Instruction

__all__ = ["LIMBS_FROM", "SHAPES", "MmaForm", "MmaNotModelled", "auto_mode", "classify", "expand_mma", "phi",
           "phi_inv", "plan", "resolve_mode", "rewrite_mma", "rewrite_wmma", "why_not_modelled", "wmma_plan"]


def _generate(p: MmaPlan, em: Any, mode: str = "shuffle") -> None:
    """Emit the ring semantics of the planned mma through ``em`` (``mode``: see :func:`auto_mode`)."""
    et = "f32" if p.form.atype == "tf32" else p.form.atype
    if p.shape.halves == 1:
        a_pay = [em.embed_word(r, et) for r in p.a_regs]
        b_pay = [em.embed_word(r, et) for r in p.b_regs]
    else:  # both 16-bit payloads of a register travel together in one 32-bit shuffle
        a_pay = [em.embed_pair(r, et) for r in p.a_regs]
        b_pay = [em.embed_pair(r, et) for r in p.b_regs]

    if mode == "int8":
        generate_int(p, em, a_pay, b_pay)
    elif mode == "limbs":
        (generate_limbs if p.shape.halves == 2 else generate_limbs32)(p, em, a_pay, b_pay)
    else:
        generate_shuffle(p, em, a_pay, b_pay)


# ptxas time grows superlinearly with the number of shfl.sync in a function: the sanitized
# triton_attn_fwd_sm80.ptx (128 mma, 2240 shuffles) takes ~50 s of ptxas against 0.3 s for the
# original, and 3 s with the limb expansion. A few mma (GEMM tiles, dot16) stay on the shuffles.
LIMBS_FROM = 16


def auto_mode(n_mma: int) -> str:
    """The expansion ``auto`` picks for a function with ``n_mma`` mma instructions: ``shuffle``
    (integer-only code) below :data:`LIMBS_FROM`, ``limbs`` from there on."""
    return "limbs" if n_mma >= LIMBS_FROM else "shuffle"


def resolve_mode(mode: str, n_mma: int, target: list[str]) -> str:
    """The expansion a function gets: ``int8`` (the default) needs the integer ``mma.m16n8k16`` of
    sm_80 and later; below sm_80 (or with ``auto`` there) it falls back to :func:`auto_mode`."""
    sm = 0
    for t in target:
        m = re.fullmatch(r"sm_(\d+)\w*", t)
        if m:
            sm = int(m.group(1))
    if mode == "auto":
        mode = "int8"
    if mode == "int8" and sm < 80:
        return auto_mode(n_mma)
    return mode


def expand_mma(instr: Instruction, prefix: str = "%fpsan_mma_", mode: str = "shuffle") -> list[str]:
    """The standalone PTX block (lines) computing the ring semantics of ``instr``; raises
    :class:`MmaNotModelled` for forms outside the modelled set. ``mode``: ``shuffle`` or ``limbs``."""
    p = plan(instr)
    em = BlockEmitter(prefix)
    _generate(p, em, mode)
    return em.text()


def rewrite_mma(instr: Instruction, ctx: RewriteContext) -> bool:
    """The sanitizer's hook (contract in ``ptxkit/fpsan/ctx.py``): emit the expansion of one
    ``mma``/``wgmma`` through ``ctx`` and return True, or return False (emitting nothing) when the form
    is not modelled — the caller reports it; :func:`why_not_modelled` gives the specific reason.
    ``wgmma`` always takes the integer-limb expansion (``ptxkit.fpsan.wgmma``), f64 ``m8n8k4`` the
    64-bit shuffles of ``ptxkit.fpsan.mma_f64``."""
    if instr.opcode == "wgmma":
        try:
            return wgmma.rewrite_wgmma(instr, ctx)
        except MmaNotModelled:
            return False
    try:
        if _is_f64(instr):
            rewrite_mma_f64(instr, F64_FORM, ctx)
            return True
        p = plan(instr)
    except MmaNotModelled:
        return False
    if getattr(ctx, "mma_mode", "shuffle") == "int8":  # a call of the tile's helper function (mma_calls)
        tile_call(ctx, p.form, p.shape, p.acc16, p.d_regs, p.a_regs, p.b_regs, p.c_regs)
        return True
    _generate(p, CtxEmitter(ctx), getattr(ctx, "mma_mode", "shuffle"))
    return True


def _is_f64(instr: Instruction) -> bool:
    """An f64 mma (raises :class:`MmaNotModelled` when the instruction cannot be read)."""
    return classify(instr).atype == "f64"


def why_not_modelled(instr: Instruction) -> str | None:
    """None when :func:`rewrite_mma` models ``instr``, else the reason (for the sanitizer's report)."""
    if instr.opcode == "wgmma":
        return wgmma.why_not_modelled(instr)
    try:
        if _is_f64(instr):
            plan_f64(instr, F64_FORM)
            return None
        plan(instr)
    except MmaNotModelled as e:
        return e.reason
    return None
