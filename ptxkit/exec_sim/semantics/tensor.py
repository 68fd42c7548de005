"""Tensor-core (warp-level matrix) instructions: ``ldmatrix`` (PTX ISA §9.7.14.5.15), ``mma.sync``
with the fragment layouts of §9.7.14.5.14 (m16n8k8/k16), and ``wmma.load/store/mma`` (§9.7.14.4).

Lane ``i`` of a batch is lane ``i % 32`` of warp ``i // 32`` (the machine pads CTAs to whole warps).
"""

from __future__ import annotations

import numpy as np

from ptxkit import ir
from ptxkit.exec_sim import floats as F
from ptxkit.exec_sim.semantics.common import Decoding, LaneOp, Mask, Reader, State, Value, items
from ptxkit.exec_sim.semantics.warp import active_lanes, lanes_of


def b_ldmatrix(ins: ir.Instruction, dec: Decoding) -> LaneOp:
    """ldmatrix.sync.aligned.m8n8.{x1,x2,x4}{.trans}.shared.b16: lanes 8i..8i+7 give the row
    addresses of matrix i; lane t receives row t/4, columns 2(t%4), 2(t%4)+1 (transposed with .trans)."""
    if "m8n8" not in ins.mods or "b16" not in ins.mods:
        return dec.unsupported()
    num = 1 if "x1" in ins.mods else 2 if "x2" in ins.mods else 4
    trans = "trans" in ins.mods
    ops = ins.operands
    dsts = list(ops[0].items) if isinstance(ops[0], ir.Vec) else [ops[0]]
    if len(dsts) != num:
        return dec.unsupported("ldmatrix with a mismatched destination count")
    addr, sym_space = dec.addr(ops[1])
    space = "shared" if any(x.startswith("shared") for x in ins.mods) else (sym_space or "generic")
    ws = [dec.dst(x, "b32") for x in dsts]
    t = np.arange(32)
    r_idx, c_idx = t // 4, 2 * (t % 4)

    def op(st: State, m: Mask) -> None:
        n = st.n
        base = np.broadcast_to(np.asarray(addr(st), dtype=np.uint64), (n,))
        lane = lanes_of(n)
        provider = (lane < 8 * num) & (active_lanes(m, n))
        rows = np.zeros((n, 4), np.uint32)
        for k in range(4):
            rows[:, k] = st.mem.load(space, base + np.uint64(4 * k), 4, provider, st)
        halves = rows.view(np.uint16).reshape(-1, 32, 8)  # [warp, provider lane, column]
        for i, w in enumerate(ws):
            mat = halves[:, 8 * i:8 * i + 8, :]  # [warp, row, col]
            if trans:
                lo, hi = mat[:, c_idx, r_idx], mat[:, c_idx + 1, r_idx]
            else:
                lo, hi = mat[:, r_idx, c_idx], mat[:, r_idx, c_idx + 1]
            w(st, (lo.astype(np.uint32) | (hi.astype(np.uint32) << np.uint32(16))).reshape(-1), m)
    return op


