"""One execution core: `explore`'s oracle-driven threads evaluate local instructions with the
simulator's semantics (``ptxkit.exec_sim.lane.LaneEval`` over ``ptxkit.exec_sim.semantics``), so real
kernels with float arithmetic, vector accesses and the simulator's integer instructions can be
explored. Expected values are hand-computed from the ISA (IEEE-754 bit patterns, bfe/popc/cvt rules)
and the verdicts argued from the memory-model text, not taken from the code."""

from __future__ import annotations

import json
import struct
from pathlib import Path

import pytest

from ptxkit import ir
from ptxkit.cli import main
from ptxkit.exec_sim.lane import LaneEval
from tests.conftest import needs_ptxas


def f32(x: float) -> int:
    """IEEE-754 single bits of x (exactly representable values only)."""
    return struct.unpack("<I", struct.pack("<f", x))[0]


# --------------------------------------------------------------------------- message passing with floats
# Thread 0 computes a = x + 1 and b = (x + 1) * 2 in f32, stores {a, b} with ONE vector store, then
# sets flag (release or weak). Thread 1 reads flag (acquire), then {a, b} with ONE vector load, and
# writes out = {float(flag), a + b}. With x = 1.5: a = 2.5, b = 5.0, a + b = 7.5 (all exact in f32).
MP_FLOAT = """.version 7.8
.target sm_75
.address_size 64

.visible .entry mp_float_vec(
    .param .u64 data,
    .param .u64 flag,
    .param .u64 out,
    .param .f32 x
)
{
    .reg .b32 %r<4>;
    .reg .f32 %f<10>;
    .reg .b64 %rd<4>;
    .reg .pred %p;
    ld.param.u64 %rd1, [data];
    cvta.to.global.u64 %rd1, %rd1;
    ld.param.u64 %rd2, [flag];
    cvta.to.global.u64 %rd2, %rd2;
    ld.param.u64 %rd3, [out];
    cvta.to.global.u64 %rd3, %rd3;
    mov.u32 %r1, %tid.x;
    setp.ne.u32 %p, %r1, 0;
    @%p bra READER;
    ld.param.f32 %f1, [x];
    add.rn.f32 %f2, %f1, 0f3F800000;
    mul.rn.f32 %f3, %f2, 0f40000000;
    st.global.v2.f32 [%rd1], {%f2, %f3};
    st.FLAG.global.u32 [%rd2], 1;
    ret;
READER:
    ld.acquire.gpu.global.u32 %r2, [%rd2];
    ld.global.v2.f32 {%f5, %f6}, [%rd1];
    cvt.rn.f32.u32 %f8, %r2;
    add.rn.f32 %f7, %f5, %f6;
    st.global.v2.f32 [%rd3], {%f8, %f7};
    ret;
}
"""
MP_ARGS = ["--threads", "2", "--arg", "data=f32[2]:zeros", "--arg", "flag=u32[1]:zeros",
           "--arg", "out=f32[2]:zeros", "--arg", "x=f32:1.5", "--json"]


def _explore(tmp_path, text, name, args, capsys, cond=None):
    p = tmp_path / name
    p.write_text(text)
    code = main(["explore", str(p), *args, *(cond or [])])
    data = json.loads(capsys.readouterr().out)
    return code, data


@pytest.mark.parametrize("flag,stale_allowed", [("release.gpu", False), ("relaxed.gpu", True)])
def test_float_vector_message_passing(tmp_path, capsys, flag, stale_allowed):
    # release.gpu: the vector store's two element writes precede the release in program order; the
    # acquire load reading 1 synchronizes with it (ISA §8.8 release/acquire patterns), so both
    # element writes precede both element reads in causality order and the reads must see 2.5 and
    # 5.0 (Causality axiom, §8.10.5): seeing
    # flag = 1 with a + b != 7.5 is forbidden. relaxed.gpu: a strong store that is not a release
    # orders nothing before it, so the reader may see the flag and stale data.
    text = MP_FLOAT.replace("FLAG", flag)
    stale = f"out[0] == {f32(1.0)} /\\ out[1] != {f32(7.5)}"
    code, data = _explore(tmp_path, text, "mp.ptx", MP_ARGS, capsys, ["--exists", stale])
    assert data["complete"] and data["verdict"] == ("Ok" if stale_allowed else "No")
    assert code == (0 if stale_allowed else 1)
    # the float results are the IEEE values computed by hand
    code, data = _explore(tmp_path, text, "mp.ptx", MP_ARGS, capsys,
                          ["--exists", f"out[0] == {f32(1.0)} /\\ out[1] == {f32(7.5)}"])
    assert data["verdict"] == "Ok"
    _, data = _explore(tmp_path, text, "mp.ptx", MP_ARGS, capsys)
    finals = {(o["values"]["out[0]"], o["values"]["out[1]"]) for o in data["outcomes"]}
    assert {o["values"]["data[0]"] for o in data["outcomes"]} == {f32(2.5)}
    assert {o["values"]["data[1]"] for o in data["outcomes"]} == {f32(5.0)}
    # flag not seen: each element of the vector load reads old or new on its own (ISA §8.2.2: a vector
    # access is a set of scalar accesses), so a + b is any of 0, 2.5, 5, 7.5
    assert {b for a, b in finals if a == 0} == {0, f32(2.5), f32(5.0), f32(7.5)}
    seen = {b for a, b in finals if a == f32(1.0)}
    assert seen == ({0, f32(2.5), f32(5.0), f32(7.5)} if stale_allowed else {f32(7.5)})


