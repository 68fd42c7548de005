"""Source hints for direct ``libdevice`` calls (issue 10): Triton's FPSan hashes a ``libdevice.NAME(x)`` call where
the same PTX from ``tl.NAME`` is its math op. :class:`LibcallHints` is a part of
:class:`~ptxkit.fpsan.source_hints.SourceHints`."""

from __future__ import annotations

import ast

from ptxkit import ir
from ptxkit.fpsan.source_ast import Decision, SourceFile, _module_call
from ptxkit.fpsan.source_locations import HintsBase

_BINOP_OPCODE = {ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul", ast.Div: "div"}


class LibcallHints(HintsBase):
    """Which library call the source makes at an instruction's location."""

    def libdevice_call(self, instr: ir.Instruction, name: str) -> Decision | None:
        """Where the source's expression at ``instr``'s location is ``libdevice.NAME(...)``: Triton hashes the call
        while the same PTX from ``tl.NAME`` is its math op (``cvt.rmi.f64.f64`` of ``libdevice.floor``; custom kernels
        were silent)."""
        def classify(f: SourceFile, n: ast.expr) -> tuple[str, ast.expr] | None:
            return ("call", n) if _module_call(n, "libdevice") == name else None
        return self.decide(instr, classify)

    def libdevice_call_name(self, instr: ir.Instruction) -> str | None:
        """NAME of the ``libdevice.NAME(...)`` call that is the source's expression at ``instr``'s location, unless an
        arithmetic operator of ``instr``'s own kind starts there too (``libdevice.f(x) * y``: the mul is the
        product's, at the same column)."""
        found = self.nodes(instr)
        if found is None:
            return None
        names = {name for n in found[1] if (name := _module_call(n, "libdevice")) is not None}
        own = any(isinstance(n, ast.BinOp) and _BINOP_OPCODE.get(type(n.op)) == instr.opcode for n in found[1])
        return names.pop() if len(names) == 1 and not own else None
