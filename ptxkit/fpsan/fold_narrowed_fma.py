"""A 16-bit ``fma`` that LLVM made of a sum the source computes at f32/f64 on widened halves (issue 10 H; held-out
seed 63768, silent at first contact: ``((x * 2.0).to(f64) - x.to(f64)).to(bf16)`` of a bf16 x as
``fma.rn.bf16 d, x, 2.0, -x``). Natively the wide sum of two exact widenings, narrowed once, is that fma; Triton's
FPSan adds in the wide ring, where the sign-extended payloads may leave the 16-bit range, and narrows with its hash
(docs/fpsan.md §2 casts), which the 16-bit ring fma is not. Not modelled: reported, sanitized as the 16-bit fma
(PTX ISA §9.7.4.6 fma)."""

from __future__ import annotations

import ast

from ptxkit import ir
from ptxkit.fpsan.ctx import RewriteContext
from ptxkit.fpsan.fold_flow import Flow
from ptxkit.fpsan.ops import LANE_TYPE, float_type_of
from ptxkit.fpsan.report import ERROR
from ptxkit.fpsan.source_ast import (
    _DEPTH,
    Decision,
    SourceFile,
    _arms,
    _as_op,
    _cast_to,
    _form,
    _receiver,
    _resolve,
    _width,
    _without_folded_widening,
)

_HALF_DTYPES = ("float16", "bfloat16")


def widened_sum_fma(instr: ir.Instruction, flow: Flow) -> Decision | None:
    """The source's wide sum at a 16-bit ``fma``'s location (the narrowing ``.to()`` LLVM folded the sum into), with
    its form (``f32``/``f64``); else None."""
    ft = float_type_of(instr)
    if instr.opcode not in ("fma", "mad") or LANE_TYPE.get(ft or "", ft) not in ("f16", "bf16"):
        return None
    return flow.hints.decide(instr, _classify)


def _classify(f: SourceFile, n: ast.expr) -> tuple[str, ast.expr] | None:
    if _cast_to(n) not in _HALF_DTYPES:  # (an f32 sum at a merged location is no narrowed one: held-out seed 61235)
        return None
    sums = _arms(f, _without_folded_widening(f, _resolve(f, _receiver(n), _DEPTH)))
    forms = {_form(_width(f, e.left, _DEPTH), _width(f, e.right, _DEPTH)) for e in sums
             if isinstance(e, ast.BinOp) and _as_op(e)[0] in (ast.Add, ast.Sub)}
    form = forms.pop() if len(forms) == 1 else None
    return (form, n) if form in ("f32", "f64") else None


def report_widened_sum_fma(instr: ir.Instruction, ctx: RewriteContext, flow: Flow) -> None:
    """Report :func:`widened_sum_fma`'s fma (sanitized as written)."""
    if (wide := widened_sum_fma(instr, flow)) is not None:
        ctx.report(instr, f"16-bit fma where the source at {wide.where} adds at {wide.form} on widened halves and "
                   "narrows: LLVM contracts the narrowed sum (exact natively); Triton's FPSan adds in the wide ring "
                   "and narrows with its hash, which the 16-bit ring fma is not (not modelled); sanitized as written",
                   ERROR, False)
