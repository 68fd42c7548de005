"""Comparisons LLVM decided from a sign the ring does not have, or of two doublings it made one (issue 10;
docs/fpsan.md §2: the product is the ring's, the comparison of its float native).

``tl.where(x * x < 0.0, a, b)``: LLVM knows a float square is never below zero (or NaN), so the comparison is
false, the select ``b``, and the PTX keeps no trace of either; Triton's FPSan squares the payload in Z/2^w, whose
float φ⁻¹ is negative about half the time, and selects ``a`` there. The PTX alone cannot show it, so the source
does: a comparison ``<``/``<=`` of such an expression with a literal ≤ 0 (or mirrored), at whose location the
function has no instruction, is reported (an error). Held-out class found with custom kernels after seed 35022;
``x * x``, ``abs(a) * abs(b)``, ``fma(x, x, c)`` and sums of them with non-negative literals are what LLVM's
sign analysis sees through here. Likewise a select of a and b by their order through float casts, compared with a
or b (held-out seed 81592): the casts keep the order in IEEE, not in the ring."""

from __future__ import annotations

import ast
import math

from ptxkit import ir
from ptxkit.fpsan.ctx import float_to_bits
from ptxkit.fpsan.fold_select_const import _ring_along
from ptxkit.fpsan.folded_calls import _MATH
from ptxkit.fpsan.report import SanitizeReport
from ptxkit.fpsan.source_ast import (
    _DEPTH,
    _INT_DTYPES,
    CONST,
    PTX_OF_DTYPE,
    SourceFile,
    _bare,
    _cast_chain,
    _cast_to,
    _method_call,
    _module_call,
    _number,
    _one_value,
    _receiver,
    _resolve,
    _to_dtype,
    _unwidened,
    _width,
)
from ptxkit.fpsan.source_decided import constant_value, own_test
from ptxkit.fpsan.source_hints_compare import _sign_op_under_casts
from ptxkit.fpsan.source_locations import _same_value
from ptxkit.fpsan.source_mlir_fold import rounded
from ptxkit.fpsan.source_numbers import constexpr_param
from ptxkit.fpsan.source_report import report_unlocated
from ptxkit.fpsan.source_ring_eval import compared_constants

_BELOW = (ast.Lt, ast.LtE)
_ABOVE = (ast.Gt, ast.GtE)


def report_folded_compares(module: ir.Module, fn: ir.Function, report: SanitizeReport, root: str | None) -> None:
    """Report each comparison of a square-like expression with a literal ≤ 0, or of two doublings, that left no
    instruction in ``fn``."""
    report_unlocated(module, fn, report, root, lambda f, n: None if (f.name, n.lineno, n.col_offset) in report.covered
                     else _folded(f, n))  # (a constant the rewrite computed as Triton's FPSan: fold_constant_expr)


def _folded(f: SourceFile, n: ast.expr) -> str | None:
    if not (isinstance(n, ast.Compare) and len(n.ops) == 1):
        return None
    if _sign_decided(f, n):
        return (f"the comparison at {f.where(n)} left no instruction: LLVM decided it from the sign of a square "
                "(x·x ≥ 0 or NaN), which Triton's ring product does not have (φ⁻¹ of a payload's square is negative "
                "about half the time); not modelled, the select LLVM kept is left as it is")
    if _select_compared(f, n):
        return (f"the comparison at {f.where(n)} left no instruction: LLVM decided it from the select's own comparison "
                "of the same values through exact casts (where(a' > b', a, b) < a is false), which Triton's ring casts "
                "do not order alike (a widening sign-extends the payload); not modelled, the select LLVM kept is left "
                "as it is")
    if _self_compared_through_cast(f, n):
        return (f"the comparison at {f.where(n)} left no instruction: it compares a value's float cast (or "
                "negation) with itself, a NaN test to LLVM (x.to(T) == x.to(T) is ord(x)), which LLVM merged with "
                "another test of the same value; Triton's ring cast and negation do not keep NaN-ness and it compares "
                "their φ⁻¹ bits; not modelled, the select LLVM kept is left as it is")
    if _self_compared_constant_arm(f, n):
        return (f"the comparison at {f.where(n)} left no instruction: it compares a value with itself strictly, false "
                "in both builds, and LLVM folded the where to its constant arm, then that constant through the casts "
                "and arithmetic after it, which Triton's FPSan computes in the ring on φ(constant); not modelled, "
                "LLVM's constant is left as it is")
    if _decided_by_own_test(f, n):
        return (f"the comparison at {f.where(n)} left no instruction: it compares a where with the bound its own "
                "condition tests (where(x < 0, c, x) < 0 is c < 0 where x < 0, false elsewhere), which LLVM decided, "
                "folded the outer where to its constant arm, then that constant through the math and arithmetic after "
                "it, which Triton's FPSan computes in the ring on φ(constant); not modelled, LLVM's constant is left "
                "as it is")
    if (decided := compared_constants(f, n)) is not None and decided[0] != decided[1]:
        return (f"the comparison at {f.where(n)} left no instruction: it compares constants, which LLVM decided "
                f"({decided[0]}); Triton's FPSan computes one side in the ring from an inexact cast of a constant "
                f"on, and its comparison of φ⁻¹ bits is {decided[1]}; not modelled, LLVM's choice is left as it is")
    if _doublings_compared(f, n):
        return (f"the comparison at {f.where(n)} left no instruction: LLVM makes 2.0 * x and x + x one value, which "
                "is never strictly below itself, while Triton's ring has φ(x)·φ(2) and 2φ(x), two values; not "
                "modelled, the select LLVM kept is left as it is")
    return None


