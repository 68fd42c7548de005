"""``x.to(tl.float8e5, fp_downcast_rounding="rtz")`` of an f32 x (user-style probe, silent in 194/256): Triton lowers
it as ``cvt.rz.f16.f32`` and an inline asm that keeps each half's upper byte (``and.b32 a, h2, 0xfffefffe`` then
``prmt.b32 d, a0, a1, 0x7531``): E5M2 is the upper byte of an f16. Triton's FPSan narrows the f32 payload 32 → 8 in
the ring (docs/fpsan.md §2 narrowing casts), not 32 → 16; so the half written is φ⁻¹_E5M2 of that byte in the upper
byte (PTX ISA §9.7.9.21 ``cvt``, §9.7.8.7 ``prmt``), which the asm's bit moves then carry unchanged.

``x.to(tl.float8e5).to(tl.bfloat16)``: Triton's asm moves each E5M2 byte into a bf16's upper bits (``prmt`` 0x5140 /
0x7362, ``lop3``, ``shr 3``) and rebiases the exponent with ``mul.rn.bf16x2 d, b, 0x77807780`` (2^112): a float
``mul`` the ring would take for the user's (user-style probes, reported). Triton's FPSan widens the byte's payload
8 → 16 (sign extension) as for any widening; so the mul writes that, read off the ``prmt``'s source bytes."""

from __future__ import annotations

from ptxkit import ir
from ptxkit.fpsan.cast_calls import narrow_fp8_byte, widen_fp8_pair
from ptxkit.fpsan.ctx import RewriteContext, guard_text
from ptxkit.fpsan.fold_flow import Flow, FoldResult
from ptxkit.fpsan.ops import as_reg
from ptxkit.fpsan.report import NOTE, Verdict

_KEEP = 0xFFFEFFFE  # Triton's mask before the byte permute
_UPPER_BYTES = 0x7531  # bytes 1, 3, 5, 7: each half's upper byte


def fp8_via_half(instr: ir.Instruction, ctx: RewriteContext, flow: Flow) -> FoldResult | None:
    """``cvt.rz.f16.f32 h, x`` whose half reaches only the upper-byte permute of Triton's E5M2 asm: ``h`` = the ring's
    E5M2 byte of x, shifted up; None otherwise."""
    ops = instr.operands
    if instr.opcode != "cvt" or instr.mods != ("rz", "f16", "f32") or instr.guard is not None \
            or len(ops) != 2 or not isinstance(ops[0], (ir.Reg, ir.Sym)) or not _upper_byte_only(flow, ops[0].name):
        return None
    p = as_reg(ctx, ctx.embed(ops[1], "f32"), 32)
    byte = narrow_fp8_byte(ctx, p, "e5m2", ctx.homomorphic_casts)
    dst = ops[0].name
    ctx.invalidate(dst)
    ctx.emit(f"{guard_text(instr.guard)}shl.b16 {dst}, {byte}, 8")
    return FoldResult(True, Verdict(
        "f32 → f16 (rz) whose upper byte is all Triton's E5M2 asm keeps (x.to(float8e5, fp_downcast_rounding='rtz')): "
        "Triton's FPSan narrows the payload 32 → 8; written as that E5M2 byte in the upper byte", NOTE, native=False))


def _upper_byte_only(flow: Flow, half: str) -> bool:
    """``half`` is read only by ``mov.b32 p, {…}`` packs, each pack only by ``and.b32 a, p, 0xfffefffe``, each of those
    only by the upper-byte ``prmt``."""
    packs = flow.uses.get(half, [])
    if not packs:
        return False
    for m in packs:
        if m.opcode != "mov" or len(m.operands) != 2 or not isinstance(m.operands[1], ir.Vec) \
                or not isinstance(m.operands[0], (ir.Reg, ir.Sym)):
            return False
        masks = flow.uses.get(m.operands[0].name, [])
        if not masks or not all(_masked(a, m.operands[0].name) and _permuted(flow, a.operands[0]) for a in masks):
            return False
    return True


