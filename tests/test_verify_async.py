"""The async machinery's events (exec_sim) and rules (verify/async_rules.py) on hand-written kernels:
cp.async data used before its wait_group, mbarrier waits on a parity that names no phase, a copy
signalling an mbarrier without expect_tx, and the happens-before edges a TMA copy's mbarrier gives
its consumers (PTX ISA §9.7.9.25, §9.7.13.15, §8.6). Each bug kernel has a correct twin that must
give no finding."""

from __future__ import annotations

import numpy as np

from ptxkit.exec_sim import parse_arg_specs, parse_text, run_kernel
from ptxkit.exec_sim.events import EvKind, SimEvent
from ptxkit.verify.async_rules import async_rules
from ptxkit.verify.context import Context
from ptxkit.verify.rules import default_rules

HEAD = ".version 8.0\n.target sm_90a\n.address_size 64\n"


def _check(text: str, specs: list[str], block: int = 32) -> tuple[Context, list[SimEvent]]:
    m = parse_text(HEAD + text, "t.ptx")
    ctx = Context(block, 1, default_rules() + async_rules())
    events: list[SimEvent] = []

    def obs(ev: SimEvent) -> None:
        events.append(ev)
        ctx.observe(ev)
    run_kernel(m, None, parse_arg_specs(specs, m.entries()[0], 0), 1, block, 0, observer=obs)
    ctx.finish()
    return ctx, events


def _line(text: str, needle: str) -> int:
    return next(i for i, ln in enumerate((HEAD + text).splitlines(), 1) if needle in ln)


CP_ASYNC = """
.visible .entry k(.param .u64 src, .param .u64 out)
{
  .reg .pred %p<4>;
  .reg .b32 %r<10>;
  .reg .b64 %rd<10>;
  .shared .align 16 .b8 buf[512];
  mov.u32 %r1, %tid.x;
  ld.param.u64 %rd1, [src];
  ld.param.u64 %rd2, [out];
  mul.wide.u32 %rd3, %r1, 16;
  add.u64 %rd4, %rd1, %rd3;
  mov.u32 %r2, buf;
  shl.b32 %r3, %r1, 4;
  add.u32 %r4, %r2, %r3;
  cp.async.cg.shared.global [%r4], [%rd4], 16;
  cp.async.commit_group;
  WAIT
  ld.shared.u32 %r7, [%r4+4];
  add.u64 %rd5, %rd2, %rd3;
  st.global.u32 [%rd5], %r7;
  ret;
}
"""


def test_cp_async_read_before_wait_group_is_found():
    """Each thread reads its own cp.async destination without cp.async.wait_group: the copy is not
    complete for it (ISA §9.7.9.25.3.2) → a cp-async-wait finding naming the read and the cp.async."""
    text = CP_ASYNC.replace("WAIT", "")
    ctx, events = _check(text, ["src=u32[128]:zeros", "out=u32[128]:zeros"])
    found = [f for f in ctx.findings if f.rule == "cp-async-wait"]
    assert found and found[0].line == _line(text, "ld.shared.u32") and found[0].other_line == _line(text, "cp.async.cg")
    assert [e.detail["group"] for e in events if e.kind == EvKind.ASYNC_COMMIT] == ["cp.async"]


def test_cp_async_read_after_wait_group_is_clean():
    ctx, events = _check(CP_ASYNC.replace("WAIT", "cp.async.wait_group 0;"), ["src=u32[128]:zeros",
                                                                            "out=u32[128]:zeros"])
    assert not ctx.findings
    waits = [e for e in events if e.kind == EvKind.ASYNC_WAIT]
    assert waits and waits[0].detail["n"] == 0 and len(waits[0].lanes) == 32
    issues = [e for e in events if e.kind == EvKind.ASYNC_ISSUE]
    assert list(issues[0].addr[:2]) == [0, 16] and issues[0].size == 16  # shared destinations


