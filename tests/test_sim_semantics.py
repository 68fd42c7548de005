"""Hand-written kernels for the scheduler and the less common instruction families, checked against
references written here from the ISA / CUDA Programming Guide definitions (not from the simulator):
divergence and reconvergence, loops, barriers with thread counts, bar.arrive, shuffles with widths
(clamp/segment masks), votes, redux, match, calls with .param passing, local arrays, atomics,
vector memory ops, float rounding modes (exact rationals), min/max NaN and signed-zero rules."""

from __future__ import annotations

import struct
from fractions import Fraction

import numpy as np
import pytest

from ptxkit.errors import PtxkitError

HEAD = ".version 8.0\n.target sm_80\n.address_size 64\n"


def run(body: str, specs: list[str], grid=1, block=32, shared=0, params=None, extra=""):
    from ptxkit.exec_sim import parse_arg_specs, parse_text, run_kernel

    params = params or [s.split("=")[0] for s in specs]
    plist = ", ".join(f".param .u64 {p}" if "[" in s or s.endswith("null") else f".param .u32 {p}"
                      for p, s in zip(params, specs))
    text = HEAD + extra + f".visible .entry k({plist})\n{{\n{body}\n}}\n"
    m = parse_text(text, "t.ptx")
    return run_kernel(m, None, parse_arg_specs(specs, m.entries()[0], 0), grid, block, shared)


PRO = """
  .reg .b32 %r<40>;
  .reg .b64 %rd<20>;
  .reg .pred %p<10>;
  .reg .f32 %f<10>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
"""


def test_divergent_if_else_and_loop():
    # out[t] = sum_{i<t%5} i  if t odd, else 100 + t   (nested divergence + data-dependent loop)
    body = PRO + """
  and.b32 %r2, %r1, 1;
  setp.eq.u32 %p1, %r2, 0;
  @%p1 bra EVEN;
  rem.u32 %r3, %r1, 5;
  mov.u32 %r4, 0;
  mov.u32 %r5, 0;
LOOP:
  setp.ge.u32 %p2, %r5, %r3;
  @%p2 bra DONE;
  add.u32 %r4, %r4, %r5;
  add.u32 %r5, %r5, 1;
  bra LOOP;
DONE:
  bra JOIN;
EVEN:
  add.u32 %r4, %r1, 100;
JOIN:
  st.global.u32 [%rd3], %r4;
  ret;
"""
    r = run(body, ["out=u32[64]:zeros"], block=64)
    want = [sum(range(t % 5)) if t % 2 else 100 + t for t in range(64)]
    assert r.buffers["out"].tolist() == want


def test_exit_of_some_threads_then_barrier():
    # threads >= 40 exit early; the rest meet at bar.sync (exited threads are not waited for)
    body = PRO + """
  .shared .align 4 .b32 sm[64];
  setp.ge.u32 %p1, %r1, 40;
  @%p1 exit;
  shl.b32 %r2, %r1, 2;
  mov.u32 %r3, sm;
  add.u32 %r4, %r3, %r2;
  st.shared.u32 [%r4], %r1;
  bar.sync 0;
  sub.u32 %r5, 39, %r1;
  shl.b32 %r6, %r5, 2;
  add.u32 %r7, %r3, %r6;
  ld.shared.u32 %r8, [%r7];
  st.global.u32 [%rd3], %r8;
  ret;
"""
    r = run(body, ["out=u32[64]:zeros"], block=64)
    assert r.buffers["out"].tolist() == [39 - t for t in range(40)] + [0] * 24


def test_named_barrier_with_count_and_arrive():
    # warp 1 (producer) writes shared data and bar.arrive 1, 64; warp 0 (consumer) waits at bar.sync 1, 64
    body = PRO + """
  .shared .align 4 .b32 buf[32];
  mov.u32 %r10, buf;
  and.b32 %r2, %r1, 31;
  shl.b32 %r3, %r2, 2;
  add.u32 %r4, %r10, %r3;
  setp.lt.u32 %p1, %r1, 32;
  @%p1 bra CONSUMER;
  mul.lo.u32 %r5, %r2, 7;
  st.shared.u32 [%r4], %r5;
  bar.arrive 1, 64;
  ret;
CONSUMER:
  bar.sync 1, 64;
  ld.shared.u32 %r6, [%r4];
  st.global.u32 [%rd3], %r6;
  ret;
"""
    r = run(body, ["out=u32[64]:zeros"], block=64)
    assert r.buffers["out"].tolist()[:32] == [7 * t for t in range(32)]


