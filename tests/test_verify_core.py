"""`ptxkit verify` on small hand-written kernels whose verdict is argued from the PTX ISA (§8 memory
model, §9.7.13.1 barriers) in each kernel's comment."""

from __future__ import annotations

import json
import shutil
import subprocess

import numpy as np
import pytest

from ptxkit.cli import main

HEAD = ".version 7.8\n.target sm_80\n.address_size 64\n"

# Each thread writes s[tid] and reads s[tid+1]. Without a barrier the write of thread 1 (line 14) and
# the read of thread 0 (line 20) conflict (same bytes, one write, different threads), nothing orders
# them (lanes of a warp are separate threads, ISA §8.9.1 program order is per thread), and both are
# weak: a data race (ISA §8). With bar.sync 0 between them the write is po-before thread 1's arrival,
# which synchronizes with thread 0's return (§8.9.4): ordered, no race.
NEIGHBOUR = HEAD + """.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  .shared .align 4 .b32 s[64];
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  shl.b32 %r2, %r1, 2;
  mov.u32 %r3, s;
  add.u32 %r4, %r3, %r2;
  st.shared.u32 [%r4], %r1;
  add.u32 %r5, %r1, 1;
  and.b32 %r5, %r5, 63;
  shl.b32 %r5, %r5, 2;
  add.u32 %r5, %r3, %r5;
  BARRIER
  ld.shared.u32 %r6, [%r5];
  cvt.u64.u32 %rd2, %r2;
  add.u64 %rd2, %rd1, %rd2;
  st.global.u32 [%rd2], %r6;
  ret;
}
"""

# Message passing between CTA 0 (producer: data, then a release store of the flag) and CTA 1
# (consumer: spins on an acquire load of the flag, then reads data). With SCOPE = gpu the release and
# the acquire are morally strong (§8.7: each .gpu scope includes the other thread), so the acquire that
# reads 1 synchronizes with the release (§8.9.4) and data is ordered; the spin loop has no side effect,
# the flag has one writer and the loop does not exit on the initial 0, so every schedule behaves so.
# With SCOPE = cta the two threads are in different CTAs: not morally strong, no synchronization — the
# flag accesses (lines 16/19) are a scope race.
FLAG = HEAD + """.visible .entry k(.param .u64 data, .param .u64 flag, .param .u64 out)
{
  .reg .b32 %r<8>;
  .reg .b64 %rd<8>;
  .reg .pred %p<3>;
  ld.param.u64 %rd1, [data];
  ld.param.u64 %rd2, [flag];
  ld.param.u64 %rd3, [out];
  mov.u32 %r1, %ctaid.x;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra CONSUMER;
  st.global.u32 [%rd1], 42;
  st.release.SCOPE.global.u32 [%rd2], 1;
  bra DONE;
CONSUMER:
  ld.acquire.SCOPE.global.u32 %r2, [%rd2];
  setp.ne.u32 %p2, %r2, 1;
  @%p2 bra CONSUMER;
  ld.global.u32 %r3, [%rd1];
  st.global.u32 [%rd3], %r3;
DONE:
  ret;
}
"""

# Threads 0-31 and 32-63 reach two different bar.sync instructions (lines 11 and 14). bar.sync is
# barrier.sync.aligned: every thread must execute the same barrier instruction (ISA §9.7.13.1).
DIVERGENT = HEAD + """.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<4>;
  .reg .pred %p<2>;
  mov.u32 %r1, %tid.x;
  setp.lt.u32 %p1, %r1, 32;
  @%p1 bra LOW;
  bar.sync 0;
  bra DONE;
LOW:
  bar.sync 0;
DONE:
  ret;
}
"""

# Every thread of 4 CTAs adds to one counter with atom/red (default .relaxed.gpu, ISA §9.7.13.5):
# all pairs are morally strong (§8.7), so no race, and the returned value is never read, so no
# schedule can steer the program: verified, and the sum is 256·255/2·… independent of the order.
REDUCE = HEAD + """.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  atom.global.add.u32 %r2, [%rd1], %r1;
  red.global.add.u32 [%rd1], 1;
  ret;
}
"""