def test_cp_async_read_of_another_threads_data_needs_the_barrier_too():
    """Thread t reads thread t+1's destination after its own wait_group but without bar.sync: the
    neighbour's copy is complete for the neighbour only → finding; with bar.sync after the wait: clean."""
    text = CP_ASYNC.replace("ld.shared.u32 %r7, [%r4+4];", "ld.shared.u32 %r7, [%r4+20];").replace(
        "buf[512]", "buf[528]")
    ctx, _ = _check(text.replace("WAIT", "cp.async.wait_group 0;"), ["src=u32[132]:zeros", "out=u32[128]:zeros"])
    assert any(f.rule == "cp-async-wait" for f in ctx.findings)
    ctx, _ = _check(text.replace("WAIT", "cp.async.wait_group 0;\n  bar.sync 0;"),
                    ["src=u32[132]:zeros", "out=u32[128]:zeros"])
    assert not ctx.findings


TMA = """
.visible .entry k(.param .align 64 .b8 tm[128], .param .u64 out)
{
  .reg .pred %p<4>;
  .reg .b32 %r<20>;
  .reg .b64 %rd<10>;
  .shared .align 1024 .b8 box[512];
  .shared .align 8 .b64 bar;
  mov.u32 %r1, %tid.x;
  setp.eq.u32 %p1, %r1, 0;
  mov.u32 %r2, bar;
  @%p1 mbarrier.init.shared::cta.b64 [%r2], 1;
  fence.mbarrier_init.release.cluster;
  bar.sync 0;
  mov.u32 %r3, 0;
  mov.u32 %r5, box;
  @%p1 ARRIVE
  @%p1 cp.async.bulk.tensor.2d.shared::cta.global.tile.mbarrier::complete_tx::bytes [%r5], [tm, {%r3, %r3}], [%r2];
WAIT:
  mbarrier.try_wait.parity.shared::cta.b64 %p2, [%r2], PARITY;
  @!%p2 bra WAIT;
  shl.b32 %r7, %r1, 2;
  add.u32 %r8, %r5, %r7;
  ld.shared.u32 %r9, [%r8];
  ld.param.u64 %rd2, [out];
  cvt.u64.u32 %rd3, %r7;
  add.u64 %rd4, %rd2, %rd3;
  st.global.u32 [%rd4], %r9;
  bar.sync 0;
  @%p1 mbarrier.inval.shared::cta.b64 [%r2];
  ret;
}
"""
GOOD_ARRIVE = "mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r2], 512;"
SPECS = ["tm=tmap:u32[128]:zeros:dims=32,4:box=32,4", "out=u32[32]:zeros"]


def _copy_writes_ordered_before_reads(ctx: Context, events: list[SimEvent]) -> bool:
    """Every shared read of the box happens after the TMA agent's write of the same bytes (vector
    clocks of the checker: the write's (agent, epoch) is covered by the reader's clock row)."""
    a = ctx.acc
    thread, key, write, ep, sid, proxy = (np.concatenate(x) for x in (a.thread, a.key, a.write, a.ep, a.sid,
                                                                      a.proxy))
    agents = thread >= 32
    ok = True
    for i in np.flatnonzero(agents & write):
        readers = np.flatnonzero(~agents & ~write & (key >= key[i]) & (key < key[i] + 4))
        for j in readers:
            ok &= bool(ctx.clocks.ordered(np.array([thread[i]]), np.array([ep[i]]), np.array([sid[j]]))[0])
    assert proxy[agents].max() > 0  # the copy's accesses are the async proxy's
    return ok


def test_tma_consumers_are_ordered_after_the_copy_by_the_mbarrier():
    text = TMA.replace("ARRIVE", GOOD_ARRIVE).replace("PARITY", "0")
    ctx, events = _check(text, SPECS)
    assert not ctx.findings
    assert _copy_writes_ordered_before_reads(ctx, events)
    agent = int(np.concatenate(ctx.acc.thread).max())
    line = _line(text, "cp.async.bulk.tensor")
    col = (HEAD + text).splitlines()[line - 1].index("@") + 1  # the instruction's column (its guard)
    assert ctx.agents[agent] == (0, line, col, "tensor_load")  # type: ignore[attr-defined]
    acts = [e.detail["action"] for e in events if e.kind == EvKind.MBAR]
    assert acts[:3] == ["init", "arrive", "complete_tx"] and "try_wait" in acts and acts[-1] == "inval"


