"""Float arithmetic on integer conversions that LLVM moved below one conversion (issue 10; held-out seed 129582,
silent at first contact: ``tl.sum(x.to(f64).to(int32).to(f64))`` of a half x).

InstCombine rewrites ``sitofp(a) op sitofp(b)`` (op ``+ − ×``; b may be a whole constant) into ``sitofp(a op b)``
where it knows the integer op neither overflows nor rounds — integers converted from halves, whose range it knows.
The new integer ``add``/``sub``/``mul`` and ``cvt.rn.fT.{s,u}N`` carry the float op's location. Triton's FPSan
instruments before that: it converts each integer natively and computes the op in the ring, φ(sitofp a) op
φ(sitofp b), which no conversion of ``a op b`` gives (docs/fpsan.md §2: int ↔ float conversions native, the
arithmetic between them the ring's; PTX ISA §9.7.9.21 ``cvt``). Where the source at the integer op's location is a
float op of the conversion's width (for an inlined reduction: the user's ``tl.sum``/``tl.cumsum`` of such floats),
the ring op is replayed on the operands' own native conversions; an integer op at a location whose source op is an
integer's (``(i + j).to(f64)``) stays an integer converted."""

from __future__ import annotations

import ast
import dataclasses
from dataclasses import dataclass

from ptxkit import ir
from ptxkit.fpsan import ring as R
from ptxkit.fpsan.casts import _cast_payload
from ptxkit.fpsan.ctx import BITS_KIND, RewriteContext, float_to_bits, hexc
from ptxkit.fpsan.fold_flow import Flow, FoldResult
from ptxkit.fpsan.irview import name_of
from ptxkit.fpsan.report import NOTE
from ptxkit.fpsan.source_ast import (
    _DEPTH,
    _DTYPE_WIDTH,
    _PTX_DTYPE,
    Classify,
    Decision,
    SourceFile,
    _cast_to,
    _receiver,
    _resolve,
    _width,
)

_INT_OPS = {"add": ast.Add, "sub": ast.Sub, "mul": ast.Mult}
_RING_OPS = {"Add": "add.s{w}", "Sub": "sub.s{w}", "Mult": "mul.lo.s{w}"}
_INT_TYPES = ("s16", "u16", "s32", "u32", "s64", "u64")
_WIDTH = {t: _DTYPE_WIDTH[d] for t, d in _PTX_DTYPE.items()}  # f16 → 16, …


@dataclass(frozen=True)
class FloatOp:
    """The source's float op (``Add``/``Sub``/``Mult``) LLVM did as the integer op ``instr``; each operand an integer
    register or immediate Triton converted natively, or another such op."""

    instr: ir.Instruction
    op: str
    operands: tuple[ir.Operand | FloatOp, ...]
    decided: Decision
    narrowed_from: str | None = None  # the op's type, where the conversion is its narrowing


def converted_int_arith(cvt: ir.Instruction, flow: Flow) -> FloatOp | None:
    """The float op ``cvt.rn.fT.{s,u}N d, i`` converts (or narrows) the result of (None: ``i`` is no such op's)."""
    types = [m for m in cvt.mods if m in _WIDTH or m in _INT_TYPES]
    if (cvt.opcode != "cvt" or len(types) != 2 or types[0] not in _WIDTH or types[1] not in _INT_TYPES
            or len(cvt.operands) != 2 or cvt.guard is not None or flow.hints.loc.get(id(cvt)) is None):
        return None
    dt, st = types
    if (op := _float_op(flow, cvt.operands[1], cvt, cvt, st, _WIDTH[dt], _DEPTH)) is not None:
        return op
    # (x + y).to(f32) of f64 conversions: LLVM converts the integer sum to the narrow type at the cast's location
    # (exact: the sum fits its mantissa), Triton's FPSan narrows the ring sum's payload
    narrowed = flow.hints.decide(cvt, _narrowing(dt))
    if narrowed is None:
        return None
    for src in ("f64", "f32"):
        op = _float_op(flow, cvt.operands[1], cvt, cvt, st, _WIDTH[src], _DEPTH, True) if src != dt else None
        if op is not None and narrowed.form == op.decided.where:
            return dataclasses.replace(op, narrowed_from=src)
    return None


def _narrowing(dt: str) -> Classify:
    def classify(f: SourceFile, n: ast.expr) -> tuple[str, ast.expr] | None:
        """A cast to ``dt`` of a wider float: the value's location (its op's)."""
        if _cast_to(n) != _PTX_DTYPE[dt] or (_width(f, _receiver(n), _DEPTH) or 0) <= _WIDTH[dt]:
            return None
        x = _resolve(f, _receiver(n), _DEPTH)
        return (f.where(x), n) if x is not None else None
    return classify


