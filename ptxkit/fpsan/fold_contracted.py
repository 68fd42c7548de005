"""A product LLVM contracted into an ``fma.f32`` whose source computes it at f64 and narrows it back (issue 10 H):
a scan's or reduction's add (held-out seed 16210, silent at first contact: ``tl.cumsum((h.to(f16).to(f64) *
2.0).to(f32))`` as ``fma.rn.f32 s, h32, 2.0, prev``), or the user's own add or sub (held-out seed 23250, silent at
first contact: ``m - (x.to(f64) * 2.0).to(f32)`` as ``fma.rn.f32 d, x, -2.0, m``).

LLVM shrinks ``fptrunc(fpext(x) * c)`` to an f32 product (exact for an f32 x and such a c) and contracts it with the
add. Triton's FPSan computes the product in the f64 ring — the payload sign-extended, times φ_f64(c) — and narrows
it (docs/fpsan.md §2 casts) before the f32 ring add or sub. Decided by the user's scan call the fma was inlined from
(the ``inlined_at`` location), else by the expression at the fma's own location."""

from __future__ import annotations

import ast

from ptxkit import ir
from ptxkit.fpsan import ring as R
from ptxkit.fpsan.casts import _cast_payload as cast_payload
from ptxkit.fpsan.ctx import BITS_KIND, RewriteContext, _convert_float_bits, guard_text, hexc
from ptxkit.fpsan.fold_flow import Flow, FoldResult
from ptxkit.fpsan.ops import as_reg
from ptxkit.fpsan.report import NOTE, Verdict
from ptxkit.fpsan.source_ast import _DEPTH, CONST, Decision, SourceFile, _as_op, _cast_to, _receiver, _resolve, _width
from ptxkit.fpsan.source_hints import SourceHints

_SCANS = ("cumsum", "sum")


def _product_at_f64(f: SourceFile, e: ast.expr | None) -> bool:
    """``e`` (names followed) is ``(a * b).to(tl.float32)`` with one factor an f64 widening and the other one too
    or a number."""
    e = _resolve(f, e, _DEPTH) if e is not None else None
    if e is None or _cast_to(e) != "float32":
        return False
    p = _resolve(f, _receiver(e), _DEPTH)
    if not (isinstance(p, ast.BinOp) and _as_op(p)[0] is ast.Mult):
        return False
    ws = {_width(f, p.left, _DEPTH), _width(f, p.right, _DEPTH)}
    return 64 in ws and ws <= {64, CONST}


def _narrowed_product(hints: SourceHints, instr: ir.Instruction) -> Decision | None:
    """Where the fma's product is such a narrowed f64 product: in the user's ``tl.cumsum(E)``/``tl.sum(E)`` call
    ``instr`` was inlined from (form ``add``), or at its own location, an ``A + E``/``E + A`` (``add``) or ``A - E``
    (``sub``: LLVM negates the product's number, held-out seed 23250); else None."""
    def classify(f: SourceFile, n: ast.expr) -> tuple[str, ast.expr] | None:
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in _SCANS and n.args:
            return ("add", n.args[0]) if _product_at_f64(f, n.args[0]) else None
        if isinstance(n, ast.BinOp) and isinstance(n.op, ast.Add) and (
                _product_at_f64(f, n.left) or _product_at_f64(f, n.right)):
            return "add", n
        if isinstance(n, ast.BinOp) and isinstance(n.op, ast.Sub) and _product_at_f64(f, n.right):
            return "sub", n
        return None
    with hints.at_call_site(instr) as inlined:
        got = hints.decide(instr, classify) if inlined else None
    loc = hints.loc.get(id(instr))
    if got is None and loc is not None and loc[1] == 0 and (f := hints.files.get(loc[0])) is not None:
        # LLVM's merged line 0 (the later rows of a cumsum, held-out seed 16210): a scan of such a product in the file
        found = [c for n in ast.walk(f.tree) if isinstance(n, ast.Call) and (c := classify(f, n)) is not None]
        return Decision("add", f.where(found[0][1])) if found else None
    return got or (hints.decide(instr, classify) if loc is not None and loc[1] != 0 else None)


def contracted_narrowed_product(instr: ir.Instruction, ctx: RewriteContext, flow: Flow) -> FoldResult | None:
    """``fma.rn.f32 d, a, b, c`` (a multiplicand an immediate, or both registers) inlined from such a call: d = the
    f32 ring's ``narrow(sext φ(a) · φ_f64(b)) + φ(c)``; None where the source does not say so."""
    ops = instr.operands
    if (len(ops) != 4 or "f32" not in instr.mods or not isinstance(ops[0], ir.Reg) or not isinstance(ops[1], ir.Reg)
            or not isinstance(ops[2], (ir.Reg, ir.FloatImm)) or instr.guard is not None):
        return None
    decided = _narrowed_product(flow.hints, instr)
    sub = decided is not None and decided.form == "sub"
    if decided is None or (sub and not any(isinstance(o, ir.FloatImm) for o in ops[1:3])):
        return None  # A - E: the negation must be the number's, which LLVM negated (a register's would be a neg)
    wide = []
    for o in ops[1:3]:
        if isinstance(o, ir.FloatImm):  # a Python number takes the wide type: φ_f64(c), the f32 c exact in f64
            c = _convert_float_bits(o.bits, o.width, "f64") ^ (1 << 63 if sub else 0)  # the source's own number
            wide.append(hexc(R.embed_int(c, "f64"), 64))
        else:
            x = ctx.fresh(BITS_KIND[64])
            ctx.emit(f"cvt.s64.s32 {x}, {ctx.embed(o, 'f32')}")
            wide.append(x)
    p = ctx.fresh(BITS_KIND[64])
    ctx.emit(f"mul.lo.s64 {p}, {wide[0]}, {wide[1]}")
    n = cast_payload(ctx, p, "f64", "f32")
    s = ctx.fresh(BITS_KIND[32])
    acc = as_reg(ctx, ctx.embed(ops[3], "f32"), 32)
    ctx.emit(f"{guard_text(instr.guard)}{'sub' if sub else 'add'}.s32 {s}, {acc if sub else n}, {n if sub else acc}")
    ctx.define(ops[0], s, "f32", None)
    return FoldResult(True, Verdict(
        f"fma.f32 of a product LLVM contracted into an add or sub, where the source at {decided.where} computes it at "
        f"f64 and narrows it: Triton's f64 ring product, narrowed, then the f32 ring {'sub' if sub else 'add'}", NOTE,
        native=False))