def b_mma(ins: ir.Instruction, dec: Decoding) -> LaneOp:
    """mma.sync.aligned.m16n8k{8,16}.row.col.f32.{f16,bf16}.{f16,bf16}.f32 (fragment layouts of ISA
    §9.7.14.5.14). The products are summed in f64 and rounded once: close to, not bit-equal to, a GPU
    (whose accumulation order is unspecified)."""
    mods = ins.mods
    shape = [x for x in mods if x.startswith("m16n8k")]
    types = [x for x in mods if x in ("f32", "f16", "bf16")]
    if not shape or shape[0] not in ("m16n8k16", "m16n8k8") or "row" not in mods or "col" not in mods \
            or len(types) != 4 or types[0] != "f32" or types[3] != "f32" or types[1] != types[2]:
        return dec.unsupported()
    k_dim = int(shape[0][6:])
    ab = types[1]
    ops = ins.operands
    d, a, b, c = (items(o) for o in ops)
    na, nb = (4, 2) if k_dim == 16 else (2, 1)
    if len(d) != 4 or len(a) != na or len(b) != nb or len(c) != 4:
        return dec.unsupported("mma with unexpected fragment sizes")
    ra = [dec.src(x, "b32") for x in a]
    rb = [dec.src(x, "b32") for x in b]
    rc = [dec.src(x, "f32") for x in c]
    wd = [dec.dst(x, "f32") for x in d]
    t = np.arange(32)
    g, q = t // 4, t % 4

    def halves(v: Value) -> tuple[np.ndarray, np.ndarray]:
        v = np.asarray(v).astype(np.uint32)
        return (F.bits_to_float((v & np.uint32(0xFFFF)).astype(np.uint16), ab).astype(np.float64),
                F.bits_to_float((v >> np.uint32(16)).astype(np.uint16), ab).astype(np.float64))

    def op(st: State, m: Mask) -> None:
        n = st.n
        nw = n // 32
        A = np.zeros((nw, 16, k_dim))
        B = np.zeros((nw, k_dim, 8))
        C = np.zeros((nw, 16, 8))
        for i, r in enumerate(ra):
            lo, hi = halves(np.broadcast_to(r(st), (n,)))
            row = g + (8 if i % 2 else 0)
            col = 2 * q + (8 if i >= 2 else 0)
            A[:, row, col] = lo.reshape(nw, 32)
            A[:, row, col + 1] = hi.reshape(nw, 32)
        for i, r in enumerate(rb):
            lo, hi = halves(np.broadcast_to(r(st), (n,)))
            krow = 2 * q + 8 * i
            B[:, krow, g] = lo.reshape(nw, 32)
            B[:, krow + 1, g] = hi.reshape(nw, 32)
        for i, r in enumerate(rc):
            v = np.broadcast_to(np.asarray(r(st)), (n,)).astype(np.float64).reshape(nw, 32)
            C[:, g + (8 if i >= 2 else 0), 2 * q + (i % 2)] = v
        D = np.einsum("wik,wkj->wij", A, B) + C
        for i, w in enumerate(wd):
            v = D[:, g + (8 if i >= 2 else 0), 2 * q + (i % 2)].reshape(-1).astype(np.float32)
            w(st, v, m)
    return op


