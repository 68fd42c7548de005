"""Instruction semantics over numpy lanes, one builder per opcode, one module per ISA family (PTX ISA §9.7).

``build(ins, dec)`` returns a closure ``op(st, mask)`` executing the instruction for every lane of the
state ``st`` (``mask`` None = all lanes; otherwise only lanes set are written). The families:
:mod:`.integer` (§9.7.1-2, §9.7.8), :mod:`.floating` (§9.7.3-4), :mod:`.compare` (§9.7.7),
:mod:`.convert` (§9.7.9.21), :mod:`.memory` (§9.7.9, §9.7.13.5-6), :mod:`.control`,
:mod:`.warp` (warp collectives), :mod:`.tensor` (§9.7.14, tensor cores), :mod:`.async_copy` (§9.7.9.25
cp.async, cp.async.bulk{.tensor}) and :mod:`.mbarrier` (§9.7.13.15). Anything else raises
:class:`~ptxkit.errors.NotImplementedInstruction` with the instruction's position when executed.
"""

from __future__ import annotations

from ptxkit import ir
from ptxkit.exec_sim.semantics import (
    async_copy,
    compare,
    control,
    convert,
    floating,
    integer,
    mbarrier,
    memory,
    tensor,
    tensormap_ops,
    warp,
)
from ptxkit.exec_sim.semantics.common import Builder, Decoding, LaneOp, Unsupported

# modifiers whose meaning the builders do not model: refuse them rather than ignore them, except on
# the opcodes whose builders do model them
_REFUSED_MODS = frozenset({"satfinite", "rna", "rs", "xorsign", "oob", "abs", "relu"})
_MODELLED = {
    "relu": frozenset({"min", "max", "cvt"}),  # integer min/max.relu, cvt.relu (f16x2 pack)
    "satfinite": frozenset({"mma", "cvt"}),  # integer mma.sync, cvt to 8-bit floats
    "rna": frozenset({"cvt"}),  # cvt.rna.tf32.f32
}


def build(ins: ir.Instruction, dec: Decoding) -> LaneOp:
    """The lane closure of ``ins`` (or one that raises NotImplementedInstruction when executed)."""
    f = _BUILDERS.get(ins.opcode)
    if ins.opcode in ("st", "red") and "async" in ins.mods:
        f = async_copy.b_st_red_async
    if f is None:
        return dec.unsupported()
    bad = [x for x in ins.mods if x in _REFUSED_MODS and ins.opcode not in _MODELLED.get(x, ())]
    if bad:
        return dec.unsupported(f"{dec.spelling(ins)} (modifier .{bad[0]})")
    try:
        return f(ins, dec)
    except Unsupported as e:
        return dec.unsupported(e.args[0] if e.args else None)


_BUILDERS: dict[str, Builder] = {
    "add": integer.b_addsub, "sub": integer.b_addsub, "addc": integer.b_addsub, "subc": integer.b_addsub,
    "mul": integer.b_mul, "mad": integer.b_mad, "madc": integer.b_mad, "fma": integer.b_mad,
    "div": integer.b_div, "rem": integer.b_rem, "min": integer.b_minmax, "max": integer.b_minmax,
    "abs": integer.b_abs, "neg": integer.b_neg, "sad": integer.b_sad, "mul24": integer.b_mul24,
    "mad24": integer.b_mul24, "dp4a": integer.b_dp, "dp2a": integer.b_dp,
    "and": integer.b_logic, "or": integer.b_logic, "xor": integer.b_logic, "not": integer.b_not,
    "cnot": integer.b_cnot, "shl": integer.b_shl, "shr": integer.b_shl, "shf": integer.b_shf,
    "bfe": integer.b_bfe, "bfi": integer.b_bfi, "prmt": integer.b_prmt, "lop3": integer.b_lop3,
    "popc": integer.b_popc, "clz": integer.b_clz, "bfind": integer.b_bfind, "brev": integer.b_brev,
    "copysign": floating.b_copysign, "testp": floating.b_testp,
    "rcp": floating.b_unary_float, "sqrt": floating.b_unary_float, "rsqrt": floating.b_unary_float,
    "ex2": floating.b_unary_float, "lg2": floating.b_unary_float, "sin": floating.b_unary_float,
    "cos": floating.b_unary_float, "tanh": floating.b_unary_float,
    "setp": compare.b_setp, "set": compare.b_set, "selp": compare.b_selp, "slct": compare.b_slct,
    "cvt": convert.b_cvt,
    "mov": memory.b_mov, "cvta": memory.b_cvta, "mapa": memory.b_mapa,
    "getctarank": memory.b_getctarank, "isspacep": memory.b_isspacep, "ld": memory.b_ld, "ldu": memory.b_ld,
    "st": memory.b_st,
    "atom": memory.b_atom, "red": memory.b_atom, "cp": async_copy.b_cp,
    "membar": memory.b_fence, "fence": memory.b_fence, "mbarrier": mbarrier.b_mbarrier,
    "barrier": mbarrier.b_barrier_cluster, "tensormap": tensormap_ops.b_tensormap,
    "setmaxnreg": control.b_nop, "griddepcontrol": control.b_nop, "prefetch": control.b_nop, "prefetchu": control.b_nop,
    "nanosleep": control.b_nop, "pmevent": control.b_nop, "discard": control.b_nop,
    "applypriority": control.b_nop, "brkpt": control.b_nop, "createpolicy": control.b_createpolicy,
    "trap": control.b_trap,
    "shfl": warp.b_shfl, "vote": warp.b_vote, "match": warp.b_match, "redux": warp.b_redux,
    "activemask": warp.b_activemask, "bar": warp.b_bar_warp, "elect": warp.b_elect,
    "ldmatrix": tensor.b_ldmatrix, "stmatrix": tensor.b_stmatrix, "mma": tensor.b_mma, "wmma": tensor.b_wmma,
    "wgmma": tensor.b_wgmma,
}
