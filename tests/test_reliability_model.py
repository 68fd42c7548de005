"""Issue 9 / issue 12 regressions of the memory-model area: every verdict comes with the proof
obligations that establish it (checked by z3, whose encoding of the model is written independently
of the explorer's checker), every registered model exports, conditions name only what exists and
are evaluated without recursion limits, and the vocabulary (strong / release / acquire, the RMW
split) is one definition that the SMT twin shares."""

from __future__ import annotations

from argparse import Namespace

import pytest
from conftest import LITMUS_CORPUS, ROOT, needs_shared

from ptxkit.cli import main
from ptxkit.consistency import vocab
from ptxkit.consistency.events import ExecutionBuilder
from ptxkit.consistency.models import check
from ptxkit.consistency.registry import MODELS
from ptxkit.explore import condition as cf
from ptxkit.explore.engine import explore
from ptxkit.explore.kernel import program_from_ptx
from ptxkit.explore.program import Condition
from ptxkit.export.claims import to_obligations
from ptxkit.export.lean_reader import recheck
from ptxkit.export.obligations import from_execution
from ptxkit.export.smt import check_file, encode_execution
from ptxkit.litmus.parser import parse_formula, parse_litmus, parse_litmus_file

z3 = pytest.importorskip("z3")

MANUAL = LITMUS_CORPUS / "litmus" / "PTX" / "Manual"


def _smt_files(directory) -> tuple[list, list]:
    files = sorted(directory.rglob("*.smt2"))
    return [p for p in files if "_allowed" in p.name], [p for p in files if "_forbidden" in p.name]


def _z3_agrees(files) -> None:
    bad = []
    for p in files:
        expect, got, _ = check_file(p, timeout_ms=60000)
        if expect != got:
            bad.append(f"{p.name}: explore says {expect}, z3 says {got}")
    assert not bad, bad


def _lean_rechecks(directory) -> None:
    for path in directory.glob("*.lean"):
        wrong = [f"{r.claim.kind}_{r.claim.index}: {r.detail}" for r in recheck(path) if not r.ok]
        assert not wrong, wrong


# --------------------------------------------------------------------------- claims (issue 9)

@needs_shared
def test_cli_exports_every_forbidden_claim_of_sb_multifence(tmp_path, capsys):
    """SB+sc-gpu-multiFence (forall, Ok): 216 candidates, so the old cap of 8 candidates per
    outcome dropped every forbidden claim. The four register outcomes with neither read seeing 2
    are what `forall` excludes (ISA §8.10.2: the morally strong fence.sc pairs are ordered, so one
    thread's last write precedes the other thread's read); each must be claimed and proved."""
    rc = main(["explore", str(MANUAL / "SB+sc-gpu-multiFence.litmus"), "--smt", str(tmp_path / "smt"),
               "--lean", str(tmp_path / "lean")])
    assert rc == 0 and capsys.readouterr().out.rstrip().endswith("Ok")
    allowed, forbidden = _smt_files(tmp_path / "smt")
    assert len(allowed) == 5
    outcomes = {p.read_text().split("claim: outcome ")[1].split(" is forbidden")[0] for p in forbidden}
    assert outcomes == {f"P0:r1 == {a} /\\ P1:r2 == {b}" for a in (0, 1) for b in (0, 1)}
    _z3_agrees(allowed + forbidden)
    _lean_rechecks(tmp_path / "lean")


@needs_shared
def test_capped_candidate_lists_make_no_claim_and_say_why():
    res = explore(parse_litmus_file(MANUAL / "SB+sc-gpu-multiFence.litmus"), keep_candidates=8)
    assert res.complete and res.candidates_capped and res.keep_candidates == 8
    t = to_obligations(res)
    assert not [o for o in t.obligations if o.kind == "forbidden"]
    assert "at most 8 candidates" in t.unproven
    full = to_obligations(explore(parse_litmus_file(MANUAL / "SB+sc-gpu-multiFence.litmus"),
                                  keep_candidates=None))
    assert full.unproven == "" and len([o for o in full.obligations if o.kind == "forbidden"]) == 4


# Coherence (ISA §8.10.1): W x=1 po-before W x=2 in one thread, so x ends 2 in every execution
COWW_FORALL = """PTX CoWW-forall
{ x=0; }
 P0@cta 0,gpu 0          ;
 st.relaxed.gpu x, 1     ;
 st.relaxed.gpu x, 2     ;
forall (x == 2)
"""