def _sign_decided(f: SourceFile, n: ast.Compare) -> bool:
    """``n`` is ``E < c`` / ``E <= c`` (or ``c > E`` / ``c >= E``) with a literal c ≤ 0 and E non-negative to LLVM
    through ring arithmetic."""
    left, right, op = n.left, n.comparators[0], n.ops[0]
    if isinstance(op, _ABOVE):
        left, right = right, left
    elif not isinstance(op, _BELOW):
        return False
    c = _number(right)
    return c is not None and c <= 0.0 and _nonnegative(f, left, True)


def _doublings_compared(f: SourceFile, n: ast.Compare) -> bool:
    """``2.0 * x < x + x`` (or ``>``, either side; held-out seed 54930's condition, custom kernels silent): LLVM's
    ``p < p`` of one add is false, the comparison gone; the ring's two doublings differ."""
    if not isinstance(n.ops[0], (ast.Lt, ast.Gt)):
        return False
    a, b = _doubling(f, n.left), _doubling(f, n.comparators[0])
    return a is not None and b is not None and {a[0], b[0]} == {"mul2", "add"} and a[1] == b[1]


def _self_compared_through_cast(f: SourceFile, n: ast.Compare) -> bool:
    """``x.to(T) == x.to(T)`` (``!=``, ``<=``, ``>=``; or ``-x != -x``) of one value (held-out seed 133275, silent at a
    NaN x: LLVM's ``ord(x)`` of it is the same as the line's ``x != x`` and kept once); a cast to x's own type, where
    Triton's ring has nothing to do, is reported too: the source does not give a loaded value's type."""
    if isinstance(n.ops[0], (ast.Lt, ast.Gt)):
        return False  # x < x is false for every x, NaN too: in the ring as natively
    sides = [_one_value(f, e) for e in (n.left, n.comparators[0])]
    if sides[0] is None or sides[1] is None or not _same_value(f, sides[0], sides[1]):
        return False
    if _cast_to(sides[0]) is not None and _to_dtype(_resolve(f, _receiver(sides[0]), _DEPTH)) in _INT_DTYPES:
        return False  # an integer's conversion is never NaN, in the ring too (φ⁻¹ of φ of its float)
    up = f.parent.get(id(n))
    if not (_method_call(up, "where", 3) and up.args[0] is n and not _same_value(f, up.args[1], up.args[2])):
        return False  # (a select of one value LLVM drops with its condition in both builds)
    return _cast_to(sides[0]) is not None or _sign_op_under_casts(f, sides[0])


def _self_compared_constant_arm(f: SourceFile, n: ast.Compare) -> bool:
    """``tl.where(x > x, a, c)`` (``<``; names followed, f64 widenings, which the comparison's promotion makes of the
    other side too, looked through, and a cast to x's own type: ``x > x.to(tl.bfloat16)`` of a bf16 x, 1863 — the
    comparison left no instruction, so LLVM knew it) of a constant false arm c: statement seeds 2874, 3119, 4093,
    silent (c = 0.5 of an f16 where, stored as f32: LLVM's 0.5f, Triton's ring widening of φ16(0.5))."""
    up = f.parent.get(id(n))
    if not (isinstance(n.ops[0], (ast.Lt, ast.Gt)) and _method_call(up, "where", 3) and up.args[0] is n):
        return False
    sides = [_unwidened(f, _resolve(f, e, _DEPTH) or e) for e in (n.left, n.comparators[0])]
    if not _same_value(f, sides[0], sides[1]) and not _same_value(f, *(_bare(s) for s in sides)):
        return False
    if any(constexpr_param(f, s) or _number(s) is not None for s in sides):
        return False  # (S > S of a constexpr: decided by the frontend, MLIR folds the select of a constant condition)
    c = constant_value(f, up.args[2])
    if c is None and constexpr_param(f, up.args[2]):
        return _folded_on(f, up, None, 3)  # (a constexpr parameter: a constant whose value the source does not give;
        # statement seed 5709, silent: where(v > v, x1, S).to(f32) of a bf16 x1, LLVM's S in f32)
    return c is not None and _folded_on(f, up, c, 3)


