"""The Ampere/Hopper asynchronous machinery on the simulator (issue 11): cp.async groups, mbarrier phases
and transaction counts (PTX ISA §9.7.13.15), TMA copies through tensor maps (§9.7.9.25.5, §5.5.8) with
every shared-memory swizzle, the --arg tmap spec, and a Triton 3.9 TMA + mbarrier + wgmma matmul.
Expected values are argued here from the ISA / the CUDA driver API, not produced by the simulator."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from ptxkit.errors import PtxkitError, UsageError
from ptxkit.exec_sim import parse_arg_specs, parse_text, run_kernel

HEAD = ".version 8.0\n.target sm_90a\n.address_size 64\n"
ROOT = Path(__file__).resolve().parent.parent


def _run(text: str, specs: list[str], block: int = 32, grid: int = 1, shared: int = 0):
    m = parse_text(HEAD + text, "t.ptx")
    return run_kernel(m, None, parse_arg_specs(specs, m.entries()[0], 0), grid, block, shared)


# ---------------------------------------------------------------------- TMA 2-D loads, every swizzle
TMA_LOAD = """
.visible .entry k(.param .align 64 .b8 tm[128], .param .u64 out, .param .s32 c0, .param .s32 c1)
{
  .reg .pred %p<4>;
  .reg .b32 %r<20>;
  .reg .b64 %rd<10>;
  .shared .align 1024 .b8 box[BYTES];
  .shared .align 8 .b64 bar;
  mov.u32 %r1, %tid.x;
  setp.eq.u32 %p1, %r1, 0;
  mov.u32 %r2, bar;
  @%p1 mbarrier.init.shared::cta.b64 [%r2], 1;
  fence.mbarrier_init.release.cluster;
  bar.sync 0;
  ld.param.s32 %r3, [c0];
  ld.param.s32 %r4, [c1];
  mov.u32 %r5, box;
  @%p1 mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r2], BYTES;
  @%p1 cp.async.bulk.tensor.2d.shared::cta.global.tile.mbarrier::complete_tx::bytes [%r5], [tm, {%r3, %r4}], [%r2];
WAIT:
  mbarrier.try_wait.parity.shared::cta.b64 %p2, [%r2], 0;
  @!%p2 bra WAIT;
  ld.param.u64 %rd2, [out];
  mov.u32 %r6, %r1;
LOOP:
  setp.ge.u32 %p3, %r6, WORDS;
  @%p3 bra DONE;
  shl.b32 %r7, %r6, 2;
  add.u32 %r8, %r5, %r7;
  ld.shared.u32 %r9, [%r8];
  cvt.u64.u32 %rd3, %r7;
  add.u64 %rd4, %rd2, %rd3;
  st.global.u32 [%rd4], %r9;
  add.u32 %r6, %r6, 32;
  bra LOOP;