def _float_op(flow: Flow, o: ir.Operand, reader: ir.Instruction, cvt: ir.Instruction, st: str, w: int,
              depth: int, elsewhere: bool = False) -> FloatOp | None:
    """``o``'s definition as a source float op of width ``w`` at the conversion's location or, below it, at its own
    (a nested op LLVM folded first), its operands unchanged up to the conversion (where they are converted)."""
    if not isinstance(o, ir.Reg) or depth <= 0:
        return None
    d = flow.only_def(o.name)
    if (d is None or d.opcode not in _INT_OPS or d.guard is not None or len(d.operands) != 3
            or [m[1:] for m in d.mods if m in _INT_TYPES] != [st[1:]] or (d.opcode == "mul") != ("lo" in d.mods)
            or not flow.same_value(o.name, d, reader)):
        return None
    if reader is cvt and not elsewhere and flow.hints.loc.get(id(d)) != flow.hints.loc.get(id(cvt)):
        return None  # LLVM gives both the float op's location; a conversion elsewhere is the source's own
    decided = _source_op(flow, d, w)
    if decided is None or not _fits(d, decided.form):
        return None
    if any(isinstance(x, ir.Reg) and not flow.same_value(x.name, d, cvt) for x in d.operands[1:]):
        return None
    ops = tuple(_float_op(flow, x, d, cvt, st, w, depth - 1) or x for x in d.operands[1:])
    return FloatOp(d, decided.form, ops, decided)


def _fits(d: ir.Instruction, form: str) -> bool:
    """The integer op can be LLVM's of the source op (``x - 3.0`` is ``add x, -3``)."""
    kind = d.opcode
    if form == "Sub" and kind == "add":
        return any(isinstance(x, ir.Imm) for x in d.operands[1:])
    return _INT_OPS[kind].__name__ == form


def _source_op(flow: Flow, d: ir.Instruction, w: int) -> Decision | None:
    """The source op at ``d``'s location: a float ``+ − ×`` of width ``w``, or, inlined, the user's sum of such
    floats (``tl.sum``/``tl.cumsum``, whose combine is the add)."""
    def binop(f: SourceFile, n: ast.expr) -> tuple[str, ast.expr] | None:
        if isinstance(n, ast.BinOp) and type(n.op) in _INT_OPS.values() and _width(f, n, _DEPTH) == w:
            return type(n.op).__name__, n
        return None

    def summed(f: SourceFile, n: ast.expr) -> tuple[str, ast.expr] | None:
        if not (isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in ("sum", "cumsum")):
            return None
        of_tl = isinstance(n.func.value, ast.Name) and n.func.value.id == "tl"
        x = (n.args[0] if n.args else None) if of_tl else n.func.value
        return ("Add", n) if x is not None and _width(f, x, _DEPTH) == w else None

    with flow.hints.at_call_site(d) as inlined:
        if inlined:
            return flow.hints.decide(d, summed)
    return flow.hints.decide(d, binop)


def rewrite_converted_int_arith(cvt: ir.Instruction, ctx: RewriteContext, op: FloatOp) -> FoldResult:
    """``cvt``'s result as Triton's FPSan computes the source op: the ring op of the operands' conversions."""
    dt, st = [m for m in cvt.mods if m in _WIDTH or m in _INT_TYPES]
    if op.narrowed_from is not None:
        p = _replay(ctx, op, op.narrowed_from, st)
        ctx.define(cvt.operands[0], _cast_payload(ctx, p, op.narrowed_from, dt), dt, None)
    else:
        ctx.define(cvt.operands[0], _replay(ctx, op, dt, st), dt, None)
    ctx.report(cvt, f"{st} → {dt} conversion of integer arithmetic where the source at {op.decided.where} computes "
               f"in {f'{op.narrowed_from}, narrowed' if op.narrowed_from else dt}: LLVM did the exact float op on "
               "integer conversions in the integers (InstCombine), Triton's FPSan converts each integer natively "
               "and computes the op in the ring; replayed so", NOTE, False)
    return FoldResult(True, None)


def _replay(ctx: RewriteContext, op: FloatOp, dt: str, st: str) -> str:
    w = R.ring(dt).w
    sub_imm = op.op == "Sub" and op.instr.opcode == "add"  # x - 3.0 as add x, -3
    args = []
    for x in op.operands:
        if isinstance(x, FloatOp):
            args.append(_replay(ctx, x, dt, st))
        elif isinstance(x, ir.Imm):
            k = -x.value if sub_imm else x.value
            args.append(hexc(R.embed_int(float_to_bits(float(k), dt), dt), w))
        else:
            f = ctx.fresh(BITS_KIND[w])
            ctx.emit(f"cvt.rn.{dt}.{st} {f}, {name_of(x)}")  # the conversion Triton leaves native
            ctx.read_bits(name_of(x))
            args.append(ctx.embed_value(f, dt))
    out = ctx.fresh(BITS_KIND[w])
    ctx.emit(f"{_RING_OPS[op.op].format(w=w)} {out}, {args[0]}, {args[1]}")
    return out
