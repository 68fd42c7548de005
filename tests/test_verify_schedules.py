"""`ptxkit verify` when atomic RMW results steer the kernel (verify.schedules): every order of the RMWs
on the location is run and checked, on small hand-written kernels argued from the PTX ISA (§8 memory
model, §9.7.13.5 atom, §9.7.13.4 membar/fence)."""

from __future__ import annotations

import importlib.util
import json

import numpy as np
import pytest

from ptxkit.cli import main
from ptxkit.errors import UsageError
from ptxkit.exec_sim.args import parse_arg_specs
from ptxkit.exec_sim.launch import run_kernel, select_entry
from ptxkit.ptx.parser import parse

HEAD = ".version 7.8\n.target sm_80\n.address_size 64\n"

# The "last block" pattern on 3 CTAs of one thread: CTA c stores part[c] = (c+1)^2, then FENCE, then
# takes a ticket with atom.global.add.u32 (.relaxed.gpu by default, ISA §9.7.13.5); the CTA whose
# ticket is nctaid-1 executes FENCE again and sums part[0..2] into out. With FENCE = fence.sc.gpu:
# st part -> fence -> atom is a release pattern and atom -> fence -> ld an acquire pattern (ISA §8.8);
# the RMWs on count are morally strong with each other (§8.7), each reads its coherence predecessor,
# so every writer's atom precedes the last one in observation order, each writer's fence
# synchronizes with the reader's fence, and every st part happens before the ld part: no race in any
# order of the tickets, and the sum (1+4+9 = 14, in index order) is the same: verified. Without the
# fences nothing orders st part[c] (line 17) before the last CTA's loads: a race.
LASTBLOCK = HEAD + """.visible .entry k(.param .u64 part, .param .u64 count, .param .u64 out)
{
  .reg .b32 %r<8>;
  .reg .b64 %rd<8>;
  .reg .pred %p<3>;
  ld.param.u64 %rd1, [part];
  ld.param.u64 %rd2, [count];
  ld.param.u64 %rd3, [out];
  mov.u32 %r1, %ctaid.x;
  mul.wide.u32 %rd4, %r1, 4;
  add.u64 %rd4, %rd1, %rd4;
  add.u32 %r2, %r1, 1;
  mul.lo.u32 %r2, %r2, %r2;
  st.global.u32 [%rd4], %r2;
  FENCE
  atom.global.add.u32 %r3, [%rd2], 1;
  mov.u32 %r4, %nctaid.x;
  sub.u32 %r4, %r4, 1;
  setp.ne.u32 %p1, %r3, %r4;
  @%p1 bra DONE;
  FENCE
  ld.global.u32 %r5, [%rd1];
  ld.global.u32 %r6, [%rd1+4];
  add.u32 %r5, %r5, %r6;
  ld.global.u32 %r6, [%rd1+8];
  add.u32 %r5, %r5, %r6;
  st.global.u32 [%rd3], %r5;
DONE:
  ret;
}
"""
LASTBLOCK_ARGS = ["--arg", "part=u32[3]:zeros", "--arg", "count=u32[1]:zeros", "--arg", "out=u32[1]:zeros",
                  "--grid", "3", "--block", "1"]

# Each CTA takes a ticket t (atom.global.add.u32 on count, initially 0) and writes its ctaid to
# out[t]. The tickets are distinct (each RMW reads its coherence predecessor, ISA §8.5 atomicity), so
# every out element is written once: no race. But which CTA gets ticket 0 depends on the order of the
# RMWs: on 2 CTAs out is [0, 1] when CTA 0's RMW comes first and [1, 0] otherwise: different.
TICKET = HEAD + """.visible .entry k(.param .u64 count, .param .u64 out)
{
  .reg .b32 %r<8>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd2, [count];
  ld.param.u64 %rd3, [out];
  mov.u32 %r1, %ctaid.x;
  atom.global.add.u32 %r3, [%rd2], 1;
  mul.wide.u32 %rd4, %r3, 4;
  add.u64 %rd4, %rd3, %rd4;
  st.global.u32 [%rd4], %r1;
  ret;
}
"""


