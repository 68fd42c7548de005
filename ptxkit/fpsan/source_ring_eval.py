"""The value of a source expression of constants and one ``tl.where`` of literals, natively and in Triton's ring
(issue 10; statement seed 4333, silent: ``tl.fma(c, tl.maximum(c, 0.5), tl.where(p, 4.0, 1.0))`` stored as f16 is
``selp.b16 d, 0x4400, 0x3C00, p``). LLVM pushes the work above a select of constants into its arms and folds it
there, natively; Triton's FPSan computes it per element in the ring on φ of the where's literal (docs/fpsan.md §2).
What MLIR folds before the FPSan pass — the expression's parts without the where: arithmetic, ``maximum``/``minimum``,
``abs`` and exact casts of constants — stays native; from the where (and from an inexact cast of a constant or an
``fma`` of constants, which MLIR leaves) on, every operation is the ring's. Both values are computed here, the native
one correctly rounded at each operation of its type, so that a caller can check it against LLVM's immediate before
trusting the ring's."""

from __future__ import annotations

import ast
import functools
import math
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from ptxkit.fpsan import ring as R
from ptxkit.fpsan.ctx import float_to_bits
from ptxkit.fpsan.fold_select_const import _bits_value
from ptxkit.fpsan.source_ast import (
    _DEPTH,
    PTX_OF_DTYPE,
    SourceFile,
    _cast_to,
    _method_call,
    _module_call,
    _receiver,
    _resolve,
    _statement_of,
)
from ptxkit.fpsan.source_decided import decided_arm
from ptxkit.fpsan.source_mlir_fold import folded_constant, rounded
from ptxkit.fpsan.source_numbers import arm_number

