"""``tl.exp`` of a narrowed negation (issue 10 F/J; statement-level seed 1830, silent): ``v = -(a / b)`` at f64 and
``tl.exp(v.to(tl.float32))`` is, after LLVM, ``cvt.rn.f32.f64 q, d`` then ``mul.f32 t, q, -log2(e)`` and
``ex2.approx``: the negation moved through the narrowing (exact natively) and into exp's multiplier. Triton's FPSan
negates in the 64-bit ring and narrows that (docs/fpsan.md §2 casts), which is not the negation of the narrowed
value; replayed from the cvt's 64-bit source where the source at the product's location says so (PTX ISA §9.7.3
``mul``, §9.7.4 ``cvt``)."""

from __future__ import annotations

import ast
import itertools

from ptxkit import ir
from ptxkit.fpsan import ring as R
from ptxkit.fpsan.casts import _cast_payload as cast_payload
from ptxkit.fpsan.ctx import BITS_KIND, RewriteContext, hexc
from ptxkit.fpsan.fold_flow import Flow, FoldResult, float_cvt_chain
from ptxkit.fpsan.ops import as_reg
from ptxkit.fpsan.report import NOTE, Verdict
from ptxkit.fpsan.source_ast import _DEPTH, Decision, SourceFile, _cast_to, _module_call, _negated, _receiver, _resolve

_NEG_LOG2E = R.LOG2E_F32 | 0x80000000  # (the sign bit of -log2(e))


def exp_of_narrowed_negation(instr: ir.Instruction, ctx: RewriteContext, flow: Flow) -> FoldResult | None:
    """``mul.f32 t, q, ∓log2(e)`` of q = a chain of float ``cvt`` with a narrowing, from d, where the source takes
    ``tl.exp`` (−log2 e) or ``tl.sigmoid`` (+log2 e: its exp(−x) cancelled the negation) of the casts of a negation:
    t = ±casts(−φ(d))·φ(log2 e); None otherwise."""
    found = _replayed(instr, flow)
    if found is None:
        return None
    ops = instr.operands
    sigmoid, decided, (d, types) = found
    p = as_reg(ctx, ctx.embed(d, types[0]), R.ring(types[0]).w)
    neg = ctx.fresh(BITS_KIND[R.ring(types[0]).w])
    ctx.emit(f"neg.s{R.ring(types[0]).w} {neg}, {p}")
    n = neg
    for a, b in itertools.pairwise(types):
        n = cast_payload(ctx, n, a, b)
    n = as_reg(ctx, n, 32)
    if sigmoid:
        m = ctx.fresh(BITS_KIND[32])
        ctx.emit(f"neg.s32 {m}, {n}")
        n = m
    t = ctx.fresh(BITS_KIND[32])
    ctx.emit(f"mul.lo.s32 {t}, {n}, {hexc(R.embed_int(R.LOG2E_F32, 'f32'), 32)}")
    ctx.define(ops[0], t, "f32", None)
    return FoldResult(True, Verdict(
        f"mul.f32 by {'' if sigmoid else '-'}log2(e) of a value narrowed by {'→'.join(types)}, where the source at "
        f"{decided.where} takes tl.{'sigmoid' if sigmoid else 'exp'} of the casts of a negation: LLVM moved the "
        "negation through the narrowing into exp's multiplier; sanitized as Triton's ring negation before the casts",
        NOTE, native=False))


def replays(instr: ir.Instruction, flow: Flow) -> bool:
    """:func:`exp_of_narrowed_negation` rewrites ``instr`` (the narrowing it reads is then its, not a report's)."""
    return _replayed(instr, flow) is not None


def _replayed(instr: ir.Instruction, flow: Flow) -> tuple[bool, Decision, tuple[ir.Reg, list[str]]] | None:
    """(sigmoid's, the source's decision, the cast chain) of such a ``mul``; else None."""
    ops = instr.operands
    if instr.opcode != "mul" or "f32" not in instr.mods or len(ops) != 3 or instr.guard is not None:
        return None
    imms = {i: o.bits for i in (1, 2) if isinstance(o := ops[i], ir.FloatImm) and o.width == 32
            and o.bits in (_NEG_LOG2E, R.LOG2E_F32)}
    k = next(iter(imms), None)
    chain = _cast_chain(flow, ops[3 - k], instr) if k is not None else None
    if k is None or chain is None:
        return None
    sigmoid = imms[k] == R.LOG2E_F32
    decided = flow.hints.decide_here_or_at_call(instr, _sigmoid_of_negation if sigmoid else _exp_of_negation)
    return (sigmoid, decided, chain) if decided is not None else None


def _cast_chain(flow: Flow, q: ir.Operand, at: ir.Instruction) -> tuple[ir.Reg, list[str]] | None:
    """(d, [d's type, …, f32]) of the unguarded float ``cvt`` chain that defines ``q`` from d, with a narrowing (d's
    one definition, or no write of it before the mul: debug labels stop ``unchanged_between``)."""
    d, types = float_cvt_chain(flow, q, 3, at)
    narrows = any(R.ring(a).w > R.ring(b).w for a, b in itertools.pairwise(types))
    return (d, types) if isinstance(d, ir.Reg) and types and types[-1] == "f32" and narrows else None


def _negation_under_casts(f: SourceFile, e: ast.expr) -> bool:
    casts = 0
    for _ in range(_DEPTH):
        r = _resolve(f, e, _DEPTH)
        if r is None or _cast_to(r) is None:
            break
        e, casts = _receiver(r), casts + 1
    return casts > 0 and _negated(_resolve(f, e, _DEPTH)) is not None


def _exp_of_negation(f: SourceFile, n: ast.expr) -> tuple[str, ast.expr] | None:
    return _call_of_negation(f, n, "exp")


def _sigmoid_of_negation(f: SourceFile, n: ast.expr) -> tuple[str, ast.expr] | None:
    return _call_of_negation(f, n, "sigmoid")


def _call_of_negation(f: SourceFile, n: ast.expr, name: str) -> tuple[str, ast.expr] | None:
    if not (isinstance(n, ast.Call) and _module_call(n, "tl") == name and len(n.args) == 1):
        return None
    return ("narrowed negation", n) if _negation_under_casts(f, n.args[0]) else None