# Half of the threads exit, the rest wait at bar.sync 0, 64 for 64 threads that never come: the
# launch cannot finish (deadlock: not well synchronized).
DEADLOCK = HEAD + """.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<4>;
  .reg .pred %p<2>;
  mov.u32 %r1, %tid.x;
  setp.lt.u32 %p1, %r1, 32;
  @%p1 bra SKIP;
  bar.sync 0, 64;
SKIP:
  ret;
}
"""


def _verify(tmp_path, capsys, text: str, *extra: str, name: str = "k.ptx") -> tuple[int, dict]:
    f = tmp_path / name
    f.write_text(text)
    rc = main(["verify", str(f), *extra, "--json"])
    return rc, json.loads(capsys.readouterr().out)


def test_missing_barrier_is_a_race_naming_both_lines(tmp_path, capsys):
    rc, d = _verify(tmp_path, capsys, NEIGHBOUR.replace("BARRIER", ""), "--arg", "out=u32[64]:zeros",
                    "--block", "64")
    assert rc == 1 and d["verdict"] == "race"
    lines = sorted((x["line"], x["write"]) for x in d["race"])
    assert lines == [(14, True), (20, False)]  # the st.shared and the ld.shared
    a, b = d["race"]
    assert a["thread"] != b["thread"] and a["location"]["space"] == "shared"
    assert a["location"]["address"] == b["location"]["address"]
    assert all(x["at"].endswith(f":{x['line']}:3") for x in d["race"])


def test_barrier_orders_the_neighbour_exchange(tmp_path, capsys):
    rc, d = _verify(tmp_path, capsys, NEIGHBOUR.replace("BARRIER", "bar.sync 0;"), "--arg",
                    "out=u32[64]:zeros", "--block", "64")
    assert (rc, d["verdict"]) == (0, "verified")


FLAG_ARGS = ("--arg", "data=u32[1]:zeros", "--arg", "flag=u32[1]:zeros", "--arg", "out=u32[1]:zeros",
             "--grid", "2")


def test_cta_scoped_flag_between_ctas_is_a_scope_race(tmp_path, capsys):
    rc, d = _verify(tmp_path, capsys, FLAG.replace("SCOPE", "cta"), *FLAG_ARGS)
    assert rc == 1 and d["verdict"] == "race"
    assert {x["ctaid"][0] for x in d["race"]} == {0, 1}
    assert sorted(x["line"] for x in d["race"]) == [16, 19]


def test_gpu_scoped_flag_between_ctas_is_verified(tmp_path, capsys):
    rc, d = _verify(tmp_path, capsys, FLAG.replace("SCOPE", "gpu"), *FLAG_ARGS)
    assert (rc, d["verdict"]) == (0, "verified")


def test_spin_loop_that_exits_on_the_initial_value_is_not_verified(tmp_path, capsys):
    # flag starts at 1: in a schedule where CTA 1 runs first, it skips the loop and reads data while
    # CTA 0 writes it (a race the observed schedule does not show): never `verified`
    np.save(tmp_path / "one.npy", np.ones(1, np.uint32))
    args = list(FLAG_ARGS)
    args[3] = f"flag=u32[1]:{tmp_path / 'one.npy'}"
    rc, d = _verify(tmp_path, capsys, FLAG.replace("SCOPE", "gpu"), *args)
    assert rc in (1, 3) and d["verdict"] != "verified"


def test_divergent_barrier_is_not_well_synchronized(tmp_path, capsys):
    rc, d = _verify(tmp_path, capsys, DIVERGENT, "--arg", "out=u32[1]:zeros", "--block", "64")
    assert rc == 1 and d["verdict"] == "not-well-synchronized"
    f = d["findings"][0]
    assert f["rule"] == "barrier-divergence" and {f["line"], int(f["other_at"].split(":")[-2])} == {11, 14}


def test_deadlock_is_not_well_synchronized(tmp_path, capsys):
    rc, d = _verify(tmp_path, capsys, DEADLOCK, "--arg", "out=u32[1]:zeros", "--block", "64")
    assert rc == 1 and d["verdict"] == "not-well-synchronized"
    assert d["findings"][-1]["rule"] == "deadlock" and d["findings"][-1]["line"] == 11