_RANK = {"bf16": 1, "f16": 1, "f32": 2, "f64": 3}
# (precision in bits, least normal exponent) of each float type, for correct rounding of exact results
_FORMAT = {"f16": (11, -14), "bf16": (8, -126), "f32": (24, -126), "f64": (53, -1022)}
_BINARY = {ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul"}
_CALLS = {"fma": 3, "maximum": 2, "minimum": 2, "abs": 1}
_TAGGED = ("floor", "ceil")  # (docs/fpsan.md §2: tagged unary ops, the ring's tag of the payload)


@dataclass(frozen=True)
class Value:
    """A value of type ``t`` ("" for a Python number, typed by its use): its native value, its float bits in Triton's
    build (the ring's result, or the native bits where MLIR folded it), and whether the ring computed it."""
    t: str
    native: float
    bits: int = 0
    ring: bool = False
    widened: Value | None = None  # (an explicit widening's operand: MLIR folds truncf(extf(x)) to truncf(x))


def evaluate(f: SourceFile, e: ast.expr, where: ast.Call | None = None, arm: float = 0.0, where_type: str = "f32",
             depth: int = _DEPTH, types: Mapping[str, str] | None = None) -> Value | None:
    """``e`` with ``where`` (a ``tl.where`` of type ``where_type``: f32 for two numbers) taken to be its arm ``arm``;
    None where ``e`` holds anything else than constants, that where and the operations this module models."""
    with np.errstate(all="ignore"):
        try:
            return _eval(f, e, where, (arm, where_type, ast.dump(where) if where is not None else "", types or {},
                                       None), depth)
        except (ZeroDivisionError, OverflowError, ValueError, KeyError):
            return None


@dataclass(frozen=True)
class _Env:
    """The names a function's body binds up to a statement, run with its ``tl.static_range`` loops unrolled."""
    fn: ast.FunctionDef
    values: dict[str, Value | None]


# (the where's arm, its type, its ast.dump; loaded names' types; the names bound by an unrolled run, if any)
_Arm = tuple[float, str, str, Mapping[str, str], "_Env | None"]


def _eval(f: SourceFile, e: ast.expr, where: ast.Call | None, arm: _Arm, depth: int,
          memo: dict[int, Value | None] | None = None) -> Value | None:
    if memo is None:
        return _eval_node(f, e, where, arm, depth, None)
    if id(e) not in memo:
        memo[id(e)] = _eval_node(f, e, where, arm, depth, memo)
    return memo[id(e)]


def _eval_node(f: SourceFile, e: ast.expr, where: ast.Call | None, arm: _Arm, depth: int,
               memo: dict[int, Value | None] | None) -> Value | None:
    if depth <= 0:
        return None
    if e is where or (where is not None and isinstance(e, ast.Call) and ast.dump(e) == arm[2]):
        # (the same where written twice is one select to LLVM, and picks the same arm in Triton's build: 5337)
        v, t = rounded(arm[0], arm[1]), arm[1]
        return Value(t, v, float_to_bits(v, t), True)
    if (c := arm_number(f, e, {}, names=False)) is not None:
        return Value("", c)
    if isinstance(e, ast.Name):
        env = arm[4]
        if env is not None and e.id in env.values and f.function_of(e) is env.fn:
            return env.values[e.id]
        r = _resolve(f, e, depth)
        if r is None:
            return _unrolled(f, e, where, arm, depth)
        if r is e:
            return None
        if not _reaches(f, r, where, depth) and (fc := folded_constant(f, e)) is not None:
            return _constant(*fc)  # (a name bound to a number: an fp32 scalar)
        return _eval(f, r, where, arm, depth - 1, memo)
    if _method_call(e, "where", 3) and (pick := decided_arm(f, e)) is not None:
        return _decided_where(f, e, pick, where, arm, depth, memo)
    if _method_call(e, "where", 3) and e is not where and (decided := _constant_condition(
            f, e.args[0], where, arm, depth - 1, memo)) is not None:
        # (a comparison of constants: MLIR folds it and the select where both sides are its own constants; the
        # select stays where the ring computes one side, and compares its φ⁻¹ bits: statement seed 5615)
        assert isinstance(e, ast.Call)
        pick = e.args[1] if decided[0] else e.args[2]
        got = _decided_where(f, e, pick, where, arm, depth, memo)
        own = _eval(f, pick, where, arm, depth - 1, memo)
        return None if got is None or own is None else got if decided[1] else Value(got.t, got.native, got.bits,
                                                                                     own.ring)
    if (name := _module_call(e, "tl")) in _TAGGED and isinstance(e, ast.Call) and len(e.args) == 1 and not e.keywords:
        a = _eval(f, e.args[0], where, arm, depth - 1, memo)
        if a is None or not a.ring:
            return None  # (of constants: MLIR's folder, not modelled)
        w = R.ring(a.t).w
        out = R.tagged(R.embed(np.array([a.bits], np.uint64), a.t), name, w)
        native = float(math.floor(a.native) if name == "floor" else math.ceil(a.native)) \
            if math.isfinite(a.native) else a.native
        return Value(a.t, native, int(R.unembed(out, a.t)[0]), True)
    modelled = (_cast_to(e) is not None or (isinstance(e, ast.UnaryOp) and isinstance(e.op, ast.USub))
                or (isinstance(e, ast.BinOp) and type(e.op) in _BINARY) or _module_call(e, "tl") in _CALLS)
    if not modelled:  # (what MLIR folds beyond these: a division, math of constants, tl.full; a constexpr's alias)
        fc = folded_constant(f, e) if not _reaches(f, e, where, depth) else None
        return _constant(*fc) if fc is not None else None
    if (dtype := _cast_to(e)) is not None:
        inner = _eval(f, _receiver(e), where, arm, depth - 1, memo)
        return _cast(inner, PTX_OF_DTYPE[dtype]) if inner is not None and inner.t else None
    if isinstance(e, ast.UnaryOp) and isinstance(e.op, ast.USub):
        a = _eval(f, e.operand, where, arm, depth - 1, memo)
        if a is None or not a.t:
            return None if a is None else Value("", -a.native)
        return _apply("neg", a.t, [a])
    if isinstance(e, ast.BinOp) and type(e.op) in _BINARY:
        a, b = _eval(f, e.left, where, arm, depth - 1, memo), _eval(f, e.right, where, arm, depth - 1, memo)
        if a is None or b is None:
            return None
        if not a.t and not b.t:
            return None  # (Python's own arithmetic of numbers: arm_number's)
        return _apply(_BINARY[type(e.op)], _promoted(a.t, b.t), [a, b])
    name = _module_call(e, "tl")
    if name not in _CALLS or not isinstance(e, ast.Call) or len(e.args) != _CALLS[name] or e.keywords:
        return None
    args = [_eval(f, a, where, arm, depth - 1, memo) for a in e.args]
    if any(a is None for a in args):
        return None
    vals = [a for a in args if a is not None]
    typed = [a.t for a in vals if a.t]
    t = functools.reduce(_promoted, typed, "") or "f32"  # (numbers alone: Triton's fp32 tensors)
    return _apply({"maximum": "max", "minimum": "min"}.get(name, name), t, vals)


_UNROLLED = 16  # (the static_range trip counts and body lengths run: the generator's and small user loops)


def _unrolled(f: SourceFile, e: ast.Name, where: ast.Call | None, arm: _Arm, depth: int) -> Value | None:
    """The value of a name a ``for _ in tl.static_range(N)`` loop reassigns (``v = 1e-6``, then ``v = v * 3.0 +
    1e-6`` twice: statement seed 6028), read after the loop in the function's body: the body's statements up to the
    read run in order with the loop unrolled, as Triton's frontend does; None where a statement the run needs is
    not an assignment of one name, a loop other than a static_range of a literal count, or too long."""
    fn, stmt = f.function_of(e), _statement_of(f, e)
    if fn is None or stmt is None or not any(s is stmt for s in fn.body) or len(fn.body) > 4 * _UNROLLED:
        return None
    before = fn.body[:next(i for i, s in enumerate(fn.body) if s is stmt)]
    if not any(isinstance(s, ast.For) and _static_count(s) is not None and any(
            isinstance(n, ast.Name) and n.id == e.id and isinstance(n.ctx, ast.Store) for n in ast.walk(s))
            for s in before):
        return None  # (no static loop binds it: the name is unknown for another reason)
    env = _Env(fn, {})
    run = (*arm[:4], env)
    for s in before:  # (a depth of its own: the run reads the body from its start; a name read there that a loop
        # binds runs a shorter prefix, so the nesting ends)
        _run(f, s, where, run, _DEPTH, env.values)
    return env.values.get(e.id)


def _run(f: SourceFile, s: ast.stmt, where: ast.Call | None, arm: _Arm, depth: int,
         values: dict[str, Value | None]) -> None:
    """Bind the names ``s`` assigns to their values (None: unknown), a static_range loop's body ``N`` times."""
    if isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(t := s.targets[0], ast.Name):
        lit = s.value.operand if isinstance(s.value, ast.UnaryOp) and isinstance(s.value.op, ast.USub) else s.value
        if isinstance(lit, ast.Constant) and type(lit.value) is not float:
            values[t.id] = None  # (an int: an int32 scalar)
        elif isinstance(lit, ast.Constant):  # a name bound to a float is an fp32 scalar tensor
            c = arm_number(f, s.value, {}, names=False)
            values[t.id] = _constant("f32", rounded(c, "f32")) if c is not None else None
        else:
            with np.errstate(all="ignore"):
                v = _eval(f, s.value, where, arm, depth - 1, None)
            values[t.id] = v if v is not None and v.t else None
        return
    count = _static_count(s) if isinstance(s, ast.For) else None
    if isinstance(s, ast.For) and count is not None and len(s.body) <= _UNROLLED:
        if isinstance(s.target, ast.Name):
            values[s.target.id] = None
        for _ in range(count):
            for b in s.body:
                _run(f, b, where, arm, depth, values)
        return
    for node in ast.walk(s):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            values[node.id] = None


def _static_count(s: ast.For) -> int | None:
    """N of ``for _ in tl.static_range(N)`` (a literal, at most :data:`_UNROLLED`), else None."""
    it = s.iter
    if not (_module_call(it, "tl") == "static_range" and isinstance(it, ast.Call) and len(it.args) == 1
            and isinstance(n := it.args[0], ast.Constant) and type(n.value) is int and 0 <= n.value <= _UNROLLED):
        return None
    return n.value


def _decided_where(f: SourceFile, e: ast.Call, pick: ast.expr, where: ast.Call | None, arm: _Arm, depth: int,
                   memo: dict[int, Value | None] | None) -> Value | None:
    """A where whose condition LLVM decides (:func:`decided_arm`): its picked arm at the where's type (the other arm's
    promoted with it), a live select to MLIR — the work after it is the ring's (statement seed 5202)."""
    chosen = _eval(f, pick, where, arm, depth - 1, memo)
    other = _type_of(f, e.args[2] if pick is e.args[1] else e.args[1], arm[3], depth - 1)
    if chosen is None or other is None:
        return None
    t = _promoted(chosen.t, other) or "f32"  # (two numbers: Triton's fp32 tensors)
    v = _typed(chosen, t)
    return Value(t, v.native, v.bits, True)


def _constant_condition(f: SourceFile, p: ast.expr, where: ast.Call | None, arm: _Arm, depth: int,
                        memo: dict[int, Value | None] | None) -> tuple[bool, bool] | None:
    """(value, the ring computes a side) of a comparison of two constants, as Triton's build decides it (φ⁻¹ bits
    compared natively: docs/fpsan.md §2); None for anything else."""
    if not (isinstance(p, ast.Compare) and len(p.ops) == 1 and type(p.ops[0]) in _COMPARE):
        return None
    a, b = _eval(f, p.left, where, arm, depth, memo), _eval(f, p.comparators[0], where, arm, depth, memo)
    if a is None or b is None or not (a.t or b.t):
        return None
    t = _promoted(a.t, b.t)
    with np.errstate(all="ignore"):
        x, y = _typed(a, t), _typed(b, t)
    return _COMPARE[type(p.ops[0])](_bits_value(x.bits, t), _bits_value(y.bits, t)), x.ring or y.ring


def _type_of(f: SourceFile, e: ast.expr, types: Mapping[str, str], depth: int) -> str | None:
    """The float type of ``e``: a cast's, a loaded name's (``types``, from the PTX), a sign op's or unary math's
    operand's, the promoted type of an operator's operands; None where unknown."""
    if depth <= 0:
        return None
    if (dtype := _cast_to(e)) is not None:
        return PTX_OF_DTYPE.get(dtype)
    if arm_number(f, e, {}, names=False) is not None:
        return ""  # (a Python number: typed by the other arm)
    if (fc := folded_constant(f, e)) is not None:
        return fc[0]
    if isinstance(e, ast.Name):
        r = _resolve(f, e, depth)
        if _method_call(r, "load", 1):
            return types.get(e.id)
        return _type_of(f, r, types, depth - 1) if r is not None and r is not e else None
    if isinstance(e, ast.UnaryOp) and isinstance(e.op, ast.USub):
        return _type_of(f, e.operand, types, depth - 1)
    if isinstance(e, ast.Call) and _module_call(e, "tl") in ("abs", *_TAGGED) and len(e.args) == 1:
        return _type_of(f, e.args[0], types, depth - 1)
    if isinstance(e, ast.BinOp) and type(e.op) in _BINARY:
        a, b = _type_of(f, e.left, types, depth - 1), _type_of(f, e.right, types, depth - 1)
        return _promoted(a, b) if a is not None and b is not None else None
    return None


def _reaches(f: SourceFile, e: ast.expr, where: ast.Call | None, depth: int) -> bool:
    """``where`` is ``e`` or one of its sub-expressions, names followed."""
    if depth <= 0 or where is None:
        return False
    for n in ast.walk(e):
        if n is where:
            return True
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load):
            r = _resolve(f, n, depth)
            if r is not None and r is not n and _reaches(f, r, where, depth - 1):
                return True
    return False


