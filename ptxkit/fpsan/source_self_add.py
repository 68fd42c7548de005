"""The self-add forms a Triton source writes (issue 10 K): ``x + x`` and ``x * 2.0`` of one operand, which LLVM folds
into one ``add x, x``, and whether the file writes more than one ring computation LLVM may have made one."""

from __future__ import annotations

import ast

from ptxkit.fpsan.source_ast import (
    _DTYPE_WIDTH,
    SourceFile,
    _as_op,
    _bare,
    _cast_to,
    _constexpr_number,
    _is_two,
    _same,
)
from ptxkit.fpsan.source_numbers import arm_number, constexpr_param
from ptxkit.fpsan.source_types import int_valued


def two_like(f: SourceFile, e: ast.expr, args: dict[str, ast.expr]) -> bool:
    """``e`` multiplies like the literal 2.0 in an ``add x, x`` LLVM folded from ``x * e`` (user-style probes, reported:
    ``s = 2.0; x * s``, ``_scale(x, 2.0)``'s ``x * s``, a ``tl.constexpr`` S): the literal, a helper's parameter given
    it, a ``tl.constexpr`` parameter (the launch's value, which only 2.0 folds so), or a name assigned 2.0 (an fp32
    scalar, which promotes a half: :func:`promoted_two`)."""
    if _is_two(e):
        return True
    if not isinstance(e, ast.Name):
        return False
    parent = f.parent.get(id(e))  # (BLOCK * pid or rows * C: integer index arithmetic, no float self-add)
    if isinstance(parent, ast.BinOp) and int_valued(f, parent.right if parent.left is e else parent.left):
        return False
    return arm_number(f, e, args) == 2.0 or constexpr_param(f, e, args)


def promoted_two(f: SourceFile, n: ast.expr) -> ast.expr | None:
    """The other operand where ``n`` multiplies by a local name assigned 2.0: an fp32 scalar in Triton 3.9, which
    promotes a half operand, so LLVM's ``add.f16 h, h`` is the f32 product narrowed back (``mul2-f32``; user-style
    probe, reported before); else None."""
    if not (isinstance(n, ast.BinOp) and isinstance(n.op, ast.Mult)):
        return None
    fn = f.function_of(n)
    params = {p.arg for p in fn.args.args} if fn is not None else set()
    for e, other in ((n.left, n.right), (n.right, n.left)):
        if isinstance(e, ast.Name) and e.id not in params and _constexpr_number(f, e) is None \
                and arm_number(f, e, {}) == 2.0:
            return other
    return None


def _self_add_forms(f: SourceFile, operand: str) -> set[str]:
    """The forms LLVM folds into ``add x, x`` that the file writes on the operand ``operand`` (an
    ``ast.dump``): ``x + x`` (add), ``x * 2`` / ``2 * x`` (mul2). Also indexes them by the :func:`_bare` operand,
    with the type the operand is cast to last and the one the op is narrowed to (``f.self_adds_bare``)."""
    if f.self_adds is None:
        f.self_adds, f.self_adds_bare = {}, {}
        for n in ast.walk(f.tree):
            if not isinstance(n, ast.BinOp):
                continue
            op, left, right = _as_op(n)
            if op is ast.Add and ast.dump(_same(left)) == ast.dump(_same(right)):  # (x + where(c, x, x): 136085)
                x, form = left, "add"
            elif isinstance(n.op, ast.Mult) and (_two_here(f, n.left) or _two_here(f, n.right)):
                x, form = (n.right if _two_here(f, n.left) else n.left), "mul2"
            else:
                continue
            f.self_adds.setdefault(ast.dump(_same(x)), set()).add(form)
            at = f.parent.get(id(n))
            narrowed = _cast_to(f.parent.get(id(at))) if isinstance(at, ast.Attribute) and at.attr == "to" else None
            f.self_adds_bare.setdefault(ast.dump(_bare(x)), set()).add((form, _cast_to(_same(x)), narrowed))
    return f.self_adds.get(operand, set())


def _self_add_ambiguous(f: SourceFile, operand: str, dtype: str | None, loaded: str | None = None) -> bool:
    """The file writes more than one ring computation LLVM may make one ``add x, x`` of the (:func:`_bare`) operand
    ``operand``: ``x + x`` beside ``x * 2`` (on operands compared bare: held-out seed 14183, silent:
    ``2.0 * x1.to(f64).to(f16)`` beside ``x1 + x1`` of an f16 x1, one add after LLVM drops the round trip, which
    Triton's ring widening and narrowing keep), or one form at ``dtype`` beside one at a wider type narrowed back to
    it (held-out seed 24622, silent: ``(x.to(f64) * 2.0).to(f32)`` beside ``2.0 * x.to(f32)``, one add after LLVM's
    CSE, Triton's f64 product narrowed and its f32 product). With ``dtype``, only operands cast last to it or not
    cast, or ops narrowed to it, count (``x0.to(f64) + x0.to(f64)`` is no f32 add, held-out seed 19764;
    ``(x0.to(f64) + x0.to(f64)).to(f32)`` may be one, shrunk by LLVM). ``loaded``: the uncast operand's own type,
    where the PTX says so (held-out seed 27560: ``x0 + x0`` of an f64 x0 is no f32 add beside ``x0.to(f32) * 2.0``)."""
    _self_add_forms(f, operand)
    entries = {(form, loaded if cast is None else cast, narrowed)
               for form, cast, narrowed in (f.self_adds_bare or {}).get(operand, set())}
    entries = {e for e in entries if dtype is None or e[1] is None or dtype in e[1:]}
    if {form for form, _, _ in entries} == {"add", "mul2"}:
        return True
    rings = {(form, cast if cast is not None and dtype is not None and narrowed == dtype
              and _DTYPE_WIDTH.get(cast, 0) > _DTYPE_WIDTH.get(dtype, 0) else dtype)
             for form, cast, narrowed in entries}
    return len(rings) > 1


def _two_here(f: SourceFile, e: ast.expr) -> bool:
    """:func:`two_like` without a call site: a helper's parameter counts (it may be given 2.0), as a name does."""
    if isinstance(e, ast.Name) and (fn := f.function_of(e)) is not None and any(p.arg == e.id for p in fn.args.args):
        return True
    return two_like(f, e, {})
