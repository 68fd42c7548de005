"""Asynchronous copies (PTX ISA §9.7.9.25): ``cp.async`` with its commit/wait groups, ``cp.async.bulk``
(global↔shared, completion through an mbarrier's tx-count or a bulk async-group),
``cp.async.bulk.tensor`` in tile mode (a box of a tensor described by a tensor map, §5.5.8) and the
matching ``commit_group``/``wait_group``; ``cp.async.bulk.prefetch*`` are no-ops.

Each copy is performed when it is issued: a valid schedule of an asynchronous operation (the program
may not read the destination before the copy's completion is observed, and an observer is told the
copy is asynchronous through ASYNC_ISSUE / ASYNC_COMMIT / ASYNC_WAIT events, which ``ptxkit verify``
checks). A copy that signals an mbarrier (``.mbarrier::complete_tx::bytes``) performs the complete-tx of
its byte count on it at once, after writing the data.
"""

from __future__ import annotations

from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

import numpy as np

from ptxkit import ir
from ptxkit.exec_sim.atomics import apply_atomic
from ptxkit.exec_sim.events import EvKind
from ptxkit.exec_sim.memory import CLUSTER_SHIFT, UINT, cluster_address, cluster_slots, global_ctas
from ptxkit.exec_sim.semantics.common import Decoding, LaneOp, Mask, Reader, State, Unsupported
from ptxkit.exec_sim.semantics.mbarrier import (
    MbarError,
    bump_epoch,
    locate,
    phase_index,
    rmw,
    update,
)
from ptxkit.exec_sim.semantics.report import emit, observer
from ptxkit.exec_sim.semantics.tensor import swizzle
from ptxkit.exec_sim.tensormap import SIZE as TMAP_SIZE
from ptxkit.exec_sim.tensormap import TensorMap, TensorMapError


def b_cp(ins: ir.Instruction, dec: Decoding) -> LaneOp:
    """Dispatch the ``cp.*`` forms (see the module docstring)."""
    mods = ins.mods
    if "async" not in mods:
        raise Unsupported()
    if "reduce" in mods:
        return _reduce(ins, dec)
    if "prefetch" in mods:
        return lambda st, m: None
    group = "bulk" if "bulk" in mods else "cp.async"
    for act, kind in (("commit_group", EvKind.ASYNC_COMMIT), ("wait_group", EvKind.ASYNC_WAIT),
                      ("wait_all", EvKind.ASYNC_WAIT)):
        if act in mods:
            return _group_op(ins, dec, kind, group)
    if "bulk" in mods:
        return _tensor(ins, dec) if "tensor" in mods else _bulk(ins, dec)
    if "mbarrier" in mods:
        return _cp_async_arrive(ins, dec)
    return _cp_async(ins, dec)


def _group_op(ins: ir.Instruction, dec: Decoding, kind: EvKind, group: str) -> LaneOp:
    """commit_group / wait_group N / wait_all: the copies are complete already; report the event."""
    n: int | None = None
    if kind == EvKind.ASYNC_WAIT:
        if "wait_all" in ins.mods:
            n = 0
        elif ins.operands and isinstance(ins.operands[0], ir.Imm):
            n = ins.operands[0].value
        else:
            raise Unsupported(f"{dec.spelling(ins)} without a constant group count")
    read = "read" in ins.mods

    def op(st: State, m: Mask) -> None:
        if observer(st) is not None:
            extra: dict[str, Any] = {} if n is None else {"n": n, "read": read}
            emit(st, ins, kind, m, proxy="async" if group == "bulk" else "generic", group=group, **extra)
    return op


