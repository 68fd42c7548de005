"""Seeded random Triton 3.9 kernels for the FPSan differential check (issue 10).

:func:`generate` turns a seed into a :class:`KernelSpec`: the Python source of one ``@triton.jit``
kernel (elementwise, row/column reduction, cumsum or ``tl.dot`` with an epilogue), its signature,
constexprs, ``num_warps``, grid and seeded input arrays. The expression trees draw from + − × ÷, fma,
neg, abs, exp, exp2, log, log2, sin, cos, sqrt, sqrt_rn, rsqrt, erf, tanh, pow, floor, ceil,
minimum/maximum (both NaN modes), where, float↔float and float→int→float casts, constant multiples
(``x*2.0``, ``0.0*x``) and masked loads, over f16/bf16/f32/f64. Math functions Triton only accepts on
f32/f64 are applied to f16/bf16 through an explicit ``.to(tl.float32)``, as users write them.

Pure Python (no Triton import): the same seed gives the same kernel on every machine (``random.Random``
with an int seed is stable across Python versions). The input values come from NumPy's ``default_rng``,
whose streams NumPy does not promise to keep across releases: a NumPy upgrade may change the inputs (and so
which kernels hit, say, a −0.0 input), never the kernels.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

import numpy as np

FLOATS = ("f16", "bf16", "f32", "f64")
TL = {"f16": "tl.float16", "bf16": "tl.bfloat16", "f32": "tl.float32", "f64": "tl.float64",
      "i8": "tl.int8", "i16": "tl.int16", "i32": "tl.int32", "i64": "tl.int64"}
SIG = {"f16": "*fp16", "bf16": "*bf16", "f32": "*fp32", "f64": "*fp64"}
# raw bits of each dtype as stored in the simulator's buffers
BITS = {"f16": np.uint16, "bf16": np.uint16, "f32": np.uint32, "f64": np.uint64}
# math functions Triton 3.9 accepts only on f32/f64 (tl.math._check_dtype); sqrt_rn only on f32
MATH1 = ("exp", "exp2", "log", "log2", "sin", "cos", "sqrt", "rsqrt", "erf", "floor", "ceil")
LIBDEVICE1 = ("tanh",)
CMP = ("<", ">", "<=", ">=", "==", "!=")
INTS = ("i8", "i16", "i32", "i64")
CONST_FORMS = ("({a} * 2.0)", "(2.0 * {a})", "({a} + 1.0)", "(0.0 * {a})", "({a} * -1.0)", "({a} / 3.0)",
               "({a} - 0.5)", "({a} * 0.5)")
# (M, N, K) of the dot kernels; 64×64 with 4 warps is a wgmma on sm_90
DOT_SHAPES = ((16, 16, 16), (32, 32, 16), (16, 32, 32), (64, 64, 32))
# input values: mostly uniform in [-4, 4), some specials (signed zeros, ±1, 2, 0.5, ±inf, NaN)
SPECIALS = (0.0, -0.0, 1.0, -1.0, 2.0, 0.5, float("inf"), float("-inf"), float("nan"))


@dataclass
class Buffer:
    """A pointer parameter: its name, element type and length (elements)."""

    name: str
    dtype: str
    n: int


@dataclass
class KernelSpec:
    """One generated kernel and everything needed to compile and run it."""

    seed: int
    kind: str                       # elementwise | reduce | scan | dot
    name: str                       # the jit function's name
    source: str                     # a complete Python module defining ``name``
    signature: dict[str, str]       # Triton signature (pointer/scalar types, 'constexpr')
    constexprs: dict[str, int]
    num_warps: int
    grid: tuple[int, int, int]
    inputs: list[Buffer]
    output: Buffer
    scalars: dict[str, int] = field(default_factory=dict)
    features: list[str] = field(default_factory=list)  # ops used, e.g. 'exp:f32', 'cast:f16->f32'
    fixed_inputs: dict[str, np.ndarray] | None = None  # given inputs (raw bits) instead of seeded ones

    def input_arrays(self) -> dict[str, np.ndarray]:
        """The seeded inputs as raw bits (uint16/32/64 per dtype), reproducible from ``seed``."""
        if self.fixed_inputs is not None:
            return dict(self.fixed_inputs)
        rng = np.random.default_rng([self.seed & 0xFFFFFFFF, 0x7a11])
        return {b.name: _values(rng, b.dtype, b.n) for b in self.inputs}


def _values(rng: np.random.Generator, dtype: str, n: int) -> np.ndarray:
    x = rng.uniform(-4.0, 4.0, n)
    special = rng.random(n) < 0.1
    x[special] = rng.choice(np.array(SPECIALS), int(special.sum()))
    if dtype == "bf16":  # round to nearest even on the upper half of the f32 bits
        u = x.astype(np.float32).view(np.uint32).astype(np.uint64)
        nan = np.isnan(x)
        u = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)
        u[nan] = 0x7FC0
        return u
    ft = {"f16": np.float16, "f32": np.float32, "f64": np.float64}[dtype]
    with np.errstate(over="ignore"):
        return x.astype(ft).view(BITS[dtype])


KINDS = ("bin", "const", "fma", "neg", "abs", "math", "pow", "minmax", "where", "cast", "intcast")
_WEIGHTS = (8, 4, 2, 2, 1, 6, 1, 2, 2, 2, 1)
# the nodes that are one call of their children: (format, number of children); feature ``kind:dtype``
_FORMS = {"fma": ("tl.fma({}, {}, {})", 3), "neg": ("(-{})", 1), "abs": ("tl.abs({})", 1)}


def variants(kind: str, want: str) -> list:
    """Every variant of an expression node ``kind`` producing dtype ``want``."""
    if kind == "bin":
        return list("+-*/")
    if kind == "const":
        return list(CONST_FORMS)
    if kind == "math":
        return list(MATH1 + LIBDEVICE1) + (["sqrt_rn"] if want in ("f32", "f16", "bf16") else [])
    if kind == "minmax":
        return [(f, nan) for f in ("minimum", "maximum") for nan in (False, True)]
    if kind == "where":
        return [(ct, op) for ct in FLOATS for op in CMP]
    if kind == "cast":
        return [f for f in FLOATS if f != want]
    if kind == "intcast":
        return [(src, it) for src in FLOATS for it in INTS]
    return [None]


class _Expr:
    """Random typed expression trees over a fixed set of leaves (all of the same shape). Every node
    appends a feature name (``feature``) to ``features``: the single-op kernels of
    :func:`single_op` carry the same names, so a mismatch can be traced to the op that causes it."""

    def __init__(self, rng: random.Random, leaves: dict[str, str], features: list[str]):
        self.rng = rng
        self.leaves = leaves  # name -> dtype
        self.features = features

    def gen(self, want: str, depth: int) -> str:
        r = self.rng
        if depth <= 0 or r.random() < 0.15:
            return self.leaf(want)
        kind = r.choices(KINDS, weights=_WEIGHTS)[0]
        return self.node(kind, r.choice(variants(kind, want)), want, depth - 1)

    def node(self, kind: str, v, want: str, d: int) -> str:
        """One ``kind`` node with variant ``v``, children of depth ``d``. Its feature name is recorded
        before its children's (math functions on f16/bf16 run in f32)."""
        feats = self.features

        def sub(t: str = want) -> str:
            return self.gen(t, d)

        if kind == "bin":
            feats.append(f"{v}:{want}")
            return f"({sub()} {v} {sub()})"
        if kind == "const":
            feats.append(f"const{v.replace('{a}', 'x').replace(' ', '')}:{want}")
            return v.format(a=sub())
        if kind in _FORMS:
            feats.append(f"{kind}:{want}")
            form, arity = _FORMS[kind]
            return form.format(*(sub() for _ in range(arity)))
        if kind in ("math", "pow"):
            wide = want if want in ("f32", "f64") else "f32"
            feats.append(f"{'pow' if kind == 'pow' else v}:{wide}")
            if kind == "pow":
                call = f"libdevice.pow({sub(wide)}, {sub(wide)})"
            else:
                lib = "libdevice" if v in LIBDEVICE1 else "tl"
                call = f"{lib}.{v}({sub(wide)})"
            if wide != want:
                feats.append(f"cast:{wide}->{want}")
                return f"{call}.to({TL[want]})"
            return call
        if kind == "minmax":
            feats.append(f"{v[0]}{'_nan' if v[1] else ''}:{want}")
            extra = ", propagate_nan=tl.PropagateNan.ALL" if v[1] else ""
            return f"tl.{v[0]}({sub()}, {sub()}{extra})"
        if kind == "where":
            ct, op = v
            feats.append(f"where{op}:{ct}")
            return f"tl.where({sub(ct)} {op} {sub(ct)}, {sub()}, {sub()})"
        if kind == "cast":
            feats.append(f"cast:{v}->{want}")
            return f"{sub(v)}.to({TL[want]})"
        src, it = v
        feats.append(f"cast:{src}->{it}->{want}")
        return f"{sub(src)}.to({TL[it]}).to({TL[want]})"

    def leaf(self, want: str) -> str:
        name = self.rng.choice(sorted(self.leaves))
        have = self.leaves[name]
        if have == want:
            return name
        self.features.append(f"cast:{have}->{want}")
        return f"{name}.to({TL[want]})"


