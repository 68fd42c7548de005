"""Issue 9 reproducers for the explorer's engine (barrier schedules, zero executions, bounds, workers).

Each test fails on the code before the fix (a2e5b72); expected results are argued from the PTX ISA
(§9.7.13.1 bar/barrier, §8.9.4 synchronizes-with, §8.10 axioms) or counted by hand.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import LITMUS_CORPUS, ROOT, needs_shared

from ptxkit.cli import main
from ptxkit.consistency.enumerate import search_co
from ptxkit.consistency.events import ExecutionBuilder
from ptxkit.explore import schedule
from ptxkit.explore.engine import Explorer, explore
from ptxkit.explore.schedule import barrier_schedules
from ptxkit.explore.trace import Ev, Trace
from ptxkit.litmus.parser import parse_litmus, parse_litmus_file

# --------------------------------------------------------------------------- barrier schedules

W, R = "st.weak x{i}, 1", "ld.weak r0, x{i}"
BAR = "bar.cta.sync 1, 1, 2"


def _quorum_test() -> str:
    """4 writers (P0-P3: st x_i; bar) and 4 readers (P4-P7: bar; ld x_i), all at one barrier with
    quorum 2. Two readers can complete the barrier before any writer arrives; every later arrival
    passes at once (Dat3M's quorum semantics, Barrier/quorum2-pass), receiving only from the two
    that completed it — so no writer's arrival precedes any reader's release, no sw edge leads from a
    store to the load of the same x_i, and reading 0 everywhere violates no axiom (§8.10 Causality
    needs rf⁻¹;co or fr after a causality path). The outcome is reachable: exists → Ok."""
    cols = [[W.format(i=i), BAR] for i in range(4)] + [[BAR, R.format(i=i)] for i in range(4)]
    head = " | ".join(f"P{t}@cta 0,gpu 0" for t in range(8))
    rows = "\n".join(" " + " | ".join(c[k] for c in cols) + " ;" for k in range(2))
    cond = " /\\ ".join(f"P{t}:r0 == 0" for t in range(4, 8))
    return f"PTX quorum-4w4r\n{{ x0=0; x1=0; x2=0; x3=0; }}\n {head} ;\n{rows}\nexists ({cond})\n"


def test_quorum_barrier_outcome_is_found_not_capped():
    # before: 20,160 schedules silently cut at 10,000 gave a complete "No"
    res = explore(parse_litmus(_quorum_test(), "q.litmus"))
    assert res.complete, res.reason
    assert res.verdict == "Ok" and res.satisfied > 0


def _bars(spec: list[list[tuple]]) -> list[Ev]:
    """Barrier events: per thread a list of ``bar`` tuples (ids, count, mode[, warp])."""
    return [Ev("F", t, fkind="bar", bar=b) for t, bars in enumerate(spec) for b in bars]


def test_quorum_schedules_are_the_phase_compositions():
    # 8 threads, one arrival each at a quorum-2 barrier: a schedule is which pair completes the
    # phase (the others pass late, released by that completion): C(8, 2) = 28, not 8!/2
    got = barrier_schedules(_bars([[((1, 1), 2, "sync", None)]] * 8))
    assert got.complete and len(got.schedules) == 28
    for edges, _ in got.schedules:
        pair = {a for a, b in edges if (b, a) in edges}
        assert len(pair) == 2 and len(edges) == 2 + 2 * 6  # the pair both ways, each late one from both


def test_schedule_search_cut_is_inconclusive(monkeypatch):
    monkeypatch.setattr(schedule, "SCHEDULE_STATES", 5)
    res = explore(parse_litmus(_quorum_test(), "q.litmus"))
    assert res.verdict == "Inconclusive" and "barrier states" in res.reason


@pytest.mark.parametrize("warp", [None, 0])
def test_uncounted_barrier_is_linear_in_threads(warp):
    # 33 threads at one bar.sync without a count (before: 2^33 states or 33! paths, never finished)
    first = barrier_schedules(_bars([[((0,), None, "sync", warp)]] * 4))
    assert first.complete and first.states <= 2 * 4 + 2
    got = barrier_schedules(_bars([[((0,), None, "sync", warp)]] * 33))
    assert got.complete and len(got.schedules) == 1 and got.states <= 2 * 33 + 2
    (edges, inst), = got.schedules
    assert len(edges) == 33 * 32 and len(set(inst.values())) == 1  # one instance, all pairs


WARP_BAR = """.version 8.0
.target sm_70
.address_size 64

.visible .entry warpbar(.param .u64 p)
{
  .reg .u64 %rd<3>;
  .reg .u32 %r<4>;
  .reg .pred %p;
  ld.param.u64 %rd1, [p];
  mov.u32 %r1, %tid.x;
  setp.eq.u32 %p, %r1, 1;
  @%p st.global.u32 [%rd1], 1;
  bar.sync 0, COUNT;
  @%p bra DONE;
  ld.global.u32 %r2, [%rd1];
  st.global.u32 [%rd1+4], %r2;
DONE:
  ret;
}
"""


def _explore_cli(capsys, args: list[str]) -> tuple[int, dict]:
    rc = main(["explore", *args, "--json"])
    return rc, json.loads(capsys.readouterr().out)


def test_counted_barrier_waits_for_the_warp(tmp_path, capsys):
    # thread 1 stores p[0] before `bar.sync 0, 32`, thread 0 (same warp) loads it after. ISA
    # §9.7.13.1: the barrier "causes executing thread to wait for all non-exited threads from its
    # warp", so thread 0 leaves only after thread 1 arrived: the store precedes the load in
    # causality and the stale p[1] == 0 is forbidden (before: reachable).
    f = tmp_path / "warpbar.ptx"
    f.write_text(WARP_BAR.replace("COUNT", "32"))
    rc, out = _explore_cli(capsys, [str(f), "--threads", "2", "--arg", "p=u32[2]:zeros", "--exists", "p[1] == 0"])
    assert (rc, out["verdict"], out["complete"]) == (1, "No", True)
    assert [o["values"] for o in out["outcomes"]] == [{"p[1]": 1}]
    # one warp counts 32: `bar.sync 0, 64` needs a second warp that never comes — a deadlock
    f.write_text(WARP_BAR.replace("COUNT", "64"))
    rc, out = _explore_cli(capsys, [str(f), "--threads", "2", "--arg", "p=u32[2]:zeros", "--forall", "p[1] == 1"])
    assert (rc, out["verdict"]) == (4, "NoExecution") and "32 of 64 arrivals" in out["stuck"]


# --------------------------------------------------------------------------- zero executions

SPIN = """PTX spin-forever
{ x=0; f=0; }
 P0@cta 0,gpu 0        | P1@cta 0,gpu 0 ;
 LC00:                 | st.weak x, 1   ;
 ld.relaxed.gpu r0, f  |                ;
 beq r0, 0, LC00       |                ;
COND
"""

HANG = """PTX hang
{ x=0; }
 P0@cta 0,gpu 0       | P1@cta 0,gpu 0       ;
 st.weak x, 1         | bar.cta.sync 1, 1, 3 ;
 bar.cta.sync 1, 1, 3 | ld.weak r0, x        ;
COND
"""


@pytest.mark.parametrize("cond", ["exists (P0:r0 == 5)", "forall (P0:r0 == 5)", "~exists (P0:r0 == 5)"])
def test_no_terminating_execution_is_reported(cond):
    # nothing ever writes f = 1: every run of P0 spins forever; before: Ok/No from 0 executions
    res = explore(parse_litmus(SPIN.replace("COND", cond), "spin.litmus"))
    assert res.complete and res.consistent == 0
    assert res.verdict == "NoExecution"
    assert "P0 never terminates" in res.stuck and "LC00 (line 6)" in res.stuck


@pytest.mark.parametrize("cond", ["exists (P1:r0 == 0)", "forall (P1:r0 == 0)"])
def test_barrier_deadlock_is_reported_with_a_witness(cond, tmp_path, capsys):
    # quorum 3 with two threads: the barrier never completes (ISA: a sync waits for the count)
    f = tmp_path / "hang.litmus"
    f.write_text(HANG.replace("COND", cond))
    rc = main(["explore", str(f)])
    out = capsys.readouterr().out
    assert rc == 4 and out.rstrip().endswith("NoExecution")
    assert "No executions: every barrier schedule deadlocks" in out
    assert "P0 waits at bar.cta.sync 1, 1, 3 (line 5): 2 of 3 arrivals" in out


# --------------------------------------------------------------------------- bounds

@needs_shared
def test_max_executions_equal_to_the_candidates_is_complete():
    prog = LITMUS_CORPUS / "litmus/PTX/Manual/SB+sc-gpu.litmus"
    full = explore(parse_litmus_file(prog))
    n = full.candidates
    assert full.complete and n == 8
    res = explore(parse_litmus_file(prog), max_executions=n)  # before: Inconclusive
    assert res.complete and res.verdict == full.verdict
    res = explore(parse_litmus_file(prog), max_executions=n - 1)
    assert res.verdict == "Inconclusive" and "--max-executions" in res.reason and res.candidates == n - 1


def _heavy() -> str:
    """8 threads racing on x and y: many trace combinations and rf choices."""
    cols = [[f"st.relaxed.gpu x, {t + 1}", "ld.relaxed.gpu r0, x", f"st.relaxed.gpu y, {t + 1}",
             "ld.relaxed.gpu r1, y"] for t in range(8)]
    head = " | ".join(f"P{t}@cta 0,gpu 0" for t in range(8))
    rows = "\n".join(" " + " | ".join(c[k] for c in cols) + " ;" for k in range(4))
    return f"PTX heavy\n{{ x=0; y=0; }}\n {head} ;\n{rows}\nexists (P0:r0 == 0)\n"


def test_deadline_is_polled_before_any_candidate():
    # a deadline already passed stops every phase at its first poll: no candidate is built
    # (before: the first trace combination's whole rf search ran before the clock was read)
    res = explore(parse_litmus(_heavy(), "heavy.litmus"), timeout=0.0)
    assert res.verdict == "Inconclusive" and "timeout" in res.reason
    assert res.candidates == 0
    got = barrier_schedules(_bars([[((1, 1), 2, "sync", None)]] * 8), deadline=0.0)
    assert not got.complete and "timeout" in got.reason


def test_coherence_search_polls():
    b = ExecutionBuilder()
    b.write(0, "x", 1)
    b.write(1, "x", 2)

    class Stop(Exception):
        pass

    def poll():
        raise Stop

    with pytest.raises(Stop):
        next(search_co(b.build(), poll=poll))


def test_thousands_of_threads_do_not_recurse():
    # one trace per thread: the trace combinations are walked without recursion (before: a
    # RecursionError, exit 70, at --threads 1024)
    prog = parse_litmus(SPIN.replace("COND", "exists (P0:r0 == 0)"), "s.litmus")
    per_thread = [[Trace(t, (), {})] for t in range(3000)]
    combos = list(Explorer(prog).combinations(per_thread))
    assert len(combos) == 1 and len(combos[0]) == 3000


BAR_N = """.version 8.0
.target sm_70
.address_size 64

.visible .entry barn(.param .u64 p)
{
  .reg .u64 %rd<4>;
  .reg .u32 %r<4>;
  ld.param.u64 %rd1, [p];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd2, %r1, 4;
  add.u64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r1;
  bar.sync 0;
  mov.u32 %r2, %nwarpid;
  st.global.u32 [%rd3], %r2;
  ret;
}
"""


def test_thread_counts_and_memory_are_checked(tmp_path, capsys):
    f = tmp_path / "barn.ptx"
    f.write_text(BAR_N)
    # over the hardware's 1024 threads per CTA (before: 6 GB of memory)
    assert main(["explore", str(f), "--threads", "100000", "--arg", "p=u32[4]:zeros"]) == 2
    assert "one CTA holds at most 1024 threads" in capsys.readouterr().err
    # a million buffer elements are a million locations: refused up front (before: 1.4 GB)
    assert main(["explore", str(f), "--threads", "2", "--arg", "p=u32[1000000]:zeros"]) == 2
    assert "over the memory budget" in capsys.readouterr().err


def test_block_explores_and_nwarpid_is_the_sm_constant(tmp_path, capsys):
    # 33 threads (two warps) at one bar.sync: explored at once (before: never finished); %nwarpid
    # is the SM's number of warp ids (ISA §10, ptxkit.exec_sim.limits.NWARPID = 64), as in `run`
    f = tmp_path / "barn.ptx"
    f.write_text(BAR_N)
    rc, out = _explore_cli(capsys, [str(f), "--threads", "33", "--arg", "p=u32[33]:zeros"])
    assert rc == 0 and out["complete"]
    assert [set(o["values"].values()) for o in out["outcomes"]] == [{64}]


# --------------------------------------------------------------------------- results

def test_jobs_agree_with_one_process():
    prog = parse_litmus(_quorum_test(), "q.litmus")
    one, two = explore(prog), Explorer(prog).run(jobs=2)
    assert (two.verdict, two.candidates, two.consistent, two.outcomes) == \
        (one.verdict, one.candidates, one.consistent, one.outcomes)


def _ignores_sigint(pid: int) -> bool:
    """Whether process ``pid`` ignores SIGINT (its ``SigIgn`` mask in /proc)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    ign = next((ln.split()[1] for ln in status.splitlines() if ln.startswith("SigIgn:")), "0")
    return bool(int(ign, 16) & (1 << (signal.SIGINT - 1)))


def test_ctrl_c_with_workers_prints_one_line(tmp_path):
    f = tmp_path / "heavy.litmus"
    f.write_text(_heavy())
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    # a terminal's Ctrl-C reaches a process whose SIGINT is not ignored; a suite started in the background of
    # a non-interactive shell (`make test &`) passes SIG_IGN down to every child: restore the default here
    p = subprocess.Popen([sys.executable, "-m", "ptxkit", "explore", str(f), "--jobs", "2", "--timeout", "120"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=tmp_path,
                         start_new_session=True, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    children = Path(f"/proc/{p.pid}/task/{p.pid}/children")
    for _ in range(600):  # until both workers run and ignore SIGINT (a terminal's Ctrl-C reaches the whole
        # group; a worker forked but not yet past its initializer would die of it, which is not the case here)
        kids = children.read_text().split() if children.exists() else []
        if len(kids) >= 2 and all(_ignores_sigint(int(k)) for k in kids):
            break
        time.sleep(0.1)
    time.sleep(0.5)
    os.killpg(p.pid, signal.SIGINT)
    _, err = p.communicate(timeout=120)
    assert p.returncode == 130
    assert err.decode().splitlines() == ["ptxkit explore: interrupted"]


def test_thousands_of_observed_elements_stay_within_the_timeout():
    """A .ptx kernel explored without a condition observes every buffer element: each one is a
    location with an initial write. Same-scope, initial coherence and final values were built by
    pairwise scans that never looked at the deadline (`out=u32[10000]` with `--timeout 10` ran past
    two minutes); they are grouped by key now, and the run ends inside its bound: complete with the
    corpus test's outcome (a few seconds here), or Inconclusive (exit 3) on a very slow machine."""
    cmd = [sys.executable, "-m", "ptxkit", "explore", str(ROOT / "corpora" / "litmus" / "MP+relaxed.ptx"),
           "--threads", "2", "--arg", "mem=u32[2]:zeros", "--arg", "out=u32[10000]:zeros",
           "--timeout", "20", "--json"]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=60, cwd=ROOT,
                       env=dict(os.environ, PYTHONPATH=str(ROOT)))
    res = json.loads(r.stdout)
    assert (r.returncode, res["complete"]) in ((0, True), (3, False)), (r.returncode, r.stderr[-500:])