def test_barrier_count_is_per_warp_with_exited_lanes():
    # ISA §9.7.13.1 (bar): barriers are per warp — a warp's arrival adds the warp size to the count,
    # whatever number of its lanes are still active. Only lane 0 of each of the two warps stays (the
    # layout of litmus2ptx kernels): warp 1 stores and bar.arrive 1, 64; warp 0 waits at bar.sync 1, 64
    # — two warp arrivals = 64, so it completes and warp 0 reads the stored value.
    body = PRO + """
  .shared .align 4 .b32 cell;
  and.b32 %r2, %r1, 31;
  setp.ne.u32 %p1, %r2, 0;
  @%p1 ret;
  setp.eq.u32 %p2, %r1, 0;
  @%p2 bra CONSUMER;
  st.shared.u32 [cell], 77;
  bar.arrive 1, 64;
  ret;
CONSUMER:
  bar.sync 1, 64;
  ld.shared.u32 %r3, [cell];
  st.global.u32 [%rd3], %r3;
  ret;
"""
    r = run(body, ["out=u32[64]:zeros"], block=64)
    assert r.buffers["out"].tolist() == [77] + [0] * 63
    # a partial last warp (block of 40: warp 1 has 8 threads) also arrives as a whole warp
    r = run(body, ["out=u32[40]:zeros"], block=40)
    assert r.buffers["out"].tolist() == [77] + [0] * 39

    # a diverged warp arrives in two parts (two bar.sync instructions on barrier 1): together one warp
    body = PRO + """
  .shared .align 4 .b32 cell;
  setp.ge.u32 %p1, %r1, 32;
  @%p1 bra PRODUCER;
  setp.lt.u32 %p2, %r1, 16;
  @%p2 bra LOW;
  bar.sync 1, 64;
  bra READ;
LOW:
  bar.sync 1, 64;
READ:
  ld.shared.u32 %r3, [cell];
  st.global.u32 [%rd3], %r3;
  ret;
PRODUCER:
  st.shared.u32 [cell], 77;
  bar.arrive 1, 64;
  ret;
"""
    r = run(body, ["out=u32[64]:zeros"], block=64)
    assert r.buffers["out"].tolist() == [77] * 32 + [0] * 32


def test_barrier_deadlock_is_reported():
    body = PRO + """
  setp.lt.u32 %p1, %r1, 16;
  @%p1 bra SKIP;
  bar.sync 0, 64;
SKIP:
  ret;
"""
    with pytest.raises(PtxkitError, match="deadlock"):
        run(body, ["out=u32[32]:zeros"], block=32)


def _shfl_ref(mode, v, b, width):
    """CUDA Programming Guide semantics of __shfl*_sync(…, width) on a full warp."""
    out, ok = [], []
    for lane in range(32):
        seg = lane & ~(width - 1)
        if mode == "idx":
            src, good = seg + (b % width), True
        elif mode == "up":
            good = (lane - seg) >= b
            src = lane - b if good else lane
        elif mode == "down":
            good = (lane - seg) + b < width
            src = lane + b if good else lane
        else:
            src = lane ^ b
            good = (src & ~(width - 1)) == seg
            src = src if good else lane
        out.append(v[src])
        ok.append(good)
    return out, ok


@pytest.mark.parametrize("mode", ["idx", "up", "down", "bfly"])
@pytest.mark.parametrize("width,b", [(32, 1), (32, 5), (8, 3), (16, 9), (4, 2)])
def test_shfl_modes_with_width(mode, width, b):
    # CUDA encodes width as c = ((32 - width) << 8) | clamp, clamp = 0 for up, 31 otherwise
    c = ((32 - width) << 8) | (0 if mode == "up" else 31)
    body = PRO + f"""
  mul.lo.u32 %r2, %r1, 1000;
  add.u32 %r2, %r2, 7;
  shfl.sync.{mode}.b32 %r3|%p1, %r2, {b}, {c}, -1;
  st.global.u32 [%rd3], %r3;
  selp.u32 %r4, 1, 0, %p1;
  ld.param.u64 %rd4, [ok];
  add.s64 %rd5, %rd4, %rd2;
  st.global.u32 [%rd5], %r4;
"""
    r = run(body, ["out=u32[32]:zeros", "ok=u32[32]:zeros"])
    v = [1000 * t + 7 for t in range(32)]
    want, ok = _shfl_ref(mode, v, b, width)
    assert r.buffers["out"].tolist() == want
    assert r.buffers["ok"].tolist() == [int(x) for x in ok]


