"""Math calls LLVM folded away with a constant argument (issue 10; held-out seed 213301, silent at first contact).

``pow(y, 0.0 * x.to(int64).to(f32))`` is 1.0 for every y: LLVM knows an integer's conversion is finite, so ``0.0 * it``
is ±0, and pow of a ±0 exponent is 1.0 — the call goes, and with it the ``* 1.0`` of the caller's product. Triton's
FPSan computes the product in the ring (φ(0)·φ(c), no IEEE zero) and the call as its ring op, which no such identity
removes. The PTX keeps nothing at the call's location to sanitize, so only the source can tell: a math call
(``tl.exp``, ``libdevice.pow``, …) with no instruction at its location, one of whose arguments is a constant to LLVM
(a literal, zero times an integer's conversion, sums of those), is reported (an error). A call without such an
argument that left no instruction is LLVM's CSE of two equal calls (one ring op in Triton's build too) or dead code."""

from __future__ import annotations

import ast

from ptxkit import ir
from ptxkit.fpsan.report import SanitizeReport
from ptxkit.fpsan.source_ast import _DEPTH, _INT_DTYPES, SourceFile, _cast_chain, _number, _resolve, _to_dtype
from ptxkit.fpsan.source_numbers import constexpr_param
from ptxkit.fpsan.source_report import report_unlocated

# the math functions Triton's FPSan computes as one ring op each (tl.* and libdevice.*)
_MATH = frozenset({"exp", "exp2", "log", "log2", "log10", "log1p", "expm1", "sin", "cos", "tan", "sqrt", "sqrt_rn",
                   "rsqrt", "pow", "tanh", "erf", "atan2", "asin", "acos", "atan", "sinh", "cosh", "cbrt", "hypot",
                   "exp10", "fma", "sigmoid"})


def report_folded_calls(module: ir.Module, fn: ir.Function, report: SanitizeReport, root: str | None) -> None:
    """Report each math call of a constant argument that left no instruction at its location."""
    report_unlocated(module, fn, report, root, lambda f, n: None if (f.name, n.lineno, n.col_offset) in report.covered
                     else _folded(f, n))  # (a constant the rewrite computed as Triton's FPSan: fold_named_literal)


def _folded(f: SourceFile, n: ast.expr) -> str | None:
    if not (isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and isinstance(n.func.value, ast.Name)
            and n.func.value.id in ("tl", "libdevice") and n.func.attr in _MATH):  # (tl.math.F is parsed as tl.F)
        return None
    arg = next((a for a in n.args if _constant_to_llvm(f, a, _DEPTH)), None)
    if arg is None or (n.func.attr == "fma" and not all(_constant_to_llvm(f, a, _DEPTH) for a in n.args)):
        return None  # (an fma folds away only of constants: fma(x, x, 1.0) is no constant)
    return (f"{ast.unparse(n.func)} at {f.where(n)} left no instruction: its argument "
            f"`{ast.unparse(arg)[:40]}` is a constant to LLVM (literals, or zero times an integer's conversion, "
            "which is finite), which folded the call away; Triton's FPSan computes that argument in the ring and the "
            "call as its ring op (not modelled)")


def _constant_to_llvm(f: SourceFile, e: ast.expr | None, depth: int) -> bool:
    """``e`` (names followed, float casts looked through: ``c.to(tl.float64)`` of a named literal; held-out-style
    seed rp76) is a number literal, zero times a finite value (a literal, an integer's conversion to a float), or
    the sum, difference, product or quotient of two such: LLVM knows its value (±0: the sign of the finite
    factor)."""
    e = _resolve(f, e, _DEPTH) if e is not None else None
    if e is None or depth <= 0:
        return False
    if constexpr_param(f, e):  # (a tl.constexpr parameter: a number at compile time, tl.fma(S, S, 1.5))
        return True
    chain, base = _cast_chain(f, e)
    if chain and all(t.startswith(("float", "bfloat")) for t, _ in chain):
        return _constant_to_llvm(f, base, depth - 1)
    if _number(e) is not None:
        return True
    if not isinstance(e, ast.BinOp) or not isinstance(e.op, (ast.Add, ast.Sub, ast.Mult, ast.Div)):
        return False
    if isinstance(e.op, ast.Mult) and any(_number(z) == 0.0 and _finite(f, other)
                                          for z, other in ((e.left, e.right), (e.right, e.left))):
        return True
    return all(_constant_to_llvm(f, s, depth - 1) for s in (e.left, e.right))


def _finite(f: SourceFile, e: ast.expr) -> bool:
    """A number literal or a float conversion of an integer (``x.to(tl.int64).to(tl.float32)``)."""
    if _number(e) is not None:
        return True
    chain, base = _cast_chain(f, e)
    return bool(chain) and base is not None and _to_dtype(base) in _INT_DTYPES
