"""An f32 product LLVM contracted into an f64 add it narrowed (issue 10 H; statement-level probe rp588, silent at first
contact): ``v0 = x * x; y = (v1 + v0).to(f32)`` of an f64 ``v1`` that is an exact widening of an f32 (``tl.maximum(
z.to(f64), z)``) is ``fma.rn.f32 y, x, x, z``: fpext and fptrunc around the add go (exact in IEEE), and the f32 product
joins the add. Triton's FPSan multiplies in the f32 ring, widens the product and the other operand (sign extension of
the payloads), adds in the f64 ring and narrows (docs/fpsan.md §2 casts; PTX ISA §9.7.3 ``fma``): replayed where the
source at the fma's location says so (the ``.to(tl.float32)`` of such a sum)."""

from __future__ import annotations

import ast

from ptxkit import ir
from ptxkit.fpsan.casts import _cast_payload as cast_payload
from ptxkit.fpsan.ctx import BITS_KIND, RewriteContext
from ptxkit.fpsan.fold_flow import Flow, FoldResult, as_written_reported
from ptxkit.fpsan.ops import as_reg, float_type_of
from ptxkit.fpsan.report import NOTE, Verdict
from ptxkit.fpsan.source_ast import _DEPTH, CONST, OWN, SourceFile, _as_op, _cast_to, _receiver, _resolve, _width


def contracted_wide_add(instr: ir.Instruction, ctx: RewriteContext, flow: Flow) -> FoldResult | None:
    """``fma.rn.f32 d, a, b, c`` (c a register, a and b registers or numbers) at the source's ``(P + E).to(
    tl.float32)`` (either order; ``E - P``), P an f32 product and E of f64: d = narrow(widen(φ(a)·φ(b)) +
    widen(φ(c))); None where the source does not say so."""
    ops = instr.operands
    if (instr.opcode != "fma" or float_type_of(instr) != "f32" or len(ops) != 4 or instr.guard is not None
            or not isinstance(ops[0], ir.Reg) or not isinstance(ops[3], ir.Reg)
            or not all(isinstance(o, (ir.Reg, ir.FloatImm)) for o in ops[1:3])):
        return None
    decided = flow.hints.decide(instr, _classify)
    if decided is None:
        return None
    if decided.form == "addend-negated":  # (P - E: LLVM's neg.f32 of E's f32 value, no ring negation of its widening
        # at every value: 3/200 elements differ in a probe)
        return as_written_reported(instr, ctx, "f32", (
            f"fma.f32 of an f32 product LLVM contracted into the f64 subtraction the source at {decided.where} "
            "narrows, the subtrahend negated at f32: Triton subtracts in the f64 ring (not modelled); sanitized as the "
            "f32 fma"))
    p = ctx.fresh(BITS_KIND[32])
    a, b = (as_reg(ctx, ctx.embed(o, "f32"), 32) for o in ops[1:3])
    ctx.emit(f"mul.lo.s32 {p}, {a}, {b}")
    wide = [as_reg(ctx, cast_payload(ctx, r, "f32", "f64"), 64) for r in (p, ctx.embed(ops[3], "f32"))]
    s = ctx.fresh(BITS_KIND[64])
    ctx.emit(f"add.s64 {s}, {wide[0]}, {wide[1]}")
    ctx.define(ops[0], cast_payload(ctx, s, "f64", "f32"), "f32", None)
    return FoldResult(True, Verdict(
        f"fma.f32 of an f32 product LLVM contracted into the f64 add the source at {decided.where} narrows: Triton's "
        "f32 ring product, widened, added in the f64 ring, narrowed", NOTE, native=False))


def _classify(f: SourceFile, n: ast.expr) -> tuple[str, ast.expr] | None:
    if _cast_to(n) != "float32":
        return None
    s = _resolve(f, _receiver(n), _DEPTH)
    if not (isinstance(s, ast.BinOp) and isinstance(s.op, (ast.Add, ast.Sub))):
        return None
    sides = [_resolve(f, e, _DEPTH) for e in (s.left, s.right)]
    widths = [_width(f, e, _DEPTH) for e in (s.left, s.right)]
    for i in (0, 1):  # (E - P: LLVM negates a factor with a neg.f32, the ring's negation of the product)
        prod, other = sides[i], widths[1 - i]
        if isinstance(prod, ast.BinOp) and _as_op(prod)[0] is ast.Mult and other == 64 \
                and widths[i] in (OWN, 32) \
                and all(_width(f, e, _DEPTH) in (OWN, CONST, 32) for e in (prod.left, prod.right)):
            return ("addend-negated" if i == 0 and isinstance(s.op, ast.Sub) else "wide-add"), n
    return None
