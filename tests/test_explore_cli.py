"""`ptxkit explore` per docs/cli.md: herd-like text, JSON fields, exit 0 Ok / 1 No / 3 Inconclusive /
2 bad input, --exists/--not-exists/--forall overrides, --jobs, --dot."""

from __future__ import annotations

import json

import pytest

from ptxkit.cli import main

# Message passing with release/acquire in one CTA: the stale read is forbidden (ISA §8.8/§8.10.6:
# st.release y → ld.acquire y synchronizes, so W x=1 causes the read of x).
MP_RA = """PTX MP-rel-acq
{ x=0; y=0; P1:r1=0; P1:r2=0; }
 P0@cta 0,gpu 0         | P1@cta 0,gpu 0         ;
 st.weak x, 1           | ld.acquire.gpu r1, y   ;
 st.release.gpu y, 1    | ld.weak r2, x          ;
exists (P1:r1 == 1 /\\ P1:r2 == 0)
"""
# the same with relaxed accesses and no fences: the stale read is allowed
MP_RLX = MP_RA.replace("st.release.gpu", "st.relaxed.gpu").replace("ld.acquire.gpu", "ld.relaxed.gpu")


@pytest.fixture
def lit(tmp_path):
    def make(text, name="t.litmus"):
        p = tmp_path / name
        p.write_text(text)
        return str(p)
    return make


def test_text_output_and_exit_no(lit, capsys):
    assert main(["explore", lit(MP_RA)]) == 1
    out = capsys.readouterr().out
    assert out.startswith("Test MP-rel-acq (model ptx-7.5)")
    assert "States 3" in out and out.rstrip().endswith("No")
    assert "P1:r1=1; P1:r2=0;" not in out  # the forbidden state is not listed


def test_exit_ok_and_json(lit, capsys):
    assert main(["explore", lit(MP_RLX), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["verdict"] == "Ok" and data["complete"] is True
    states = {(o["values"]["P1:r1"], o["values"]["P1:r2"]) for o in data["outcomes"]}
    assert states == {(0, 0), (0, 1), (1, 0), (1, 1)}
    assert data["consistent"] <= data["candidates"] and data["positive"] == 1
    assert [o for o in data["outcomes"] if o["satisfies"]] == [
        {"values": {"P1:r1": 1, "P1:r2": 0}, "count": 1, "satisfies": True}]


# MP_RA's consistent executions, one per state (r1, r2): (0, 0), (0, 1), (1, 1) — (1, 0) is forbidden
# (above) — and x ends at 1 in all three. "pos" counts those satisfying the formula (herd's Positive).
@pytest.mark.parametrize("flag,cond,code,pos", [
    ("--not-exists", "P1:r1 == 1 /\\ P1:r2 == 0", 0, 0),
    ("--exists", "P1:r1 == 1 /\\ P1:r2 == 1", 0, 1),
    ("--forall", "P1:r1 == 0 \\/ P1:r2 == 1", 0, 3),
    ("--forall", "P1:r2 == 1", 1, 2),
    ("--exists", "x == 1", 0, 3),
    ("--exists", "x == 0", 1, 0),
])
def test_condition_overrides(lit, flag, cond, code, pos, capsys):
    assert main(["explore", lit(MP_RA), flag, cond]) == code
    out = capsys.readouterr().out
    quant = {"--not-exists": "~exists", "--exists": "exists", "--forall": "forall"}[flag]
    cline = next(line for line in out.splitlines() if line.startswith("Condition "))
    assert cline.startswith(f"Condition {quant} ") and cond in cline, cline
    assert "Candidates 4  Consistent 3" in out
    assert f"Witnesses Positive: {pos} Negative: {3 - pos}" in out
    assert out.rstrip().endswith({0: "Ok", 1: "No"}[code])


def test_v60_model_flag(lit, capsys):
    assert main(["explore", lit(MP_RA), "--model", "ptx-6.0", "--json"]) == 1
    assert json.loads(capsys.readouterr().out)["model"] == "ptx-6.0"


def test_inconclusive_exit_3(lit, capsys):
    assert main(["explore", lit(MP_RLX), "--max-executions", "1", "--json"]) == 3
    data = json.loads(capsys.readouterr().out)
    assert data["verdict"] == "Inconclusive" and data["complete"] is False


def test_jobs_give_the_same_answer(lit, capsys):
    assert main(["explore", lit(MP_RLX), "--json"]) == 0
    one = json.loads(capsys.readouterr().out)
    assert main(["explore", lit(MP_RLX), "--json", "--jobs", "2"]) == 0
    two = json.loads(capsys.readouterr().out)
    for k in ("verdict", "outcomes", "candidates", "consistent"):
        assert one[k] == two[k]
    # and the answer is the right one: relaxed MP allows all four (r1, r2) states
    assert two["verdict"] == "Ok" and two["complete"] is True
    assert {(o["values"]["P1:r1"], o["values"]["P1:r2"]) for o in two["outcomes"]} == {(0, 0), (0, 1), (1, 0), (1, 1)}


def test_dot_witnesses(lit, tmp_path, capsys):
    d = tmp_path / "dot"
    assert main(["explore", lit(MP_RA), "--dot", str(d)]) == 1
    files = sorted(p.name for p in d.glob("*.dot"))
    assert any("forbidden" in f for f in files) and sum("allowed" in f for f in files) == 3
    text = next(d.glob("*forbidden.dot")).read_text()
    # the shared writer (ptxkit.export.dot): verdict in the title, the violated axiom's edges in red
    assert text.startswith("digraph") and "forbidden: Causality" in text and "-> " in text
    assert '[Causality]", color="red"' in text


def test_bad_litmus_exits_2_with_position(lit, capsys):
    bad = MP_RA.replace("ld.weak r2, x", "ld.wek r2, x")
    path = lit(bad, "bad.litmus")
    assert main(["explore", path]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"{path}:5:27: error:") and "^" in err


@pytest.mark.parametrize("argv,needle", [
    (["--exists", "P7:r1 == 1"], "<condition>:1:1: error: no thread P7"),
    (["--exists", "P1:r1 =="], "<condition>:1:9: error: expected an operand"),
    (["--model", "ptx-9"], "invalid choice: 'ptx-9'"),
    (["--exists", "zz == 1"], "unknown location 'zz'"),
])
def test_usage_errors(lit, capsys, argv, needle):
    assert main(["explore", lit(MP_RA), *argv]) == 2
    out, err = capsys.readouterr()
    assert needle in err and out == ""
    assert "Traceback" not in err


def test_missing_file(capsys):
    assert main(["explore", "/nonexistent.litmus"]) == 2
    assert "no such file: /nonexistent.litmus" in capsys.readouterr().err