def _one(st: State, ctx_n: int, lane: int) -> SimpleNamespace:
    """A memory context of ``ctx_n`` slots that all act for thread ``lane`` (its CTA, its cluster): the
    bulk copies move many elements for one thread."""
    base = getattr(st, "cluster_base", None)
    return SimpleNamespace(n=ctx_n, cta_of_lane=np.full(ctx_n, int(st.cta_of_lane[lane]), np.int64),
                           lane_index=np.full(ctx_n, lane, np.int64), cluster=getattr(st, "cluster", (1, 1, 1)),
                           cluster_base=None if base is None else np.full(ctx_n, int(base[lane]), np.int64))


def _copy(st: State, lane: int, src_space: str, src: np.ndarray, dst_space: str, dst: np.ndarray, size: int,
          ok: np.ndarray | None = None, fill: bool = True) -> None:
    """Copy elements of ``size`` bytes from ``src[i]`` to ``dst[i]`` for thread ``lane``; elements not
    ``ok`` are read as zero (``fill``) or not written at all."""
    ctx = _one(st, len(src), lane)
    mask = None if ok is None or ok.all() else ok
    if mask is not None and not mask.any():
        if not fill:
            return
        vals = np.zeros(len(src), UINT[size])
    else:
        vals = st.mem.load(src_space, src.astype(np.uint64), size, mask, ctx)
        if mask is not None:
            vals = np.where(mask, vals, vals.dtype.type(0))
    st.mem.store(dst_space, dst.astype(np.uint64), size, vals, None if fill else mask, ctx)


def _complete_tx(st: State, ins: ir.Instruction, dec: Decoding, lane: int, mbar: int, space: str, nbytes: int) -> None:
    """The copy's complete-tx of ``nbytes`` on the mbarrier at ``mbar`` (§9.7.13.15.2)."""
    one = np.zeros(st.n, bool)
    one[lane] = True
    addr = np.full(st.n, mbar, np.uint64)
    done: list[bool] = []

    def fn(w: int, _lane: int) -> tuple[int, int]:
        new, _, fin = update(w, tx=-nbytes)
        done.append(fin)
        return new, 0
    try:
        rmw(st, space, addr, one, fn)
    except MbarError as e:
        raise dec.error(f"complete_tx of {nbytes} bytes: the mbarrier address 0x{mbar:x} {e}", ins) from None
    bump_epoch(st)
    if observer(st) is not None:
        slots, offs = locate(st, space, np.array([mbar], np.uint64), np.array([lane]))
        idx = phase_index(st, int(slots[0]), int(offs[0]), int(done[0]))
        emit(st, ins, EvKind.MBAR, one, space="shared", addr=offs, size=8, sem="relaxed", scope="cta",
             proxy="async", action="complete_tx", tx=np.array([nbytes]), completed=np.array(done),
             phase_no=np.array([idx]), cta=global_ctas(st, slots))


def _lanes(x: object, n: int) -> np.ndarray:
    return np.broadcast_to(np.asarray(x, dtype=np.uint64), (n,))


def _mbar_operand(ins: ir.Instruction, dec: Decoding, op: ir.Operand) -> tuple[Reader, str]:
    if not isinstance(op, ir.Addr):
        raise Unsupported(f"{dec.spelling(ins)} without an [mbar] operand")
    r, sym_space = dec.addr(op)
    return r, "shared" if sym_space in (None, "shared") else sym_space