def test_atomic_reduction_is_verified(tmp_path, capsys):
    rc, d = _verify(tmp_path, capsys, REDUCE, "--arg", "out=u32[1]:zeros", "--block", "64", "--grid", "4")
    assert (rc, d["verdict"]) == (0, "verified")


def test_witness_files(tmp_path, capsys):
    f = tmp_path / "k.ptx"
    f.write_text(NEIGHBOUR.replace("BARRIER", ""))
    rc = main(["verify", str(f), "--arg", "out=u32[64]:zeros", "--block", "64", "--dot", str(tmp_path / "w.dot"),
               "--schedule", str(tmp_path / "w.json"), "--json", str(tmp_path / "v.json")])
    out = capsys.readouterr().out
    assert rc == 1 and f"{f}:14:3: write" in out and f"{f}:20:3: read" in out
    dot = (tmp_path / "w.dot").read_text()
    assert dot.startswith("digraph") and "no happens-before" in dot
    sched = json.loads((tmp_path / "w.json").read_text())
    assert sched["scheduler"] == "lockstep-min-pc" and sched["block"] == [64, 1, 1]
    assert sorted(w["line"] for w in sched["witness"]) == [14, 20]
    assert json.loads((tmp_path / "v.json").read_text())["verdict"] == "race"
    # the schedule replays: the same launch, and the witness's two events happen again
    assert main(["run", "--schedule", str(tmp_path / "w.json")]) == 0
    out = capsys.readouterr().out
    assert f"{f}:14:3: replayed witness event" in out and f"{f}:20:3: replayed witness event" in out
    g = tmp_path / "other.ptx"
    g.write_text(NEIGHBOUR.replace("BARRIER", "bar.sync 0;"))
    assert main(["run", str(g), "--schedule", str(tmp_path / "w.json")]) == 2
    assert "not the witness's" in capsys.readouterr().err


@pytest.mark.skipif(shutil.which("z3") is None, reason="z3 not installed")
@pytest.mark.parametrize("barrier, expected", [("bar.sync 0;", "unsat"), ("", "sat")])
def test_smt_claims_check_with_z3(tmp_path, capsys, barrier, expected):
    f = tmp_path / "k.ptx"
    f.write_text(NEIGHBOUR.replace("BARRIER", barrier))
    main(["verify", str(f), "--arg", "out=u32[64]:zeros", "--block", "64", "--smt", str(tmp_path / "smt")])
    capsys.readouterr()
    files = sorted((tmp_path / "smt").glob("*.smt2"))
    assert files
    for p in files:
        assert f"; expected: {expected}" in p.read_text()
        r = subprocess.run(["z3", str(p)], capture_output=True, text=True, timeout=120)
        assert r.stdout.strip() == expected, p


def test_against_reports_the_first_different_element(tmp_path, capsys):
    ref = tmp_path / "ref.ptx"
    ref.write_text(NEIGHBOUR.replace("BARRIER", "bar.sync 0;"))
    other = NEIGHBOUR.replace("BARRIER", "bar.sync 0;").replace("add.u32 %r5, %r1, 1;", "add.u32 %r5, %r1, 2;")
    rc, d = _verify(tmp_path, capsys, other, "--arg", "out=u32[64]:zeros", "--block", "64", "--against", str(ref))
    assert rc == 1 and d["verdict"] == "different"
    assert d["difference"]["buffer"] == "out" and d["difference"]["index"] == 0
    assert d["difference"]["kernel"] == "0x2" and d["difference"]["reference"] == "0x1"
    rc, d = _verify(tmp_path, capsys, ref.read_text(), "--arg", "out=u32[64]:zeros", "--block", "64",
                    "--against", str(ref), name="same.ptx")
    assert (rc, d["verdict"]) == (0, "verified")


