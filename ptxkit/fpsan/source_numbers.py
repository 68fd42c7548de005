"""The numbers a Triton source gives a value (issue 10 hints): a literal, a helper's parameter given one, a name
assigned one (an fp32 scalar in Triton 3.9), ``NAME: tl.constexpr = number``; and whether a name is a ``tl.constexpr``
parameter, whose value the launch gives."""

from __future__ import annotations

import ast

import numpy as np

from ptxkit.fpsan.source_ast import _DEPTH, SourceFile, _chosen, _constexpr_number, _constexpr_param, _number, _resolve


def arm_number(f: SourceFile, a: ast.expr, args: dict[str, ast.expr], names: bool = True,
                depth: int = _DEPTH) -> float | None:
    """The number an arm is: a literal, or a helper's parameter given one (a constexpr, typed by the where like a
    literal: ``_sel(x > 0, x, 1.5) * 2.0`` of ``def _sel(c, a, b)``); with ``names``, a name assigned one, which Triton
    makes an fp32 scalar (``c = 1.5; where(x > 0, x, c)``; its f32 value, widened for an f64 where by the constant
    folding before Triton's FPSan pass): user-style probes, silent. ``-c`` of such a name is the negated number
    (MLIR folds the ``negf`` of the scalar constant before FPSan; statement-level probe rp203, silent)."""
    if (c := _number(a)) is not None or depth <= 0:
        return c
    if isinstance(a, ast.UnaryOp) and isinstance(a.op, ast.USub):
        v = arm_number(f, a.operand, args, names, depth - 1)
        return None if v is None else -v
    if isinstance(a, ast.BinOp) and (got := scalar_value(f, a, depth)) is not None and (names or not got[1]):
        return got[0]  # (-0.5 - 1.5: the frontend's constexpr arithmetic, a literal; statement-level seed 2160)
    if not isinstance(a, ast.Name):
        return None
    if a.id in args:
        return arm_number(f, args[a.id], {}, names, depth - 1)
    if (c := _constexpr_number(f, a)) is not None:
        return c
    r = _resolve(f, a, depth) if names else None
    v = arm_number(f, r, args, names, depth - 1) if r is not None and r is not a else None
    if v is None and names and (got := scalar_value(f, a, depth)) is not None and got[1]:
        return got[0]  # (c = 1.5 + 0.1, or c = 1.5; c += 0.1: the f32 scalar MLIR folds; statement-level seed 636)
    return None if v is None else float(np.float32(v))


def constexpr_param(f: SourceFile, a: ast.expr, args: dict[str, ast.expr] | None = None) -> bool:
    """``a`` is a ``NAME: tl.constexpr`` parameter of its function (through a helper's ``args``, its call's
    arguments): a value the launch gives, which the source does not."""
    if not isinstance(a, ast.Name):
        return False
    if args and a.id in args:
        return constexpr_param(f, args[a.id])
    return _constexpr_param(f, a)


def scalar_value(f: SourceFile, e: ast.expr | None, depth: int) -> tuple[float, bool] | None:
    """The value of a constant expression and whether it is an fp32 tensor: a name bound to a float is one, and
    arithmetic with one is f32 arithmetic, which MLIR folds (``c = 0.1; c += 1.0``: f32(0.1) + 1.0 rounded to f32);
    arithmetic of Python numbers alone is Python's, in double; None for anything else."""
    if e is None or depth <= 0:
        return None
    if (c := _number(e)) is not None:
        return c, False
    if (one := _chosen(e, self_compare=False)) is not None:  # (where(p, c, c), max(c, c): MLIR folds it too)
        return scalar_value(f, one, depth - 1)
    if isinstance(e, ast.Name):
        r = _resolve(f, e, _DEPTH)
        got = scalar_value(f, r, depth - 1) if r is not None and r is not e else None
        return (float(np.float32(got[0])), True) if got is not None else None
    if isinstance(e, ast.UnaryOp) and isinstance(e.op, ast.USub) and (got := scalar_value(f, e.operand, depth - 1)):
        return -got[0], got[1]
    if not (isinstance(e, ast.BinOp) and type(e.op) in _ARITH):
        return None
    a, b = scalar_value(f, e.left, depth - 1), scalar_value(f, e.right, depth - 1)
    if a is None or b is None:
        return None
    tensor = a[1] or b[1]
    x, y = (np.float32(a[0]), np.float32(b[0])) if tensor else (a[0], b[0])
    with np.errstate(all="ignore"):
        v = _ARITH[type(e.op)](x, y) if not (isinstance(e.op, ast.Div) and y == 0 and not tensor) else None
    return (float(np.float32(v)) if tensor else float(v), tensor) if v is not None else None


_ARITH = {ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b, ast.Mult: lambda a, b: a * b,
          ast.Div: lambda a, b: a / b}
