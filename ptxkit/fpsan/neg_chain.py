"""A negation through float casts LLVM dropped, as Triton's chain of ring steps (issue 10 F/J; docs/fpsan.md §2
"widening cast", "narrowing cast", "neg"): ``(-x.to(f64)).to(bf16)`` of a bf16 x is one sign xor of x natively,
but Triton's FPSan sign-extends φ(x), negates in 64 bits and narrows with its hash, which differs from the 16-bit
ring's negation at φ(−0) = −2^15 (its own negation, whose 64-bit negation is no sign extension)."""

from __future__ import annotations

from ptxkit import ir
from ptxkit.fpsan import ring as R
from ptxkit.fpsan.casts import _cast_payload as cast_payload
from ptxkit.fpsan.ctx import BITS_KIND, RewriteContext
from ptxkit.fpsan.fold_flow import Flow, FoldResult
from ptxkit.fpsan.folds_narrow_neg import triton_cast_folds
from ptxkit.fpsan.irview import name_of
from ptxkit.fpsan.ops import as_reg, sign_xor_lanes
from ptxkit.fpsan.report import NOTE, Verdict

NEG_THROUGH = ("sign-bit xor: LLVM's negation of a value whose conversions it dropped or merged (the ring goes "
               "through each type the source names, which the PTX no longer has)")
HALVES = ("f16", "bf16")


def kept_types(st: str, steps: tuple[str, ...]) -> list[str]:
    """The types from ``st`` through the cast ``steps`` that the PTX keeps: a widening is exact, so LLVM drops it
    (``x.to(f64)`` of a bf16 x narrowed back), a narrowing rounds and stays; repeats merged."""
    out = [st]
    for t in (s for s in steps if s != "neg"):
        if R.ring(t).w > R.ring(out[-1]).w:
            continue
        if t != out[-1]:
            out.append(t)
    return out


def chain_payload(ctx: RewriteContext, p: str, st: str, steps: tuple[str, ...]) -> str:
    """The payload ``p`` of type ``st`` through Triton's ring ``steps`` (casts, ``neg``)."""
    cur = st
    for step in steps:
        if step == "neg":
            n = ctx.fresh(BITS_KIND[R.ring(cur).w])
            ctx.emit(f"neg.s{R.ring(cur).w} {n}, {as_reg(ctx, p, R.ring(cur).w)}")
            p = n
        elif step != cur:
            p, cur = cast_payload(ctx, p, cur, step), step
    return p


def lane_steps(steps: tuple[str, ...], st: str) -> tuple[str, ...] | None:
    """``steps`` of one loaded ``st`` value that go through a type LLVM dropped (else None: the 16-bit ring's own
    negation is Triton's then, the plain sign-xor rule's case)."""
    if steps[0].startswith("="):  # a computed value of a known type: the PTX must hold that type
        if steps[0][1:] != st:
            return None
        steps = steps[1:]
    if not set(steps) - {"neg", st}:
        return None
    steps = triton_cast_folds(st, steps)
    return steps if kept_types(st, steps) == [st] else None


def neg_through_packed(instr: ir.Instruction, src: str, ctx: RewriteContext, flow: Flow) -> FoldResult | None:
    """``xor.b32 d, v, 0x80008000`` of two raw halves (an ldmatrix'd dot operand) where the source's value at the
    xor is casts and one negation of a loaded half through a wider type (held-out seed 35006: ``(-a.to(f64))
    .to(bf16)`` of a bf16 dot operand, silent before — the lanes got the 16-bit ring negation): Triton's ring
    steps, lane by lane (lane 0 = the low half)."""
    if sign_xor_lanes(instr) != (32, 16) or instr.guard is not None:
        return None
    c = flow.only_def(src)
    if c is not None and c.opcode == "cvt":
        return None  # a packed conversion's result: the neg-cast rules
    found = [(t, ch) for t in HALVES if (ch := flow.hints.neg_chain(instr, t)) is not None]
    if len(found) != 1:
        return None
    st, (steps, where) = found[0][0], found[0][1]
    if (todo := lane_steps(steps, st)) is None:
        return None
    lanes = [ctx.unembed_to_fresh(chain_payload(ctx, ctx.embed(ir.Reg(src), st, lane, f"{st}x2"), st, todo), st)
             for lane in (0, 1)]
    d = name_of(instr.operands[0])
    ctx.invalidate(d)
    ctx.emit(f"mov.b32 {d}, {{{lanes[0]}, {lanes[1]}}}")
    path = " → ".join(todo)
    return FoldResult(True, Verdict(f"{NEG_THROUGH}: the source at {where} has {st} → {path} on each lane of the "
                                    f"packed {st}x2, computed so", NOTE, native=False))


def dot_side(flow: Flow, reg: str) -> int | None:
    """The operand of the tensor-core ``mma`` instructions ``reg``'s value reaches through the dot lowering's
    conversions and arithmetic (tf32x3's ``cvt.rna`` and ``sub``) and moves: 0 for A, 1 for B (the ``mma``'s second
    and third operands, PTX ISA §9.7.14.5.14); None where it reaches none, or both."""
    sides: set[int] = set()
    todo, seen = [reg], set[str]()
    while todo:
        r = todo.pop()
        if r in seen or len(seen) > 64:
            continue
        seen.add(r)
        for u in flow.uses.get(r, []):
            if u.opcode == "mma":
                sides |= {i - 1 for i, o in enumerate(u.operands) if i in (1, 2) and (
                    o == ir.Reg(r) or (isinstance(o, ir.Vec) and ir.Reg(r) in o.items))}
            elif u.opcode in ("cvt", "sub", "add", "mov", "neg") and isinstance(u.operands[0], ir.Reg):
                todo.append(u.operands[0].name)
    return sides.pop() if len(sides) == 1 else None