def test_vote_ballot_activemask_redux_match_under_divergence():
    body = PRO + """
  .reg .b32 %q<10>;
  setp.lt.u32 %p1, %r1, 20;
  @!%p1 bra OUT;
  and.b32 %r2, %r1, 3;
  setp.eq.u32 %p2, %r2, 1;
  vote.sync.ballot.b32 %q1, %p2, 0x000fffff;
  activemask.b32 %q2;
  redux.sync.add.u32 %q3, %r1, 0x000fffff;
  redux.sync.max.s32 %q4, %r2, 0x000fffff;
  match.any.sync.b32 %q5, %r2, 0x000fffff;
  vote.sync.any.pred %p3, %p2, 0x000fffff;
  vote.sync.all.pred %p4, %p2, 0x000fffff;
  selp.u32 %q6, 1, 0, %p3;
  selp.u32 %q7, 1, 0, %p4;
  mul.wide.u32 %rd5, %r1, 28;
  add.s64 %rd6, %rd1, %rd5;
  st.global.v4.u32 [%rd6], {%q1, %q2, %q3, %q4};
  st.global.v2.u32 [%rd6+16], {%q5, %q6};
  st.global.u32 [%rd6+24], %q7;
OUT:
  ret;
"""
    r = run(body, ["out=u32[224]:zeros"], block=32)
    out = r.buffers["out"].reshape(32, 7)
    ballot = sum(1 << t for t in range(20) if t % 4 == 1)
    for t in range(20):
        match = sum(1 << u for u in range(20) if u % 4 == t % 4)
        assert out[t].tolist() == [ballot, 0xFFFFF, sum(range(20)), 3, match, 1, 0]
    assert (out[20:] == 0).all()


def test_call_with_params_and_local_array():
    extra = """
.func (.param .b32 ret) twice_plus(.param .b32 a, .param .b32 b)
{
  .reg .b32 %x<4>;
  .local .align 4 .b8 scratch[16];
  ld.param.b32 %x1, [a];
  ld.param.b32 %x2, [b];
  st.local.u32 [scratch+8], %x1;
  ld.local.u32 %x3, [scratch+8];
  add.u32 %x3, %x3, %x3;
  add.u32 %x3, %x3, %x2;
  st.param.b32 [ret], %x3;
  ret;
}
"""
    body = PRO + """
  and.b32 %r2, %r1, 1;
  setp.eq.u32 %p1, %r2, 0;
  @%p1 bra SKIP;
  {
  .param .b32 p0;
  .param .b32 p1;
  .param .b32 rv;
  st.param.b32 [p0], %r1;
  st.param.b32 [p1], 5;
  call.uni (rv), twice_plus, (p0, p1);
  ld.param.b32 %r3, [rv];
  }
  st.global.u32 [%rd3], %r3;
SKIP:
  ret;
"""
    r = run(body, ["out=u32[32]:zeros"], extra=extra)
    assert r.buffers["out"].tolist() == [2 * t + 5 if t % 2 else 0 for t in range(32)]


def test_atomics_shared_and_global():
    body = PRO + """
  .shared .align 4 .b32 cnt;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra GO;
  st.shared.u32 [cnt], 0;
GO:
  bar.sync 0;
  atom.shared.add.u32 %r2, [cnt], 1;
  bar.sync 0;
  ld.shared.u32 %r3, [cnt];
  ld.param.u64 %rd4, [g];
  atom.global.cas.b32 %r4, [%rd4], 0, 77;
  atom.global.inc.u32 %r5, [%rd4+4], 9;
  atom.global.max.s32 %r6, [%rd4+8], %r1;
  atom.global.exch.b32 %r7, [%rd4+12], %r1;
  st.global.u32 [%rd3], %r2;
  ret;
"""
    r = run(body, ["out=u32[64]:zeros", "g=u32[4]:zeros"], block=64)
    # the old values handed out by atom.add are a permutation of 0..63 (one serial order)
    assert sorted(r.buffers["out"].tolist()) == list(range(64))
    g = r.buffers["g"].tolist()
    assert g[0] == 77 and g[1] == 64 % 10 and g[2] == 63 and 0 <= g[3] < 64


