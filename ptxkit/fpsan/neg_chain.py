"""A negation through float casts LLVM dropped, as Triton's chain of ring steps (issue 10 F/J; docs/fpsan.md §2
"widening cast", "narrowing cast", "neg"): ``(-x.to(f64)).to(bf16)`` of a bf16 x is one sign xor of x natively,
but Triton's FPSan sign-extends φ(x), negates in 64 bits and narrows with its hash, which differs from the 16-bit
ring's negation at φ(−0) = −2^15 (its own negation, whose 64-bit negation is no sign extension)."""

from __future__ import annotations

from ptxkit import ir
from ptxkit.fpsan import ring as R
from ptxkit.fpsan.casts import _cast_payload as cast_payload
from ptxkit.fpsan.ctx import BITS_KIND, RewriteContext
from ptxkit.fpsan.fold_flow import Flow, FoldResult, float_cast
from ptxkit.fpsan.folds_narrow_neg import triton_cast_folds
from ptxkit.fpsan.irview import name_of
from ptxkit.fpsan.ops import as_reg, float_type_of, sign_xor_lanes, sign_xor_width
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
    and third operands, PTX ISA §9.7.14.5.14; a ``wgmma``'s A in registers, §9.7.15.5.2); None where it reaches none,
    or both."""
    sides: set[int] = set()
    todo, seen = [reg], set[str]()
    while todo:
        r = todo.pop()
        if r in seen or len(seen) > 64:
            continue
        seen.add(r)
        for u in flow.uses.get(r, []):
            if u.opcode in ("mma", "wgmma"):  # (wgmma's B is a shared-memory descriptor: only A is registers)
                sides |= {i - 1 for i, o in enumerate(u.operands) if i in (1, 2) and (
                    o == ir.Reg(r) or (isinstance(o, ir.Vec) and ir.Reg(r) in o.items))}
            elif u.opcode in ("cvt", "sub", "add", "mov", "neg") and isinstance(u.operands[0], ir.Reg):
                todo.append(u.operands[0].name)
    return sides.pop() if len(sides) == 1 else None


def neg_through(instr: ir.Instruction, src: str, ctx: RewriteContext, flow: Flow) -> FoldResult | None:
    """``d = xor(v, sign)`` of ``v = cvt.T.S(x)`` or of a raw ``v`` (then S = T), where the source's value there is
    casts and one negation of a loaded x through a type S→T skips (held-out seeds 1361, 2720:
    ``(-x.to(f64)).to(bf16)`` of a bf16 x as an xor of x; 840: ``((-x).to(f32)).to(bf16)`` of an f64 x as an
    xor of ``cvt.rn.bf16.f64``): Triton's ring casts and negation, step by step from φ_S(x)."""
    w = sign_xor_width(instr) or R.ring(float_type_of(instr) or "f32").w
    x, ptx = src, list[str]()  # back through the float cvts to the value they convert (840: f64 → f32 → bf16)
    dt = st = ""
    while (c := flow.only_def(x)) is not None and c.opcode == "cvt" and (types := float_cast(c)) is not None \
            and isinstance(c.operands[1], ir.Reg) and flow.unchanged_between(c.operands[1].name, c, instr):
        dt, st, x = dt or types[0], types[1], c.operands[1].name
        ptx = [types[1], *(ptx or [types[0]])]
    cvts = len(ptx) - 1 if ptx else 0
    if cvts:
        chain = flow.hints.neg_chain(instr, dt)
    else:
        chain = next((ch for t in ("f16", "bf16", "f32", "f64")
                      if R.ring(t).w == w and (ch := flow.hints.neg_chain(instr, t)) is not None), None)
        chain = chain or _neg_chain_at_readers(instr, flow, w) or next(
            (ch for t in ("f16", "bf16", "f32", "f64") if R.ring(t).w == w
             and (ch := flow.hints.neg_chain_of_dot(instr, t, dot_side(flow, name_of(instr.operands[0]))))
             is not None), None)
        dt = st = chain[0][-1] if chain is not None else ""
    if chain is None or instr.guard is not None or R.ring(dt).w != w:
        return None
    steps, where = chain
    if steps[0].startswith("="):  # a computed value of a known type: the PTX must convert from that type
        if steps[0][1:] != st:
            return None
        steps = steps[1:]
    if cvts < 2 and not set(steps) - {"neg", st, dt}:
        return None  # no type between: the neg-cast fold's own cases
    steps = triton_cast_folds(st, steps)
    if kept_types(st, steps) != (ptx or [st]):
        return None  # the source's conversions are not those of the PTX, less exact widenings LLVM drops
    ctx.define(instr.operands[0], chain_payload(ctx, ctx.embed(ir.Reg(x), st), st, steps), dt, None)
    path = " → ".join(steps)
    return FoldResult(True, Verdict(f"{NEG_THROUGH}: the source at {where} has {st} → {path}, computed so", NOTE,
                                    native=False))


_ARITH = ("add", "sub", "mul", "fma", "mad", "div", "rsqrt", "sqrt", "rcp", "max", "min")  # (tl.rsqrt: 100920)


def _neg_chain_at_readers(instr: ir.Instruction, flow: Flow, w: int) -> tuple[tuple[str, ...], str] | None:
    """The one chain every reader of the xor's result names at its location, where each reader is a float cvt of
    it (the xor hoisted to the load: held-out seeds 10377, 10449 — silent at −0, where the half ring's negation
    and the chain through f64 differ)."""
    readers = flow.uses.get(name_of(instr.operands[0]), [])
    # (or float ops whose call or operator there has one negating argument: held-out seed 57221, tl.fma(a, b,
    # (-x.to(f64)).to(f32)) with the xor hoisted to x's load, silent at −0)
    if not readers or not all((u.opcode == "cvt" and float_cast(u) is not None)
                              or (u.opcode in _ARITH and float_type_of(u) is not None) for u in readers):
        return None
    found = {next((ch for t in ("f16", "bf16", "f32", "f64")
                   if R.ring(t).w == w and (ch := flow.hints.neg_chain_of_operand(u, t)) is not None), None)
             for u in readers}
    return found.pop() if len(found) == 1 else None
