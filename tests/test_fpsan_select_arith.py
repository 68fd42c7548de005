"""Arithmetic with constants LLVM pushed through a select of a literal (``ptxkit.fpsan.fold_select_arith``; issue 10,
custom kernels after held-out seed 68925, silent before): ``tl.where(c, x, 2.0) + 1.0`` is
``selp.b32 d, x + 1.0, 3.0, p`` — InstCombine folds the add into both arms, the literal's natively. Triton's FPSan adds
φ(2.0) and φ(1.0) in the ring, which is not φ(3.0). Triton 3.9 pairs in tests/data/triton_libdevice (make_pairs.py
HAND), bit for bit on the simulator; hand-written PTX for what must stay as written."""

from __future__ import annotations

import re

import numpy as np
import pytest

from ptxkit.fpsan import ring as R
from tests.test_fpsan_folds import _run
from tests.test_fpsan_libdevice import _assert_bit_exact, _build
from tests.test_fpsan_source_hints import _with_source

FOLDED = "select of a constant LLVM computed from the literal"


@pytest.mark.parametrize("name,shape", [
    ("k_where_literal_plus_one_f32", r"selp\.b32\s+%r\d+, %r\d+, 1077936128"),  # 3.0 = 2.0 + 1.0
    ("k_where_literal_plus_one_stored_bf16", r"selp\.b16\s+%rs\d+, %rs\d+, 16448"),  # bf16(3.0): the cast pushed too
    ("k_where_literal_fma_f16", r"selp\.b32\s+%r\d+, -1110704128, %r\d+"),  # f16 0.3 * 3.0 - 1.0, widened
    ("k_one_minus_where_literal_bf16", r"selp\.b32\s+%r\d+, 1060306944, %r\d+"),  # 1.0 - bf16 0.3, widened
    ("k_where_literal_times_two_f32", r"selp\.b32\s+%r\d+, %r\d+, 1082130432"),  # 4.0; the arm's x * 2.0 is x + x
    ("k_where_literals_times_three_f32", r"selp\.b32\s+%r\d+, 1077936128, 1086324736")])  # 3.0, 6.0: no arm left
def test_arithmetic_pushed_into_a_select_of_a_literal_is_the_rings(name, shape):
    plain, _ = _build(name, "plain")
    assert re.search(shape, plain)
    _assert_bit_exact(name, folds=())


@pytest.mark.parametrize("expr,folded", [("tl.where(x1 > 0.0, x0, 2.0) + 1.0", True),
                                         # the literal itself (no arithmetic after it): nothing to do
                                         ("tl.where(x1 > 0.0, x0 + 1.0, 3.0)", False),
                                         # another literal, which 1.0 does not take to 3.0
                                         ("tl.where(x1 > 0.0, x0, 5.0) + 1.0", False)])
def test_only_a_literal_the_chain_takes_to_the_immediate_is_replaced(tmp_path, expr, folded):
    body = ("add.f32 %t, %a, 0f3F800000;\n\tsetp.gt.f32 %p1, %b, 0f00000000;\n\t{loc}\n\t"
            "selp.b32 %d, %t, 1077936128, %p1;")
    text = _with_source(tmp_path, expr, body, "tl.where", nin=2)
    out, rep = _run(text, [[0x3F800000, 0xBF800000]])
    e = lambda v: R.embed(np.array([v], np.uint64), "f32")  # noqa: E731
    ring = int(R.unembed(R.add(e(0x40000000), e(0x3F800000), 32), "f32")[0])  # φ⁻¹(φ(2.0) + φ(1.0))
    assert ring != 0x40400000
    assert out == [ring if folded else 0x40400000]
    assert any(FOLDED in i.reason for i in rep.items) == folded
