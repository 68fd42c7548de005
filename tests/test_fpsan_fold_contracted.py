"""A product LLVM contracted into a cumsum's ``fma.f32`` whose source computes it at f64 and narrows it back
(``ptxkit.fpsan.fold_contracted``; issue 10 H, held-out seed 16210, silent at first contact): Triton's f64 ring
product, narrowed, then the f32 ring add — against the ring module's casts and ops (docs/fpsan.md §2)."""

from __future__ import annotations

import numpy as np
import pytest

from ptxkit.fpsan import ring as R
from tests.test_fpsan_folds import HALF, ONE, _items, _run
from tests.test_fpsan_libdevice import DATA, _assert_bit_exact
from tests.test_fpsan_source_hints import EXPR_LINE, SRC, _with_source

A, B = 0x3FC00001, 0x40400000  # 1.5000001 (not exact in the narrowing's low bits), 3.0
TWO64 = 0x4000000000000000


def _u(*xs: int) -> np.ndarray:
    return np.array(xs, np.uint64)


def _body(expr: str, line0: bool = False) -> str:
    col = SRC.replace("EXPR", expr).splitlines()[EXPR_LINE - 1].index("tl.cumsum") + 1
    at = ".loc 1 0 30" if line0 else f".loc 2 287 12, function_name $L__info_string0, inlined_at 1 {EXPR_LINE} {col}"
    return f"{at}\n\tfma.rn.f32 %d, %a, 0f40000000, %b;"


def _narrowed(a: int, b: int) -> int:
    p = R.float_cast(R.float_binop("mul", R.float_cast(_u(a), "f32", "f64"), _u(TWO64), "f64"), "f64", "f32")
    return int(R.float_binop("add", p, _u(b), "f32")[0])


@pytest.mark.parametrize("line0", [False, True])
def test_cumsum_of_a_narrowed_f64_product_is_tritons(tmp_path, line0):
    expr = "tl.cumsum((x0.to(tl.float64) * 2.0).to(tl.float32), axis=0)"
    text = _with_source(tmp_path, expr, _body(expr, line0), "", nin=2) + '\t.file\t2 "standard.py"\n'
    rows = [[A, B], [HALF, ONE]]
    out, rep = _run(text, rows)
    assert out == [_narrowed(a, b) for a, b in rows]
    assert out[0] != int(R.fma(*(R.embed(_u(v), "f32") for v in (A, 0x40000000, B)), 32)[0])  # not the f32 fma
    assert [s for o, s in _items(rep) if o == "fma.rn.f32"] == ["note"]


def test_cumsum_of_an_f32_product_stays_the_f32_fma(tmp_path):
    expr = "tl.cumsum(x0 * 2.0, axis=0)"
    text = _with_source(tmp_path, expr, _body(expr), "", nin=2) + '\t.file\t2 "standard.py"\n'
    out, rep = _run(text, [[A, B]])
    want = R.unembed(R.fma(*(R.embed(_u(v), "f32") for v in (A, 0x40000000, B)), 32), "f32")
    assert out == [int(want[0])] and not [o for o, _ in _items(rep) if o == "fma.rn.f32"]


def test_held_out_cumsum_of_a_narrowed_product_is_tritons_bits():
    """Seed 16210's Triton 3.9 pair: ``cumsum((x.to(f16).to(f64) * 2.0).to(f32))`` whose later rows LLVM contracts into
    fmas at line 0, then cos and a half division: bit for bit, nothing reported (silent at first contact)."""
    _assert_bit_exact("seed16210")


@pytest.mark.parametrize("expr,sign", [("x1 - (x0.to(tl.float64) * 2.0).to(tl.float32)", -1),
                                       ("(x0.to(tl.float64) * 2.0).to(tl.float32) + x1", 1),
                                       # the product's own negation on the number, LLVM's (held-out seed 88825)
                                       ("(-(x0.to(tl.float64) * 2.0)).to(tl.float32) + x1", 2),
                                       ("x1 - (x0 * 2.0)", 0)])  # an f32 product: the f32 fma as written
