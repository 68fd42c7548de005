"""Selects whose condition LLVM decides from the source alone (issue 10): the arm it keeps, in both builds. Triton's
FPSan leaves comparisons and selects native (docs/fpsan.md §2), so where IEEE decides the condition, Triton's build
picks the same arm; but MLIR leaves the select (and the compare) to the FPSan pass, so the work after it is the
ring's on the picked arm, while LLVM folds it natively. ``x > x`` is false (NaN too); ``where(x < k, c, x) < k``
compares the select's arm x where its own test failed (statement seed 5202)."""

from __future__ import annotations

import ast
import math

from ptxkit.fpsan.source_ast import _DEPTH, SourceFile, _chosen, _method_call, _number, _resolve
from ptxkit.fpsan.source_locations import _same_value
from ptxkit.fpsan.source_mlir_fold import folded_constant
from ptxkit.fpsan.source_numbers import scalar_value

_HOLDS = {ast.Lt: lambda a, b: a < b, ast.LtE: lambda a, b: a <= b, ast.Gt: lambda a, b: a > b,
          ast.GtE: lambda a, b: a >= b}


def constant_value(f: SourceFile, e: ast.expr) -> float | None:
    """The value of a number, a named literal or arithmetic of them, or of what MLIR folds to a constant."""
    if (n := _number(e)) is not None:
        return n
    if (s := scalar_value(f, e, _DEPTH)) is not None:
        return s[0]
    folded = folded_constant(f, e)
    return folded[1] if folded is not None else None


def decided_arm(f: SourceFile, w: ast.Call) -> ast.expr | None:
    """The arm of ``tl.where(p, a, b)`` LLVM keeps where it decides p (the select stays a select to MLIR): ``b`` of
    ``x > x`` (``<``), or the arm :func:`own_test` gives; None otherwise."""
    p = w.args[0]
    if isinstance(p, ast.Compare) and len(p.ops) == 1 and isinstance(p.ops[0], (ast.Gt, ast.Lt)) \
            and ast.dump(p.left) == ast.dump(p.comparators[0]) and _chosen(w) is w.args[2]:
        return w.args[2]
    decided = own_test(f, p) if isinstance(p, ast.Compare) else None
    return None if decided is None else w.args[1] if decided else w.args[2]


def own_test(f: SourceFile, n: ast.Compare) -> bool | None:
    """The value of ``where(x < k, c, x) < k`` (or of ``where(x < k, x, c) < k``; ``<=``, ``>``, ``>=`` alike, one
    operator and one bound k) where the constant c decides it: x is compared where its own test failed (false there)
    or held (true there), so the comparison is c's where that agrees; None otherwise."""
    if len(n.ops) != 1 or type(n.ops[0]) not in _HOLDS:
        return None
    inner, k = _resolve(f, n.left, _DEPTH), _number(n.comparators[0])
    test = _resolve(f, inner.args[0], _DEPTH) if _method_call(inner, "where", 3) else None
    if k is None or not (isinstance(test, ast.Compare) and len(test.ops) == 1 and type(test.ops[0]) is type(n.ops[0])
                         and _number(test.comparators[0]) == k):
        return None
    assert isinstance(inner, ast.Call)
    holds = _HOLDS[type(n.ops[0])]
    x = _resolve(f, test.left, _DEPTH) or test.left
    for arm, other, when in ((inner.args[2], inner.args[1], False), (inner.args[1], inner.args[2], True)):
        # the arm that is the tested value, picked where the test is `when`: the comparison is `when` there too
        if not _same_value(f, _resolve(f, arm, _DEPTH) or arm, x):
            continue
        c = constant_value(f, other)
        if c is not None and not math.isnan(c) and holds(c, k) == when:
            return when
    return None