@needs_ptxas
def test_float_vector_kernel_is_real_ptx(tmp_path):
    import subprocess

    p = tmp_path / "mp.ptx"
    p.write_text(MP_FLOAT.replace("FLAG", "release.gpu"))
    r = subprocess.run(["ptxas", "-arch=sm_75", str(p), "-o", str(tmp_path / "mp.cubin")],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


# --------------------------------------------------------------------------- the simulator's instructions
ALU = """.version 7.8
.target sm_75
.address_size 64
.visible .entry alu(.param .u64 src, .param .u64 out)
{
    .reg .b32 %r<12>;
    .reg .f32 %f<3>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [src];
    cvta.to.global.u64 %rd1, %rd1;
    ld.param.u64 %rd2, [out];
    cvta.to.global.u64 %rd2, %rd2;
    ld.relaxed.gpu.global.s8 %r1, [%rd1];
    popc.b32 %r2, 61680;
    bfe.u32 %r3, 305419896, 8, 8;
    mov.f32 %f1, 0fC0300000;
    cvt.rzi.s32.f32 %r4, %f1;
    prmt.b32 %r5, 305419896, 0, 291;
    st.global.v4.u32 [%rd2], {%r1, %r2, %r3, %r4};
    st.global.u32 [%rd2+16], %r5;
    ret;
}
"""


def test_simulator_instructions_in_a_thread(tmp_path, capsys):
    # src[0] = 0xF6 loaded with .s8 into a 32-bit register: sign-extended to 0xFFFFFFF6 (ISA §6.4.3);
    # popc(0xF0F0) = 8; bfe.u32(0x12345678, 8, 8) = 0x56; cvt.rzi.s32.f32(-2.75) = -2;
    # prmt.b32 d, 0x12345678, 0, 0x123: the selector nibbles (low first) 3, 2, 1, 0 give
    # d.b0 = a.b3 = 0x12, d.b1 = a.b2 = 0x34,
    # d.b2 = a.b1 = 0x56, d.b3 = a.b0 = 0x78 -> 0x78563412 (ISA §9.7.8.7, default mode)
    src = tmp_path / "src.bin"
    src.write_bytes(bytes([0xF6]))
    code, data = _explore(tmp_path, ALU, "alu.ptx", ["--threads", "1", "--arg", f"src=u8[1]:{src}",
                                                     "--arg", "out=u32[5]:zeros", "--json"], capsys)
    assert code == 0 and data["complete"], data
    (o,) = data["outcomes"]
    v = o["values"]
    assert [v[f"out[{i}]"] for i in range(5)] == [0xFFFFFFF6, 8, 0x56, 0xFFFFFFFE, 0x78563412]


def test_explore_and_run_agree_on_a_thread(tmp_path, capsys):
    # the same kernel on the lock-step simulator (`ptxkit run`) gives the same bits as one explore
    # thread: both go through exec_sim.semantics
    import numpy as np

    src = tmp_path / "src.bin"
    src.write_bytes(bytes([0xF6]))
    p = tmp_path / "alu.ptx"
    p.write_text(ALU)
    assert main(["run", str(p), "--arg", f"src=u8[1]:{src}", "--arg", "out=u32[5]:zeros", "--block", "1",
                 "--out", str(tmp_path / "o")]) == 0
    ran = np.fromfile(tmp_path / "o" / "out.bin", np.uint32).tolist()
    capsys.readouterr()
    _, data = _explore(tmp_path, ALU, "alu.ptx", ["--threads", "1", "--arg", f"src=u8[1]:{src}",
                                                  "--arg", "out=u32[5]:zeros", "--json"], capsys)
    (o,) = data["outcomes"]
    assert [o["values"][f"out[{i}]"] for i in range(5)] == ran


def _one(op, mods, *operands):
    return ir.Instruction(op, mods, operands)


def test_lane_eval_hand_vectors():
    # LaneEval is the simulator's own closure on one lane: raw bits in, raw bits out
    m = ir.Module("", "<t>", [])
    R, I = ir.Reg, ir.Imm
    e = LaneEval(_one("add", ("cc", "u32"), R("a"), R("b"), I(1)), {}, m)
    assert e.evaluate({"b": 0xFFFFFFFF}) == {"a": 0, "%cc": 1}
    e = LaneEval(_one("addc", ("u32",), R("c"), R("d"), I(0)), {}, m)  # ISA §9.7.2: + CC.CF
    assert e.evaluate({"d": 5, "%cc": 1}) == {"c": 6}
    e = LaneEval(_one("mul", ("hi", "s32"), R("h"), R("x"), R("y")), {}, m)
    assert e.evaluate({"x": 0x80000000, "y": 2}) == {"h": 0xFFFFFFFF}  # (-2^31 * 2) >> 32 = -1
    e = LaneEval(_one("setp", ("lt", "s32"), ir.Pipe(R("p"), R("q")), R("x"), I(0)), {"p": "pred", "q": "pred"}, m)
    assert e.evaluate({"x": 0xFFFFFFFF}) == {"p": 1, "q": 0}
    e = LaneEval(_one("mul", ("wide", "s32"), R("w"), R("x"), I(-3)), {"w": "b64"}, m)
    assert e.evaluate({"x": 5}) == {"w": (1 << 64) - 15}
    e = LaneEval(_one("mov", ("b64",), R("w"), ir.Vec((R("lo"), R("hi")))), {"w": "b64"}, m)
    assert e.evaluate({"lo": 1, "hi": 2}) == {"w": (2 << 32) | 1}
    e = LaneEval(_one("div", ("rn", "f32"), R("f"), R("x"), R("y")), {"f": "f32", "x": "f32", "y": "f32"}, m)
    assert e.evaluate({"x": f32(1.0), "y": f32(4.0)}) == {"f": f32(0.25)}


# --------------------------------------------------------------------------- litmus registers
def test_litmus_registers_are_signed_32_bit(tmp_path, capsys):
    # Dat3M integers: 0 - 1 is -1, both in the register and once stored
    p = tmp_path / "neg.litmus"
    p.write_text("PTX neg\n{ x=0; }\n P0@cta 0,gpu 0 ;\n ld.weak r0, x ;\n sub r1, r0, 1 ;\n"
                 " st.weak x, r1 ;\nexists (P0:r1 == -1 /\\ x == -1)\n")
    assert main(["explore", str(p), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["verdict"] == "Ok" and [o["values"] for o in data["outcomes"]] == [{"P0:r1": -1, "x": -1}]


# --------------------------------------------------------------------------- what explore refuses
SHFL = """.version 7.8
.target sm_75
.address_size 64
.visible .entry sh(.param .u64 out)
{
    .reg .b32 %r<4>;
    .reg .b64 %rd<2>;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %tid.x;
    OP
    st.global.u32 [%rd1], %r2;
    ret;
}
"""


@pytest.mark.parametrize("op,msg", [
    ("activemask.b32 %r2;", "'activemask.b32' is not supported"),
    ("mul.lo.u32 %r2, %rd1, 3;", "arithmetic on an address"),
    # lane 0 reads lane 4 (bfly 4), which --threads 2 does not run
    ("shfl.sync.bfly.b32 %r2, %r1, 4, 31, -1;", "reads lane 4, which is not one of the explored threads"),
    ("shfl.sync.bfly.b32 %r2, %r1, 1, 31, 1;", "not in membermask"),
    ("add.u32 %r2, %zz, 1;", "unknown register '%zz'"),
])
def test_unsupported_forms_are_located_errors(tmp_path, capsys, op, msg):
    p = tmp_path / "sh.ptx"
    p.write_text(SHFL.replace("OP", op))
    assert main(["explore", str(p), "--threads", "2", "--arg", "out=u32[1]:zeros"]) == 2
    err = capsys.readouterr().err
    assert f"{p}:10:5: error:" in err and msg in err


def test_oracle_has_no_arithmetic_of_its_own():
    # the explorer schedules; instruction semantics live in exec_sim.semantics only
    src = (Path(__file__).resolve().parent.parent / "ptxkit" / "explore" / "oracle.py").read_text()
    for name in ("def _arith", "def _cmp", "DEF_OPS", '"shl"', '"xor": lambda'):
        assert name not in src, name
    assert "LaneEval" in src and "apply_atomic" in src


# --------------------------------------------------------------------------- shfl.sync through the oracle
SHFL_LB = """.version 7.8
.target sm_75
.address_size 64
.visible .entry lb_shfl(.param .u64 buf)
{
    .reg .b32 %r<8>;
    .reg .b64 %rd<6>;
    ld.param.u64 %rd1, [buf];
    cvta.to.global.u64 %rd1, %rd1;
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd3, %r1, 4;
    add.s64 %rd4, %rd1, %rd3;
    sub.u32 %r4, 1, %r1;
    mul.wide.u32 %rd3, %r4, 4;
    add.s64 %rd5, %rd1, %rd3;
    ld.relaxed.gpu.global.u32 %r2, [%rd4];
    add.u32 %r2, %r2, ADD;
    shfl.sync.idx.b32 %r3|%p1, %r2, %r4, 31, 3;
    selp.u32 %r5, %r3, 99, %p1;
    st.relaxed.gpu.global.u32 [%rd5], %r5;
    ret;
}
""".replace("%r<8>;", "%r<8>;\n    .reg .pred %p1;")


def _program(tmp_path, text, threads=2, args=("buf=u32[2]:zeros",)):
    import argparse

    from ptxkit.explore.kernel import program_from_ptx

    p = tmp_path / "k.ptx"
    p.write_text(text)
    ns = argparse.Namespace(threads=threads, grid="1", block="1", arg=list(args), seed=0, kernel=None)
    return program_from_ptx(p, ns)


def test_shfl_value_comes_from_the_source_lane(tmp_path):
    # thread t reads x_t = buf[t] (initially 0) and shuffles a_t = x_t + 5 to the other lane (idx
    # 1 - t: in range, so p = 1 and selp keeps it); thread t then writes buf[1-t] = a_(1-t).
    # Thread 1's store to buf[0] writes a_0 = x_0 + 5, so thread 0 reading it would need
    # x_0 = x_0 + 5: both loads read the initial 0 and both stores write 5.
    from ptxkit.explore.engine import explore

    res = explore(_program(tmp_path, SHFL_LB.replace("ADD", "5")))
    assert res.complete and res.keys == ["buf[0]", "buf[1]"]
    assert set(res.outcomes) == {(5, 5)}


def test_shfl_dependency_crosses_threads(tmp_path):
    # ISA §8.10.4 No-Thin-Air: acyclic(rf ∪ dep). Thread 0's store to buf[1] carries the value
    # lane 1 loaded from buf[1] (through the shuffle), and vice versa. Of the 4 reads-from choices
    # (each load from the initial write or from the other thread's store) only "both from the
    # initial writes" has no rf ∪ dep cycle: 4 candidates, 1 consistent (all values are 0 here, so
    # only the dependency can tell them apart).
    from ptxkit.explore.engine import explore

    res = explore(_program(tmp_path, SHFL_LB.replace("ADD", "0")))
    assert res.complete and (res.candidates, res.consistent) == (4, 1)
    # and the dependency edge itself: thread 1's load -> thread 0's store, across threads
    (w,) = res.witnesses.values()
    ev = w.events
    assert any(ev[i].kind == "R" and ev[i].tid == 1 and ev[j].kind == "W" and ev[j].tid == 0
               for i, j in w.data)


@needs_ptxas
def test_shfl_kernel_is_real_ptx(tmp_path):
    import subprocess

    p = tmp_path / "lb.ptx"
    p.write_text(SHFL_LB.replace("ADD", "5"))
    r = subprocess.run(["ptxas", "-arch=sm_75", str(p), "-o", str(tmp_path / "lb.cubin")],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


def test_shfl_out_of_range_keeps_own_value_and_clears_p(tmp_path):
    # shfl.sync.up.b32 with b = 1, c = 0 (clamp 0, no segments): maxLane = 0; lane 0 asks for lane
    # -1 < maxLane, so p = 0 and d = its own a; lane 1 asks for lane 0 >= maxLane: p = 1, d = a_0
    # (ISA shfl.sync pseudo-code). With selp d, 99, p: thread 0 writes 99 to buf[1] and thread 1
    # writes a_0 = x_0 + 5 to buf[0], where x_0 (thread 0's load of buf[0]) can only be 0:
    # reading thread 1's store would need x_0 = x_0 + 5.
    from ptxkit.explore.engine import explore

    text = SHFL_LB.replace("ADD", "5").replace("shfl.sync.idx.b32 %r3|%p1, %r2, %r4, 31, 3;",
                                               "shfl.sync.up.b32 %r3|%p1, %r2, 1, 0, 3;")
    res = explore(_program(tmp_path, text))
    assert res.complete and set(res.outcomes) == {(5, 99)}


# --------------------------------------------------------------------------- barriers count warps
# Thread 0 (warp 0) writes data then arrives at barrier 1; thread 32 (warp 1) waits at barrier 1
# then reads data. The other 62 threads of the 64-thread CTA exit first. "Barriers are executed on a
# per-warp basis as if all the threads in a warp are active": each warp's arrival adds the warp size
# (32) to the arrival count, not its number of active lanes (ISA §9.7.13.1, bar/barrier).
# * barrier.sync 1, 64: warps 0 and 1 arrive -> 64 -> ONE instance holding both threads, so the
#   store -po-> arrival -sw-> departure -po-> load (ISA §8.9.4 barriers synchronize) and the load must
#   see 1: the stale read is forbidden. Counting the 2 explored *threads* instead never reaches 64:
#   every schedule deadlocks, no execution at all (the old behaviour; the "fresh read is reachable"
#   assertion below then fails).
# * barrier.sync 1, 32: each warp alone completes an instance of 32 (the barrier resets once it
#   completes), so the two threads never share an instance and the stale read is allowed. Counting
#   threads deadlocks here too (2 < 32), and joining the late warp to the completed instance would
#   wrongly synchronize it.
BAR_WARPS = """.version 7.8
.target sm_75
.address_size 64
.visible .entry bar_warps(.param .u64 data, .param .u64 out)
{
    .reg .b32 %r<4>;
    .reg .b64 %rd<3>;
    .reg .pred %p<3>;
    ld.param.u64 %rd1, [data];
    cvta.to.global.u64 %rd1, %rd1;
    ld.param.u64 %rd2, [out];
    cvta.to.global.u64 %rd2, %rd2;
    mov.u32 %r1, %tid.x;
    setp.eq.u32 %p1, %r1, 0;
    setp.eq.u32 %p2, %r1, 32;
    or.pred %p0, %p1, %p2;
    @!%p0 bra DONE;
    @%p1 st.weak.global.u32 [%rd1], 1;
    barrier.sync 1, COUNT;
    @%p2 ld.weak.global.u32 %r2, [%rd1];
    @%p2 st.global.u32 [%rd2], %r2;
DONE:
    ret;
}
"""
BAR_ARGS = ["--threads", "64", "--block", "64", "--arg", "data=u32[1]:zeros", "--arg", "out=u32[1]:zeros",
            "--json"]


@pytest.mark.parametrize("count,stale_allowed", [(64, False), (32, True)])
def test_barrier_thread_count_is_per_warp(tmp_path, capsys, count, stale_allowed):
    text = BAR_WARPS.replace("COUNT", str(count))
    code, data = _explore(tmp_path, text, "bw.ptx", BAR_ARGS, capsys, ["--exists", "out[0] == 1"])
    assert data["complete"] and data["verdict"] == "Ok" and code == 0  # the fresh read is reachable
    code, data = _explore(tmp_path, text, "bw.ptx", BAR_ARGS, capsys, ["--exists", "out[0] == 0"])
    assert data["complete"] and data["verdict"] == ("Ok" if stale_allowed else "No")


@needs_ptxas
def test_barrier_warps_kernel_is_real_ptx(tmp_path):
    import subprocess

    p = tmp_path / "bw.ptx"
    p.write_text(BAR_WARPS.replace("COUNT", "64"))
    r = subprocess.run(["ptxas", "-arch=sm_75", str(p), "-o", str(tmp_path / "bw.cubin")],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
