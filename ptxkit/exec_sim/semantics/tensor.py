"""Tensor-core (warp-level matrix) instructions: ``ldmatrix``/``stmatrix`` (PTX ISA §9.7.14.5.15-16),
``mma.sync`` on the fragment layouts of §9.7.14.5.7-9 ("Matrix Fragments for mma.m16n8k8 / m16n8k16 /
m16n8k32 / m8n8k16"), ``wmma.load/store/mma`` (§9.7.14.4) and the warpgroup ``wgmma.mma_async`` with
shared-memory descriptors (§9.7.15).

Lane ``i`` of a batch is lane ``i % 32`` of warp ``i // 32`` (the machine pads CTAs to whole warps).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ptxkit import ir
from ptxkit.exec_sim import floats as F
from ptxkit.exec_sim.events import EvKind
from ptxkit.exec_sim.observe import access_info, report
from ptxkit.exec_sim.semantics.common import Decoding, LaneOp, Mask, Reader, State, Unsupported, items
from ptxkit.exec_sim.semantics.report import emit, observer
from ptxkit.exec_sim.semantics.warp import active_lanes, lanes_of


# ---------------------------------------------------------------------- ldmatrix / stmatrix (§9.7.14.5.15-16)
def _matrix_form(ins: ir.Instruction, dec: Decoding, regs: ir.Operand) -> tuple[int, bool, list[ir.Operand]]:
    """(matrices, .trans, the fragment registers) of an ``.m8n8.{x1,x2,x4}{.trans}.b16`` form."""
    if "m8n8" not in ins.mods or "b16" not in ins.mods:
        raise Unsupported()
    num = 1 if "x1" in ins.mods else 2 if "x2" in ins.mods else 4
    frag = items(regs)
    if len(frag) != num:
        raise Unsupported(f"{dec.spelling(ins)} with {len(frag)} registers for {num} matrices")
    return num, "trans" in ins.mods, frag


def _matrix_space(ins: ir.Instruction, sym_space: str | None) -> str:
    return "shared" if any(x.startswith("shared") for x in ins.mods) else (sym_space or "generic")


# fragment element (lane t, half h) of an 8x8 b16 matrix: row t/4, column 2(t%4)+h (.trans: transposed)
_T = np.arange(32)
_ROW, _COL = _T // 4, 2 * (_T % 4)


def b_ldmatrix(ins: ir.Instruction, dec: Decoding) -> LaneOp:
    """ldmatrix.sync.aligned.m8n8.{x1,x2,x4}{.trans}.shared.b16 d, [a]: lanes 8i..8i+7 give the addresses
    of the eight 16-byte rows of matrix i; register i of lane t receives its fragment element pair of
    matrix i (row t/4, columns 2(t%4), 2(t%4)+1; with .trans the same of the transposed matrix)."""
    num, trans, dsts = _matrix_form(ins, dec, ins.operands[0])
    addr, sym_space = dec.addr(ins.operands[1])
    space = _matrix_space(ins, sym_space)
    ws = [dec.dst(x, "b32") for x in dsts]
    info = access_info(ins, EvKind.LD)

    def op(st: State, m: Mask) -> None:
        n = st.n
        base = np.broadcast_to(np.asarray(addr(st), dtype=np.uint64), (n,))
        provider = (lanes_of(n) < 8 * num) & active_lanes(m, n)
        rows = np.zeros((n, 4), np.uint32)
        for k in range(4):
            rows[:, k] = st.mem.load(space, base + np.uint64(4 * k), 4, provider, st)
            if observer(st) is not None:  # each row read on behalf of the lane that gives its address
                report(st, EvKind.LD, info, space, base + np.uint64(4 * k), 4, provider)
        halves = rows.view(np.uint16).reshape(-1, 32, 8)  # [warp, providing lane, column]
        for i, w in enumerate(ws):
            mat = halves[:, 8 * i:8 * i + 8, :]  # [warp, row, column]
            if trans:
                lo, hi = mat[:, _COL, _ROW], mat[:, _COL + 1, _ROW]
            else:
                lo, hi = mat[:, _ROW, _COL], mat[:, _ROW, _COL + 1]
            w(st, (lo.astype(np.uint32) | (hi.astype(np.uint32) << np.uint32(16))).reshape(-1), m)
    return op


def b_stmatrix(ins: ir.Instruction, dec: Decoding) -> LaneOp:
    """stmatrix.sync.aligned.m8n8.{x1,x2,x4}{.trans}.shared{::cta}.b16 [a], r: the inverse of ldmatrix —
    lanes 8i..8i+7 give the row addresses of matrix i, whose elements come from register i of the
    lanes holding them in the fragment layout above."""
    num, trans, srcs = _matrix_form(ins, dec, ins.operands[1])
    addr, sym_space = dec.addr(ins.operands[0])
    space = _matrix_space(ins, sym_space)
    rs = [dec.src(x, "b32") for x in srcs]
    info = access_info(ins, EvKind.ST)
    r, c = np.arange(8)[:, None], np.arange(8)[None, :]
    # memory row r, column c of a matrix is the fragment element (lane, half) below of its register
    lane_rc, half_rc = (4 * c + r // 2, r % 2) if trans else (4 * r + c // 2, c % 2)

    def op(st: State, m: Mask) -> None:
        n = st.n
        nw = n // 32
        base = np.broadcast_to(np.asarray(addr(st), dtype=np.uint64), (n,))
        provider = (lanes_of(n) < 8 * num) & active_lanes(m, n)
        rows = np.zeros((nw, 32, 8), np.uint16)  # [warp, providing lane, column]
        for i, rd in enumerate(rs):
            frag = np.broadcast_to(np.asarray(rd(st)).astype(np.uint32), (n,)).reshape(nw, 32)
            halves = np.stack([frag & np.uint32(0xFFFF), frag >> np.uint32(16)], axis=-1).astype(np.uint16)
            rows[:, 8 * i:8 * i + 8, :] = halves[:, lane_rc, half_rc]
        words = rows.reshape(n, 8).view(np.uint32)  # [lane, the 4 words of its row]
        for k in range(4):
            st.mem.store(space, base + np.uint64(4 * k), 4, words[:, k].copy(), provider, st)
            if observer(st) is not None:  # each row written on behalf of the lane that gives its address
                report(st, EvKind.ST, info, space, base + np.uint64(4 * k), 4, provider,
                       {"value": words[:, k].astype(np.uint64)})
    return op


# ---------------------------------------------------------------------- mma.sync (§9.7.14.5.14)
# Fragment layouts, transcribed from the "Matrix Fragments for mma.mMnNkK" tables: for (shape, role,
# element class) the elements per lane and (row, col) of element i in the lane with groupID g =
# %laneid >> 2 and threadID_in_group q = %laneid % 4. Elements sit in the registers low to high, as
# many per .b32 register as fit (8-bit: 4, 16-bit: 2, tf32/f32/s32: 1).
Place = Callable[[int, np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]
_C_M16: tuple[int, Place] = (4, lambda i, g, q: (g + 8 * (i >= 2), 2 * q + (i & 1)))  # C/D of every m16n8kK
_LAYOUT: dict[tuple[str, str, str], tuple[int, Place]] = {
    ("m16n8k8", "a", "h"): (4, lambda i, g, q: (g + 8 * (i >= 2), 2 * q + (i & 1))),
    ("m16n8k8", "b", "h"): (2, lambda i, g, q: (2 * q + i, g)),
    ("m16n8k16", "a", "h"): (8, lambda i, g, q: (g + 8 * ((i >> 1) & 1), 2 * q + (i & 1) + 8 * (i >= 4))),
    ("m16n8k16", "b", "h"): (4, lambda i, g, q: (2 * q + (i & 1) + 8 * (i >= 2), g)),
    ("m16n8k4", "a", "tf32"): (2, lambda i, g, q: (g + 8 * i, q)),
    ("m16n8k4", "b", "tf32"): (1, lambda i, g, q: (q, g)),
    ("m16n8k8", "a", "tf32"): (4, lambda i, g, q: (g + 8 * (i & 1), q + 4 * (i >= 2))),
    ("m16n8k8", "b", "tf32"): (2, lambda i, g, q: (q + 4 * i, g)),
    ("m8n8k16", "a", "i8"): (4, lambda i, g, q: (g, 4 * q + i)),
    ("m8n8k16", "b", "i8"): (4, lambda i, g, q: (4 * q + i, g)),
    ("m8n8k16", "c", "i32"): (2, lambda i, g, q: (g, 2 * q + i)),
    ("m16n8k16", "a", "i8"): (8, lambda i, g, q: (g + 8 * (i >= 4), 4 * q + (i & 3))),
    ("m16n8k16", "b", "i8"): (4, lambda i, g, q: (4 * q + i, g)),
    ("m16n8k32", "a", "i8"): (16, lambda i, g, q: (g + 8 * ((i >> 2) & 1), 4 * q + (i & 3) + 16 * (i >= 8))),
    ("m16n8k32", "b", "i8"): (8, lambda i, g, q: (4 * q + (i & 3) + 16 * (i >= 4), g)),
    ("m8n8k4", "a", "f64"): (1, lambda i, g, q: (g, q)),
    ("m8n8k4", "b", "f64"): (1, lambda i, g, q: (q, g)),
    ("m8n8k4", "c", "f64"): (2, lambda i, g, q: (g, 2 * q + i)),
}
_CLASS = {"f16": "h", "bf16": "h", "tf32": "tf32", "s8": "i8", "u8": "i8", "f32": "f32", "s32": "i32",
          "f64": "f64"}
_ELEM_BITS = {"h": 16, "tf32": 32, "i8": 8, "f64": 64}


class _Fragment:
    """One operand's fragment: element i of lane t is matrix element (rows[t, i], cols[t, i]); ``bits``
    per element, packed low to high in ``regs`` registers of ``reg_bits`` (.b32; .f64 operands: .b64)."""

    def __init__(self, n: int, place: Place, bits: int, reg_bits: int = 32):
        g, q = _T >> 2, _T & 3
        rc = [place(i, g, q) for i in range(n)]
        self.rows = np.stack([np.broadcast_to(r, (32,)) for r, _ in rc], axis=1).astype(np.int64)
        self.cols = np.stack([np.broadcast_to(c, (32,)) for _, c in rc], axis=1).astype(np.int64)
        self.n, self.bits, self.reg_bits = n, bits, reg_bits
        self.per_reg = reg_bits // bits
        self.regs = n // self.per_reg

    def unpack(self, regs: list[np.ndarray]) -> np.ndarray:
        """[warp, lane, element] raw element bits from the registers' [warp, lane] .b32 values."""
        v = np.stack(regs, axis=-1).astype(np.uint64)  # [warp, lane, register]
        i = np.arange(self.n)
        shift = ((i % self.per_reg) * self.bits).astype(np.uint64)
        return (v[:, :, i // self.per_reg] >> shift) & np.uint64((1 << self.bits) - 1)

    def pack(self, elems: np.ndarray) -> list[np.ndarray]:
        """The inverse of :meth:`unpack` (elements already reduced to ``bits``)."""
        out = []
        for r in range(self.regs):
            v = np.zeros(elems.shape[:2], np.uint64)
            for k in range(self.per_reg):
                v |= elems[:, :, r * self.per_reg + k].astype(np.uint64) << np.uint64(k * self.bits)
            out.append(v if self.reg_bits == 64 else v.astype(np.uint32))
        return out

    def to_matrix(self, elems: np.ndarray, shape: tuple[int, int]) -> np.ndarray:
        mat = np.zeros((elems.shape[0], *shape), elems.dtype)
        mat[:, self.rows, self.cols] = elems
        return mat

    def from_matrix(self, mat: np.ndarray) -> np.ndarray:
        return mat[:, self.rows, self.cols]


def _fragment(shape: str, role: str, typ: str) -> _Fragment:
    cls = _CLASS[typ]
    if role == "c":  # accumulators: one .f32/.s32/.f64 per register, or two .f16
        if typ == "f64":
            n, place = _LAYOUT[(shape, "c", "f64")]
            return _Fragment(n, place, 64, 64)
        n, place = _LAYOUT[(shape, "c", "i32")] if shape == "m8n8k16" else _C_M16
        return _Fragment(n, place, 16 if typ == "f16" else 32)
    if (shape, role, cls) not in _LAYOUT:
        raise Unsupported(f"mma.{shape} with .{typ} operands")
    n, place = _LAYOUT[(shape, role, cls)]
    return _Fragment(n, place, _ELEM_BITS[cls], 64 if cls == "f64" else 32)


def _values(raw: np.ndarray, typ: str) -> np.ndarray:
    """Raw element bits → exact values: int64 for integers, float64 for floats."""
    if typ == "u8":
        return raw.astype(np.int64)
    if typ == "s8":
        v = raw.astype(np.int64)
        return v - ((v & 0x80) << 1)
    if typ == "s32":
        return raw.astype(np.uint32).view(np.int32).astype(np.int64)
    if typ in ("f16", "bf16"):
        return np.asarray(F.bits_to_float(raw.astype(np.uint16), typ)).astype(np.float64)
    if typ == "tf32":  # a .tf32 operand: the f32 bits of its register, the 13 low mantissa bits not used
        return (raw.astype(np.uint32) & np.uint32(0xFFFFE000)).view(np.float32).astype(np.float64)
    if typ == "f64":
        return raw.astype(np.uint64).view(np.float64)
    return raw.astype(np.uint32).view(np.float32).astype(np.float64)  # f32


def b_mma(ins: ir.Instruction, dec: Decoding) -> LaneOp:
    """mma.sync.aligned.{shape}.row.col{.satfinite}.dtype.atype.btype.ctype d, a, b, c: D = A·B + C on
    the ISA's fragment layouts. The integer forms (m8n8k16, m16n8k16, m16n8k32 on .s8/.u8, .s32
    accumulators) are exact: without .satfinite the sum wraps at 32 bits, with it it is clamped to the
    .s32 range. The float forms (m16n8k8/k16 on .f16/.bf16, m16n8k4/k8 on .tf32; .f32 or .f16
    accumulators; m8n8k4 .f64) sum the exact products in f64 and round once: close to, not bit-equal to, a GPU
    (whose accumulation order the ISA leaves unspecified)."""
    mods = ins.mods
    shapes = [x for x in mods if x in ("m8n8k4", "m8n8k16", "m16n8k4", "m16n8k8", "m16n8k16", "m16n8k32")]
    types = [x for x in mods if x in _CLASS]
    if len(shapes) != 1 or "row" not in mods or "col" not in mods or len(types) != 4:
        raise Unsupported()
    shape = shapes[0]
    dtype, atype, btype, ctype = types
    integer = _CLASS[atype] == "i8"
    if integer:
        ok = _CLASS[btype] == "i8" and dtype == ctype == "s32"
    else:
        ok = dtype == ctype and dtype in ("f32", "f16") and atype == btype and _CLASS[atype] in ("h", "tf32")
    if shape == "m8n8k4" or "f64" in types:  # m8n8k4 here: the .f64 form only (not the .f16 quad pairs)
        ok = shape == "m8n8k4" and types == ["f64"] * 4
    if not ok:
        raise Unsupported()
    satfinite = "satfinite" in mods
    if satfinite and not integer:
        raise Unsupported(f"{dec.spelling(ins)} (modifier .satfinite)")
    fa, fb, fc = _fragment(shape, "a", atype), _fragment(shape, "b", btype), _fragment(shape, "c", ctype)
    m_dim, k_dim = (8 if shape.startswith("m8n") else 16), int(shape.split("k")[1])
    d, a, b, c = (items(o) for o in ins.operands)
    if (len(a), len(b), len(c), len(d)) != (fa.regs, fb.regs, fc.regs, fc.regs):
        raise Unsupported(f"{dec.spelling(ins)} with unexpected fragment sizes")
    rt = "b64" if dtype == "f64" else "b32"
    ra, rb, rc = ([dec.src(x, rt) for x in regs] for regs in (a, b, c))
    wd = [dec.dst(x, rt) for x in d]
    ut = np.uint64 if dtype == "f64" else np.uint32

    def read(st: State, readers: list[Reader]) -> list[np.ndarray]:
        return [np.broadcast_to(np.asarray(r(st)).astype(ut), (st.n,)).reshape(-1, 32) for r in readers]

    def op(st: State, m: Mask) -> None:
        A = fa.to_matrix(_values(fa.unpack(read(st, ra)), atype), (m_dim, k_dim))
        B = fb.to_matrix(_values(fb.unpack(read(st, rb)), btype), (k_dim, 8))
        C = fc.to_matrix(_values(fc.unpack(read(st, rc)), ctype), (m_dim, 8))
        elems = fc.from_matrix(np.einsum("wik,wkj->wij", A, B) + C)
        if integer:
            if satfinite:
                elems = np.clip(elems, -2 ** 31, 2 ** 31 - 1)
            out = (elems & 0xFFFFFFFF).astype(np.uint64)
        elif dtype == "f64":
            out = elems.astype(np.float64).view(np.uint64)
        elif dtype == "f16":
            out = elems.astype(np.float16).view(np.uint16).astype(np.uint64)  # one rounding, to nearest even
        else:
            out = elems.astype(np.float32).view(np.uint32).astype(np.uint64)
        for w, v in zip(wd, fc.pack(out)):
            w(st, v.reshape(-1), m)
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
        info = access_info(ins, EvKind.LD if kind == "load" else EvKind.ST)
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
                    if observer(st) is not None:
                        report(st, EvKind.LD, info, space, addr_s, size, act)
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
                    if observer(st) is not None:
                        report(st, EvKind.ST, info, space, addr_s, size, act)
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


# ---------------------------------------------------------------------- wgmma (§9.7.15)
_SWIZZLE_BYTES = {1: 128, 2: 64, 3: 32}  # descriptor bits 62-63 → swizzle width (0: none)


def _smem_offsets(desc: int, rows: int, k_dim: int, mn_major: bool, eb: int) -> np.ndarray:
    """[mn, k] shared-memory byte addresses of a wgmma operand from its matrix descriptor (ISA §9.7.15.5.1:
    start address bits 0-13, leading-dimension byte offset 16-29, stride-dimension byte offset 32-45,
    all in 16-byte units; swizzle mode 62-63) for ``eb``-byte elements. Canonical layouts: K-major,
    swizzle W bytes — 8-row groups of W-byte rows, the next 8 rows SBO further; MN-major — rows of W
    bytes along MN, 8 of them along K make a group, the next 8 K SBO further, the next W/eb MN LBO
    further. The swizzle XORs address bits 4.. with bits 7.. (16-byte chunks within a 128/64/32-byte
    row by the row within the 8-row group). Without swizzle: 8-row x 16-byte core matrices, K-major only."""
    start = (desc & 0x3FFF) << 4
    lbo, sbo = ((desc >> 16) & 0x3FFF) << 4, ((desc >> 32) & 0x3FFF) << 4
    mode = (desc >> 62) & 3
    mn, k = np.arange(rows)[:, None], np.arange(k_dim)[None, :]
    if mode == 0:
        if mn_major:
            raise Unsupported("wgmma with an MN-major operand without swizzle")
        per = 16 // eb  # elements of a core-matrix row
        off = (mn // 8) * sbo + (k // per) * lbo + (mn % 8) * 16 + (k % per) * eb
        return (start + off).astype(np.int64)
    width = _SWIZZLE_BYTES[mode]
    if mn_major:
        e = width // eb
        off = (mn // e) * lbo + (k // 8) * sbo + (k % 8) * width + (mn % e) * eb
    else:
        off = (mn // 8) * sbo + (mn % 8) * width + k * eb
    return swizzle((start + off).astype(np.int64), width)


def swizzle(addr: np.ndarray, width: int) -> np.ndarray:
    """The shared-memory swizzle of width 32/64/128 bytes (0: none) on byte addresses: the 16-byte
    chunk index (address bits 4..) is XORed with bits 7.. (the row of 128 bytes within the pattern),
    as many bits as the width has chunks. One pattern for wgmma's matrix descriptors (§9.7.15.5.1)
    and the tensor maps of cp.async.bulk.tensor (§5.5.8, CU_TENSOR_MAP_SWIZZLE_*)."""
    if not width:
        return addr
    mask = width // 16 - 1
    return addr ^ (((addr >> 7) & mask) << 4)


def _wgmma_sync(ins: ir.Instruction) -> LaneOp:
    """wgmma.fence / commit_group / wait_group N: nothing to do once wgmma is performed at issue; an
    observer gets ASYNC_COMMIT / ASYNC_WAIT of the "wgmma" group (the fence orders registers only)."""
    kind = {"commit_group": EvKind.ASYNC_COMMIT, "wait_group": EvKind.ASYNC_WAIT}.get(ins.mods[0])
    n = ins.operands[0].value if ins.operands and isinstance(ins.operands[0], ir.Imm) else 0

    def op(st: State, m: Mask) -> None:
        if kind is not None and observer(st) is not None:
            extra: dict[str, Any] = {"n": n} if kind == EvKind.ASYNC_WAIT else {}
            emit(st, ins, kind, m, proxy="async", group="wgmma", **extra)
    return op


def b_wgmma(ins: ir.Instruction, dec: Decoding) -> LaneOp:
    """wgmma.mma_async.sync.aligned.m64nNkK.f32.atype.btype d, a, b-desc, scale-d, imm-scale-a, imm-scale-b
    {, imm-trans-a}{, imm-trans-b} (ISA §9.7.15.5.2): .f16/.bf16 (k16) or .tf32 (k8) operands, f32
    accumulators. A comes from registers (the m16n8kK mma fragment layout of the warp's 16 rows) or, like
    B, from shared memory through a matrix descriptor; imm-trans 0 reads a descriptor operand K-major, 1
    MN-major (16-bit types only), imm-scale -1 negates an operand, scale-d false drops the old D.
    Performed at issue — a valid schedule of the asynchronous operation, as the program may not touch d
    before wgmma.wait_group — so fence/commit_group/wait_group are no-ops. Warp w of the warpgroup holds
    rows 16w..16w+15 of D: register 4j+i of lane (g, q) is row 16w + g + 8*(i>>1), column 8j + 2q +
    (i&1). Products are summed in f64 and rounded once (as for mma)."""
    mods = ins.mods
    if mods and mods[0] in ("fence", "commit_group", "wait_group"):
        return _wgmma_sync(ins)
    types = [x for x in mods if x in ("f32", "f16", "bf16", "tf32")]
    shapes = [x for x in mods if x.startswith("m64n")]
    ops = ins.operands
    if not mods or mods[0] != "mma_async" or len(shapes) != 1 or len(types) != 3 or types[0] != "f32" \
            or types[1] != types[2] or types[1] == "f32" or len(ops) < 6:
        raise Unsupported()
    ab = types[1]
    tf32 = ab == "tf32"
    k_dim, eb = (8, 4) if tf32 else (16, 2)
    if not shapes[0].endswith(f"k{k_dim}"):
        raise Unsupported()
    n_dim = int(shapes[0][4:shapes[0].index("k")])
    a_regs = isinstance(ops[1], ir.Vec)
    imm = [o.value if isinstance(o, ir.Imm) else None for o in ops[4:]]
    if None in imm or len(imm) != 2 + (0 if tf32 else 1 if a_regs else 2) or not isinstance(ops[2], ir.Reg):
        raise Unsupported(f"{dec.spelling(ins)} with these operands")
    scale_a, scale_b = imm[0], imm[1]
    trans_a = imm[2] if len(imm) == 4 else 0
    trans_b = imm[-1] if not tf32 else 0
    d = items(ops[0])
    if len(d) != n_dim // 2:
        raise Unsupported(f"{dec.spelling(ins)} with {len(d)} accumulator registers")
    fa = _fragment("m16n8k8" if tf32 else "m16n8k16", "a", ab)
    if a_regs and len(items(ops[1])) != fa.regs:
        raise Unsupported(f"{dec.spelling(ins)} with {len(items(ops[1]))} A registers")
    ra = [dec.src(x, "b32") for x in items(ops[1])] if a_regs else []
    da = None if a_regs else dec.src(ops[1], "b64")
    db = dec.src(ops[2], "b64")
    keep_d = dec.src(ops[3], "pred")
    rd = [dec.src(x, "f32") for x in d]
    wd = [dec.dst(x, "f32") for x in d]
    r_in = np.arange(n_dim // 2)
    g, q = _T[:, None] >> 2, _T[:, None] & 3
    row16 = g + 8 * ((r_in[None, :] >> 1) & 1)  # [lane, register] row within the warp's 16
    col = 8 * (r_in[None, :] >> 2) + 2 * q + (r_in[None, :] & 1)

    def load(st: State, m: Mask, addrs: np.ndarray) -> np.ndarray:
        """Values at shared ``addrs`` [warp, element], read by the warp's own lanes."""
        nw, ne = addrs.shape
        out = np.zeros((nw, ne), np.uint64)
        for k0 in range(0, ne, 32):
            a = np.zeros(st.n, np.uint64)
            a[:] = addrs[:, k0:k0 + 32].reshape(-1).astype(np.uint64)
            out[:, k0:k0 + 32] = st.mem.load("shared", a, eb, m, st).reshape(nw, 32)
        return _values(out, ab)

    def op(st: State, m: Mask) -> None:
        n = st.n
        nw = n // 32
        first = np.arange(nw) * 32
        rank = ((first % st.lanes_per_cta) // 32) % 4 if hasattr(st, "lanes_per_cta") else np.arange(nw) % 4
        if da is not None:
            a_desc = np.broadcast_to(np.asarray(da(st)).astype(np.uint64), (n,))[first]
            a_addr = np.stack([_smem_offsets(int(x), 64, k_dim, bool(trans_a), eb)[16 * int(r):16 * int(r) + 16]
                               .reshape(-1) for x, r in zip(a_desc, rank)])
            A = load(st, m, a_addr).reshape(nw, 16, k_dim)
        else:
            regs = [np.broadcast_to(np.asarray(r(st)).astype(np.uint32), (n,)).reshape(nw, 32) for r in ra]
            A = fa.to_matrix(_values(fa.unpack(regs), ab), (16, k_dim))
        b_desc = np.broadcast_to(np.asarray(db(st)).astype(np.uint64), (n,))[first]
        b_addr = np.stack([_smem_offsets(int(x), n_dim, k_dim, bool(trans_b), eb).reshape(-1) for x in b_desc])
        B = load(st, m, b_addr).reshape(nw, n_dim, k_dim)
        if observer(st) is not None:  # the shared-memory operands are read by the async proxy (ISA §9.7.15.3)
            act = active_lanes(m, n).reshape(nw, 32)
            warps = [(st.gtid[32 * w:32 * w + 32][act[w]],
                      np.concatenate([a_addr[w] if da is not None else np.zeros(0, np.int64), b_addr[w]]))
                     for w in range(nw) if act[w].any()]
            emit(st, ins, EvKind.ASYNC_ISSUE, m, space="shared", size=eb, proxy="async", op="wgmma",
                 group="wgmma", elem=eb, warps=warps)
        D = np.einsum("wik,wjk->wij", A * scale_a, B * scale_b)  # [warp, 16, N]
        acc = np.stack([np.broadcast_to(np.asarray(r(st)), (n,)) for r in rd], axis=-1).reshape(nw, 32, -1)
        keep = np.broadcast_to(np.asarray(keep_d(st)), (n,)).reshape(nw, 32)[:, :1, None]
        frag = D[:, row16, col] + np.where(keep, acc.astype(np.float64), 0.0)
        for j, w in enumerate(wd):
            w(st, frag[:, :, j].reshape(-1).astype(np.float32), m)
    return op
