"""Data movement (PTX ISA §9.7.9): ``mov``, ``cvta``, ``ld``/``ldu``/``st`` (``cp.async``: async_copy.py), and the
parallel-synchronisation memory operations ``atom``/``red`` (§9.7.13.5-6)."""

from __future__ import annotations

import numpy as np

from ptxkit import ir
from ptxkit.exec_sim.events import EvKind
from ptxkit.exec_sim.memory import (
    CLUSTER_SHIFT,
    CONST_WINDOW,
    LOCAL_WINDOW,
    PARAM_WINDOW,
    SHARED_WINDOW,
    UINT,
    WINDOW_SIZE,
    cluster_address,
)
from ptxkit.exec_sim.observe import access_info, report
from ptxkit.exec_sim.semantics.common import (
    SPACES,
    Decoding,
    LaneOp,
    Mask,
    Reader,
    State,
    Unsupported,
    bits_of,
    items,
    one_type,
    operands,
    space_of,
    uint_of,
    vector_width,
)
from ptxkit.exec_sim.values import UINT_BITS, np_type


def b_mov(ins: ir.Instruction, dec: Decoding) -> LaneOp:
    typ = one_type(ins, dec)
    ops = operands(ins, 2)
    d, s = ops
    bits = bits_of(typ) if typ != "pred" else 1
    if isinstance(s, ir.Vec) and isinstance(d, ir.Vec):  # mov.vN: element-wise, all sources read first
        if len(s.items) != len(d.items):
            raise Unsupported("vector mov with different lengths")
        rs = [dec.src(x, typ) for x in s.items]
        ws = [dec.dst(x, typ) for x in d.items]

        def vmov(st: State, m: Mask) -> None:
            vals = [r(st) for r in rs]
            for w, v in zip(ws, vals):
                w(st, v, m)
        return vmov
    if isinstance(s, ir.Vec):  # pack: first element in the low bits
        k = len(s.items)
        eb = bits // k
        et = f"b{eb}"
        srcs = [dec.src(x, et) if not isinstance(x, ir.Sink) else (lambda st: UINT_BITS[eb](0)) for x in s.items]
        w = dec.dst(d, typ)
        ut = UINT_BITS[bits]

        def pack(st: State, m: Mask) -> None:
            r = ut(0)
            for i, f in enumerate(srcs):
                r = r | (np.asarray(f(st)).astype(ut) << ut(eb * i))
            w(st, np.asarray(r, dtype=ut).view(np_type(typ)), m)
        return pack
    if isinstance(d, ir.Vec):  # unpack
        k = len(d.items)
        eb = bits // k
        a = dec.src(s, f"b{bits}")
        ws = [dec.dst(x, f"b{eb}") for x in d.items]
        ut = UINT_BITS[bits]
        elem_t = UINT_BITS[eb]

        def unpack(st: State, m: Mask) -> None:
            v = np.asarray(a(st)).view(ut)
            for i, w_ in enumerate(ws):
                w_(st, (v >> ut(eb * i)).astype(elem_t), m)
        return unpack
    a = dec.src(s, typ)
    w = dec.dst(d, typ)
    return lambda st, m: w(st, a(st), m)


def b_cvta(ins: ir.Instruction, dec: Decoding) -> LaneOp:
    """cvta{.to}.space.size (ISA §9.7.9.19): shared/local windows of the generic space."""
    ops = operands(ins, 2)
    typ = one_type(ins, dec)
    to = "to" in ins.mods
    space = [x for x in ins.mods if x.split("::")[0] in SPACES]
    sp = space[0].split("::")[0] if space else "global"
    base = {"shared": SHARED_WINDOW, "local": LOCAL_WINDOW, "const": CONST_WINDOW, "param": PARAM_WINDOW}.get(sp, 0)
    a, w = dec.src(ops[1], typ), dec.dst(ops[0], typ)
    ut = uint_of(typ)
    b = ut(base & ((1 << bits_of(typ)) - 1))
    if to:
        return lambda st, m: w(st, np.asarray(a(st)).view(ut) - b, m)
    return lambda st, m: w(st, np.asarray(a(st)).view(ut) + b, m)


