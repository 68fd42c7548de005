"""Constant tensors MLIR folds before Triton's FPSan pass (issue 10; statement seeds 3640, 3732, reported before): a
kernel's arithmetic of constants (``v = 1.5; y = tl.sqrt(tl.abs(v.to(tl.float64))) + v``) never reaches the FPSan
pass as float ops — MLIR's canonicalizer folds ``arith.addf/subf/mulf/divf`` of constants in their type, ``math.absf``,
``math.sqrt`` and the transcendental ``math`` ops with the host's libm (its ``expf``/``exp`` for f32/f64), and the
casts of a constant that lose nothing. The first inexact cast is not folded: from there Triton's FPSan casts φ(c) in
the ring (docs/fpsan.md §2), which LLVM's constant of the IEEE casts in the plain PTX is not. This module evaluates
such an expression as MLIR does; ``fold_named_literal`` takes the ring casts after it."""

from __future__ import annotations

import ast
import ctypes
import ctypes.util
import math
from collections.abc import Callable

import numpy as np

from ptxkit.fpsan.source_ast import (
    _DEPTH,
    PTX_OF_DTYPE,
    SourceFile,
    _cast_to,
    _constexpr_literal,
    _method_call,
    _module_call,
    _number,
    _receiver,
    _resolve,
)
from ptxkit.fpsan.source_inline import bindings
from ptxkit.fpsan.source_numbers import scalar_value

_RANK = {"bf16": 1, "f16": 1, "f32": 2, "f64": 3}
_OPS: dict[type[ast.operator], Callable[[float, float], float]] = {
    ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b, ast.Mult: lambda a, b: a * b,
    ast.Div: lambda a, b: a / b}
# the math ops whose MLIR folder calls libm (f32: the ``f`` function, f64: the double one)
_LIBM = ("exp", "exp2", "log", "log2", "sin", "cos", "erf")


def _libm() -> ctypes.CDLL | None:
    name = ctypes.util.find_library("m")
    try:
        return ctypes.CDLL(name) if name else None
    except OSError:
        return None


_M = _libm()


def rounded(v: float, t: str) -> float:
    """``v`` rounded to the float type ``t`` (nearest even; bf16 from its f32 rounding's bits)."""
    if t == "f64":
        return float(v)
    if t == "f32":
        return float(np.float32(v))
    if t == "f16":
        return float(np.float16(v))
    b = int(np.float32(v).view(np.uint32))  # bf16: round the f32 bits to their top half, nearest even
    if (b & 0x7F800000) == 0x7F800000:
        return float(np.float32(v))
    b = ((b + 0x7FFF + ((b >> 16) & 1)) >> 16) << 16
    return float(np.uint32(b).view(np.float32))


def folded_constant(f: SourceFile, e: ast.expr | None, depth: int = _DEPTH) -> tuple[str, float] | None:
    """The type and value of ``e`` where it is a constant tensor MLIR folds whole (a named literal — an fp32 scalar —,
    ``tl.full``, their exact casts, arithmetic, ``tl.abs``/``tl.sqrt`` and libm's math of them); None otherwise,
    also for a bare Python number (its type is its use's)."""
    if e is None or depth <= 0:
        return None
    with np.errstate(all="ignore"):
        got = _fold(f, e, depth)
    return got if got is not None and got[0] != "" and math.isfinite(got[1]) else None


def is_one(f: SourceFile, e: ast.expr | None) -> bool:
    """``e`` is 1.0 once MLIR has folded it (a Python number too; statement seed 3924: ``tl.sqrt(tl.abs(c))`` of
    c = -1.0): φ(1.0) is the ring's 1 at every width, so a product with it is the other factor's payload."""
    with np.errstate(all="ignore"):
        got = _fold(f, e, _DEPTH) if e is not None else None
    return got is not None and got[1] == 1.0