def test_bad_input_is_a_located_error(tmp_path, capsys):
    f = tmp_path / "bad.ptx"
    f.write_text(HEAD + ".visible .entry k()\n{\n  foo.bar %r1;\n}\n")
    assert main(["verify", str(f)]) == 2
    err = capsys.readouterr().err
    assert f"{f}:6:3: error:" in err and "Traceback" not in err
    assert main(["verify", str(tmp_path / "missing.ptx")]) == 2
    assert "ptxkit verify: error:" in capsys.readouterr().err
    # a missing reference is bad input even when the kernel itself races (checked before the run)
    g = tmp_path / "racy.ptx"
    g.write_text(NEIGHBOUR.replace("BARRIER", ""))
    assert main(["verify", str(g), "--arg", "out=u32[64]:zeros", "--block", "64",
                 "--against", str(tmp_path / "missing.ptx")]) == 2
    assert "missing.ptx" in capsys.readouterr().err


# The consumer's spin loop comes first in the program text (lower pc) — nvcc's layout of flag code.
# Lowest-pc-first scheduling alone would run the spinning warp of CTA 1 for ever and never the
# producer of CTA 0; the scheduler gives a starved warp a turn (exec_sim.machine._starved), so the
# launch finishes within a small step bound and the verdict is the one argued for FLAG (.gpu).
FLAG_CONSUMER_FIRST = HEAD + """.visible .entry k(.param .u64 data, .param .u64 flag, .param .u64 out)
{
  .reg .b32 %r<8>;
  .reg .b64 %rd<8>;
  .reg .pred %p<3>;
  ld.param.u64 %rd1, [data];
  ld.param.u64 %rd2, [flag];
  ld.param.u64 %rd3, [out];
  mov.u32 %r1, %ctaid.x;
  setp.eq.u32 %p1, %r1, 0;
  @%p1 bra PRODUCER;
CONSUMER:
  ld.acquire.gpu.global.u32 %r2, [%rd2];
  setp.ne.u32 %p2, %r2, 1;
  @%p2 bra CONSUMER;
  ld.global.u32 %r3, [%rd1];
  st.global.u32 [%rd3], %r3;
  bra DONE;
PRODUCER:
  st.global.u32 [%rd1], 42;
  st.release.gpu.global.u32 [%rd2], 1;
DONE:
  ret;
}
"""


def test_spinning_warp_does_not_starve_the_producer(tmp_path, capsys):
    rc, d = _verify(tmp_path, capsys, FLAG_CONSUMER_FIRST, *FLAG_ARGS, "--max-steps", "20000")
    assert (rc, d["verdict"]) == (0, "verified")


# Lanes 0-15 of warp 0 execute bar.sync, lanes 16-31 skip it and exit: the warp does not execute
# the .aligned barrier as a whole (ISA §9.7.13.1: bar.sync is barrier.sync.aligned).
PARTIAL_WARP = HEAD + """.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<4>;
  .reg .pred %p<2>;
  mov.u32 %r1, %tid.x;
  setp.gt.u32 %p1, %r1, 15;
  @%p1 bra SKIP;
  bar.sync 0;
SKIP:
  ret;
}
"""

# Warp specialisation with a named barrier and a thread count (ISA §9.7.13.1's producer/consumer
# example): warp 0 writes s[] and arrives (bar.arrive 1, 64), warp 1 waits (bar.sync 1, 64) and reads.
# The arrival synchronizes with the waiting threads' return: ordered, verified. Different barrier
# instructions across warps are allowed when a thread count names the participants.
NAMED = HEAD + """.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  .reg .pred %p<2>;
  .shared .align 4 .b32 s[32];
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  and.b32 %r2, %r1, 31;
  shl.b32 %r2, %r2, 2;
  mov.u32 %r3, s;
  add.u32 %r3, %r3, %r2;
  setp.ge.u32 %p1, %r1, 32;
  @%p1 bra CONSUMER;
  st.shared.u32 [%r3], %r1;
  bar.arrive 1, 64;
  bra DONE;
CONSUMER:
  bar.sync 1, 64;
  ld.shared.u32 %r4, [%r3];
  cvt.u64.u32 %rd2, %r2;
  add.u64 %rd2, %rd1, %rd2;
  st.global.u32 [%rd2], %r4;
DONE:
  ret;
}
"""