class _Leaves(_Expr):
    """Children are fresh inputs of exactly the wanted dtype (the single-op kernels)."""

    def gen(self, want: str, depth: int) -> str:
        name = f"x{len(self.leaves)}"
        self.leaves[name] = want
        return name


_HEADER = "import triton\nimport triton.language as tl\nfrom triton.language.extra import libdevice\n\n\n@triton.jit\n"


def generate(seed: int) -> KernelSpec:
    """The random kernel of ``seed`` (deterministic)."""
    r = random.Random(seed)
    kind = r.choices(["elementwise", "reduce", "scan", "dot"], weights=[5, 2, 1, 2])[0]
    name = f"k{seed}"
    if kind == "dot":
        it = r.choice(("f16", "bf16", "f32", "f32", "f64"))
        m, n, k = r.choice(DOT_SHAPES)
        nw = r.choice((1, 4)) if m * n <= 32 * 32 else 4
        prec = r.choice(("tf32", "tf32x3", "ieee")) if it == "f32" else ""
        return _dot(seed, name, r, it, (m, n, k), nw, prec, r.random() < 0.4, r.choice(FLOATS), 2)
    leaves = {f"x{i}": r.choice(FLOATS) for i in range(r.choice((1, 2, 2, 3)))}
    features: list[str] = []
    e = _Expr(r, leaves, features)
    if kind == "elementwise":
        et = r.choice(FLOATS)
        body = e.gen(et, r.randint(1, 4))
        block, nw, masked = r.choice((32, 64, 128, 256)), r.choice((1, 4)), r.random() < 0.7
        return _elementwise(seed, name, r, leaves, body, r.choice(FLOATS), block, nw, masked, features)
    et = r.choice(FLOATS)
    body = e.gen(et, r.randint(1, 3))
    shape = r.choice(((2, 16), (4, 32), (8, 16), (4, 64), (16, 32)))
    nw, masked, axis = r.choice((1, 4)), r.random() < 0.6, r.choice((0, 1))
    op = "cumsum" if kind == "scan" else r.choice(("sum", "max", "min"))
    return _reduce(seed, name, r, leaves, body, et, op, axis, shape, nw, masked, r.choice(FLOATS), features, 2)


