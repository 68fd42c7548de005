"""A where's arm narrowed and widened back, whose round trip LLVM dropped (random first contact, seed 244847, silent in
21/64: ``(-tl.where(c, pow(a, b).to(tl.bfloat16), d)).to(tl.bfloat16)`` of an f32 d). The where is f32, so Triton
widens the bf16 arm back; the result is narrowed to bf16 again at the end, and LLVM removes the inner
``fpext(fptrunc(p))`` (rounding twice to bf16 is rounding once): the PTX selects ``p`` itself at f32. Triton's FPSan
keeps the round trip in the ring, ``sext(narrow(φ(p)))`` (docs/fpsan.md §2 casts), which is not φ(p), and the negation
and final narrowing that follow do not commute with the ring narrowing: so the arm is given its round trip again
before the select (PTX ISA §9.7.8.9 ``selp``, a bit move of the arm's value)."""

from __future__ import annotations

import ast

from ptxkit import ir
from ptxkit.fpsan.casts import _cast_payload as cast_payload
from ptxkit.fpsan.ctx import RewriteContext, guard_text
from ptxkit.fpsan.fold_flow import Flow, FoldResult
from ptxkit.fpsan.report import ERROR, NOTE, Verdict
from ptxkit.fpsan.source_ast import (
    _DEPTH,
    _DTYPE_WIDTH,
    PTX_OF_DTYPE,
    SourceFile,
    _cast_to,
    _method_call,
    _receiver,
    _resolve,
    _width,
)

_WIDE = {32: "f32", 64: "f64"}


def dropped_arm_round_trip(instr: ir.Instruction, ctx: RewriteContext, flow: Flow) -> FoldResult | None:
    """``selp.{f,b}W d, a, b, p`` at a ``tl.where`` of a W-bit float one of whose arms is ``E.to(T)`` (T narrower),
    where the PTX operand of that arm is no widening from T and is written only inside that arm's source: that operand
    through the ring round trip W → T → W, the select as written; None otherwise."""
    ops = instr.operands
    w = next((int(m[1:]) for m in instr.mods if m[:1] in "fb" and m[1:] in ("32", "64")), None)
    if instr.opcode != "selp" or w is None or len(ops) != 4 or not isinstance(ops[0], ir.Reg):
        return None
    found = flow.hints.nodes(instr)
    wheres = list({id(c): c for n in found[1]
                   if (c := _where_under(found[0], n)) is not None}.values()) if found else []
    if found is None or len(wheres) != 1:
        return None
    f, where = found[0], wheres[0]
    wide = _WIDE[w]
    arms = [(arm, PTX_OF_DTYPE[t]) for a in where.args[1:] if (t := _cast_to(arm := _resolve(f, a, _DEPTH) or a))
            in PTX_OF_DTYPE and _DTYPE_WIDTH[t] < w]
    if not arms or _width(f, where, _DEPTH) != w:  # (a narrow where, whose narrowing LLVM sank below the select, or
        return None  # casts it pushed into the arms: other folds' cases)
    picks = [(k, narrow, arm) for k in (1, 2) if isinstance(op := ops[k], ir.Reg) for arm, narrow in arms
             if _inside(flow, f, op.name, arm) and not _widened_from(flow, op.name, narrow)]
    if len(picks) != 1:
        if picks or any(isinstance(o, ir.Reg) and (d := flow.only_def(o.name)) is not None and d.opcode == "cvt"
                        for o in ops[1:3]) or _narrowed_only(flow, ops[0].name, {n for _, n in arms}):
            return None  # (a conversion feeds the select: the round trip, or LLVM's fold of i.to(T).to(W), seed 231180)
        return FoldResult(False, Verdict(
            f"select at a {wide} where whose arm the source at {f.where(arms[0][0])} narrows to {arms[0][1]}, with no "
            f"widening from {arms[0][1]} in the PTX: LLVM dropped the round trip and moved the arm's work around the "
            "select, which Triton's FPSan computes with the round trip in the ring (not modelled); left as written",
            ERROR))
    k, narrow, arm = picks[0]
    p = cast_payload(ctx, cast_payload(ctx, ctx.embed(ops[k], wide), wide, narrow), narrow, wide)
    kept = ctx.unembed_to_fresh(p, wide)
    args = [ctx.text(o) for o in ops]
    args[k] = kept
    other = ops[3 - k]
    if isinstance(other, ir.Reg):
        ctx.read_bits(other.name)  # (the other arm's float bits: its writer's φ⁻¹ must stay)
    ctx.invalidate(ops[0].name)
    ctx.emit(f"{guard_text(instr.guard)}selp.b{w} {args[0]}, {args[1]}, {args[2]}, {args[3]}")
    return FoldResult(True, Verdict(
        f"select of an arm the source at {f.where(arm)} narrows to {narrow} in a {wide} where: LLVM dropped the "
        f"{wide} → {narrow} → {wide} round trip (the result is narrowed to {narrow} again), which Triton's FPSan "
        "computes in the ring; the arm given its ring round trip", NOTE, native=False))


