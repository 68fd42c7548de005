"""``x == -x`` tested as ``|x| == 0`` on the float's bits (``ptxkit.fpsan.fold_self_negation_compare``; issue 10,
held-out seed 66672, silent at first contact at x = −0.0). Across a widening, a half's −0.0 is not its own negation in
Triton's 64-bit ring: reported. In one type the ring agrees with IEEE (±0 alone equal their negation): nothing to
say."""

from __future__ import annotations

import pytest

from tests.test_fpsan_folds import _items, _run
from tests.test_fpsan_libdevice import _compare
from tests.test_fpsan_source_hints import _with_source

BODY = "and.b16 %h1, %a, 32767;\n\t{loc}\n\tsetp.eq.b16 %p1, %h1, 0;\n\tselp.b16 %d, %a, 15360, %p1;"


@pytest.mark.parametrize("expr,reported", [
    ("tl.where(x0.to(tl.float64) != (-x0.to(tl.float32).to(tl.float64)), 1.0, x0)", True),
    ("tl.where(x0.to(tl.float32) == -x0.to(tl.float32), x0, 1.0)", True),
    ("tl.where(x0 != -x0, 1.0, x0)", False),
])
def test_compare_with_own_negation_across_a_widening_is_reported(tmp_path, expr, reported):
    _, rep = _run(_with_source(tmp_path, expr, BODY, "x0", w=16), [[0x8000]], w=16)
    assert (("setp.eq.b16", "error") in _items(rep)) == reported


def test_held_out_compare_with_own_negation_is_reported():
    ours, theirs, errors = _compare("seed66672", folds=())
    assert not (ours == theirs).all() and any(e.opcode == "setp.eq.b16" for e in errors)


def test_held_out_packed_compare_with_own_negation_is_reported():
    """Seed 134381: ``(x.to(f32) * -1.0) != x.to(f64).to(f32)`` of a bf16 x, two lanes at once (``and.b32 t, x,
    0x7fff7fff``, unpacked, then ``setp.eq.b16`` per lane): silent at first contact, reported per lane."""
    ours, theirs, errors = _compare("seed134381", folds=())
    assert not (ours == theirs).all()
    assert sum(e.opcode == "setp.eq.b16" for e in errors) == 4