def b_wmma(ins: ir.Instruction, dec: Decoding) -> LaneOp:
    """wmma.{load,store,mma}.sync.aligned m16n16k16, f16 A/B, f32 C/D (ISA §9.7.14.4). The fragment
    layout is unspecified by the ISA; ptxkit uses its own consistent one (element r*16+c of the tile
    in lane (r*16+c)//8, slot (r*16+c)%8; A/B use the first four f16x2 registers), so every
    load → mma → store sequence and element-wise fragment code computes what the GPU computes."""
    mods = ins.mods
    if "m16n16k16" not in mods:
        return dec.unsupported()
    kind = mods[0]
    ops = ins.operands
    e = np.arange(32 * 8)
    lane_of, slot_of = e // 8, e % 8
    r_of, c_of = e // 16, e % 16
    if kind in ("load", "store"):
        which = mods[1]
        layout = "col" if "col" in mods else "row"
        typ = "f16" if which in ("a", "b") or "f16" in mods else "f32"
        if typ != "f16" and "f32" not in mods:
            return dec.unsupported()
        size = 2 if typ == "f16" else 4
        frag = items(ops[0 if kind == "load" else 1])
        addr, sym_space = dec.addr(ops[1 if kind == "load" else 0])
        space = next((x.split("::")[0] for x in mods if x.split("::")[0] in ("global", "shared")),
                     sym_space or "generic")
        stride = dec.src(ops[2], "u32") if len(ops) > 2 else (lambda st: np.uint32(16))
        if kind == "load":
            ws = [dec.dst(x, "b32") for x in frag]
        else:
            rs = [dec.src(x, "b32") for x in frag]

        def offsets(st: State) -> np.ndarray:
            sv = np.broadcast_to(np.asarray(stride(st)).astype(np.int64), (st.n,)).reshape(-1, 32)[:, 0]
            # [warp, element] element offsets of the 16x16 tile (row: r*stride + c, col: c*stride + r)
            if layout == "row":
                return r_of[None, :] * sv[:, None] + c_of[None, :]
            return c_of[None, :] * sv[:, None] + r_of[None, :]

        def op(st: State, m: Mask) -> None:
            n = st.n
            base = np.broadcast_to(np.asarray(addr(st), dtype=np.uint64), (n,)).reshape(-1, 32)[:, 0]
            off = offsets(st)
            nw = n // 32
            # per element e: the lane (lane_of[e]) of each warp that owns it does the access
            lane_idx = (np.arange(nw)[:, None] * 32 + lane_of[None, :]).reshape(-1)
            a_el = (base[:, None] + (off * size).astype(np.uint64)).reshape(-1)
            act = np.ones(n, bool) if m is None else m
            if kind == "load":
                vals = np.zeros((nw, 256), np.uint32)
                for s in range(8):
                    sel = slot_of == s
                    addr_s = np.zeros(n, np.uint64)
                    addr_s[lane_idx.reshape(nw, 256)[:, sel].reshape(-1)] = a_el.reshape(nw, 256)[:, sel].reshape(-1)
                    v = st.mem.load(space, addr_s, size, act, st)
                    vals[:, sel] = v.reshape(nw, 32).astype(np.uint32)
                slots = vals.reshape(nw, 32, 8)  # [warp, lane, slot]
                if size == 2:
                    for j, w in enumerate(ws):
                        r = (slots[:, :, 2 * j] | (slots[:, :, 2 * j + 1] << np.uint32(16))) if j < 4 \
                            else np.zeros((nw, 32), np.uint32)
                        w(st, r.reshape(-1).astype(np.uint32), m)
                else:
                    for j, w in enumerate(ws):
                        w(st, slots[:, :, j].reshape(-1).astype(np.uint32), m)
            else:
                regs = [np.broadcast_to(np.asarray(r(st)), (n,)).astype(np.uint32).reshape(nw, 32) for r in rs]
                for s in range(8):
                    sel = slot_of == s
                    addr_s = np.zeros(n, np.uint64)
                    addr_s[lane_idx.reshape(nw, 256)[:, sel].reshape(-1)] = a_el.reshape(nw, 256)[:, sel].reshape(-1)
                    v = regs[s].reshape(-1) if size == 4 else (regs[s // 2] >> np.uint32(16 * (s % 2))).reshape(-1)
                    st.mem.store(space, addr_s, size, v.astype(np.uint32 if size == 4 else np.uint16), act, st)
        return op
    if kind == "mma":
        types = [x for x in mods if x in ("f16", "f32")]
        if len(types) != 2 or types != ["f32", "f32"]:
            return dec.unsupported("wmma.mma other than .f32.f32 accumulators")
        d, a, b, c = (items(o) for o in ops)
        ra = [dec.src(x, "b32") for x in a]
        rb = [dec.src(x, "b32") for x in b]
        rc = [dec.src(x, "f32") for x in c]
        wd = [dec.dst(x, "f32") for x in d]

        def tile16(regs: list[Reader], st: State) -> np.ndarray:
            n = st.n
            v = np.stack([np.broadcast_to(np.asarray(r(st)), (n,)).astype(np.uint32) for r in regs[:4]], axis=-1)
            h = v.view(np.uint16).reshape(n // 32, 32, 8)  # little-endian: low half first
            return F.bits_to_float(h, "f16").astype(np.float64).reshape(n // 32, 16, 16)

        def op(st: State, m: Mask) -> None:
            n = st.n
            A, B = tile16(ra, st), tile16(rb, st)
            C = np.stack([np.broadcast_to(np.asarray(r(st)), (n,)).astype(np.float64) for r in rc], axis=-1)
            C = C.reshape(n // 32, 16, 16)
            D = (np.einsum("wik,wkj->wij", A, B) + C).astype(np.float32).reshape(n // 32, 32, 8)
            for j, w in enumerate(wd):
                w(st, D[:, :, j].reshape(-1), m)
        return op
    return dec.unsupported()