def _constant(t: str, v: float) -> Value:
    return Value(t, v, float_to_bits(v, t))


def _promoted(a: str, b: str) -> str:
    if not a or not b:
        return a or b
    if a != b and _RANK[a] == _RANK[b]:
        return "f32"  # (f16 with bf16: both promoted)
    return a if _RANK[a] >= _RANK[b] else b


def _typed(v: Value, t: str) -> Value:
    """``v`` as an operand of type ``t``: a number converted (rounded) to it, a narrower value widened."""
    if not v.t:
        n = rounded(v.native, t)
        return Value(t, n, float_to_bits(n, t))
    return v if v.t == t else _cast(v, t)


def _cast(v: Value, t: str) -> Value:
    """``v.to(t)``: exact on a constant, MLIR folds it; else (and from a live value) the ring's cast. A narrowing of a
    widening is the narrowing of the widened value: MLIR's canonicalizer folds ``truncf(extf(x))`` before the FPSan
    pass (statement seed 1026: ``(h + c).to(f64)`` stored as f16 is Triton's f32 → f16 ring narrowing)."""
    n = rounded(v.native, t)
    if v.t == t:
        return v
    if not v.ring and n == v.native:
        return Value(t, n, float_to_bits(n, t))
    wider = R.ring(t).w > R.ring(v.t).w
    if not wider and v.widened is not None:
        return _cast(v.widened, t)
    bits = int(R.float_cast(np.array([v.bits], np.uint64), v.t, t)[0])
    return Value(t, n, bits, True, v if wider else None)


