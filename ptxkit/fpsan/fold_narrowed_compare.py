"""``x.to(T) <= c`` compared as ``x <= c'`` in x's wider type (issue 10; held-out seed 49895, silent at first contact,
and custom kernels: every ordered comparison of a narrowing cast with a literal, f64 → f32/f16/bf16, f32 → f16/bf16).
LLVM drops the ``fptrunc`` and adjusts the constant to the boundary of the values that round to ≤ c (``x.to(f16) <=
0.5`` of an f64 x as ``setp.le.f64 x, 0.50048828125``), exact natively. Triton's FPSan narrows φ(x) in the ring and
compares that float with c: the comparison is rebuilt so, its sense taken from the source (LLVM may also have inverted
it for the select that reads it; PTX ISA "Comparison and Selection Instructions: setp")."""

from __future__ import annotations

import ast

from ptxkit import ir
from ptxkit.fpsan import ring as R
from ptxkit.fpsan.casts import _cast_payload as cast_payload
from ptxkit.fpsan.ctx import BITS_KIND, RewriteContext, float_to_bits, guard_text, hexc
from ptxkit.fpsan.fold_flow import Flow, FoldResult, float_cast
from ptxkit.fpsan.fold_negated_narrowing import sign_op
from ptxkit.fpsan.irview import name_of
from ptxkit.fpsan.ops import as_reg
from ptxkit.fpsan.report import NOTE, Verdict
from ptxkit.fpsan.source_ast import (
    _DEPTH,
    _DTYPE_WIDTH,
    _PTX_DTYPE,
    OWN,
    SourceFile,
    _cast_to,
    _module_call,
    _negated,
    _receiver,
    _resolve,
    _unwidened,
    _width,
)
from ptxkit.fpsan.source_numbers import arm_number

_SOURCE_CMP = {ast.Lt: "lt", ast.LtE: "le", ast.Gt: "gt", ast.GtE: "ge"}
_MIRROR = {"lt": "gt", "le": "ge", "gt": "lt", "ge": "le"}
_INVERSE = {"lt": "geu", "le": "gtu", "gt": "leu", "ge": "ltu"}  # not (x op c), NaN included
_BELOW, _ABOVE = {"lt", "le", "ltu", "leu"}, {"gt", "ge", "gtu", "geu"}
_SHORT = {v: k for k, v in _PTX_DTYPE.items()}


def narrowed_compare(instr: ir.Instruction, flow: Flow, ft: str) \
        -> tuple[str, str, float, str, bool, str, str | None] | None:
    """(the narrow type T, the comparison to emit on the narrowed value and c, c, where, negated, via, back) for
    ``setp.CMP.ft p, x, imm`` (one register, one float immediate) at a source comparison ``x.to(T) OP c`` (either
    side) of a literal c and a T narrower than ``ft`` whose receiver is of ``ft``'s width (or loaded); None otherwise.
    ``negated``: the receiver is a negation LLVM moved into the boundary (``(-x).to(f32) < 0`` as ``x > 2^-150``;
    statement-level seed 1967, silent): the ring narrows −φ(x). ``via``: the type the ring narrows from. ``back``: the
    type the comparison is at when wider than T (``x.to(f16).to(f32) < c``, or c an fp32 scalar name): the ring
    narrowing sign-extended to it."""
    ops = instr.operands
    if (instr.opcode != "setp" or len(ops) != 3 or ft not in ("f32", "f64") or instr.guard is not None
            or not isinstance(ops[1], ir.Reg) or not isinstance(ops[2], ir.FloatImm)):
        return None
    ptx = next((m for m in instr.mods if m in _BELOW | _ABOVE), None)
    found = flow.hints.nodes_or_line(instr)
    if ptx is None or found is None:
        return None
    f, nodes = found
    got: set[tuple[str, str, float, str, bool, str, str | None]] = set()
    kept_neg = (d := flow.only_def(ops[1].name)) is not None and sign_op(d)
    # (a widening LLVM kept compares the narrowed value itself, at the source's type)
    widened_operand = d is not None and d.opcode == "cvt" and (fc := float_cast(d)) is not None \
        and R.ring(fc[1]).w < R.ring(fc[0]).w
    for n in nodes:
        if not (isinstance(n, ast.Compare) and len(n.ops) == 1 and type(n.ops[0]) in _SOURCE_CMP):
            continue
        op = _SOURCE_CMP[type(n.ops[0])]
        cast, lit = n.left, n.comparators[0]
        if _literal(f, lit) is None:
            cast, lit, op = lit, cast, _MIRROR[op]
        cast = _resolve(f, cast, _DEPTH) or cast  # (xf = x.to(f32); xf > 0: a model kernel's, silent in 213/512)
        got_lit, t = _literal(f, lit), _cast_to(cast)
        back: str | None = None
        inner = _resolve(f, _receiver(cast), _DEPTH) or _receiver(cast) if t is not None else None
        if t is not None and inner is not None and (t2 := _cast_to(inner)) is not None \
                and _DTYPE_WIDTH[t2] < _DTYPE_WIDTH[t] and _DTYPE_WIDTH[t2] < R.ring(ft).w and not widened_operand:
            # x.to(f16).to(f32) < 3.0: LLVM drops the exact widening, then the narrowing; Triton compares the ring
            # narrowing sign-extended (statement-level probe, silent)
            cast, back, t = inner, _SHORT[t], t2
        if got_lit is None or t is None or _DTYPE_WIDTH[t] >= R.ring(ft).w:
            continue
        c, scalar = got_lit
        if back is None and scalar and _DTYPE_WIDTH[t] < 32:
            if widened_operand:
                continue  # (the widening kept: the comparison as written is Triton's)
            back = "f32"
        try:
            w = _width(f, _receiver(cast), _DEPTH)
        except (KeyError, IndexError, AttributeError, TypeError, ValueError, RecursionError):
            continue
        if w is None and isinstance(_resolve(f, _receiver(cast), _DEPTH), ast.BinOp):
            w = OWN  # (arithmetic of loaded values, its type the hints' unknown: the PTX compares it at ft; (v / 0.1)
            # of a bf16 v, promoted to f32 by the division; statement-level seed 3561, silent)
        if w is None or (w != OWN and w > R.ring(ft).w and (w != 64 or ft != "f32")):
            continue  # (a narrower width: a loaded operand of the PTX's type beside a half, which the source alone
            # takes for a half, -(x - h.to(f16)) of an f64 x; statement-level seed 1967, silent)
        # an f64 receiver LLVM compares at f32 (its exact widenings dropped): Triton narrows the 64-bit ring value,
        # unless its pipeline folds the widening into the narrowing first (one value widened: x.to(f64), or a
        # where of it in both arms; statement-level seed 2106)
        negated = not kept_neg and _negated(_resolve(f, _receiver(cast), _DEPTH)) is not None
        via = "f64" if w == 64 and ft == "f32" and not _one_widening(f, _receiver(cast)) else ft
        # LLVM's boundary keeps the sense, or inverts it for its select (and mirrors it for a negation it took in)
        same = ((op in _BELOW) == (ptx in _BELOW)) != negated
        got.add((_SHORT[t], op if same else _INVERSE[op], c, f.where(n), negated, via, back))
    return got.pop() if len(got) == 1 else None