def test_mbarrier_wait_on_the_parity_before_the_first_phase_orders_nothing():
    """The consumers wait before the producer issues, with try_wait.parity 1 while phase 0 is current:
    parity 1 names the phase before the first, so the wait returns at once (ISA §9.7.13.15.16). That is
    legal (a pipeline producer's first wait on an empty barrier does it), so no finding — but it orders
    nothing: the reads are not ordered after the copy (the race verify reports). (Waiting on parity 1
    after phase 0 has completed instead waits for phase 1, which never comes: the simulator's deadlock.)"""
    lines = TMA.replace("ARRIVE", GOOD_ARRIVE).replace("PARITY", "1").splitlines()
    i = next(k for k, ln in enumerate(lines) if ln.startswith("WAIT:"))
    j = next(k for k, ln in enumerate(lines) if "@!%p2 bra WAIT" in ln)
    a = next(k for k, ln in enumerate(lines) if "@%p1 mbarrier.arrive" in ln)
    lines = lines[:a] + lines[i:j + 1] + lines[a:i] + lines[j + 1:]  # the wait loop before the producer
    text = "\n".join(lines)
    ctx, events = _check(text, SPECS)
    assert not ctx.findings
    assert not _copy_writes_ordered_before_reads(ctx, events)
    waits = [e for e in events if e.kind == EvKind.MBAR and e.detail["action"] == "try_wait"]
    assert waits and int(waits[0].detail["phase_no"][0]) == -1


def test_arrive_without_expect_tx_is_found():
    """A plain arrive completes phase 0 before the copy's bytes count (no expect_tx): the copy's
    complete-tx lands in phase 1 and leaves its tx-count at -512 (ISA §9.7.13.15.2) → mbarrier-tx
    finding at the copy, naming the arrive; the consumers are not ordered after the copy."""
    text = TMA.replace("ARRIVE", "mbarrier.arrive.shared::cta.b64 _, [%r2];").replace("PARITY", "0")
    ctx, events = _check(text, SPECS)
    found = [f for f in ctx.findings if f.rule == "mbarrier-tx"]
    assert found and found[0].line == _line(text, "cp.async.bulk.tensor") \
        and found[0].other_line == _line(text, "mbarrier.arrive.shared")
    assert not _copy_writes_ordered_before_reads(ctx, events)


def _ev(kind: EvKind, lanes: list[int], line: int, **kw) -> SimEvent:
    detail = kw.pop("detail", {})
    return SimEvent(kind, line, kw.pop("opcode", kind.value), np.array(lanes), detail=detail, **kw)


def test_wgmma_operand_reads_end_at_the_covering_wait_group():
    """wgmma.mma_async reads its shared operands asynchronously until wgmma.wait_group (ISA §9.7.15.3):
    a store to the operand before the wait is not ordered after the read (the write-after-read race of
    a buffer reused too early); after commit_group + wait_group 0 it is."""
    ctx = Context(32, 1, default_rules() + async_rules())
    warp = list(range(32))
    ctx.observe(_ev(EvKind.ASYNC_ISSUE, warp, 10, space="shared", size=2, proxy="async",
                    detail={"op": "wgmma", "group": "wgmma", "elem": 2,
                            "warps": [(np.array(warp), np.arange(0, 64, 2))]}))
    agent = int(np.concatenate(ctx.acc.thread).max())
    assert agent >= 32  # the reads belong to the wgmma's agent, not to a thread

    def covered(t: int) -> bool:
        return bool(ctx.clocks.clock_of(t)[agent] >= 2)  # the agent's epoch after its reads is 2
    assert not covered(0)
    ctx.observe(_ev(EvKind.ASYNC_COMMIT, warp, 11, proxy="async", detail={"group": "wgmma"}))
    ctx.observe(_ev(EvKind.ASYNC_WAIT, warp, 12, proxy="async", detail={"group": "wgmma", "n": 1}))
    assert not covered(0)  # wait_group 1 leaves the most recent group pending
    ctx.observe(_ev(EvKind.ASYNC_WAIT, warp, 13, proxy="async", detail={"group": "wgmma", "n": 0}))
    assert covered(0) and covered(31)