# ------------------------------------------------------------------ float rounding against exact rationals
def f32(bits):
    return struct.unpack("<f", struct.pack("<I", bits))[0]


def bits32(x):
    return struct.unpack("<I", struct.pack("<f", x))[0]


def round_exact(q: Fraction, mode: str) -> int:
    """Correctly round the rational q to binary32 bits (no overflow in these tests)."""
    x = np.float32(float(q))
    cands = {np.nextafter(x, np.float32(-np.inf)), x, np.nextafter(x, np.float32(np.inf))}
    cands = sorted(cands, key=lambda c: Fraction(float(c)))
    lo = max((c for c in cands if Fraction(float(c)) <= q), key=lambda c: Fraction(float(c)))
    hi = min((c for c in cands if Fraction(float(c)) >= q), key=lambda c: Fraction(float(c)))
    if mode == "rz":
        r = lo if q > 0 else hi
    elif mode == "rm":
        r = lo
    elif mode == "rp":
        r = hi
    else:
        dl, dh = q - Fraction(float(lo)), Fraction(float(hi)) - q
        r = lo if dl < dh else hi if dh < dl else (lo if bits32(float(lo)) % 2 == 0 else hi)
    return bits32(float(r))


@pytest.mark.parametrize("mode", ["rn", "rz", "rm", "rp"])
def test_float_rounding_modes_exact(mode):
    rng = np.random.default_rng(7)
    a = (rng.uniform(-10, 10, 32) * np.exp2(rng.integers(-20, 20, 32))).astype(np.float32)
    b = (rng.uniform(-10, 10, 32) * np.exp2(rng.integers(-20, 20, 32))).astype(np.float32)
    c = rng.uniform(-1, 1, 32).astype(np.float32)
    d = rng.uniform(-1e6, 1e6, 32)  # f64 inputs for cvt.f32.f64
    import os
    import tempfile
    tmp = tempfile.mkdtemp()
    for name, arr in (("a", a), ("b", b), ("c", c), ("d", d)):
        np.save(os.path.join(tmp, name + ".npy"), arr)
    body = f"""
  .reg .b32 %r<4>;
  .reg .f32 %f<12>;
  .reg .f64 %fd<3>;
  .reg .b64 %rd<20>;
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd2, %r1, 4;
  mul.wide.u32 %rd12, %r1, 8;
  ld.param.u64 %rd1, [a]; add.s64 %rd1, %rd1, %rd2; ld.global.f32 %f1, [%rd1];
  ld.param.u64 %rd1, [b]; add.s64 %rd1, %rd1, %rd2; ld.global.f32 %f2, [%rd1];
  ld.param.u64 %rd1, [c]; add.s64 %rd1, %rd1, %rd2; ld.global.f32 %f3, [%rd1];
  ld.param.u64 %rd1, [d]; add.s64 %rd1, %rd1, %rd12; ld.global.f64 %fd1, [%rd1];
  add.{mode}.f32 %f4, %f1, %f2;
  mul.{mode}.f32 %f5, %f1, %f2;
  fma.{mode}.f32 %f6, %f1, %f2, %f3;
  div.{mode}.f32 %f7, %f1, %f2;
  cvt.{mode}.f32.f64 %f8, %fd1;
  ld.param.u64 %rd3, [out];
  mul.wide.u32 %rd4, %r1, 20;
  add.s64 %rd5, %rd3, %rd4;
  st.global.v4.f32 [%rd5], {{%f4, %f5, %f6, %f7}};
  st.global.f32 [%rd5+16], %f8;
"""
    r = run(body, [f"a=f32[32]:{tmp}/a.npy", f"b=f32[32]:{tmp}/b.npy", f"c=f32[32]:{tmp}/c.npy",
                   f"d=f64[32]:{tmp}/d.npy", "out=u32[160]:zeros"])
    out = r.buffers["out"].reshape(32, 5)
    for t in range(32):
        A, B, C, D = (Fraction(float(v)) for v in (a[t], b[t], c[t], d[t]))
        want = [round_exact(A + B, mode), round_exact(A * B, mode), round_exact(A * B + C, mode),
                round_exact(A / B, mode), round_exact(D, mode)]
        assert out[t].tolist() == want, (t, mode)