DONE:
  ret;
}
"""


def _swizzled_box(tensor: np.ndarray, c0: int, c1: int, rows: int, cols: int, span: int) -> np.ndarray:
    """The bytes a TMA box load leaves in shared memory, from the ISA's description: the box
    tensor[c1:c1+rows, c0:c0+cols] (out-of-bounds elements zero) laid out densely row after row, then
    with a swizzle of ``span`` bytes the 16-byte chunk j of each 128-byte line L of the (1024-aligned)
    destination moves to chunk j XOR (L mod span/16), within its span (CUTLASS Swizzle<log2(span/16),4,3>)."""
    box = np.zeros((rows, cols), tensor.dtype)
    for r in range(rows):
        for c in range(cols):
            y, x = c1 + r, c0 + c
            if 0 <= y < tensor.shape[0] and 0 <= x < tensor.shape[1]:
                box[r, c] = tensor[y, x]
    dense = box.view(np.uint8).reshape(-1)
    if not span:
        return dense
    out = np.zeros_like(dense)
    chunks = span // 16
    for o in range(0, len(dense), 16):
        line, j = o // 128, (o // 16) % chunks
        dest = o - 16 * j + 16 * (j ^ (line % chunks))
        out[dest:dest + 16] = dense[o:o + 16]
    return out


@pytest.mark.parametrize("span", [0, 32, 64, 128])
@pytest.mark.parametrize("c0, c1", [(8, 3), (-8, 10)])
def test_tma_2d_load_box_with_each_swizzle(span, c0, c1):
    """A 16-row box of a 20 x 80 u16 tensor (row-major: dims 80, 20), rows of the swizzle span (64 B
    without swizzle), at an inner offset and at a corner hanging out of the tensor (zero filled)."""
    cols = (span or 64) // 2
    rows, R, C = 16, 20, 80
    tensor = (np.arange(R * C) + 1).astype(np.uint16).reshape(R, C)
    nbytes = rows * cols * 2
    text = TMA_LOAD.replace("WORDS", str(nbytes // 4)).replace("BYTES", str(nbytes))
    sw = f"{span}B" if span else "none"
    m = parse_text(HEAD + text, "t.ptx")
    args = parse_arg_specs([f"tm=tmap:u16[{R * C}]:zeros:dims={C},{R}:box={cols},{rows}:swizzle={sw}",
                            f"out=u8[{nbytes}]:zeros", f"c0=s32:{c0}", f"c1=s32:{c1}"], m.entries()[0], 0)
    args[0].data[:] = tensor.reshape(-1)
    res = run_kernel(m, None, args, 1, 32, 0)
    assert np.array_equal(res.buffers["out"], _swizzled_box(tensor, c0, c1, rows, cols, span))
    assert np.array_equal(res.buffers["tm"], tensor.reshape(-1))  # a load leaves the tensor alone


TMA_STORE = """
.visible .entry k(.param .align 64 .b8 tm[128], .param .u64 src)
{
  .reg .pred %p<4>;
  .reg .b32 %r<20>;
  .reg .b64 %rd<10>;
  .shared .align 1024 .b8 box[512];
  mov.u32 %r1, %tid.x;
  ld.param.u64 %rd1, [src];
  mul.wide.u32 %rd2, %r1, 4;
  add.u64 %rd3, %rd1, %rd2;
  ld.global.u32 %r2, [%rd3];
  mov.u32 %r3, box;
  shl.b32 %r4, %r1, 2;
  add.u32 %r5, %r3, %r4;
  st.shared.u32 [%r5], %r2;
  st.shared.u32 [%r5+128], %r2;
  st.shared.u32 [%r5+256], %r2;
  st.shared.u32 [%r5+384], %r2;
  fence.proxy.async.shared::cta;
  bar.sync 0;
  setp.eq.u32 %p1, %r1, 0;
  mov.u32 %r6, 2;
  mov.u32 %r7, 1;
  @%p1 cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [tm, {%r6, %r7}], [%r3];
  @%p1 cp.async.bulk.commit_group;
  @%p1 cp.async.bulk.wait_group.read 0;
  ret;
}
"""


def test_tma_2d_store_skips_out_of_bounds_elements():
    """A 4 x 32 u32 box (128-byte rows, no swizzle) stored at (2, 1) into a 4 x 34 zero tensor: rows
    1..3 receive box rows 0..2 in columns 2..33, the fourth box row falls outside (row 4) and is dropped."""
    m = parse_text(HEAD + TMA_STORE, "t.ptx")
    args = parse_arg_specs(["tm=tmap:u32[144]:zeros:dims=34,4:strides=144:box=32,4", "src=u32[32]:zeros"],
                           m.entries()[0], 0)
    args[1].data[:] = np.arange(32) + 100
    res = run_kernel(m, None, args, 1, 32, 0)
    # strides=144 bytes: a row of 34 u32 padded to a multiple of 16 bytes (36 elements)
    got = res.buffers["tm"]
    want = np.zeros(144, np.uint32)
    for r in range(1, 4):
        want[36 * r + 2:36 * r + 34] = np.arange(32) + 100
    assert np.array_equal(got, want)


# ---------------------------------------------------------------------- mbarrier phases and tx counts
MBAR = """
.visible .entry k(.param .u64 out)
{
  .reg .pred %p<10>;
  .reg .b32 %r<20>;
  .reg .b64 %rd<10>;
  .shared .align 8 .b64 bar;
  mov.u32 %r1, %tid.x;
  ld.param.u64 %rd1, [out];
  mov.u32 %r2, bar;
  setp.eq.u32 %p1, %r1, 0;
  setp.lt.u32 %p2, %r1, 2;
  @%p1 mbarrier.init.shared::cta.b64 [%r2], 2;
  bar.sync 0;
  // phase 0: threads 0 and 1 arrive (lane order: 0 then 1)
  @%p2 mbarrier.arrive.shared::cta.b64 %rd2, [%r2];
  @%p2 mbarrier.pending_count.b64 %r3, %rd2;
  mbarrier.test_wait.parity.shared::cta.b64 %p3, [%r2], 0;
  mbarrier.test_wait.parity.shared::cta.b64 %p4, [%r2], 1;
  // phase 1: thread 0 arrives expecting 64 bytes, thread 1 arrives; the tx-count holds the phase open
  @%p1 mbarrier.arrive.expect_tx.shared::cta.b64 %rd3, [%r2], 64;
  setp.eq.u32 %p5, %r1, 1;
  @%p5 mbarrier.arrive.shared::cta.b64 %rd3, [%r2];
  mbarrier.test_wait.parity.shared::cta.b64 %p6, [%r2], 1;
  mbarrier.test_wait.shared::cta.b64 %p7, [%r2], %rd3;
  @%p1 mbarrier.complete_tx.shared::cta.b64 [%r2], 64;
  mbarrier.test_wait.parity.shared::cta.b64 %p8, [%r2], 1;
  mbarrier.test_wait.shared::cta.b64 %p9, [%r2], %rd3;
  // out[t] = pending_count | p3<<8 | p4<<9 | p6<<10 | p7<<11 | p8<<12 | p9<<13
  selp.u32 %r4, 256, 0, %p3;
  selp.u32 %r5, 512, 0, %p4;
  selp.u32 %r6, 1024, 0, %p6;
  selp.u32 %r7, 2048, 0, %p7;
  selp.u32 %r8, 4096, 0, %p8;
  selp.u32 %r9, 8192, 0, %p9;
  @!%p2 mov.u32 %r3, 255;
  or.b32 %r3, %r3, %r4;
  or.b32 %r3, %r3, %r5;
  or.b32 %r3, %r3, %r6;
  or.b32 %r3, %r3, %r7;
  or.b32 %r3, %r3, %r8;
  or.b32 %r3, %r3, %r9;
  mul.wide.u32 %rd4, %r1, 4;
  add.u64 %rd5, %rd1, %rd4;
  st.global.u32 [%rd5], %r3;
  ret;
}
"""


def test_mbarrier_phase_flips_and_tx_count():
    """ISA §9.7.13.15: init(2) → phase 0 with 2 pending arrivals. Thread 0's arrive leaves 1 pending,
    thread 1's completes phase 0 (0 pending): test_wait.parity 0 (the completed, preceding phase) is
    true, parity 1 (the current phase) false. In phase 1, arrive.expect_tx(64) + an arrive bring the
    pending count to 0 but the tx-count is 64: still incomplete (parity 1 and the arrive's state both
    false) until complete_tx(64) zeroes it; then both report completion."""
    res = _run(MBAR, ["out=u32[32]:zeros"])
    got = res.buffers["out"]
    common = 256 | 0 | 0 | 0 | 4096 | 8192
    assert got[0] == 1 | common
    assert got[1] == 0 | common
    # the other threads hold no arrive state (bits 11 and 13 test a zero register): only the parity tests
    assert ((got[2:] & ~np.uint32(2048 | 8192)) == (255 | 256 | 4096)).all()


DEADLOCK = """
.visible .entry k(.param .u64 out)
{
  .reg .pred %p<4>;
  .reg .b32 %r<8>;
  .shared .align 8 .b64 bar;
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, bar;
  setp.eq.u32 %p1, %r1, 0;
  @%p1 mbarrier.init.shared::cta.b64 [%r2], COUNT;
  bar.sync 0;
  @%p1 mbarrier.arrive.shared::cta.b64 _, [%r2];
WAIT:
  mbarrier.try_wait.parity.shared::cta.b64 %p2, [%r2], 0;
  @!%p2 bra WAIT;
  ret;
}
"""


def test_try_wait_that_can_never_complete_is_a_deadlock():
    """init(33) with 32 threads, one arriving: phase 0 can never complete. The try_wait loop ends in
    the simulator's deadlock report (located at the try_wait), not at the step limit."""
    with pytest.raises(PtxkitError) as e:
        _run(DEADLOCK.replace("COUNT", "33"), ["out=null"])
    msg = str(e.value)
    assert "deadlock" in msg and "mbarrier" in msg and "32 pending arrival(s)" in msg
    line = (HEAD + DEADLOCK).splitlines().index("  mbarrier.try_wait.parity.shared::cta.b64 %p2, [%r2], 0;") + 1
    assert f"t.ptx:{line}:" in msg  # located at the try_wait


def test_try_wait_completes_when_the_phase_does():
    """The same kernel with init(1): thread 0's arrival completes phase 0 and every thread passes."""
    _run(DEADLOCK.replace("COUNT", "1"), ["out=null"])


def test_arrive_on_an_uninitialised_mbarrier_is_refused():
    text = DEADLOCK.replace("COUNT", "1").replace("@%p1 mbarrier.init.shared::cta.b64 [%r2], 1;", "")
    with pytest.raises(PtxkitError, match="no initialised mbarrier"):
        _run(text, ["out=null"])


