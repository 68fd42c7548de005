"""A select of literals narrowed after it, with the narrowing folded into the constants (issue 10; custom kernels
probing held-out seed 49895, silent: ``tl.where(c, 1.0, 2.0)`` stored as bf16 is ``selp.b16 d, 0x3F80, 0x4000, p``).
The where of two Python floats is an f32 tensor (of one, the other arm's type), so Triton's FPSan narrows φ_f32(2.0)
in the ring, which is not φ_bf16(2.0); each such constant becomes the float of that ring narrowing, computed here
(docs/fpsan.md §2 narrowing cast; PTX ISA "Comparison and Selection Instructions: selp")."""

from __future__ import annotations

import numpy as np

from ptxkit import ir
from ptxkit.fpsan import ring as R
from ptxkit.fpsan.ctx import RewriteContext, float_to_bits, guard_text, hexc
from ptxkit.fpsan.fold_flow import Flow, FoldResult
from ptxkit.fpsan.report import NOTE, Verdict
from ptxkit.fpsan.source_ast import _DEPTH, _method_call, _number, _width

_NARROW = {16: ("f16", "bf16"), 32: ("f32",)}


def narrowed_select_constants(instr: ir.Instruction, flow: Flow) -> tuple[dict[int, int], str, str] | None:
    """({operand index: the ring constant's bits}, the narrow type, where) for ``selp.bN d, a, b, p`` with immediate
    arms at a ``tl.where`` of a wider dtype whose literal arms, narrowed natively, are those immediates; else None."""
    ops = instr.operands
    if instr.opcode != "selp" or len(ops) != 4 or instr.guard is not None:
        return None
    width = next((int(m[1:]) for m in instr.mods if m[1:].isdigit()), 0)
    imms = {i: _imm_bits(ops[i], width) for i in (1, 2) if _imm_bits(ops[i], width) is not None}
    found = flow.hints.nodes(instr) if imms and width in _NARROW else None
    if found is None:
        return None
    f, nodes = found
    got: set[tuple[tuple[tuple[int, int], ...], str, str]] = set()
    for n in nodes:
        if not _method_call(n, "where", 3):
            continue
        arms = n.args[1:]
        lits = [c for a in arms if (c := _number(a)) is not None]
        others = [a for a in arms if _number(a) is None]
        try:
            wide = 32 if not others else _width(f, others[0], _DEPTH)
        except (KeyError, IndexError, AttributeError, TypeError, ValueError, RecursionError):
            continue
        if wide not in (32, 64) or wide <= width:
            continue
        src = "f32" if wide == 32 else "f64"
        for t in _NARROW[width]:
            if all(any(float_to_bits(c, t) == b for c in lits) for b in imms.values()):
                new = {i: _ring_narrowed(next(c for c in lits if float_to_bits(c, t) == b), src, t)
                       for i, b in imms.items()}
                got.add((tuple(sorted(new.items())), t, f.where(n)))
    if len(got) != 1:
        return None
    pairs, t, where = got.pop()
    new = dict(pairs)
    return (new, t, where) if any(new[i] != imms[i] for i in imms) else None


def _imm_bits(o: ir.Operand, width: int) -> int | None:
    if isinstance(o, ir.FloatImm) and o.width == width:
        return o.bits
    return o.value % (1 << width) if isinstance(o, ir.Imm) and width in (16, 32) else None


def _ring_narrowed(c: float, src: str, t: str) -> int:
    """The float bits Triton's FPSan gives ``c`` of type ``src`` narrowed to ``t``: φ_t⁻¹ of the ring narrowing."""
    return int(R.float_cast(np.array([float_to_bits(c, src)], np.uint64), src, t)[0])


def rewrite_select_constants(instr: ir.Instruction, ctx: RewriteContext, new: dict[int, int], t: str,
                             where: str) -> FoldResult:
    """The select as written, its constant arms replaced by the ring narrowings' bits."""
    ops = instr.operands
    w = R.ring(t).w
    args = [hexc(new[i], w) if i in new else ctx.text(ops[i]) for i in (1, 2)]
    ctx.emit(f"{guard_text(instr.guard)}selp.b{w} {ctx.text(ops[0])}, {args[0]}, {args[1]}, {ctx.text(ops[3])}")
    return FoldResult(True, Verdict(f"select of constants narrowed to {t}: LLVM folds the narrowing into the literals "
                                    f"of the where at {where}, whose dtype is wider; sanitized with Triton's ring "
                                    "narrowings of them", NOTE, native=False), moves=True)