def b_mapa(ins: ir.Instruction, dec: Decoding) -> LaneOp:
    """mapa{.shared::cluster}.{u32,u64} d, a, b (ISA §9.7.9.23): the address of the variable at ``a`` in
    the shared memory of the cluster's CTA of rank ``b`` — a ``.shared::cluster`` address, or without the
    state space a generic one (memory.cluster_address gives the encoding)."""
    typ = one_type(ins, dec)
    d, a, b = operands(ins, 3)
    generic = not any(x.startswith("shared") for x in ins.mods)
    ra, rb, w = dec.src(a, typ), dec.src(b, "u32"), dec.dst(d, typ)
    ut = uint_of(typ)

    def op(st: State, m: Mask) -> None:
        addr = np.broadcast_to(np.asarray(ra(st)).astype(np.uint64), (st.n,))
        rank = np.broadcast_to(np.asarray(rb(st)).astype(np.uint64), (st.n,))
        off = addr - np.uint64(SHARED_WINDOW) if generic else addr
        out = cluster_address(rank, off & np.uint64((1 << CLUSTER_SHIFT) - 1))
        w(st, (out + np.uint64(SHARED_WINDOW) if generic else out).astype(ut), m)
    return op


def b_getctarank(ins: ir.Instruction, dec: Decoding) -> LaneOp:
    """getctarank{.shared::cluster}.{u32,u64} d, a (ISA §9.7.9.24): the cluster rank of the CTA whose
    shared memory holds ``a`` (a ``.shared::cluster`` or, without the state space, a generic address)."""
    typ = one_type(ins, dec)
    d, a = operands(ins, 2)
    generic = not any(x.startswith("shared") for x in ins.mods)
    ra, w = dec.src(a, typ), dec.dst(d, "u32")

    def op(st: State, m: Mask) -> None:
        addr = np.broadcast_to(np.asarray(ra(st)).astype(np.uint64), (st.n,))
        off = addr - np.uint64(SHARED_WINDOW) if generic else addr
        remote = off >> np.uint64(CLUSTER_SHIFT)
        w(st, np.where(remote > 0, remote - np.uint64(1), st.sreg("%cluster_ctarank")).astype(np.uint32), m)
    return op


_ISSPACE = {"shared": SHARED_WINDOW, "local": LOCAL_WINDOW, "const": CONST_WINDOW, "param": PARAM_WINDOW}


def b_isspacep(ins: ir.Instruction, dec: Decoding) -> LaneOp:
    """isspacep.{global,shared{::cta,::cluster},local,const,param{::entry}} p, a (ISA §9.7.9.20): does the
    generic address ``a`` fall in that state space's window (memory.py: global addresses are the rest)?
    ``.shared{::cta}`` excludes the other CTAs' windows of the cluster."""
    space = next((x for x in ins.mods if x.split("::")[0] in ("global", *_ISSPACE)), None)
    if space is None:
        raise Unsupported()
    d, a = operands(ins, 2)
    ra, w = dec.src(a, "u64"), dec.dst(d, "pred")
    base = space.split("::")[0]

    def op(st: State, m: Mask) -> None:
        addr = np.broadcast_to(np.asarray(ra(st)).astype(np.uint64), (st.n,))
        inwin = {b: (addr >= np.uint64(w0)) & (addr < np.uint64(w0 + WINDOW_SIZE)) for b, w0 in _ISSPACE.items()}
        if base == "global":
            r = ~np.logical_or.reduce(list(inwin.values())) & (addr != 0)
        else:
            r = inwin[base]
            if space in ("shared", "shared::cta"):  # .shared is .shared::cta (ISA §5.1.5)
                r = r & ((addr - np.uint64(SHARED_WINDOW)) >> np.uint64(CLUSTER_SHIFT) == 0)
        w(st, r, m)
    return op


