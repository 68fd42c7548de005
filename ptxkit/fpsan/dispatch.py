"""The float-op rewrite's dispatch: which module rewrites an instruction (arithmetic ``ops``, ``casts``,
``atomics``, ``mma``), and which instructions are float arithmetic that must be rewritten or reported."""

from __future__ import annotations

from ptxkit import ir
from ptxkit.fpsan.atomics import rewrite_atomic
from ptxkit.fpsan.casts import rewrite_cvt
from ptxkit.fpsan.ctx import RewriteContext
from ptxkit.fpsan.mma import rewrite_mma, rewrite_wmma, why_not_modelled
from ptxkit.fpsan.ops import LANE_TYPE, NATIVE, TABLE, OpInfo, elementwise, float_type_of
from ptxkit.fpsan.report import Verdict
from ptxkit.ptx.types import FLOAT_TYPES


def is_float_arith(instr: ir.Instruction) -> bool:
    if instr.opcode in NATIVE:
        return False
    if instr.opcode == "wmma" and instr.mods and instr.mods[0] in ("load", "store"):
        return False  # fragment loads/stores are bit moves
    if instr.opcode == "cvt":
        return False  # float<->float cvts are handled or reported by rewrite_cvt
    return any(m in FLOAT_TYPES for m in instr.mods)


def rewrite_instruction(instr: ir.Instruction, ctx: RewriteContext, atomics: str) -> bool | str | Verdict:
    """Dispatch: True when replaced, a reason string when it is float work left native, else False."""
    op = instr.opcode
    if op == "cvt":
        return rewrite_cvt(instr, ctx)
    if op in ("mma", "wgmma") and any(m in FLOAT_TYPES for m in instr.mods):
        if rewrite_mma(instr, ctx):
            return True
        return f"{op}: {why_not_modelled(instr) or 'this shape/type is not modelled'}"
    if op == "wmma" and instr.mods[:1] == ("mma",):
        return rewrite_wmma(instr, ctx)
    if op in ("atom", "red"):
        return rewrite_atomic(instr, ctx, atomics)
    ft = float_type_of(instr)
    if ft is None or op not in TABLE:
        return False
    if op in ("min", "max") and "abs" in instr.mods and "xorsign" not in instr.mods:
        return f"{op}.abs without .xorsign is not modelled"
    info = OpInfo(LANE_TYPE.get(ft, ft), ft if ft in LANE_TYPE else None)
    compute, nsrc = TABLE[op]
    ok = elementwise(instr, ctx, info, compute, nsrc)
    return True if ok else f"{op}: operand form not modelled"