def _masked(a: ir.Instruction, src: str) -> bool:
    ops = a.operands
    return (a.opcode == "and" and a.mods == ("b32",) and a.guard is None and len(ops) == 3
            and isinstance(ops[1], (ir.Reg, ir.Sym)) and ops[1].name == src
            and isinstance(ops[2], ir.Imm) and ops[2].value & 0xFFFFFFFF == _KEEP)


def _permuted(flow: Flow, reg: ir.Operand) -> bool:
    uses = flow.uses.get(reg.name, []) if isinstance(reg, (ir.Reg, ir.Sym)) else []
    return bool(uses) and all(u.opcode == "prmt" and u.mods == ("b32",) and len(u.operands) == 4
                              and isinstance(u.operands[3], ir.Imm) and u.operands[3].value == _UPPER_BYTES
                              for u in uses)


_REBIAS = 0x77807780  # bf16x2 (2^112, 2^112): E5M2's bias 15 → bf16's 127
_PAIRS = {0x5140: 0, 0x7362: 16}  # the prmt selector → the bit offset of the two bytes it spreads into bf16 lanes


def e5m2_to_bf16(instr: ir.Instruction, ctx: RewriteContext, flow: Flow) -> FoldResult | None:
    """``mul.rn.bf16x2 d, b, e`` of Triton's E5M2 → bf16 asm (``e`` the block's ``mov.u32 e, 0x77807780``, ``b`` built
    from ``prmt a, 0, R, sel``): ``d`` = the two bytes of R widened in the ring; None otherwise."""
    ops = [o for o in instr.operands if isinstance(o, (ir.Reg, ir.Sym))]
    if instr.opcode != "mul" or "bf16x2" not in instr.mods or instr.guard is not None or len(ops) != 3 \
            or len(instr.operands) != 3:
        return None
    e = flow.only_def(ops[2].name, instr)
    if e is None or e.opcode != "mov" or not (isinstance(e.operands[1], ir.Imm) and e.operands[1].value == _REBIAS):
        return None
    spread = _spread_source(flow, ops[1].name, instr)
    if spread is None:
        return None
    src, shift = spread
    pair = ctx.fresh("b32")
    ctx.emit(f"shr.u32 {pair}, {ctx.text(src)}, {shift}")
    ctx.read_bits(src.name)
    b16 = ctx.fresh("b16")
    ctx.emit(f"cvt.u16.u32 {b16}, {pair}")
    lo, hi = widen_fp8_pair(ctx, b16, "e5m2", to="bf16")
    ctx.invalidate(ops[0].name)
    ctx.emit(f"mov.b32 {ops[0].name}, {{{lo}, {hi}}}")
    return FoldResult(True, Verdict(
        "mul.bf16x2 by 2^112 of Triton's E5M2 → bf16 asm (x.to(float8e5).to(bfloat16)): Triton's FPSan widens each "
        "byte's payload 8 → 16; written so from the bytes the asm spreads", NOTE, native=False))


def _spread_source(flow: Flow, b: str, at: ir.Instruction) -> tuple[ir.Reg | ir.Sym, int] | None:
    """(R, the bit offset of its two bytes) where ``b`` is built in ``at``'s block from ``a`` = ``prmt a, 0, R, sel``
    only (the asm's ``lop3``/``shr`` of ``a``), else None."""
    scope = flow.local_scope.get(id(at), {}).get(b)
    defs = flow.local_defs.get((scope, b), []) if scope is not None else []
    reads = {o.name for d in defs for o in d.operands[1:] if isinstance(o, (ir.Reg, ir.Sym)) and o.name != b}
    if len(defs) != 3 or [d.opcode for d in defs] != ["lop3", "shr", "lop3"] or len(reads) != 1:
        return None
    a = flow.only_def(reads.pop(), defs[0])
    if a is None or a.opcode != "prmt" or len(a.operands) != 4 or not isinstance(a.operands[3], ir.Imm) \
            or a.operands[3].value not in _PAIRS or not isinstance(a.operands[2], (ir.Reg, ir.Sym)) \
            or not (isinstance(a.operands[1], ir.Imm) and a.operands[1].value == 0):
        return None
    return a.operands[2], _PAIRS[a.operands[3].value]