def _access(ins: ir.Instruction, dec: Decoding, at: int) -> tuple[str, ir.Operand, Reader, str, int]:
    """(type, the data operand, address reader, state space, element bytes) of ld/st: the address is
    operand ``at``; a trailing .L2::cache_hint policy operand is ignored (ISA §9.7.9.8-9)."""
    typ = one_type(ins, dec)
    hint = any("cache_hint" in x for x in ins.mods)
    ops = ins.operands[:2] if hint and len(ins.operands) == 3 else operands(ins, 2)
    addr, sym_space = dec.addr(ops[at])
    return typ, ops[1 - at], addr, space_of(ins, sym_space), max(bits_of(typ) // 8, 1)


def b_ld(ins: ir.Instruction, dec: Decoding) -> LaneOp:
    """ld / ld.global.nc / ldu (ISA §9.7.9.8): vector loads read consecutive elements."""
    typ, data, addr, space, size = _access(ins, dec, 1)
    dsts = items(data)
    if len(dsts) != vector_width(ins.mods):
        raise Unsupported("vector load with a mismatched destination count")
    ws = [dec.dst(x, typ) for x in dsts]
    dt = np_type(typ)
    info = access_info(ins, EvKind.LD)
    strong = info.sem != "weak"

    def op(st: State, m: Mask) -> None:
        base = addr(st)
        if np.ndim(base) == 0:
            base = np.full(st.n, base, np.uint64)
        for i, w in enumerate(ws):
            a = base + np.uint64(i * size) if i else base
            raw = st.mem.load(space, a, size, m, st)
            if st.observer is not None:
                report(st, EvKind.LD, info, space, a, size, m,
                       {"value": raw.astype(np.uint64)} if strong else None)
            w(st, raw.view(dt) if dt != raw.dtype else raw, m)
    return op


def b_st(ins: ir.Instruction, dec: Decoding) -> LaneOp:
    """st (ISA §9.7.9.9): vector stores write consecutive elements."""
    typ, data, addr, space, size = _access(ins, dec, 0)
    rs = [dec.src(x, typ) for x in items(data)]
    ut = UINT[size]
    info = access_info(ins, EvKind.ST)

    def op(st: State, m: Mask) -> None:
        base = addr(st)
        if np.ndim(base) == 0:
            base = np.full(st.n, base, np.uint64)
        for i, r in enumerate(rs):
            v = np.asarray(r(st))
            a = base + np.uint64(i * size) if i else base
            st.mem.store(space, a, size, v.view(ut) if v.dtype != ut else v, m, st)
            if st.observer is not None:
                vals = np.broadcast_to(v.view(ut) if v.dtype != ut else v, (st.n,)).astype(np.uint64)
                report(st, EvKind.ST, info, space, a, size, m, {"value": vals})
    return op


_ATOM_OPS = ("and", "or", "xor", "cas", "exch", "add", "inc", "dec", "min", "max")


def b_atom(ins: ir.Instruction, dec: Decoding) -> LaneOp:
    """atom / red (ISA §9.7.13.5-6): lanes applied in lane order (one valid serialisation)."""
    typ = one_type(ins, dec)
    opns = [x for x in ins.mods if x in _ATOM_OPS]
    if not opns or vector_width(ins.mods) != 1:
        raise Unsupported()
    opn = opns[0]
    ops = list(ins.operands)
    red = ins.opcode == "red"
    dst = None if red else ops.pop(0)
    addr, sym_space = dec.addr(ops[0])
    space = space_of(ins, sym_space)
    size = max(bits_of(typ) // 8, 1)
    rt = f"b{size * 8}"
    a = dec.src(ops[1], rt)
    b = dec.src(ops[2], rt) if len(ops) > 2 else None
    w = dec.dst(dst, rt) if dst is not None else None
    info = access_info(ins, EvKind.RMW)
    # the value an RMW returns is used unless it is red or atom with the sink `_` (ISA §9.7.13.5)
    ret = dst is not None and not isinstance(dst, ir.Sink)

    def op(st: State, m: Mask) -> None:
        base = addr(st)
        if np.ndim(base) == 0:
            base = np.full(st.n, base, np.uint64)
        old = st.mem.atomic(space, opn, typ, base, size, a(st), b(st) if b else None, m, st)
        if st.observer is not None:
            report(st, EvKind.RMW, info, space, base, size, m,
                   {"value": old.astype(np.uint64), "ret": ret, "op": opn})
        if w is not None:
            w(st, old, m)
    return op


def b_fence(ins: ir.Instruction, dec: Decoding) -> LaneOp:
    """fence / membar (ISA §9.7.13.4): no effect on the sequentially consistent state of a run (the
    ordering is respected by any sequential schedule); reported to an observer as a FENCE event."""
    info = access_info(ins, EvKind.FENCE)

    def op(st: State, m: Mask) -> None:
        if st.observer is not None:
            report(st, EvKind.FENCE, info, "", None, 0, m)
    return op
