"""``fma d, a, b, c`` beside ``mul t, a, b``: LLVM's contraction of ``t + c`` that keeps the product for its other
readers (issue 10; held-out seed 44869, silent at first contact: ``tl.sum(e)`` of ``e = (x.to(f32) * x.to(f32))
.to(f16)``, the reduction's first add contracted with e's ``mul.f16`` while e itself goes to a shuffle). In the ring a
plain product and sum give the fma's φ(a)·φ(b) + φ(c), but e is Triton's product at f32 narrowed (fold H), which the
16-bit ring fma is not: the fma is the sum ``t + c`` of the product's own value, rewritten through the folds a written
``add`` takes (PTX ISA §9.7.4.6 fma, §9.7.4.1 add)."""

from __future__ import annotations

from ptxkit import ir
from ptxkit.fpsan.ctx import RewriteContext
from ptxkit.fpsan.fold_flow import Flow, FoldResult
from ptxkit.fpsan.fold_fma_product import Fold, rewrite_as
from ptxkit.fpsan.options import Options
from ptxkit.fpsan.report import NOTE, Verdict


def shared_product(instr: ir.Instruction, flow: Flow) -> ir.Reg | None:
    """t of an unguarded ``mul t, a, b`` (either order, the fma's type) written once, on the straight way to the
    unguarded, unsaturated ``fma d, a, b, c``, with a and b the same values at the fma; else None."""
    ops = instr.operands
    a = ops[1] if len(ops) == 4 else None
    if (instr.opcode not in ("fma", "mad") or not isinstance(a, ir.Reg) or instr.guard is not None
            or "sat" in instr.mods or not isinstance(ops[2], ir.Reg)):
        return None
    ft = instr.mods[-1]
    for m in flow.uses.get(a.name, []):
        t = m.operands[0]
        if (m.opcode == "mul" and m.guard is None and m.mods[-1:] == (ft,) and len(m.operands) == 3
                and not (m.span is not None and m.span.line in flow.native)  # (a recognised body's own x², native:
                # held-out seed 57837, tanhf's beside the user's tl.fma(x, x, x) — silent at first contact)
                and {m.operands[1], m.operands[2]} == {ops[1], ops[2]} and isinstance(t, ir.Reg)
                and flow.only_def(t.name) is m and _straight(flow, m, instr)
                and all(flow.same_value(r.name, m, instr) for r in ops[1:3] if isinstance(r, ir.Reg))):
            return t
    return None


def _straight(flow: Flow, first: ir.Instruction, last: ir.Instruction) -> bool:
    """``first`` runs before ``last`` on the way to it: no branch between them, nor a label between that a branch
    targets (the ``$L__tmp`` labels of debugging information are none)."""
    a, b = flow.pos[id(first)], flow.pos[id(last)]
    targets = {flow.label_pos[o.name] for s in flow.order if s.opcode in ("bra", "brx")
               for o in s.operands if isinstance(o, (ir.Sym, ir.Reg)) and o.name in flow.label_pos}
    return a < b and not any(a < p <= b for p in targets) and not any(
        s.opcode in ("bra", "brx", "ret", "exit") for s in flow.order[a + 1:b])


def as_sum(instr: ir.Instruction, t: ir.Reg, ctx: RewriteContext, opts: Options, flow: Flow, fold: Fold) -> FoldResult:
    """``instr`` rewritten as ``add d, t, c`` (:func:`~ptxkit.fpsan.fold_fma_product.rewrite_as`), or ``sub d, t, x``
    where c is ``neg c, x``."""
    note = Verdict(f"{instr.opcode}.{instr.mods[-1]} d, a, b, c beside mul t, a, b: LLVM's contraction of t + c; "
                   "sanitized as the sum of the product's own value, as Triton's FPSan computes it", NOTE,
                   native=False)
    mods = tuple(m for m in instr.mods if m != "ftz")
    c = instr.operands[3]
    neg = flow.only_def(c.name) if isinstance(c, ir.Reg) else None
    x = neg.operands[1] if neg is not None and neg.opcode == "neg" and len(neg.operands) == 2 else None
    if (neg is not None and isinstance(x, ir.Reg) and neg.guard is None and neg.mods[-1:] == instr.mods[-1:]
            and flow.same_value(x.name, neg, instr)):
        # t + (−x) with the negation in the op's type is the ring's t − x: the source's difference, which the folds
        # of a written sub read (held-out seed 55393: s' * s' - s' * s' of bf16 casts, a false alarm before)
        return rewrite_as(instr, "sub", mods, (instr.operands[0], t, x), ctx, opts, flow, fold, note)
    return rewrite_as(instr, "add", mods, (instr.operands[0], t, c), ctx, opts, flow, fold, note)
