"""A comparison of a difference with zero that LLVM rewrote as a comparison of the operands (issue 10; docs/fpsan.md
§2: comparisons stay native, the subtraction is the ring's): ``(x - y) < 0.0`` is ``x < y`` in IEEE (InstCombine
folds it for ``<`` and ``>``), but Triton's FPSan compares φ⁻¹(φ(x) − φ(y)) with zero, whose sign the operands'
order does not tell. Held-out seed 35022 (silent at first contact: 127/256 elements)."""

from __future__ import annotations

from ptxkit import ir
from ptxkit.fpsan import ring as R
from ptxkit.fpsan.casts import _cast_payload as cast_payload
from ptxkit.fpsan.ctx import BITS_KIND, RewriteContext, guard_text
from ptxkit.fpsan.fold_flow import Flow, FoldResult
from ptxkit.fpsan.ops import as_reg
from ptxkit.fpsan.report import ERROR, NOTE, Verdict

_SCALARS = ("f16", "bf16", "f32", "f64")
_WIDE_TYPE = {32: "f32", 64: "f64"}
_PTX_TYPE = {"float16": "f16", "bfloat16": "bf16", "float32": "f32", "float64": "f64"}
_DIFFERENCES = frozenset({"sub", "add", "fma", "mad", "neg"})


def _is_zero(o: ir.Operand) -> bool:
    return isinstance(o, ir.FloatImm) and o.bits & ~(1 << (o.width - 1)) == 0


def _computed_by(flow: Flow, o: ir.Operand) -> str | None:
    """The opcode that computes ``o``, through moves and lane unpacks (held-out seed 39296: a lane of a packed
    ``sub.f16x2`` compared after ``mov.b32 {l, h}, d``)."""
    for _ in range(4):
        i = flow.only_def(o.name) if isinstance(o, ir.Reg) else None
        if i is None or i.opcode != "mov" or len(i.operands) != 2 or not isinstance(i.operands[1], ir.Reg):
            return i.opcode if i is not None else None
        o = i.operands[1]
    return None


def _reads(flow: Flow, o: ir.Operand, other: ir.Operand) -> bool:
    """``o``'s one definition reads ``other`` (through moves, as :func:`_computed_by`)."""
    for _ in range(4):
        i = flow.only_def(o.name) if isinstance(o, ir.Reg) else None
        if i is None:
            return False
        if i.opcode != "mov" or len(i.operands) != 2 or not isinstance(i.operands[1], ir.Reg):
            return other in i.operands[1:]
        o = i.operands[1]
    return False


def sub_compared(instr: ir.Instruction, ctx: RewriteContext, flow: Flow, ft: str) -> FoldResult | None:
    """``setp.CMP.fT p, x, y`` where the source compares ``x - y`` with zero (either order: the ring's difference
    y − x is the negation of x − y, whose float is the negation but at ±0 and NaN, where ``<`` and ``>`` are false
    both ways): the ring difference at the source's width, φ⁻¹, compared with zero. None where the source does
    not compare a difference there, or the PTX compares with zero itself (the subtraction kept)."""
    ops = instr.operands
    if (instr.opcode != "setp" or ft not in _SCALARS or len(ops) != 3 or not isinstance(ops[0], ir.Reg)
            or any(_is_zero(o) for o in ops[1:])):
        return None
    decided = flow.hints.sub_compared_to_zero(instr)
    if decided is None:
        return None
    form = decided.form.removeprefix("folded:")
    folded = form != decided.form
    nested = form.startswith("nested:")
    form = form.removeprefix("nested:")
    if folded and any(_computed_by(flow, o) in _DIFFERENCES and not (nested and _reads(flow, o, ops[3 - i]))
                      for i, o in enumerate(ops[1:], 1)):
        return None  # the difference itself compared with the other side: as written (not s - b of s = a - b
        # compared with b where the source's difference is (a - b) - b: held-out seed 64175, silent)
    base, *casts = form.split(">")
    w = R.ring(ft).w
    ww = w if base == "own" else int(base) if base.isdigit() else 0
    if ww < w or len(instr.mods) != 2 or any(c not in _PTX_TYPE for c in casts):
        return FoldResult(False, Verdict(
            f"setp.{ft} where the source at {decided.where} compares a difference with zero: LLVM compares the "
            "operands (x - y < 0 as x < y), Triton's FPSan the ring difference; its width or this setp form is not "
            "modelled: left native", ERROR))
    payloads = []
    for o in ops[1:]:
        p = as_reg(ctx, ctx.embed(o, ft), w)
        if ww > w:  # the source subtracts wider values: the ring's widening sign-extends the payload
            x = ctx.fresh(BITS_KIND[ww])
            ctx.emit(f"cvt.s{ww}.s{w} {x}, {p}")
            p = x
        payloads.append(p)
    d = ctx.fresh(BITS_KIND[ww])
    ctx.emit(f"sub.s{ww} {d}, {payloads[0]}, {payloads[1]}")
    wt = _WIDE_TYPE.get(ww, ft)
    for c in casts:  # (x - y).to(f64) < 0: the ring's cast of the difference (LLVM dropped the exact widening)
        if _PTX_TYPE[c] != wt:
            d, wt = cast_payload(ctx, d, wt, _PTX_TYPE[c]), _PTX_TYPE[c]
    t = ctx.unembed_to_fresh(d, wt)
    z = ctx.fresh(BITS_KIND[R.ring(wt).w])
    ctx.emit(f"mov.b{R.ring(wt).w} {z}, 0")
    ctx.invalidate(ops[0].name)
    ctx.emit(f"{guard_text(instr.guard)}setp.{instr.mods[0]}.{wt} {ops[0].name}, {t}, {z}")
    how = f"computed so ({wt} difference compared with 0)"
    if folded:
        return FoldResult(True, Verdict(
            f"setp.{ft} where the source at {decided.where} compares a difference with an expression the PTX does "
            "not compute: LLVM found it zero and compares the difference's operands (x - y < 0 as x < y); "
            f"{how}, which is Triton's only where its ring gives that expression ±0 too", ERROR, native=False))
    return FoldResult(True, Verdict(
        f"setp.{ft} where the source at {decided.where} compares a difference with zero: LLVM compares the operands "
        f"(x - y < 0 as x < y), Triton's FPSan the ring difference; {how}", NOTE, native=False))
