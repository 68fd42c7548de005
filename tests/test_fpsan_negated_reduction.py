"""A 16-bit ``sub`` at a reduction's combine (``ptxkit.fpsan.source_hints_reduce``; issue 10 H, held-out seed 61108, a
false alarm before): ``tl.sum(-x.to(f16))`` as ``sub.f16x2`` at ``_sum_combine``'s ``a + b``. The ring's a + (−b) is
a − b where −b is the half's own negation: half arithmetic, decided by the user's call (the ``inlined_at``
location). A negation narrowed from a wider value stays undecided."""

from __future__ import annotations

import pytest

from tests.test_fpsan_folds import _items, _run
from tests.test_fpsan_libdevice import _assert_bit_exact
from tests.test_fpsan_source_hints import EXPR_LINE, SRC, _with_source


@pytest.mark.parametrize("expr,severity", [("tl.sum(-x0.to(tl.float16), axis=0)", "note"),
                                           ("tl.sum(-x0, axis=0)", "note"),
                                           ("tl.sum((-x0).to(tl.float16), axis=0)", "error")])
def test_sub_at_a_sum_of_negated_halves(tmp_path, expr, severity):
    col = SRC.replace("EXPR", expr).splitlines()[EXPR_LINE - 1].index("tl.sum") + 1
    body = f".loc 2 287 12, function_name $L__info_string0, inlined_at 1 {EXPR_LINE} {col}\n\tsub.f16 %d, %a, %b;"
    text = _with_source(tmp_path, expr, body, "", nin=2, w=16) + '\t.file\t2 "standard.py"\n'
    _, rep = _run(text, [[0x3C00, 0x4000]], w=16)
    assert [s for o, s in _items(rep) if o == "sub.f16"] == [severity]


def test_held_out_sum_of_negated_halves_is_tritons_bits():
    _assert_bit_exact("seed61108", folds=())