_NAME_CHARS = {"+": "add", "-": "sub", "*": "mul", "/": "div", "<": "lt", ">": "gt", "=": "eq", "!": "ne",
               "(": "_", ")": "_", ".": "p", ":": "_"}


def single_op(kind: str, v, want: str) -> KernelSpec:
    """The smallest elementwise kernel applying one expression node to fresh inputs (seed −1)."""
    leaves: dict[str, str] = {}
    features: list[str] = []
    body = _Leaves(random.Random(0), leaves, features).node(kind, v, want, 0)
    name = "k_" + "".join(_NAME_CHARS.get(c, c) for c in features[0])
    return _elementwise(-1, name, random.Random(0), leaves, body, want, 64, 1, True, features)


def single_reduce(op: str, et: str, axis: int) -> KernelSpec:
    """tl.sum/max/min/cumsum of one [4, 32] input along ``axis``, stored in its own dtype."""
    features: list[str] = []
    return _reduce(-1, f"k_{op}_{et}_{axis}", random.Random(0), {"x0": et}, "x0", et, op, axis, (4, 32), 4, True,
                   et, features, 0)


def single_dot(it: str, shape: tuple[int, int, int], nw: int, prec: str) -> KernelSpec:
    """tl.dot of two inputs, f32 (f64 for f64 inputs) result stored as is."""
    acc_t = "f64" if it == "f64" else "f32"
    m, n, k = shape
    return _dot(-1, f"k_dot{m}x{n}x{k}_{it}_{prec or 'default'}_w{nw}", random.Random(0), it, shape, nw, prec,
                False, acc_t, 0)


