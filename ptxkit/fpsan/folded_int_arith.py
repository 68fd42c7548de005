"""Float arithmetic on an integer's conversion that LLVM turned into integer arithmetic (issue 10; held-out seed
45440, silent at first contact; docs/fpsan.md §2: int↔float conversions stay native, the arithmetic between them is
the ring's).

``(i.to(tl.float32) + 1.0).to(tl.int8)`` of an integer i: natively the float sum of a small integer and a whole
literal is exact, so LLVM folds ``sitofp``, ``fadd`` and ``fptosi`` into ``add.s16 i, 1`` and the PTX has no float
instruction left to sanitize; Triton's FPSan converts φ⁻¹(φ(f) + φ(1.0)), a float no integer arithmetic gives. The
source shows it: a ``.to(intN)`` of a sum, difference or product of a literal and an integer's float conversion, or
a comparison of one with a literal (``i.to(f32) + 1.0 > 2.0`` becomes ``i > 1``), at whose location no float
instruction remains, is reported (an error; not modelled)."""

from __future__ import annotations

import ast

from ptxkit import ir
from ptxkit.fpsan.ops import float_type_of
from ptxkit.fpsan.report import SanitizeReport
from ptxkit.fpsan.source_ast import _DEPTH, _INT_DTYPES, SourceFile, _cast_to, _number, _receiver, _resolve, _to_dtype
from ptxkit.fpsan.source_report import functions_reaching, source_scan

_ARITH = (ast.Add, ast.Sub, ast.Mult)


def report_folded_int_arith(module: ir.Module, fn: ir.Function, report: SanitizeReport, root: str | None) -> None:
    """Report each such conversion of ``fn``'s source whose arithmetic left no float instruction."""
    scan = source_scan(module, fn, root)
    if scan is None:
        return
    hints = scan.hints
    float_at = {hints.loc[id(i)] for i in fn.instructions()
                if id(i) in hints.loc and i.opcode in ("add", "sub", "mul", "fma", "mad") and float_type_of(i)}
    for key, f, lines in scan.files():
        for n, op in _folded_candidates(f, lines):
            if not any((key, e.lineno, e.col_offset + 1) in float_at for e in (n, op)):
                scan.report(report, f"the float arithmetic at {f.where(op)} on an integer's conversion, converted "
                            f"back to an integer or compared with a literal at {f.where(n)}, left no float "
                            "instruction: LLVM folded the conversions and the exact float op into integer arithmetic, "
                            "while Triton's FPSan computes the op in the ring and converts or compares its float; not "
                            "modelled")


def _folded_candidates(f: SourceFile, lines: set[int]) -> list[tuple[ast.expr, ast.BinOp]]:
    """(``E.to(intN)`` or a comparison ``E op c`` with a literal c, E) in the file's functions that the locations
    reach, E a sum, difference or product of a literal and ``i.to(float)`` of an integer expression i."""
    out: list[tuple[ast.expr, ast.BinOp]] = []
    for d in functions_reaching(f, lines):
        for n in ast.walk(d):
            try:
                if isinstance(n, ast.Call) and _to_dtype(n) in _INT_DTYPES:
                    sides = [_receiver(n)]
                elif isinstance(n, ast.Compare) and len(n.ops) == 1:  # (LLVM compares the integer instead)
                    sides = [s for s, o in ((n.left, n.comparators[0]), (n.comparators[0], n.left))
                             if _number(o) is not None]
                else:
                    continue
                for side in sides:
                    op = _resolve(f, side, _DEPTH)
                    if isinstance(op, ast.BinOp) and isinstance(op.op, _ARITH) and _of_int_conversion(f, op):
                        out.append((n, op))
            except (KeyError, IndexError, AttributeError, TypeError, ValueError, RecursionError):
                continue  # a source shape the rule did not foresee says nothing
    return out


def _of_int_conversion(f: SourceFile, op: ast.BinOp) -> bool:
    """One side of ``op`` is a number literal, the other a float conversion of an integer expression."""
    for lit, other in ((op.left, op.right), (op.right, op.left)):
        conv = _resolve(f, other, _DEPTH)
        if _number(lit) is not None and conv is not None and _cast_to(conv) is not None \
                and _to_dtype(_resolve(f, _receiver(conv), _DEPTH)) in _INT_DTYPES:
            return True
    return False
