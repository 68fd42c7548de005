"""Math calls LLVM folded away with a constant argument (``ptxkit.fpsan.folded_calls``; issue 10, held-out seed 213301,
silent at first contact): ``pow(y, 0.0 * x.to(int64).to(f32)) * z`` is ``z`` in the plain PTX — the exponent is ±0 to
LLVM, pow of it 1.0, the product gone — where Triton's FPSan computes the exponent in the ring and pow as its ring op.
Nothing is left at the call's location, so the source says it: reported."""

from __future__ import annotations

import pytest

from tests.test_fpsan_folds import _run
from tests.test_fpsan_libdevice import _compare
from tests.test_fpsan_source_hints import _with_source

FOLDED = "left no instruction: its argument"


@pytest.mark.parametrize("expr,reported", [
    ("libdevice.pow(x0, 0.0 * x1.to(tl.int64).to(tl.float32)) * x0", True),
    ("libdevice.pow(x0, (x1.to(tl.int32).to(tl.float32) * 0.0) + 1.0) * x0", True),  # pow(y, 1.0): y, folded too
    ("tl.exp(0.0 * x1.to(tl.int16).to(tl.float32)) * x0", True),
    ("libdevice.pow(x0, 0.0 * x1) * x0", False),  # x1 may be inf or NaN: 0.0 * x1 is no constant to LLVM
    ("libdevice.pow(x0, x1) * x0", False)])  # no constant argument: LLVM's CSE or dead code, nothing to say
def test_math_call_of_a_constant_argument_left_no_instruction(tmp_path, expr, reported):
    _, rep = _run(_with_source(tmp_path, expr, "{store}\n\tmul.f32 %d, %a, %a;", "", nin=2), [[0x3F800000, 0]])
    assert bool([i for i in rep.errors if FOLDED in i.reason]) == reported


def test_math_call_with_an_instruction_at_its_location_is_not_reported(tmp_path):
    """The call still has an instruction at its location (LLVM kept it): the body rules decide, nothing here."""
    expr = "tl.exp(0.0 * x1.to(tl.int16).to(tl.float32)) * x0"
    body = "{loc}\n\tmov.b32 %t, 0f3F800000;\n\t{store}\n\tmul.f32 %d, %a, %t;"
    _, rep = _run(_with_source(tmp_path, expr, body, "tl.exp", nin=2), [[0x3F800000, 0]])
    assert not [i for i in rep.errors if FOLDED in i.reason]


def test_held_out_kernel_is_reported():
    """Seed 213301's Triton 3.9 pair: the outputs differ (193/256 at first contact), and now it is said."""
    ours, theirs, errors = _compare("seed213301", folds=())
    assert not (ours == theirs).all()
    assert any(FOLDED in e.reason for e in errors)
