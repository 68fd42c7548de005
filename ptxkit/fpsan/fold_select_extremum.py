"""A ``tl.where`` of a comparison between its own arms that LLVM turned into a max/min (user-style probes, silent at
first contact: ``tl.where(x >= 1e-3, x, 1e-3) * 3.0`` is ``max.f32 d, x, 1e-3``; a helper's ``tl.where(x > lo, x, lo)``;
``tl.where(xf < 2.5, xf, 2.5).to(f32)`` of ``xf = x.to(f64)`` is ``min.f32 d, x, 2.5``). InstCombine rewrites
``select(fcmp oge x, C), x, C)`` to ``maxnum(x, C)`` where the two agree on NaN and signed zeros, and shrinks it below
exact widenings. Triton's FPSan leaves the comparison native — it compares the float bits of the ring value with the
literal, at the where's type — and selects; its max/min would be the ring's, a signed order of the payloads
(docs/fpsan.md §2). The where is replayed as the source writes it: the ring widening of the value, the native
comparison at the where's type, the select of the value or the literal's ring constant (narrowed in the ring along the
casts the source applies), PTX ISA §9.7.3 setp/selp."""

from __future__ import annotations

import ast

from ptxkit import ir
from ptxkit.fpsan import ring as R
from ptxkit.fpsan.casts import _cast_payload as cast_payload
from ptxkit.fpsan.ctx import BITS_KIND, RewriteContext, float_to_bits, hexc
from ptxkit.fpsan.fold_flow import Flow, FoldResult, as_written_reported
from ptxkit.fpsan.fold_narrowed_extremum import _constant_bits
from ptxkit.fpsan.fold_select_const import _casts_after, _ring_along
from ptxkit.fpsan.ops import as_reg, float_type_of
from ptxkit.fpsan.report import NOTE, Verdict
from ptxkit.fpsan.source_ast import (
    _DEPTH,
    OWN,
    SourceFile,
    _method_call,
    _module_call,
    _resolve,
    _returned,
    _width,
)
from ptxkit.fpsan.source_locations import _same_value as same_value
from ptxkit.fpsan.source_numbers import arm_number, constexpr_param

_SETP = {ast.Gt: "gt", ast.GtE: "ge", ast.Lt: "lt", ast.LtE: "le"}
_GREATER = (ast.Gt, ast.GtE)


