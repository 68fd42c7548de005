"""A NaN test LLVM folded into a NaN-propagating max/min (issue 10; held-out seed 66852, silent at first contact:
``maximum(where(h >= h, y, h), ..., propagate_nan=ALL)`` as ``max.NaN.f16 d, y, h``, the select gone: a NaN h wins
either way natively). Triton's FPSan tests the float bits of the ring value, NaN for some payloads that are no NaN
(1 in 32 halves), and its max/min is the ring's, which does not propagate them: where the test is true natively and
false on the ring's bits the two pick different arms. Reported (PTX ISA §9.7.3.10/11 max/min .NaN)."""

from __future__ import annotations

import ast

from ptxkit import ir
from ptxkit.fpsan.fold_flow import Flow
from ptxkit.fpsan.source_ast import _DEPTH, Decision, SourceFile, _method_call, _module_call, _resolve, _same


def nan_test_in_extremum(instr: ir.Instruction, flow: Flow) -> Decision | None:
    """The source's ``maximum``/``minimum(.., propagate_nan=ALL)`` of a ``where`` on a self-comparison (``x >= x``,
    ``x == x``: a NaN test) at a ``max/min.NaN`` none of whose operands is a select; else None."""
    if instr.opcode not in ("max", "min") or "NaN" not in instr.mods or any(
            (d := flow.only_def(o.name)) is not None and d.opcode == "selp"
            for o in instr.operands[1:] if isinstance(o, ir.Reg)):
        return None
    return flow.hints.decide(instr, _classify)


def _classify(f: SourceFile, n: ast.expr) -> tuple[str, ast.expr] | None:
    if _module_call(n, "tl") not in ("maximum", "minimum") or not isinstance(n, ast.Call):
        return None
    for a in n.args[:2]:
        r = _resolve(f, a, _DEPTH)
        if _method_call(r, "where", 3):
            c = r.args[0]
            if (isinstance(c, ast.Compare) and len(c.ops) == 1
                    and ast.dump(_same(c.left)) == ast.dump(_same(c.comparators[0]))):
                return "folded", n
    return None
