"""`ptxkit explore` on real .ptx kernels with --threads: store buffering with and without fence.sc,
located errors, shared memory and bar.sync (outcomes argued from the ISA in the comments)."""

from __future__ import annotations

import json

import pytest

from ptxkit.cli import main

# The bundled corpora/litmus/*.ptx kernels (explore on the kernel and on its Dat3M twin, against the
# verdict argued in the header) are checked by tests/test_litmus_corpus.py.


KERNEL = """.version 7.8
.target sm_75
.address_size 64
.visible .entry sb(.param .u64 buf, .param .u64 out, .param .u32 n)
{
    .reg .b32 %r<8>;
    .reg .b64 %rd<6>;
    .reg .pred %p;
    ld.param.u64 %rd1, [buf];
    cvta.to.global.u64 %rd1, %rd1;
    ld.param.u64 %rd2, [out];
    ld.param.u32 %r5, [n];
    mov.u32 %r1, %tid.x;
    // thread t writes buf[t] = n and reads buf[1-t] into out[t]
    mul.wide.u32 %rd3, %r1, 4;
    add.s64 %rd4, %rd1, %rd3;
    st.relaxed.gpu.global.u32 [%rd4], %r5;
    FENCE
    sub.s32 %r2, 1, %r1;
    mul.wide.u32 %rd3, %r2, 4;
    add.s64 %rd4, %rd1, %rd3;
    ld.relaxed.gpu.global.u32 %r3, [%rd4];
    mul.wide.u32 %rd3, %r1, 4;
    add.s64 %rd5, %rd2, %rd3;
    st.global.u32 [%rd5], %r3;
    ret;
}
"""


@pytest.mark.parametrize("fence,sb_allowed", [("", True), ("fence.sc.gpu;", False)])
def test_store_buffering_kernel(tmp_path, fence, sb_allowed, capsys):
    # ISA §8.10.2: morally strong fence.sc pairs are ordered by Fence-SC order, so one thread's
    # store causes the other's load; without fences both loads may read the initial 0.
    p = tmp_path / "sb.ptx"
    p.write_text(KERNEL.replace("FENCE", fence))
    args = ["explore", str(p), "--threads", "2", "--arg", "buf=u32[2]:zeros", "--arg", "out=u32[2]:zeros",
            "--arg", "n=u32:7", "--json"]
    code = main([*args, "--exists", "out[0] == 0 /\\ out[1] == 0"])
    data = json.loads(capsys.readouterr().out)
    assert data["verdict"] == ("Ok" if sb_allowed else "No") and code == (0 if sb_allowed else 1)
    # final memory: both stores of n landed
    assert all(o["values"]["out[0]"] in (0, 7) for o in data["outcomes"])
    main(args)
    data = json.loads(capsys.readouterr().out)
    assert all(o["values"]["buf[0]"] == 7 and o["values"]["buf[1]"] == 7 for o in data["outcomes"])
    assert len(data["outcomes"]) == (4 if sb_allowed else 3)


def test_kernel_errors(tmp_path, capsys):
    p = tmp_path / "sb.ptx"
    p.write_text(KERNEL.replace("FENCE", ""))
    base = ["explore", str(p), "--arg", "out=u32[2]:zeros", "--arg", "n=u32:1"]
    assert main([*base, "--arg", "buf=u32[2]:zeros"]) == 2  # no --threads
    assert "a .ptx kernel needs --threads N" in capsys.readouterr().err
    # buf too small: thread 0 loads buf[1] out of bounds -> located error
    assert main([*base, "--threads", "2", "--arg", "buf=u32[1]:zeros"]) == 2
    err = capsys.readouterr().err
    assert f"{p}:22:5: error:" in err and "outside u32[1]" in err
    assert main([*base, "--threads", "2", "--arg", "buf=u32[2]:zeros", "--exists", "zz[0] == 1"]) == 2
    assert "unknown location 'zz[0]' (buffers: buf, out)" in capsys.readouterr().err


SHARED_MP = """.version 7.8
.target sm_75
.address_size 64
.visible .entry mp_shared(.param .u64 out)
{
    .reg .b32 %r<6>;
    .reg .b64 %rd<3>;
    .reg .pred %p;
    .shared .align 4 .u32 s[2];
    ld.param.u64 %rd1, [out];
    cvta.to.global.u64 %rd1, %rd1;
    mov.u32 %r1, %tid.x;
    setp.ne.u32 %p, %r1, 0;
    @%p bra READER;
    st.shared.u32 [s+4], 1;
    BAR
    ret;
READER:
    BAR
    mov.u32 %r4, s;
    ld.shared.u32 %r2, [%r4+4];
    st.global.u32 [%rd1], %r2;
    ret;
}
"""


@pytest.mark.parametrize("bar,grid,outs", [
    ("bar.sync 0;", "1", {1}),        # the seed example: st; bar.sync | bar.sync; ld — po;sw;po (§8.9.4)
    ("", "1", {0, 1}),                # no barrier: the weak load may miss the store
    ("bar.sync 0;", "2", {0}),        # two CTAs: each has its own shared memory (ISA §5.1.5)
])
def test_shared_memory_and_bar_sync(tmp_path, bar, grid, outs, capsys):
    p = tmp_path / "mp_shared.ptx"
    p.write_text(SHARED_MP.replace("BAR", bar))
    assert main(["explore", str(p), "--threads", "2", "--grid", grid, "--arg", "out=u32[1]:zeros",
                 "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert {o["values"]["out[0]"] for o in data["outcomes"]} == outs
    assert all(set(o["values"]) == {"out[0]"} for o in data["outcomes"])  # shared memory is not an outcome