def test_forall_over_final_memory_gets_its_forbidden_claims(tmp_path):
    """`forall (x == 2)` is Ok; what establishes it is that x ending 0 or 1 is forbidden — claims
    the old exporter never made for `forall` over final memory."""
    p = tmp_path / "coww.litmus"
    p.write_text(COWW_FORALL)
    assert main(["explore", str(p), "--smt", str(tmp_path / "smt")]) == 0
    allowed, forbidden = _smt_files(tmp_path / "smt")
    claims = sorted(f.read_text().split("claim: outcome ")[1].split(" is forbidden")[0] for f in forbidden)
    assert claims == ["x == 0", "x == 1"]
    _z3_agrees(allowed + forbidden)


def test_ptx_kernel_verdict_gets_forbidden_claims(tmp_path):
    """A .ptx kernel (release/acquire message passing, ISA §8.8): `--not-exists` the stale read is
    Ok; the old exporter made no forbidden claim for any kernel (buffer elements were never taken
    for locations)."""
    kernel = ROOT / "corpora" / "litmus" / "MP+rel-acq.ptx"
    header = next(ln for ln in kernel.read_text().splitlines() if ln.startswith("// explore: "))
    args = header.removeprefix("// explore: ").replace('"', "").split(" --not-exists ")
    rc = main(["explore", str(kernel), *args[0].split(), "--not-exists", args[1],
               "--smt", str(tmp_path / "smt"), "--lean", str(tmp_path / "lean")])
    assert rc == 0
    allowed, forbidden = _smt_files(tmp_path / "smt")
    assert forbidden and allowed
    text = forbidden[0].read_text()
    assert "out[0] == 1" in text and "out[1] == 0" in text
    _z3_agrees(allowed + forbidden)
    _lean_rechecks(tmp_path / "lean")


# --------------------------------------------------------------------------- one model registry

MP_SC = """PTX MP-fence-sc
{ x=0; y=0; P1:r1=0; P1:r2=0; }
 P0@cta 0,gpu 0         | P1@cta 1,gpu 0         ;
 st.weak x, 1           | ld.relaxed.gpu r1, y   ;
 fence.sc.gpu           | fence.sc.gpu           ;
 st.relaxed.gpu y, 1    | ld.weak r2, x          ;
~exists (P1:r1 == 1 /\\ P1:r2 == 0)
"""


@pytest.mark.parametrize("model", sorted(MODELS))
def test_every_registered_model_exports_and_z3_agrees(model, tmp_path, capsys):
    """`--model ptx-7.5-alloy --smt/--lean` exited 70: the exporters had their own model lists."""
    p = tmp_path / "mp.litmus"
    p.write_text(MP_SC)
    assert main(["explore", str(p), "--model", model, "--smt", str(tmp_path / "smt"),
                 "--lean", str(tmp_path / "lean")]) == 0
    allowed, forbidden = _smt_files(tmp_path / "smt")
    assert allowed and forbidden
    assert f"; model {model};" in forbidden[0].read_text()
    _z3_agrees(allowed + forbidden)
    lean = next((tmp_path / "lean").glob("*.lean")).read_text()
    assert f"valid {MODELS[model].ident} " in lean
    _lean_rechecks(tmp_path / "lean")


def test_lean_library_defines_every_registered_model():
    text = (ROOT / "lean" / "PtxModel" / "Model.lean").read_text()
    for m in MODELS.values():
        assert f"def {m.ident} : Model" in text, m.name


def test_smt_encodes_exactly_the_axioms_of_each_model():
    b = ExecutionBuilder()
    w = b.write(0, "x", 1, sem="release", scope="gpu")
    b.read(1, "x", sem="acquire", scope="gpu", rf=w)
    ox = from_execution(b.build())
    for m in MODELS.values():
        text = "\n".join(encode_execution(ox, m.name, free=False))
        assert [ln.removeprefix("; axiom ") for ln in text.splitlines() if ln.startswith("; axiom ")] == list(m.axioms)


# --------------------------------------------------------------------------- one vocabulary

def test_smt_treats_an_sc_write_as_a_release_like_the_checker():
    """ISA §8.8: release semantics on a write come from .release/.acq_rel — and the model's `sc`
    spelling, which the checker (and Lean) count as release. The SMT twin left `sc` out of its
    release and acquire tags, so it called this message passing consistent."""
    b = ExecutionBuilder()
    b.thread(0, cta=0).thread(1, cta=1)
    b.write(0, "x", 1)
    wy = b.write(0, "y", 1, sem="sc", scope="gpu")
    b.read(1, "y", sem="sc", scope="gpu", rf=wy)
    b.read(1, "x", rf="init")
    ex = b.build()
    assert not check(ex).consistent
    s = z3.Solver()
    s.from_string("\n".join(encode_execution(from_execution(ex), "ptx-7.5", free=False)))
    assert s.check() == z3.unsat


