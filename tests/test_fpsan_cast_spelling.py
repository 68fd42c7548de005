"""``tl.cast(E, T)`` is ``E.to(T)`` to the source hints (``ptxkit.fpsan.source_parse``, issue 10; user-style probes:
the folds the source decides were undecided, reported, with the ``tl.cast`` spelling)."""

from __future__ import annotations

import ast

import pytest

from ptxkit.fpsan.source_parse import parse_python
from tests.test_fpsan_libdevice import _assert_bit_exact


@pytest.mark.parametrize("name", ["k_tl_cast_times_two_f32", "k_tl_cast_narrowed_mul_f16"])
def test_tl_cast_decides_the_folds_as_to_does(name):
    """``tl.cast(x, tl.float64) * 2.0`` of an f32 x (LLVM's ``add.f32 x, x``: Triton's f64 ring product, narrowed)
    and ``tl.cast(tl.cast(x, tl.float32) * 3.0, x.dtype)`` of an f16 x (LLVM's ``mul.f16``: the f32 ring product)."""
    _assert_bit_exact(name, folds=())


def test_tl_cast_reads_as_to_at_the_calls_position():
    tree = parse_python("y = tl.cast(x * 2, tl.float16, fp_downcast_rounding='rtz')\nz = tl.cast(x)\n")
    call = tree.body[0].value
    assert ast.unparse(call) == "(x * 2).to(tl.float16, fp_downcast_rounding='rtz')"
    assert (call.lineno, call.col_offset, call.end_col_offset) == (1, 4, 58)
    assert ast.unparse(tree.body[1].value) == "tl.cast(x)"  # (no dtype: not a cast, left as the user wrote it)