def _load(x: str, offs: str, masked: bool, other: str) -> str:
    return f"tl.load({x}_ptr + {offs}, mask=mask, other={other})" if masked else f"tl.load({x}_ptr + {offs})"


def _elementwise(seed: int, name: str, r: random.Random, leaves: dict[str, str], body: str, out_t: str, block: int,
                 nw: int, masked: bool, features: list[str]) -> KernelSpec:
    """Two programs of BLOCK elements; with a mask, the last program is partial (n < 2·BLOCK)."""
    n = 2 * block - (r.randrange(1, block // 2) if masked else 0)
    features[:0] = [f"num_warps={nw}"] + (["mask"] if masked else [])
    params = [f"{x}_ptr" for x in leaves] + ["out_ptr", "n"]
    lines = [f"def {name}({', '.join(params)}, BLOCK: tl.constexpr):",
             "    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)",
             "    mask = offs < n"]
    lines += [f"    {x} = {_load(x, 'offs', masked, r.choice(('0.0', '1.0', '-1.0')))}" for x in leaves]
    lines.append(f"    r = {body}")
    lines.append(f"    tl.store(out_ptr + offs, r.to({TL[out_t]}){', mask=mask' if masked else ''})")
    sig = {f"{x}_ptr": SIG[t] for x, t in leaves.items()} | {"out_ptr": SIG[out_t], "n": "i32", "BLOCK": "constexpr"}
    return KernelSpec(seed, "elementwise", name, _HEADER + "\n".join(lines) + "\n", sig, {"BLOCK": block}, nw,
                      (2, 1, 1), [Buffer(f"{x}_ptr", t, 2 * block) for x, t in leaves.items()],
                      Buffer("out_ptr", out_t, 2 * block), {"n": n}, features)


def _reduce(seed: int, name: str, r: random.Random, leaves: dict[str, str], body: str, et: str, op: str, axis: int,
            shape: tuple[int, int], nw: int, masked: bool, out_t: str, features: list[str],
            epi_depth: int) -> KernelSpec:
    """A [R, C] tile per program (two programs), an expression, then tl.sum/max/min over ``axis``
    or tl.cumsum along it, and a short random epilogue on the result."""
    rows, cols = shape
    n = cols - (r.randrange(1, cols // 4) if masked else 0)
    features[:0] = [f"num_warps={nw}"] + (["mask"] if masked else [])
    features.append(f"{op}{axis}:{et}")
    params = [f"{x}_ptr" for x in leaves] + ["out_ptr", "n"]
    lines = [f"def {name}({', '.join(params)}, R: tl.constexpr, C: tl.constexpr):",
             "    rows = tl.arange(0, R)",
             "    cols = tl.arange(0, C)",
             "    offs = tl.program_id(0) * R * C + rows[:, None] * C + cols[None, :]",
             "    mask = (cols[None, :] < n) & (rows[:, None] < R)"]
    lines += [f"    {x} = {_load(x, 'offs', masked, r.choice(('0.0', '1.0', '-1.0')))}" for x in leaves]
    lines.append(f"    e = {body}")
    lines.append(f"    s = tl.{op}(e, axis={axis})")
    # Triton 3.9: tl.sum/cumsum keep a float's type; tl.max/min widen < 32-bit floats to f32
    st = "f32" if op in ("max", "min") and et in ("f16", "bf16") else et
    epi = _Expr(r, {"s": st}, features).gen(out_t, r.randint(0, epi_depth)) if epi_depth else f"s.to({TL[out_t]})"
    if op == "cumsum":
        lines.append(f"    tl.store(out_ptr + offs, ({epi}).to({TL[out_t]}){', mask=mask' if masked else ''})")
        total = 2 * rows * cols
    else:
        idx, width = ("rows", "R") if axis == 1 else ("cols", "C")
        lines.append(f"    tl.store(out_ptr + tl.program_id(0) * {width} + {idx}, ({epi}).to({TL[out_t]}))")
        total = 2 * (rows if axis == 1 else cols)
    sig = ({f"{x}_ptr": SIG[t] for x, t in leaves.items()}
           | {"out_ptr": SIG[out_t], "n": "i32", "R": "constexpr", "C": "constexpr"})
    return KernelSpec(seed, "scan" if op == "cumsum" else "reduce", name, _HEADER + "\n".join(lines) + "\n", sig,
                      {"R": rows, "C": cols}, nw, (2, 1, 1),
                      [Buffer(f"{x}_ptr", t, 2 * rows * cols) for x, t in leaves.items()],
                      Buffer("out_ptr", out_t, total), {"n": n}, features)


def _dot(seed: int, name: str, r: random.Random, it: str, shape: tuple[int, int, int], nw: int, prec: str,
         use_acc: bool, out_t: str, depth: int) -> KernelSpec:
    """C = dot(prologue(A), B [, acc]) then an epilogue; f16/bf16 (default precision), f32 with
    ``prec`` (tf32/tf32x3/ieee), f64. One program."""
    m, n, k = shape
    features: list[str] = [f"num_warps={nw}", f"dot{m}x{n}x{k}:{it}"] + ([f"dot_prec={prec}"] if prec else [])
    p = f', input_precision="{prec}"' if prec else ""
    acc_t = "f64" if it == "f64" else "f32"
    params = ["a_ptr", "b_ptr"] + (["c_ptr"] if use_acc else []) + ["out_ptr"]
    lines = [f"def {name}({', '.join(params)}, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):",
             "    rm = tl.arange(0, M)",
             "    rn = tl.arange(0, N)",
             "    rk = tl.arange(0, K)",
             "    a = tl.load(a_ptr + rm[:, None] * K + rk[None, :])",
             "    b = tl.load(b_ptr + rk[:, None] * N + rn[None, :])"]
    if depth:
        pro = _Expr(r, {"a": it}, features).gen(it, r.randint(0, depth))
        lines.append(f"    a = ({pro}).to({TL[it]})")
    if use_acc:
        features.append("dot_acc")
        lines.append("    c = tl.load(c_ptr + rm[:, None] * N + rn[None, :])")
        lines.append(f"    d = tl.dot(a, b, c{p})")
    else:
        lines.append(f"    d = tl.dot(a, b{p}, out_dtype={TL[acc_t]})")
    epi = _Expr(r, {"d": acc_t}, features).gen(out_t, r.randint(0, depth)) if depth else "d"
    lines.append(f"    tl.store(out_ptr + rm[:, None] * N + rn[None, :], ({epi}).to({TL[out_t]}))")
    sig = {"a_ptr": SIG[it], "b_ptr": SIG[it]} | ({"c_ptr": SIG[acc_t]} if use_acc else {}) | {
        "out_ptr": SIG[out_t], "M": "constexpr", "N": "constexpr", "K": "constexpr"}
    inputs = [Buffer("a_ptr", it, m * k), Buffer("b_ptr", it, k * n)]
    if use_acc:
        inputs.append(Buffer("c_ptr", acc_t, m * n))
    return KernelSpec(seed, "dot", name, _HEADER + "\n".join(lines) + "\n", sig, {"M": m, "N": n, "K": k}, nw,
                      (1, 1, 1), inputs, Buffer("out_ptr", out_t, m * n), {}, features)


def single_op_matrix() -> list[KernelSpec]:
    """One minimal kernel per feature the random kernels use: every expression node × dtype, every
    reduction/scan × dtype × axis, every dot input type × precision × shape."""
    specs = []
    for kind in KINDS:
        for want in FLOATS:
            if kind in ("math", "pow") and want in ("f16", "bf16"):
                continue  # Triton runs them in f32: the f32 kernel is the minimal one
            vs = variants(kind, want)
            if kind == "where":  # the select itself is left alone: only the comparison's type matters
                vs = [v for v in vs if v[0] == want]
            specs += [single_op(kind, v, want) for v in vs]
    specs += [single_reduce(op, et, axis) for op in ("sum", "max", "min", "cumsum") for et in FLOATS
              for axis in (0, 1)]
    for it in ("f16", "bf16", "f32", "f64"):
        for prec in (("tf32", "tf32x3", "ieee") if it == "f32" else ("",)):
            specs += [single_dot(it, (16, 16, 16), nw, prec) for nw in (1, 4)]
            specs.append(single_dot(it, (64, 64, 32), 4, prec))
    specs.append(single_dot("f16", (64, 64, 64), 4, ""))  # issue 10's held-out wgmma check
    return specs


# Hand-written kernels for LLVM rewrites the random trees reach rarely (issue 10's letters):
# name -> (inputs, body, output dtype); elementwise like single_op.
IDIOMS: dict[str, tuple[dict[str, str], str, str]] = {
    "k_idiom_G_zero_times_neg_f32": ({"x0": "f32"}, "(0.0 * (-x0))", "f32"),
    "k_idiom_J_neg_then_narrow": ({"x0": "f32"}, "(-x0).to(tl.float16)", "f16"),
    "k_idiom_H_mul_f16_via_f32": ({"x0": "f16", "x1": "f16"}, "(x0.to(tl.float32) * x1.to(tl.float32))", "f16"),
    "k_idiom_H_add_bf16_via_f32": ({"x0": "bf16", "x1": "bf16"}, "(x0.to(tl.float32) + x1.to(tl.float32))", "bf16"),
    "k_idiom_H_cmp_f16_via_f32": ({"x0": "f16", "x1": "f16"},
                                  "tl.where(x0.to(tl.float32) < x1.to(tl.float32), x0, x1)", "f16"),
    "k_idiom_H_mul_f16_via_f64": ({"x0": "f16", "x1": "bf16"}, "(x0.to(tl.float64) * x1.to(tl.float64))", "f16"),
    "k_idiom_E_bf16_via_f64_to_i8": ({"x0": "bf16"}, "x0.to(tl.float64).to(tl.int8).to(tl.float32)", "f32"),
    "k_idiom_A_sin2_plus_cos2_f32": ({"x0": "f32"}, "tl.sin(x0) * tl.sin(x0) + tl.cos(x0) * tl.cos(x0)", "f32"),
}


def idiom_kernels() -> list[KernelSpec]:
    """The :data:`IDIOMS` kernels, and the cumsum whose select LLVM folds into an add of −0.0 (L)."""
    specs = [_elementwise(-1, name, random.Random(0), dict(leaves), body, out, 64, 1, True,
                          [f"idiom:{name.split('_')[2]}"])
             for name, (leaves, body, out) in IDIOMS.items()]
    specs.append(_reduce(-1, "k_idiom_L_cumsum_of_int", random.Random(0), {"x0": "f32"},
                         "x0.to(tl.int32).to(tl.float32)", "f32", "cumsum", 1, (1, 32), 1, False, "f32",
                         ["idiom:L"], 0))
    return specs