def test_partial_warp_at_aligned_barrier_is_not_well_synchronized(tmp_path, capsys):
    rc, d = _verify(tmp_path, capsys, PARTIAL_WARP, "--arg", "out=u32[1]:zeros", "--block", "64")
    assert rc == 1 and d["verdict"] == "not-well-synchronized"
    assert d["witness"]["findings"][0]["line"] == 11


@pytest.mark.parametrize("sync, verdict", [("bar.arrive 1, 64;", "verified"), ("", "race")])
def test_named_barrier_producer_consumer(tmp_path, capsys, sync, verdict):
    rc, d = _verify(tmp_path, capsys, NAMED.replace("bar.arrive 1, 64;", sync).replace(
        "bar.sync 1, 64;", "bar.sync 1, 64;" if sync else ""), "--arg", "out=u32[32]:zeros", "--block", "64")
    assert (rc, d["verdict"]) == ({"verified": 0, "race": 1}[verdict], verdict)


# Lanes exchange through shared memory inside one warp (lane i reads lane i^1's word). Lanes of a
# warp are separate threads (independent thread scheduling): only bar.warp.sync, which orders memory
# among its participating threads (ISA §9.7.13.1), makes the exchange race-free; without it the
# st.shared (line 14) and the ld.shared race although the simulator runs the warp in lock step.
WARP_EXCHANGE = HEAD + """.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  .shared .align 4 .b32 s[32];
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  shl.b32 %r2, %r1, 2;
  mov.u32 %r3, s;
  add.u32 %r4, %r3, %r2;
  st.shared.u32 [%r4], %r1;
  xor.b32 %r5, %r2, 4;
  add.u32 %r5, %r3, %r5;
  SYNC
  ld.shared.u32 %r6, [%r5];
  cvt.u64.u32 %rd2, %r2;
  add.u64 %rd2, %rd1, %rd2;
  st.global.u32 [%rd2], %r6;
  ret;
}
"""


@pytest.mark.parametrize("sync, verdict", [("bar.warp.sync -1;", "verified"), ("", "race")])
def test_warp_exchange_needs_bar_warp_sync(tmp_path, capsys, sync, verdict):
    rc, d = _verify(tmp_path, capsys, WARP_EXCHANGE.replace("SYNC", sync), "--arg", "out=u32[32]:zeros",
                    "--block", "32")
    assert (rc, d["verdict"]) == ({"verified": 0, "race": 1}[verdict], verdict)
    if verdict == "race":
        assert sorted(x["line"] for x in d["witness"]["accesses"]) == [14, 18]


# A release sequence through the releasing thread's own RMW (ISA §8.9.2 observation is closed
# through RMWs): CTA 0 writes data, st.release flag = 1, then atom.add flag += 1 (relaxed). CTA 1's
# acquire that reads 2 observes the release through the RMW, so it synchronizes with it and data is
# ordered: no race. (The flag has two writers' values, so the loop's exit could differ by schedule:
# inconclusive, not verified.) Before, an RMW reading its own thread's write dropped the chain: race.
SEQUENCE = FLAG.replace("SCOPE", "gpu").replace(
    "  st.release.gpu.global.u32 [%rd2], 1;\n",
    "  st.release.gpu.global.u32 [%rd2], 1;\n  atom.relaxed.gpu.global.add.u32 %r4, [%rd2], 1;\n").replace(
    "setp.ne.u32 %p2, %r2, 1;", "setp.ne.u32 %p2, %r2, 2;")


def test_release_sequence_through_own_rmw(tmp_path, capsys):
    rc, d = _verify(tmp_path, capsys, SEQUENCE, *FLAG_ARGS)
    assert (rc, d["verdict"]) == (3, "inconclusive"), d["reason"]


# %clock (ISA §10.23) counts cycles: its value, stored here, differs between schedules; nothing
# argues the output schedule-independent, so the verdict is not `verified`.
CLOCK = HEAD + """.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %clock;
  st.global.u32 [%rd1], %r1;
  ret;
}
"""


