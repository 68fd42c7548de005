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
from ptxkit.fpsan.fold_flow import Flow, FoldResult
from ptxkit.fpsan.irview import name_of
from ptxkit.fpsan.report import NOTE, Verdict
from ptxkit.fpsan.source_ast import (
    _DEPTH,
    _DTYPE_WIDTH,
    _PTX_DTYPE,
    OWN,
    _cast_to,
    _number,
    _receiver,
    _resolve,
    _width,
)

_SOURCE_CMP = {ast.Lt: "lt", ast.LtE: "le", ast.Gt: "gt", ast.GtE: "ge"}
_MIRROR = {"lt": "gt", "le": "ge", "gt": "lt", "ge": "le"}
_INVERSE = {"lt": "geu", "le": "gtu", "gt": "leu", "ge": "ltu"}  # not (x op c), NaN included
_BELOW, _ABOVE = {"lt", "le", "ltu", "leu"}, {"gt", "ge", "gtu", "geu"}
_SHORT = {v: k for k, v in _PTX_DTYPE.items()}


def narrowed_compare(instr: ir.Instruction, flow: Flow, ft: str) -> tuple[str, str, float, str] | None:
    """(the narrow type T, the comparison to emit on the narrowed value and c, c, where) for ``setp.CMP.ft p, x, imm``
    (one register, one float immediate) at a source comparison ``x.to(T) OP c`` (either side) of a literal c and a
    T narrower than ``ft`` whose receiver is of ``ft``'s width (or loaded); None otherwise."""
    ops = instr.operands
    if (instr.opcode != "setp" or len(ops) != 3 or ft not in ("f32", "f64") or instr.guard is not None
            or not isinstance(ops[1], ir.Reg) or not isinstance(ops[2], ir.FloatImm)):
        return None
    ptx = next((m for m in instr.mods if m in _BELOW | _ABOVE), None)
    found = flow.hints.nodes_or_line(instr)
    if ptx is None or found is None:
        return None
    f, nodes = found
    got: set[tuple[str, str, float, str]] = set()
    for n in nodes:
        if not (isinstance(n, ast.Compare) and len(n.ops) == 1 and type(n.ops[0]) in _SOURCE_CMP):
            continue
        op = _SOURCE_CMP[type(n.ops[0])]
        cast, lit = n.left, n.comparators[0]
        if _number(lit) is None:
            cast, lit, op = lit, cast, _MIRROR[op]
        cast = _resolve(f, cast, _DEPTH) or cast  # (xf = x.to(f32); xf > 0: a model kernel's, silent in 213/512)
        c, t = _number(lit), _cast_to(cast)
        if c is None or t is None or _DTYPE_WIDTH[t] >= R.ring(ft).w:
            continue
        try:
            w = _width(f, _receiver(cast), _DEPTH)
        except (KeyError, IndexError, AttributeError, TypeError, ValueError, RecursionError):
            continue
        if w not in (OWN, R.ring(ft).w):
            continue
        same = (op in _BELOW) == (ptx in _BELOW)  # LLVM's boundary keeps the sense, or inverts it for its select
        got.add((_SHORT[t], op if same else _INVERSE[op], c, f.where(n)))
    return got.pop() if len(got) == 1 else None


def rewrite_narrowed_compare(instr: ir.Instruction, ctx: RewriteContext, ft: str, t: str, cmp: str, c: float,
                             where: str) -> FoldResult:
    """``setp`` of the ring narrowing of φ(x) to ``t`` (its float bits) against c in ``t``."""
    w = R.ring(t).w
    bits = ctx.unembed_to_fresh(cast_payload(ctx, ctx.embed(instr.operands[1], ft), ft, t), t)
    lit = float_to_bits(c, t)
    if t in ("f16", "bf16"):  # (no half immediates: a register)
        k = ctx.fresh(BITS_KIND[w])
        ctx.emit(f"mov.b16 {k}, {hexc(lit, 16)}")
        rhs = k
    else:
        rhs = f"0f{lit:08X}"
    emit_compare(instr, ctx, cmp, t, bits, rhs)
    return FoldResult(True, Verdict(f"setp.{ft} of a value and a constant where the source at {where} compares its "
                                    f"narrowing to {t} with {c!r}: LLVM drops the narrowing and moves the constant to "
                                    "the rounding boundary; sanitized as Triton's comparison of the ring narrowing "
                                    "with the constant", NOTE, native=False))


def emit_compare(instr: ir.Instruction, ctx: RewriteContext, cmp: str, t: str, left: str, right: str) -> None:
    """``instr``'s predicate as ``setp.CMP.t`` of ``left`` and ``right`` (its guard kept; ``.ftz`` where an f32
    comparison had it)."""
    ftz = ".ftz" if "ftz" in instr.mods and t == "f32" else ""
    ctx.emit(f"{guard_text(instr.guard)}setp.{cmp}{ftz}.{t} {name_of(instr.operands[0])}, {left}, {right}")