# ---------------------------------------------------------------------- cp.async groups
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
  and.b32 %r5, %r1, 3;
  shl.b32 %r6, %r5, 2;
  cp.async.cg.shared.global [%r4], [%rd4], 16, %r6;
  cp.async.commit_group;
  cp.async.wait_group 0;
  bar.sync 0;
  ld.shared.v4.u32 {%r7, %r8, %r9, %r5}, [%r4];
  add.u64 %rd5, %rd2, %rd3;
  st.global.v4.u32 [%rd5], {%r7, %r8, %r9, %r5};
  ret;
}
"""


def test_cp_async_with_src_size_zero_fills():
    """cp.async.cg 16 bytes with src-size 4·(t mod 4) (§9.7.9.25.3.1): thread t copies the first
    4·(t mod 4) bytes of its 16-byte slice and zero-fills the rest."""
    m = parse_text(HEAD + CP_ASYNC, "t.ptx")
    args = parse_arg_specs(["src=u32[128]:zeros", "out=u32[128]:zeros"], m.entries()[0], 0)
    args[0].data[:] = np.arange(128) + 1
    got = run_kernel(m, None, args, 1, 32, 0).buffers["out"].reshape(32, 4)
    for t in range(32):
        k = t % 4
        assert list(got[t]) == [4 * t + 1 + i if i < k else 0 for i in range(4)]


# ---------------------------------------------------------------------- the tmap spec
@pytest.mark.parametrize("spec, msg", [
    ("tmap:f16[64]:zeros:dims=8,8", "needs box"),
    ("tmap:f16[64]:zeros:dims=8,8:box=4,4", "multiple of 16"),
    ("tmap:f16[64]:zeros:dims=8,8:box=8,8:swizzle=128B", "swizzle 128B with a 16-byte inner box"),
    ("tmap:f16[63]:zeros:dims=8,8:box=8,8", "holds 126"),
    ("tmap:f16[64]:zeros:dims=8,8:box=8,8:swizzle=16B", "expected none, 32B"),
    ("tmap:f16[64]:zeros:dims=8,8:box=8,8:strides=17", "multiple of 16"),
    ("tmap:f16[64]:zeros:dims=8,8:box=8,300", "outside 1 .. 256"),
    ("tmap:f16[64]:zeros:dims=8,8:box=8,8:color=red", "unknown tmap field"),
    ("tmap:@nothing:dims=8,8:box=8,8", "names no buffer"),
])
def test_tmap_spec_refusals(spec, msg):
    m = parse_text(HEAD + ".visible .entry k(.param .align 64 .b8 tm[128]) { ret; }", "t.ptx")
    with pytest.raises(UsageError, match=msg):
        parse_arg_specs([f"tm={spec}"], m.entries()[0], 0)


def test_tmap_needs_a_128_byte_parameter():
    m = parse_text(HEAD + ".visible .entry k(.param .u64 tm) { ret; }", "t.ptx")
    with pytest.raises(UsageError, match="not a 128-byte tensor map"):
        parse_arg_specs(["tm=tmap:f16[64]:zeros:dims=8,8:box=8,8"], m.entries()[0], 0)


# ---------------------------------------------------------------------- Triton 3.9 TMA matmul
TRITON_MM = ROOT / "corpora" / "verify" / "triton_matmul_tma_sm90.ptx"


@pytest.mark.skipif(not TRITON_MM.is_file(), reason="corpora/verify/triton_matmul_tma_sm90.ptx not committed yet")
def test_triton_tma_wgmma_matmul_equals_numpy(tmp_path):
    """Triton 3.9's sm_90 matmul of corpora/verify (1 CTA of 128 threads, a 64 x 64 tile, K = 128): the A
    and B tiles come in through TMA (swizzled boxes) and mbarriers, wgmma reads them through matrix
    descriptors. The launch is the file's own "// launch:" line, with the two random tensors replaced by
    small integers, which keep every f32 sum exact: the result is numpy's A @ B bit for bit."""
    import re
    import shlex

    from ptxkit.exec_sim import load_module

    text = TRITON_MM.read_text()
    launch = shlex.split(re.search(r"^// launch: ptxkit verify \S+ (.*)$", text, re.M).group(1))
    opts = dict(zip(launch[::2], launch[1::2]))
    specs = [v for k, v in zip(launch[::2], launch[1::2]) if k == "--arg"]
    rng = np.random.default_rng(0)
    a = rng.integers(-3, 4, (64, 128)).astype(np.float16)
    b = rng.integers(-3, 4, (128, 64)).astype(np.float16)
    np.save(tmp_path / "a.npy", a.reshape(-1))
    np.save(tmp_path / "b.npy", b.reshape(-1))
    tm = [i for i, x in enumerate(specs) if "=tmap:" in x]
    assert len(tm) == 2 and "dims=128,64" in specs[tm[0]] and "dims=64,128" in specs[tm[1]]
    specs[tm[0]] = specs[tm[0]].replace(":rand:", f":{tmp_path / 'a.npy'}:")
    specs[tm[1]] = specs[tm[1]].replace(":rand:", f":{tmp_path / 'b.npy'}:")
    out = next(x.split("=")[0] for x in specs if "=f32[4096]:zeros" in x)
    m = load_module(TRITON_MM)
    fn = m.entries()[0]
    res = run_kernel(m, None, parse_arg_specs(specs, fn, 0), 1, int(opts["--block"]), int(opts["--shared"]))
    got = res.buffers[out].reshape(64, 64)
    assert np.array_equal(got, (a.astype(np.float64) @ b.astype(np.float64)).astype(np.float32))


# ---------------------------------------------------------------------- clusters, mapa, distributed shared memory
CLUSTER = """
.visible .entry k(.param .u64 out, .param .u64 sregs)
{
  .reg .pred %p<4>;
  .reg .b32 %r<30>;
  .reg .b64 %rd<20>;
  .shared .align 4 .b32 buf[32];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %cluster_ctarank;
  mov.u32 %r3, %cluster_nctarank;
  mov.u32 %r4, %clusterid.x;
  mov.u32 %r5, %cluster_ctaid.x;
  mov.u32 %r6, %nclusterid.x;
  mov.u32 %r7, %ctaid.x;
  mov.u32 %r8, %is_explicit_cluster;
  // buf[t] = 1000·ctaid + t in this CTA's shared memory
  mad.lo.u32 %r9, %r7, 1000, %r1;
  mov.u32 %r10, buf;
  shl.b32 %r11, %r1, 2;
  add.u32 %r12, %r10, %r11;
  st.shared.u32 [%r12], %r9;
  barrier.cluster.arrive.release.aligned;
  barrier.cluster.wait.acquire.aligned;
  // read buf[31 - t] of the other CTA of the cluster, through a .shared::cluster address and a generic one
  xor.b32 %r13, %r2, 1;
  sub.u32 %r14, 31, %r1;
  shl.b32 %r15, %r14, 2;
  add.u32 %r16, %r10, %r15;
  mapa.shared::cluster.u32 %r17, %r16, %r13;
  ld.shared::cluster.u32 %r18, [%r17];
  cvta.shared.u64 %rd1, buf;
  cvt.u64.u32 %rd2, %r15;
  add.u64 %rd3, %rd1, %rd2;
  mapa.u64 %rd4, %rd3, %r13;
  ld.u32 %r19, [%rd4];
  mapa.shared::cluster.u32 %r20, %r16, %r2;
  ld.shared::cluster.u32 %r21, [%r20];
  barrier.cluster.arrive.release.aligned;
  barrier.cluster.wait.acquire.aligned;
  // out[g] = (remote, remote via generic, own)
  // sregs[g] = (rank, nrank, clusterid, cluster_ctaid, nclusterid, explicit)
  mad.lo.u32 %r22, %r7, 32, %r1;
  mul.wide.u32 %rd5, %r22, 12;
  ld.param.u64 %rd6, [out];
  add.u64 %rd7, %rd6, %rd5;
  st.global.u32 [%rd7], %r18;
  st.global.u32 [%rd7+4], %r19;
  st.global.u32 [%rd7+8], %r21;
  mul.wide.u32 %rd8, %r22, 24;
  ld.param.u64 %rd9, [sregs];
  add.u64 %rd10, %rd9, %rd8;
  st.global.v2.u32 [%rd10], {%r2, %r3};
  st.global.v2.u32 [%rd10+8], {%r4, %r5};
  st.global.v2.u32 [%rd10+16], {%r6, %r8};
  ret;
}
"""


