"""Rules for the asynchronous machinery (PTX ISA §9.7.9.25 async copies, §9.7.13.15 mbarrier, §8.6
proxies): the happens-before edges they create and their well-synchronization checks.

Every asynchronous copy is an *agent* of its own (a pseudo-thread of ``ctx.clocks``) whose clock, at
issue, is the issuing thread's: the copy's reads and writes are recorded as that agent's accesses,
so they race with whatever is not ordered after the copy's completion.

* :class:`MbarrierRule` — the arrivals on phase k of an mbarrier (``mbarrier.arrive*`` with release
  semantics, the complete-tx of a copy, ``cp.async.mbarrier.arrive``) synchronize with every wait
  that observes phase k complete (``test_wait``/``try_wait`` with acquire semantics, §9.7.13.15.16
  and §8.9.4); a wait on the parity of the phase before the first returns at once and orders nothing
  (a producer's first wait in a pipeline; a consumer doing it races with the data). Check: the
  transaction count of a barrier left unbalanced (``expect_tx`` missing or wrong: a copy's
  complete-tx lands in a later phase than the one it was meant to complete, §9.7.13.15.2-3).
* :class:`AsyncCopyRule` — ``wgmma.mma_async`` reads its shared-memory operands through the async
  proxy until the ``wgmma.wait_group`` covering it (§9.7.15.3): one agent per warp records the reads,
  so a write of the buffer before that wait races with them. ``cp.async`` copies (generic proxy)
  complete for their issuing thread at the ``cp.async.wait_group``/``wait_all`` that covers their
  group (§9.7.9.25.3.2); a read or write of a destination byte by a thread not yet ordered after that
  completion is reported (``cp.async`` data used before its wait). Bulk and tensor copies
  (``cp.async.bulk*``, async proxy) record their reads and writes with proxy ``async`` (a generic
  access paired with one needs ``fence.proxy.async``, §8.6.2) and complete through their mbarrier
  (above) or at the ``cp.async.bulk.wait_group`` covering their bulk async-group.

``barrier.cluster.arrive``/``wait`` (§9.7.13.3) are reported as MBAR events of a pseudo-barrier per
cluster and synchronize like an mbarrier phase.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ptxkit.exec_sim.events import EvKind, SimEvent
from ptxkit.verify.context import Context, Finding, Rule

_AGENT_CHUNK = 64


@dataclass
class _Copy:
    agent: int
    thread: int
    line: int
    col: int
    dst_space: str
    dst: np.ndarray  # destination byte addresses (each covers ``elem`` bytes)
    elem: int
    reader: int = -1  # a bulk-group copy's agent for its source reads (wait_group.read completes them only)


@dataclass
class _Barrier:
    """A barrier's bookkeeping: the clock row released into each phase (rows, not vectors: agents
    added later extend every row), the tracked tx-count and the instructions behind an imbalance."""

    row: dict[int, int] = field(default_factory=dict)
    tx: int = 0
    done_line: tuple[int, int] = (0, 0)  # the arrival that completed the latest phase
    # the first complete_tx that took the tx-count below zero, and the arrival that had completed the
    # phase before it: when the barrier ends unbalanced, that is where the bytes went unannounced (later
    # phases look balanced: each expect_tx then pays for the previous phase's copies)
    first_neg: tuple[int, int, int, int] | None = None


class Agents:
    """Pseudo-threads for asynchronous copies, allocated in chunks of ``ctx.clocks``. ``info[agent]`` is
    (issuing thread, line, col, what) — what a race report prints for an agent's access; the same dict
    is published as ``ctx.agents`` (a Context attribute the async rules add)."""

    def __init__(self) -> None:
        self.free: list[int] = []
        self.info: dict[int, tuple[int, int, int, str]] = {}

    def describe(self, ctx: Context, agent: int, issuer: int, ev: SimEvent, what: str) -> None:
        self.info[agent] = (issuer, ev.line, int(ev.detail.get("col", 0)), what)
        ctx.__dict__.setdefault("agents", self.info)

    def new(self, ctx: Context, issuer: int | np.ndarray, unfenced: dict[int, int] | None = None) -> int:
        if not self.free:
            first = ctx.clocks.add_agents(_AGENT_CHUNK)
            self.free = list(range(first + _AGENT_CHUNK - 1, first - 1, -1))
        a = self.free.pop()
        # the copy starts with everything its issuer(s) have seen (program order up to the issue) — but
        # not a generic write of the bytes it touches that no fence.proxy.async separates from it
        # (``unfenced``: writer → epoch of its write): that pair stays unordered, a race
        vec = ctx.clocks.joined(np.atleast_1d(np.asarray(issuer, np.int64)))
        for u, ep_w in (unfenced or {}).items():
            vec[u] = min(int(vec[u]), ep_w - 1)
        row = ctx.clocks.new_row(vec)
        ctx.clocks.set_row(np.array([a]), row)
        return a


def _key(ctx: Context, thread: int, off: int) -> tuple[int, int]:
    return int(ctx.cta_of(thread)), int(off)


class MbarrierRule:
    """mbarrier phases as synchronization (see the module docstring)."""

    name = "mbarrier"

    def __init__(self, copies: AsyncCopyRule) -> None:
        self.copies = copies
        self.bars: dict[tuple[int, int], _Barrier] = {}

    def on_event(self, ev: SimEvent, ctx: Context) -> None:
        if ev.kind != EvKind.MBAR or ev.addr is None:
            return
        act = ev.detail.get("action")
        col = int(ev.detail.get("col", 0))
        clocks = ctx.clocks
        ctas = ev.detail.get("cta")
        for i, (t, off) in enumerate(zip(ev.lanes.tolist(), ev.addr.tolist())):
            key = (int(ctas[i]), int(off)) if ctas is not None else _key(ctx, t, off)
            if act == "init":
                self.bars[key] = _Barrier()
                continue
            bar = self.bars.setdefault(key, _Barrier())
            phase = _at(ev.detail.get("phase_no"), i, 0)
            if act in ("arrive", "complete_tx", "cp_async_arrive", "expect_tx", "cluster_arrive"):
                if act == "complete_tx" and ev.proxy == "async":
                    src = self.copies.last_copy.pop(t, None)
                    who = np.array([src.agent if src is not None else t])
                else:
                    who = np.array([t])
                if act == "cp_async_arrive":  # tracks every cp.async the thread issued before it
                    who = np.array([c.agent for c in self.copies.of_thread(t)] + [t])
                if act != "expect_tx" and not (act == "arrive" and ev.sem == "relaxed"):
                    r = clocks.new_row(clocks.joined(who))
                    bar.row[phase] = clocks.join_rows(bar.row.get(phase, 0), r)
                    if act in ("arrive", "cp_async_arrive", "cluster_arrive"):
                        clocks.ep[t] += 1  # later accesses of the arriving thread are not released
                tx = int(_at(ev.detail.get("tx"), i, 0))
                if act == "complete_tx":
                    bar.tx -= tx
                    if bar.tx < 0 and bar.first_neg is None:
                        bar.first_neg = (ev.line, col, *bar.done_line)
                elif act in ("arrive", "expect_tx"):
                    bar.tx += tx
                if bool(_at(ev.detail.get("completed"), i, False)):
                    bar.done_line = (ev.line, col)
            elif act in ("test_wait", "try_wait", "cluster_wait"):
                if phase < 0:
                    # the parity of the phase before the first: the wait returns at once (ISA
                    # §9.7.13.15.16 — the producer's first wait on an "empty" barrier in a pipeline);
                    # it orders nothing, so a consumer misusing it shows up as a race on the data
                    continue
                if ev.sem == "relaxed":
                    continue
                row = bar.row.get(phase, 0)
                if row:
                    clocks.acquire(np.array([t]), row)
            elif act == "inval":
                self._check_tx(ctx, key, bar)
                self.bars.pop(key, None)

    def _check_tx(self, ctx: Context, key: tuple[int, int], bar: _Barrier) -> None:
        if bar.tx < 0 and bar.first_neg is not None:
            ctx.finding(Finding("mbarrier-tx",
                                f"the mbarrier at shared 0x{key[1]:x} (CTA {key[0]}) received "
                                f"{-bar.tx} more transaction bytes than any expect_tx announced: the copy "
                                "signalled a phase that had completed without waiting for it (expect_tx "
                                "missing or too small, ISA §9.7.13.15.2)", bar.first_neg[0], bar.first_neg[1],
                                (), bar.first_neg[2], bar.first_neg[3]))
        elif bar.tx > 0:
            ctx.finding(Finding("mbarrier-tx",
                                f"the mbarrier at shared 0x{key[1]:x} (CTA {key[0]}) still expects {bar.tx} "
                                "transaction bytes that no copy delivered (expect_tx too large, ISA "
                                "§9.7.13.15.2)", bar.done_line[0], bar.done_line[1]))

    def finish(self, ctx: Context) -> None:
        for key, bar in list(self.bars.items()):
            self._check_tx(ctx, key, bar)
        self.bars.clear()


def _at(v: object, i: int, default: Any) -> Any:
    if v is None:
        return default
    if isinstance(v, np.ndarray):
        return v[i].item() if i < len(v) else default
    return v


class ProxyFences:
    """Generic-proxy writes of shared memory and the ``fence.proxy.async`` after them (ISA §8.6: an
    access of the async proxy is ordered after a generic write of the same bytes only through a proxy
    fence on the causality path between them). A write counts as fenced for an async operation when
    its writer executed an async-proxy fence after it, or the issuing thread did after acquiring it."""

    def __init__(self) -> None:
        self.writes: dict[int, tuple[int, int, int]] = {}  # shared byte key → (thread, epoch, event seq)
        self.fence_seq: dict[int, int] = {}  # thread → event seq of its last async-proxy fence
        self.fence_clock: dict[int, tuple[int, int]] = {}  # thread → (clock row, epoch) at that fence

    def on_write(self, ev: SimEvent, ctx: Context) -> None:
        assert ev.addr is not None
        keys = ctx.keys("shared", ev.lanes, ev.addr)
        if "cta" in ev.detail:
            keys = ctx.keys_for_cta(np.asarray(ev.detail["cta"]), ev.addr)
        ep = ctx.clocks.ep
        for t, k in zip(ev.lanes.tolist(), keys.tolist()):
            w = (t, int(ep[t]), ctx.seq)
            for b in range(max(ev.size, 1)):
                self.writes[k + b] = w

    def on_fence(self, ev: SimEvent, ctx: Context) -> None:
        for t in ev.lanes.tolist():
            self.fence_seq[t] = ctx.seq
            self.fence_clock[t] = (int(ctx.clocks.sid[t]), int(ctx.clocks.ep[t]))

    def unfenced(self, ctx: Context, issuers: list[int], keys: np.ndarray, elem: int) -> dict[int, int]:
        """Writers (→ the epoch of their earliest such write) of the bytes at ``keys`` (elements of
        ``elem`` bytes) whose write no async-proxy fence separates from an operation of ``issuers``."""
        if not self.writes or not len(keys):
            return {}
        out: dict[int, int] = {}
        rows = ctx.clocks.rows
        for key in np.unique((keys[:, None] + np.arange(elem)[None, :]).ravel()).tolist():
            w = self.writes.get(key)
            if w is None:
                continue
            u, ep_w, seq_w = w
            if self.fence_seq.get(u, -1) > seq_w:
                continue
            if any(t in self.fence_clock and self.fence_seq[t] > seq_w
                   and rows[self.fence_clock[t][0], u] >= ep_w for t in issuers):
                continue
            out[u] = min(out.get(u, ep_w), ep_w)
        return out


class AsyncCopyRule:
    """Asynchronous copies as agents; cp.async groups; bulk async-groups (see the module docstring)."""

    name = "async-copy"

    def __init__(self) -> None:
        self.agents = Agents()
        self.issued: dict[int, list[_Copy]] = {}  # cp.async copies of a thread not yet committed
        self.groups: dict[tuple[int, str], list[list[_Copy]]] = {}  # committed, not yet waited
        self.bulk: dict[int, list[_Copy]] = {}  # bulk copies of a thread not yet committed
        self.wgmma: dict[int, list[_Copy]] = {}  # wgmma operations of a thread not yet committed
        self.last_copy: dict[int, _Copy] = {}  # the copy whose complete_tx comes next (mbarrier rule)
        self.dst: dict[tuple[int, int], _Copy] = {}  # (CTA, shared byte) → the last cp.async writing it
        self.reported: set[int] = set()  # agents already named in a finding
        self.proxy = ProxyFences()

    def on_event(self, ev: SimEvent, ctx: Context) -> None:
        k = ev.kind
        if k == EvKind.ASYNC_ISSUE:
            self._issue(ev, ctx)
        elif k == EvKind.ASYNC_COMMIT:
            group = str(ev.detail.get("group", ""))
            for t in ev.lanes.tolist():
                src = {"cp.async": self.issued, "wgmma": self.wgmma}.get(group, self.bulk)
                self.groups.setdefault((t, group), []).append(src.pop(t, []))
        elif k == EvKind.ASYNC_WAIT:
            self._wait(ev, ctx)
        elif k == EvKind.FENCE and ev.proxy.startswith("async"):
            self.proxy.on_fence(ev, ctx)
        if k in (EvKind.ST, EvKind.RMW) and ev.space == "shared" and ev.addr is not None and ev.proxy == "generic":
            self.proxy.on_write(ev, ctx)
        if k in (EvKind.LD, EvKind.ST, EvKind.RMW) and ev.addr is not None and self.dst:
            self._check_use(ev, ctx)

    def _issue(self, ev: SimEvent, ctx: Context) -> None:
        d = ev.detail
        op = d.get("op")
        col = int(d.get("col", 0))
        if op == "cp.async":
            assert ev.addr is not None
            for t, a in zip(ev.lanes.tolist(), ev.addr.tolist()):
                agent = self.agents.new(ctx, t)
                self.agents.describe(ctx, agent, t, ev, "cp.async")
                c = _Copy(agent, t, ev.line, col, "shared", np.arange(a, a + ev.size, dtype=np.int64), 1)
                self.issued.setdefault(t, []).append(c)
                cta = int(ctx.cta_of(t))
                for b in range(a, a + ev.size):
                    self.dst[(cta, b)] = c
            return
        if op == "wgmma":  # one agent per warp: it reads the warp's shared operands (async proxy)
            elem = int(d.get("elem", 2))
            for threads, src in d.get("warps", []):
                threads = np.asarray(threads, np.int64)
                src = np.asarray(src, np.int64)
                skeys = self._keys(ctx, "shared", int(threads[0]), src)
                agent = self.agents.new(ctx, threads, self.proxy.unfenced(ctx, threads.tolist(), skeys, elem))
                self.agents.describe(ctx, agent, int(threads[0]), ev, "wgmma")
                ctx.access(ctx.seq, np.full(len(src), agent), skeys, elem, False, False, "", "async")
                ctx.clocks.ep[agent] += 1
                c = _Copy(agent, int(threads[0]), ev.line, col, "shared", np.zeros(0, np.int64), elem)
                for t in threads.tolist():
                    self.wgmma.setdefault(t, []).append(c)
            return
        if op not in ("bulk", "tensor_load", "tensor_store", "reduce", "tensor_reduce", "st_async", "red_async"):
            return
        elem = int(d.get("elem", 1))
        dsts, srcs = d.get("dst_bytes") or [], d.get("src_bytes") or []
        src_space = str(d.get("src_space", "global"))
        for i, t in enumerate(ev.lanes.tolist()):
            dst = np.asarray(dsts[i], np.int64) if i < len(dsts) else np.zeros(0, np.int64)
            src = np.asarray(srcs[i], np.int64) if i < len(srcs) else np.zeros(0, np.int64)
            other = d.get("shared_cta")  # a destination (or source) in another CTA of the cluster

            def keys(space: str, addr: np.ndarray, t: int = t, other: Any = other) -> np.ndarray:
                if space == "shared" and other is not None:
                    return ctx.keys_for_cta(np.full(len(addr), int(other)), addr.astype(np.uint64))
                return self._keys(ctx, space, t, addr)
            skeys, dkeys = keys(src_space, src), keys(ev.space, dst)
            shared_keys = np.concatenate([k for sp, k in ((src_space, skeys), (ev.space, dkeys)) if sp == "shared"]
                                         or [np.zeros(0, np.int64)])
            unfenced = self.proxy.unfenced(ctx, [t], shared_keys, elem)
            agent = self.agents.new(ctx, t, unfenced)
            self.agents.describe(ctx, agent, t, ev, str(op))
            c = _Copy(agent, t, ev.line, col, ev.space, dst, elem)
            if len(src):
                if d.get("group") != "mbarrier":  # the reads complete at wait_group.read, the writes later
                    c.reader = self.agents.new(ctx, t, unfenced)
                    self.agents.describe(ctx, c.reader, t, ev, str(op))
                rd = agent if c.reader < 0 else c.reader
                ctx.access(ctx.seq, np.full(len(src), rd), skeys, elem, False, False, "", "async")
                ctx.clocks.ep[rd] += 1
            ctx.access(ctx.seq, np.full(len(dst), agent), dkeys, elem, True, False, "", "async")
            ctx.clocks.ep[agent] += 1  # the copy's accesses are done before it signals completion
            if d.get("group") == "mbarrier":
                self.last_copy[t] = c
            else:
                self.bulk.setdefault(t, []).append(c)

    def of_thread(self, t: int) -> list[_Copy]:
        """The cp.async copies thread ``t`` issued that no wait of its own has completed."""
        out = list(self.issued.get(t, []))
        for g in self.groups.get((t, "cp.async"), []):
            out += g
        return out

    @staticmethod
    def _keys(ctx: Context, space: str, t: int, addr: np.ndarray) -> np.ndarray:
        return ctx.keys(space, np.full(len(addr), t), addr.astype(np.uint64))

    def _wait(self, ev: SimEvent, ctx: Context) -> None:
        group = str(ev.detail.get("group", ""))
        n = int(ev.detail.get("n", 0))
        for t in ev.lanes.tolist():
            gs = self.groups.get((t, group), [])
            if group == "cp.async" and n == 0 and "wait_all" in ev.opcode:
                gs.append(self.issued.pop(t, []))  # wait_all commits, then waits for everything
            done, keep = (gs[:len(gs) - n], gs[len(gs) - n:]) if n else (gs, [])
            if ev.detail.get("read"):  # .read: the groups' source reads are complete, their writes not yet
                agents = [c.reader if c.reader >= 0 else c.agent for g in done for c in g]
            else:
                self.groups[(t, group)] = keep
                agents = [a for g in done for c in g for a in (c.agent, c.reader) if a >= 0]
            if agents:
                row = ctx.clocks.new_row(ctx.clocks.joined(np.array(agents)))
                ctx.clocks.acquire(np.array([t]), row)

    def _check_use(self, ev: SimEvent, ctx: Context) -> None:
        """A thread touching a cp.async destination byte before it is ordered after the copy."""
        if ev.space != "shared" or ev.addr is None:
            return
        clocks = ctx.clocks
        for t, a in zip(ev.lanes.tolist(), ev.addr.tolist()):
            cta = int(ctx.cta_of(t))
            for b in range(a, a + max(ev.size, 1)):
                c = self.dst.get((cta, b))
                if c is None or c.agent in self.reported or clocks.clock_of(t)[c.agent] >= clocks.ep[c.agent]:
                    continue  # none, or ordered after the copy's completion (its wait, then a barrier)
                what = "reads" if ev.kind == EvKind.LD else "writes"
                ctx.finding(Finding("cp-async-wait",
                                    f"thread {t} {what} shared 0x{a:x}, the destination of a cp.async of thread "
                                    f"{c.thread} that is not yet complete for it (no cp.async.wait_group/"
                                    "wait_all covering the copy before, ISA §9.7.9.25.3.2)",
                                    ev.line, int(ev.detail.get("col", 0)), (t, c.thread), c.line, c.col))
                self.reported.add(c.agent)  # one finding per copy
                break

    def finish(self, ctx: Context) -> None:
        pass


def async_rules() -> list[Rule]:
    """The asynchronous machinery's rules (append to ``verify.rules.default_rules()``)."""
    copies = AsyncCopyRule()
    return [copies, MbarrierRule(copies)]