def _fold(f: SourceFile, e: ast.expr, depth: int) -> tuple[str, float] | None:
    """(type, value), type "" for a Python number."""
    if depth <= 0:
        return None
    if (c := _number(e)) is not None:
        return "", c
    if (s := scalar_value(f, e, depth)) is not None:
        return ("f32" if s[1] else ""), s[0]
    if (aliased := _constexpr_alias(f, e)) is not None:
        return "f32", rounded(aliased, "f32")
    r = _resolve(f, e, depth)
    if r is None or (r is e and isinstance(e, ast.Name)):
        return None
    if r is not e:
        return _fold(f, r, depth - 1)
    if (t := _cast_to(r)) is not None:
        inner = _fold(f, _receiver(r), depth - 1)
        ptx = PTX_OF_DTYPE.get(t)
        if inner is None or ptx is None:
            return None
        v = rounded(inner[1], ptx)
        return (ptx, v) if inner[0] and v == inner[1] else None  # (an inexact cast: the ring's, not MLIR's)
    if isinstance(r, ast.UnaryOp) and isinstance(r.op, ast.USub):
        inner = _fold(f, r.operand, depth - 1)
        return None if inner is None else (inner[0], -inner[1])
    if _method_call(r, "full", 3) and isinstance(dt := r.args[2], ast.Attribute) and dt.attr in PTX_OF_DTYPE:
        inner = _fold(f, r.args[1], depth - 1)
        t = PTX_OF_DTYPE[dt.attr]
        return None if inner is None or inner[0] else (t, rounded(inner[1], t))
    if isinstance(r, ast.BinOp) and type(r.op) in _OPS:
        a, b = _fold(f, r.left, depth - 1), _fold(f, r.right, depth - 1)
        if a is None or b is None or not (a[0] or b[0]):
            return None
        t = max((x[0] for x in (a, b) if x[0]), key=lambda x: _RANK[x])
        if a[0] and b[0] and a[0] != b[0] and _RANK[a[0]] == _RANK[b[0]]:
            t = "f32"  # f16 with bf16: both promoted to f32
        if isinstance(r.op, ast.Div) and _RANK[t] < 2:
            t = "f32"  # Triton's true division of halves is an f32 one
        x, y = rounded(a[1], t), rounded(b[1], t)
        if isinstance(r.op, ast.Div) and y == 0:
            return None
        return t, rounded(_OPS[type(r.op)](x, y), t) if t == "f64" else rounded(
            float(_OPS[type(r.op)](np.float32(x) if t == "f32" else x, np.float32(y) if t == "f32" else y)), t)
    fn = _module_call(r, "tl")
    if isinstance(r, ast.Call) and fn is not None and len(r.args) == 1 and not r.keywords:
        inner = _fold(f, r.args[0], depth - 1)
        if inner is None or not inner[0] or inner[0] not in ("f32", "f64"):
            return None  # (math of a Python number: Triton makes it an fp32 tensor first; of a half: not folded here)
        t, v = inner
        if fn == "abs":
            return t, abs(v)
        if fn == "sqrt":  # (correctly rounded from the double root: f64 holds more than twice f32's bits)
            return (t, rounded(math.sqrt(v), t)) if v >= 0 else None
        if fn in _LIBM and _M is not None:
            return t, _libm_call(fn, v, t)
    return None


def _constexpr_alias(f: SourceFile, e: ast.expr) -> float | None:
    """The float of ``v = C`` read as ``v``, C a ``C: tl.constexpr = float`` of the function: the assignment makes
    the constexpr an fp32 tensor (statement seed 4145: ``c0: tl.constexpr = 1e-6; v0 = c0``, stored as f16; an int
    constexpr would make an int32 one: not this)."""
    fn = f.function_of(e) if isinstance(e, ast.Name) else None
    v = e
    for _ in range(_DEPTH):  # (through y = v of that v)
        assigns, stores = bindings(fn).get(v.id, ([], 0)) if fn is not None and isinstance(v, ast.Name) else ([], 0)
        if len(assigns) != 1 or stores != 1 or not isinstance(assigns[0].value, ast.Name):
            break
        v = assigns[0].value
    if fn is None or v is e or not isinstance(v, ast.Name):
        return None
    lit = _constexpr_literal(f, v)
    lit = lit.operand if isinstance(lit, ast.UnaryOp) and isinstance(lit.op, ast.USub) else lit
    return _number(lit) if isinstance(lit, ast.Constant) and type(lit.value) is float else None


def _libm_call(name: str, v: float, t: str) -> float:
    """libm's ``name`` (``namef`` for f32) at ``v``: what MLIR's folder computes on the host."""
    fn = getattr(_M, name + ("f" if t == "f32" else ""))
    ct = ctypes.c_float if t == "f32" else ctypes.c_double
    fn.restype, fn.argtypes = ct, [ct]
    return rounded(float(fn(v)), t)
