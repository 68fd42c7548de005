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

import numpy as np

from ptxkit import ir
from ptxkit.fpsan import ring as R
from ptxkit.fpsan.casts import _cast_payload as cast_payload
from ptxkit.fpsan.ctx import BITS_KIND, RewriteContext, _convert_float_bits, float_to_bits, hexc
from ptxkit.fpsan.fold_flow import Flow, FoldResult
from ptxkit.fpsan.fold_negated_narrowing import sign_op
from ptxkit.fpsan.ops import LANE_TYPE, as_reg, float_type_of
from ptxkit.fpsan.report import NOTE, Verdict
from ptxkit.fpsan.source_ast import (
    _DEPTH,
    _DTYPE_WIDTH,
    _PTX_DTYPE,
    CONST,
    OWN,
    Decision,
    SourceFile,
    _as_op,
    _cast_to,
    _negated,
    _receiver,
    _resolve,
    _width,
)
from ptxkit.fpsan.source_hints import SourceHints

_SCANS = ("cumsum", "sum")


def _product_width(f: SourceFile, e: ast.expr | None, dest: str, negated: bool = False) -> int | None:
    """W where ``e`` (names followed) is ``(a * b).to(dest)`` with the product at W bits, wider than ``dest``: one
    factor a widening to W (or a value of W) and the other one too or a number; else None. ``negated``: also
    ``(-(a * b)).to(dest)``, whose negation LLVM puts on the number (φ(−c) = −φ(c) in the ring; held-out seed 88825:
    ``(-(x.to(f64) * 2.0)).to(f32) - e`` as ``fma(x', -2.0, -e)``, silent at first contact)."""
    e = _resolve(f, e, _DEPTH) if e is not None else None
    if e is None or _cast_to(e) != dest:
        return None
    p = _resolve(f, _receiver(e), _DEPTH)
    if negated and (inner := _negated(p)) is not None:
        p = _resolve(f, inner, _DEPTH)
    if not (isinstance(p, ast.BinOp) and _as_op(p)[0] is ast.Mult):
        return None
    ws = {_width(f, p.left, _DEPTH), _width(f, p.right, _DEPTH)}
    w = max((x for x in ws if x is not None and x > 0), default=0)
    # (a loaded factor beside the widening is promoted to W: x.to(f64) * y of an f32 y, contracted into the add at
    # f32 since the product is exact; statement-level seed 921, silent)
    return w if w in (32, 64) and w > _DTYPE_WIDTH[dest] and ws <= {w, CONST, OWN} else None


def _narrowed_product(hints: SourceHints, instr: ir.Instruction, dest: str) -> Decision | None:
    """Where the fma's product is such a narrowed product (form ``OP:W``): in the user's ``tl.cumsum(E)``/``tl.sum(E)``
    call ``instr`` was inlined from (``add``), or at its own location, an ``A + E``/``E + A`` (``add``) or ``A - E``
    (``sub``: LLVM negates the product's number, held-out seed 23250); else None."""
    def classify(f: SourceFile, n: ast.expr) -> tuple[str, ast.expr] | None:
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in _SCANS and n.args:
            w = _product_width(f, n.args[0], dest)
            return (f"add:{w}", n.args[0]) if w else None
        if isinstance(n, ast.BinOp) and isinstance(n.op, ast.Add):
            ws = [_product_width(f, n.left, dest, True), _product_width(f, n.right, dest, True)]
            w = ws[0] or ws[1]
            return (f"add:{w}{':one' if None in ws else ''}", n) if w else None
        if isinstance(n, ast.BinOp) and isinstance(n.op, ast.Sub) and (w := _product_width(f, n.left, dest, True)):
            # E - A: LLVM's fma adds the negated A (and where A is no narrowed product, the fma's product may be A's
            # own, E its addend: held-out seed 224746, ``E - (b * (c * -1.0))`` as ``fma(b, c, E)``, silent)
            return f"add:{w}{':one' if _product_width(f, n.right, dest) is None else ''}", n
        if isinstance(n, ast.BinOp) and isinstance(n.op, ast.Sub) and (w := _product_width(f, n.right, dest)):
            return f"sub:{w}", n
        return None
    with hints.at_call_site(instr) as inlined:
        got = hints.decide(instr, classify) if inlined else None
    loc = hints.loc.get(id(instr))
    if got is None and loc is not None and loc[1] == 0 and (f := hints.files.get(loc[0])) is not None:
        # LLVM's merged line 0 (the later rows of a cumsum, held-out seed 16210): a scan of such a product in the file
        found = [c for n in ast.walk(f.tree) if isinstance(n, ast.Call) and (c := classify(f, n)) is not None]
        return Decision(found[0][0], f.where(found[0][1])) if found else None
    return got or (hints.decide(instr, classify) if loc is not None and loc[1] != 0 else None)


