"""The Python side of the source hints (``ptxkit.fpsan.source_hints``): a parsed source file with its
nodes by position (:class:`SourceFile`), the :class:`Decision` a fold reads there, and what an expression
says about types: the dtype of a ``.to()`` call, the float width of an operand, negations, numbers,
names assigned once."""

from __future__ import annotations

import ast
import stat
import struct
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeGuard

from ptxkit.fpsan.source_inline import _returned, bindings, param_argument, reaching_assign, substituted
from ptxkit.fpsan.source_parse import parse_python

_DTYPE_WIDTH = {"float16": 16, "bfloat16": 16, "float32": 32, "float64": 64}
_INT_DTYPES = frozenset(f"{s}int{w}" for s in ("", "u") for w in (8, 16, 32, 64))
_PTX_DTYPE = {"f16": "float16", "bf16": "bfloat16", "f32": "float32", "f64": "float64"}
PTX_OF_DTYPE = {v: k for k, v in _PTX_DTYPE.items()}  # tl.float16 → f16
_BINOP = {"add": ast.Add, "sub": ast.Sub, "mul": ast.Mult}
OWN = 0  # an operand that is a value of its own type (a load, a parameter), not a widening
CONST = -1  # a Python number: it takes the other operand's type (no promotion)
_DEPTH = 8
_HALF = {"float16": "f16", "bfloat16": "bf16"}
_WIDE = {"float32": "f32", "float64": "f64"}


@dataclass(frozen=True)
class Decision:
    """The source form a fold takes and where the source said so (``kernel.py:12:9: `x0 * 2.0```)."""

    form: str
    where: str


_PARSED: dict[tuple[str, int, int], SourceFile | None] = {}


@dataclass
class SourceFile:
    """One parsed Python source: its nodes by (line, col_offset) and each node's parent."""

    name: str
    text: str
    tree: ast.Module
    at: dict[tuple[int, int], list[ast.expr]] = field(default_factory=dict)
    parent: dict[int, ast.AST] = field(default_factory=dict)
    # operand (an ast.dump) -> the forms LLVM folds into ``add x, x`` written on it (source_hints, built once)
    self_adds: dict[str, set[str]] | None = None
    # (form, the operand's outer cast, the cast narrowing the op's result: LLVM may shrink it to that type)
    self_adds_bare: dict[str, set[tuple[str, str | None, str | None]]] | None = None

    @classmethod
    def read(cls, path: Path) -> SourceFile | None:
        """The parsed file, once per content: every function's hints (libdevice recognition, the rewrite, the
        folded-store check) read the same kernel.py and Triton's standard.py."""
        try:
            st = path.stat()
        except OSError:
            return None
        key = (str(path.resolve()), st.st_mtime_ns, st.st_size)
        if key not in _PARSED:
            if len(_PARSED) > 64:
                _PARSED.clear()
            _PARSED[key] = cls._parse(path)
        return _PARSED[key]

    @classmethod
    def _parse(cls, path: Path) -> SourceFile | None:
        try:
            text = path.read_text(encoding="utf-8")
            tree = parse_python(text, str(path))
        except (OSError, UnicodeDecodeError, SyntaxError, ValueError):
            return None  # missing, unreadable or not Python: the folds stay undecided
        return cls.of_tree(path.name, text, tree)

    @classmethod
    def of_tree(cls, name: str, text: str, tree: ast.Module) -> SourceFile:
        """The file ``name`` of ``text`` parsed as ``tree``, indexed."""
        f = cls(name, text, tree)
        for node in ast.walk(tree):
            for child in ast.iter_child_nodes(node):
                f.parent[id(child)] = node
            if isinstance(node, ast.expr):
                f.at.setdefault((node.lineno, node.col_offset), []).append(node)
        return f

    def where(self, node: ast.expr) -> str:
        seg = " ".join((ast.get_source_segment(self.text, node) or ast.unparse(node)).split())
        return f"{self.name}:{node.lineno}:{node.col_offset + 1}: `{seg[:60]}`"

    def function_of(self, node: ast.AST) -> ast.FunctionDef | None:
        p = self.parent.get(id(node))
        while p is not None and not isinstance(p, ast.FunctionDef):
            p = self.parent.get(id(p))
        return p


# a fold's reading of one source node: (its form, the node to cite) or None
Classify = Callable[[SourceFile, ast.expr], tuple[str, ast.expr] | None]


