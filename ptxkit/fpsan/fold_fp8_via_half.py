"""``x.to(tl.float8e5, fp_downcast_rounding="rtz")`` of an f32 x (user-style probe, silent in 194/256): Triton lowers
it as ``cvt.rz.f16.f32`` and an inline asm that keeps each half's upper byte (``and.b32 a, h2, 0xfffefffe`` then
``prmt.b32 d, a0, a1, 0x7531``): E5M2 is the upper byte of an f16. Triton's FPSan narrows the f32 payload 32 → 8 in
the ring (docs/fpsan.md §2 narrowing casts), not 32 → 16; so the half written is φ⁻¹_E5M2 of that byte in the upper
byte (PTX ISA §9.7.9.21 ``cvt``, §9.7.8.7 ``prmt``), which the asm's bit moves then carry unchanged."""

from __future__ import annotations

from ptxkit import ir
from ptxkit.fpsan.cast_calls import narrow_fp8_pair
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
    byte = narrow_fp8_pair(ctx, p, p, "e5m2", ctx.homomorphic_casts)
    dst = ops[0].name
    ctx.invalidate(dst)
    ctx.emit(f"{guard_text(instr.guard)}and.b16 {dst}, {byte}, 0xFF00")
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