def test_timer_value_makes_it_inconclusive(tmp_path, capsys):
    rc, d = _verify(tmp_path, capsys, CLOCK, "--arg", "out=u32[1]:zeros")
    assert (rc, d["verdict"]) == (3, "inconclusive") and "timer" in d["reason"]


# A flag in shared memory between two warps of one CTA. Thread 0 clears the flag (the loop's history:
# ordered before every later access by bar.sync), then thread 32's warp spins on an acquire load of the
# flag while thread 0 writes data and releases the flag (.cta: both in the CTA, morally strong, §8.7).
# The spin loop has no side effect, the flag has one concurrent writer, and the observed run shows a
# failed iteration reading the cleared flag (the consumer's code comes first, so it spins first): in
# every schedule the loop spins on 0 and exits on the release's 1, so the acquire orders data: verified.
# With the producer's code first the loop never fails in the observed run and the cleared value (a
# shared-memory store) is not recorded, so nothing shows the loop would wait: inconclusive.
SHARED_FLAG = HEAD + """.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  .reg .pred %p<4>;
  .shared .align 4 .b32 flag;
  .shared .align 4 .b32 data;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra CLEARED;
  st.shared.u32 [flag], 0;
CLEARED:
  bar.sync 0;
  setp.eq.u32 %p2, %r1, 0;
  setp.eq.u32 %p3, %r1, 32;
  @%p2 bra FIRST;
  @%p3 bra SECOND;
  bra DONE;
FIRST:
  BLOCK_A
  bra DONE;
SECOND:
  BLOCK_B
DONE:
  ret;
}
"""
CONSUMER = """SPIN:
  ld.acquire.cta.shared.u32 %r2, [flag];
  setp.ne.u32 %p1, %r2, 1;
  @%p1 bra SPIN;
  ld.shared.u32 %r3, [data];
  st.global.u32 [%rd1], %r3;"""
PRODUCER = """st.shared.u32 [data], 42;
  st.release.cta.shared.u32 [flag], 1;"""


@pytest.mark.parametrize("consumer_first, verdict", [(True, "verified"), (False, "inconclusive")])
def test_shared_flag_between_warps(tmp_path, capsys, consumer_first, verdict):
    # thread 0 takes FIRST, thread 32 SECOND: the consumer is thread 0 when it comes first
    a, b = (CONSUMER, PRODUCER) if consumer_first else (PRODUCER, CONSUMER)
    text = SHARED_FLAG.replace("BLOCK_A", a).replace("BLOCK_B", b)
    rc, d = _verify(tmp_path, capsys, text, "--arg", "out=u32[1]:zeros", "--block", "64")
    assert (rc, d["verdict"]) == ({"verified": 0, "inconclusive": 3}[verdict], verdict), d["reason"]


# Every lane of a warp stores a value to the warp's slot s[warp] in one st.shared (Triton's reductions
# store a warp's partial from all 32 lanes), then bar.sync, then each thread reads s[0] and s[1].
# The 32 stores are unordered weak writes — a race by the ISA's definition (§8) — but when they store
# one value every order leaves that value and the reads after the barrier see it: not reported.
# When the lanes store different values (their tid), the order decides the value read: a race.
SAME_VALUE = HEAD + """.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<10>;
  .reg .b64 %rd<4>;
  .shared .align 4 .b32 s[2];
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  shr.u32 %r2, %r1, 5;
  shl.b32 %r3, %r2, 2;
  mov.u32 %r4, s;
  add.u32 %r5, %r4, %r3;
  st.shared.u32 [%r5], VALUE;
  bar.sync 0;
  ld.shared.u32 %r6, [s];
  ld.shared.u32 %r7, [s+4];
  add.u32 %r8, %r6, %r7;
  cvt.u64.u32 %rd2, %r3;
  add.u64 %rd2, %rd1, %rd2;
  st.global.u32 [%rd2], %r8;
  ret;
}
"""