def _as_op(n: ast.BinOp) -> tuple[type[ast.operator], ast.expr, ast.expr]:
    """(operator, left, right) as LLVM emits it: ``a - (-b)`` and ``a - c`` (a number) are ``a + b``/``a + -c``,
    ``a + (-b)`` and ``(-b) + a`` ``a - b``
    (InstCombine folds the fneg into the operator; Triton's ring −(−φ(b)) = φ(b) agrees)."""
    r, left = n.right, n.left
    if isinstance(r, ast.UnaryOp) and isinstance(r.op, ast.USub) and isinstance(n.op, (ast.Add, ast.Sub)):
        return (ast.Sub if isinstance(n.op, ast.Add) else ast.Add), n.left, r.operand
    if isinstance(left, ast.UnaryOp) and isinstance(left.op, ast.USub) and isinstance(n.op, ast.Add):
        return ast.Sub, r, left.operand  # (-a) + b is b - a (seed 170)
    if isinstance(n.op, ast.Sub) and _number(r) is not None:
        return ast.Add, left, r  # a - c is fadd a, -c (InstCombine; the ring agrees: φ(-c) = -φ(c))
    return type(n.op), n.left, n.right


def _find(path: str, root: str | None) -> SourceFile | None:
    """The source ``path`` names: under ``root`` (its longest existing suffix) when given, else itself
    (Triton's own library, ``triton/language/standard.py``, is where it was installed)."""
    p = Path(path)
    if root is not None:
        parts = p.parts[1:] if p.is_absolute() else p.parts
        for k in range(len(parts)):
            cand = Path(root, *parts[k:])
            if _readable_source(cand):
                return SourceFile.read(cand)
    return SourceFile.read(p) if _readable_source(p) else None


MAX_SOURCE_BYTES = 16 << 20


def _readable_source(p: Path) -> bool:
    """A regular file of sane size: the PTX names the path, so a hostile ``.file`` (a device, a FIFO,
    a name too long for the file system) must not block, flood memory or raise."""
    try:
        st = p.stat()
    except (OSError, ValueError):
        return False
    return stat.S_ISREG(st.st_mode) and st.st_size <= MAX_SOURCE_BYTES


def _one(f: SourceFile, forms: dict[str, ast.expr]) -> Decision | None:
    """The form when the nodes at the location agree on exactly one."""
    if len(forms) != 1:
        return None
    form, node = next(iter(forms.items()))
    return Decision(form, f.where(node))


def _is_two(n: ast.expr) -> bool:
    return isinstance(n, ast.Constant) and type(n.value) in (int, float) and n.value == 2