def contracted_narrowed_product(instr: ir.Instruction, ctx: RewriteContext, flow: Flow) -> FoldResult | None:
    """``fma.rn.T d, a, b, c`` (T f32, f16, bf16 or a packed pair of halves; a multiplicand a number, or both
    registers) of such a call: per lane, d = the T ring's ``narrow_W→T(sext φ(a) · φ_W(b)) + φ(c)``; None where the
    source does not say so. (W = 32 for a half: held-out seed 52752, silent at first contact:
    ``tl.sum((2.0 * h.to(f32)).to(bf16))`` as ``fma.rn.bf16x2 s, h, {2.0, 2.0}, 2h'``.)"""
    ops = instr.operands
    ft = float_type_of(instr) or ""
    t = LANE_TYPE.get(ft, ft)
    lanes = 2 if ft in LANE_TYPE else 1
    if (len(ops) != 4 or t not in ("f16", "bf16", "f32") or not isinstance(ops[0], ir.Reg) or instr.guard is not None
            or not isinstance(ops[1], ir.Reg) or not isinstance(ops[2], (ir.Reg, ir.FloatImm))):
        return None
    decided = _narrowed_product(flow.hints, instr, _PTX_DTYPE[t])
    op, width, *one = decided.form.split(":") if decided is not None else ("", "")
    sub = op == "sub"
    if one and kept_as_addend(flow, instr):
        return None
    consts = [[_lane_bits(flow, o, t, k) for o in ops[1:3]] for k in range(lanes)]
    factors = list(ops[1:3])
    if decided is not None and sub and lanes == 1 and not any(c is not None for c in consts[0]):
        # A - E of register factors: LLVM negated one (neg, or its sign-bit xor); E's product is the other's with the
        # negation's source (statement-level seed 921's kin, ``y - (x.to(f64) * y).to(f32)``: silent)
        negs = [i for i, o in enumerate(factors) if isinstance(o, ir.Reg) and (d := flow.only_def(o.name)) is not None
                and d.guard is None and sign_op(d) and isinstance(src := d.operands[1], ir.Reg)
                and (flow.only_def(src.name) is not None or flow.unchanged_between(src.name, d, instr))]
        if len(negs) != 1:
            return None
        d = flow.only_def(factors[negs[0]].name)  # type: ignore[union-attr]
        assert d is not None
        factors[negs[0]] = d.operands[1]
    elif decided is None or (sub and not all(any(c is not None for c in lane) for lane in consts)):
        return None  # A - E: the negation must be the number's, which LLVM negated (a register's would be a neg)
    wt, w = R.ring(t).w, int(width)
    wide_t = {32: "f32", 64: "f64"}[w]
    outs = []
    for k in range(lanes):
        wide = []
        for o, c in zip(factors, consts[k], strict=True):
            if c is not None:  # a Python number takes the wide type: φ_W(c), the T c exact at W
                wide.append(hexc(R.embed_int(_exact_bits(c, t, wide_t) ^ (1 << (w - 1) if sub else 0), wide_t), w))
            else:
                wide.append(as_reg(ctx, cast_payload(ctx, _lane(ctx, o, t, k, ft, lanes), t, wide_t), w))
        p = ctx.fresh(BITS_KIND[w])
        ctx.emit(f"mul.lo.s{w} {p}, {wide[0]}, {wide[1]}")
        n = as_reg(ctx, cast_payload(ctx, p, wide_t, t), wt)
        s = ctx.fresh(BITS_KIND[wt])
        acc = as_reg(ctx, _lane(ctx, ops[3], t, k, ft, lanes), wt)
        ctx.emit(f"{'sub' if sub else 'add'}.s{wt} {s}, {acc if sub else n}, {n if sub else acc}")
        outs.append(s)
    if lanes == 1:
        ctx.define(ops[0], outs[0], t, None)
    else:
        lo, hi = (ctx.unembed_to_fresh(o, t) for o in outs)
        ctx.invalidate(ops[0].name)
        ctx.emit(f"mov.b32 {ops[0].name}, {{{lo}, {hi}}}")
    return FoldResult(True, Verdict(
        f"fma.{ft} of a product LLVM contracted into an add or sub, where the source at {decided.where} computes it "
        f"at {wide_t} and narrows it: Triton's {wide_t} ring product, narrowed, then the {t} ring "
        f"{'sub' if sub else 'add'}", NOTE, native=False))