def _apply(op: str, t: str, args: list[Value]) -> Value:
    """``op`` at type ``t``: natively (correctly rounded), and in the ring where an operand is the ring's."""
    xs = [_typed(a, t) for a in args]
    native = _native(op, t, [x.native for x in xs])
    if not any(x.ring for x in xs) and op != "fma":
        return Value(t, native, float_to_bits(native, t))  # (constants: MLIR folds it, but not math.fma: statement
    # seed 5463's tl.math.fma(c2, -1.0, 4.0) is φ(c2)·φ(-1) + φ(4) sign-extended in Triton's f64 fma)
    w = R.ring(t).w
    if op == "abs":
        return Value(t, native, xs[0].bits & ~(1 << (w - 1)), True)  # (left native: a sign-bit clear)
    p = [R.embed(np.array([x.bits], np.uint64), t) for x in xs]
    if op in ("max", "min"):
        out = R.smax(p[0], p[1], w) if op == "max" else R.smin(p[0], p[1], w)
    else:
        out = getattr(R, op)(*p, w)
    return Value(t, native, int(R.unembed(out, t)[0]), True)


def _native(op: str, t: str, xs: list[float]) -> float:
    """IEEE ``op`` of ``xs`` at ``t``, correctly rounded (a zero's sign as the float arithmetic gives it)."""
    if op == "neg":
        return -xs[0]
    if op == "abs":
        return abs(xs[0])
    if op in ("max", "min"):
        return max(xs) if op == "max" else min(xs)
    q = [Fraction(x) for x in xs]
    exact = q[0] + q[1] if op == "add" else q[0] - q[1] if op == "sub" else q[0] * q[1] if op == "mul" \
        else q[0] * q[1] + q[2]
    if exact == 0:
        a = np.float64(xs[0])
        return float(a + xs[1] if op == "add" else a - xs[1] if op == "sub" else a * xs[1] if op == "mul"
                     else a * xs[1] + xs[2])
    return _round(exact, t)


