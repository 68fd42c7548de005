"""The lock-step grid scheduler (PTX ISA §2.2 thread hierarchy, §9.7.12 control flow, §9.7.13.1 bar).

Design: a *batch* of CTAs runs as one lane array (each CTA padded to whole warps), so every
instruction is one numpy operation over all threads of the batch. While all live threads agree on
the program counter ("uniform" mode) the hot loop just steps through the pre-bound closures with no
mask. A branch that splits the lanes switches to per-lane program counters: each step runs the
lowest pc among runnable lanes with the mask of lanes at that pc (min-pc scheduling), which
reconverges structured control flow at the immediate post-dominator; when all live lanes agree
again the loop returns to uniform mode. Barriers (``bar.sync/barrier.sync/bar.arrive`` with counts)
park lanes until their CTA's arrival count is reached. CTAs are independent, so running them side
by side is a valid schedule; atomics serialise lanes in order. ``call`` keeps a per-lane return
stack; ``.func`` bodies are decoded once and shared by every call site.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import cast

import numpy as np

from ptxkit.errors import BoundExceeded, Diagnostic, PtxkitError
from ptxkit.exec_sim.events import EvKind, Observer, SimEvent
from ptxkit.exec_sim.limits import NWARPID
from ptxkit.exec_sim.memory import MemoryFault
from ptxkit.exec_sim.program import BAR, BRA, CALL, EXIT, NORMAL, RET, WAIT, Op, Program

MAX_DEPTH = 32


@dataclass
class LaneState:
    """What instruction closures see: registers, memory, per-lane coordinates."""

    n: int
    R: list
    mem: object
    cta_of_lane: np.ndarray
    tid: tuple[np.ndarray, np.ndarray, np.ndarray]
    ctaid: tuple[np.ndarray, np.ndarray, np.ndarray]
    ntid: tuple[int, int, int]
    nctaid: tuple[int, int, int]
    exited: np.ndarray
    global_sym: dict[str, int] = field(default_factory=dict)
    dyn_shared_base: dict[str, int] = field(default_factory=dict)
    shared_total: int = 0
    dyn_shared: int = 0
    steps: int = 0
    stdout: list[str] = field(default_factory=list)
    cc: np.ndarray | None = None
    lanes_per_cta: int = 32
    lane_index: np.ndarray | None = None
    _sregs: dict = field(default_factory=dict)
    # barrier bookkeeping (ISA §9.7.13.1): arrivals in warp units per (CTA, barrier), expected thread
    # counts of bar.sync a, b; the predicates and operations of pending bar.red
    _bar_wcount: np.ndarray | None = None
    _bar_expected: dict[int, int] = field(default_factory=dict)
    _red_pred: np.ndarray | None = None
    _red_ops: dict[int, tuple] = field(default_factory=dict)
    # memory-model events (ptxkit verify): the observer, and each lane's global thread index
    # (CTA-major: linear ctaid · threads per CTA + linear tid); both None when nobody watches
    observer: Observer | None = None
    gtid: np.ndarray | None = None
    # mbarrier.try_wait (ISA §9.7.13.15.16): changes of any mbarrier's state so far, and their number when
    # blocked waits were last let go unsatisfied (a try_wait may return false after a time limit)
    mbar_epoch: int = 0
    _mbar_timeout_epoch: int = -1
    # thread-block clusters (ISA §2.2.2): the shape, and per lane the batch slot of its cluster's rank 0
    # (the CTAs of a cluster occupy consecutive slots, rank after rank)
    cluster: tuple[int, int, int] = (1, 1, 1)
    cluster_base: np.ndarray | None = None

    def sreg(self, name: str) -> np.ndarray:
        """Special registers (ISA §10): per-lane uint32 (or uint64 for the 64-bit ones)."""
        if name in ("%clock", "%clock64", "%globaltimer", "%globaltimer_lo"):
            dt = np.uint64 if name in ("%clock64", "%globaltimer") else np.uint32
            return np.full(self.n, self.steps, dt)
        v = self._sregs.get(name)
        if v is not None:
            return v
        base, _, comp = name.partition(".")
        axis = {"x": 0, "y": 1, "z": 2}.get(comp, 0)
        n = self.n
        lane = (np.arange(n) % 32).astype(np.uint32)
        if base == "%tid":
            v = self.tid[axis]
        elif base == "%ntid":
            v = np.full(n, self.ntid[axis], np.uint32)
        elif base == "%ctaid":
            v = self.ctaid[axis]
        elif base == "%nctaid":
            v = np.full(n, self.nctaid[axis], np.uint32)
        elif base == "%laneid":
            v = lane
        elif base == "%warpid":
            v = ((np.arange(n) % self.lanes_per_cta) // 32).astype(np.uint32)
        elif base == "%nwarpid":
            v = np.full(n, NWARPID, np.uint32)
        elif base in ("%clusterid", "%cluster_ctaid", "%cluster_ctarank", "%nclusterid", "%cluster_nctaid",
                      "%cluster_nctarank", "%is_explicit_cluster"):
            v = self._cluster_sreg(base, axis)
        elif base == "%smid" or base == "%gridid" or base.startswith("%envreg"):
            v = np.zeros(n, np.uint32)
        elif base == "%nsmid":
            v = np.full(n, 132, np.uint32)
        elif base == "%lanemask_eq":
            v = (np.uint32(1) << lane).astype(np.uint32)
        elif base == "%lanemask_lt":
            v = ((np.uint64(1) << lane.astype(np.uint64)) - np.uint64(1)).astype(np.uint32)
        elif base == "%lanemask_le":
            v = ((np.uint64(1) << (lane.astype(np.uint64) + np.uint64(1))) - np.uint64(1)).astype(np.uint32)
        elif base == "%lanemask_gt":
            v = (~((np.uint64(1) << (lane.astype(np.uint64) + np.uint64(1))) - np.uint64(1))).astype(np.uint32)
        elif base == "%lanemask_ge":
            v = (~((np.uint64(1) << lane.astype(np.uint64)) - np.uint64(1))).astype(np.uint32)
        elif base == "%dynamic_smem_size":
            v = np.full(n, self.dyn_shared, np.uint32)
        elif base in ("%total_smem_size", "%aggr_smem_size"):
            v = np.full(n, self.shared_total, np.uint32)
        else:
            v = np.zeros(n, np.uint32)
        self._sregs[name] = v
        return v

    def _cluster_sreg(self, base: str, axis: int) -> np.ndarray:
        """%clusterid, %nclusterid, %cluster_ctaid, %cluster_nctaid, %cluster_ctarank, %cluster_nctarank,
        %is_explicit_cluster (ISA §10.21-27): a launch without a cluster shape runs every CTA as a
        cluster of one (not explicit)."""
        n, c = self.n, self.cluster
        if base == "%is_explicit_cluster":
            return np.full(n, c != (1, 1, 1), np.uint32)
        if base == "%cluster_nctarank":
            return np.full(n, c[0] * c[1] * c[2], np.uint32)
        if base == "%cluster_nctaid":
            return np.full(n, c[axis], np.uint32)
        if base == "%nclusterid":
            return np.full(n, self.nctaid[axis] // c[axis], np.uint32)
        if base == "%clusterid":
            return (self.ctaid[axis] // np.uint32(c[axis])).astype(np.uint32)
        local = [self.ctaid[i] % np.uint32(c[i]) for i in range(3)]
        if base == "%cluster_ctaid":
            return local[axis].astype(np.uint32)
        return (local[0] + c[0] * (local[1] + c[1] * local[2])).astype(np.uint32)  # %cluster_ctarank


class Deadlock(PtxkitError):
    """The launch cannot go on: threads wait at a barrier that not enough threads reach."""


@dataclass
class Counters:
    instructions: int = 0
    lane_instructions: int = 0


def _step_msg(max_steps: int) -> str:
    return (f"step limit of {max_steps} warp-instructions exceeded (--max-steps, counted over the whole "
            "launch): an endless loop, or a spin-wait between threads of one warp (independent thread "
            "scheduling is not modelled: lanes of a diverged warp run lowest-pc first)")


def _thread_desc(st: LaneState, lane: int) -> str:
    t = tuple(int(st.tid[i][lane]) for i in range(3))
    c = tuple(int(st.ctaid[i][lane]) for i in range(3))
    return f"thread ({t[0]},{t[1]},{t[2]}) in block ({c[0]},{c[1]},{c[2]})"


def _located(prog: Program, op: Op | None, msg: str, cls: type[PtxkitError] = PtxkitError) -> PtxkitError:
    ins = op.instr if op is not None else None
    sp = ins.span if ins is not None else None
    line, col = (sp.line, sp.col) if sp else (0, 0)
    return cls(Diagnostic(prog.module.filename, line, col, msg,
                                  prog.module.line_text(line) if sp else None))


def run_batch(prog: Program, st: LaneState, counters: Counters, max_steps: int) -> None:
    """Run one batch of CTAs to completion. ``max_steps`` bounds the warp-instructions of the whole
    launch (``counters.instructions`` carries those of earlier batches): past it, BoundExceeded."""
    code = prog.code
    n = st.n
    R = st.R
    ncta = int(st.cta_of_lane.max()) + 1 if n else 0
    cta = st.cta_of_lane
    exited = st.exited
    waiting = np.zeros(n, bool)
    bar_id = np.zeros(n, np.int64)
    bar_count = np.zeros((ncta, 16), np.int64)
    ret_stack = np.zeros((MAX_DEPTH, n), np.int32)
    depth = np.zeros(n, np.int64)
    lane_pc = np.zeros(n, np.int64)
    last_run = np.zeros(max(n // 32, 1), np.int64)  # per warp: the divergent step it last ran at
    fair_at = 0
    uniform = True
    pc = 0
    alive = ~exited
    m = None if alive.all() else alive.copy()
    live_lanes = int(alive.sum())
    live_warps = int(alive.reshape(-1, 32).any(axis=1).sum()) if n else 0
    steps = 0
    u_warps = u_lanes = 0  # uniform-mode counts, kept local in the hot loop
    limit_u = max_steps - counters.instructions  # uniform mode: u_warps may reach this
    op = None
    try:
        while True:
            if uniform:
                op = code[pc]
                kind = op.kind
                steps += 1
                u_warps += live_warps
                u_lanes += live_lanes
                if kind == NORMAL:
                    if op.guard is None:
                        op.fn(st, m)
                    else:
                        g = R[op.guard[0]]
                        mm = ~g if op.guard[1] else g
                        if m is not None:
                            mm = mm & m
                        if mm.any():
                            op.fn(st, mm)
                    pc += 1
                    if u_warps > limit_u:
                        raise _located(prog, op, _step_msg(max_steps), BoundExceeded)
                    continue
                if kind == BRA:
                    if u_warps > limit_u:
                        raise _located(prog, op, _step_msg(max_steps), BoundExceeded)
                    if op.guard is None:
                        pc = op.target
                        continue
                    g = R[op.guard[0]]
                    taken = ~g if op.guard[1] else g
                    if m is not None:
                        taken = taken | ~m  # lanes that exited do not vote
                    if taken.all():
                        pc = op.target
                        continue
                    if (m is None and not taken.any()) or (m is not None and not (taken & m).any()):
                        pc += 1
                        continue
                elif kind == BAR and op.guard is None and op.bar is not None and op.bar.threads is None \
                        and op.bar.red is None:
                    # every live thread of every CTA arrives together: the barrier completes
                    if st.observer is not None:
                        _report_uniform_bar(st, op, m, pc)
                    pc += 1
                    continue
                # control: go through the per-lane machinery with the uniform mask
                if u_warps > limit_u:
                    raise _located(prog, op, _step_msg(max_steps), BoundExceeded)
                act = alive if m is None else m
                lane_pc[act] = pc
                uniform = False
                last_run[:] = steps
                _control(prog, op, pc, act, st, lane_pc, waiting, bar_id, bar_count, ret_stack, depth)
            else:
                runnable = ~exited & ~waiting
                if not runnable.any():
                    if _release(st, waiting, bar_id, bar_count, cta, ncta, exited, code, lane_pc):
                        continue
                    if exited.all():
                        break
                    if _time_out(st, waiting, bar_id, code, lane_pc):
                        continue
                    lane = int(np.argmax(waiting))
                    raise _located(prog, code[int(lane_pc[lane]) - 1], _deadlock_msg(st, lane, bar_id, code, lane_pc),
                                   Deadlock)
                p, act = _next_group(code, st, runnable, lane_pc)
                if steps - fair_at >= FAIR_EVERY:
                    fair_at = steps
                    turn = _starved(code, st, runnable, lane_pc, last_run, steps)
                    if turn is not None:
                        p, act = turn
                op = code[p]
                steps += 1
                act_w = act.reshape(-1, 32).any(axis=1)
                last_run[act_w] = steps
                counters.instructions += int(act_w.sum())
                counters.lane_instructions += int(act.sum())
                if counters.instructions + u_warps > max_steps:
                    raise _located(prog, op, _step_msg(max_steps), BoundExceeded)
                if op.kind == NORMAL:
                    if op.guard is None:
                        op.fn(st, act)
                    else:
                        g = R[op.guard[0]]
                        mm = (~g if op.guard[1] else g) & act
                        if mm.any():
                            op.fn(st, mm)
                    lane_pc[act] = p + 1
                else:
                    _control(prog, op, p, act, st, lane_pc, waiting, bar_id, bar_count, ret_stack, depth)
            # after a control op or a divergent step: settle the mode
            if waiting.any():
                _release(st, waiting, bar_id, bar_count, cta, ncta, exited, code, lane_pc)
            alive = ~exited
            if not alive.any():
                break
            if not waiting.any():
                lp = lane_pc[alive]
                lo = int(lp.min())
                if lo == int(lp.max()):
                    uniform = True
                    limit_u = max_steps - counters.instructions
                    pc = lo
                    m = None if alive.all() else alive.copy()
                    live_lanes = int(alive.sum())
                    live_warps = int(alive.reshape(-1, 32).any(axis=1).sum())
                else:
                    uniform = False
    except MemoryFault as e:
        what = {"out-of-bounds": "out of bounds", "null-pointer": "a null pointer",
                "misaligned": "misaligned"}.get(e.kind, e.kind)
        raise _located(prog, op, f"invalid __{e.space}__ access of size {e.size} by "
                                 f"{_thread_desc(st, e.lane)}: address 0x{e.addr:x} is {what}") from None
    finally:
        st.steps += steps
        counters.instructions += u_warps
        counters.lane_instructions += u_lanes


# Fairness between warps (per-lane mode): lowest pc first would let one warp spinning at a low pc
# (waiting for a flag) starve another warp at a higher pc (the one that sets it) for ever. Every
# FAIR_EVERY steps, warps that have not run for STARVE_STEPS steps get a turn: the lowest pc among
# their lanes. Lanes of one warp still run lowest pc first (the starved set holds whole warps), so
# reconvergence within a warp is unchanged; only the interleaving of independent warps moves.
FAIR_EVERY = 64
STARVE_STEPS = 256


def _next_group(code: list[Op], st: LaneState, runnable: np.ndarray, lane_pc: np.ndarray) -> tuple[int, np.ndarray]:
    """The lowest pc among runnable lanes and the lanes there — passing over ``.sync`` warp collectives
    (shfl/vote/match/redux/elect.sync, bar.warp.sync) that not all of their membermask has reached yet:
    on sm_70+ the executing thread waits until every non-exited thread in membermask executes the same
    instruction (ISA §9.7.9.6, §9.7.13.1, §9.7.13.7-10), so the lanes there wait while the rest of the
    warp catches up — a branch may rejoin at a block laid out *before* the divergent arm (e.g. a cold
    path placed after ``ret``), and min-pc alone would shuffle with the late lanes' stale registers.
    If every runnable lane waits so (the membermask names a thread that never comes: undefined
    behaviour), the lowest group runs with the lanes it has, as before."""
    cand = runnable
    first: tuple[int, np.ndarray] | None = None
    while True:
        p = int(lane_pc[cand].min())
        act = cand & (lane_pc == p)
        if first is None:
            first = (p, act)
        mm = getattr(code[p].fn, "membermask", None)
        if mm is None:
            return p, act
        ready = act & _converged(st, act, mm)
        if ready.any():
            return p, ready
        cand = cand & ~act
        if not cand.any():
            return first


def _converged(st: LaneState, at: np.ndarray, mm: Callable[[LaneState], object]) -> np.ndarray:
    """Per lane: whether every non-exited lane its membermask names (in its warp) is among ``at``."""
    n = st.n
    w = np.uint64(1) << (np.arange(n, dtype=np.uint64) % np.uint64(32))
    present = np.repeat((at.reshape(-1, 32) * w.reshape(-1, 32)).sum(axis=1, dtype=np.uint64), 32)
    live = np.repeat(((~st.exited).reshape(-1, 32) * w.reshape(-1, 32)).sum(axis=1, dtype=np.uint64), 32)
    member = np.broadcast_to(np.asarray(mm(st)).astype(np.uint64) & np.uint64(0xFFFFFFFF), (n,))
    return (member & live & ~present) == 0


def _starved(code: list[Op], st: LaneState, runnable: np.ndarray, lane_pc: np.ndarray, last_run: np.ndarray,
             steps: int) -> tuple[int, np.ndarray] | None:
    rw = runnable.reshape(-1, 32).any(axis=1)
    old = rw & (steps - last_run > STARVE_STEPS)
    if not old.any():
        return None
    return _next_group(code, st, runnable & np.repeat(old, 32), lane_pc)  # lowest pc, .sync collectives converged


def _control(prog: Program, op: Op, p: int, act: np.ndarray, st: LaneState, lane_pc: np.ndarray, waiting: np.ndarray,
             bar_id: np.ndarray, bar_count: np.ndarray, ret_stack: np.ndarray, depth: np.ndarray) -> None:
    """Execute a control op for lanes ``act`` at pc ``p`` (per-lane program counters)."""
    R = st.R
    if op.guard is not None:
        g = R[op.guard[0]]
        mm = (~g if op.guard[1] else g) & act
    else:
        mm = act
    rest = act & ~mm
    lane_pc[rest] = p + 1
    kind = op.kind
    if kind == BRA:
        lane_pc[mm] = op.target
    elif kind == EXIT:
        st.exited |= mm
        if st.observer is not None and mm.any():
            _report(st, EvKind.EXIT, op, mm)
    elif kind == RET:
        top = depth[mm]
        if (top <= 0).any():
            st.exited |= mm & (depth <= 0)
            if st.observer is not None:
                _report(st, EvKind.EXIT, op, mm & (depth <= 0))
        sel = mm & (depth > 0)
        if sel.any():
            d = depth[sel] - 1
            lane_pc[sel] = ret_stack[d, np.flatnonzero(sel)]
            depth[sel] = d
    elif kind == CALL:
        info = op.call
        assert info is not None
        if info.builtin is not None:
            info.copy_in(st, mm)
            lane_pc[mm] = p + 1
        else:
            if (depth[mm] >= MAX_DEPTH).any():
                raise _located(prog, op, "call depth limit exceeded")
            info.copy_in(st, mm)
            idx = np.flatnonzero(mm)
            ret_stack[depth[idx], idx] = p + 1
            depth[idx] += 1
            lane_pc[mm] = info.entry
    elif kind == WAIT:
        # mbarrier.try_wait: lanes whose phase has not completed are suspended (bar_id -1) until it has
        lane_pc[mm] = p + 1
        if mm.any():
            blocked = mm & ~_passes(op, st, mm)
            waiting[blocked] = True
            bar_id[blocked] = -1
    elif kind == BAR:
        assert op.bar is not None
        bid_f, cnt_f, wait, red = op.bar
        lane_pc[mm] = p + 1
        if not mm.any():
            return
        bids = np.broadcast_to(np.asarray(bid_f(st)).astype(np.int64), (st.n,))
        b = int(bids[np.argmax(mm)])
        if not 0 <= b < 16:
            raise _located(prog, op, f"barrier number {b} is out of range 0..15")
        counts = np.bincount(st.cta_of_lane[mm], minlength=bar_count.shape[0])
        bar_count[:, b] += counts
        # ISA §9.7.13.1 (bar, barrier): barriers are per warp — a warp's arrival adds the warp size to
        # the count, however many of its lanes are active (exited lanes, the padding of a partial last
        # warp). A thread count b is therefore compared with these warp units: a warp whose remaining
        # non-exited lanes all arrive now completes its arrival (32 in all); a diverged part that does
        # not complete it adds its lane count.
        if st._bar_wcount is None:
            st._bar_wcount = np.zeros_like(bar_count)
        wcount = st._bar_wcount
        w_now = mm.reshape(-1, 32).sum(axis=1)
        w_before = (waiting & (bar_id == b) & ~mm).reshape(-1, 32).sum(axis=1)
        w_live = (~st.exited).reshape(-1, 32).sum(axis=1)
        units = np.where(w_now + w_before >= w_live, 32 - w_before, w_now) * (w_now > 0)
        wcount[:, b] += np.bincount(st.cta_of_lane.reshape(-1, 32)[:, 0], weights=units,
                                            minlength=bar_count.shape[0]).astype(np.int64)
        if cnt_f is not None:
            c = int(np.max(np.broadcast_to(np.asarray(cnt_f(st)), (st.n,))[mm]))
            st._bar_expected[b] = c
        else:
            st._bar_expected.pop(b, None)
        if red is not None:
            # remember each arriving thread's predicate; the result is written on release
            before = st._red_pred if st._red_pred is not None else np.zeros(st.n, bool)
            pv = np.broadcast_to(np.asarray(red[1](st), dtype=bool), (st.n,))
            st._red_pred = np.where(mm, pv, before)
            st._red_ops[b] = red
        if wait:
            waiting[mm] = True
            bar_id[mm] = b
        if st.observer is not None:
            # a warp of which only some live lanes arrive here: divergent at an .aligned barrier
            _report(st, EvKind.BAR_ARRIVE, op, mm,
                    {"barrier": b, "wait": bool(wait), "pc": p, "count": st._bar_expected.get(b),
                     "aligned": _aligned(op), "partial_warp": bool(((w_now > 0) & (w_now < w_live)).any())})


def _passes(op: Op, st: LaneState, m: np.ndarray) -> np.ndarray:
    """Run a WAIT op (mbarrier.try_wait) for lanes ``m``: the lanes whose phase has completed."""
    return cast(Callable[[LaneState, np.ndarray], np.ndarray], op.fn)(st, m)


def _time_out(st: LaneState, waiting: np.ndarray, bar_id: np.ndarray, code: list[Op], lane_pc: np.ndarray) -> bool:
    """Nothing can run: let the blocked try_waits return false (the ISA's time limit), once per state of
    the mbarriers — a thread may have work to do before its phase can complete. True if any were."""
    mb = waiting & (bar_id == -1)
    if mb.any():
        may = np.array([getattr(code[p - 1].fn, "may_time_out", False) for p in lane_pc[mb].tolist()], bool)
        mb[np.flatnonzero(mb)[~may]] = False
    if not mb.any() or st._mbar_timeout_epoch == st.mbar_epoch:
        return False
    st._mbar_timeout_epoch = st.mbar_epoch
    waiting[mb] = False
    return True


def _deadlock_msg(st: LaneState, lane: int, bar_id: np.ndarray, code: list[Op], lane_pc: np.ndarray) -> str:
    if bar_id[lane] != -1:
        return f"deadlock: {_thread_desc(st, lane)} waits at a barrier that not enough threads of its CTA reach"
    describe = getattr(code[int(lane_pc[lane]) - 1].fn, "describe", None)
    what = f" ({describe(st, lane)})" if describe is not None else ""
    return (f"deadlock: {_thread_desc(st, lane)} waits for a barrier phase that can never complete{what}: "
            "no thread of the launch can run any more (each has exited or waits)")


def _release(st: LaneState, waiting: np.ndarray, bar_id: np.ndarray, bar_count: np.ndarray, cta: np.ndarray,
             ncta: int, exited: np.ndarray, code: list[Op], lane_pc: np.ndarray) -> bool:
    """Complete every barrier whose CTA arrival count is reached, and let pass every try_wait whose
    mbarrier phase has completed; True if any lane was released."""
    released = False
    mb = waiting & (bar_id == -1)
    if mb.any():
        for p1 in np.unique(lane_pc[mb]).tolist():
            sel = mb & (lane_pc == p1)
            done = sel & _passes(code[p1 - 1], st, sel)
            if done.any():
                waiting[done] = False
                released = True
    expected_n = st._bar_expected
    live_per_cta = np.bincount(cta[~exited], minlength=ncta)
    wcount = st._bar_wcount
    for b in np.unique(bar_id[waiting & (bar_id >= 0)]):
        b = int(b)
        if b in expected_n:  # a thread count: warp units (see _control)
            assert wcount is not None  # set by the arrival that set the count
            done = (wcount[:, b] >= expected_n[b]) & (wcount[:, b] > 0)
        else:  # all non-exited threads of the CTA
            done = (bar_count[:, b] >= live_per_cta) & (bar_count[:, b] > 0)
        if done.any():
            sel = waiting & (bar_id == b) & done[cta]
            waiting[sel] = False
            bar_count[done, b] = 0
            if wcount is not None:
                wcount[done, b] = 0
            released = True
            if st.observer is not None:
                _report_release(st, b, np.flatnonzero(done))
            red = st._red_ops.pop(b, None)
            if red is not None and st._red_pred is not None:  # bar.red: reduce the released threads' predicates per CTA
                kind, _, w = red
                ones = np.bincount(cta[sel], weights=st._red_pred[sel], minlength=ncta)
                total = np.bincount(cta[sel], minlength=ncta)
                per_cta = {"popc": ones.astype(np.uint32), "and": ones == total, "or": ones > 0}[kind]
                w(st, per_cta[cta], sel)
    return released


# ---------------------------------------------------------------- observer reports (ptxkit verify)
def _aligned(op: Op) -> bool:
    """``bar.*`` is ``barrier.*.aligned`` (ISA §9.7.13.1): every thread of a warp executes the same
    barrier instruction, converged."""
    ins = op.instr
    return ins is not None and (ins.opcode == "bar" or "aligned" in ins.mods)


def _report(st: LaneState, kind: EvKind, op: Op, mm: np.ndarray | None, detail: dict | None = None) -> None:
    assert st.observer is not None and st.gtid is not None
    ins = op.instr
    sp = ins.span if ins is not None else None
    lanes = st.gtid[np.flatnonzero(mm)] if mm is not None else st.gtid[~st.exited]
    d = {"col": sp.col if sp else 0, **(detail or {})}
    st.observer(SimEvent(kind, sp.line if sp else 0, ".".join((ins.opcode, *ins.mods)) if ins else "",
                         lanes, detail=d))


def _report_release(st: LaneState, b: int, ctas: np.ndarray) -> None:
    """A barrier phase completed in the batch-local CTAs ``ctas`` (global CTA numbers reported)."""
    assert st.observer is not None and st.gtid is not None
    nthreads = max(st.ntid[0] * st.ntid[1] * st.ntid[2], 1)
    for c in ctas.tolist():  # the global CTA of batch-local CTA c: that of its first lane
        g = int(st.gtid[c * st.lanes_per_cta]) // nthreads
        st.observer(SimEvent(EvKind.BAR_RELEASE, 0, "", np.zeros(0, np.int64),
                             detail={"barrier": b, "cta": g}))


def _report_uniform_bar(st: LaneState, op: Op, m: np.ndarray | None, pc: int) -> None:
    """The uniform fast path: every live thread arrives at once, every CTA's barrier completes."""
    assert op.bar is not None
    b = int(np.max(np.broadcast_to(np.asarray(op.bar[0](st)), (st.n,))))
    _report(st, EvKind.BAR_ARRIVE, op, m if m is not None else ~st.exited,
            {"barrier": b, "wait": True, "pc": pc, "count": None, "aligned": _aligned(op)})
    live = np.unique(st.cta_of_lane[~st.exited])
    _report_release(st, b, live)
