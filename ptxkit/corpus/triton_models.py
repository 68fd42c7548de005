"""Model kernels: the row-wise and matmul-epilogue kernels users write (softmax, layernorm, GELU, clamps, atan2, …),
in f16/bf16/f32 (some f64), checked like the random ones against Triton's own FPSan build (issue 10). The random
generator (:mod:`ptxkit.corpus.triton_kernels`) compares expressions with expressions and calls no two-argument
libdevice function but pow; these compare with bare literals, clamp by nested wheres and call ``libdevice.atan2`` —
the shapes that were silent at first contact (softplus's ``x.to(f32) > 20.0`` of a half, a nested-where threshold,
atan2's argument order, ``tl.clamp(x, -c, c)``, ``x % 7.0``, ``libdevice.log10``, ``xf > 0`` of ``xf = x.to(f32)``)."""

from __future__ import annotations

from ptxkit.corpus.triton_kernels import _HEADER, SIG, TL, Buffer, KernelSpec

_ROWS = ("    rows = tl.arange(0, R)", "    cols = tl.arange(0, C)",
         "    offs = tl.program_id(0) * R * C + rows[:, None] * C + cols[None, :]",
         "    mask = (cols[None, :] < n) & (rows[:, None] < R)")

# name: (inputs {name: dtype} with "T" the kernel's dtype, body computing y, "tile" | "row" output)
ROW_KERNELS: dict[str, tuple[dict[str, str], str, str]] = {
    "softmax": ({"x": "T"}, """xf = tl.where(mask, x.to(tl.float32), float("-inf"))
m = tl.max(xf, axis=1)
e = tl.exp(xf - m[:, None])
y = e / tl.sum(e, axis=1)[:, None]""", "tile"),
    "logsoftmax": ({"x": "T"}, """xf = tl.where(mask, x.to(tl.float32), float("-inf"))
m = tl.max(xf, axis=1)
z = xf - m[:, None]
y = z - tl.log(tl.sum(tl.where(mask, tl.exp(z), 0.0), axis=1))[:, None]""", "tile"),
    "layernorm": ({"x": "T", "w": "T", "b": "T"}, """xf = x.to(tl.float32)
mean = tl.sum(xf, axis=1) / C
d = tl.where(mask, xf - mean[:, None], 0.0)
rstd = 1.0 / tl.sqrt(tl.sum(d * d, axis=1) / C + 1e-5)
y = d * rstd[:, None] * w.to(tl.float32) + b.to(tl.float32)""", "tile"),
    "rmsnorm": ({"x": "T", "w": "T"}, """xf = x.to(tl.float32)
y = xf * tl.rsqrt(tl.sum(xf * xf, axis=1) / C + 1e-6)[:, None] * w.to(tl.float32)""", "tile"),
    "gelu_erf": ({"x": "T"}, """xf = x.to(tl.float32)
y = 0.5 * xf * (1.0 + tl.erf(xf * 0.7071067811865476))""", "tile"),
    "gelu_tanh": ({"x": "T"}, """xf = x.to(tl.float32)
y = 0.5 * xf * (1.0 + libdevice.tanh(0.7978845608028654 * (xf + 0.044715 * xf * xf * xf)))""", "tile"),
    "silu_mul": ({"x": "T", "g": "T"}, """xf = x.to(tl.float32)
y = xf / (1.0 + tl.exp(-xf)) * g.to(tl.float32)""", "tile"),
    "sigmoid": ({"x": "T"}, "y = tl.sigmoid(x.to(tl.float32))", "tile"),
    "leaky_relu": ({"x": "T"}, "y = tl.where(x > 0, x, x * 0.01)", "tile"),
    "l2norm": ({"x": "T"}, """xf = x.to(tl.float32)
y = xf / tl.maximum(tl.sqrt(tl.sum(xf * xf, axis=1)), 1e-12)[:, None]""", "tile"),
    "cross_entropy": ({"x": "T", "lab": "T"}, """xf = tl.where(mask, x.to(tl.float32), float("-inf"))
m = tl.max(xf, axis=1)
lse = m + tl.log(tl.sum(tl.where(mask, tl.exp(xf - m[:, None]), 0.0), axis=1))
y = lse - tl.sum(tl.where(mask, xf * lab.to(tl.float32), 0.0), axis=1)""", "row"),
    "softplus": ({"x": "T"}, """xf = x.to(tl.float32)
y = tl.where(xf > 20.0, xf, tl.log(1.0 + tl.exp(xf)))""", "tile"),
    "adam": ({"p": "T", "g": "T", "m": "T", "v": "T"}, """gf = g.to(tl.float32)
m1 = 0.9 * m.to(tl.float32) + 0.1 * gf
v1 = 0.999 * v.to(tl.float32) + 0.001 * gf * gf
y = p.to(tl.float32) - 0.001 * (m1 / 0.1) / (tl.sqrt(v1 / 0.001) + 1e-8)""", "tile"),
    "cumsum_norm": ({"x": "T"}, """c = tl.cumsum(x.to(tl.float32), axis=1)
y = c / tl.sum(x.to(tl.float32), axis=1)[:, None]""", "tile"),
    "hardswish": ({"x": "T"}, """xf = x.to(tl.float32)
y = xf * tl.minimum(tl.maximum(xf + 3.0, 0.0), 6.0) / 6.0""", "tile"),
    "elu": ({"x": "T"}, """xf = x.to(tl.float32)
y = tl.where(xf > 0.0, xf, 1.5 * (tl.exp(xf) - 1.0))""", "tile"),
    "mish": ({"x": "T"}, """xf = x.to(tl.float32)
y = xf * libdevice.tanh(tl.where(xf > 20.0, xf, tl.log(1.0 + tl.exp(xf))))""", "tile"),
    "dropout": ({"x": "T", "r": "f32"}, "y = tl.where(r > 0.1, x.to(tl.float32) / 0.9, 0.0)", "tile"),
    "cos_sim": ({"a": "T", "b": "T"}, """af = a.to(tl.float32)
bf = b.to(tl.float32)
y = tl.sum(af * bf, axis=1) / (tl.sqrt(tl.sum(af * af, axis=1)) * tl.sqrt(tl.sum(bf * bf, axis=1)) + 1e-8)""", "row"),
    "rope": ({"x": "T", "z": "T", "th": "f32"}, "y = x.to(tl.float32) * tl.cos(th) - z.to(tl.float32) * tl.sin(th)",
             "tile"),
    "exp2softmax": ({"x": "T"}, """s = tl.where(mask, x.to(tl.float32) * 0.125, float("-inf"))
p = tl.exp2((s - tl.max(s, axis=1)[:, None]) * 1.4426950408889634)
y = p / tl.sum(p, axis=1)[:, None]""", "tile"),
    "hypot": ({"a": "T", "b": "T"}, "y = tl.sqrt(a.to(tl.float32) * a.to(tl.float32) + b.to(tl.float32) * "
              "b.to(tl.float32))", "tile"),
    "cmp_half_native": ({"a": "T"}, "y = tl.where(a > 0.75, a * 2.0, a - 0.5)", "tile"),
    "residual_ln": ({"x": "T", "r": "T"}, """h = x.to(tl.float32) + r.to(tl.float32)
d = tl.where(mask, h - (tl.sum(h, axis=1) / C)[:, None], 0.0)
y = d * tl.rsqrt(tl.sum(d * d, axis=1) / C + 1e-5)[:, None]""", "tile"),
    "atan2": ({"a": "T", "b": "T"}, "y = libdevice.atan2(a.to(tl.float32), b.to(tl.float32))", "tile"),
    "variance": ({"x": "T"}, """xf = x.to(tl.float32)
mean = tl.sum(xf, axis=1) / C
y = tl.sum(tl.where(mask, (xf - mean[:, None]) * (xf - mean[:, None]), 0.0), axis=1) / (C - 1)""", "row"),
    "minmax_norm": ({"x": "T"}, """xf = tl.where(mask, x.to(tl.float32), 0.0)
lo = tl.min(xf, axis=1)
y = (xf - lo[:, None]) / (tl.max(xf, axis=1) - lo + 1e-6)[:, None]""", "tile"),
    "threshold": ({"x": "T"}, "y = tl.where(x.to(tl.float32) < -0.5, -0.5, tl.where(x.to(tl.float32) > 0.5, 0.5, "
                  "x.to(tl.float32)))", "tile"),
    "clamp": ({"x": "T"}, "y = tl.minimum(tl.maximum(x.to(tl.float32), -1.5), 2.5)", "tile"),
    "clamp_native": ({"x": "T"}, "y = tl.minimum(tl.maximum(x, -1.5), 2.5)", "tile"),
    "quantize_int8": ({"x": "T"}, "y = (x.to(tl.float32) * 127.0).to(tl.int8).to(tl.float32) / 127.0", "tile"),
    "absdiff": ({"a": "T", "b": "T"}, """d = tl.abs(a - b)
y = tl.where(d > 0.25, d, 0.0)""", "tile"),
    "row_absmax": ({"x": "T"}, "y = tl.max(tl.abs(x), axis=1)", "row"),
    "pow_cube": ({"x": "T"}, """xf = x.to(tl.float32)
y = libdevice.pow(xf, 2.0) + xf * xf * xf""", "tile"),
    "expm1_log1p": ({"x": "T"}, """xf = x.to(tl.float32)
y = libdevice.expm1(xf) + libdevice.log1p(tl.abs(xf))""", "tile"),
    "clamp_symmetric": ({"x": "T"}, "y = tl.clamp(x, -0.5, 0.5)", "tile"),
    "mod_literal": ({"x": "T"}, "y = (x.to(tl.float32) * 100.0).to(tl.int32).to(tl.float32) % 7.0", "tile"),
    "log10": ({"x": "T"}, "y = libdevice.log10(tl.abs(x.to(tl.float32)) + 1.0)", "tile"),
    "signed_sqrt_of_f64": ({"x": "f64"}, """xf = x.to(tl.float32)
y = tl.where(xf > 0, tl.sqrt(xf), -tl.sqrt(-xf))""", "tile"),
}

