"""Tensor-core expansions as helper functions: one ``.func`` per form, called at every site.

ptxas time grows faster than linearly with a function's size, and an inlined ring mma is a few hundred
instructions (φ of every operand element, the limb products, φ⁻¹ of every result): Triton's sm_80
attention kernel (128 mma.sync) took minutes of ptxas. As calls, the expansion is compiled once per
form and each site costs one ``call`` (PTX ISA §9.7.13 ``call``). ptxas accepts several results only
as ``.reg`` parameters, and those only with the ABI off; modules that need the ABI get ``.param``
helpers instead. The helper bodies come from the inline generators through a
:class:`ptxkit.fpsan.mma_plan.BlockEmitter` (their own φ code on block-scoped registers).

:func:`tile_call` emits one ``mma.m16n8kK`` tile in the integer-limb expansion (``mma_int``): the
``int8`` mode of ``mma.sync`` (``ptxkit.fpsan.wgmma`` builds its own helpers with :func:`helper`).
:func:`call` keeps the sanitizer's bookkeeping right: the call reads the float bits of A, B, C
(earlier φ⁻¹ tails stay) and writes D (its payload shadows are dropped).
"""

from __future__ import annotations

import functools
import re
from typing import Any

from ptxkit.fpsan.mma_int import generate_int
from ptxkit.fpsan.mma_plan import BlockEmitter, MmaForm, MmaPlan, Shape

# ptxas compiles a function with several .reg results only with the ABI off, which some features forbid
# ("'Indirect Functions or Extern Functions' requires ABI": tensormap.replace on sm_120a, extern or
# indirect calls): modules using them get the inline expansions.
_NEEDS_ABI = re.compile(r"^\s*(?:@!?%?\w+\s+)?tensormap\.|\.extern\s+\.func|\.callprototype|\.calltargets", re.M)


@functools.lru_cache(maxsize=4)
def calls_allowed(source: str) -> bool:
    """Whether helper functions with ``.reg`` parameters can be used in this module (see above). Asked
    once per function of a module: cached, and the line regex runs only when a keyword occurs at all
    (on the 12 MB CUB file it cost 0.2 s per function, 14 s in all)."""
    if not any(k in source for k in ("tensormap.", ".extern", ".callprototype", ".calltargets")):
        return True
    return _NEEDS_ABI.search(source) is None


def helper(ctx: Any, key: Any, kind: str, outs: int, params: list[str], body: Any) -> str:
    """The name of the helper ``key`` (defined on first use: ``body(em, outs, params)`` emits through a
    BlockEmitter; ``params`` are parameter declarations "type name"). Where the module allows it
    (``ctx.calls_ok``) the parameters are ``.reg`` (non-ABI); else ABI ``.param`` scalars in and one
    byte array out, copied to and from registers at both ends."""
    abi = not ctx.calls_ok
    key = (key, abi)
    if key not in ctx.helpers:
        name = ctx.fresh_label() + "_" + kind
        em = BlockEmitter("%w")
        o = [f"%o{j}" for j in range(outs)]
        regs = [p.split()[-1] for p in params]
        body(em, o, regs)
        inner = ["\t" + ln for ln in em.text()]
        if abi:
            decl = [f"\t.reg .{p.split()[0]} {r};" for p, r in zip(params, regs)] + [f"\t.reg .b32 %o<{outs}>;"]
            loads = [f"\tld.param.{p.split()[0]} {r}, [fps_p{j}];" for j, (p, r) in enumerate(zip(params, regs))]
            stores = [f"\tst.param.b32 [fps_ret+{4 * j}], {r};" for j, r in enumerate(o)]
            head = (f".func (.param .align 4 .b8 fps_ret[{4 * outs}]) {name} ("
                    + ", ".join(f".param .{p.split()[0]} fps_p{j}" for j, p in enumerate(params)) + ")")
            inner = decl + loads + inner + stores
        else:
            ins = ", ".join(".reg ." + p for p in params)
            head = f".func ({', '.join(f'.reg .b32 {r}' for r in o)}) {name} ({ins})"
        ctx.helpers[key] = (name, [head, "{", *inner, "\tret;", "}"], [p.split()[0] for p in params])
    return str(ctx.helpers[key][0])


def call(ctx: Any, name: str, outs: list[str], args: list[str], reads: list[str]) -> None:
    """``call.uni (outs), name, (args)`` with the sanitizer's bookkeeping (see the module docstring);
    for an ABI helper through ``.param`` variables in a block of their own."""
    for r in reads:
        ctx.read_bits(r)
    if ctx.calls_ok:
        ctx.emit(f"call.uni ({', '.join(outs)}), {name}, ({', '.join(args)})")
    else:
        types = next(h[2] for h in ctx.helpers.values() if h[0] == name)
        ctx.lines.append("{")
        for j, (t, a) in enumerate(zip(types, args)):
            ctx.emit(f".param .{t} fps_a{j}")
            if not a.startswith("%"):  # an immediate: st.param takes a register
                r = ctx.fresh(t)
                ctx.emit(f"mov.{t} {r}, {a}")
                a = r
            ctx.emit(f"st.param.{t} [fps_a{j}], {a}")
        ctx.emit(f".param .align 4 .b8 fps_rv[{4 * len(outs)}]")
        ctx.emit(f"call.uni (fps_rv), {name}, ({', '.join(f'fps_a{j}' for j in range(len(args)))})")
        for j, r in enumerate(outs):
            ctx.emit(f"ld.param.b32 {r}, [fps_rv+{4 * j}]")
        ctx.lines.append("}")
    for r in outs:
        ctx.invalidate(r)


def tile_call(ctx: Any, form: MmaForm, shape: Shape, acc16: bool, d: list[str], a: list[str], b: list[str],
              c: list[str]) -> None:
    """D = ring mma of one ``mma.sync`` tile through the helper of its form. Where C and D are ring
    resident f32 registers (``ptxkit.fpsan.resident``) the helper takes and returns their payloads."""
    resident = not acc16 and all(ctx.resident.get(r) == "f32" for r in (*c, *d))
    key = ("tile", form, acc16, len(a), len(b), resident)
    params = [f"b32 %i{j}" for j in range(len(c))] + [f"b32 %a{j}" for j in range(len(a))]
    params += [f"b32 %b{j}" for j in range(len(b))]
    et = "f32" if form.atype == "tf32" else form.atype

    def body(em: Any, o: list[str], p: list[str]) -> None:
        ins, fa, fb = p[:len(c)], p[len(c):len(c) + len(a)], p[len(c) + len(a):]
        embed = (lambda r: em.embed_word(r, et)) if shape.halves == 1 else (lambda r: em.embed_pair(r, et))
        em.payload_only = resident
        c_pays = [[r] for r in ins] if resident else None
        generate_int(MmaPlan(form, shape, acc16, o, [], [], ins), em, [embed(r) for r in fa], [embed(r) for r in fb],
                     c_pays)

    name = helper(ctx, key, "mma", len(d), params, body)
    if resident:
        ctx.pending += [(r, ("read", "f32")) for r in c] + [(r, ("def", "f32")) for r in d]
    call(ctx, name, d, [*c, *a, *b], [*a, *b] if resident else [*c, *a, *b])