def _inside(flow: Flow, f: SourceFile, reg: str, arm: ast.expr) -> bool:
    """Every write of ``reg`` carries a location within ``arm``'s source span (a library body at its call too)."""
    defs = flow.defs.get(reg, [])
    start, end = (arm.lineno, arm.col_offset), (arm.end_lineno or arm.lineno, arm.end_col_offset or 0)
    for d in defs:
        loc = flow.hints.loc.get(id(d))
        if loc is None or flow.hints.files.get(loc[0]) is not f:
            return False
        at = (loc[1], loc[2] - 1) if loc[1] or start[0] != end[0] else (start[0], loc[2] - 1)  # (line 0: LLVM's merge)
        if not start <= at < end:
            return False
    return bool(defs)


def _widened_from(flow: Flow, reg: str, narrow: str) -> bool:
    d = flow.only_def(reg)
    return d is not None and d.opcode == "cvt" and narrow in d.mods


def _where_under(f: SourceFile, n: ast.expr | None) -> ast.Call | None:
    """The ``tl.where`` at ``n`` or under its casts and negations, names followed (LLVM gives the select the location
    of the whole ``(-tl.where(..)).to(T)``, or of the store's ``y.to(T)``)."""
    for _ in range(8):
        if n is None:
            return None
        if _method_call(n, "where", 3):
            return n
        if isinstance(n, ast.Name):
            n = _resolve(f, n, _DEPTH)
        elif _cast_to(n) is not None:
            n = _receiver(n)
        elif isinstance(n, ast.UnaryOp) and isinstance(n.op, ast.USub):
            n = n.operand
        else:
            return None
    return None


_CARRY = ("mul", "add", "sub", "fma", "mad", "selp", "mov")


def _narrowed_only(flow: Flow, reg: str, narrow: set[str]) -> bool:
    """Every path from ``reg`` reaches a ``cvt`` to one of ``narrow`` through ring arithmetic LLVM moved around the
    select, and nothing negates the narrowed value: narrow(sext(narrow(v))) = narrow(v), so the dropped round trip
    changes nothing (``where(c, x * 3.0, (x * z).to(f16))`` stored as f16: ``x * select(c, 3.0, z)``)."""
    todo, seen = [reg], 0
    while todo:
        r = todo.pop()
        seen += 1
        uses = flow.uses.get(r, [])
        if not uses or seen > 16:
            return False
        for u in uses:
            if u.opcode == "cvt" and any(t in u.mods for t in narrow):
                out = u.operands[0]
                if not isinstance(out, ir.Reg) or any(v.opcode in ("neg", "xor", "abs", "and", "or")
                                                      for v in flow.uses.get(out.name, [])):
                    return False
            elif u.opcode in _CARRY and isinstance(u.operands[0], ir.Reg):
                todo.append(u.operands[0].name)
            else:
                return False
    return True