# name: (body on the f32 accumulator ``acc`` and a row ``bias`` of the input type, giving y)
DOT_EPILOGUES: dict[str, str] = {
    "mm_bias_gelu": """h = acc + bias[None, :].to(tl.float32)
y = 0.5 * h * (1.0 + tl.erf(h * 0.7071067811865476))""",
    "attn_scores": """s = acc * 0.125
p = tl.exp(s - tl.max(s, axis=1)[:, None])
y = p / tl.sum(p, axis=1)[:, None]""",
    "mm_relu": "y = tl.maximum(acc + bias[None, :].to(tl.float32), 0.0)",
}

DTYPES = ("f16", "bf16", "f32")
# the row kernels Triton 3.9 compiles in f64 too (tl.clamp of f64: "could not find LLVM intrinsic
# llvm.nvvm.fmin.xorsign.abs")
F64_ROWS = tuple(n for n in ROW_KERNELS if n != "clamp_symmetric")


def row_kernel(name: str, dtype: str, num_warps: int = 4, rows: int = 4, cols: int = 64,
               spelled: bool = False) -> KernelSpec:
    """The row kernel ``name`` in ``dtype``: a [rows, cols] tile per program (two programs), the last 4 columns
    masked. ``spelled``: its casts written with dtype expressions, as library code does (``.to(ACC)`` of a module
    constant ``ACC: tl.constexpr = tl.float32``, the store's ``.to(out_ptr.dtype.element_ty)``)."""
    ins, body, out = ROW_KERNELS[name]
    leaves = {x: dtype if t == "T" else t for x, t in ins.items()}
    fn = f"k_{name}_{dtype}_w{num_warps}{'_dt' if spelled else ''}"
    lines = [f"def {fn}({', '.join([f'{x}_ptr' for x in leaves] + ['out_ptr', 'n'])}, R: tl.constexpr, "
             "C: tl.constexpr):", *_ROWS]
    lines += [f"    {x} = tl.load({x}_ptr + offs, mask=mask, other=0.0)" for x in leaves]
    lines += ["    " + ln for ln in body.splitlines()]
    if out == "tile":
        lines.append(f"    tl.store(out_ptr + offs, y.to({TL[dtype]}), mask=mask)")
    else:
        lines.append(f"    tl.store(out_ptr + tl.program_id(0) * R + rows, y.to({TL[dtype]}))")
    sig = {f"{x}_ptr": SIG[t] for x, t in leaves.items()} | {"out_ptr": SIG[dtype], "n": "i32", "R": "constexpr",
                                                             "C": "constexpr"}
    source = _HEADER + "\n".join(lines) + "\n"
    if spelled:
        source = source.replace(f"y.to({TL[dtype]})", "y.to(out_ptr.dtype.element_ty)").replace("tl.float32", "ACC")
        source = source.replace("\n\n\n@triton.jit", "\nACC: tl.constexpr = tl.float32\n\n\n@triton.jit", 1)
    return KernelSpec(-1, "reduce", fn, source, sig, {"R": rows, "C": cols}, num_warps,
                      (2, 1, 1), [Buffer(f"{x}_ptr", t, 2 * rows * cols) for x, t in leaves.items()],
                      Buffer("out_ptr", dtype, 2 * rows * cols if out == "tile" else 2 * rows), {"n": cols - 4},
                      [f"model:{name}", f"num_warps={num_warps}", "mask"])


