"""The negation of an integer's wide float conversion, narrowed to a half (issue 10 J; docs/fpsan.md §3 "Folds").

``(-(i.to(f64))).to(f16)`` (also ``i.to(f64) * -1.0``): LLVM folds the ``sitofp``/``fptrunc`` pair into one
``cvt.rn.f16.s32`` and moves the ``fneg`` past it, a sign ``xor.b16`` of the half. Triton's FPSan converts i to
f64 natively (it leaves ``sitofp`` alone), negates the payload in the f64 ring and narrows it by the ring's
narrowing, which does not commute with the negation (held-out seeds 172436, 182222, 180098, 172066: reported as
an undecided int → half conversion and a negation narrowed). The xor is sanitized as that chain, from the
cvt's integer; the cvt, which only such xors read, stays native. A narrowing of the integer's conversion
(``i.to(f64).to(f32)``) is folded by Triton into the conversion itself (int-wide, held-out seed 181208).
"""

from __future__ import annotations

import ast
import itertools

from ptxkit import ir
from ptxkit.fpsan import ring as R
from ptxkit.fpsan.casts import _cast_payload as cast_payload
from ptxkit.fpsan.ctx import BITS_KIND, RewriteContext
from ptxkit.fpsan.fold_flow import Flow, FoldResult
from ptxkit.fpsan.irview import name_of
from ptxkit.fpsan.ops import sign_xor_lanes
from ptxkit.fpsan.report import NOTE, Verdict
from ptxkit.fpsan.source_ast import (
    _DEPTH,
    _DTYPE_WIDTH,
    _INT_DTYPES,
    _PTX_DTYPE,
    Decision,
    SourceFile,
    _cast_to,
    _negated,
    _receiver,
    _resolve,
    _to_dtype,
    _without_double_negation,
)

_HALVES = ("f16", "bf16")
_INTS = ("s8", "u8", "s16", "u16", "s32", "u32", "s64", "u64")


def _int_to_half(d: ir.Instruction | None) -> tuple[str, str] | None:
    """(half type, integer type) of an unguarded ``cvt.rn.{f16,bf16}.{s,u}N d, i`` of a register."""
    if d is None or d.opcode != "cvt" or d.guard is not None or len(d.operands) != 2 \
            or not isinstance(d.operands[1], ir.Reg):
        return None
    types = [m for m in d.mods if m in _HALVES or m in _INTS]
    return (types[0], types[1]) if len(types) == 2 and types[0] in _HALVES and types[1] in _INTS else None


def _wide_type(f: SourceFile, n: ast.expr, half: str) -> str | None:
    """The PTX type W where ``n`` (a store's value, or a ``.to(half)`` call) narrows ``-(i.to(W))`` to ``half``
    (narrowings of the conversion folded into it, as Triton does); None for any other shape."""
    if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "store" and len(n.args) >= 2:
        v = _resolve(f, n.args[1], _DEPTH)
    else:
        v = n
    want = _PTX_DTYPE[half]
    if v is None or _cast_to(v) != want:
        return None
    while v is not None and _cast_to(v) == want:
        v = _resolve(f, _receiver(v), _DEPTH)
    inner = _negated(_without_double_negation(f, v))
    r = _resolve(f, inner, _DEPTH) if inner is not None else None
    casts: list[str] = []
    while r is not None and (t := _cast_to(r)) is not None and len(casts) < _DEPTH:
        casts.append(t)
        r = _resolve(f, _receiver(r), _DEPTH)
    if not casts or _to_dtype(r) not in _INT_DTYPES:
        return None
    casts.reverse()  # innermost (the integer's conversion) first
    if any(_DTYPE_WIDTH[b] > _DTYPE_WIDTH[a] for a, b in itertools.pairwise(casts)):
        return None  # a widening of the converted value: another ring step, not modelled here
    w = _DTYPE_WIDTH[casts[-1]]
    return {32: "f32", 64: "f64"}.get(w)


def decided(xor: ir.Instruction, flow: Flow) -> tuple[ir.Instruction, str, Decision] | None:
    """(the int → half cvt, W, the source's decision) where the sign ``xor.b16`` negates such a cvt's result and
    the source at its location narrows ``-(i.to(W))``."""
    src = next((o for o in xor.operands[1:] if isinstance(o, ir.Reg)), None)
    cvt = flow.only_def(src.name) if src is not None else None
    types = _int_to_half(cvt)
    if types is None or cvt is None or xor.guard is not None or sign_xor_lanes(xor) != (16, 16):
        return None
    i = cvt.operands[1]
    if not isinstance(i, ir.Reg) or len(flow.defs.get(i.name, [])) != 1:
        return None
    got = flow.hints.decide(xor, lambda f, n: (w, n) if (w := _wide_type(f, n, types[0])) else None)
    return (cvt, got.form, got) if got is not None else None


def negated_int_widening(xor: ir.Instruction, ctx: RewriteContext, flow: Flow) -> FoldResult | None:
    """The xor as Triton's chain (module docstring): ``cvt.rn.W.sN`` of the integer, φ, the W ring's negation, the
    ring narrowing to the half; None where the source does not say so."""
    found = decided(xor, flow)
    if found is None:
        return None
    cvt, wide, decision = found
    half, st = _int_to_half(cvt) or ("", "")
    w = R.ring(wide).w
    t = ctx.fresh(BITS_KIND[w])
    ctx.emit(f"cvt.rn.{wide}.{st} {t}, {name_of(cvt.operands[1])}")
    q = ctx.embed_value(t, wide)
    neg = ctx.fresh(BITS_KIND[w])
    ctx.emit(f"neg.s{w} {neg}, {q}")
    ctx.define(xor.operands[0], cast_payload(ctx, neg, wide, half), half, None)
    return FoldResult(True, Verdict(f"sign-bit xor of an integer's conversion to {half}, where the source at "
                                    f"{decision.where} negates the integer's {wide} conversion and narrows it: LLVM "
                                    f"folds the conversions into one cvt and negates the half; sanitized as Triton's "
                                    f"native conversion to {wide}, its ring negation and ring narrowing", NOTE,
                                    native=False))


def read_only_negated(cvt: ir.Instruction, flow: Flow) -> Verdict | None:
    """A note for an int → half cvt that only sign xors sanitized by :func:`negated_int_widening` read (its own
    value is none of Triton's, but nothing else reads it)."""
    dst = cvt.operands[0] if cvt.operands else None
    readers = flow.uses.get(dst.name, []) if isinstance(dst, ir.Reg) and _int_to_half(cvt) else []
    if not readers or not all(u.opcode == "xor" and (got := decided(u, flow)) is not None and got[0] is cvt
                              for u in readers):
        return None
    return Verdict("integer → half conversion that only negations read which the source computes wider (each "
                   "sanitized as Triton's chain from the integer); left native", NOTE)