def test_one_rmw_split():
    """ISA §9.7.13.5 (atom .sem) / §8.8: acquire on the read half, release on the write half."""
    assert vocab.rmw_split("acq_rel") == (vocab.Sem.acquire, vocab.Sem.release)
    assert vocab.rmw_split("acquire") == ("acquire", "relaxed")
    assert vocab.rmw_split("release") == ("relaxed", "release")
    assert vocab.rmw_split("relaxed") == ("relaxed", "relaxed")
    assert vocab.rmw_split("sc") == ("acquire", "release")  # not an atom qualifier: read as acq_rel
    b = ExecutionBuilder()
    r, w = b.rmw(0, "x", 0, 1, sem="sc")
    ex = b.build()
    assert (ex.events[r].sem, ex.events[w].sem) == ("acquire", "release")
    # the explorer's oracle splits the same way: atom.sc in a litmus test gives the same events
    prog = parse_litmus("PTX t\n{ x=0; }\n P0@cta 0,gpu 0 ;\n atom.sc.gpu.add r0, x, 1 ;\nexists (x == 1)\n")
    res = explore(prog, keep_candidates=None)
    ev = next(iter(res.witnesses.values())).to_execution().events
    assert sorted((e.kind, str(e.sem)) for e in ev if not e.is_init) == [("R", "acquire"), ("W", "release")]


# --------------------------------------------------------------------------- names in conditions

def test_unknown_register_is_an_error_not_zero(lit_file, capsys):
    """`--forall 'P1:nosuch == 0'` said Ok: the missing register read as 0."""
    assert main(["explore", lit_file, "--forall", "P1:nosuch == 0"]) == 2
    err = capsys.readouterr().err
    assert "ptxkit explore: error:" in err and "'nosuch'" in err and "P1" in err


def test_unknown_location_in_the_file_is_located(tmp_path, capsys):
    p = tmp_path / "t.litmus"
    p.write_text(MP_SC.replace("~exists (P1:r1 == 1 /\\ P1:r2 == 0)", "exists (P1:r1 == 1 /\\ z == 0)"))
    assert main(["explore", str(p)]) == 2
    err = capsys.readouterr().err
    assert f"{p}:7:23: error: condition names unknown location 'z'" in err  # at the comparison


KERNEL = """.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<3>;
  .reg .b64 %rd<3>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd1, %rd1, %rd2;
  st.global.u32 [%rd1], %r1;
  ret;
}
"""


def test_kernel_registers_resolve(tmp_path, capsys):
    """`--exists 'P1:r1 == 1'` on a kernel answered No although thread 1's %r1 is 1: `r1` was read
    as a register of its own that never existed (value 0)."""
    k = tmp_path / "k.ptx"
    k.write_text(KERNEL)
    base = ["explore", str(k), "--threads", "2", "--arg", "out=u32[2]:zeros"]
    assert main([*base, "--exists", "P1:r1 == 1"]) == 0
    assert main([*base, "--exists", "P1:%r1 == 1 /\\ P0:%r1 == 0"]) == 0  # the kernel's own spelling
    assert main([*base, "--exists", "P1:r2 == 1"]) == 1          # declared by %r<3>, never written
    assert main([*base, "--exists", "P1:r7 == 1"]) == 2          # not declared
    assert main([*base, "--exists", "out[2] == 0"]) == 2         # out has 2 elements
    err = capsys.readouterr().err
    assert "register 'r7'" in err and "out[2]" in err


def test_kernel_register_spelled_as_declared(tmp_path):
    """`P1:%r1` (the kernel's own spelling) names the same register (built directly: the condition
    parser's tokens are front's)."""
    k = tmp_path / "k.ptx"
    k.write_text(KERNEL)
    prog = program_from_ptx(k, Namespace(threads=2, arg=["out=u32[2]:zeros"], grid="1", block="1",
                                         kernel=None, seed=0))
    for name in ("%r1", "r1"):
        cond = Condition("exists", cf.Cmp("==", cf.Reg(1, name), cf.Int(1)))
        res = explore(prog, condition=cond)
        assert res.verdict == "Ok" and res.keys == ["P1:%r1"], name