def _decided_by_own_test(f: SourceFile, n: ast.Compare) -> bool:
    """``tl.where(tl.where(x < k, c, x) < k, a, b)`` (either order of the inner arms, ``>`` likewise; statement seed
    5202, silent: ``where(where(v < 0, 4.0, v) < 0, |x1|, log2(|4.0| + 2.0))``, floored): LLVM knows the outer
    condition from c alone (:func:`source_decided.own_test`) and folds the outer where to a constant arm, then the
    work after it natively. Triton's build compares the same float bits (the selects are bit moves), so the choice
    agrees; what differs is that constant's floor, log2, sum, … in the ring (:func:`_folded_on`)."""
    up = f.parent.get(id(n))
    if not (_method_call(up, "where", 3) and up.args[0] is n and (when := own_test(f, n)) is not None):
        return False
    chosen = constant_value(f, up.args[1] if when else up.args[2])
    return chosen is not None and _folded_on(f, up, chosen, 3)


def _folded_on(f: SourceFile, e: ast.expr, c: float | None, depth: int, src: tuple[str, ...] = ()) -> bool:
    """LLVM folds the constant c that ``e`` is (of one of the types ``src``; () where the source does not say; None:
    of a value the source does not give) into what reads it, through the arms of wheres and casts to its own
    type."""
    types = src or _types_of(f, e)
    for used, reader in _readers(f, e):
        to = _cast_to(reader) if isinstance(reader, ast.expr) else None
        if to is not None and isinstance(reader, ast.expr) and _receiver(reader) is used:
            dst = PTX_OF_DTYPE.get(to)
            if dst is None:
                continue  # (an integer conversion: exact of a constant in both builds, or LLVM's poison)
            if types == (dst,):  # a cast to its own type: on to its readers
                if depth > 0 and _folded_on(f, reader, c, depth - 1, types):
                    return True
                continue
            if c is None or any(_ring_along(rounded(c, t), [t, dst]) != float_to_bits(rounded(c, dst), dst)
                                for t in types):
                return True  # (the ring's cast of φ(c) is not the IEEE cast of c LLVM folded: not for ±1.0, 0.0)
            continue
        if _folds_constant(f, used, reader, c):
            return True
        if depth > 0 and _method_call(reader, "where", 3) and any(a is used for a in reader.args[1:]) \
                and _folded_on(f, reader, c, depth - 1):
            return True
    return False


def _types_of(f: SourceFile, e: ast.expr) -> tuple[str, ...]:
    """The float types ``e`` may have by its width (a 16-bit one is f16 or bf16; all four where unknown)."""
    w = _width(f, e, _DEPTH)
    return {16: ("f16", "bf16"), 32: ("f32",), CONST: ("f32",), 64: ("f64",)}.get(w or 0, ("f16", "bf16", "f32", "f64"))


def _readers(f: SourceFile, e: ast.expr) -> list[tuple[ast.expr, ast.AST]]:
    """(the node read, its reader) for ``e``: its parent (the call of a method of it: ``e.to(T)``), or where ``e`` is
    assigned to a name the reads of it."""
    up = f.parent.get(id(e))
    if not (isinstance(up, ast.Assign) and len(up.targets) == 1 and isinstance(t := up.targets[0], ast.Name)):
        return [(e, _method_of(f, up))] if up is not None else []
    fn = f.function_of(up)
    return [(n, _method_of(f, r)) for n in ast.walk(fn) if isinstance(n, ast.Name) and n.id == t.id
            and isinstance(n.ctx, ast.Load) and _resolve(f, n, _DEPTH) is up.value  # (this assignment's value)
            and (r := f.parent.get(id(n))) is not None] if fn is not None else []


def _method_of(f: SourceFile, up: ast.AST) -> ast.AST:
    """The call ``up`` is the method of (``x.to`` of ``x.to(T)``), else ``up``."""
    call = f.parent.get(id(up)) if isinstance(up, ast.Attribute) else None
    return call if isinstance(call, ast.Call) and call.func is up else up


