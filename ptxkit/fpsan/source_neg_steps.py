"""A value as casts and one negation of a loaded value (``SourceHints.neg_chain``, issue 10 F/J): the steps
Triton's FPSan takes in the ring, innermost first, directly or through the one negating arm of a ``tl.where``."""

from __future__ import annotations

import ast

from ptxkit.fpsan.source_ast import (
    _DEPTH,
    PTX_OF_DTYPE,
    SourceFile,
    _arms,
    _cast_chain,
    _cast_to,
    _method_call,
    _negated,
    _one_value,
    _receiver,
    _resolve,
    _scan_of,
    _width,
)
from ptxkit.fpsan.source_inline import _returned
from ptxkit.fpsan.source_mlir_fold import is_one


def _neg_steps(f: SourceFile, e: ast.expr, open_end: bool = False) -> tuple[str, ...] | None:
    """``e`` (names followed) as casts and exactly one negation of a loaded value, or of a value of a known f32/f64
    type (then that type, marked ``=f32``, is the first step), innermost first (see ``SourceHints.neg_chain``);
    None for anything else. ``open_end``: the negation may be the last step (a select's arm, cast after it)."""
    steps: list[str] = []
    cur: ast.expr | None = e
    for _ in range(4 * _DEPTH):
        r = _one_value(f, cur) if cur is not None else None  # (tl.maximum(a, a) is a: held-out seed 120415)
        if r is None:
            return None
        if isinstance(r, ast.Name) or (isinstance(r, ast.Call) and isinstance(r.func, ast.Attribute)
                                       and r.func.attr == "load"):
            break  # the loaded value (or a parameter)
        if (t := _cast_to(r)) is not None:
            steps.append(PTX_OF_DTYPE[t])
            cur = _receiver(r)
        elif (x := _negated(r)) is not None:
            steps.append("neg")
            cur = x
        elif (x := _scan_of(r)) is not None:  # a scan's first element, its operand's (held-out seed 101371; the
            cur = x  # later ones, sums of the negations in the PTX too, are negated in the ring as in Triton's)
        elif steps and (w := _width(f, r, _DEPTH)) in (32, 64):
            steps.append(f"=f{w}")  # another value of a known float type (held-out seed 9816: an f32 dot's
            break  # result), its type first, marked "=": the caller checks that the PTX converts from it
        else:
            return None
    else:
        return None
    steps.reverse()
    return tuple(steps) if steps.count("neg") == 1 and (open_end or steps[-1] != "neg") else None


def _negating_arm(f: SourceFile, v: ast.expr, dest: str) -> tuple[tuple[str, ...], str] | None:
    """The steps of ``tl.where(c, a, b).to(dest)`` through its one arm that negates (casts and one negation of a loaded
    value; the other arm negates nothing): LLVM sinks the narrowing into the arms, the negation narrowed with it
    (held-out seed 80544, silent at first contact at x = −0.0: ``where(c, x.to(f64) * -1.0, x.to(f32).to(f64))
    .to(bf16)`` of a bf16 x, as ``selp`` of x and ``neg.bf16`` x)."""
    casts, w = _cast_chain(f, v)  # (and the casts of the name it reads: r.to(f16) of r = where(..).to(f16))
    if not casts or w is None or not (_method_call(w, "where", 3) or _returned(f, w) is not None):
        return None
    arms = _arms(f, w)  # (a helper's where too)
    negating = [a for a in arms if any(_negated(e) is not None for e in ast.walk(a) if isinstance(e, ast.expr))]
    if len(arms) != 2 or len(negating) != 1 or (steps := _neg_steps(f, negating[0], open_end=True)) is None:
        return None
    chain = list(steps)
    for t, _ in reversed(casts):
        if (ptx := PTX_OF_DTYPE[t]) != chain[-1]:  # (a cast to its own type: none)
            chain.append(ptx)
    return (tuple(chain), f.where(negating[0])) if chain[-1] == dest else None


def _one_negated_factor(f: SourceFile, e: ast.expr | None, depth: int = _DEPTH) -> ast.expr | None:
    """``e`` where its ring value is the negation of the value LLVM computes once it drops the negations: a product
    ``a * b`` with exactly one factor negated (``(-a) * b``, ``(a * -1.0) * b``, ``((-a) * b) * c``: the ring's
    (−φ(a))·φ(b) is −(φ(a)·φ(b))), or ``tl.where(c, -a, -b)`` (LLVM hoists the negation out of the select); else
    None."""
    if e is None or depth <= 0 or _negated(e) is not None:
        return None
    if isinstance(e, ast.BinOp) and isinstance(e.op, ast.Mult):
        negs = [s for s in (e.left, e.right) if _negated(r := _resolve(f, s, _DEPTH)) is not None
                or _one_negated_factor(f, r, depth - 1) is not None]
        return e if len(negs) == 1 else None
    arms = _arms(f, e) if isinstance(e, ast.Call) else []
    return e if len(arms) == 2 and all(_negated(a) is not None or _one_negated_factor(f, a, depth - 1) is not None
                                       for a in arms) else None


def _negation_of(f: SourceFile, e: ast.expr | None) -> ast.expr | None:
    """What ``e`` negates in the ring: x of ``-x``/``x * -1.0``, or ``e`` itself where LLVM computes its negation
    (:func:`_one_negated_factor`); else None."""
    x = _negated(e)
    if x is None and isinstance(e, ast.BinOp) and isinstance(e.op, ast.Mult):  # 1.0 * (-h): −φ(h) (statement
        one = [s for s in (e.left, e.right) if is_one(f, s)]  # seed 3924: fma(sqrt(abs(c)), -h, a) of c = -1.0)
        if len(one) == 1:
            return _negation_of(f, _resolve(f, e.right if one[0] is e.left else e.left, _DEPTH))
    return x if x is not None else _one_negated_factor(f, e)