@pytest.mark.parametrize("value, verdict", [("%r2", "verified"), ("%r1", "race")])
def test_same_value_stores_of_one_instruction(tmp_path, capsys, value, verdict):
    rc, d = _verify(tmp_path, capsys, SAME_VALUE.replace("VALUE", value), "--arg", "out=u32[2]:zeros",
                    "--block", "64")
    assert (rc, d["verdict"]) == ({"verified": 0, "race": 1}[verdict], verdict), d["reason"]
    if verdict == "race":
        assert [x["line"] for x in d["witness"]["accesses"]] == [15, 15]  # the st.shared, two lanes


# Warp 0 writes an 8x8 b16 matrix to shared memory (a word per lane); warp 1 reads it with ldmatrix
# (lanes 0-7 give the row addresses, ISA §9.7.14.5.15). ldmatrix's row reads are accesses like
# ld.shared's: without a barrier they race with warp 0's stores; bar.sync 0 orders them.
LDMATRIX = """.version 7.8
.target sm_80
.address_size 64
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<10>;
  .reg .b64 %rd<4>;
  .reg .pred %p<2>;
  .shared .align 16 .b8 m[128];
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  and.b32 %r2, %r1, 31;
  mov.u32 %r3, m;
  setp.ge.u32 %p1, %r1, 32;
  @%p1 bra READER;
  shl.b32 %r4, %r2, 2;
  add.u32 %r4, %r3, %r4;
  st.shared.u32 [%r4], %r1;
READER:
  BARRIER
  @!%p1 bra DONE;
  and.b32 %r5, %r2, 7;
  shl.b32 %r5, %r5, 4;
  add.u32 %r5, %r3, %r5;
  ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%r6}, [%r5];
  shl.b32 %r7, %r2, 2;
  cvt.u64.u32 %rd2, %r7;
  add.u64 %rd2, %rd1, %rd2;
  st.global.u32 [%rd2], %r6;
DONE:
  ret;
}
"""


@pytest.mark.parametrize("barrier, verdict", [("bar.sync 0;", "verified"), ("", "race")])
def test_ldmatrix_reads_are_accesses(tmp_path, capsys, barrier, verdict):
    rc, d = _verify(tmp_path, capsys, LDMATRIX.replace("BARRIER", barrier), "--arg", "out=u32[32]:zeros",
                    "--block", "64")
    assert (rc, d["verdict"]) == ({"verified": 0, "race": 1}[verdict], verdict), d["reason"]
    if verdict == "race":
        assert sorted(x["line"] for x in d["witness"]["accesses"]) == [18, 25]


# Every thread writes its word of buf with st.shared (generic proxy); after bar.sync thread 0 stores buf
# to global memory with cp.async.bulk (the async proxy reads buf). A generic write is ordered before an
# async-proxy access only through fence.proxy.async by the writer (ISA §8.6; proxy-preserved base
# causality, §8.9.5): with the fence, verified; without it the bulk copy's read races with the st.shared.
BULK_STORE = """.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  .reg .pred %p<2>;
  .shared .align 128 .b8 buf[128];
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  shl.b32 %r2, %r1, 2;
  mov.u32 %r3, buf;
  add.u32 %r2, %r3, %r2;
  st.shared.u32 [%r2], %r1;
  FENCE
  bar.sync 0;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra DONE;
  cp.async.bulk.global.shared::cta.bulk_group [%rd1], [buf], 128;
  cp.async.bulk.commit_group;
  cp.async.bulk.wait_group 0;
DONE:
  ret;
}
"""


@pytest.mark.parametrize("fence, verdict", [("fence.proxy.async.shared::cta;", "verified"), ("", "race")])
def test_generic_write_then_async_proxy_read_needs_a_proxy_fence(tmp_path, capsys, fence, verdict):
    rc, d = _verify(tmp_path, capsys, BULK_STORE.replace("FENCE", fence), "--arg", "out=u32[32]:zeros",
                    "--block", "32")
    assert (rc, d["verdict"]) == ({"verified": 0, "race": 1}[verdict], verdict), d["reason"]
    if verdict == "race":
        assert sorted(x["line"] for x in d["witness"]["accesses"]) == [15, 20]
