"""`ptxkit verify` when atomic RMW results steer the kernel (verify.schedules): every order of the RMWs
on the location is run and checked, on small hand-written kernels argued from the PTX ISA (§8 memory
model, §9.7.13.5 atom, §9.7.13.4 membar/fence)."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

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


# The last block on 2 CTAs where only CTA 0 fences before its ticket. In the simulator's own order
# (CTA 0's RMW first) CTA 1 is last: it reads part[0], released by CTA 0's fence.sc.gpu -> atom and
# acquired by its atom -> fence (ISA §8.8), and its own part[1] (program order): no race, so the
# observed run alone looks fine. When CTA 1's RMW comes first, CTA 0 is last and reads part[1], which
# CTA 1 stored (line 15) with no fence before its relaxed atom: nothing orders the store before CTA 0's
# load (line 27) — a race that only the other RMW order shows.
HALF_FENCED = HEAD + """.visible .entry k(.param .u64 part, .param .u64 count, .param .u64 out)
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
  st.global.u32 [%rd4], %r1;
  setp.ne.u32 %p2, %r1, 0;
  @%p2 bra TICKET;
  fence.sc.gpu;
TICKET:
  atom.global.add.u32 %r3, [%rd2], 1;
  mov.u32 %r4, %nctaid.x;
  sub.u32 %r4, %r4, 1;
  setp.ne.u32 %p1, %r3, %r4;
  @%p1 bra DONE;
  fence.sc.gpu;
  ld.global.u32 %r5, [%rd1];
  ld.global.u32 %r6, [%rd1+4];
  add.u32 %r5, %r5, %r6;
  st.global.u32 [%rd3], %r5;
DONE:
  ret;
}
"""


def test_race_only_in_another_rmw_order_is_found_and_replays(tmp_path, capsys):
    sched = tmp_path / "w.json"
    launch = ["--arg", "part=u32[2]:zeros", "--arg", "count=u32[1]:zeros", "--arg", "out=u32[1]:zeros",
              "--grid", "2", "--block", "1"]
    rc, d = _verify(tmp_path, capsys, HALF_FENCED, *launch, "--schedule", str(sched))
    assert (rc, d["verdict"]) == (1, "race"), d["reason"]
    assert d["stats"]["cta_order"] == [1, 0]
    assert sorted((x["line"], tuple(x["ctaid"])) for x in d["race"]) == [(15, (1, 0, 0)), (27, (0, 0, 0))]
    assert json.loads(sched.read_text())["cta_order"] == [1, 0]
    rc = main(["run", "--schedule", str(sched)])
    out = capsys.readouterr().out
    assert rc == 0 and out.count("replayed witness event") == 2


def test_jobs_workers_stop_quietly_under_the_cli(tmp_path):
    # the pool's workers are forked from the CLI, whose SIGTERM handler they must not keep: the pool's
    # shutdown would print a traceback per worker
    f = tmp_path / "k.ptx"
    f.write_text(LASTBLOCK.replace("FENCE", "fence.sc.gpu;"))
    p = subprocess.run([sys.executable, "-m", "ptxkit", "verify", str(f), *LASTBLOCK_ARGS, "--jobs", "2"],
                       capture_output=True, text=True, timeout=120,
                       env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])})
    assert p.returncode == 0 and ": verified:" in p.stdout
    assert p.stderr == ""


# Why every order of the RMWs is run, not one per "last CTA": here the CTAs that are not last also
# read part[0] after their ticket (atom -> fence.sc.gpu -> ld: an acquire pattern, ISA §8.8). A CTA
# whose RMW follows CTA 0's synchronizes with CTA 0's release (st part[0] -> fence -> atom, lines 15-17)
# and reads part[0] race-free; a CTA whose RMW precedes CTA 0's is not ordered after st part[0]: a race.
# The simulator's own order (0, 1, 2) and (1, 0, 2) have the same last CTA (2), but only the second
# races (CTA 1's ld part[0], line 29): the happens-before depends on the whole RMW order.
EARLY_READER = HEAD + """.visible .entry k(.param .u64 part, .param .u64 count, .param .u64 out)
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
  st.global.u32 [%rd4], %r1;
  fence.sc.gpu;
  atom.global.add.u32 %r3, [%rd2], 1;
  fence.sc.gpu;
  mov.u32 %r4, %nctaid.x;
  sub.u32 %r4, %r4, 1;
  setp.ne.u32 %p1, %r3, %r4;
  @%p1 bra NOTLAST;
  ld.global.u32 %r5, [%rd1+8];
  st.global.u32 [%rd3], %r5;
  bra DONE;
NOTLAST:
  setp.eq.u32 %p2, %r1, 0;
  @%p2 bra DONE;
  ld.global.u32 %r6, [%rd1];
  st.global.u32 [%rd3+4], %r6;
DONE:
  ret;
}
"""


def test_a_race_under_another_order_with_the_same_last_cta_is_found(tmp_path, capsys):
    rc, d = _verify(tmp_path, capsys, EARLY_READER, "--arg", "part=u32[3]:zeros", "--arg", "count=u32[1]:zeros",
                    "--arg", "out=u32[2]:zeros", "--grid", "3", "--block", "1")
    assert (rc, d["verdict"]) == (1, "race"), d["reason"]
    order = d["stats"]["cta_order"]
    assert order[2] == 2 and order.index(1) < order.index(0)  # last CTA 2, CTA 1 before CTA 0
    assert sorted((x["line"], tuple(x["ctaid"])) for x in d["race"]) == [(15, (0, 0, 0)), (29, (1, 0, 0))]