def test_distributed_shared_memory_reads_name_the_owning_cta():
    """ld.shared::cluster through a mapa address is reported at the offset in the other CTA's window with
    detail["cta"] = that CTA (so the checker keys the bytes by their owner), and barrier.cluster.arrive /
    wait order every CTA's st.shared before the other CTA's remote reads."""
    from test_sim_async import CLUSTER

    m = parse_text(HEAD + CLUSTER, "t.ptx")
    ctx = Context(32, 4, default_rules() + async_rules(), cluster_ctas=2)
    events: list[SimEvent] = []

    def obs(ev: SimEvent) -> None:
        events.append(ev)
        ctx.observe(ev)
    run_kernel(m, None, parse_arg_specs(["out=u32[384]:zeros", "sregs=u32[768]:zeros"], m.entries()[0], 0),
               4, 32, 0, observer=obs, cluster=(2, 1, 1))
    ctx.finish()
    assert not ctx.findings
    remote = next(e for e in events if e.kind == EvKind.LD and "shared::cluster" in e.opcode)
    assert remote.space == "shared" and list(remote.detail["cta"][:1]) == [int(remote.lanes[0]) // 32 ^ 1]
    assert int(remote.addr[0]) == 4 * (31 - int(remote.lanes[0]) % 32)  # buf sits at offset 0
    stores = [e for e in events if e.kind == EvKind.ST and e.space == "shared"]
    assert {int(t) for e in stores for t in e.lanes} == set(range(128))
    # every remote read is ordered after the owner's store by the cluster barrier
    a = ctx.acc
    thread, key, write, ep, sid = (np.concatenate(x) for x in (a.thread, a.key, a.write, a.ep, a.sid))
    reads = np.flatnonzero(~write & (key >= 1 << 62))
    for j in reads:
        w = np.flatnonzero(write & (key == key[j]))
        assert len(w) and all(ctx.clocks.ordered(thread[w], ep[w], np.full(len(w), sid[j])))


def test_triton_tma_wgmma_matmul_has_no_findings_and_reports_its_async_work():
    """The committed Triton 3.9 device-descriptor matmul (tests/data/triton_tma): every TMA copy is
    waited for through its mbarrier and every wgmma read ends at wgmma.wait_group before the buffers are
    reused — the async rules find nothing, and the consumers' shared reads are ordered after the copies."""
    from pathlib import Path

    from ptxkit.exec_sim import load_module

    m = load_module(Path(__file__).parent / "data" / "triton_tma" / "device_desc_matmul.ptx")
    fn = m.entries()[0]
    p = [q.name for q in fn.params]
    ctx = Context(128, 1, default_rules() + async_rules())
    kinds: dict[str, int] = {}

    def obs(ev: SimEvent) -> None:
        kinds[ev.detail.get("op", ev.kind.value)] = kinds.get(ev.detail.get("op", ev.kind.value), 0) + 1
        ctx.observe(ev)
    specs = [f"{p[0]}=f16[8192]:rand", f"{p[1]}=f16[8192]:rand", f"{p[2]}=f32[4096]:zeros", f"{p[3]}=u8[256]:zeros",
             f"{p[4]}=null"]
    run_kernel(m, None, parse_arg_specs(specs, fn, 0), 1, 128, 49176, observer=obs)
    ctx.finish()
    assert not ctx.findings
    assert kinds["tensor_load"] == 4 and kinds["wgmma"] == 8 and kinds["mbarrier"] > 0
    # each wgmma operand read (an agent's read) and each TMA write (an agent's write) of the same byte are
    # ordered one way or the other: read after the copy that filled the stage, or before its reuse
    a = ctx.acc
    thread, key, write, ep, sid = (np.concatenate(x) for x in (a.thread, a.key, a.write, a.ep, a.sid))
    agents = thread >= 128
    writes: dict[int, list[int]] = {}
    for i in np.flatnonzero(agents & write).tolist():
        writes.setdefault(int(key[i]), []).append(i)
    reads = np.flatnonzero(agents & ~write & (key >= 1 << 62))
    assert len(reads) > 0 and len(writes) > 0
    cl = ctx.clocks
    pairs = 0
    for j in reads.tolist():
        for i in writes.get(int(key[j]), []):
            assert cl.rows[sid[j], thread[i]] >= ep[i] or cl.rows[sid[i], thread[j]] >= ep[j]
            pairs += 1
    assert pairs >= len(reads)  # every operand byte was written by some copy


PIPELINE = """
.visible .entry k(.param .align 64 .b8 tm[128], .param .u64 out)
{
  .reg .pred %p<10>;
  .reg .b32 %r<40>;
  .reg .b64 %rd<10>;
  .shared .align 128 .b8 stage[256];
  .shared .align 8 .b64 full[2];
  .shared .align 8 .b64 empty[2];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, full;
  mov.u32 %r3, empty;
  mov.u32 %r4, stage;
  setp.eq.u32 %p1, %r1, 0;
  @%p1 mbarrier.init.shared::cta.b64 [%r2], 1;
  @%p1 mbarrier.init.shared::cta.b64 [%r2+8], 1;
  @%p1 mbarrier.init.shared::cta.b64 [%r3], 32;
  @%p1 mbarrier.init.shared::cta.b64 [%r3+8], 32;
  fence.mbarrier_init.release.cluster;
  bar.sync 0;
  setp.ge.u32 %p2, %r1, 32;
  @%p2 bra CONSUMER;
  @!%p1 bra DONE;
  mov.u32 %r10, 0;
PLOOP:
  and.b32 %r11, %r10, 1;
  shr.u32 %r12, %r10, 1;
  and.b32 %r13, %r12, 1;
  xor.b32 %r14, %r13, 1;
  shl.b32 %r15, %r11, 3;
  add.u32 %r16, %r3, %r15;
  add.u32 %r17, %r2, %r15;
PW:
  mbarrier.try_wait.parity.shared::cta.b64 %p3, [%r16], %r14;
  @!%p3 bra PW;
  mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r17], 128;
  shl.b32 %r18, %r11, 7;
  add.u32 %r19, %r4, %r18;
  shl.b32 %r20, %r10, 5;
  cp.async.bulk.tensor.1d.shared::cta.global.tile.mbarrier::complete_tx::bytes [%r19], [tm, {%r20}], [%r17];
  add.u32 %r10, %r10, 1;
  setp.lt.u32 %p4, %r10, 4;
  @%p4 bra PLOOP;
  bra DONE;
CONSUMER:
  sub.u32 %r21, %r1, 32;
  mov.u32 %r10, 0;
  mov.u32 %r30, 0;
CLOOP:
  and.b32 %r11, %r10, 1;
  shr.u32 %r12, %r10, 1;
  and.b32 %r13, %r12, 1;
  shl.b32 %r15, %r11, 3;
  add.u32 %r16, %r3, %r15;
  add.u32 %r17, %r2, %r15;
CW:
  mbarrier.try_wait.parity.shared::cta.b64 %p5, [%r17], %r13;
  @!%p5 bra CW;
  shl.b32 %r18, %r11, 7;
  add.u32 %r19, %r4, %r18;
  shl.b32 %r22, %r21, 2;
  add.u32 %r23, %r19, %r22;
  ld.shared.u32 %r24, [%r23];
  add.u32 %r30, %r30, %r24;
  RELEASE
  add.u32 %r10, %r10, 1;
  setp.lt.u32 %p6, %r10, 4;
  @%p6 bra CLOOP;
  ld.param.u64 %rd1, [out];
  mul.wide.u32 %rd2, %r21, 4;
  add.u64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r30;
DONE:
  ret;
}
"""


RELEASE = "mbarrier.arrive.shared::cta.b64 _, [%r16];"


def _pipeline(text: str) -> tuple[Context, np.ndarray, np.ndarray]:
    m = parse_text(HEAD + text, "t.ptx")
    args = parse_arg_specs(["tm=tmap:u32[128]:zeros:dims=128:box=32", "out=u32[32]:zeros"], m.entries()[0], 0)
    args[0].data[:] = np.arange(128) * 5 + 1
    ctx = Context(64, 1, default_rules() + async_rules())
    res = run_kernel(m, None, args, 1, 64, 0, observer=ctx.observe)
    ctx.finish()
    return ctx, res.buffers["out"], args[0].data


def _war_and_raw_ordered(ctx: Context) -> bool:
    """Every consumer read of a stage byte and every TMA write of it are ordered one way or the other."""
    a = ctx.acc
    thread, key, write, ep, sid = (np.concatenate(x) for x in (a.thread, a.key, a.write, a.ep, a.sid))
    cl, ok = ctx.clocks, True
    reads = np.flatnonzero((thread >= 32) & (thread < 64) & ~write & (key >= 1 << 62))
    tma = np.flatnonzero((thread >= 64) & write)
    for j in reads.tolist():
        for i in tma[key[tma] == key[j]].tolist():
            ok &= bool(cl.rows[sid[j], thread[i]] >= ep[i] or cl.rows[sid[i], thread[j]] >= ep[j])
    return ok


def test_warp_specialized_tma_pipeline_runs_and_is_well_synchronized():
    """A producer thread (warp 0) and a consumer warp share 2 stages through full/empty mbarriers: the
    producer's first waits on the empty barriers use the parity of the phase before the first (they
    return at once), later ones wait for the consumers' 32 arrivals; try_wait suspends whoever waits,
    so the simulator interleaves the two roles. out[l] = Σ_i tensor[32 i + l]; no finding, and every
    TMA write of a stage is ordered with every consumer read of it (RAW through full, WAR through empty)."""
    ctx, out, tensor = _pipeline(PIPELINE.replace("RELEASE", RELEASE))
    assert list(out) == [int(tensor[l::32].sum()) for l in range(32)]
    assert not ctx.findings
    assert _war_and_raw_ordered(ctx)


def test_pipeline_whose_consumers_release_before_reading_races():
    """The consumer arrives on the empty barrier before its read (the stage is handed back too early): the
    producer's next copy into the stage is not ordered after the read (a write-after-read race)."""
    text = PIPELINE.replace("  RELEASE\n", "").replace("  ld.shared.u32 %r24, [%r23];",
                                                           f"  {RELEASE}\n  ld.shared.u32 %r24, [%r23];")
    ctx, _, _ = _pipeline(text)  # (the simulator's schedule even lets the copy overwrite the stage first)
    assert not _war_and_raw_ordered(ctx)


def test_multicast_tma_writes_are_keyed_in_each_destination_cta():
    """The multicast TMA of test_sim_async writes both CTAs' buf: the checker keys each copy's bytes in
    its destination CTA, and each CTA's reads after its own mbarrier wait are ordered after them."""
    from test_sim_async import MULTICAST

    m = parse_text(HEAD + MULTICAST, "t.ptx")
    ctx = Context(32, 2, default_rules() + async_rules(), cluster_ctas=2)
    args = parse_arg_specs(["tm=tmap:u32[128]:zeros:dims=128:box=32", "out=u32[64]:zeros"], m.entries()[0], 0)
    run_kernel(m, None, args, 2, 32, 0, observer=ctx.observe, cluster=(2, 1, 1))
    ctx.finish()
    assert not ctx.findings
    a = ctx.acc
    thread, key, write, ep, sid = (np.concatenate(x) for x in (a.thread, a.key, a.write, a.ep, a.sid))
    reads = np.flatnonzero((thread < 64) & ~write & (key >= 1 << 62))
    agents_w = np.flatnonzero((thread >= 64) & write)
    seen_ctas = set()
    for j in reads.tolist():
        w = agents_w[key[agents_w] == key[j]]
        assert len(w) == 1 and ctx.clocks.ordered(thread[w], ep[w], sid[j:j + 1])[0]
        seen_ctas.add(int(thread[j]) // 32)
    assert seen_ctas == {0, 1}


def test_st_async_writes_are_ordered_before_the_waiting_reads():
    """The st.async/red.async kernel of test_sim_async: the remote writes are keyed in rank 0's window and
    ordered before rank 0's reads by the mbarrier's complete-tx; no finding."""
    from test_sim_async import ST_ASYNC

    m = parse_text(HEAD + ST_ASYNC, "t.ptx")
    ctx = Context(32, 2, default_rules() + async_rules(), cluster_ctas=2)
    run_kernel(m, None, parse_arg_specs(["out=u32[64]:zeros"], m.entries()[0], 0), 2, 32, 0,
               observer=ctx.observe, cluster=(2, 1, 1))
    ctx.finish()
    assert not ctx.findings
    a = ctx.acc
    thread, key, write, ep, sid = (np.concatenate(x) for x in (a.thread, a.key, a.write, a.ep, a.sid))
    reads = np.flatnonzero((thread < 32) & ~write & (key >= 1 << 62))  # rank 0's reads of buf and counter
    agents_w = np.flatnonzero((thread >= 64) & write)
    pairs = 0
    for j in reads.tolist():
        w = agents_w[key[agents_w] == key[j]]
        assert ctx.clocks.ordered(thread[w], ep[w], np.full(len(w), sid[j])).all()
        pairs += len(w)
    assert pairs == 32 + 32 * 32  # each buf word once, the counter by all 32 red.async


def test_cp_async_wait_group_n_leaves_the_newest_groups_pending():
    """Two commit groups, then cp.async.wait_group 1 (ISA §9.7.9.25.3.2: all but the most recent group
    are complete): reading the first group's destination is fine, the second one's is a finding."""
    text = CP_ASYNC.replace("  cp.async.commit_group;\n  WAIT\n", """  cp.async.commit_group;
  cp.async.cg.shared.global [%r4+512], [%rd4], 16;
  cp.async.commit_group;
  cp.async.wait_group 1;
""").replace("buf[512]", "buf[1024]")
    ctx, _ = _check(text, ["src=u32[128]:zeros", "out=u32[128]:zeros"])
    assert not ctx.findings
    text2 = text.replace("ld.shared.u32 %r7, [%r4+4];", "ld.shared.u32 %r7, [%r4+516];")
    ctx, _ = _check(text2, ["src=u32[128]:zeros", "out=u32[128]:zeros"])
    found = [f for f in ctx.findings if f.rule == "cp-async-wait"]
    assert found and found[0].other_line == _line(text2, "[%r4+512]")


def test_bulk_wait_group_read_completes_the_source_reads_only():
    """cp.async.bulk.wait_group.read 0 (ISA §9.7.9.25.4.3): the bulk copies' reads of their shared source
    are complete — the source may be overwritten — but not their global writes: a read of the destination
    after it is not ordered after the copy; after cp.async.bulk.wait_group 0 it is."""
    from test_sim_async import BULK

    def run(wait: str) -> tuple[Context, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        text = BULK.replace("  @%p1 cp.async.bulk.wait_group 0;\n", f"  @%p1 {wait};\n"
                            "  @%p1 st.shared.u32 [%r3], %r1;\n  @%p1 ld.global.u32 %r9, [%rd2];\n")
        ctx, _ = _check(text, ["src=u32[64]:zeros", "dst=u32[64]:zeros"])
        a = ctx.acc
        return (ctx, *(np.concatenate(x) for x in (a.thread, a.key, a.write, a.ep, a.sid)))

    for wait, dest_ordered in (("cp.async.bulk.wait_group.read 0", False), ("cp.async.bulk.wait_group 0", True)):
        ctx, thread, key, write, ep, sid = run(wait)
        agents = thread >= 32
        last = len(thread) - 1  # thread 0's final ld.global of dst[0]
        st_src = int(np.flatnonzero(~agents & write)[-1])  # thread 0's st.shared of buf[0] after the wait
        src_reads = np.flatnonzero(agents & ~write & (key == key[st_src]))
        dst_writes = np.flatnonzero(agents & write & (key == key[last]))
        assert len(src_reads) and len(dst_writes)
        assert ctx.clocks.ordered(thread[src_reads], ep[src_reads], np.full(len(src_reads), sid[st_src])).all()
        assert bool(ctx.clocks.ordered(thread[dst_writes], ep[dst_writes],
                                       np.full(len(dst_writes), sid[last])).all()) == dest_ordered


LDMATRIX = """
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<8>;
  .reg .b64 %rd<8>;
  .shared .align 16 .b8 buf[128];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, buf;
  and.b32 %r3, %r1, 7;
  shl.b32 %r4, %r3, 4;
  add.u32 %r5, %r2, %r4;
  ld.param.u64 %rd1, [out];
  mul.wide.u32 %rd2, %r1, 16;
  add.u64 %rd3, %rd1, %rd2;
  cvt.u64.u32 %rd4, %r1;
  cp.async.ca.shared.global [%r5], [%rd3], 16;
  cp.async.commit_group;
  WAIT
  ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%r6}, [%r5];
  st.global.u32 [%rd3], %r6;
  ret;
}
"""


def test_ldmatrix_reads_are_reported_and_checked_against_cp_async():
    """ldmatrix.x1 (ISA §9.7.14.5.15): lanes 0..7 each read a 16-byte row — reported as four 4-byte LD
    events over those lanes; reading rows a cp.async has not completed (no wait_group) is a finding, with
    cp.async.wait_all + bar.sync none."""
    specs = ["out=u32[128]:zeros"]
    ctx, events = _check(LDMATRIX.replace("WAIT", "cp.async.wait_all;\n  bar.sync 0;"), specs)
    assert not ctx.findings
    lds = [e for e in events if e.kind == EvKind.LD and e.opcode.startswith("ldmatrix")]
    assert len(lds) == 4 and all(list(e.lanes) == list(range(8)) for e in lds)
    assert [list(e.addr) for e in lds] == [[16 * t + 4 * k for t in range(8)] for k in range(4)]
    ctx, _ = _check(LDMATRIX.replace("WAIT", ""), specs)
    assert any(f.rule == "cp-async-wait" and f.line == _line(LDMATRIX, "ldmatrix") for f in ctx.findings)


def test_wmma_load_and_store_report_each_tile_element_once():
    """wmma.load.c / wmma.store.d of a 16 x 16 f32 tile (ISA §9.7.14.4): the warp together reads (writes)
    each of its 256 elements once — reported as LD (ST) events covering every element address."""
    text = """
.visible .entry k(.param .u64 c, .param .u64 d)
{
  .reg .f32 %f<8>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [c];
  ld.param.u64 %rd2, [d];
  wmma.load.c.sync.aligned.row.m16n16k16.global.f32 {%f0, %f1, %f2, %f3, %f4, %f5, %f6, %f7}, [%rd1], 16;
  wmma.store.d.sync.aligned.row.m16n16k16.global.f32 [%rd2], {%f0, %f1, %f2, %f3, %f4, %f5, %f6, %f7}, 16;
  ret;
}
"""
    ctx, events = _check(text, ["c=f32[256]:rand", "d=f32[256]:zeros"])
    assert not ctx.findings
    for kind in (EvKind.LD, EvKind.ST):
        evs = [e for e in events if e.kind == kind and e.opcode.startswith("wmma")]
        addrs = np.concatenate([e.addr for e in evs]).astype(np.int64)
        assert len(addrs) == 256 and len(set((addrs - addrs.min()).tolist())) == 256
        assert (addrs - addrs.min()).max() == 4 * 255


def test_generic_writes_read_by_a_bulk_copy_need_an_async_proxy_fence():
    """The BULK kernel of test_sim_async: 32 threads st.shared, then thread 0's cp.async.bulk store reads
    those bytes through the async proxy (ISA §8.6). With fence.proxy.async by every writer before the
    bar.sync, or by the issuing thread after it, the bulk copy's reads are ordered after the writes;
    without any proxy fence they are not (a race, though bar.sync orders the threads)."""
    from test_sim_async import BULK

    def ordered(text: str) -> bool:
        ctx, _ = _check(text, ["src=u32[64]:zeros", "dst=u32[64]:zeros"])
        a = ctx.acc
        thread, key, write, ep, sid = (np.concatenate(x) for x in (a.thread, a.key, a.write, a.ep, a.sid))
        st = np.flatnonzero((thread < 32) & write & (key >= 1 << 62))
        rd = np.flatnonzero((thread >= 32) & ~write & (key >= 1 << 62))
        pairs = [(i, j) for j in rd.tolist() for i in st[(key[st] >= key[j]) & (key[st] < key[j] + 8)].tolist()]
        assert len(pairs) == 64  # 32 8-byte element reads of the copy, each over two 4-byte stores
        return all(ctx.clocks.rows[sid[j], thread[i]] >= ep[i] for i, j in pairs)

    fence = "  fence.proxy.async.shared::cta;\n"
    assert ordered(BULK)
    assert not ordered(BULK.replace(fence, ""))
    late = BULK.replace(fence, "").replace("  @%p1 cp.async.bulk.global", "  @%p1 fence.proxy.async;\n"
                                                                      "  @%p1 cp.async.bulk.global")
    assert ordered(late)
