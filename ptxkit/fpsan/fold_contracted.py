"""A product LLVM contracted into a scan's or reduction's ``fma.f32`` whose source computes it at f64 and narrows it
back (issue 10 H; held-out seed 16210, silent at first contact: ``tl.cumsum((h.to(f16).to(f64) * 2.0).to(f32))`` as
``fma.rn.f32 s, h32, 2.0, prev``).

LLVM shrinks ``fptrunc(fpext(x) * c)`` to an f32 product (exact for an f32 x and such a c) and contracts it with the
cumsum's add. Triton's FPSan computes the product in the f64 ring — the payload sign-extended, times φ_f64(c) —
and narrows it (docs/fpsan.md §2 casts) before the f32 ring add. Decided by the user's call the fma was inlined
from (the ``inlined_at`` location): its operand is ``E.to(tl.float32)`` of a product of an f64 widening."""

from __future__ import annotations

import ast

from ptxkit import ir
from ptxkit.fpsan import ring as R
from ptxkit.fpsan.casts import _cast_payload as cast_payload
from ptxkit.fpsan.ctx import BITS_KIND, RewriteContext, _convert_float_bits, guard_text, hexc
from ptxkit.fpsan.fold_flow import Flow, FoldResult
from ptxkit.fpsan.report import NOTE, Verdict
from ptxkit.fpsan.source_ast import _DEPTH, CONST, SourceFile, _as_op, _cast_to, _receiver, _resolve, _width
from ptxkit.fpsan.source_hints import SourceHints

_SCANS = ("cumsum", "sum")


def _narrowed_product(hints: SourceHints, instr: ir.Instruction) -> str | None:
    """``kernel.py:L:C: `…``` of the user's ``tl.cumsum(E)``/``tl.sum(E)`` call ``instr`` was inlined from, where E is
    ``(a * b).to(tl.float32)`` with one factor an f64 widening and the other one too or a number; else None."""
    def classify(f: SourceFile, n: ast.expr) -> tuple[str, ast.expr] | None:
        if not (isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in _SCANS and n.args):
            return None
        e = _resolve(f, n.args[0], _DEPTH)
        if e is None or _cast_to(e) != "float32":
            return None
        p = _resolve(f, _receiver(e), _DEPTH)
        if not (isinstance(p, ast.BinOp) and _as_op(p)[0] is ast.Mult):
            return None
        ws = {_width(f, p.left, _DEPTH), _width(f, p.right, _DEPTH)}
        return ("f64", e) if 64 in ws and ws <= {64, CONST} else None
    with hints.at_call_site(instr) as inlined:
        got = hints.decide(instr, classify) if inlined else None
    loc = hints.loc.get(id(instr))
    if got is None and loc is not None and loc[1] == 0 and (f := hints.files.get(loc[0])) is not None:
        # LLVM's merged line 0 (the later rows of a cumsum, held-out seed 16210): a scan of such a product in the file
        found = [c for n in ast.walk(f.tree) if isinstance(n, ast.expr) and (c := classify(f, n)) is not None]
        return f.where(found[0][1]) if found else None
    return got.where if got is not None else None


def contracted_narrowed_product(instr: ir.Instruction, ctx: RewriteContext, flow: Flow) -> FoldResult | None:
    """``fma.rn.f32 d, a, b, c`` (a multiplicand an immediate, or both registers) inlined from such a call: d = the
    f32 ring's ``narrow(sext φ(a) · φ_f64(b)) + φ(c)``; None where the source does not say so."""
    ops = instr.operands
    if (len(ops) != 4 or "f32" not in instr.mods or not isinstance(ops[0], ir.Reg) or not isinstance(ops[1], ir.Reg)
            or not isinstance(ops[2], (ir.Reg, ir.FloatImm)) or instr.guard is not None):
        return None
    where = _narrowed_product(flow.hints, instr)
    if where is None:
        return None
    wide = []
    for o in ops[1:3]:
        if isinstance(o, ir.FloatImm):  # a Python number takes the wide type: φ_f64(c), the f32 c exact in f64
            wide.append(hexc(R.embed_int(_convert_float_bits(o.bits, o.width, "f64"), "f64"), 64))
        else:
            x = ctx.fresh(BITS_KIND[64])
            ctx.emit(f"cvt.s64.s32 {x}, {ctx.embed(o, 'f32')}")
            wide.append(x)
    p = ctx.fresh(BITS_KIND[64])
    ctx.emit(f"mul.lo.s64 {p}, {wide[0]}, {wide[1]}")
    n = cast_payload(ctx, p, "f64", "f32")
    s = ctx.fresh(BITS_KIND[32])
    ctx.emit(f"{guard_text(instr.guard)}add.s32 {s}, {n}, {ctx.embed(ops[3], 'f32')}")
    ctx.define(ops[0], s, "f32", None)
    return FoldResult(True, Verdict(
        f"fma.f32 of a product LLVM contracted into the scan's add, where the source at {where} computes it at f64 "
        "and narrows it: Triton's f64 ring product, narrowed, then the f32 ring add", NOTE, native=False))
