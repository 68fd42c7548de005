"""Float arithmetic on a ``range`` loop's index that LLVM unrolled and folded into constants (issue 10; user-style
probe, silent at first contact: ``for i in range(3): acc += x.to(f32) * (i + 1.0)`` as ``fma x, 2.0, acc`` and
``fma x, 3.0, acc``).

Triton lowers ``range`` to a loop whose index is an integer: ``i + 1.0`` converts it natively and adds φ(1.0) in the
ring (docs/fpsan.md §2), a value LLVM's natively folded ``2.0`` is not (φ(1.0) + 1 is no φ(2.0)). After LLVM unrolls
the loop no conversion of the index is left, and the constants do not say which iteration they came from. Such
arithmetic in the source, at whose line no integer-to-float conversion remains, is reported (an error; not
modelled). ``tl.static_range`` is unrolled by Triton itself, its index a constant the ring sees: not reported."""

from __future__ import annotations

import ast

from ptxkit import ir
from ptxkit.fpsan.report import SanitizeReport
from ptxkit.fpsan.source_ast import _DTYPE_WIDTH, SourceFile, _receiver, _to_dtype
from ptxkit.fpsan.source_report import functions_reaching, source_scan

_INT_SOURCES = ("s8", "s16", "s32", "s64", "u8", "u16", "u32", "u64")


def report_folded_loop_index(module: ir.Module, fn: ir.Function, report: SanitizeReport, root: str | None) -> None:
    """Report each float operation on a ``range`` index in ``fn``'s source whose line keeps no int → float cvt."""
    scan = source_scan(module, fn, root)
    if scan is None:
        return
    hints = scan.hints
    converted = {hints.loc[id(i)][:2] for i in fn.instructions() if id(i) in hints.loc and i.opcode == "cvt"
                 and len(i.mods) >= 2 and i.mods[-1] in _INT_SOURCES and i.mods[-2] in ("f16", "bf16", "f32", "f64")}
    for key, f, lines in scan.files():
        for n in _index_float_ops(f, lines):
            if (key, n.lineno) not in converted:
                scan.report(report, f"float arithmetic on a loop index at {f.where(n)}: LLVM unrolled the range loop "
                            "and folded the index's conversion and this op into constants, while Triton's FPSan "
                            "converts the index natively and computes the op in the ring; not modelled")


def _index_float_ops(f: SourceFile, lines: set[int]) -> list[ast.expr]:
    """The float operations on a ``for NAME in range(..)`` index in the functions the locations reach: a ``.to()`` of
    it to a float type, or ``+ - * /`` of it (or integer arithmetic on it) and a float literal."""
    out: list[ast.expr] = []
    for d in functions_reaching(f, lines):
        loops = [s for s in ast.walk(d) if isinstance(s, ast.For) and isinstance(s.target, ast.Name)
                 and isinstance(s.iter, ast.Call) and isinstance(s.iter.func, ast.Name) and s.iter.func.id == "range"]
        for loop in loops:
            assert isinstance(loop.target, ast.Name)
            name = loop.target.id
            out += [n for s in loop.body for n in ast.walk(s) if isinstance(n, ast.expr) and _index_float_op(n, name)]
    return out


def _index_float_op(n: ast.AST, name: str) -> bool:
    """``n`` is a ``.to()`` of index arithmetic to a float type, or ``+ - * /`` of it and a float literal."""
    if isinstance(n, ast.Call):
        return _to_dtype(n) in _DTYPE_WIDTH and _of_index(_receiver(n), name)
    return isinstance(n, ast.BinOp) and isinstance(n.op, (ast.Add, ast.Sub, ast.Mult, ast.Div)) and any(
        isinstance(a, ast.Constant) and type(a.value) is float and _of_index(b, name)
        for a, b in ((n.left, n.right), (n.right, n.left)))


def _of_index(e: ast.expr | None, name: str) -> bool:
    """``e`` is integer arithmetic on the index ``name`` (with integer literals)."""
    if isinstance(e, ast.Name):
        return e.id == name
    if isinstance(e, ast.BinOp) and isinstance(e.op, (ast.Add, ast.Sub, ast.Mult, ast.FloorDiv, ast.Mod)):
        sides = (e.left, e.right)
        return any(_of_index(s, name) for s in sides) and all(
            _of_index(s, name) or (isinstance(s, ast.Constant) and type(s.value) is int) for s in sides)
    return False