def select_extremum(instr: ir.Instruction, ctx: RewriteContext, flow: Flow) -> FoldResult | None:
    """``max/min.T d, x, C`` (T a scalar float type, C an immediate) where the source at its location is
    ``tl.where(x ⋚ c, x, c)`` of a number c choosing the larger (max) or smaller (min) arm, and no
    ``tl.maximum``/``tl.minimum``: that where replayed (module docstring); None otherwise."""
    ft = float_type_of(instr) or ""
    ops = instr.operands
    if (instr.opcode not in ("max", "min") or ft not in ("f16", "bf16", "f32", "f64") or len(ops) != 3
            or instr.guard is not None or not isinstance(ops[0], ir.Reg)
            or {"NaN", "xorsign", "abs"} & set(instr.mods)):
        return None
    consts = [i for i in (1, 2) if _constant_bits(flow, ops[i], R.ring(ft).w) is not None]
    found = flow.hints.nodes(instr) if len(consts) == 1 and isinstance(ops[3 - consts[0]], ir.Reg) else None
    names = ft in ("f32", "f64")  # (a name's number is an fp32 scalar: with a half, the where is f32)
    if found is None:
        return None
    f, nodes = found
    seen = [(*got, *called) for n in nodes
            if (got := _classify(f, n, (called := flow.hints.call_arguments(instr, f, n))[0], names)) is not None]
    # (a helper LLVM's op carries the call's location of: ``_floor_at(x.to(f64), 0.5)`` of ``return tl.where(..)``)
    seen += [(*got, ret[1], n) for n in nodes if isinstance(n, ast.Call) and (ret := _returned(f, n)) is not None
             and (got := _classify(f, ret[0], ret[1], names)) is not None]
    forms = {(form, id(n)) for form, n, _, _ in seen}
    if not any(form == instr.opcode for form, _ in forms):
        return None
    where, args, call = next((n, a, c) for form, n, a, c in seen if form == instr.opcode)
    if len(forms) != 1:
        return as_written_reported(instr, ctx, ft, f"{instr.opcode}.{ft} at {f.where(where)}, beside another "
                                   "max/min of the source there: a where Triton compares natively or a ring max/min, "
                                   "the PTX does not say which; sanitized as the ring's")
    x = ops[3 - consts[0]]
    assert isinstance(x, ir.Reg)
    arm = next(a for a in where.args[1:3] if not _known(f, a, args, names))
    arm = args.get(arm.id, arm) if isinstance(arm, ast.Name) else arm  # (a helper's parameter: the call's argument)
    # (a tl.constexpr parameter's value is the launch's: the PTX's constant, at the op's own type only)
    c = next((v for a in where.args[1:3] if (v := arm_number(f, a, args, names)) is not None), None)
    wide = _width(f, arm, _DEPTH)
    wt = ft if wide in (OWN, R.ring(ft).w) else f"f{wide}" if wide in (32, 64) and wide > R.ring(ft).w else None
    casts = _casts_after(f, call if call is not None and isinstance(f.parent.get(id(where)), ast.Return) else where)
    if wt is None or (wt != ft and (c is None or not casts or casts[-1] != ft)):
        return as_written_reported(instr, ctx, ft, f"{instr.opcode}.{ft} of the where at {f.where(where)}, whose type "
                                   f"(or the casts after it) the source does not tie to {ft}: Triton compares at the "
                                   "where's type natively and selects; sanitized as the ring's")
    w, ww = R.ring(ft).w, R.ring(wt).w
    p = as_reg(ctx, ctx.embed(x, ft), w)
    bits = ctx.unembed_to_fresh(as_reg(ctx, cast_payload(ctx, p, ft, wt), ww), wt)
    lit = ctx.fresh(BITS_KIND[ww])
    given = _constant_bits(flow, ops[consts[0]], w)
    assert given is not None
    ctx.emit(f"mov.b{ww} {lit}, {hexc(float_to_bits(c, wt) if c is not None else given, ww)}")
    cond = _resolve(f, where.args[0], _DEPTH)
    assert isinstance(cond, ast.Compare)
    left, right = (bits, lit) if not _known(f, cond.left, args, names) else (lit, bits)
    pred = ctx.fresh("pred")
    ctx.emit(f"setp.{_SETP[type(cond.ops[0])]}.{wt} {pred}, {left}, {right}")
    kb = given if c is None else _ring_along(c, [wt, *casts]) if wt != ft else float_to_bits(c, ft)
    k = hexc(R.embed_int(kb, ft), w)
    true, false = (p, k) if not _known(f, where.args[1], args, names) else (k, p)
    o = ctx.fresh(BITS_KIND[w])
    ctx.emit(f"selp.b{w} {o}, {true}, {false}, {pred}")
    ctx.define(ops[0], o, ft, None)
    return FoldResult(True, Verdict(
        f"{instr.opcode}.{ft} of the where at {f.where(where)} that chooses between the two values it compares: LLVM "
        f"made the select a {instr.opcode}; Triton's FPSan compares the float bits natively at {wt} and selects (not "
        f"the ring's {instr.opcode}): replayed so", NOTE, native=False))


def _classify(f: SourceFile, n: ast.expr, args: dict[str, ast.expr], names: bool) -> tuple[str, ast.Call] | None:
    """(``max``/``min``, the where) of ``tl.where(x ⋚ c, x, c)`` (either order, c a number: through names and the
    helper's ``args``); (``ring``, the call) of a ``tl.maximum``/``minimum`` call."""
    if _module_call(n, "tl") in ("maximum", "minimum") and isinstance(n, ast.Call):
        return "ring", n
    if not _method_call(n, "where", 3) or n.keywords:
        return None
    cond = _resolve(f, n.args[0], _DEPTH)
    if not (isinstance(cond, ast.Compare) and len(cond.ops) == 1 and type(cond.ops[0]) in _SETP):
        return None
    left, right, (a, b) = cond.left, cond.comparators[0], n.args[1:3]
    if [_known(f, a, args, names), _known(f, b, args, names)].count(True) != 1:
        return None
    greater = isinstance(cond.ops[0], _GREATER)
    if _same_value(f, left, a, args, names) and _same_value(f, right, b, args, names):
        return ("max" if greater else "min"), n
    if _same_value(f, left, b, args, names) and _same_value(f, right, a, args, names):
        return ("min" if greater else "max"), n
    return None


def _known(f: SourceFile, a: ast.expr, args: dict[str, ast.expr], names: bool) -> bool:
    """``a`` is a number (:func:`~ptxkit.fpsan.source_numbers.arm_number`) or a ``tl.constexpr`` parameter (one
    the launch gives)."""
    return arm_number(f, a, args, names) is not None or constexpr_param(f, a, args)


def _same_value(f: SourceFile, u: ast.expr, v: ast.expr, args: dict[str, ast.expr], names: bool) -> bool:
    """One number, or one value (:func:`~ptxkit.fpsan.source_locations._same_value`)."""
    if (a := arm_number(f, u, args, names)) is not None or arm_number(f, v, args, names) is not None:
        return a == arm_number(f, v, args, names)
    return same_value(f, u, v)