# ---------------------------------------------------------------------- cp.async (§9.7.9.25.3)
def _cp_async(ins: ir.Instruction, dec: Decoding) -> LaneOp:
    """cp.async.{ca,cg}.shared{::cta}.global [dst], [src], cp-size{, src-size}{, policy}: only the first
    src-size bytes are read (§9.7.9.25.3.1: a masked-off copy with src-size 0 reads nothing, so its source
    address may lie outside any allocation), the rest of the cp-size bytes are zero-filled."""
    mods, ops = ins.mods, ins.operands
    if len(ops) < 3 or not isinstance(ops[2], ir.Imm):
        raise Unsupported("cp.async without a constant cp-size")
    dst, _ = dec.addr(ops[0])
    src, _ = dec.addr(ops[1])
    size = ops[2].value
    # a 4th operand is src-size, unless it is the .L2::cache_hint policy
    has_src_size = len(ops) > 4 or (len(ops) == 4 and not any("cache_hint" in x for x in mods))
    src_size = dec.src(ops[3], "u32") if has_src_size else None
    chunk = 4 if size >= 4 else size

    def op(st: State, m: Mask) -> None:
        d, s_ = _lanes(dst(st), st.n), _lanes(src(st), st.n)
        limit = None if src_size is None else np.broadcast_to(np.asarray(src_size(st)).astype(np.int64), (st.n,))
        act = np.ones(st.n, bool) if m is None else m
        for k in range(0, size, chunk):
            if limit is None:
                v = st.mem.load("global", s_ + np.uint64(k), chunk, m, st)
            else:  # whole chunks below src-size, then the bytes of a chunk it cuts; nothing past it
                full = act & (limit >= k + chunk)
                v = st.mem.load("global", s_ + np.uint64(k), chunk, full, st) if full.any() \
                    else np.zeros(st.n, UINT[chunk])
                v = np.where(full, v, v.dtype.type(0))
                for b in range(chunk):
                    part = act & (limit > k + b) & (limit < k + chunk)
                    if part.any():
                        byte = st.mem.load("global", s_ + np.uint64(k + b), 1, part, st).astype(v.dtype)
                        v = np.where(part, v | (byte << v.dtype.type(8 * b)), v)
            st.mem.store("shared", d + np.uint64(k), chunk, v, m, st)
        if observer(st) is not None:
            sel = np.ones(st.n, bool) if m is None else m
            emit(st, ins, EvKind.ASYNC_ISSUE, m, space="shared", addr=d[sel].copy(), size=size, proxy="generic",
                 op="cp.async", group="cp.async", src_space="global", src=s_[sel].copy())
    return op


def _cp_async_arrive(ins: ir.Instruction, dec: Decoding) -> LaneOp:
    """cp.async.mbarrier.arrive{.noinc}.shared{::cta}.b64 [mbar] (§9.7.9.25.3.4): an arrive-on the
    mbarrier once the thread's earlier cp.async copies are complete — at once here. Without .noinc the
    pending count is raised by one first, so the arrive-on leaves it unchanged."""
    if len(ins.operands) != 1:
        raise Unsupported(f"{dec.spelling(ins)} with {len(ins.operands)} operands")
    addr, space = _mbar_operand(ins, dec, ins.operands[0])
    noinc = "noinc" in ins.mods

    def op(st: State, m: Mask) -> None:
        a = _lanes(addr(st), st.n)
        done = np.zeros(st.n, np.int64)
        if noinc:
            def fn(w: int, lane: int) -> tuple[int, int]:
                new, _, fin = update(w, count=1)
                return new, int(fin)
            try:
                done = rmw(st, space, a, m, fn).astype(np.int64)
            except MbarError as e:
                raise dec.error(f"cp.async.mbarrier.arrive: {e}", ins) from None
            bump_epoch(st)
        if observer(st) is not None:
            lanes = np.arange(st.n) if m is None else np.flatnonzero(m)
            slots, offs = locate(st, space, a[lanes], lanes)
            idx = [phase_index(st, slot, off, int(done[lane]))
                   for lane, slot, off in zip(lanes.tolist(), slots.tolist(), offs.tolist())]
            emit(st, ins, EvKind.MBAR, m, space="shared", addr=offs, size=8, sem="release", scope="cta",
                 action="cp_async_arrive", noinc=noinc, phase_no=np.array(idx), completed=done[lanes].astype(bool),
                 cta=global_ctas(st, slots))
    return op


