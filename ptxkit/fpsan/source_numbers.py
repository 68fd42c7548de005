"""The numbers a Triton source gives a value (issue 10 hints): a literal, a helper's parameter given one, a name
assigned one (an fp32 scalar in Triton 3.9), ``NAME: tl.constexpr = number``; and whether a name is a ``tl.constexpr``
parameter, whose value the launch gives."""

from __future__ import annotations

import ast

import numpy as np

from ptxkit.fpsan.source_ast import _DEPTH, SourceFile, _constexpr_number, _number, _resolve


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
    if not isinstance(a, ast.Name):
        return None
    if a.id in args:
        return arm_number(f, args[a.id], {}, names, depth - 1)
    if (c := _constexpr_number(f, a)) is not None:
        return c
    r = _resolve(f, a, depth) if names else None
    v = arm_number(f, r, args, names, depth - 1) if r is not None and r is not a else None
    return None if v is None else float(np.float32(v))


def constexpr_param(f: SourceFile, a: ast.expr, args: dict[str, ast.expr] | None = None) -> bool:
    """``a`` is a ``NAME: tl.constexpr`` parameter of its function (through a helper's ``args``, its call's
    arguments): a value the launch gives, which the source does not."""
    if not isinstance(a, ast.Name):
        return False
    if args and a.id in args:
        return constexpr_param(f, args[a.id])
    fn = f.function_of(a)
    return fn is not None and any(p.arg == a.id and isinstance(p.annotation, ast.Attribute)
                                  and p.annotation.attr == "constexpr" for p in fn.args.args)