def dot_kernel(name: str, dtype: str, num_warps: int = 4, size: int = 32) -> KernelSpec:
    """``acc = tl.dot(a, b)`` of ``dtype`` [size, size] tiles (f32: tf32), then the epilogue ``name``."""
    fn = f"k_{name}_{dtype}_w{num_warps}"
    lines = [f"def {fn}(a_ptr, b_ptr, bias_ptr, out_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):",
             "    rm = tl.arange(0, M)", "    rn = tl.arange(0, N)", "    rk = tl.arange(0, K)",
             "    a = tl.load(a_ptr + rm[:, None] * K + rk[None, :])",
             "    b = tl.load(b_ptr + rk[:, None] * N + rn[None, :])",
             "    bias = tl.load(bias_ptr + rn)", "    acc = tl.dot(a, b)"]
    lines += ["    " + ln for ln in DOT_EPILOGUES[name].splitlines()]
    lines.append(f"    tl.store(out_ptr + rm[:, None] * N + rn[None, :], y.to({TL[dtype]}))")
    sig = {"a_ptr": SIG[dtype], "b_ptr": SIG[dtype], "bias_ptr": SIG[dtype], "out_ptr": SIG[dtype],
           "M": "constexpr", "N": "constexpr", "K": "constexpr"}
    return KernelSpec(-1, "dot", fn, _HEADER + "\n".join(lines) + "\n", sig, {"M": size, "N": size, "K": size},
                      num_warps, (1, 1, 1), [Buffer("a_ptr", dtype, size * size), Buffer("b_ptr", dtype, size * size),
                                             Buffer("bias_ptr", dtype, size)],
                      Buffer("out_ptr", dtype, size * size), {}, [f"model:{name}", f"num_warps={num_warps}"])


def model_kernels(num_warps: tuple[int, ...] = (4, 1)) -> list[KernelSpec]:
    """Every row kernel in f16/bf16/f32 (and f64 with num_warps 4), every dot epilogue in f16/bf16 (and tf32 for
    mm_relu), per num_warps; with num_warps 4, every row kernel spelled with dtype expressions in f16 or bf16."""
    out = [row_kernel(n, t, w) for w in num_warps for n in ROW_KERNELS for t in DTYPES]
    out += [row_kernel(n, "f64", 4) for n in F64_ROWS if 4 in num_warps]
    out += [row_kernel(n, DTYPES[i % 2], 4, spelled=True) for i, n in enumerate(ROW_KERNELS) if 4 in num_warps]
    out += [dot_kernel(n, t, w) for w in num_warps for n in DOT_EPILOGUES for t in ("f16", "bf16")]
    return out + [dot_kernel("mm_relu", "f32", w) for w in num_warps]