# ---------------------------------------------------------------------- cp.async.bulk (§9.7.9.25.4)
def _bulk(ins: ir.Instruction, dec: Decoding) -> LaneOp:
    """cp.async.bulk.shared::{cta,cluster}.global.mbarrier::complete_tx::bytes [dst], [src], size, [mbar]
    and cp.async.bulk.global.shared::cta.bulk_group [dst], [src], size: ``size`` bytes (a multiple of 16,
    16-byte aligned addresses)."""
    mods = ins.mods
    if any(x.startswith("multicast") for x in mods) or "cp_mask" in mods:
        raise Unsupported(f"{dec.spelling(ins)} (multicast / cp_mask)")
    spaces = [x.split("::")[0] for x in mods if x.split("::")[0] in ("shared", "global")]
    if spaces[:1] == ["shared"] and not any(x.startswith("mbarrier::") for x in mods):
        raise Unsupported()

    def move(st: State, lane: int, src_space: str, src: np.ndarray, dst_space: str, dst: np.ndarray) -> None:
        _copy(st, lane, src_space, src, dst_space, dst, 8)
    return _bulk_op(ins, dec, "bulk", 8, move)


def _bulk_op(ins: ir.Instruction, dec: Decoding, what: str, elem: int,
             move: Callable[[State, int, str, np.ndarray, str, np.ndarray], None]) -> LaneOp:
    """The lanes of a non-tensor bulk operation ``[dst], [src], size{, [mbar]}``: each moves its ``size``
    bytes (a multiple of 16, 16-byte aligned addresses) in ``elem``-byte elements with ``move``, is
    reported, and performs its complete-tx when it names an mbarrier."""
    mods, ops = ins.mods, ins.operands
    spaces = [x.split("::")[0] for x in mods if x.split("::")[0] in ("shared", "global")]
    if len(spaces) != 2 or len(ops) < 3:
        raise Unsupported()
    dst_space, src_space = spaces
    dst, _ = dec.addr(ops[0])
    src, _ = dec.addr(ops[1])
    size_r = dec.src(ops[2], "u32")
    with_mbar = any(x.startswith("mbarrier::") for x in mods)
    if len(ops) < (4 if with_mbar else 3):
        raise Unsupported(f"{dec.spelling(ins)} with {len(ops)} operands")
    mbar = _mbar_operand(ins, dec, ops[3]) if with_mbar else None
    spelling = ".".join((ins.opcode, *mods[:mods.index("bulk") + 1]))

    def op(st: State, m: Mask) -> None:
        n = st.n
        d, s_ = _lanes(dst(st), n), _lanes(src(st), n)
        sz = np.broadcast_to(np.asarray(size_r(st)).astype(np.int64), (n,))
        mb = None if mbar is None else _lanes(mbar[0](st), n)
        for lane in (np.arange(n) if m is None else np.flatnonzero(m)).tolist():
            k = int(sz[lane])
            if k % 16 or int(d[lane]) % 16 or int(s_[lane]) % 16:
                raise dec.error(f"{spelling} of {k} bytes from 0x{int(s_[lane]):x} to 0x{int(d[lane]):x}: "
                                "size and addresses must be multiples of 16", ins)
            offs = np.arange(0, k, elem, dtype=np.uint64)
            move(st, lane, src_space, s_[lane] + offs, dst_space, d[lane] + offs)
            mbar_at = None if mb is None else int(mb[lane])
            if observer(st) is not None:
                _report_copy(st, ins, lane, what, dst_space, d[lane] + offs, src_space, s_[lane] + offs, elem,
                             k, mbar_at, None if mbar is None else mbar[1])
            if mbar_at is not None and mbar is not None:
                _complete_tx(st, ins, dec, lane, mbar_at, mbar[1], k)
    return op


