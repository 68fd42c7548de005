"""Random *statement-level* Triton kernels (issue 10): what users write beside expressions — names bound to literals
and to literal arithmetic, ``x op= E``, ``tl.constexpr`` names and parameters, fp32 scalar parameters, helpers (with
a constexpr parameter or without), ``tl.static_range`` loops, ``if`` on a constexpr flag, casts between f16, bf16,
f32 and f64 anywhere, ``tl.where``, math calls, ``tl.math.F`` spellings. LLVM rewrites across statements (a name's
value folded into a constant, a helper's negation moved into the caller's add, a narrowing's |x| dropped) in ways the
expression generator (:mod:`ptxkit.corpus.triton_kernels`) never writes; in the first 1,000 of these, 26 were
silent mismatches at first contact.

    python -m ptxkit.corpus.triton_gen --statements --n 200 --seed 0

Some programs are no valid Triton (a math call of a half, an attribute of a Python float): Triton refuses them
(``compile_error``), which the sweep counts apart."""

from __future__ import annotations

import random
import struct
from typing import cast

from ptxkit.corpus.triton_kernels import _HEADER, SIG, TL, Buffer, KernelSpec

FLOATS = ("f16", "bf16", "f32", "f64")
LITS = ("0.5", "2.0", "3.0", "1.0", "-1.0", "0.25", "1.5", "0.1", "1e-6", "0.044715", "0.7978845608", "10.0", "-0.5",
        "4.0")
UNARY = ("tl.exp({})", "tl.log(tl.abs({}) + 1.0)", "tl.sqrt(tl.abs({}))", "tl.sin({})", "tl.cos({})",
         "tl.sigmoid({}.to(tl.float32))", "tl.abs({})", "-{}", "tl.math.rsqrt(tl.abs({}.to(tl.float32)) + 1.0)",
         "tl.exp2({})", "tl.log2(tl.abs({}) + 2.0)", "tl.erf({})", "tl.floor({})", "tl.ceil({})", "({} * {})",
         "tl.math.exp({})")
BINARY = ("({} + {})", "({} - {})", "({} * {})", "({} / {})", "tl.maximum({}, {})", "tl.minimum({}, {})",
          "tl.where({} > {}, {}, {})", "tl.fdiv({}.to(tl.float32), {})",
          "tl.math.div_rn({}.to(tl.float32), {}.to(tl.float32))", "tl.math.fma({}, {}, {})", "tl.where({} < 0, {}, {})")
SCALES = (0.5, 1.5, 2.0, -0.25, 3.0)