def kept_as_addend(flow: Flow, fma: ir.Instruction) -> bool:
    """Whether the fma's addend is ``cvt.rn.T.fW`` of a ``mul.fW``, W wider than T: where the source adds one
    narrowed product, that is the one LLVM kept, and the fma's product is T's own (held-out seed 169445, silent at
    first contact: ``-(h * h) + (x.to(f32) * 0.5).to(f16)`` as ``fma.rn.f16 d, -h, h, cvt(mul.f32)``)."""
    o, t = fma.operands[-1], float_type_of(fma)
    d = flow.only_def(o.name) if isinstance(o, ir.Reg) else None
    if d is None or d.opcode != "cvt" or d.guard is not None or len(d.mods) != 3 or d.mods[:2] != ("rn", t):
        return False
    m = flow.only_def(d.operands[1].name) if isinstance(d.operands[1], ir.Reg) else None
    return (m is not None and m.opcode == "mul" and float_type_of(m) == d.mods[2] != t
            and d.mods[2] in ("f32", "f64"))


def _lane(ctx: RewriteContext, o: ir.Operand, t: str, k: int, ft: str, lanes: int) -> str:
    return ctx.embed(o, t, lane=k, packed=ft) if lanes == 2 else ctx.embed(o, t)


def _lane_bits(flow: Flow, o: ir.Operand, t: str, k: int) -> int | None:
    """The T bits of lane ``k`` of a constant operand (an immediate, or a register one ``mov`` of an immediate
    writes: LLVM's packed ``{2.0, 2.0}`` is ``mov.b32 r, 0x40004000``); else None."""
    if isinstance(o, ir.FloatImm):
        return _convert_float_bits(o.bits, o.width, t) if k == 0 else None
    d = flow.only_def(o.name) if isinstance(o, ir.Reg) else None
    if d is None or d.opcode != "mov" or d.guard is not None or len(d.operands) != 2:
        return None
    src, wt = d.operands[1], R.ring(t).w
    if isinstance(src, ir.FloatImm) and k == 0:
        return _convert_float_bits(src.bits, src.width, t)
    return (src.value >> (wt * k)) & ((1 << wt) - 1) if isinstance(src, ir.Imm) else None


def _exact_bits(bits: int, t: str, wide: str) -> int:
    """A T value's bits at the wider type ``wide`` (exact)."""
    if t == "f16":
        return float_to_bits(np.array([bits], dtype=np.uint16).view(np.float16)[0], wide)
    return _convert_float_bits(bits << 16 if t == "bf16" else bits, 32, wide)