def test_min_max_nan_and_signed_zero_and_cvt_int():
    body = """
  .reg .b32 %r<12>;
  .reg .f32 %f<8>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.f32 %f1, 0f7FC00000;
  mov.f32 %f2, 0f3F800000;
  mov.f32 %f3, 0f80000000;
  mov.f32 %f4, 0f00000000;
  min.f32 %f5, %f1, %f2;
  max.NaN.f32 %f6, %f1, %f2;
  min.f32 %f7, %f4, %f3;
  mov.b32 %r1, %f5; mov.b32 %r2, %f6; mov.b32 %r3, %f7;
  max.f32 %f7, %f3, %f4;
  mov.b32 %r4, %f7;
  mov.f32 %f5, 0fC0200000;
  cvt.rni.s32.f32 %r5, %f5;
  cvt.rzi.s32.f32 %r6, %f5;
  cvt.rmi.s32.f32 %r7, %f5;
  cvt.rpi.u32.f32 %r8, %f5;
  mov.f32 %f5, 0f7F800000;
  cvt.rzi.s32.f32 %r9, %f5;
  cvt.rzi.s32.f32 %r10, %f1;
  st.global.v4.u32 [%rd1], {%r1, %r2, %r3, %r4};
  st.global.v4.u32 [%rd1+16], {%r5, %r6, %r7, %r8};
  st.global.v2.u32 [%rd1+32], {%r9, %r10};
"""
    r = run(body, ["out=u32[10]:zeros"], block=1)
    o = r.buffers["out"].tolist()
    assert o[0] == 0x3F800000  # min(NaN, 1) = 1
    assert o[1] == 0x7FFFFFFF or ((o[1] & 0x7F800000) == 0x7F800000 and o[1] & 0x7FFFFF)  # NaN
    assert o[2] == 0x80000000 and o[3] == 0x00000000  # -0 < +0
    # -2.5: rni → -2 (ties to even), rzi → -2, rmi → -3, rpi to u32 saturates at 0; inf → INT_MAX; NaN → 0
    assert [x - (1 << 32) if x >> 31 else x for x in o[4:7]] == [-2, -2, -3]
    assert o[7] == 0 and o[8] == 0x7FFFFFFF and o[9] == 0


def test_f16_bf16_conversions_match_numpy():
    rng = np.random.default_rng(3)
    x = np.concatenate([rng.uniform(-70000, 70000, 24), [0.0, -0.0, 1e-8, -6.1e-5, 65504.0, 65520.0, np.inf, np.nan]])
    x = x.astype(np.float32)
    import os
    import tempfile
    tmp = tempfile.mkdtemp()
    np.save(os.path.join(tmp, "x.npy"), x)
    body = """
  .reg .b32 %r<4>;
  .reg .b16 %h<4>;
  .reg .f32 %f<4>;
  .reg .b64 %rd<8>;
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd2, %r1, 4;
  ld.param.u64 %rd1, [x]; add.s64 %rd1, %rd1, %rd2; ld.global.f32 %f1, [%rd1];
  cvt.rn.f16.f32 %h1, %f1;
  cvt.rn.bf16.f32 %h2, %f1;
  cvt.f32.f16 %f2, %h1;
  cvt.f32.bf16 %f3, %h2;
  ld.param.u64 %rd3, [out];
  mul.wide.u32 %rd4, %r1, 8;
  add.s64 %rd5, %rd3, %rd4;
  st.global.v2.f32 [%rd5], {%f2, %f3};
"""
    r = run(body, [f"x=f32[32]:{tmp}/x.npy", "out=f32[64]:zeros"])
    out = r.buffers["out"].reshape(32, 2)
    with np.errstate(all="ignore"):
        want16 = x.astype(np.float16).astype(np.float32)
    u = x.view(np.uint32).astype(np.uint64)
    bf = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint32) << 16  # RNE on the bit pattern
    want_bf = np.where(np.isnan(x), np.float32(np.nan), bf.astype(np.uint32).view(np.float32))
    np.testing.assert_array_equal(out[:, 0], want16)
    np.testing.assert_array_equal(out[:, 1], want_bf)