def _report_copy(st: State, ins: ir.Instruction, lane: int, what: str, dst_space: str, dst: np.ndarray,
                 src_space: str, src: np.ndarray, elem: int, nbytes: int, mbar_at: int | None,
                 mbar_space: str | None) -> None:
    """ASYNC_ISSUE of one thread's asynchronous copy: element addresses of both sides (shared ones as
    offsets of the CTA that holds them — detail ``shared_cta``, launch-wide, when that is another CTA of
    the cluster), the completion (``group`` "mbarrier" with the barrier's offset, or "bulk")."""
    one = np.zeros(st.n, bool)
    one[lane] = True
    extra: dict[str, Any] = {}
    if dst_space == "shared":
        slots, dst = cluster_slots(st, np.full(len(dst), lane), dst.astype(np.uint64))
        if len(slots) and int(slots[0]) != int(st.cta_of_lane[lane]):
            extra["shared_cta"] = int(global_ctas(st, slots[:1])[0])
    mb_off = None
    if mbar_at is not None and mbar_space is not None:
        mb_off = int(locate(st, mbar_space, np.array([mbar_at], np.uint64), np.array([lane]))[1][0])
    emit(st, ins, EvKind.ASYNC_ISSUE, one, space=dst_space, addr=dst[:1].astype(np.uint64), size=nbytes,
         proxy="async", op=what, group="mbarrier" if mb_off is not None else "bulk", src_space=src_space,
         elem=elem, dst_bytes=[dst.astype(np.uint64)], src_bytes=[src.astype(np.uint64)], mbar=mb_off, **extra)