def _literal(f: SourceFile, e: ast.expr) -> tuple[float, bool] | None:
    """(the number ``e`` is, whether it is an fp32 scalar) for a literal or a ``tl.constexpr`` name of one, typed by
    the comparison like a literal (``c0 > x.to(bf16)`` of ``c0: tl.constexpr = 3.0``; statement-level seed 4961,
    silent), or a name bound to a number, an fp32 scalar tensor the comparison promotes a half to (``c0 = 3.0``: Triton
    compares the ring narrowing sign-extended to f32; statement-level probe, silent); else None."""
    if (c := arm_number(f, e, {}, names=False)) is not None:
        return c, False
    return None if (c := arm_number(f, e, {})) is None else (c, True)


def rewrite_narrowed_compare(instr: ir.Instruction, ctx: RewriteContext, ft: str, t: str, cmp: str, c: float,
                             where: str, negated: bool = False, via: str | None = None,
                             back: str | None = None) -> FoldResult:
    """``setp`` of the ring narrowing of φ(x) (−φ(x) if ``negated``) to ``t`` (its float bits) against c in ``t``
    (in ``back``, the ring narrowing widened back to it, where c is a scalar of that type)."""
    w = R.ring(t).w
    p = ctx.embed(instr.operands[1], ft)
    at = ft
    if via is not None and via != ft:  # (widened before the negation: −sext φ(−0) is not sext −φ(−0))
        p, at = cast_payload(ctx, p, ft, via), via
    if negated:
        wide = R.ring(at).w
        n = ctx.fresh(BITS_KIND[wide])
        ctx.emit(f"neg.s{wide} {n}, {as_reg(ctx, p, wide)}")
        p = n
    narrow, narrowed_to = cast_payload(ctx, p, at, t), t
    if back is not None:
        narrow, t = cast_payload(ctx, narrow, t, back), back
    bits = ctx.unembed_to_fresh(narrow, t)
    lit = float_to_bits(c, t)
    if t in ("f16", "bf16"):  # (no half immediates: a register)
        k = ctx.fresh(BITS_KIND[w])
        ctx.emit(f"mov.b16 {k}, {hexc(lit, 16)}")
        rhs = k
    else:
        rhs = f"0f{lit:08X}"
    emit_compare(instr, ctx, cmp, t, bits, rhs)
    scalar = " (an f32 scalar)" if back else ""
    return FoldResult(True, Verdict(f"setp.{ft} of a value and a constant where the source at {where} compares its "
                                    f"narrowing to {narrowed_to} with {c!r}{scalar}: LLVM drops the narrowing and "
                                    "moves the constant to the rounding boundary; sanitized as Triton's comparison of "
                                    "the ring narrowing with the constant", NOTE, native=False))


def _one_widening(f: SourceFile, e: ast.expr) -> bool:
    """``e`` is one value widened to f64 (``x.to(f64)``), or a where whose arms are that value, widened or promoted."""
    r = _resolve(f, e, _DEPTH)
    arms = [_resolve(f, a, _DEPTH) or a for a in (r.args[1:] if isinstance(r, ast.Call) and _module_call(r, "tl")
                                                  == "where" and len(r.args) == 3 else [e])]
    return len({ast.dump(_unwidened(f, a)) for a in arms}) == 1 and any(_cast_to(a) == "float64" for a in arms)


def emit_compare(instr: ir.Instruction, ctx: RewriteContext, cmp: str, t: str, left: str, right: str) -> None:
    """``instr``'s predicate as ``setp.CMP.t`` of ``left`` and ``right`` (its guard kept; ``.ftz`` where an f32
    comparison had it)."""
    ftz = ".ftz" if "ftz" in instr.mods and t == "f32" else ""
    ctx.emit(f"{guard_text(instr.guard)}setp.{cmp}{ftz}.{t} {name_of(instr.operands[0])}, {left}, {right}")