@pytest.fixture
def lit_file(tmp_path):
    p = tmp_path / "mp.litmus"
    p.write_text(MP_SC)
    return str(p)


# --------------------------------------------------------------------------- export paths

@pytest.mark.parametrize("opt", ["--dot", "--lean", "--smt"])
def test_export_to_a_file_or_bad_path_is_a_usage_error(opt, lit_file, tmp_path, capsys):
    """An export directory that is an existing file, or lies below one, exited 70 (a traceback)."""
    f = tmp_path / "plain"
    f.write_text("keep me")
    for target in (f, f / "sub"):
        assert main(["explore", lit_file, opt, str(target)]) == 2
        err = capsys.readouterr().err
        assert "ptxkit explore: error:" in err and str(f) in err and "Traceback" not in err
    assert f.read_text() == "keep me"


def test_exports_write_no_temporary_files(lit_file, tmp_path):
    for opt in ("--dot", "--lean", "--smt"):
        assert main(["explore", lit_file, opt, str(tmp_path / opt[2:])]) == 0
    names = [p.name for p in tmp_path.rglob("*") if p.is_file()]
    assert names and not [n for n in names if n.endswith(".tmp")]


# --------------------------------------------------------------------------- big conditions

def _deep(n: int) -> cf.Formula:
    f: cf.Formula = cf.Cmp("==", cf.Reg(1, "r1"), cf.Int(1))
    for i in range(n):
        f = cf.Not(f) if i % 2 else cf.Or((cf.Atom(False), f))
    return f


def test_formulas_1000_deep_and_1000_wide_evaluate_and_print():
    deep = _deep(1000)
    assert cf.evaluate(deep, {"P1:r1": 1}) is True  # 500 negations: even
    assert cf.render(deep).count("~") == 500
    wide = cf.from_tuple(_left_chain(1000))
    assert isinstance(wide, cf.And) and len(wide.args) == 1000
    assert cf.evaluate(wide, {"P1:r1": 1, "P1:r2": 0})
    assert len(cf.operands(wide)) == 1000


def _left_chain(n: int) -> tuple:
    """What the parser builds for `a /\\ b /\\ …` (left-nested tuples, n deep)."""
    t: tuple = ("cmp", "==", ("reg", 1, "r1"), ("int", 1))
    for i in range(n - 1):
        t = ("and", t, ("cmp", "<", ("reg", 1, "r2"), ("int", i + 1)))
    return t


def test_explore_with_a_1000_term_condition(lit_file, capsys):
    """RecursionError (exit 70) before: evaluation recursed once per term."""
    cond = " /\\ ".join(["P1:r2 != 5"] * 999 + ["P1:r1 == 1"])
    assert main(["explore", lit_file, "--exists", cond]) == 0
    deep = Condition("exists", _deep(1000))
    res = explore(parse_litmus(MP_SC, "mp.litmus"), condition=deep)
    assert res.verdict == "Ok"


def test_condition_text_round_trips():
    f = cf.from_tuple(parse_formula("~(P0:r1 == 1 /\\ x != 2) \\/ buf[3] >= -1 /\\ true"))
    again = cf.from_tuple(parse_formula(cf.render(f)))
    assert again == f


@needs_shared
def test_jobs_2_exports_the_same_claims(tmp_path, capsys):
    """--jobs 2 merges the workers' candidate lists: with every candidate kept, the claims (and their
    z3 answers) are those of a single-process run."""
    test = str(MANUAL / "SB+sc-gpu-multiFence.litmus")
    texts = []
    for jobs in ("1", "2"):
        assert main(["explore", test, "--jobs", jobs, "--smt", str(tmp_path / jobs)]) == 0
        allowed, forbidden = _smt_files(tmp_path / jobs)
        texts.append(sorted(p.read_text().split("claim: ")[1].splitlines()[0] for p in allowed + forbidden))
    assert texts[0] == texts[1] and len(texts[0]) == 9


def test_cli_says_when_obligations_are_incomplete(lit_file, tmp_path, capsys):
    """A cut search (Inconclusive) exports its witnesses but no forbidden claim — and says so."""
    assert main(["explore", lit_file, "--max-executions", "3", "--smt", str(tmp_path / "s")]) == 3
    out = capsys.readouterr().out
    assert "Obligations incomplete: the exploration was cut (--max-executions 3 reached)" in out
    assert not _smt_files(tmp_path / "s")[1]