def _round(q: Fraction, t: str) -> float:
    """The exact ``q`` correctly rounded to ``t`` (nearest, ties to even; overflow to ±inf)."""
    if q == 0:
        return 0.0
    p, emin = _FORMAT[t]
    sign, a = (-1.0 if q < 0 else 1.0), abs(q)
    e = a.numerator.bit_length() - a.denominator.bit_length()
    if Fraction(2) ** e > a:
        e -= 1
    e = max(e, emin)
    scale = Fraction(2) ** (p - 1 - e)
    m = a * scale
    n = m.numerator // m.denominator
    rest = m - n
    if rest > Fraction(1, 2) or (rest == Fraction(1, 2) and n % 2):
        n += 1
    v = float(Fraction(n) / scale)
    with np.errstate(over="ignore"):  # (beyond the type's largest finite value: its infinity)
        overflow = t != "f64" and rounded(v, t) != v
    if overflow:
        return sign * float("inf")
    return sign * v


def constant_parts(f: SourceFile, e: ast.expr, depth: int = _DEPTH, memo: dict[int, Value | None] | None = None,
                   types: Mapping[str, str] | None = None) -> list[tuple[ast.expr, Value]]:
    """The largest sub-expressions of ``e`` (names followed) that are constants, each with its value: what LLVM folds
    into one immediate (``memo``: the values of ``f``'s nodes met so far, shared by the calls of one caller;
    ``types``: the float types of loaded names, which type a where LLVM decided)."""
    memo = {} if memo is None else memo  # (each node evaluated once: the walk asks every sub-expression)

    def parts(e: ast.expr, depth: int) -> list[tuple[ast.expr, Value]]:
        if depth <= 0:
            return []
        with np.errstate(all="ignore"):
            try:
                v = _eval(f, e, None, (0.0, "f32", "", types or {}, None), depth, memo)
            except (ZeroDivisionError, OverflowError, ValueError, KeyError):
                v = None
        if v is not None and v.t:
            return [(e, v)]
        if isinstance(e, ast.Name):
            r = _resolve(f, e, depth)
            return parts(r, depth - 1) if r is not None and r is not e else []
        return [p for c in ast.iter_child_nodes(e) if isinstance(c, ast.expr) for p in parts(c, depth - 1)]
    return parts(e, depth)


_COMPARE = {ast.Lt: lambda a, b: a < b, ast.LtE: lambda a, b: a <= b, ast.Gt: lambda a, b: a > b,
            ast.GtE: lambda a, b: a >= b, ast.Eq: lambda a, b: a == b, ast.NotEq: lambda a, b: a != b}


def compared_constants(f: SourceFile, n: ast.Compare) -> tuple[bool, bool] | None:
    """(native, Triton's) result of a comparison of two constants one of which the ring computes (an inexact cast of
    a constant: ``v.to(tl.bfloat16) > v`` of ``v = 0.1``), at their promoted type; None for anything else."""
    if len(n.ops) != 1 or type(n.ops[0]) not in _COMPARE:
        return None
    a, b = evaluate(f, n.left), evaluate(f, n.comparators[0])
    if a is None or b is None or not (a.ring or b.ring) or not (a.t or b.t):
        return None
    t = _promoted(a.t, b.t)
    with np.errstate(all="ignore"):
        x, y = _typed(a, t), _typed(b, t)
    op = _COMPARE[type(n.ops[0])]
    return op(x.native, y.native), op(_bits_value(x.bits, t), _bits_value(y.bits, t))