def test_narrowed_f64_product_contracted_into_an_add_or_sub_is_tritons(tmp_path, expr, sign):
    """``m - (x.to(f64) * 2.0).to(f32)`` as ``fma.rn.f32 d, x, -2.0, m`` at the expression's location (held-out seed
    23250, silent at first contact: LLVM shrinks the product and negates its number): Triton's f64 ring product,
    narrowed, subtracted in the f32 ring (an add likewise)."""
    col = SRC.replace("EXPR", expr).splitlines()[EXPR_LINE - 1].index(expr) + 1
    c = "0fC0000000" if sign in (-1, 0, 2) else "0f40000000"
    text = _with_source(tmp_path, expr, f".loc 1 {EXPR_LINE} {col}\n\tfma.rn.f32 %d, %a, {c}, %b;", "", nin=2)
    rows = [[A, B], [HALF, ONE]]
    out, rep = _run(text, rows)
    if sign == 0:
        want = [int(R.unembed(R.fma(*(R.embed(_u(v), "f32") for v in (a, 0xC0000000, b)), 32), "f32")[0])
                for a, b in rows]
        assert out == want and not [o for o, _ in _items(rep) if o == "fma.rn.f32"]
        return
    prods = [R.float_binop("mul", R.float_cast(_u(a), "f32", "f64"), _u(TWO64), "f64") for a, _ in rows]
    # sign 2: the product negated in the f64 ring before the narrowing, which does not commute with it
    p = [R.float_cast(R.float_unop("neg", q, "f64") if sign == 2 else q, "f64", "f32") for q in prods]
    want = [int(R.float_binop("sub" if sign < 0 else "add", _u(b), q, "f32")[0]) for q, (_, b) in zip(p, rows)]
    assert out == want and [s for o, s in _items(rep) if o == "fma.rn.f32"] == ["note"]


def test_held_out_negated_narrowed_product_minus_a_value_is_tritons_bits():
    """``(-(x.to(f64) * 2.0)).to(f32) - exp2(..)`` of a bf16 x as ``fma(x', -2.0, -e)`` (held-out seed 88825, silent
    at first contact in 234/256): the f64 ring product, narrowed, plus the addend LLVM negated."""
    _assert_bit_exact("seed88825")


def test_held_out_sum_of_a_narrowed_half_product_in_packed_lanes_is_tritons_bits():
    """Seed 52752's Triton 3.9 pair (silent at first contact): ``tl.sum((2.0 * h.to(f32)).to(bf16))`` whose first
    reduction step LLVM contracts into ``fma.rn.bf16x2 s, h, {2.0, 2.0}, 2h'`` (the 2.0 a packed register constant):
    per lane, Triton's f32 ring product, narrowed to bf16, then the bf16 ring add — bit for bit."""
    plain = (DATA / "seed52752.plain.ptx").read_text()
    assert "fma.rn.bf16x2" in plain
    _assert_bit_exact("seed52752", folds=())


def test_held_out_kept_narrowed_product_as_the_addend_is_tritons_bits():
    """``-(h * h) + (x.to(f32) * 0.5).to(f16)`` (held-out seed 169445, silent at first contact in 105/128): LLVM
    contracts the f16 product and keeps the narrowed f32 one as the addend (``fma.rn.f16 d, -h, h, cvt(mul.f32)``);
    the fma is f16's own ring product and add, not the narrowed one — bit for bit."""
    plain = (DATA / "seed169445.plain.ptx").read_text()
    assert "fma.rn.f16" in plain and "mul.f32" in plain
    _assert_bit_exact("seed169445", folds=())


@pytest.mark.parametrize("name", ["seed224746", "k_narrowed_product_minus_negated_half_product"])
def test_narrowed_product_minus_a_half_product_keeps_it_as_the_addend(name):
    """``E.to(f16) - (b16 * (c16 * -1.0))`` of an f32 product E (held-out seed 224746, silent in 483/512): the
    negations cancel and LLVM contracts the halves' product, E's narrowing the addend (``fma.rn.f16 d, b, c,
    cvt(mul.f32)``) — not E − A with E the fma's product: f16's own ring product and add, bit for bit."""
    _assert_bit_exact(name, folds=())
