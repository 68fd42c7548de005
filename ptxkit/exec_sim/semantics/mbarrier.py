"""``mbarrier.*`` (PTX ISA §9.7.13.15): barrier objects in shared memory with phases, an arrival count
and a transaction count.

An mbarrier object is an opaque, 8-byte aligned 64-bit word of shared memory (§9.7.13.15.1); the
simulator's encoding of it is: bits 0-19 pending arrivals of the current phase, 20-39 the expected
arrival count, 40-60 the transaction count (tx-count, signed 21 bits: a complete_tx may come before
its expect_tx), bit 62 "initialised", bit 63 the current phase's parity. A phase completes when its
pending arrivals and its tx-count are both zero (§9.7.13.15.2-4); the parity flips and the pending
count is reloaded with the expected count (which ``arrive_drop`` lowers for later phases).

The ``state`` an arrive returns (§9.7.13.15.13) is: bit 63 the parity of the phase arrived on, bits
0-19 the arrivals still pending in it after this one (``pending_count`` reads them). ``test_wait``
is non-blocking; ``try_wait`` is potentially blocking, and the machine runs it as a wait (a valid
schedule: the thread is suspended until the phase completes; machine.py reports the deadlock when
it never can). Lanes of one instruction act on a barrier one after another in lane order.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ptxkit import ir
from ptxkit.errors import PtxkitError
from ptxkit.exec_sim.events import EvKind
from ptxkit.exec_sim.memory import SHARED_WINDOW, WINDOW_SIZE, cluster_slots, global_ctas
from ptxkit.exec_sim.semantics.common import Decoding, LaneOp, Mask, Reader, State, Unsupported, space_of
from ptxkit.exec_sim.semantics.report import emit, observer, sem_scope

_MASK20 = (1 << 20) - 1
_TX_BITS = 21
VALID = 1 << 62
PHASE = 1 << 63
MAX_COUNT = _MASK20  # arrival counts are 1 .. 2^20 - 1 (§9.7.13.15.9)
MAX_TX = (1 << 20) - 1  # tx-count range -(2^20-1) .. 2^20-1 (§9.7.13.15.1)


def unpack(w: int) -> tuple[int, int, int, int, bool]:
    """(pending, expected, tx-count, phase parity, initialised) of an mbarrier word."""
    tx = (w >> 40) & ((1 << _TX_BITS) - 1)
    if tx >> (_TX_BITS - 1):
        tx -= 1 << _TX_BITS
    return w & _MASK20, (w >> 20) & _MASK20, tx, w >> 63, bool(w & VALID)


def pack(pending: int, expected: int, tx: int, phase: int) -> int:
    return (pending | expected << 20 | (tx & ((1 << _TX_BITS) - 1)) << 40 | VALID | phase << 63)


class MbarError(Exception):
    """Undefined behaviour on an mbarrier (located by the closure that raises it)."""


def update(w: int, *, count: int = 0, tx: int = 0, drop: bool = False) -> tuple[int, int, bool]:
    """Apply tx-count ``tx`` (expect_tx: +, complete_tx: −), then ``count`` arrivals (arrive_drop: also
    for later phases); returns (new word, the arrive's state, completed the phase?)."""
    pending, expected, txc, phase, ok = unpack(w)
    if not ok:
        raise MbarError("holds no initialised mbarrier object (mbarrier.init)")
    txc += tx
    if abs(txc) > MAX_TX:
        raise MbarError(f"tx-count {txc} is outside the range ±(2^20-1)")
    if count > pending:
        raise MbarError(f"gets {count} arrival(s) with {pending} pending in the current phase")
    pending -= count
    if drop:
        expected -= count
    done = pending == 0 and txc == 0
    state = phase << 63 | (0 if done else pending)
    if done:
        phase ^= 1
        pending = expected
    return pack(pending, expected, txc, phase), state, done


def shared_offset(addr: np.ndarray, space: str) -> np.ndarray:
    """Shared-window offsets of shared or generic addresses (for the events)."""
    a = addr.astype(np.uint64)
    if space == "generic":
        inwin = (a >= np.uint64(SHARED_WINDOW)) & (a < np.uint64(SHARED_WINDOW + WINDOW_SIZE))
        a = np.where(inwin, a - np.uint64(SHARED_WINDOW), a)
    return a


def locate(st: State, space: str, addr: np.ndarray, lanes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(batch CTA slot, shared offset) of the shared/generic addresses ``addr`` used by ``lanes`` — a
    ``.shared::cluster`` address (memory.cluster_address) names another CTA of the cluster."""
    return cluster_slots(st, lanes, shared_offset(addr, space))


def rmw(st: State, space: str, addr: np.ndarray, m: Mask,
        fn: Callable[[int, int], tuple[int, int]]) -> np.ndarray:
    """Read-modify-write the mbarrier words at ``addr`` for the lanes of ``m``, one lane after another:
    ``fn(word, lane) -> (new word, result)``; returns each lane's result (uint64)."""
    n = st.n
    act = np.ones(n, bool) if m is None else m
    words = st.mem.load(space, addr, 8, act, st)
    cur: dict[tuple[int, int], int] = {}
    writer: dict[tuple[int, int], int] = {}
    out = np.zeros(n, np.uint64)
    lanes = np.flatnonzero(act)
    slots, offs = locate(st, space, addr[lanes], lanes)
    for lane, slot, off in zip(lanes.tolist(), slots.tolist(), offs.tolist()):
        key = (slot, off)
        new, res = fn(cur.get(key, int(words[lane])), lane)
        cur[key] = new
        writer.setdefault(key, lane)
        out[lane] = res
    wmask = np.zeros(n, bool)
    vals = np.zeros(n, np.uint64)
    for key, lane in writer.items():
        wmask[lane] = True
        vals[lane] = cur[key]
    st.mem.store(space, addr, 8, vals, wmask, st)
    return out


def bump_epoch(st: State) -> None:
    """Count a change of some mbarrier's state (machine.py: progress for blocked try_waits)."""
    if hasattr(st, "mbar_epoch"):
        st.mbar_epoch += 1


def phase_index(st: State, cta: int, off: int, completed: int = 0) -> int:
    """The index of the current phase of the barrier (CTA ``cta``, offset ``off``) — events only:
    a side count of completed phases, advanced by ``completed``."""
    table = st.__dict__.setdefault("_mbar_phases", {})
    k = table.get((cta, off), 0)
    if completed:
        table[(cta, off)] = k + completed
    return k


def _operands(ins: ir.Instruction, dec: Decoding) -> tuple[Reader, str]:
    addr_op = next((o for o in ins.operands if isinstance(o, ir.Addr)), None)
    if addr_op is None:
        raise Unsupported(f"{dec.spelling(ins)} without an [address] operand")
    addr, sym_space = dec.addr(addr_op)
    space = space_of(ins, sym_space)
    if space not in ("shared", "generic"):
        raise Unsupported(f"{dec.spelling(ins)} outside shared memory")
    return addr, space


def _lanes_addr(st: State, addr: Reader) -> np.ndarray:
    return np.broadcast_to(np.asarray(addr(st), dtype=np.uint64), (st.n,))


def b_mbarrier(ins: ir.Instruction, dec: Decoding) -> LaneOp:
    """mbarrier.{init, inval, arrive, arrive_drop, expect_tx, complete_tx, test_wait, try_wait,
    pending_count} (§9.7.13.15.9-16); see the module docstring."""
    mods = ins.mods
    if not mods:
        raise Unsupported()
    action = mods[0]
    ops = ins.operands
    counts = {"init": (2,), "inval": (1,), "expect_tx": (2,), "complete_tx": (2,), "arrive": (2, 3),
              "arrive_drop": (2, 3), "test_wait": (3,), "try_wait": (3, 4), "pending_count": (2,)}
    if len(ops) not in counts.get(action, (len(ops),)):
        raise Unsupported(f"{dec.spelling(ins)} with {len(ops)} operands")

    def fail(st: State, lane: int, addr: np.ndarray, e: MbarError) -> PtxkitError:
        return dec.error(f"{action}: the {'shared' if space != 'generic' else 'generic'} address "
                         f"0x{int(addr[lane]):x} (lane {lane}) {e}", ins)

    if action == "pending_count":
        w = dec.dst(ops[0], "u32")
        s = dec.src(ops[1], "b64")
        return lambda st, m: w(st, (np.asarray(s(st)).astype(np.uint64) & np.uint64(_MASK20)).astype(np.uint32), m)
    addr_r, space = _operands(ins, dec)
    sem, scope = sem_scope(ins)

    def run(st: State, m: Mask, fn: Callable[[int, int], tuple[int, int]]) -> tuple[np.ndarray, np.ndarray]:
        a = _lanes_addr(st, addr_r)
        lane_now = [0]

        def guarded(w: int, lane: int) -> tuple[int, int]:
            lane_now[0] = lane
            return fn(w, lane)
        try:
            return rmw(st, space, a, m, guarded), a
        except MbarError as e:
            raise fail(st, lane_now[0], a, e) from None

    def report(st: State, m: Mask, a: np.ndarray, act: str, ev_sem: str, **detail: Any) -> None:
        if observer(st) is None:
            return
        lanes = np.arange(st.n) if m is None else np.flatnonzero(m)
        slots, offs = locate(st, space, a[lanes], lanes)
        emit(st, ins, EvKind.MBAR, m, space="shared", addr=offs, size=8, sem=ev_sem, scope=scope or "cta",
             action=act, cta=global_ctas(st, slots), **detail)

    if action == "init":
        cnt = dec.src(ops[1], "u32")

        def init(st: State, m: Mask) -> None:
            c = np.broadcast_to(np.asarray(cnt(st)).astype(np.int64), (st.n,))

            def fn(w: int, lane: int) -> tuple[int, int]:
                k = int(c[lane])
                if not 1 <= k <= MAX_COUNT:
                    raise MbarError(f"gets the arrival count {k}: must be 1 .. 2^20-1")
                return pack(k, k, 0, 0), 0
            _, a = run(st, m, fn)
            bump_epoch(st)
            if observer(st) is not None:
                lanes = np.arange(st.n) if m is None else np.flatnonzero(m)
                for slot, off in zip(*(x.tolist() for x in locate(st, space, a[lanes], lanes))):
                    st.__dict__.setdefault("_mbar_phases", {})[(slot, off)] = 0
            report(st, m, a, "init", "weak", count=c[np.ones(st.n, bool) if m is None else m].copy())
        return init
    if action == "inval":
        def inval(st: State, m: Mask) -> None:
            _, a = run(st, m, lambda w, lane: (0, 0))
            report(st, m, a, "inval", "weak")
        return inval
    if action in ("expect_tx", "complete_tx"):
        txr = dec.src(ops[1], "u32")
        sign = 1 if action == "expect_tx" else -1

        def tx_op(st: State, m: Mask) -> None:
            t = np.broadcast_to(np.asarray(txr(st)).astype(np.int64), (st.n,))
            done: list[int] = []

            def fn(w: int, lane: int) -> tuple[int, int]:
                new, _, fin = update(w, tx=sign * int(t[lane]))
                done.append(fin)
                return new, fin
            res, a = run(st, m, fn)
            bump_epoch(st)
            report(st, m, a, action, "relaxed", tx=t[np.ones(st.n, bool) if m is None else m].copy(),
                   completed=res[np.ones(st.n, bool) if m is None else m].astype(bool))
        return tx_op
    if action in ("arrive", "arrive_drop"):
        return _arrive(ins, dec, action, addr_r, space, sem if sem != "weak" else "release", scope, run, report)
    if action in ("test_wait", "try_wait"):
        return _wait(ins, dec, action, addr_r, run, report, space, scope, sem)
    raise Unsupported()


def _arrive(ins: ir.Instruction, dec: Decoding, action: str, addr_r: Reader, space: str, sem: str, scope: str,
            run: Callable, report: Callable) -> LaneOp:
    mods, ops = ins.mods, ins.operands
    expect = "expect_tx" in mods
    drop = action == "arrive_drop"
    no_complete = "noComplete" in mods
    w_state = None if isinstance(ops[0], ir.Sink) else dec.dst(ops[0], "b64")
    extra = dec.src(ops[2], "u32") if len(ops) > 2 else None

    def arrive(st: State, m: Mask) -> None:
        e = None if extra is None else np.broadcast_to(np.asarray(extra(st)).astype(np.int64), (st.n,))
        phases: dict[int, int] = {}
        completed: dict[int, bool] = {}

        def fn(w: int, lane: int) -> tuple[int, int]:
            count = 1 if expect or e is None else int(e[lane])
            if not expect and e is not None and not 1 <= count <= MAX_COUNT:
                raise MbarError(f"gets the arrival count {count}: must be 1 .. 2^20-1")
            new, state, done = update(w, count=count, tx=int(e[lane]) if expect and e is not None else 0, drop=drop)
            if done and no_complete:
                raise MbarError("completes its phase in an arrive.noComplete")
            phases[lane] = state >> 63
            completed[lane] = done
            return new, state
        res, a = run(st, m, fn)
        bump_epoch(st)
        if w_state is not None:
            w_state(st, res, m)
        if observer(st) is not None:
            sel = np.ones(st.n, bool) if m is None else m
            lanes = np.flatnonzero(sel)
            slots, offs = locate(st, space, a[sel], lanes)
            idx = [phase_index(st, slot, off, int(completed[lane]))
                   for lane, slot, off in zip(lanes.tolist(), slots.tolist(), offs.tolist())]
            report(st, m, a, "arrive", sem, drop=drop, count=(np.ones(len(lanes), np.int64) if expect or e is None
                                                               else e[sel].copy()),
                   tx=(e[sel].copy() if expect and e is not None else np.zeros(len(lanes), np.int64)),
                   phase=np.array([phases[x] for x in lanes.tolist()]), phase_no=np.array(idx),
                   completed=np.array([completed[x] for x in lanes.tolist()]))
    return arrive


def _wait(ins: ir.Instruction, dec: Decoding, action: str, addr_r: Reader, run: Callable, report: Callable,
          space: str, scope: str, sem: str) -> LaneOp:
    """test_wait / try_wait{.parity} waitComplete, [addr], state|phaseParity{, suspendTimeHint}: true when
    the phase the operand names has completed (the current phase's parity differs from it). The closure
    returns the lanes whose phase has completed (machine.py blocks the others of a try_wait)."""
    ops = ins.operands
    parity = "parity" in ins.mods
    w = dec.dst(ops[0], "pred")
    tok = dec.src(ops[2], "u32" if parity else "b64")

    def wait(st: State, m: Mask) -> np.ndarray:
        t = np.broadcast_to(np.asarray(tok(st)).astype(np.uint64), (st.n,))
        want = (t & np.uint64(1)) if parity else (t >> np.uint64(63))

        def fn(word: int, lane: int) -> tuple[int, int]:
            if not word & VALID:
                raise MbarError("holds no initialised mbarrier object (mbarrier.init)")
            return word, int((word >> 63) != int(want[lane]))
        res, a = run(st, m, fn)
        done = res.astype(bool)
        w(st, done, m)
        sel = np.ones(st.n, bool) if m is None else m
        ok = sel & done
        if ok.any() and observer(st) is not None:
            lanes = np.flatnonzero(ok)
            slots, offs = locate(st, space, a[ok], lanes)
            idx = [phase_index(st, slot, off) - 1 for slot, off in zip(slots.tolist(), offs.tolist())]
            report(st, ok, a, action, sem if sem != "weak" else "acquire",
                   phase=(want[ok] & np.uint64(1)).astype(np.int64), phase_no=np.array(idx))
        return done

    def describe(st: State, lane: int) -> str:
        one = np.zeros(st.n, bool)
        one[lane] = True
        a = _lanes_addr(st, addr_r)
        word = int(st.mem.load(space, a, 8, one, st)[lane])
        pending, _, tx, phase, _ = unpack(word)
        t = int(np.broadcast_to(np.asarray(tok(st)).astype(np.uint64), (st.n,))[lane])
        want = t & 1 if parity else t >> 63
        where = int(shared_offset(a[one], space)[0])
        return (f"mbarrier.{action} at shared 0x{where:x} for the phase of parity {want}; "
                f"its current phase (parity {phase}) has {pending} pending arrival(s) and tx-count {tx}")
    setattr(wait, "describe", describe)  # noqa: B010 (the scheduler's deadlock report asks for it)
    setattr(wait, "may_time_out", action == "try_wait")  # noqa: B010 (the ISA's time limit of try_wait)
    return wait  # type: ignore[return-value]  # a WAIT op's closure returns the lanes it lets pass


def b_barrier_cluster(ins: ir.Instruction, dec: Decoding) -> LaneOp:
    """barrier.cluster.arrive{.release,.relaxed}{.aligned} / barrier.cluster.wait{.acquire}{.aligned}
    (ISA §9.7.13.3): a thread arrives on the current phase of its cluster's barrier, and ``wait`` lets
    it pass once every non-exited thread of the cluster has arrived on that phase (the machine runs
    ``wait`` as a WAIT op, like try_wait). Reported as MBAR events of action cluster_arrive /
    cluster_wait on a pseudo-barrier (``cta`` = −1 − the cluster's rank-0 CTA, address 0)."""
    mods = ins.mods
    wait = "wait" in mods
    if "cluster" not in mods or (not wait and "arrive" not in mods):
        raise Unsupported()
    sem = "acquire" if wait else ("relaxed" if "relaxed" in mods else "release")

    def state(st: State) -> tuple[dict[int, list[int]], np.ndarray]:
        d = st.__dict__
        if "_cbar_lane" not in d:
            d["_cbar"] = {}
            d["_cbar_lane"] = np.full(st.n, -1, np.int64)
        return d["_cbar"], d["_cbar_lane"]

    def bases(st: State) -> np.ndarray:
        base = getattr(st, "cluster_base", None)
        return np.asarray(st.cta_of_lane if base is None else base, np.int64)

    def settle(st: State, table: dict[int, list[int]], b: int) -> None:
        """Complete the phase of cluster ``b`` once every live thread of it has arrived."""
        live = int(((bases(st) == b) & ~st.exited).sum())
        entry = table.setdefault(b, [0, 0])
        if entry[0] >= live:
            entry[0] = 0
            entry[1] += 1
            bump_epoch(st)

    def report(st: State, m: Mask, act: str, phase: np.ndarray) -> None:
        lanes = np.arange(st.n) if m is None else np.flatnonzero(m)
        first = global_ctas(st, bases(st)[lanes])
        emit(st, ins, EvKind.MBAR, m, space="shared", addr=np.zeros(len(lanes), np.uint64), size=8, sem=sem,
             scope="cluster", action=act, cta=-1 - first, phase_no=phase)

    if not wait:
        def arrive(st: State, m: Mask) -> None:
            table, lane_phase = state(st)
            lanes = np.arange(st.n) if m is None else np.flatnonzero(m)
            b_of = bases(st)
            for lane in lanes.tolist():
                entry = table.setdefault(int(b_of[lane]), [0, 0])
                lane_phase[lane] = entry[1]
                entry[0] += 1
            for b in np.unique(b_of[lanes]).tolist():
                settle(st, table, b)
            if observer(st) is not None:
                report(st, m, "cluster_arrive", lane_phase[lanes].copy())
        return arrive

    def wait_op(st: State, m: Mask) -> np.ndarray:
        table, lane_phase = state(st)
        act = np.ones(st.n, bool) if m is None else m
        b_of = bases(st)
        for b in np.unique(b_of[act]).tolist():
            settle(st, table, b)
        done = np.zeros(st.n, bool)
        for lane in np.flatnonzero(act).tolist():
            current = table.setdefault(int(b_of[lane]), [0, 0])[1]
            if lane_phase[lane] < 0:  # waiting without an arrival: for the current phase to complete
                lane_phase[lane] = current
            done[lane] = current > lane_phase[lane]
        if (act & done).any() and observer(st) is not None:
            report(st, act & done, "cluster_wait", lane_phase[act & done].copy())
        return done

    def describe(st: State, lane: int) -> str:
        return "barrier.cluster.wait: not every thread of the cluster arrives (barrier.cluster.arrive)"
    setattr(wait_op, "describe", describe)  # noqa: B010
    return wait_op  # type: ignore[return-value]  # a WAIT op's closure returns the lanes it lets pass
