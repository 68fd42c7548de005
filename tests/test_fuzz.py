"""Issue 9, "Done means": the CLI contract of docs/cli.md under fuzzing.

Seeded mutants of the PTX corpora (parse, sanitize, run) and of the litmus corpora (explore,
litmus2ptx), and ~190 hostile invocations (bad flags, --arg specs, paths), each run through
``ptxkit.cli.main`` in a forked child (the semantics of a fresh process: its own fds, exit status,
process group, address-space and file-size limits; see tests/fuzzing/runner.py). The oracle
(tests/fuzzing/oracle.py): no traceback, no exit 70, no run past its per-input timeout, ``explore
--timeout S`` within 10 %, stderr ≤ 1 MB, every exit 2 is ``FILE:LINE:COL: error:`` at a real line
and column of FILE (the echoed line is that line) or a location-less ``ptxkit VERB: error:``; and
no false rejection (a mutant ptxas accepts that ``ptxkit parse`` rejects).

Tiers: the default tier runs the hostile invocations (the heavy ones are slow) and a small mutant
sample; ``pytest -m slow tests/test_fuzz.py`` runs 2,000 PTX and 500 litmus mutants. The campaign with
its counts: ``python -m tests.fuzzing --ptx 2000 --litmus 500 --json out.json``.

Classes still open are ``xfail(strict=True)``: they turn red when fixed, so remove the mark then.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator

import pytest
from conftest import needs_ptxas, needs_shared
from fuzzing.campaign import Summary, campaign, case_by_id, hostile_case, hostile_count, ids, run_case
from fuzzing.corpus import BUNDLED
from fuzzing.oracle import Finding, judge
from fuzzing.runner import Outcome, run_cli

# ---- the harness itself: it must see what it is meant to see ------------------------------------


def _outcome(argv: list[str], rc: int | None, err: str, *, wall: float = 0.1, timed_out: bool = False,
             sig: int | None = None, size: int | None = None) -> Outcome:
    data = err.encode()
    return Outcome(argv, rc, sig, timed_out, wall, 1000, b"", data, 0, len(data) if size is None else size)


def _kinds(found: list[Finding]) -> set[str]:
    return {f.kind for f in found}


def test_oracle_accepts_a_located_error_at_a_real_line(tmp_path):
    (tmp_path / "m.ptx").write_text(".version 8.0\n\tbogus;\n")
    err = "m.ptx:2:2: error: unknown instruction 'bogus'\n\tbogus;\n ^\n"
    assert judge(_outcome(["parse", "m.ptx"], 2, err.replace("\t", " ")), cwd=tmp_path) == []
    assert judge(_outcome(["parse", "m.ptx"], 2, "ptxkit parse: error: --emit takes exactly one FILE\n")) == []


@pytest.mark.parametrize("err, why", [
    ("m.ptx:0:0: error: cannot read\n", "line outside"),
    ("m.ptx:4:1: error: x\n", "line outside"),  # line 3 is the empty end-of-file line
    ("m.ptx:2:9: error: x\n", "column outside"),
    ("m.ptx:1:1: error: x\n.target sm_80\n^\n", "echoed line"),
    ("ptxkit: error: no such file\n", "names no verb"),
    ("ptxkit run: error: wrong verb\n", "names run"),
    ("something went wrong\n", "no 'FILE:LINE:COL"),
    ("dir:1:1: error: is a directory\n", "not a readable file"),
])
def test_oracle_rejects_bad_locations(tmp_path, err, why):
    (tmp_path / "m.ptx").write_text(".version 8.0\n\tret;\n")
    (tmp_path / "dir").mkdir()
    found = judge(_outcome(["parse", "m.ptx"], 2, err), cwd=tmp_path)
    assert [f.kind for f in found] == ["bad-location"] and why in found[0].detail


def test_oracle_sees_tracebacks_exit70_hangs_overruns_and_floods():
    tb = "Traceback (most recent call last):\n  File \"x\", line 1\nRecursionError: deep\n"
    assert _kinds(judge(_outcome(["parse", "m.ptx"], 1, tb))) == {"traceback"}
    assert "exit70" in _kinds(judge(_outcome(["run", "k.ptx"], 70, "ptxkit: internal error: OverflowError: x")))
    assert _kinds(judge(_outcome(["run", "k.ptx"], None, "", timed_out=True, wall=30))) == {"hang"}
    over = judge(_outcome(["explore", "t.litmus"], 3, "", wall=2.5), explore_timeout=2.0)
    assert _kinds(over) == {"timeout-overrun"}
    assert judge(_outcome(["explore", "t.litmus"], 3, "", wall=2.1), explore_timeout=2.0) == []
    flood = judge(_outcome(["parse", "m.ptx"], None, "", sig=signal.SIGXFSZ, size=16 << 20))
    assert _kinds(flood) == {"stderr-overrun"}
    assert _kinds(judge(_outcome(["parse", "m.ptx"], 1, ""))) == {"crash"}  # parse never exits 1
    assert _kinds(judge(_outcome(["parse", "m.ptx"], 0, ""), expect={2})) == {"unexpected-exit"}


def test_fork_runner_matches_a_real_process(tmp_path):
    """The forked in-process run and ``python -m ptxkit`` agree on exit status, stdout and stderr."""
    (tmp_path / "m.ptx").write_bytes(b".version 8.0\n.target sm_80\n.address_size 64\n.entry k()\n{\n\tbogus;\n}\n")
    for argv in (["parse", "--json", "m.ptx"], ["sanitize", "nosuch.ptx"]):
        forked = run_cli(argv, cwd=tmp_path)
        real = run_cli(argv, cwd=tmp_path, use_subprocess=True)
        assert (forked.rc, forked.stdout, forked.stderr) == (real.rc, real.stdout, real.stderr), argv


def test_fork_runner_kills_at_the_timeout_and_reports_a_hang(tmp_path):
    (tmp_path / "z.litmus").write_bytes(b"")
    out = run_cli(["parse", "/dev/zero"], timeout=0.5, cwd=tmp_path, memory_limit=0)
    assert out.timed_out or out.rc is not None  # either it refused /dev/zero quickly, or we killed it
    if out.timed_out:
        assert 0.5 <= out.wall < 5 and _kinds(judge(out)) == {"hang"}


# ---- hostile invocations -----------------------------------------------------------------------

#: Hostile cases that are heavy by nature (they probe a memory or time bound): slow tier only.
HEAVY_EXACT = ("ptxkit run loop.ptx",)  # the default step limit: minutes of simulation
HEAVY = ("/dev/zero", "--threads 100000", "u32[1000000]", "--grid 2147483648", "[10000000000]",
         "--shared 1000000000000", "--threads 1024")

#: Open classes at the last fuzz run against main (owner per PLAN.md; /work/coord/findings.md has
#: the reproducers). Keyed by the case's label. Remove an entry when its case passes (strict xfail).
OPEN: dict[str, str] = {}


def _hostile_params() -> Iterator:
    for i in range(hostile_count()):
        case = hostile_case(i)
        cmd = case.command()
        marks = []
        if any(h in cmd for h in HEAVY) or cmd in HEAVY_EXACT:
            marks.append(pytest.mark.slow)
        if case.label() in OPEN:
            marks.append(pytest.mark.xfail(strict=True, reason=OPEN[case.label()]))
        yield pytest.param(i, id=case.label()[7:], marks=marks)


def test_open_classes_name_real_cases():
    labels = {hostile_case(i).label() for i in range(hostile_count())}
    assert set(OPEN) <= labels, set(OPEN) - labels


@pytest.mark.parametrize("index", list(_hostile_params()))
def test_hostile_invocation(index):
    r = run_case(hostile_case(index), check_ptxas=False)
    assert not r.findings, f"{r.case.command()}: {r.findings}\n{r.outcome.stderr_text[:800]}"


def test_explore_jobs_workers_print_no_traceback():
    """``explore --jobs 2`` on a plain corpus litmus kernel, 8 times: a worker traceback is intermittent."""
    argv = ["explore", str(BUNDLED / "litmus" / "SB+fence.sc.cta-2ctas.ptx"), "--threads", "2", "--grid", "2",
            "--block", "1", "--arg", "mem=u32[2]:zeros", "--arg", "out=u32[2]:zeros", "--jobs", "2",
            "--timeout", "5"]
    for _ in range(8):
        out = run_cli(argv, timeout=30)
        assert out.rc in (0, 1, 3) and "Traceback" not in out.stderr_text, out.stderr_text[-600:]


#: Mutants the campaigns found, fixed since: each must keep the contract (case ids are stable for the
#: same corpora: ``python -m tests.fuzzing --case ID --keep DIR`` replays one).
FIXED_CASES: dict[str, str] = {
    "ptx:261": "equiv located a decoder error at the sanitized line (+3)",
    "ptx:742": "run --sanitize located a decoder error at the sanitized line",
    "ptx:1843": "run --sanitize located a decoder error at line 74 of a 55-line file",
    "litmus:304": "explore .ptx: 'unknown register' at line 31 echoed line 30",
    "litmus:308": "explore --timeout 2 took ~4-6 s (trace dedup did not poll the deadline)",
}
#: Mutants that still break it: xfail(strict) until fixed (none at the last campaign).
OPEN_CASES: dict[str, str] = {}


@needs_shared
@pytest.mark.parametrize("case_id", [*FIXED_CASES, *(pytest.param(c, marks=pytest.mark.xfail(strict=True, reason=r))
                                                    for c, r in OPEN_CASES.items())])
def test_found_mutant(case_id):
    r = run_case(case_by_id(case_id), check_ptxas=False)
    assert not r.findings, f"{r.case.command()[:300]}: {r.findings}\n{r.outcome.stderr_text[:600]}"


# ---- mutants: a sample in the default tier, the campaign in the slow tier --------------------------

SAMPLE_PTX, SAMPLE_LITMUS = 30, 12
SLOW_PTX, SLOW_LITMUS = 2000, 500

KINDS = ["traceback", "exit70", "hang", "timeout-overrun", "stderr-overrun", "bad-location", "crash",
         "ptxas-rejects-output"]
#: Kinds the default-tier sample still finds on main (owner and class; see /work/coord/findings.md).
OPEN_SAMPLE: dict[str, str] = {}
OPEN_SLOW: dict[str, str] = {}


@pytest.fixture(scope="module")
def sample() -> Summary:
    return campaign(ids(SAMPLE_PTX, SAMPLE_LITMUS, hostile_all=False), check_ptxas=False)


def _slow_selected(config: pytest.Config) -> bool:
    expr = config.getoption("markexpr", "") or ""
    return bool(os.environ.get("PTXKIT_FUZZ_SLOW")) or ("slow" in expr and "not slow" not in expr)


@pytest.fixture(scope="module")
def slow_campaign(request) -> Summary:
    if not _slow_selected(request.config):
        pytest.skip("the fuzz campaign runs with `pytest -m slow` (or PTXKIT_FUZZ_SLOW=1)")
    return campaign(ids(SLOW_PTX, SLOW_LITMUS, hostile_all=False))


def _report(s: Summary, kind: str) -> str:
    lines = [f"{s.kinds[kind]} {kind} findings in {sum(s.inputs.values())} inputs:"]
    for key, results in s.classes.items():
        if key.startswith(kind + " "):
            r = results[0]
            lines.append(f"  {len(results)} x {key}\n     e.g. {r.case.id} seed {r.case.seed} ops {r.case.ops}: "
                         f"{r.case.command()[:160]}\n     {r.outcome.stderr_text[:200]!r}")
    return "\n".join(lines)


def _kind_params(open_kinds: dict[str, str]) -> list:
    return [pytest.param(k, marks=[pytest.mark.xfail(strict=True, reason=open_kinds[k])] if k in open_kinds else [])
            for k in KINDS]


@pytest.mark.parametrize("kind", _kind_params(OPEN_SAMPLE))
def test_mutant_sample(sample, kind):
    assert sample.inputs["ptx"] == SAMPLE_PTX and sample.inputs["litmus"] == SAMPLE_LITMUS
    assert sample.kinds[kind] == 0, _report(sample, kind)


@pytest.mark.slow
@pytest.mark.parametrize("kind", _kind_params(OPEN_SLOW))
def test_mutant_campaign(slow_campaign, kind):
    assert slow_campaign.inputs["ptx"] == SLOW_PTX and slow_campaign.inputs["litmus"] == SLOW_LITMUS
    assert slow_campaign.kinds[kind] == 0, _report(slow_campaign, kind)


@pytest.mark.slow
@needs_ptxas
def test_mutant_campaign_false_rejections(slow_campaign):
    """A mutant that ptxas accepts (for its own .target) must parse."""
    assert slow_campaign.ptxas_checked > 0
    bad = slow_campaign.false_rejections
    assert not bad, "\n".join(f"{r.case.id} seed {r.case.seed} ops {r.case.ops}: {r.outcome.stderr_text[:200]!r}"
                              for r in bad[:20])