def test_3d_grid_and_block_special_registers():
    # every thread writes (tid, ntid, ctaid, nctaid, laneid, warpid) packed at its global linear id
    body = """
  .reg .b32 %r<30>;
  .reg .b64 %rd<6>;
  mov.u32 %r1, %tid.x; mov.u32 %r2, %tid.y; mov.u32 %r3, %tid.z;
  mov.u32 %r4, %ntid.x; mov.u32 %r5, %ntid.y; mov.u32 %r6, %ntid.z;
  mov.u32 %r7, %ctaid.x; mov.u32 %r8, %ctaid.y; mov.u32 %r9, %ctaid.z;
  mov.u32 %r10, %nctaid.x; mov.u32 %r11, %nctaid.y;
  mov.u32 %r12, %laneid; mov.u32 %r13, %warpid;
  mad.lo.u32 %r14, %r3, %r5, %r2;
  mad.lo.u32 %r14, %r14, %r4, %r1;
  mad.lo.u32 %r15, %r9, %r11, %r8;
  mad.lo.u32 %r15, %r15, %r10, %r7;
  mul.lo.u32 %r16, %r4, %r5;
  mul.lo.u32 %r16, %r16, %r6;
  mad.lo.u32 %r17, %r15, %r16, %r14;
  shl.b32 %r18, %r1, 24; shl.b32 %r19, %r2, 16; or.b32 %r18, %r18, %r19;
  shl.b32 %r19, %r3, 8; or.b32 %r18, %r18, %r19; or.b32 %r18, %r18, %r12;
  shl.b32 %r19, %r7, 24; shl.b32 %r20, %r8, 16; or.b32 %r19, %r19, %r20;
  shl.b32 %r20, %r9, 8; or.b32 %r19, %r19, %r20; or.b32 %r19, %r19, %r13;
  ld.param.u64 %rd1, [out];
  mul.wide.u32 %rd2, %r17, 8;
  add.s64 %rd3, %rd1, %rd2;
  st.global.v2.u32 [%rd3], {%r18, %r19};
"""
    grid, block = (2, 3, 2), (5, 3, 4)  # 60 threads per CTA: two warps, the second partial
    total = 12 * 60
    r = run(body, [f"out=u32[{2 * total}]:zeros"], grid=grid, block=block)
    out = r.buffers["out"].reshape(total, 2)
    for cz in range(2):
        for cy in range(3):
            for cx in range(2):
                cta = (cz * 3 + cy) * 2 + cx
                for tz in range(4):
                    for ty in range(3):
                        for tx in range(5):
                            t = (tz * 3 + ty) * 5 + tx
                            g = cta * 60 + t
                            assert out[g, 0] == (tx << 24 | ty << 16 | tz << 8 | t % 32)
                            assert out[g, 1] == (cx << 24 | cy << 16 | cz << 8 | t // 32)


@pytest.mark.parametrize("n", [100_000])
def test_many_ctas_run_in_batches(n, tmp_path):
    # plain f32 add over 782 CTAs of 128 threads (several lane batches): add.f32 is IEEE round-to-nearest
    rng = np.random.default_rng(11)
    x = rng.standard_normal(n).astype(np.float32)
    y = rng.standard_normal(n).astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    np.save(tmp_path / "y.npy", y)
    body = """
  .reg .b32 %r<8>;
  .reg .f32 %f<4>;
  .reg .b64 %rd<10>;
  .reg .pred %p<2>;
  mov.u32 %r1, %ctaid.x; mov.u32 %r2, %ntid.x; mov.u32 %r3, %tid.x;
  mad.lo.u32 %r4, %r1, %r2, %r3;
  ld.param.u32 %r5, [n];
  setp.ge.u32 %p1, %r4, %r5;
  @%p1 ret;
  mul.wide.u32 %rd1, %r4, 4;
  ld.param.u64 %rd2, [x]; add.s64 %rd2, %rd2, %rd1; ld.global.f32 %f1, [%rd2];
  ld.param.u64 %rd3, [y]; add.s64 %rd3, %rd3, %rd1; ld.global.f32 %f2, [%rd3];
  add.f32 %f3, %f1, %f2;
  ld.param.u64 %rd4, [o]; add.s64 %rd4, %rd4, %rd1; st.global.f32 [%rd4], %f3;
"""
    r = run(body, [f"x=f32[{n}]:{tmp_path / 'x.npy'}", f"y=f32[{n}]:{tmp_path / 'y.npy'}", f"o=f32[{n}]:zeros",
                   f"n=u32:{n}"], grid=(n + 127) // 128, block=128)
    assert r.buffers["o"].tobytes() == (x + y).tobytes()


@pytest.mark.parametrize("mode", ["rz", "rm", "rp", "rn"])
def test_cvt_int_to_float_directed_rounding_exact(mode):
    vals = [2 ** 63 - 1, -(2 ** 63), 2 ** 53 + 1, -(2 ** 53 + 3), 16777217, -16777219, 123456789012345678, 7, -1, 0]
    vals += [0] * (32 - len(vals))
    import os
    import tempfile
    tmp = tempfile.mkdtemp()
    np.save(os.path.join(tmp, "x.npy"), np.array(vals, np.int64))
    body = f"""
  .reg .b32 %r<4>;
  .reg .b64 %rd<9>;
  .reg .f32 %f<3>;
  .reg .f64 %fd<3>;
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd2, %r1, 8;
  ld.param.u64 %rd1, [x]; add.s64 %rd1, %rd1, %rd2; ld.global.s64 %rd3, [%rd1];
  cvt.{mode}.f32.s64 %f1, %rd3;
  cvt.{mode}.f64.s64 %fd1, %rd3;
  ld.param.u64 %rd4, [o32]; mul.wide.u32 %rd5, %r1, 4; add.s64 %rd4, %rd4, %rd5; st.global.f32 [%rd4], %f1;
  ld.param.u64 %rd6, [o64]; add.s64 %rd6, %rd6, %rd2; st.global.f64 [%rd6], %fd1;
"""
    r = run(body, [f"x=s64[32]:{tmp}/x.npy", "o32=u32[32]:zeros", "o64=u64[32]:zeros"])
    for t, v in enumerate(vals):
        assert int(r.buffers["o32"][t]) == round_exact(Fraction(v), mode), (v, mode)
        got = float(np.uint64(r.buffers["o64"][t]).view(np.float64))
        q = Fraction(v)
        lo = max(c for c in (np.nextafter(float(v), -np.inf), float(v), np.nextafter(float(v), np.inf))
                 if Fraction(c) <= q)
        hi = min(c for c in (np.nextafter(float(v), -np.inf), float(v), np.nextafter(float(v), np.inf))
                 if Fraction(c) >= q)
        want = {"rz": lo if v >= 0 else hi, "rm": lo, "rp": hi}.get(mode, float(v))
        assert got == want, (v, mode)


def test_bar_red_popc_and_or():
    # __syncthreads_count / _and / _or over two CTAs with different predicates, one CTA diverged first
    body = PRO + """
  .reg .b32 %q<6>;
  mov.u32 %q1, %ctaid.x;
  setp.lt.u32 %p1, %r1, 10;
  @%p1 bra A;
  add.u32 %q2, %q1, 0;
A:
  rem.u32 %q3, %r1, 3;
  setp.eq.u32 %p2, %q3, 0;
  setp.eq.u32 %p5, %q1, 1;
  or.pred %p2, %p2, %p5;
  bar.red.popc.u32 %q4, 0, %p2;
  bar.red.and.pred %p3, 0, %p2;
  bar.red.or.pred %p4, 0, !%p2;
  selp.u32 %q5, 1, 0, %p3;
  selp.u32 %q2, 1, 0, %p4;
  shl.b32 %q5, %q5, 8;
  shl.b32 %q2, %q2, 16;
  or.b32 %q4, %q4, %q5;
  or.b32 %q4, %q4, %q2;
  mov.u32 %q1, %ctaid.x;
  mul.lo.u32 %q1, %q1, 64;
  add.u32 %q1, %q1, %r1;
  mul.wide.u32 %rd5, %q1, 4;
  add.s64 %rd6, %rd1, %rd5;
  st.global.u32 [%rd6], %q4;
"""
    r = run(body, ["out=u32[128]:zeros"], grid=2, block=64)
    out = r.buffers["out"].reshape(2, 64)
    count0 = sum(1 for t in range(64) if t % 3 == 0)
    assert (out[0] == count0 | (0 << 8) | (1 << 16)).all()  # CTA 0: some false → and=0, or(!p)=1
    assert (out[1] == 64 | (1 << 8) | (0 << 16)).all()  # CTA 1: all true


def test_endless_loop_hits_the_step_limit():
    from ptxkit.exec_sim import parse_arg_specs, parse_text, run_kernel

    m = parse_text(HEAD + ".visible .entry k()\n{\nL:\n  bra L;\n}\n", "loop.ptx")
    with pytest.raises(PtxkitError, match=r"loop\.ptx:7:.*step limit of 1000"):
        run_kernel(m, None, parse_arg_specs([], m.entries()[0], 0), 1, 32, max_steps=1000)
