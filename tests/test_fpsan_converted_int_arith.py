"""Float ops on integer conversions that LLVM did in the integers (ptxkit.fpsan.fold_converted_int_arith; held-out
seed 129582, silent at first contact). Reference: Triton 3.9's own FPSan build of the same kernels
(tests/data/triton_libdevice, make_pairs.py), run on the simulator."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import numpy as np
import pytest

from ptxkit.fpsan_ptx import sanitize_text
from tests.test_fpsan_libdevice import DATA, SPECS, _assert_bit_exact, _assert_ptxas_accepts, _compare

_FOLDED = ["seed129582", "k_add_of_int_conversions_f64", "k_sub_const_of_int_conversion_f64",
           "k_narrowed_add_of_int_conversions_f32", "k_narrowed_sub_of_int_conversions_bf16"]


@pytest.mark.parametrize("name", [*_FOLDED, "k_int_add_converted_f64"])
def test_replayed_as_tritons_ring_op(name):
    """``sitofp(a) + sitofp(b)`` as ``sitofp(a + b)`` (a sum's combine, a constant's ``add a, -3``, nested, and
    narrowed at the cast): bit-exact with Triton's build; the source's own integer sum stays converted natively."""
    _assert_bit_exact(name, folds=())


@pytest.mark.parametrize("name", _FOLDED)
def test_the_plain_conversion_differs_from_tritons(name):
    """Without the source the integer op is converted as written, which is not Triton's ring op: the replay is
    what makes the pair exact (these kernels need it)."""
    ours, theirs, _ = _compare(name, mutate=lambda t: t.replace(".file", "// .file"), folds=())
    assert np.any(ours != theirs)


def _sanitized_with_source(name: str, root: Path):
    """``sanitize`` of the pair's plain PTX with its kernel.py where the ``.file`` directive's name finds it."""
    plain = (DATA / f"{name}.plain.ptx").read_text()
    where = re.search(r'^\s*\.file\s+1\s+"([^"]+)"', plain, re.M)
    assert where is not None
    src = root / Path(where.group(1)).parent.name / Path(where.group(1)).name
    src.parent.mkdir(parents=True)
    src.write_text(SPECS[name].source)
    return sanitize_text(plain, f"{name}.plain.ptx", source_root=str(root))


def test_replay_is_a_note_naming_the_source_op(tmp_path):
    res = _sanitized_with_source("k_sub_const_of_int_conversion_f64", tmp_path)
    notes = [i for i in res.report.items if "integer arithmetic where the source" in i.reason]
    assert notes and all(i.severity == "note" and "- 3.0" in i.reason for i in notes)
    assert not res.report.errors


@pytest.mark.skipif(shutil.which("ptxas") is None, reason="ptxas not installed")
@pytest.mark.parametrize("name", ["seed129582", "k_narrowed_sub_of_int_conversions_bf16"])
def test_replay_is_accepted_by_ptxas(name, tmp_path):
    res = _sanitized_with_source(name, tmp_path / "root")
    assert any("integer arithmetic where the source" in i.reason for i in res.report.items)
    _assert_ptxas_accepts(res.text, tmp_path)
