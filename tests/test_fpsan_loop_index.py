"""Float arithmetic on a ``range`` loop's index that LLVM unrolled and folded into constants
(``ptxkit.fpsan.folded_loop_index``): ``for i in range(3): acc += x * (i + 1.0)`` becomes ``fma x, 2.0, acc`` and
``fma x, 3.0, acc``, where Triton's FPSan adds φ(1.0) to the converted index in the ring. Not modelled: reported,
never silent (a user-style probe was silent in 200/512 elements)."""

from __future__ import annotations

from tests.test_fpsan_libdevice import SPECS, _compare
from tests.test_fpsan_select_extremum import _sanitized

NAME = "k_loop_index_times_f32"


def test_unrolled_index_arithmetic_is_reported():
    ours, theirs, errors = _compare(NAME, folds=())
    assert (ours != theirs).any()
    assert any("loop index" in e.reason and "`i + 1.0`" in e.reason for e in errors), [e.reason for e in errors]


def test_static_range_is_not_reported():
    """``tl.static_range`` is unrolled by Triton itself: its index is a constant the ring sees (the same PTX under that
    source is not reported)."""
    source = SPECS[NAME].source.replace("in range(3)", "in tl.static_range(3)")
    assert source != SPECS[NAME].source
    _, items = _sanitized(NAME, source)
    assert not any("loop index" in i.reason for i in items)
    _, items = _sanitized(NAME, SPECS[NAME].source)
    assert any("loop index" in i.reason for i in items)
