"""A float constant LLVM moved into a join with a recognised libdevice body's result (issue 10 A; custom kernels after
held-out seed 52151, silent at y = ±0: ``where(c < pow(x.to(f64), y.to(f64)), ..)`` beside ``pow(x, y)`` of f32:
the f32 body's ``x == 1 or y == 0`` test also decides the f64 pow, so LLVM sets the f64 result's join register to
1.0 in that branch). Natively the constant is the body's value; Triton's FPSan has the op's ring value on every path.
Where the source at the move is the call of a library function (not the user's select of a constant), the body's
ring op comes before the move on every path to it (a dominator, PTX ISA §9.7.12 control flow) and only the body
writes its result, the move copies that result; otherwise it is reported."""

from __future__ import annotations

import ast

from ptxkit import ir
from ptxkit.fpsan.ctx import RewriteContext, guard_text
from ptxkit.fpsan.fold_flow import Flow, FoldResult
from ptxkit.fpsan.libdevice_flow import LibRange
from ptxkit.fpsan.report import ERROR, NOTE, Verdict

_JOIN = ("float constant moved into the register that joins the result of the inlined body of __nv_{name}: LLVM's "
         "special case of that function (pow(x, 0) = 1), where Triton's FPSan has the op's ring value")


def body_join(instr: ir.Instruction, ctx: RewriteContext, flow: Flow) -> FoldResult | None:
    """``mov r, CONST`` where r is elsewhere a copy of a recognised body's result: rewritten as that copy, or
    reported (the module docstring); None for any other instruction."""
    ops = instr.operands
    if (instr.opcode != "mov" or len(ops) != 2 or not isinstance(ops[0], ir.Reg)
            or not isinstance(ops[1], (ir.FloatImm, ir.Imm))):
        return None
    joined = {o.name for w in flow.defs.get(ops[0].name, []) if w is not instr and w.opcode == "mov"
              and w.guard is None and len(w.operands) == 2 and isinstance(o := w.operands[1], ir.Reg)}
    body = next((flow.bodies[r] for r in sorted(joined) if r in flow.bodies), None)
    if body is None or instr.span is None or instr.span.line in flow.native:
        return None
    width = next((m[1:] for m in instr.mods if m[1:].isdigit()), "64")
    reason = _JOIN.format(name=body.name)
    if not (_at_library_call(flow, instr) and _ring_op_first(flow, body, instr) and _written_by_body(flow, body)):
        return FoldResult(False, Verdict(f"{reason}; left as written", ERROR))
    ctx.read_bits(body.output)
    ctx.invalidate(ops[0].name)
    ctx.emit(f"{guard_text(instr.guard)}mov.b{width} {ops[0].name}, {body.output}")
    return FoldResult(True, Verdict(f"{reason}; sanitized as a copy of that value", NOTE, native=False))


def _at_library_call(flow: Flow, instr: ir.Instruction) -> bool:
    """The source at ``instr``'s location is a ``libdevice.*``/``tl.*`` math call, no ``tl.where``."""
    found = flow.hints.nodes(instr)
    return found is not None and any(
        isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and isinstance(n.func.value, ast.Name)
        and (n.func.value.id == "libdevice" or (n.func.value.id == "tl" and n.func.attr != "where"))
        for n in found[1])


def _ring_op_first(flow: Flow, body: LibRange, instr: ir.Instruction) -> bool:
    """The body's anchor (where its ring op goes) dominates ``instr`` in the function's control flow."""
    pos = flow.stmt_pos
    a, m = pos.get(id(body.anchor)), pos.get(id(instr))
    if a is None or m is None:
        return False
    idom = flow.dominators
    while m in idom and idom[m] != m:
        m = idom[m]
        if m == a:
            return True
    return False


def _written_by_body(flow: Flow, body: LibRange) -> bool:
    """Only the body's own lines write its result register (the ring op's value stays there)."""
    return all(w.span is not None and body.covers(w.span.line) for w in flow.defs.get(body.output, []))
