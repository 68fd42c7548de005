"""Export file naming (issue 6): ``explore --lean DIR`` / ``--smt DIR`` name each test's files after
its source file, not after the test name written inside it — Dat3M has files that share a test name
(IRIW2 / IRIW_gl_cta, IRRWIW3 / IRRWIW4, …), and exporting a corpus into one directory must not
overwrite any. The colliding pairs are found from the corpus itself, not listed here."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import replace
from pathlib import Path

import pytest
from conftest import LITMUS_CORPUS

from ptxkit.export.lean import LEAN_KEYWORDS, module_name, write_lean
from ptxkit.export.obligations import TestObligations, identifier
from ptxkit.export.smt import queries, write_smt

PTX_DIR = LITMUS_CORPUS / "litmus" / "PTX"


def _tests() -> list[Path]:
    return sorted(PTX_DIR.rglob("*.litmus")) if PTX_DIR.is_dir() else []


def _name_clashes() -> list[list[Path]]:
    """Groups of Dat3M files whose test names (the name on the first line) sanitise alike."""
    from ptxkit.litmus.parser import parse_litmus_file

    by_name: dict[str, list[Path]] = defaultdict(list)
    for p in _tests():
        by_name[identifier(parse_litmus_file(p).name or p.stem)].append(p)
    return [g for g in by_name.values() if len(g) > 1]


def test_colliding_test_names_export_to_distinct_files(tmp_path, capsys):
    """Through the CLI, every file of every clashing group into one --lean and one --smt directory."""
    from ptxkit.cli import main
    from ptxkit.litmus.parser import parse_litmus_file

    if not PTX_DIR.is_dir():
        pytest.skip("no ../shared litmus corpus")
    groups = _name_clashes()
    assert len(groups) >= 4, groups  # IRIW2 / IRIW_gl_cta and the rest (issue 6)
    files = [p for g in groups for p in g]
    lean, smt = tmp_path / "lean", tmp_path / "smt"
    for p in files:
        main(["explore", str(p), "--lean", str(lean), "--smt", str(smt), "--json", "--timeout", "30"])
        capsys.readouterr()
    written = sorted(q.name for q in lean.glob("*.lean"))
    assert written == sorted(f"{identifier(p.stem)}.lean" for p in files)
    assert len({q.name for q in smt.iterdir()}) == len(files)
    for p in files:
        text = (lean / f"{identifier(p.stem)}.lean").read_text()
        # the test's own name stays in the docstring; the namespace is the module (file) name
        assert f"# Proof obligations for `{parse_litmus_file(p).name}` ({p})" in text
        assert f"\nnamespace Obligations.{identifier(p.stem)}\n" in text
        smt_files = list((smt / identifier(p.stem)).glob("*.smt2"))
        assert smt_files and all(q.name.startswith(identifier(p.stem) + "_o") for q in smt_files)
        assert f"; ptxkit proof obligation for {parse_litmus_file(p).name} ({p})" in smt_files[0].read_text()


@pytest.mark.parametrize("stem,want", [("IRIW2", "IRIW2"), ("MP+fence.sc-gpu", "MP_fence_sc_gpu"),
                                       ("2+2W", "t_2_2W"), ("end", "t_end"), ("Type", "t_Type"),
                                       ("extends", "t_extends"), ("sorry", "t_sorry"),
                                       ("termination_by", "t_termination_by"), ("End", "End")])
def test_module_name_is_the_sanitised_stem(stem, want):
    t = TestObligations("shared name", "ptx-7.5", f"dir/{stem}.litmus", stem=stem)
    assert module_name(t) == t.ident == want
    assert replace(t, stem="").ident == "shared_name"  # no source file: the test name


def test_one_keyword_list_decides():
    """lean.py's keyword list and the sanitiser's are the same object, and every keyword is guarded."""
    from ptxkit.export import obligations

    assert LEAN_KEYWORDS is obligations._RESERVED
    assert all(identifier(k) == "t_" + k for k in LEAN_KEYWORDS)


@pytest.mark.slow
def test_whole_dat3m_corpus_exports_into_one_directory(tmp_path):
    """Every Dat3M test (short exploration bound) into ONE --lean and ONE --smt directory: as many
    Lean files and SMT directories as tests, and every SMT query file kept (about 20 s here)."""
    from ptxkit.explore.engine import explore
    from ptxkit.export.claims import to_obligations
    from ptxkit.litmus.parser import parse_litmus_file

    tests = _tests()
    if not tests:
        pytest.skip("no ../shared litmus corpus")
    assert len(tests) > 100
    lean, smt = tmp_path / "lean", tmp_path / "smt"
    nqueries = 0
    for p in tests:
        res = explore(parse_litmus_file(p), "ptx-7.5", keep_candidates=None, timeout=10)
        t = to_obligations(res)
        write_lean(t, lean)
        write_smt(t, smt)
        nqueries += len(queries(t))
    assert len(list(lean.glob("*.lean"))) == len(tests)
    assert len([d for d in smt.iterdir() if d.is_dir()]) == len(tests)
    assert len(list(smt.glob("*/*.smt2"))) == nqueries