def _verify(tmp_path, capsys, text: str, *extra: str) -> tuple[int, dict]:
    f = tmp_path / "k.ptx"
    f.write_text(text)
    rc = main(["verify", str(f), *extra, "--json"])
    return rc, json.loads(capsys.readouterr().out)


def test_last_block_with_fences_is_verified_over_every_ticket_order(tmp_path, capsys):
    rc, d = _verify(tmp_path, capsys, LASTBLOCK.replace("FENCE", "fence.sc.gpu;"), *LASTBLOCK_ARGS)
    assert (rc, d["verdict"]) == (0, "verified"), d["reason"]
    assert d["stats"]["schedules"] == 6 and d["stats"]["rmw_ctas"] == [0, 1, 2]


def test_last_block_without_fences_is_a_race(tmp_path, capsys):
    rc, d = _verify(tmp_path, capsys, LASTBLOCK.replace("FENCE", ""), *LASTBLOCK_ARGS)
    assert (rc, d["verdict"]) == (1, "race")
    st, ld = sorted(x["line"] for x in d["race"])
    assert st == 17 and ld in (25, 26, 28)  # st part[c], one of the last CTA's ld part


def test_order_dependent_ticket_output_is_different_with_both_schedules(tmp_path, capsys):
    rc, d = _verify(tmp_path, capsys, TICKET, "--arg", "count=u32[1]:zeros", "--arg", "out=u32[2]:zeros",
                    "--grid", "2", "--block", "1")
    assert (rc, d["verdict"]) == (1, "different"), d["reason"]
    assert sorted(d["witness"]["schedules"]) == [[0, 1], [1, 0]]
    diff = d["difference"]
    assert diff["buffer"] == "out" and diff["index"] == 0
    # out[0] is the CTA whose RMW came first
    assert diff["values"] == [diff["schedules"][0][0], diff["schedules"][1][0]]


def test_the_schedule_bound_cuts_to_inconclusive(tmp_path, capsys):
    rc, d = _verify(tmp_path, capsys, LASTBLOCK.replace("FENCE", "fence.sc.gpu;"), *LASTBLOCK_ARGS,
                    "--max-schedules", "5")
    assert (rc, d["verdict"]) == (3, "inconclusive")
    assert "exceed --max-schedules 5" in d["reason"]


def test_jobs_spread_the_schedules_over_processes_with_the_same_verdict(tmp_path, capsys):
    rc, d = _verify(tmp_path, capsys, TICKET, "--arg", "count=u32[1]:zeros", "--arg", "out=u32[3]:zeros",
                    "--grid", "3", "--block", "1", "--jobs", "2")
    assert (rc, d["verdict"]) == (1, "different")
    rc, d = _verify(tmp_path, capsys, LASTBLOCK.replace("FENCE", "fence.sc.gpu;"), *LASTBLOCK_ARGS,
                    "--jobs", "2")
    assert (rc, d["verdict"]) == (0, "verified")


@pytest.mark.skipif(importlib.util.find_spec("ray") is not None, reason="ray is installed")
def test_ray_without_ray_installed_is_a_usage_error(tmp_path, capsys):
    f = tmp_path / "k.ptx"
    f.write_text(TICKET)
    rc = main(["verify", str(f), "--arg", "count=u32[1]:zeros", "--arg", "out=u32[2]:zeros", "--grid", "2",
               "--ray", "127.0.0.1:1"])
    err = capsys.readouterr().err
    assert rc == 2 and "ray" in err and "not installed" in err and "Traceback" not in err


def _ticket_run(order: tuple[int, ...] | None) -> list[int]:
    m = parse(TICKET, "k.ptx")
    args = parse_arg_specs(["count=u32[1]:zeros", "out=u32[3]:zeros"], select_entry(m, None), 0)
    r = run_kernel(m, None, args, 3, 1, cta_order=order)
    return [int(x) for x in np.asarray(r.buffers["out"])]


def test_cta_order_knob_decides_the_order_of_the_rmws():
    # out[t] = the CTA that drew ticket t: the CTAs draw in the order they take the slots
    assert _ticket_run(None) == [0, 1, 2]
    assert _ticket_run((2, 0, 1)) == [2, 0, 1]
    with pytest.raises(UsageError):
        _ticket_run((0, 0, 1))
