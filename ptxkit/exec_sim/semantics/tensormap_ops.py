"""Building tensor maps on the device (PTX ISA §9.7.9.28 ``tensormap.replace``, §9.7.9.29
``tensormap.cp_fenceproxy``): how a kernel creates a ``CUtensorMap`` itself (Triton 3.9's
``tl.make_tensor_descriptor``: a zeroed 128-byte object in shared memory, its fields replaced one by
one, then copied to global memory with a proxy fence).

The fields are written into the simulator's own layout of the object (exec_sim/tensormap.py); each
write also stamps the layout's magic, so a map built from zeros this way is a tensor map.
``.elemtype`` takes the ISA's encoding (u8 0, u16 1, u32 2, s32 3, u64 4, s64 5, f16 6, f32 7,
f32.ftz 8, f64 9, bf16 10, tf32 11, tf32.ftz 12 — Triton's driver.py maps it to the CUDA driver's
enum the same way); ``.rank`` takes rank − 1; dimensions, box sizes, byte strides (of dimensions
1..) and element strides take their values.
"""

from __future__ import annotations

import numpy as np

from ptxkit import ir
from ptxkit.exec_sim.semantics.common import Decoding, LaneOp, Mask, State, Unsupported, space_of
from ptxkit.exec_sim.tensormap import MAGIC

# ISA elemtype code → bytes per element (the packed sub-byte types 13.. are not modelled)
_ELEM_BYTES = {0: 1, 1: 2, 2: 4, 3: 4, 4: 8, 5: 8, 6: 2, 7: 4, 8: 4, 9: 8, 10: 2, 11: 4, 12: 4}
# field → (byte offset, bytes, offset step per ordinal) in tensormap.py's layout
_FIELDS = {"global_address": (0, 8, 0), "rank": (12, 1, 0), "elemtype": (13, 1, 0),
           "interleave_layout": (14, 1, 0), "swizzle_mode": (15, 1, 0), "fill_mode": (17, 1, 0),
           "global_dim": (24, 8, 8), "global_stride": (64, 8, 8), "box_dim": (96, 2, 2),
           "element_stride": (106, 1, 1)}
# ISA elemtype → CUtensorMapDataType where they differ (f32.ftz, f64, bf16; Triton's driver.py does the same)
_TO_DRIVER = {8: 10, 9: 8, 10: 9}
_LIMIT = {"interleave_layout": 0, "fill_mode": 0, "swizzle_mode": 3, "rank": 4}


def b_tensormap(ins: ir.Instruction, dec: Decoding) -> LaneOp:
    mods = ins.mods
    if mods and mods[0] == "replace":
        return _replace(ins, dec)
    if mods and mods[0] == "cp_fenceproxy":
        return _cp_fenceproxy(ins, dec)
    raise Unsupported()


def _replace(ins: ir.Instruction, dec: Decoding) -> LaneOp:
    """tensormap.replace.tile.field{.space}.b1024.type [addr], {ord,} new_val."""
    mods, ops = ins.mods, ins.operands
    field = next((x for x in mods if x in _FIELDS or x == "swizzle_atomicity"), None)
    if field is None or "tile" not in mods or field == "swizzle_atomicity":
        raise Unsupported(f"{dec.spelling(ins)}" if field is None else f"{dec.spelling(ins)} (.{field})")
    if len(ops) not in (2, 3):
        raise Unsupported(f"{dec.spelling(ins)} with {len(ops)} operands")
    addr, sym_space = dec.addr(ops[0])
    space = space_of(ins, sym_space)
    with_ord = field in ("global_dim", "global_stride", "box_dim", "element_stride")
    if with_ord and (len(ops) != 3 or not isinstance(ops[1], ir.Imm)):
        raise Unsupported(f"{dec.spelling(ins)} without a constant ordinal")
    ordinal = ops[1].value if with_ord and isinstance(ops[1], ir.Imm) else 0
    if not 0 <= ordinal < (4 if field == "global_stride" else 5):
        raise dec.error(f"{dec.spelling(ins)}: ordinal {ordinal} is out of range", ins)
    off, size, step = _FIELDS[field]
    val = dec.src(ops[-1], "b64" if "b64" in mods else "b32")
    ut = {1: np.uint8, 2: np.uint16, 8: np.uint64}[size]

    def op(st: State, m: Mask) -> None:
        base = np.broadcast_to(np.asarray(addr(st), dtype=np.uint64), (st.n,))
        v = np.broadcast_to(np.asarray(val(st)).astype(np.uint64), (st.n,))
        lanes = np.arange(st.n) if m is None else np.flatnonzero(m)
        if field in _LIMIT and len(lanes) and int(v[lanes].max()) > _LIMIT[field]:
            raise dec.error(f"{dec.spelling(ins)}: value {int(v[lanes].max())} is not modelled", ins)
        if field == "elemtype" and len(lanes) and int(v[lanes].max()) not in _ELEM_BYTES:
            raise dec.error(f"{dec.spelling(ins)}: element type {int(v[lanes].max())} is not modelled", ins)
        if field == "rank":
            v = v + np.uint64(1)
        if field == "elemtype":  # the layout keeps the CUDA driver's CUtensorMapDataType code
            v_store = np.array([_TO_DRIVER.get(int(x), int(x)) for x in v.tolist()], np.uint64)
        else:
            v_store = v
        st.mem.store(space, base + np.uint64(off + step * ordinal), size, v_store.astype(ut), m, st)
        if field == "elemtype":
            esize = np.array([_ELEM_BYTES.get(int(x), 1) for x in v.tolist()], np.uint8)
            st.mem.store(space, base + np.uint64(18), 1, esize, m, st)
        st.mem.store(space, base + np.uint64(8), 4, np.full(st.n, MAGIC, np.uint32), m, st)
    return op


def _cp_fenceproxy(ins: ir.Instruction, dec: Decoding) -> LaneOp:
    """tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.scope.sync.aligned [dst],
    [src], size: copy the ``size``-byte map from shared to global memory (the fence that makes it
    visible to the tensormap proxy has no effect on a sequential schedule)."""
    ops = ins.operands
    if len(ops) != 3 or not isinstance(ops[2], ir.Imm) or ops[2].value % 8:
        raise Unsupported(f"{dec.spelling(ins)} without a constant size (a multiple of 8)")
    dst, _ = dec.addr(ops[0])
    src, _ = dec.addr(ops[1])
    size = ops[2].value

    def op(st: State, m: Mask) -> None:
        d = np.broadcast_to(np.asarray(dst(st), dtype=np.uint64), (st.n,))
        s_ = np.broadcast_to(np.asarray(src(st), dtype=np.uint64), (st.n,))
        for k in range(0, size, 8):
            v = st.mem.load("shared", s_ + np.uint64(k), 8, m, st)
            st.mem.store("global", d + np.uint64(k), 8, v, m, st)
    return op