def test_cluster_registers_mapa_and_distributed_shared_memory():
    """4 CTAs in clusters of 2 (ISA §2.2.2): CTA c is rank c mod 2 of cluster c div 2; %cluster_nctarank
    2, %nclusterid.x 2, %is_explicit_cluster 1. mapa (§9.7.9.23) of buf[31-t] to the other rank and
    ld.shared::cluster read what that CTA stored (1000·ctaid' + 31 - t), also through a generic mapa
    address; mapa to the own rank reads the own buf."""
    m = parse_text(HEAD + CLUSTER, "t.ptx")
    args = parse_arg_specs(["out=u32[384]:zeros", "sregs=u32[768]:zeros"], m.entries()[0], 0)
    res = run_kernel(m, None, args, 4, 32, 0, cluster=(2, 1, 1))
    out = res.buffers["out"].reshape(4, 32, 3)
    sregs = res.buffers["sregs"].reshape(4, 32, 6)
    for c in range(4):
        other = c ^ 1
        for t in range(32):
            assert list(out[c, t]) == [1000 * other + 31 - t, 1000 * other + 31 - t, 1000 * c + 31 - t]
            assert list(sregs[c, t]) == [c % 2, 2, c // 2, c % 2, 2, 1]


def test_cluster_shape_must_tile_the_grid():
    m = parse_text(HEAD + CLUSTER, "t.ptx")
    args = parse_arg_specs(["out=u32[384]:zeros", "sregs=u32[768]:zeros"], m.entries()[0], 0)
    with pytest.raises(UsageError, match="not a multiple"):
        run_kernel(m, None, args, 3, 32, 0, cluster=(2, 1, 1))


def test_cluster_barrier_wait_without_every_arrival_is_a_deadlock():
    """Thread 0 of the second CTA skips barrier.cluster.arrive: the cluster's phase never completes."""
    first = "  barrier.cluster.arrive.release.aligned;\n  barrier.cluster.wait.acquire.aligned;\n  // read"
    text = CLUSTER.replace(first,
                           "  setp.ne.u32 %p1, %r22, 32;\n  @%p1 barrier.cluster.arrive.release;\n"
                           "  barrier.cluster.wait.acquire;\n  // read")
    text = text.replace("  mov.u32 %r1, %tid.x;\n", "  mov.u32 %r1, %tid.x;\n  mov.u32 %r7, %ctaid.x;\n"
                        "  mad.lo.u32 %r22, %r7, 32, %r1;\n", 1)
    m = parse_text(HEAD + text, "t.ptx")
    args = parse_arg_specs(["out=u32[384]:zeros", "sregs=u32[768]:zeros"], m.entries()[0], 0)
    with pytest.raises(PtxkitError, match=r"deadlock.*barrier\.cluster"):
        run_kernel(m, None, args, 2, 32, 0, cluster=(2, 1, 1))


DEVICE_DESC = ROOT / "tests" / "data" / "triton_tma" / "device_desc_matmul.ptx"


def test_triton_device_side_descriptors_matmul_equals_numpy(tmp_path):
    """Triton 3.9's tl.make_tensor_descriptor builds both tensor maps in the kernel (tensormap.replace
    field by field in shared memory, ISA §9.7.9.28; tensormap.cp_fenceproxy into the global scratch),
    then the same TMA + mbarrier + wgmma pipeline: small integers keep the f32 sums exact, so the result
    is numpy's A @ B bit for bit."""
    from ptxkit.exec_sim import load_module

    m = load_module(DEVICE_DESC)
    fn = m.entries()[0]
    rng = np.random.default_rng(2)
    a = rng.integers(-3, 4, (64, 128)).astype(np.float16)
    b = rng.integers(-3, 4, (128, 64)).astype(np.float16)
    np.save(tmp_path / "a.npy", a.reshape(-1))
    np.save(tmp_path / "b.npy", b.reshape(-1))
    p = [q.name for q in fn.params]
    specs = [f"{p[0]}=f16[8192]:{tmp_path / 'a.npy'}", f"{p[1]}=f16[8192]:{tmp_path / 'b.npy'}",
             f"{p[2]}=f32[4096]:zeros", f"{p[3]}=u8[256]:zeros", f"{p[4]}=null"]
    res = run_kernel(m, None, parse_arg_specs(specs, fn, 0), 1, 128, 49176)
    got = res.buffers[p[2]].reshape(64, 64)
    assert np.array_equal(got, (a.astype(np.float64) @ b.astype(np.float64)).astype(np.float32))
    # the maps the kernel wrote: rank 2, f16, dims (128, 64) and (64, 128), boxes 64 x 64, 128-byte swizzle
    from ptxkit.exec_sim.tensormap import TensorMap

    maps = [TensorMap.decode(res.buffers[p[3]][k:k + 128].tobytes()) for k in (0, 128)]
    assert [(t.dims, t.box, t.esize, t.swizzle_bytes, t.strides) for t in maps] == \
        [((128, 64), (64, 64), 2, 128, (256,)), ((64, 128), (64, 64), 2, 128, (128,))]


# ---------------------------------------------------------------------- cp.async.bulk (non-tensor)
BULK = """
.visible .entry k(.param .u64 src, .param .u64 dst)
{
  .reg .pred %p<4>;
  .reg .b32 %r<20>;
  .reg .b64 %rd<10>;
  .shared .align 128 .b8 buf[256];
  .shared .align 8 .b64 bar;
  mov.u32 %r1, %tid.x;
  setp.eq.u32 %p1, %r1, 0;
  mov.u32 %r2, bar;
  mov.u32 %r3, buf;
  ld.param.u64 %rd1, [src];
  ld.param.u64 %rd2, [dst];
  @%p1 mbarrier.init.shared::cta.b64 [%r2], 1;
  bar.sync 0;
  @%p1 mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r2], 256;
  @%p1 cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%r3], [%rd1], 256, [%r2];
W:
  mbarrier.try_wait.parity.shared::cta.b64 %p2, [%r2], 0;
  @!%p2 bra W;
  // every thread doubles its 8 bytes (two u32) in shared memory
  shl.b32 %r4, %r1, 3;
  add.u32 %r5, %r3, %r4;
  ld.shared.v2.u32 {%r6, %r7}, [%r5];
  add.u32 %r6, %r6, %r6;
  add.u32 %r7, %r7, %r7;
  st.shared.v2.u32 [%r5], {%r6, %r7};
  fence.proxy.async.shared::cta;
  bar.sync 0;
  @%p1 cp.async.bulk.global.shared::cta.bulk_group [%rd2], [%r3], 256;
  @%p1 cp.async.bulk.commit_group;
  @%p1 cp.async.bulk.wait_group 0;
  ret;
}
"""


def test_bulk_copy_in_through_an_mbarrier_and_out_through_a_bulk_group():
    """cp.async.bulk global→shared (256 bytes, complete_tx on the mbarrier), 32 threads double the 64
    words, cp.async.bulk shared→global with a bulk async-group (ISA §9.7.9.25.4): dst = 2·src."""
    m = parse_text(HEAD + BULK, "t.ptx")
    args = parse_arg_specs(["src=u32[64]:zeros", "dst=u32[64]:zeros"], m.entries()[0], 0)
    args[0].data[:] = np.arange(64) * 3 + 1
    res = run_kernel(m, None, args, 1, 32, 0)
    assert list(res.buffers["dst"]) == [2 * (3 * i + 1) for i in range(64)]


def test_run_cli_writes_the_tensor_of_a_tmap_and_takes_a_cluster(tmp_path, capsys):
    """`ptxkit run` with --arg tm=tmap:… writes the map's tensor as tm.bin (a TMA store target) and
    accepts --cluster; a cluster shape that does not tile the grid is a one-line usage error."""
    from ptxkit.cli import main

    src = tmp_path / "k.ptx"
    src.write_text(HEAD + TMA_STORE)
    data = tmp_path / "src.npy"
    np.save(data, (np.arange(32) + 100).astype(np.uint32))
    args = ["run", str(src), "--arg", "tm=tmap:u32[144]:zeros:dims=34,4:strides=144:box=32,4",
            "--arg", f"src=u32[32]:{data}", "--block", "32", "--out", str(tmp_path)]
    assert main([*args, "--cluster", "1"]) == 0
    got = np.fromfile(tmp_path / "tm.bin", np.uint32)
    assert list(got[36 + 2:36 + 34]) == list(range(100, 132)) and got[:36].sum() == 0
    capsys.readouterr()
    assert main([*args, "--grid", "3", "--cluster", "2"]) == 2
    assert "not a multiple" in capsys.readouterr().err


REDUCE = """
.visible .entry k(.param .u64 src, .param .u64 dst, .param .align 64 .b8 tm[128])
{
  .reg .pred %p<4>;
  .reg .b32 %r<20>;
  .reg .b64 %rd<10>;
  .shared .align 128 .b8 buf[256];
  mov.u32 %r1, %tid.x;
  mov.u32 %r3, buf;
  ld.param.u64 %rd1, [src];
  ld.param.u64 %rd2, [dst];
  shl.b32 %r4, %r1, 3;
  add.u32 %r5, %r3, %r4;
  cvt.u64.u32 %rd3, %r4;
  add.u64 %rd4, %rd1, %rd3;
  ld.global.v2.u32 {%r6, %r7}, [%rd4];
  st.shared.v2.u32 [%r5], {%r6, %r7};
  fence.proxy.async.shared::cta;
  bar.sync 0;
  setp.eq.u32 %p1, %r1, 0;
  mov.u32 %r8, 1;
  @%p1 cp.reduce.async.bulk.global.shared::cta.bulk_group.add.u32 [%rd2], [%r3], 256;
  @%p1 cp.reduce.async.bulk.tensor.2d.global.shared::cta.max.tile.bulk_group [tm, {%r8, %r8}], [%r3];
  @%p1 cp.async.bulk.commit_group;
  @%p1 cp.async.bulk.wait_group 0;
  ret;
}
"""


def test_bulk_reductions_combine_element_by_element():
    """cp.reduce.async.bulk .add.u32 of 64 words into dst (dst[i] += src[i], wrapping), and the tensor
    form .max on a 2 x 32 u32 box at (1, 1) of a 2 x 34 tensor (the box's second row falls outside and
    is skipped): tensor[1][1 + j] = max(tensor[1][1 + j], src[j]) (ISA §9.7.9.25.4.2, .5.3)."""
    m = parse_text(HEAD + REDUCE, "t.ptx")
    args = parse_arg_specs(["src=u32[64]:zeros", "dst=u32[64]:zeros",
                            "tm=tmap:u32[108]:zeros:dims=34,2:strides=144:box=32,2"], m.entries()[0], 0)
    src = (np.arange(64) * 7 + 3).astype(np.uint32)
    args[0].data[:] = src
    args[1].data[:] = np.arange(64) + 0xFFFFFFF0
    args[2].data[:] = 100
    res = run_kernel(m, None, args, 1, 32, 0)
    assert list(res.buffers["dst"]) == [(int(s) + i + 0xFFFFFFF0) & 0xFFFFFFFF for i, s in enumerate(src)]
    t = res.buffers["tm"].reshape(3, 36)
    assert list(t[1, 1:33]) == [max(100, int(s)) for s in src[:32]]
    assert (t[0] == 100).all() and (t[2] == 100).all() and t[1, 0] == 100 and (t[1, 33:] == 100).all()


REMOTE_MBAR = """
.visible .entry k(.param .u64 out)
{
  .reg .pred %p<6>;
  .reg .b32 %r<20>;
  .reg .b64 %rd<10>;
  .shared .align 8 .b64 bar;
  .shared .align 4 .b32 val;
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %cluster_ctarank;
  mov.u32 %r3, bar;
  setp.eq.u32 %p1, %r1, 0;
  setp.eq.u32 %p2, %r2, 0;
  and.pred %p3, %p1, %p2;
  @%p3 mbarrier.init.shared::cta.b64 [%r3], 1;
  barrier.cluster.arrive.release.aligned;
  barrier.cluster.wait.acquire.aligned;
  // rank 1's thread 0 writes 77 into rank 0's val, then arrives on rank 0's mbarrier
  setp.eq.u32 %p4, %r2, 1;
  and.pred %p5, %p1, %p4;
  mov.u32 %r4, val;
  mapa.shared::cluster.u32 %r5, %r4, 0;
  mapa.shared::cluster.u32 %r6, %r3, 0;
  mov.u32 %r7, 77;
  @%p5 st.shared::cluster.u32 [%r5], %r7;
  @%p5 mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%r6];
  @!%p2 bra DONE;
W:
  mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 %p0, [%r3], 0;
  @!%p0 bra W;
  ld.shared.u32 %r8, [%r4];
  ld.param.u64 %rd1, [out];
  mul.wide.u32 %rd2, %r1, 4;
  add.u64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r8;
DONE:
  barrier.cluster.arrive.release.aligned;
  barrier.cluster.wait.acquire.aligned;
  ret;
}
"""


def test_remote_mbarrier_arrive_in_a_cluster():
    """A thread of rank 1 stores into rank 0's shared memory and arrives on rank 0's mbarrier through
    .shared::cluster addresses (mapa, ISA §9.7.13.15.13): rank 0's threads pass their try_wait and read 77."""
    m = parse_text(HEAD + REMOTE_MBAR, "t.ptx")
    args = parse_arg_specs(["out=u32[32]:zeros"], m.entries()[0], 0)
    res = run_kernel(m, None, args, 2, 32, 0, cluster=(2, 1, 1))
    assert (res.buffers["out"] == 77).all()


def test_hint_instructions_run_and_explore_refuses_mbarriers(tmp_path, capsys):
    """setmaxnreg and griddepcontrol change nothing a simulation observes (register allocation, launch
    overlap); elect.sync elects the lowest active lane. explore, whose threads run alone, refuses
    mbarrier.* with a located error (exit 2), not a crash."""
    from ptxkit.cli import main

    text = """
.visible .entry k(.param .u64 out)
{
  .reg .pred %p<2>;
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  griddepcontrol.wait;
  setmaxnreg.inc.sync.aligned.u32 240;
  mov.u32 %r1, %tid.x;
  elect.sync %r2|%p1, -1;
  selp.u32 %r3, 1, 0, %p1;
  add.u32 %r3, %r3, %r2;
  ld.param.u64 %rd1, [out];
  mul.wide.u32 %rd2, %r1, 4;
  add.u64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r3;
  griddepcontrol.launch_dependents;
  ret;
}
"""
    res = _run(text, ["out=u32[32]:zeros"])
    assert list(res.buffers["out"]) == [1] + [0] * 31
    src = tmp_path / "m.ptx"
    src.write_text(HEAD + ".visible .entry k(.param .u64 out)\n{\n  .shared .align 8 .b64 bar;\n"
                   "  mbarrier.init.shared::cta.b64 [bar], 1;\n  ret;\n}\n")
    assert main(["explore", str(src), "--threads", "2", "--arg", "out=null"]) == 2
    assert f"{src}:7:3: error: explore: 'mbarrier.init" in capsys.readouterr().err


DROP = """
.visible .entry k(.param .u64 out)
{
  .reg .pred %p<12>;
  .reg .b32 %r<20>;
  .reg .b64 %rd<10>;
  .shared .align 8 .b64 bar;
  .shared .align 16 .b8 buf[512];
  .global .align 16 .b8 src[512];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, bar;
  setp.eq.u32 %p1, %r1, 0;
  setp.eq.u32 %p2, %r1, 1;
  @%p1 mbarrier.init.shared::cta.b64 [%r2], 2;
  bar.sync 0;
  // phase 0: thread 0 arrive_drop (1 pending, 1 expected from now on), thread 1 arrives: complete
  @%p1 mbarrier.arrive_drop.shared::cta.b64 _, [%r2];
  @%p2 mbarrier.arrive.shared::cta.b64 _, [%r2];
  mbarrier.test_wait.parity.shared::cta.b64 %p3, [%r2], 0;
  // phase 1: one arrival completes it, but expect_tx(32) holds it open until complete_tx(32)
  @%p2 mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%r2], 32;
  @%p2 mbarrier.arrive.shared::cta.b64 _, [%r2];
  mbarrier.test_wait.parity.shared::cta.b64 %p4, [%r2], 1;
  @%p2 mbarrier.complete_tx.relaxed.cta.shared::cta.b64 [%r2], 32;
  mbarrier.test_wait.parity.shared::cta.b64 %p5, [%r2], 1;
  // phase 2 (1 arrival expected): thread 0's cp.async.mbarrier.arrive.noinc is that arrival, made once
  // its cp.async copies are done
  mov.u32 %r3, buf;
  mov.u64 %rd1, src;
  @%p1 cp.async.ca.shared.global [%r3], [%rd1], 16;
  @%p1 cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%r2];
  mbarrier.test_wait.parity.shared::cta.b64 %p6, [%r2], 0;
  selp.u32 %r4, 1, 0, %p3;
  selp.u32 %r5, 2, 0, %p4;
  selp.u32 %r6, 4, 0, %p5;
  selp.u32 %r7, 8, 0, %p6;
  or.b32 %r4, %r4, %r5;
  or.b32 %r4, %r4, %r6;
  or.b32 %r4, %r4, %r7;
  ld.param.u64 %rd2, [out];
  mul.wide.u32 %rd3, %r1, 4;
  add.u64 %rd4, %rd2, %rd3;
  st.global.u32 [%rd4], %r4;
  ret;
}
"""


def test_arrive_drop_expect_tx_and_cp_async_arrive():
    """ISA §9.7.13.15.14 arrive_drop lowers the expected count of later phases (phase 1 completes with one
    arrival); expect_tx (§9.7.13.15.11) keeps a phase whose arrivals are in open until complete_tx; a
    cp.async.mbarrier.arrive.noinc (§9.7.9.25.3.4) is one arrival (phase 2 completes: parity 0's latest
    phase is done). Every thread sees: phase 0 done (1), phase 1 not yet (0), then done (4), phase 2 done (8)."""
    res = _run(DROP, ["out=u32[32]:zeros"])
    assert (res.buffers["out"] == 1 | 4 | 8).all()


MULTICAST = """
.visible .entry k(.param .align 64 .b8 tm[128], .param .u64 out)
{
  .reg .pred %p<6>;
  .reg .b16 %rs<2>;
  .reg .b32 %r<20>;
  .reg .b64 %rd<10>;
  .shared .align 128 .b8 buf[128];
  .shared .align 8 .b64 bar;
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %cluster_ctarank;
  mov.u32 %r3, bar;
  mov.u32 %r4, buf;
  setp.eq.u32 %p1, %r1, 0;
  @%p1 mbarrier.init.shared::cta.b64 [%r3], 1;
  fence.mbarrier_init.release.cluster;
  barrier.cluster.arrive.release.aligned;
  barrier.cluster.wait.acquire.aligned;
  @%p1 mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r3], 128;
  setp.eq.u32 %p2, %r2, 0;
  and.pred %p3, %p1, %p2;
  mov.b16 %rs1, 3;
  mov.u32 %r5, 32;
  @%p3 MULTICAST_COPY [%r4], [tm, {%r5}], [%r3], %rs1;
W:
  mbarrier.try_wait.parity.shared::cta.b64 %p4, [%r3], 0;
  @!%p4 bra W;
  shl.b32 %r6, %r1, 2;
  add.u32 %r7, %r4, %r6;
  ld.shared.u32 %r8, [%r7];
  mov.u32 %r9, %ctaid.x;
  mad.lo.u32 %r10, %r9, 32, %r1;
  ld.param.u64 %rd1, [out];
  mul.wide.u32 %rd2, %r10, 4;
  add.u64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r8;
  barrier.cluster.arrive.release.aligned;
  barrier.cluster.wait.acquire.aligned;
  ret;
}
"""


MULTICAST = MULTICAST.replace("MULTICAST_COPY", "cp.async.bulk.tensor.1d.shared::cluster.global.tile"
                              ".mbarrier::complete_tx::bytes.multicast::cluster")


def test_tma_multicast_fills_every_cta_of_the_mask():
    """Rank 0 issues one .multicast::cluster TMA load with ctaMask 0b11 (ISA §9.7.9.25.5.1): the 32-word
    box at 32 lands in both CTAs' buf and completes the tx of each CTA's own mbarrier; both read it."""
    m = parse_text(HEAD + MULTICAST, "t.ptx")
    args = parse_arg_specs(["tm=tmap:u32[128]:zeros:dims=128:box=32", "out=u32[64]:zeros"], m.entries()[0], 0)
    args[0].data[:] = np.arange(128) * 3
    res = run_kernel(m, None, args, 2, 32, 0, cluster=(2, 1, 1))
    assert list(res.buffers["out"]) == [3 * (32 + t) for t in range(32)] * 2


ST_ASYNC = """
.visible .entry k(.param .u64 out)
{
  .reg .pred %p<6>;
  .reg .b32 %r<20>;
  .reg .b64 %rd<10>;
  .shared .align 8 .b64 bar;
  .shared .align 16 .b32 buf[32];
  .shared .align 4 .b32 counter;
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %cluster_ctarank;
  mov.u32 %r3, bar;
  mov.u32 %r4, buf;
  mov.u32 %r5, counter;
  setp.eq.u32 %p1, %r1, 0;
  setp.eq.u32 %p2, %r2, 0;
  and.pred %p3, %p1, %p2;
  @%p3 mbarrier.init.shared::cta.b64 [%r3], 1;
  @%p3 st.shared.u32 [%r5], 0;
  fence.mbarrier_init.release.cluster;
  barrier.cluster.arrive.release.aligned;
  barrier.cluster.wait.acquire.aligned;
  @%p3 mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r3], 256;
  @%p2 bra CONSUME;
  // rank 1: st.async buf[t] = 1000 + t and red.async counter += t into rank 0, on rank 0's mbarrier
  shl.b32 %r6, %r1, 2;
  add.u32 %r7, %r4, %r6;
  mapa.shared::cluster.u32 %r8, %r7, 0;
  mapa.shared::cluster.u32 %r9, %r3, 0;
  mapa.shared::cluster.u32 %r10, %r5, 0;
  add.u32 %r11, %r1, 1000;
  st.async.shared::cluster.mbarrier::complete_tx::bytes.u32 [%r8], %r11, [%r9];
  red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.add.u32 [%r10], %r1, [%r9];
  bra DONE;
CONSUME:
  mbarrier.try_wait.parity.shared::cta.b64 %p4, [%r3], 0;
  @!%p4 bra CONSUME;
  shl.b32 %r6, %r1, 2;
  add.u32 %r7, %r4, %r6;
  ld.shared.u32 %r12, [%r7];
  ld.shared.u32 %r13, [%r5];
  ld.param.u64 %rd1, [out];
  mul.wide.u32 %rd2, %r1, 8;
  add.u64 %rd3, %rd1, %rd2;
  st.global.v2.u32 [%rd3], {%r12, %r13};
DONE:
  barrier.cluster.arrive.release.aligned;
  barrier.cluster.wait.acquire.aligned;
  ret;
}
"""


def test_st_async_and_red_async_into_another_cta():
    """Rank 1's threads st.async into rank 0's buf and red.async.add into its counter (ISA §9.7.9.12,
    §9.7.13.7), each completing 4 bytes of rank 0's mbarrier (expect_tx 256): rank 0 passes its wait and
    reads buf[t] = 1000 + t and counter = 0 + 1 + … + 31 = 496."""
    m = parse_text(HEAD + ST_ASYNC, "t.ptx")
    res = run_kernel(m, None, parse_arg_specs(["out=u32[64]:zeros"], m.entries()[0], 0), 2, 32, 0,
                     cluster=(2, 1, 1))
    out = res.buffers["out"].reshape(32, 2)
    assert list(out[:, 0]) == [1000 + t for t in range(32)] and (out[:, 1] == 496).all()


GETCTARANK = """
.visible .entry k(.param .u64 out)
{
  .reg .pred %p<6>;
  .reg .b32 %r<20>;
  .reg .b64 %rd<10>;
  .shared .align 4 .b32 buf[4];
  mov.u32 %r1, %cluster_ctarank;
  xor.b32 %r2, %r1, 1;
  mov.u32 %r3, buf;
  mapa.shared::cluster.u32 %r4, %r3, %r2;
  getctarank.shared::cluster.u32 %r5, %r4;
  getctarank.shared::cluster.u32 %r6, %r3;
  cvta.shared.u64 %rd1, buf;
  mapa.u64 %rd2, %rd1, %r2;
  isspacep.shared::cta %p1, %rd1;
  isspacep.shared::cta %p2, %rd2;
  isspacep.shared::cluster %p3, %rd2;
  isspacep.global %p4, %rd2;
  ld.param.u64 %rd3, [out];
  isspacep.global %p5, %rd3;
  selp.u32 %r7, 1, 0, %p1;
  selp.u32 %r8, 2, 0, %p2;
  selp.u32 %r9, 4, 0, %p3;
  selp.u32 %r10, 8, 0, %p4;
  selp.u32 %r11, 16, 0, %p5;
  or.b32 %r7, %r7, %r8;
  or.b32 %r7, %r7, %r9;
  or.b32 %r7, %r7, %r10;
  or.b32 %r7, %r7, %r11;
  mov.u32 %r12, %ctaid.x;
  mul.wide.u32 %rd4, %r12, 12;
  add.u64 %rd5, %rd3, %rd4;
  st.global.u32 [%rd5], %r5;
  st.global.u32 [%rd5+4], %r6;
  st.global.u32 [%rd5+8], %r7;
  ret;
}
"""


def test_getctarank_and_isspacep_on_cluster_addresses():
    """getctarank (ISA §9.7.9.24) of mapa's address for the other rank is that rank, of the own shared
    address the own rank; isspacep (§9.7.9.20): the own generic shared address is .shared::cta, the other
    CTA's one (generic mapa) is .shared::cluster but neither .shared::cta nor .global; a buffer is .global."""
    m = parse_text(HEAD + GETCTARANK, "t.ptx")
    res = run_kernel(m, None, parse_arg_specs(["out=u32[6]:zeros"], m.entries()[0], 0), 2, 1, 0, cluster=(2, 1, 1))
    assert list(res.buffers["out"]) == [1, 0, 1 | 4 | 16, 0, 1, 1 | 4 | 16]


@pytest.mark.parametrize("instr", [
    "mbarrier.init.b64 [%r1];",
    "mbarrier.try_wait.parity.b64 %p1, [%r1];",
    "cp.async.mbarrier.arrive.b64;",
    "cp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes [%r1], [%rd1], 16;",
    "cp.async.bulk.tensor.2d.shared::cta.global.mbarrier::complete_tx::bytes [%r1];",
    "tensormap.replace.tile.rank.shared::cta.b1024.b32 [%rd1];",
])
def test_malformed_async_instructions_are_located_refusals(instr):
    """Operands missing from the async instructions: a located 'does not implement' error when reached
    (exit 2), not an internal error (these indexed past the operand list)."""
    text = (".visible .entry k(.param .u64 out)\n{\n  .reg .pred %p<2>;\n  .reg .b32 %r<4>;\n  .reg .b64 %rd<4>;\n"
            f"  mov.u32 %r1, 0;\n  mov.u64 %rd1, 0;\n  {instr}\n  ret;\n}}\n")
    with pytest.raises(PtxkitError, match=r"t\.ptx:11:3: error: the simulator does not implement"):
        _run(text, ["out=null"])


def test_tensor_map_box_elements_match_numpy_indexing():
    """The elements a box covers (ISA §5.5.8 tiled mode: box element j of dimension i is tensor coordinate
    c_i + j·elementStrides[i], ceil(box/elementStride) of them; out-of-bounds ones are filled): for random
    rank-1..3 tensors, boxes, element strides and signed coordinates, the addresses and bounds agree with
    numpy indexing of the dense tensor."""
    from hypothesis import given, settings
    from hypothesis import strategies as hs

    from ptxkit.exec_sim.tensormap import TensorMap, dense_strides

    @settings(max_examples=60, deadline=None)
    @given(hs.data())
    def check(data):
        rank = data.draw(hs.integers(1, 3))
        dims = tuple(data.draw(hs.integers(1, 9)) * (8 if i == 0 else 1) for i in range(rank))
        box = tuple(data.draw(hs.integers(1, 6)) * (8 if i == 0 else 1) for i in range(rank))
        est = tuple(data.draw(hs.integers(1, 3)) for _ in range(rank))
        coords = tuple(data.draw(hs.integers(-10, d + 5)) for d in dims)
        tm = TensorMap(0x1000, 1, 2, dims, dense_strides(dims, 2), box, est)
        addr, ok, off = tm.box_elements(coords)
        tensor = np.arange(int(np.prod(dims))).reshape(dims[::-1])  # element number = its index
        want_val, want_ok = [], []
        counts = [-(-b // e) for b, e in zip(box, est)]
        for flat in range(int(np.prod(counts))):
            j, rest = [], flat
            for cnt in counts:
                j.append(rest % cnt)
                rest //= cnt
            c = [coords[i] + j[i] * est[i] for i in range(rank)]
            inside = all(0 <= c[i] < dims[i] for i in range(rank))
            want_ok.append(inside)
            want_val.append(int(tensor[tuple(c[::-1])]) if inside else -1)
        assert list(ok) == want_ok
        assert [int((a - 0x1000) // 2) if k else -1 for a, k in zip(addr, ok)] == want_val
        assert list(off) == [2 * i for i in range(len(ok))]
    check()


def test_elect_sync_elects_within_the_membermask():
    """elect.sync _|p, 0xF0 (ISA §9.7.13.12): the lowest active lane of the membermask, lane 4, is elected."""
    text = """
.visible .entry k(.param .u64 out)
{
  .reg .pred %p<2>;
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  mov.u32 %r1, %tid.x;
  elect.sync _|%p1, 0xF0;
  selp.u32 %r2, 1, 0, %p1;
  ld.param.u64 %rd1, [out];
  mul.wide.u32 %rd2, %r1, 4;
  add.u64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r2;
  ret;
}
"""
    assert list(_run(text, ["out=u32[32]:zeros"]).buffers["out"]) == [int(t == 4) for t in range(32)]


def test_bulk_copy_between_the_shared_memories_of_a_cluster():
    """cp.async.bulk.shared::cluster.shared::cta (ISA §9.7.9.25.4.1): rank 1 copies its 128-byte buf into
    rank 0's buf, completing rank 0's mbarrier (expect_tx 128); rank 0 reads 2000 + t."""
    text = ST_ASYNC.replace("""  st.async.shared::cluster.mbarrier::complete_tx::bytes.u32 [%r8], %r11, [%r9];
  red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.add.u32 [%r10], %r1, [%r9];
""", """  add.u32 %r11, %r1, 2000;
  st.shared.u32 [%r7], %r11;
  fence.proxy.async.shared::cta;
  bar.sync 0;
  setp.eq.u32 %p5, %r1, 0;
  mapa.shared::cluster.u32 %r12, %r4, 0;
  @%p5 cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes [%r12], [%r4], 128, [%r9];
""").replace("expect_tx.shared::cta.b64 _, [%r3], 256", "expect_tx.shared::cta.b64 _, [%r3], 128")
    m = parse_text(HEAD + text, "t.ptx")
    res = run_kernel(m, None, parse_arg_specs(["out=u32[64]:zeros"], m.entries()[0], 0), 2, 32, 0,
                     cluster=(2, 1, 1))
    assert list(res.buffers["out"].reshape(32, 2)[:, 0]) == [2000 + t for t in range(32)]


def test_cp_async_reads_only_src_size_bytes():
    """cp.async.ca 16 bytes with src-size 6 from a 6-byte buffer copies those 6 bytes and zero-fills 10
    (a partial 4-byte chunk included); with src-size 0 from past the buffer's end it reads nothing and
    zero-fills all 16 (ISA §9.7.9.25.3.1) — neither is an out-of-bounds access."""
    text = """
.visible .entry k(.param .u64 src, .param .u64 out)
{
  .reg .b32 %r<8>;
  .reg .b64 %rd<8>;
  .shared .align 16 .b8 buf[32];
  ld.param.u64 %rd1, [src];
  ld.param.u64 %rd2, [out];
  mov.u32 %r1, buf;
  mov.u32 %r2, 6;
  mov.u32 %r3, 0;
  st.shared.v4.u32 [%r1+16], {%r2, %r2, %r2, %r2};
  cp.async.ca.shared.global [%r1], [%rd1], 16, %r2;
  add.u64 %rd3, %rd1, 64;
  cp.async.ca.shared.global [%r1+16], [%rd3], 16, %r3;
  cp.async.wait_all;
  ld.shared.v4.u32 {%r4, %r5, %r6, %r7}, [%r1];
  st.global.v4.u32 [%rd2], {%r4, %r5, %r6, %r7};
  ld.shared.v4.u32 {%r4, %r5, %r6, %r7}, [%r1+16];
  st.global.v4.u32 [%rd2+16], {%r4, %r5, %r6, %r7};
  ret;
}
"""
    m = parse_text(HEAD + text, "t.ptx")
    args = parse_arg_specs(["src=u8[6]:zeros", "out=u8[32]:zeros"], m.entries()[0], 0)
    args[0].data[:] = [11, 12, 13, 14, 15, 16]
    res = run_kernel(m, None, args, 1, 1, 0)
    assert list(res.buffers["out"]) == [11, 12, 13, 14, 15, 16] + [0] * 26