def _ring_chain(f: SourceFile, e: ast.expr) -> list[str] | None:
    """The f32 ops between ``i.to(tl.float32)`` of an integer cast and ``e`` when each is a negation or
    a ``+ - *`` with a number (seed 51: ``-(i.to(f32) * -1.0)``, which LLVM cancels into one int → bf16
    cvt; Triton's FPSan computes them in the ring): innermost first, ``neg`` / ``OP:BITS`` (OP ``add``,
    ``sub``, ``rsub`` for ``c - x``, ``mul``; BITS the f32 constant)."""
    ops: list[str] = []
    cur: ast.expr | None = e
    for _ in range(_DEPTH):
        cur = _resolve(f, cur, _DEPTH) if cur is not None else None
        if cur is None:
            return None
        if _cast_to(cur) == "float32":
            inner = _resolve(f, _receiver(cur), _DEPTH)
            return ops[::-1] if ops and _to_dtype(inner) in _INT_DTYPES else None
        if isinstance(cur, ast.UnaryOp) and isinstance(cur.op, ast.USub):
            ops.append("neg")
            cur = cur.operand
            continue
        if not (isinstance(cur, ast.BinOp) and isinstance(cur.op, (ast.Add, ast.Sub, ast.Mult))):
            return None
        name = {ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul"}[type(cur.op)]
        if _number(cur.right) is not None:
            c, cur = _number(cur.right), cur.left
        elif _number(cur.left) is not None:
            c, cur, name = _number(cur.left), cur.right, "rsub" if name == "sub" else name
        else:
            return None
        ops.append(f"{name}:{struct.unpack('<I', struct.pack('<f', c))[0]:#x}")
    return None


def _cancels(ops: list[str]) -> bool:
    """A ``_ring_chain`` that is the identity in IEEE arithmetic: negations and products by ±1.0 only, an
    even number of sign changes (LLVM removes exactly these; the ring agrees, φ(−1) = −1)."""
    flips = 0
    for op in ops:
        name, _, c = op.partition(":")
        if name == "neg" or (name == "mul" and c == f"{0xBF800000:#x}"):
            flips += 1
        elif not (name == "mul" and c == f"{0x3F800000:#x}"):
            return False
    return flips % 2 == 0


def _module_call(n: ast.AST | None, module: str) -> str | None:
    """NAME of a call ``MODULE.NAME(...)`` (``tl.cos(x)``, ``libdevice.pow(x, y)``), else None."""
    if (isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and isinstance(n.func.value, ast.Name)
            and n.func.value.id == module):
        return n.func.attr
    return None


def _method_call(n: ast.AST | None, name: str, nargs: int) -> TypeGuard[ast.Call]:
    """``n`` is a call ``E.NAME(...)`` with at least ``nargs`` positional arguments (``tl.where(c, a, b)``,
    ``tl.dot(a, b)``)."""
    return (isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == name
            and len(n.args) >= nargs)


def _negated(n: ast.AST | None) -> ast.expr | None:
    """x of ``-x``, ``x * -1.0`` or ``-1.0 * x``, else None."""
    if isinstance(n, ast.UnaryOp) and isinstance(n.op, ast.USub):
        return n.operand
    if isinstance(n, ast.BinOp) and isinstance(n.op, ast.Mult):
        return n.left if _number(n.right) == -1.0 else n.right if _number(n.left) == -1.0 else None
    return None


def _abs_call(n: ast.AST | None) -> TypeGuard[ast.Call]:
    """``tl.abs(x)`` / ``abs(x)`` / ``fabs(x)`` with one argument."""
    return (isinstance(n, ast.Call) and len(n.args) == 1 and isinstance(n.func, (ast.Attribute, ast.Name))
            and (n.func.attr if isinstance(n.func, ast.Attribute) else n.func.id) in ("abs", "fabs"))


def _abs_argument(f: SourceFile, call: ast.Call) -> ast.expr | None:
    """The argument of an abs ``call`` with its choices of one value taken and its negations dropped (``abs(-x)``
    is ``abs(x)``, also in the ring: |·| of the ring's negation; held-out seeds 22064, 24945)."""
    arg = _one_value(f, call.args[0])
    while isinstance(arg, ast.UnaryOp) and isinstance(arg.op, (ast.USub, ast.UAdd)):
        arg = _one_value(f, arg.operand)
    return arg


def _without_folded_widening(f: SourceFile, e: ast.expr | None) -> ast.expr | None:
    """``e`` less the widenings ``E.to(f32/f64)`` of a narrower f32/f64 ``E`` that a narrowing reads next: Triton's
    pipeline folds ``truncf(extf(E))`` to ``truncf(E)`` before its FPSan pass (held-out seeds 3218, 22248)."""
    while e is not None and (c := _cast_to(e)) in _WIDE and (inner := _resolve(f, _receiver(e), _DEPTH)) is not None:
        w = _width(f, inner, _DEPTH)
        if w not in (32, 64) or (w or 0) >= _DTYPE_WIDTH[c]:
            break
        e = inner
    return e


def _without_double_negation(f: SourceFile, e: ast.expr | None) -> ast.expr | None:
    """``e`` with ``-(-E)`` taken as ``E`` (names followed; ``E * -1.0`` negates too): LLVM drops the two fnegs, and
    Triton's ring negation is an involution, φ(−1) = −1 (held-out seeds 8449, 22758, 99522)."""
    for _ in range(_DEPTH):
        once = _negated(e)
        inner = _resolve(f, once, _DEPTH) if once is not None else None
        twice = _negated(inner) if inner is not None else None
        if twice is None:
            return e
        e = _resolve(f, twice, _DEPTH)
    return e


def _number(n: ast.expr) -> float | None:
    """The value of a Python number literal (``-1.0`` too; ``float("-inf")``, ``float("nan")``: Triton's constexprs
    as well, which LLVM folds through selects like any literal), else None."""
    if isinstance(n, ast.UnaryOp) and isinstance(n.op, ast.USub):
        neg = _number(n.operand)
        return None if neg is None else -neg
    if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "float" and len(n.args) == 1 \
            and not n.keywords and isinstance(n.args[0], ast.Constant) and isinstance(n.args[0].value, str) \
            and n.args[0].value.strip().lower().lstrip("+-") in ("inf", "infinity", "nan"):
        return float(n.args[0].value)
    c = n.value if isinstance(n, ast.Constant) else None
    return float(c) if isinstance(c, (int, float)) and not isinstance(c, bool) else None


def _int_width(t: str) -> int:
    return int(t.lstrip("uint"))


def _refolded(n: ast.expr, via: str, dest_w: int) -> tuple[str, ast.expr] | None:
    """``h.to(intA)`` whose cvt LLVM narrowed to ``s{dest_w}`` because only its low bits are used (seed
    159: ``.to(tl.int64).to(tl.float32).to(tl.int16)``, where the int → float → int round trip folds to a
    truncation): exact for the half's own range, but Triton's FPSan converts the widened payload, which
    can exceed it, at A bits (saturating) and then truncates. Form ``VIA;sA`` (signed 32/64-bit A)."""
    a = _to_dtype(n)
    if a not in ("int32", "int64") or _int_width(a) <= dest_w:
        return None
    return f"{via};s{_int_width(a)}", n


def _receiver(n: ast.expr) -> ast.expr:
    """``E`` of the method call ``E.f(…)``."""
    assert isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
    return n.func.value


def _narrowed_to(f: SourceFile, n: ast.expr, want: str | None) -> bool:
    """Whether the function narrows exactly the value of ``n`` to ``want`` (``n.to(want)``, or
    ``r.to(want)`` of a name ``r`` assigned ``n`` once), with no arithmetic between them."""
    fn = f.function_of(n)
    return fn is not None and any(isinstance(c, ast.expr) and _cast_to(c) == want
                                  and _resolve(f, _receiver(c), _DEPTH) is n for c in ast.walk(fn))


def _to_dtype(n: ast.AST | None) -> str | None:
    """``T`` of ``E.to(tl.T)`` (any dtype attribute), else None."""
    if not (isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "to"):
        return None
    args = list(n.args[:1]) + [k.value for k in n.keywords if k.arg == "dtype"]
    return args[0].attr if len(args) == 1 and isinstance(args[0], ast.Attribute) else None


def _constructed(n: ast.expr) -> str | ast.expr | None:
    """The dtype of ``tl.full(shape, v, tl.T)``/``tl.zeros(shape, tl.T)``, or the tensor ``x`` of
    ``tl.zeros_like(x)``/``tl.full_like(x, v)`` (no ``dtype=``) whose type it has; else None."""
    if not (isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and isinstance(n.func.value, ast.Name)
            and n.func.value.id == "tl"):
        return None
    at = {"full": 2, "zeros": 1, "zeros_like": None, "full_like": None}.get(n.func.attr, -1)
    if at == -1:
        return None
    given = next((k.value for k in n.keywords if k.arg == "dtype"), None)
    if given is None and at is not None and len(n.args) > at:
        given = n.args[at]
    if given is not None:
        return given.attr if isinstance(given, ast.Attribute) else None
    return n.args[0] if at is None and n.args else None


def _cast_to(n: ast.AST | None) -> str | None:
    """``T`` of ``E.to(tl.T)`` (a float dtype), else None."""
    t = _to_dtype(n)
    return t if t in _DTYPE_WIDTH else None


def _resolve(f: SourceFile, e: ast.expr, depth: int) -> ast.expr | None:
    """``e``, or the value of the name ``e``: its one assignment in the function, or, where every assignment
    of it is a statement of the function's straight-line body, the last one before the statement that reads
    it (held-out seed 2348: ``a = tl.load(..)`` then ``a = (a * 2.0 ..).to(f64)``); None: unknown."""
    while depth > 0 and not isinstance(e, ast.Name) and (ret := _returned(f, e)) is not None:
        e, depth = substituted(*ret), depth - 1  # a helper's call: what it returns, of the call's arguments
    while isinstance(e, ast.Name) and depth > 0:
        fn = f.function_of(e)
        if fn is None:
            return None
        if any(a.arg == e.id for a in fn.args.args + fn.args.kwonlyargs):
            arg = param_argument(f.tree, fn, e.id)  # (a helper's parameter: its one call's argument)
            if arg is None:
                return e
            e, depth = arg, depth - 1
            continue
        assigns, stores = bindings(fn).get(e.id, ([], 0))
        if len(assigns) != stores or not assigns:
            return None
        if len(assigns) > 1:
            reaching = reaching_assign(f, fn, e)
            if reaching is None:
                return None
            assigns = [reaching]
        e, depth = assigns[0].value, depth - 1
        while depth > 0 and (ret := _returned(f, e)) is not None:
            e, depth = substituted(*ret), depth - 1
    return e if not isinstance(e, ast.Name) or depth > 0 else None


def _statement_of(f: SourceFile, n: ast.AST) -> ast.stmt | None:
    """The statement that contains ``n``."""
    cur: ast.AST | None = n
    while cur is not None and not isinstance(cur, ast.stmt):
        cur = f.parent.get(id(cur))
    return cur


def _width(f: SourceFile, e: ast.expr, depth: int) -> int | None:
    """The float width of ``e`` when it is a widening (16/32/64), ``OWN``, ``CONST``, or None (unknown)."""
    r = _resolve(f, e, depth)
    if r is None and isinstance(e, ast.Name) and _constexpr_number(f, e) is not None:
        return CONST  # (S: tl.constexpr = 0.5: typed by its use, as a literal)
    if r is None or depth <= 0:
        return None
    if isinstance(r, ast.Name):  # a parameter; a constexpr one assigned to a name makes it a tensor of its Python
        # type, which the source does not give (v0 = S: fp32 for a float S, int32 for an int; statement seed 3671)
        return None if e is not r and _assigned(f, e) and _constexpr_param(f, r) else OWN
    if isinstance(r, ast.Constant):  # (a name assigned a float is an fp32 scalar tensor, which promotes a half:
        # user-style probes, silent: s = 0.5; tl.where(x > s, x, 0.0) of an f16 x compares at f32)
        return 32 if _assigned(f, e) and type(r.value) is float else \
            CONST if type(r.value) in (int, float) else None
    if _assigned(f, e) and isinstance(r, (ast.BinOp, ast.UnaryOp)) and _width(f, r, depth - 1) == CONST \
            and any(isinstance(c, ast.Constant) and type(c.value) is float for c in ast.walk(r)):
        return 32  # c = 2.0 / -0.5, c = -0.5: Python folds it, the name an fp32 scalar as above (rp236, seed 3733)
    cast = _cast_to(r)
    if cast is not None:
        return _DTYPE_WIDTH[cast]
    if isinstance(r, ast.Call) and isinstance(r.func, ast.Attribute) and r.func.attr == "load":
        return OWN
    if isinstance(r, ast.Call) and isinstance(r.func, ast.Attribute) and r.func.attr == "inline_asm_elementwise":
        dt = r.args[3] if len(r.args) > 3 else next((k.value for k in r.keywords if k.arg == "dtype"), None)
        return _DTYPE_WIDTH.get(dt.attr) if isinstance(dt, ast.Attribute) else None  # (its stated result type)
    if (made := _constructed(r)) is not None:  # tl.full([B], 3.0, tl.float32) * h of a half h: an f32 mul
        return _DTYPE_WIDTH.get(made) if isinstance(made, str) else _width(f, made, depth - 1)
    if isinstance(r, ast.Call) and isinstance(r.func, ast.Attribute) and r.func.attr == "dot":
        out = next((k.value for k in r.keywords if k.arg == "out_dtype"), None)  # unstated: f32, f64 for f64
        if out is None:  # an accumulator gives the result its type (held-out seed 17752: tl.dot(a, b, c) of a loaded c)
            acc = r.args[2] if len(r.args) > 2 else next((k.value for k in r.keywords if k.arg == "acc"), None)
            return _width(f, acc, depth - 1) if acc is not None else None
        return _DTYPE_WIDTH.get(out.attr) if isinstance(out, ast.Attribute) else None
    if (reduced := _reduction_of(r, ("max", "min"))) is not None:
        # Triton 3.9's tl.max/min widen a half to f32 (a loaded value's type unknown); sum, prod and scans keep it
        # (_same_type_args; held-out seed 184906: tl.min(e) * 2.0 of a bf16 e, the f32 self-add undecided before)
        w = _width(f, reduced, depth - 1)
        return 32 if w == 16 else w if w in (32, 64) else None
    args = _same_type_args(r)
    if args:  # tl.fma/minimum/maximum/abs/where: the type of their (promoted) float operands (an f64 one makes it
        widths = [_width(f, a, depth - 1) for a in args]  # f64 whatever the others, held-out seed 30772); of numbers
        w = (64 if 64 in widths else None) if None in widths else max(w for w in widths if w is not None)
        return 32 if w == CONST else w  # alone, an fp32 tensor (tl.fma(1.5, 1.5, 1.5): statement-level probe)
    if (isinstance(r, ast.Call) and isinstance(r.func, ast.Attribute) and isinstance(r.func.value, ast.Name)
            and r.func.value.id == "libdevice" and r.args and not r.keywords):
        # libdevice.tanh(x.to(f32)): its functions exist for f32 and f64; arguments of explicit wide types
        # give it (a loaded value's type is unknown here: held-out seed 1437)
        ws = [_width(f, a, depth - 1) for a in r.args]
        if 64 in ws:  # its arguments promoted as an operator's: pow(x.to(f64), y) is the f64 pow (held-out seed 67624)
            return 64
        if all(w in (32, 64, CONST) for w in ws) and (32 in ws or 64 in ws):
            return max(w for w in ws if w is not None)
        return None
    if isinstance(r, ast.UnaryOp) and isinstance(r.op, ast.USub):
        return _width(f, r.operand, depth - 1)
    if (ret := _returned(f, r)) is not None:  # a helper's call: its returned expression of the call's arguments
        return _width(f, substituted(*ret), depth - 1)
    if isinstance(r, ast.BinOp) and isinstance(r.op, (ast.Add, ast.Sub, ast.Mult, ast.Div)):
        a, b = _width(f, r.left, depth - 1), _width(f, r.right, depth - 1)
        if a is None or b is None:  # an f64 side makes it f64 whatever the other (held-out seed 25688)
            return 64 if 64 in (a, b) else None
        w = max(a, b)
        if isinstance(r.op, ast.Div):  # Triton's true division promotes halves to f32 (seed 1258)
            return None if w == OWN else max(w, 32) if w > 0 else CONST if w == CONST else None
        return w
    return None


_UNARY_MATH = ("abs", "sqrt", "sqrt_rn", "rsqrt", "exp", "exp2", "log", "log2", "sin", "cos", "erf", "floor", "ceil",
               "sigmoid")


def _same_type_args(r: ast.expr) -> list[ast.expr]:
    """The float operands of ``tl.fma``/``minimum``/``maximum``/``fdiv``/``div_rn``/``where`` and of the unary math
    functions (``tl.sqrt``, ``tl.exp``, …), whose result has their promoted type, else []. (A ``libdevice`` call's
    type is its arguments' only where they are explicitly f32/f64: ``_width``.)"""
    if not (isinstance(r, ast.Call) and isinstance(r.func, ast.Attribute) and isinstance(r.func.value, ast.Name)
            and r.func.value.id == "tl"):
        return []
    n = {"fma": 3, "minimum": 2, "maximum": 2, "fdiv": 2, "div_rn": 2, **dict.fromkeys(_UNARY_MATH, 1)}.get(r.func.attr)
    if n is not None and len(r.args) == n:
        return list(r.args)
    if r.func.attr in _REDUCTIONS and r.args and not any(k.arg == "dtype" for k in r.keywords):
        return [r.args[0]]  # tl.cumsum(e, axis=0): a float reduction keeps its input's type (held-out seed 1850)
    return list(r.args[1:]) if r.func.attr == "where" and len(r.args) == 3 else []


def _scan_of(n: ast.expr) -> ast.expr | None:
    """The operand of ``tl.cumsum(e, ...)`` / ``tl.cumprod``, whose first element is ``e``'s own."""
    if (isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and isinstance(n.func.value, ast.Name)
            and n.func.value.id == "tl" and n.func.attr in ("cumsum", "cumprod") and n.args):
        return n.args[0]
    return None


_REDUCTIONS = ("sum", "cumsum", "max", "min", "cumprod", "prod")


def _reduction_of(n: ast.expr | None, names: tuple[str, ...] = _REDUCTIONS) -> ast.expr | None:
    """The operand e of ``tl.NAME(e, axis=...)``, a reduction or scan NAME of ``names`` (no ``dtype=``), else None."""
    if (isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and isinstance(n.func.value, ast.Name)
            and n.func.value.id == "tl" and n.func.attr in names and n.args
            and all(k.arg in ("axis", "keep_dims", "reverse") for k in n.keywords)):
        return n.args[0]
    return None


def _one_value(f: SourceFile, e: ast.expr | None) -> ast.expr | None:
    """``e`` with the choices between one value resolved (``tl.where(c, a, a)``, ``tl.maximum(a, a)``,
    ``tl.minimum(a, a)``: LLVM folds them to ``a``, and Triton's ring select and max/min of ``a`` with itself
    are ``a``; held-out seed 3028), names followed; None: unknown."""
    e = _resolve(f, e, _DEPTH) if e is not None else None
    for _ in range(_DEPTH):
        if e is None or (a := _chosen(e) or _same_arms(f, e)) is None:
            return e
        e = _resolve(f, a, _DEPTH)
    return e


def _same_arms(f: SourceFile, e: ast.expr) -> ast.expr | None:
    """The value of a choice whose arms are one value once their own choices are resolved (held-out seed 73774:
    ``tl.where(c, tl.minimum(d, d), d)``), else None."""
    if not (isinstance(e, ast.Call) and isinstance(e.func, ast.Attribute) and isinstance(e.func.value, ast.Name)
            and e.func.value.id == "tl"):
        return None
    arms = (e.args[1:] if e.func.attr == "where" and len(e.args) == 3
            else e.args if e.func.attr in ("maximum", "minimum") and len(e.args) == 2 else [])
    vals = [v for a in arms if (v := _one_value(f, a)) is not None]
    if len(vals) != 2:
        return None
    # (one value and its widening to f64: the other is promoted to it, one SSA value after CSE, MLIR's min(a, a) is
    # a; statement-level seed 3131: tl.minimum(S, S.to(tl.float64)).to(tl.bfloat16))
    bare = [_unwidened(f, v) for v in vals]
    if ast.dump(bare[0]) != ast.dump(bare[1]):
        return None
    return next((v for v in vals if _cast_to(v) == "float64"), vals[0])


def _unwidened(f: SourceFile, v: ast.expr) -> ast.expr:
    for _ in range(_DEPTH):
        if _cast_to(v) != "float64":
            break
        v = _resolve(f, _receiver(v), _DEPTH) or _receiver(v)
    return v


def _chosen(e: ast.expr, self_compare: bool = True) -> ast.expr | None:
    """``a`` of a choice between one value (``tl.where(c, a, a)``, ``tl.maximum(a, a)``, ``tl.minimum(a, a)``), and
    with ``self_compare`` ``b`` of ``tl.where(x > x, a, b)`` (LLVM's fold; MLIR's canonicalizer keeps the compare)."""
    if not (isinstance(e, ast.Call) and isinstance(e.func, ast.Attribute) and isinstance(e.func.value, ast.Name)
            and e.func.value.id == "tl"):
        return None
    pair = (e.args[1:] if e.func.attr == "where" and len(e.args) == 3
            else e.args if e.func.attr in ("maximum", "minimum") and len(e.args) == 2 else [])
    if self_compare and e.func.attr == "where" and len(pair) == 2 and isinstance(p := e.args[0], ast.Compare) \
            and len(p.ops) == 1 and isinstance(p.ops[0], (ast.Gt, ast.Lt)) \
            and ast.dump(p.left) == ast.dump(p.comparators[0]):
        return pair[1]  # (x > x is false, NaN too, natively and on Triton's float bits; statement seed 1302)
    return pair[0] if len(pair) == 2 and ast.dump(pair[0]) == ast.dump(pair[1]) else None


def _arms(f: SourceFile, e: ast.expr | None) -> list[ast.expr]:
    """The values a narrowing cast of ``e`` may reach: ``e``, or both arms of ``tl.where(c, a, b)``
    (resolved through names), since LLVM sinks an ``fptrunc`` into a select's arms, and drops the select
    when CSE makes them one (held-out seed 2990: ``where(c, x*y, y*x).to(bf16)`` → one ``mul.bf16``)."""
    if e is None:
        return []
    if (isinstance(e, ast.Call) and isinstance(e.func, ast.Attribute) and e.func.attr == "where"
            and len(e.args) == 3 and not e.keywords):
        return [a for a in (_resolve(f, x, _DEPTH) for x in e.args[1:]) if a is not None]
    if (ret := _returned(f, e)) is not None and _method_call(ret[0], "where", 3) and not ret[0].keywords:
        # a helper's where (user-style probe: ``_sel(x > 0, h.to(f32), -h.to(f32)).to(f16)``, silent)
        return [a for x in ret[0].args[1:] if (a := _resolve(f, ret[1].get(x.id, x) if isinstance(x, ast.Name) else x,
                                                            _DEPTH)) is not None]
    if (isinstance(e, ast.UnaryOp) and isinstance(e.op, ast.USub) and isinstance(r := _resolve(f, e.operand, _DEPTH),
                                                                                 ast.BinOp)
            and isinstance(r.op, ast.Mult) and (_number(r.left) is not None or _number(r.right) is not None)):
        return [r]  # -(x * c): InstCombine negates the constant (held-out seed 14052), φ(-c) = -φ(c) in the ring
    return [e]


def _assigned(f: SourceFile, e: ast.expr) -> bool:
    """``e`` is a name its function assigns, directly or as a helper's parameter given such a name (a parameter given a
    number is a constexpr, typed by its use: seed 1264's ``_h(x, y, -1.0)``)."""
    for _ in range(_DEPTH):
        fn = f.function_of(e) if isinstance(e, ast.Name) else None
        if fn is None or not isinstance(e, ast.Name):
            return False
        if all(a.arg != e.id for a in fn.args.args + fn.args.kwonlyargs):
            return e.id in bindings(fn)
        arg = param_argument(f.tree, fn, e.id)
        if arg is None:
            return False
        e = arg
    return False


def _constexpr_param(f: SourceFile, a: ast.Name) -> bool:
    """``a`` is a ``NAME: tl.constexpr`` parameter of its function."""
    fn = f.function_of(a)
    return fn is not None and any(p.arg == a.id and isinstance(p.annotation, ast.Attribute)
                                  and p.annotation.attr == "constexpr" for p in fn.args.args)


def _constexpr_number(f: SourceFile, a: ast.Name) -> float | None:
    """The number of ``NAME: tl.constexpr = number``, the function's one assignment of the name: a constexpr, typed by
    its use like a literal (user-style probe, silent: ``S: tl.constexpr = 1.5; where(x > 0, x, S) * 3.0``)."""
    lit = _constexpr_literal(f, a)
    return _number(lit) if lit is not None else None


def _constexpr_literal(f: SourceFile, a: ast.Name) -> ast.expr | None:
    """The number literal of ``NAME: tl.constexpr = number`` (:func:`_constexpr_number`), else None."""
    fn = f.function_of(a)
    found = [s for s in ast.walk(fn) if isinstance(s, (ast.Assign, ast.AnnAssign, ast.AugAssign))
             and a.id in {t.id for t in ([s.target] if not isinstance(s, ast.Assign) else s.targets)
                          if isinstance(t, ast.Name)}] if fn is not None else []
    if len(found) != 1 or not isinstance(s := found[0], ast.AnnAssign) or s.value is None:
        return None
    ann = s.annotation
    return s.value if isinstance(ann, ast.Attribute) and ann.attr == "constexpr" and _number(s.value) is not None \
        else None


def _form(a: int | None, b: int | None) -> str | None:
    """The H form of an op on operands of widths ``a``, ``b``: an explicit 32/64-bit widening makes it
    ``f32``/``f64``; 16-bit, own-type (a 16-bit op's own operand is 16-bit: LLVM narrows only widenings)
    and constant operands ``native``; an f64 operand makes it ``f64`` whatever the other (Triton promotes)."""
    if a is None or b is None:
        return "f64" if 64 in (a, b) else None
    w = max(a, b)
    return f"f{w}" if w in (32, 64) else "native"


def _classify(classify: Classify, f: SourceFile, n: ast.expr) -> tuple[str, ast.expr] | None:
    """``classify(f, n)``; a source shape a rule did not foresee (a lookup that fails, a name it cannot
    type) decides nothing rather than stopping the sanitizer: the fold stays undecided, and reported."""
    try:
        return classify(f, n)
    except (KeyError, IndexError, AttributeError, TypeError, ValueError, RecursionError):
        return None


def _bare(x: ast.expr) -> ast.expr:
    """``x`` without the float casts applied to it (``x1`` of ``x1.to(tl.float64).to(tl.float16)``), :func:`_same`."""
    while _cast_to(_same(x)) is not None:
        x = _receiver(_same(x))
    return _same(x)


def _same(x: ast.expr) -> ast.expr:
    """``x`` with its choices between one value taken (:func:`_chosen`, repeatedly, names not followed): the value
    itself, in the ring as natively (held-out seed 15343: ``x + x`` beside ``2.0 * tl.minimum(x, x)``, one add)."""
    for _ in range(_DEPTH):
        if (a := _chosen(x)) is None:
            return x
        x = a
    return x


def _combine_op(f: SourceFile, n: ast.expr) -> type[ast.operator] | None:
    """The operator of the combine function a ``reduce``/``associative_scan`` call ``n`` applies, where that
    function (defined in the same file: Triton's ``_sum_combine``) is ``return a OP b`` of its two parameters:
    the op on the reduced tensor's own element type, with no cast in between; else None."""
    if not (isinstance(n, ast.Call) and isinstance(n.func, (ast.Attribute, ast.Name)) and len(n.args) >= 3
            and (n.func.attr if isinstance(n.func, ast.Attribute) else n.func.id) in ("reduce", "associative_scan")
            and isinstance(n.args[2], ast.Name)):
        return None
    fn = next((d for d in ast.walk(f.tree) if isinstance(d, ast.FunctionDef) and d.name == n.args[2].id), None)
    if fn is None or len(fn.args.args) != 2 or len(fn.body) != 1 or not isinstance(fn.body[0], ast.Return):
        return None
    e, names = fn.body[0].value, [a.arg for a in fn.args.args]
    if (isinstance(e, ast.BinOp) and isinstance(e.left, ast.Name) and isinstance(e.right, ast.Name)
            and sorted((e.left.id, e.right.id)) == sorted(names)):
        return type(e.op)
    return None


def _commuted(e: ast.expr) -> str:
    """``e``'s dump with the operands of its products and sums in one order (held-out seed 53241, silent:
    ``(2.0 * h) + (h * 2.0)``, whose two products LLVM made one)."""
    if isinstance(e, ast.BinOp) and isinstance(e.op, (ast.Add, ast.Mult)):
        return f"{type(e.op).__name__}({','.join(sorted((_commuted(e.left), _commuted(e.right))))})"
    return ast.dump(e)


def _cast_chain(f: SourceFile, e: ast.expr | None) -> tuple[list[tuple[str, ast.expr | None]], ast.expr | None]:
    """The float casts ``e`` ends with, outermost first, each with its receiver, and the value under them (names
    followed)."""
    e = _resolve(f, e, _DEPTH) if e is not None else None
    chain: list[tuple[str, ast.expr | None]] = []
    for _ in range(_DEPTH):
        if e is None or (t := _cast_to(e)) is None:
            break
        e = _resolve(f, _receiver(e), _DEPTH)
        chain.append((t, e))
    return chain, e


def _chain_casts_to(f: SourceFile, e: ast.expr | None, dtype: str | None) -> bool:
    """A float cast to ``dtype`` among the chain of casts ``e`` ends with (names followed; through negations, which an
    abs drops: held-out seed 102602), of no abs (not abs(abs(x).to(f16).to(f32)): the inner abs is next to it)."""
    for _ in range(_DEPTH):
        chain, e = _cast_chain(f, e)
        if (got := next((not _abs_call(r) for t, r in chain if t == dtype), None)) is not None:
            return got
        if (e := _negated(e)) is None:
            return False
    return False
