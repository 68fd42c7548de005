"""One ``cvt.rzi.sN.f16`` for two source conversions through different widenings (issue 10 E; held-out seed 10869,
silent: ``x.to(f32).to(int64)`` and ``x.to(f64).to(int64)`` of one half). Both are exact widenings followed by
``fptosi``, so LLVM folds each into ``cvt.rzi.s64.f16`` and merges the two; the merged cvt keeps one location. Triton's
FPSan widens the half's payload to f32 in one and to f64 in the other, which give different integers: no one
conversion matches both readers (docs/fpsan.md §2 widening cast; PTX ISA "Data Movement and Conversion: cvt")."""

from __future__ import annotations

from ptxkit import ir
from ptxkit.fpsan.fold_flow import Flow
from ptxkit.fpsan.irview import name_of
from ptxkit.fpsan.source_ast import Decision

_INTS = ("s8", "s16", "s32", "s64", "u8", "u16", "u32", "u64")


def merged_half_int(cvt: ir.Instruction, flow: Flow) -> tuple[Decision, Decision] | None:
    """(the cvt's own form, a reader's other form) where the cvt converts a half to an integer and a reader at another
    location sits on a source conversion of a half to that integer through another float type; else None."""
    ints = [m for m in cvt.mods if m in _INTS]
    if cvt.opcode != "cvt" or len(ints) != 1 or not {"f16", "bf16"} & set(cvt.mods) or "rzi" not in cvt.mods:
        return None
    own = flow.hints.half_int(cvt, ints[0])
    if own is None:
        return None
    at = flow.hints.loc.get(id(cvt))
    for u in flow.uses.get(name_of(cvt.operands[0]), []):
        if flow.hints.loc.get(id(u)) == at:
            continue
        other = flow.hints.half_int(cvt, ints[0], within=u)
        if other is not None and other.form != own.form:
            return own, other
    return None