class _Program:
    """One kernel body: statements over the loaded leaves, names and parameters."""

    def __init__(self, seed: int) -> None:
        self.r = random.Random(seed)
        self.names: list[str] = []
        self.half = False

    def atom(self, env: list[str], lit_ok: bool = True) -> str:
        c = self.r.random()
        if c < 0.2 and lit_ok:
            return self.r.choice(LITS)
        if c < 0.3 and self.names:
            return self.r.choice(self.names)
        return self.r.choice(env)

    def expr(self, env: list[str], depth: int, lit_ok: bool = True) -> str:
        r = self.r
        if depth <= 0 or r.random() < 0.25:
            a = self.atom(env, lit_ok)
            return f"{a}.to({TL[r.choice(FLOATS)]})" if r.random() < 0.15 and a in env else a
        if r.random() < 0.35:
            u = r.choice(UNARY)
            a = self.expr(env, depth - 1, False)
            if u.startswith("tl.") and not u.startswith("tl.abs") and (self.half or r.random() < 0.3):
                a = f"({a}).to({r.choice(['tl.float32', 'tl.float32', 'tl.float64'])})"  # (math of f32/f64 only)
            return u.format(*[a] * u.count("{}"))
        b = r.choice(BINARY)
        e = b.format(*[self.expr(env, depth - 1, i > 0 or b.startswith("(")) for i in range(b.count("{}"))])
        return f"{e}.to({TL[r.choice(FLOATS)]})" if r.random() < 0.12 and any(v in e for v in env) else e

    def build(self) -> tuple[dict[str, str], str, str, list[tuple[str, str, float, bool]], str, tuple[int, int]]:
        """(leaves, body, output dtype, parameters (name, type, value, constexpr), helpers, (BLOCK, num_warps))."""
        r = self.r
        t = r.choice(("f16", "bf16", "f32", "f32", "f64"))
        leaves = {f"x{i}": (t if r.random() < 0.75 else r.choice(FLOATS)) for i in range(r.choice((1, 2, 2, 3)))}
        env = list(leaves)
        self.half = any(v in ("f16", "bf16") for v in leaves.values())
        lines: list[str] = []
        params: list[tuple[str, str, float, bool]] = []
        pre, helper = "", ""
        if r.random() < 0.4:
            hb = self.expr(["a", "b"], 2)
            if r.random() < 0.5:
                pre, helper = f"@triton.jit\ndef _h(a, b):\n    return {hb}\n\n\n", "2"
            else:
                pre, helper = f"@triton.jit\ndef _h(a, b, C: tl.constexpr):\n    return {hb} * C\n\n\n", "3"
        if r.random() < 0.3:
            params.append(("S", "fp32", r.choice(SCALES), r.random() < 0.5))
            env.append("S")
        if r.random() < 0.25:
            params.append(("FLAG", "i1", r.choice((True, False)), True))
        nv = 0
        for _ in range(r.randint(2, 5)):
            c = r.random()
            if c < 0.15:
                nm = f"c{len(self.names)}"
                if r.random() < 0.4:
                    lines.append(f"{nm}: tl.constexpr = {r.choice(LITS)}")
                else:
                    lines.append(f"{nm} = {r.choice(LITS)}")
                    if r.random() < 0.3:
                        lines.append(f"{nm} {r.choice(['*', '+', '-'])}= {r.choice(LITS)}")
                self.names.append(nm)
            elif c < 0.3 and nv:
                lines.append(f"v{r.randrange(nv)} {r.choice(['+', '-', '*'])}= {self.expr(env, 2)}")
            elif c < 0.4 and nv:
                v = f"v{r.randrange(nv)}"
                lines += [f"for _i in tl.static_range({r.randint(2, 3)}):",
                          f"    {v} = {v} * {r.choice(LITS)} + {self.atom(env)}"]
            elif c < 0.48 and nv and any(p[0] == "FLAG" for p in params):
                v = f"v{r.randrange(nv)}"
                lines += ["if FLAG:", f"    {v} = {self.expr([*env, v], 2)}"]
            elif c < 0.58 and helper:
                a, b = self.expr(env, 1), self.expr(env, 1)
                lines.append(f"v{nv} = _h({a}, {b})" if helper == "2" else f"v{nv} = _h({a}, {b}, {r.choice(LITS)})")
                env.append(f"v{nv}")
                nv += 1
            else:
                e = self.expr(env, r.randint(1, 3))
                if r.random() < 0.15 and any(v in e for v in env):
                    e = f"{e}.to({TL[r.choice(FLOATS)]})"
                lines.append(f"v{nv} = {e}")
                env.append(f"v{nv}")
                nv += 1
        if nv == 0:
            lines.append(f"v0 = {self.expr(env, 2)}")
            nv = 1
        made = [f"v{i}" for i in range(nv)]
        lines.append(f"y = {' + '.join(r.sample(made, min(len(made), r.randint(1, 2))))}")
        return leaves, "\n".join(lines), r.choice((t, t, "f32")), params, pre, r.choice(((256, 1), (256, 1), (1024, 4)))


def generate_statements(seed: int) -> KernelSpec:
    """The statement-level kernel of ``seed`` (deterministic): 1-D, BLOCK 256 on one warp or 1024 on four."""
    leaves, body, out_t, params, pre, (block, nw) = _Program(seed).build()
    name = f"k_st{seed}"
    args = [f"{x}_ptr" for x in leaves] + ["out_ptr", "n"] + [p[0] + (": tl.constexpr" if p[3] else "")
                                                              for p in params]
    lines = [f"def {name}({', '.join(args)}, BLOCK: tl.constexpr):",
             "    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)", "    mask = offs < n"]
    lines += [f"    {x} = tl.load({x}_ptr + offs, mask=mask, other=0.0)" for x in leaves]
    lines += ["    " + ln for ln in body.splitlines()]
    lines.append(f"    tl.store(out_ptr + offs, y.to({TL[out_t]}), mask=mask)")
    head = _HEADER.rsplit("@triton.jit", 1)[0] + pre + "@triton.jit\n"
    sig = {f"{x}_ptr": SIG[t] for x, t in leaves.items()} | {"out_ptr": SIG[out_t], "n": "i32"}
    sig |= {p[0]: ("constexpr" if p[3] else p[1]) for p in params}
    sig["BLOCK"] = "constexpr"
    n = 200 if block == 256 else 1000
    scalars: dict[str, int] = {"n": n} | {p[0]: struct.unpack("<I", struct.pack("<f", float(p[2])))[0]
                                          for p in params if not p[3]}
    consts = cast(dict[str, int], {"BLOCK": block} | {p[0]: p[2] for p in params if p[3]})  # (a float, a bool too)
    return KernelSpec(seed, "statements", name, head + "\n".join(lines) + "\n", sig, consts, nw, (2, 1, 1),
                      [Buffer(f"{x}_ptr", t, 2 * block) for x, t in leaves.items()],
                      Buffer("out_ptr", out_t, 2 * block), scalars, ["statements"])