def _folds_constant(f: SourceFile, used: ast.expr, reader: ast.AST, c: float | None) -> bool:
    """LLVM folds the constant c ``used`` stands for into what ``reader`` computes with it, where Triton's ring
    differs: arithmetic with a constant or with itself (``v += v``), a division by it where c is a power of two
    (LLVM's product by the exact reciprocal), a math call of it."""
    if isinstance(reader, ast.BinOp):
        other = reader.right if reader.left is used else reader.left
        power_of_two = c is not None and c != 0.0 and math.isfinite(c) and math.frexp(abs(c))[0] == 0.5
        return (isinstance(reader.op, ast.Div) and reader.right is used and power_of_two) \
            or ast.dump(other) == ast.dump(used) or constant_value(f, other) is not None
    return isinstance(reader, ast.Call) and _module_call(reader, "tl") in _MATH | {"floor", "ceil"} \
        and reader.args == [used]  # (of the constant alone: fma(c, x, y) is no constant; floor: the ring's tag)




def _select_compared(f: SourceFile, n: ast.Compare) -> bool:
    """``where(a.to(W) > b.to(W), a, b) < a`` (an order comparison, either side; held-out seed 81592, silent at first
    contact): a select of a and b by their comparison through float casts, compared with a or b. IEEE casts keep the
    order, so LLVM decides it; Triton's ring widening does not, and compares the casts' φ⁻¹ bits."""
    if not isinstance(n.ops[0], (ast.Lt, ast.LtE, ast.Gt, ast.GtE)):
        return False
    for sel, other in ((n.left, n.comparators[0]), (n.comparators[0], n.left)):
        w = _resolve(f, sel, _DEPTH)
        c = _resolve(f, w.args[0], _DEPTH) if _method_call(w, "where", 3) else None
        if not (isinstance(c, ast.Compare) and len(c.ops) == 1 and isinstance(c.ops[0], _BELOW + _ABOVE)):
            continue
        assert isinstance(w, ast.Call)
        inner = [_uncast(f, c.left), _uncast(f, c.comparators[0])]
        arms = {_dumped(f, a) for a in w.args[1:]}
        if (all(x is not None for x, _ in inner) and any(cast for _, cast in inner) and len(arms) == 2
                and {x for x, _ in inner} == arms and _dumped(f, other) in arms):
            return True
    return False


def _uncast(f: SourceFile, e: ast.expr) -> tuple[str | None, bool]:
    """(the value under ``e``'s float casts, dumped; whether there was one)."""
    chain, under = _cast_chain(f, e)
    return (ast.dump(under) if under is not None else None), bool(chain)


def _dumped(f: SourceFile, e: ast.expr) -> str | None:
    r = _resolve(f, e, _DEPTH)
    return ast.dump(r) if r is not None else None


def _doubling(f: SourceFile, e: ast.expr) -> tuple[str, str] | None:
    r = _resolve(f, e, _DEPTH)
    if not isinstance(r, ast.BinOp):
        return None
    if isinstance(r.op, ast.Add) and ast.dump(r.left) == ast.dump(r.right):
        return "add", ast.dump(r.left)
    if isinstance(r.op, ast.Mult) and (_number(r.left) == 2.0 or _number(r.right) == 2.0):
        return "mul2", ast.dump(r.right if _number(r.left) == 2.0 else r.left)
    return None


def _nonnegative(f: SourceFile, e: ast.expr, ring: bool, depth: int = _DEPTH) -> bool:
    """``e`` (names followed) is ≥ 0 or NaN for LLVM's sign analysis; with ``ring``, through at least one ring
    product or sum (a bare ``abs`` is non-negative in the ring too: Triton leaves it native)."""
    r = _resolve(f, e, depth)
    if r is None or depth <= 0:
        return False
    if (t := _cast_to(r)) is not None and t.startswith(("float", "bfloat")):  # (a float cast keeps the sign: LLVM
        return _nonnegative(f, _receiver(r), ring, depth - 1)  # compares the fma itself, statement seed 4254)
    if isinstance(r, ast.BinOp) and isinstance(r.op, ast.Mult):
        if ast.dump(r.left) == ast.dump(r.right):
            return True
        return all(_nonnegative(f, s, False, depth - 1) for s in (r.left, r.right))
    if isinstance(r, ast.BinOp) and isinstance(r.op, ast.Add):
        return all(_literal_or(f, s, depth) for s in (r.left, r.right)) and not all(
            _number(s) is not None for s in (r.left, r.right))
    if isinstance(r, ast.Call) and isinstance(r.func, ast.Attribute):
        if r.func.attr == "fma" and len(r.args) == 3:
            return ast.dump(r.args[0]) == ast.dump(r.args[1]) and _literal_or(f, r.args[2], depth)
        if r.func.attr == "abs" and len(r.args) == 1:
            return not ring
    return False


def _literal_or(f: SourceFile, e: ast.expr, depth: int) -> bool:
    """A literal ≥ 0, or a non-negative expression (ring or not)."""
    c = _number(e)
    return (c is not None and c >= 0.0) or _nonnegative(f, e, False, depth - 1)