# ---------------------------------------------------------------------- cp.async.bulk.tensor (§9.7.9.25.5)
def _read_tensormap(st: State, ins: ir.Instruction, dec: Decoding, lane: int, space: str, addr: int) -> TensorMap:
    ctx = _one(st, TMAP_SIZE // 8, lane)
    words = st.mem.load(space, np.uint64(addr) + np.arange(0, TMAP_SIZE, 8, dtype=np.uint64), 8, None, ctx)
    try:
        return TensorMap.decode(words.astype("<u8").tobytes())
    except TensorMapError as e:
        raise dec.error(f"the tensor map at 0x{addr:x}: {e}", ins) from None


def _tensor(ins: ir.Instruction, dec: Decoding) -> LaneOp:
    """cp.async.bulk.tensor.Nd.shared::{cta,cluster}.global{.tile}.mbarrier::complete_tx::bytes [dst],
    [tmap, {c0, …}], [mbar] (load) and cp.async.bulk.tensor.Nd.global.shared::cta{.tile}.bulk_group
    [tmap, {c0, …}], [src] (store): the box at coordinates c (dim 0 first, signed) of the tensor map's
    tensor, laid out in shared memory densely and swizzled (tensormap.py); a load fills out-of-bounds
    elements with zeros, a store skips them. A load's complete-tx counts the whole box. With
    ``.multicast::cluster`` and a ctaMask operand after [mbar], the box lands at the same shared offset
    in every CTA of the cluster whose rank bit is set, each signalling its own mbarrier at [mbar]'s
    offset (§9.7.9.25.5.1)."""
    mods, ops = ins.mods, ins.operands
    if any(x in mods for x in ("im2col", "im2col_no_offs", "tile::gather4", "tile::scatter4")) \
            or any(x.startswith("cta_group") for x in mods):
        raise Unsupported(f"{dec.spelling(ins)} (only the tile mode is modelled)")
    multicast = "multicast::cluster" in mods
    dims = next((int(x[0]) for x in mods if len(x) == 2 and x[1] == "d" and x[0] in "12345"), None)
    spaces = [x.split("::")[0] for x in mods if x.split("::")[0] in ("shared", "global")]
    if dims is None or len(spaces) != 2:
        raise Unsupported()
    load = spaces[0] == "shared"
    if len(ops) < 2:
        raise Unsupported(f"{dec.spelling(ins)} with {len(ops)} operands")
    tm_op = ops[1] if load else ops[0]
    if not isinstance(tm_op, ir.AddrList) or len(tm_op.items) != 2 or not isinstance(tm_op.items[1], ir.Vec):
        raise Unsupported(f"{dec.spelling(ins)} without a [tensorMap, {{coordinates}}] operand")
    base = tm_op.items[0]
    if not isinstance(base, (ir.Reg, ir.Sym)):
        raise Unsupported()
    tm_addr, tm_sym = dec.addr(ir.Addr(base, 0))
    tm_space = tm_sym or "generic"
    coords = [dec.src(c, "s32") for c in tm_op.items[1].items]
    if len(coords) != dims:
        raise dec.error(f"{dec.spelling(ins)} takes {dims} coordinates, got {len(coords)}", ins)
    smem, _ = dec.addr(ops[0] if load else ops[1])
    if load and (len(ops) < 3 or not any(x.startswith("mbarrier::complete_tx") for x in mods)):
        raise Unsupported()
    mbar = _mbar_operand(ins, dec, ops[2]) if load else None
    mask_r = None
    if multicast:
        if not load or len(ops) < 4:
            raise Unsupported(f"{dec.spelling(ins)} without a ctaMask")
        mask_r = dec.src(ops[3], "u16")

    def op(st: State, m: Mask) -> None:
        n = st.n
        ta, sm = _lanes(tm_addr(st), n), _lanes(smem(st), n)
        cs = [np.broadcast_to(np.asarray(c(st)).astype(np.int64), (n,)) for c in coords]
        mb = None if mbar is None else _lanes(mbar[0](st), n)
        masks = None if mask_r is None else np.broadcast_to(np.asarray(mask_r(st)).astype(np.int64), (n,))
        for lane in (np.arange(n) if m is None else np.flatnonzero(m)).tolist():
            tm = _read_tensormap(st, ins, dec, lane, tm_space, int(ta[lane]))
            if tm.rank != dims:
                raise dec.error(f"a {dims}d copy with a tensor map of rank {tm.rank}", ins)
            s0 = int(sm[lane])
            if s0 % 128:
                raise dec.error(f"the shared-memory box address 0x{s0:x} is not 128-byte aligned", ins)
            gaddr, ok, off = tm.box_elements(tuple(int(c[lane]) for c in cs))
            saddr = swizzle(np.int64(s0) + off, tm.swizzle_bytes)  # the swizzle only touches bits 4..9
            targets: list[tuple[np.ndarray, int | None]] = []
            if masks is None:
                targets.append((saddr, None if mb is None else int(mb[lane])))
            else:
                size = int(np.prod(getattr(st, "cluster", (1, 1, 1))))
                ranks = [r for r in range(16) if int(masks[lane]) >> r & 1]
                if not ranks or max(ranks) >= size:
                    raise dec.error(f"ctaMask 0x{int(masks[lane]):x} names CTA ranks outside the cluster of "
                                    f"{size}", ins)
                low = np.uint64((1 << CLUSTER_SHIFT) - 1)
                for r in ranks:
                    rank = np.full(len(saddr), r, np.uint64)
                    assert mb is not None
                    targets.append((cluster_address(rank, saddr.astype(np.uint64) & low).astype(np.int64),
                                    int(cluster_address(np.array([r], np.uint64),
                                                        np.array([int(mb[lane])], np.uint64) & low)[0])))
            for dst, mbar_at in targets:
                if load:
                    _copy(st, lane, "global", gaddr, "shared", dst, tm.esize, ok, fill=True)
                else:
                    _copy(st, lane, "shared", dst, "global", gaddr, tm.esize, ok, fill=False)
                if observer(st) is not None:
                    g_ok = gaddr[ok].astype(np.uint64)
                    what = "tensor_load" if load else "tensor_store"
                    if load:
                        _report_copy(st, ins, lane, what, "shared", dst, "global", g_ok, tm.esize, tm.box_bytes,
                                     mbar_at, None if mbar is None else mbar[1])
                    else:
                        _report_copy(st, ins, lane, what, "global", g_ok, "shared", dst, tm.esize, tm.box_bytes,
                                     None, None)
                if mbar_at is not None and mbar is not None:
                    _complete_tx(st, ins, dec, lane, mbar_at, mbar[1], tm.box_bytes)
    return op


# ---------------------------------------------------------------------- cp.reduce.async.bulk (§9.7.9.25.4.2, .5.3)
_RED_OPS = ("add", "min", "max", "inc", "dec", "and", "or", "xor")
_RED_TYPES = {"b32": 4, "u32": 4, "s32": 4, "b64": 8, "u64": 8, "s64": 8, "f32": 4, "f64": 8, "f16": 2, "bf16": 2}


def _combine(st: State, lane: int, src_space: str, src: np.ndarray, dst_space: str, dst: np.ndarray, opn: str,
             typ: str, size: int) -> None:
    """dst[i] = dst[i] op src[i] for thread ``lane`` (element by element, as atom would)."""
    if not len(src):
        return
    ctx = _one(st, len(src), lane)
    a = st.mem.load(src_space, src.astype(np.uint64), size, None, ctx)
    cur = st.mem.load(dst_space, dst.astype(np.uint64), size, None, ctx)
    out = np.array([apply_atomic(opn, typ, size, int(c), int(x), None) for c, x in zip(cur.tolist(), a.tolist())],
                   dtype=UINT[size])
    st.mem.store(dst_space, dst.astype(np.uint64), size, out, None, ctx)


def _reduce(ins: ir.Instruction, dec: Decoding) -> LaneOp:
    """cp.reduce.async.bulk.global.shared::cta.bulk_group.op.type [dst], [src], size and
    .shared::cluster.shared::cta.mbarrier::complete_tx::bytes.op.type [dst], [src], size, [mbar]; and
    cp.reduce.async.bulk.tensor.Nd.global.shared::cta.op{.tile}.bulk_group [tmap, {c…}], [src]: each
    destination element combined with the source element by ``op`` (as ``red`` would, §9.7.13.6), out-of-
    bounds box elements skipped."""
    mods = ins.mods
    opn = next((x for x in mods if x in _RED_OPS), None)
    if opn is None or any(x.startswith("multicast") for x in mods):
        raise Unsupported()
    if "tensor" in mods:
        return _reduce_tensor(ins, dec, opn)
    typ = next((x for x in mods if x in _RED_TYPES), None)
    if typ is None:
        raise Unsupported()
    esize = _RED_TYPES[typ]

    def move(st: State, lane: int, src_space: str, src: np.ndarray, dst_space: str, dst: np.ndarray) -> None:
        _combine(st, lane, src_space, src, dst_space, dst, opn, typ, esize)
    return _bulk_op(ins, dec, "reduce", esize, move)


_TMAP_TYPES = {0: "u8", 1: "u16", 2: "u32", 3: "s32", 4: "u64", 5: "s64", 6: "f16", 7: "f32", 8: "f64", 9: "bf16"}


def _reduce_tensor(ins: ir.Instruction, dec: Decoding, opn: str) -> LaneOp:
    mods, ops = ins.mods, ins.operands
    dims = next((int(x[0]) for x in mods if len(x) == 2 and x[1] == "d" and x[0] in "12345"), None)
    tm_op = ops[0] if len(ops) == 2 else None
    if dims is None or "im2col" in mods or not isinstance(tm_op, ir.AddrList) or len(tm_op.items) != 2 \
            or not isinstance(tm_op.items[1], ir.Vec) or not isinstance(tm_op.items[0], (ir.Reg, ir.Sym)):
        raise Unsupported()
    tm_addr, tm_sym = dec.addr(ir.Addr(tm_op.items[0], 0))
    coords = [dec.src(c, "s32") for c in tm_op.items[1].items]
    smem, _ = dec.addr(ops[1])

    def op(st: State, m: Mask) -> None:
        n = st.n
        ta, sm = _lanes(tm_addr(st), n), _lanes(smem(st), n)
        cs = [np.broadcast_to(np.asarray(c(st)).astype(np.int64), (n,)) for c in coords]
        for lane in (np.arange(n) if m is None else np.flatnonzero(m)).tolist():
            tm = _read_tensormap(st, ins, dec, lane, tm_sym or "generic", int(ta[lane]))
            typ = _TMAP_TYPES.get(tm.dtype)
            if tm.rank != dims or typ is None:
                raise dec.error(f"a {dims}d reduction with a rank-{tm.rank} tensor map of type code {tm.dtype}", ins)
            gaddr, ok, off = tm.box_elements(tuple(int(c[lane]) for c in cs))
            saddr = swizzle(np.int64(int(sm[lane])) + off, tm.swizzle_bytes)
            _combine(st, lane, "shared", saddr[ok], "global", gaddr[ok], opn, typ, tm.esize)
            if observer(st) is not None:
                _report_copy(st, ins, lane, "tensor_reduce", "global", gaddr[ok], "shared", saddr[ok], tm.esize,
                             tm.box_bytes, None, None)
    return op


# ---------------------------------------------------------------------- st.async / red.async (§9.7.9.12, §9.7.13.7)
def b_st_red_async(ins: ir.Instruction, dec: Decoding) -> LaneOp:
    """st.async{.weak}.shared::cluster.mbarrier::complete_tx::bytes{.v2,.v4}.type [a], b, [mbar] and
    red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.op.type [a], b, [mbar]: a store
    (a reduction, as red would) into the shared memory of a CTA of the cluster, then the complete-tx of
    its bytes on the mbarrier at [mbar] (in the same CTA as [a])."""
    mods, ops = ins.mods, ins.operands
    red = ins.opcode == "red"
    if len(ops) != 3 or not any(x.startswith("mbarrier::complete_tx") for x in mods):
        raise Unsupported()
    typ = next((x for x in mods if x in _RED_TYPES), None)
    opn = next((x for x in mods if x in _RED_OPS), None) if red else None
    if typ is None or (red and opn is None):
        raise Unsupported()
    esize = _RED_TYPES[typ]
    vec = next((int(x[1:]) for x in mods if x in ("v2", "v4")), 1)
    addr, _ = dec.addr(ops[0])
    vals = [dec.src(x, f"b{8 * esize}") for x in (ops[1].items if isinstance(ops[1], ir.Vec) else (ops[1],))]
    if len(vals) != vec:
        raise Unsupported(f"{dec.spelling(ins)} with {len(vals)} values")
    mbar = _mbar_operand(ins, dec, ops[2])

    def op(st: State, m: Mask) -> None:
        n = st.n
        a, mb = _lanes(addr(st), n), _lanes(mbar[0](st), n)
        vs = [np.broadcast_to(np.asarray(v(st)).astype(UINT[esize]), (n,)) for v in vals]
        for lane in (np.arange(n) if m is None else np.flatnonzero(m)).tolist():
            dst = int(a[lane]) + np.arange(vec, dtype=np.int64) * esize
            ctx = _one(st, vec, lane)
            new = np.array([int(v[lane]) for v in vs], UINT[esize])
            if red:
                assert opn is not None
                cur = st.mem.load("shared", dst.astype(np.uint64), esize, None, ctx)
                new = np.array([apply_atomic(opn, typ, esize, int(c), int(x), None)
                                for c, x in zip(cur.tolist(), new.tolist())], UINT[esize])
            st.mem.store("shared", dst.astype(np.uint64), esize, new, None, ctx)
            if observer(st) is not None:
                _report_copy(st, ins, lane, "red_async" if red else "st_async", "shared", dst, "register",
                             np.zeros(0, np.uint64), esize, vec * esize, int(mb[lane]), mbar[1])
            _complete_tx(st, ins, dec, lane, int(mb[lane]), mbar[1], vec * esize)
    return op
