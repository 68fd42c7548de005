"""``libdevice.copysign(a.to(f32), b.to(f32)).to(f16)`` of halves a, b (issue 10; docs/fpsan.md §2 "other pure math
call"): LLVM narrows the call to a half copysign, which the NVPTX backend expands for sm_90 (no ``copysign.f16``) into
|a| (``and.b16 a, 0x7FFF``), its ``neg.f16``/``neg.bf16`` and a ``selp.b16`` on b's sign bit. Triton's FPSan hashes the
call, ``__nv_copysignf`` of the two widened payloads, and narrows the hash; sanitized op by op it was silent (user-style
probe, 480/512 elements)."""

from __future__ import annotations

import ast
from dataclasses import dataclass

from ptxkit import ir
from ptxkit.fpsan import ring as R
from ptxkit.fpsan.casts import _cast_payload as cast_payload
from ptxkit.fpsan.ctx import RewriteContext
from ptxkit.fpsan.fold_flow import Flow, FoldResult
from ptxkit.fpsan.fold_libcall import HASHED_CALLS
from ptxkit.fpsan.libdevice_emit import emit_call
from ptxkit.fpsan.report import ERROR, NOTE, Verdict
from ptxkit.fpsan.source_ast import _DEPTH, _DTYPE_WIDTH, SourceFile, _cast_to, _module_call, _receiver, _resolve

_HALVES = ("f16", "bf16")
_WIDE = {32: "f32", 64: "f64"}


@dataclass(frozen=True)
class HalfCopysign:
    """``selp.b16`` that is copysign(magnitude, sign) of two ``ft`` values."""

    magnitude: ir.Reg
    sign: ir.Reg
    ft: str


def half_copysign(instr: ir.Instruction, flow: Flow) -> HalfCopysign | None:
    """The half copysign ``instr`` ends (``selp.b16 d, -|a|, |a|, p`` with p "b's sign bit is set", or the arms
    swapped with p "clear"), else None."""
    ops = instr.operands
    if instr.opcode != "selp" or instr.mods != ("b16",) or len(ops) != 4 or not isinstance(ops[3], ir.Reg) \
            or not all(isinstance(o, ir.Reg) for o in ops[1:3]):
        return None
    sign = _sign_test(flow, ops[3])
    if sign is None:
        return None
    b, is_set = sign
    first, second = ops[1], ops[2]
    assert isinstance(first, ir.Reg) and isinstance(second, ir.Reg)
    for neg_arm, abs_arm, want in ((first, second, True), (second, first, False)):
        n = flow.only_def(neg_arm.name)
        if n is None or n.opcode != "neg" or n.operands[1:] != (abs_arm,) or is_set != want:
            continue
        ft = next((m for m in n.mods if m in _HALVES), None)
        m = flow.only_def(abs_arm.name)
        if ft is not None and m is not None and m.opcode == "and" and m.mods == ("b16",) and len(m.operands) == 3 \
                and isinstance(m.operands[1], ir.Reg) and isinstance(m.operands[2], ir.Imm) \
                and m.operands[2].value % (1 << 16) == 0x7FFF:
            return HalfCopysign(m.operands[1], b, ft)
    return None


def _sign_test(flow: Flow, p: ir.Reg) -> tuple[ir.Reg, bool] | None:
    """(b, True) where ``p`` tests b's sign bit set (``setp.ne.b16 p, (b >> 15) & 1, 0``, ``setp.lt.s16 p, b, 0``),
    (b, False) where it tests it clear (``.eq``, ``.ge``); else None."""
    s = flow.only_def(p.name)
    if s is None or s.opcode != "setp" or len(s.operands) != 3 or not isinstance(s.operands[2], ir.Imm) \
            or s.operands[2].value != 0 or not isinstance(s.operands[1], ir.Reg):
        return None
    if "s16" in s.mods and ("lt" in s.mods or "ge" in s.mods):
        return s.operands[1], "lt" in s.mods
    if "b16" not in s.mods or not ("ne" in s.mods or "eq" in s.mods):
        return None
    bit = flow.only_def(s.operands[1].name)
    if bit is None or bit.opcode != "and" or bit.operands[2] != ir.Imm(1) or not isinstance(bit.operands[1], ir.Reg):
        return None
    sh = flow.only_def(bit.operands[1].name)
    if sh is None or sh.opcode != "shr" or sh.operands[2] != ir.Imm(15) or not isinstance(sh.operands[1], ir.Reg):
        return None
    return sh.operands[1], "ne" in s.mods


def rewrite_half_copysign(instr: ir.Instruction, ctx: RewriteContext, flow: Flow, cs: HalfCopysign) -> FoldResult:
    """The call hash at the width of the source's widening (``call:f32``), narrowed; undecided: left as
    written, an error."""
    decided = flow.hints.decide(instr, _copysign_width)
    if decided is None:
        return FoldResult(False, Verdict(
            f"copysign of {cs.ft} values (LLVM's expansion: |a|, its negation and a select on b's sign bit): the "
            "source does not show the libdevice.copysign call whose widened arguments Triton's FPSan hashes; left as "
            "written",
            ERROR))
    wt = decided.form
    args = [cast_payload(ctx, ctx.embed(r, cs.ft), cs.ft, wt) for r in (cs.magnitude, cs.sign)]
    symbol = HASHED_CALLS[("copysign", wt)]
    o = emit_call(ctx, args, symbol, R.ring(wt).w)
    ctx.define(instr.operands[0], cast_payload(ctx, o, wt, cs.ft), cs.ft, instr.guard)
    return FoldResult(True, Verdict(
        f"copysign of {cs.ft} values, LLVM's narrowing of the source's libdevice.copysign of {wt} widenings at "
        f"{decided.where}: Triton's FPSan hashes the call ({symbol}) of the widened payloads, narrowed", NOTE,
        native=False))


def _copysign_width(f: SourceFile, n: ast.expr) -> tuple[str, ast.expr] | None:
    """The widening type of a ``libdevice.copysign`` call at the node, or at the name a ``.to()`` there narrows."""
    call: ast.expr | None = n
    if _module_call(n, "libdevice") != "copysign" and _cast_to(n) is not None:
        call = _resolve(f, _receiver(n), _DEPTH)
    if call is None or _module_call(call, "libdevice") != "copysign" or not isinstance(call, ast.Call):
        return None
    casts = {_cast_to(a) for a in call.args}
    wide = _WIDE.get(_DTYPE_WIDTH.get(casts.pop() or "", 0)) if len(casts) == 1 else None
    return (wide, call) if wide is not None else None
