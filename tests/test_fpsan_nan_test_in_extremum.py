"""A NaN test LLVM folded into a NaN-propagating max/min (``ptxkit.fpsan.fold_nan_test_in_extremum``; issue 10,
held-out seed 66852, silent at first contact): ``maximum(where(h >= h, y, h), .., propagate_nan=ALL)`` as
``max.NaN d, y, h``. Triton tests the ring value's float bits and its ring max propagates no NaN: reported. Where the
select stays in the PTX, it is sanitized as written (the test native, as Triton's)."""

from __future__ import annotations

import pytest

from tests.test_fpsan_folds import _items, _run
from tests.test_fpsan_libdevice import _compare
from tests.test_fpsan_source_hints import _with_source

EXPR = "tl.maximum(tl.where(x0 >= x0, x1, x0), x0, propagate_nan=tl.PropagateNan.ALL)"


@pytest.mark.parametrize("body,reported", [
    ("{loc}\n\tmax.NaN.f32 %d, %b, %a;", True),
    ("setp.ge.f32 %p1, %a, %a;\n\tselp.f32 %t, %b, %a, %p1;\n\t{loc}\n\tmax.NaN.f32 %d, %t, %a;", False),
])
def test_nan_test_folded_into_a_nan_max_is_reported(tmp_path, body, reported):
    _, rep = _run(_with_source(tmp_path, EXPR, body, "tl.maximum", nin=2), [[0x3F800000, 0x40000000]])
    assert (("max.NaN.f32", "error") in _items(rep)) == reported


def test_held_out_nan_test_folded_into_a_nan_max_is_reported():
    ours, theirs, errors = _compare("seed66852", folds=())
    assert not (ours == theirs).all() and any(e.opcode == "max.NaN.f16" for e in errors)
