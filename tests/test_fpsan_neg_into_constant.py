"""A negation LLVM moved from a widened value into a constant factor (``ptxkit.fpsan.fold_neg_into_constant``;
issue 10 F/J, held-out seed 50762, silent at first contact). ``(-h) / 3.0`` of a half h is Triton's f32 division of
the widened negation; LLVM computes ``fma(-(1/3), h.to(f32), t)``, and ``(-h).to(f32) * 3.0`` stored as f16 is
``mul.f16 h, -3.0``. Triton's FPSan negates h's payload in the 16-bit ring before sign-extending it, which differs from
the PTX's order only at φ(−0.0) = −2^15: one element of these Triton 3.9 pairs, reported. A constant negative in the
source (``h.to(f32) * -3.0``) is the PTX as written: bit-exact, nothing reported. So is ``a - (-h).to(f32)``, which
LLVM writes as ``add a, h.to(f32)``: reported, and ``tl.sum((-h) / 3.0)``, where LLVM takes the negation of some
elements out of the product (held-out seed 61112, silent at first contact)."""

from __future__ import annotations

import numpy as np
import pytest

from ptxkit.fpsan import ring as R
from tests.test_fpsan_folds import _run
from tests.test_fpsan_libdevice import _assert_bit_exact, _compare
from tests.test_fpsan_source_hints import EXPR_LINE, _with_source

MOVED = "LLVM moved the negation into the constant"
CANCELLED = "LLVM cancelled the two"
HOISTED = "LLVM took the negation out of the product"
AROUND = "LLVM cancelled the two negations"
_SAYS = {"add": CANCELLED, "neg": HOISTED}
_SAYS_OF = {"seed72003": AROUND, "seed133723": AROUND, "seed72601": CANCELLED, "seed145518": CANCELLED,
            "seed73560": "negates a widening of x's negation"}


@pytest.mark.parametrize("name,opcode", [("k_neg_half_div_three_plus_f32", "fma"),
                                         ("k_f32_minus_widened_negation", "add"),
                                         ("k_neg_widened_times_three_stored_f16", "mul"),
                                         ("seed50762", "fma"), ("seed61112", "neg"), ("seed72003", "mul"),
                                         ("seed72601", "sub"), ("seed73560", "fma"),
                                         ("seed133723", "fma"),  # -((-h) / 3.0) + p as fma(1/3, h, p)
                                         ("seed145518", "sub")])  # (-p) - (-h).to(f32) as h.to(f32) - p
def test_negation_moved_into_a_constant_is_reported(name, opcode):
    ours, theirs, errors = _compare(name, folds=())
    assert (ours != theirs).sum() >= 1  # the −0.0 input's element
    assert [e for e in errors if _SAYS_OF.get(name, _SAYS.get(opcode, MOVED)) in e.reason
            and e.opcode.startswith(opcode)]


def test_negative_constant_in_the_source_is_bit_exact():
    _assert_bit_exact("k_widened_times_minus_three_stored_f16", folds=())


@pytest.mark.parametrize("negs,reported", [(False, True), (True, False)])
def test_difference_of_two_widened_negations(tmp_path, negs, reported):
    """``(-x1).to(f64) - (-x0).to(f64)`` of f32 values as ``sub.f64 d, x0.to(f64), x1.to(f64)`` (both negations
    cancelled; custom kernels after held-out seed 55363, silent at −0.0): reported; where the PTX still negates before
    the widenings, it is the ring's own order, nothing to say."""
    expr = "(-x1).to(tl.float64) - (-x0).to(tl.float64)"
    pre = "neg.f32 %r1, %b;\n\tneg.f32 %r2, %a;" if negs else "mov.b32 %r1, %b;\n\tmov.b32 %r2, %a;"
    body = pre + "\n\t{loc}\n\tcvt.f64.f32 %e1, %r1;\n\tcvt.f64.f32 %e2, %r2;\n\t" + (
        "add.f64 %d, %e1, %e2;" if negs else "sub.f64 %d, %e2, %e1;")
    _, rep = _run(_with_source(tmp_path, expr, body, "(-x1)", nin=2, out_w=64), [[0x40000000, 0x80000000]], out_w=64)
    assert any(CANCELLED in e.reason for e in rep.errors) == reported


@pytest.mark.parametrize("expr,reported", [("(-x0) / 3.0", True), ("-(x0.to(tl.float32) / 3.0)", False),
                                           ("(-x0.to(tl.float32)) / 3.0", False),
                                           # a loaded y beside another value's widening: y is no narrow h (a false
                                           # alarm before: -(x.to(f64) * y) - (-y) * ceil(x.to(f64)) of an f64 y)
                                           ("(-x1) * tl.ceil(x0.to(tl.float32))", False)])
def test_negation_taken_out_of_a_product_of_a_widened_half(tmp_path, expr, reported):
    """``neg.f32 d, p`` of ``p = mul c, h.to(f32)`` (held-out seed 61112's shape): reported where the source negates the
    half before the division widens it (Triton's 16-bit negation keeps φ(−0.0) = −2^15, the f32 one does not), not
    where it negates the f32 value."""
    body = "{loc}\n\tcvt.f32.bf16 %e1, %a;\n\tmul.f32 %p, %e1, 0f3EAAAAAB;\n\tneg.f32 %d, %p;"
    _, rep = _run(_with_source(tmp_path, expr, body, expr[:3], w=16, out_w=32), [[0x8000]], w=16, out_w=32)
    assert any(HOISTED in e.reason for e in rep.errors) == reported


@pytest.mark.parametrize("expr,body,reported", [
    # a - (-h) * c as fma(h.to(f32), c, a): the two negations cancelled
    ("1.0 - (-x0) * 3.0", "fma.rn.f32 %d, %r1, 0f40400000, 0f3F800000;", True),
    ("1.0 - (-x0.to(tl.float32)) * 3.0", "fma.rn.f32 %d, %r1, 0f40400000, 0f3F800000;", False),
    # (-h) * y as -(h.to(f32) * y), y any factor
    ("(-x0) * x0.to(tl.float32)", "mul.f32 %r2, %r1, %r1;\n\tneg.f32 %d, %r2;", True),
    ("-(x0.to(tl.float32) * x0.to(tl.float32))", "mul.f32 %r2, %r1, %r1;\n\tneg.f32 %d, %r2;", False),
    # p - (-h).to(f32) as fma(a, b, h.to(f32)): the addend's negation cancelled, now replayed in the half's ring
    # (test_fma_addend_of_a_subtracted_half_negation; held-out seed 81248)
    ("2.0 * 3.0 - (-x0).to(tl.float32)", "fma.rn.f32 %d, 0f40000000, 0f40400000, %r1;", False),
    ("2.0 * 3.0 - x0.to(tl.float32)", "neg.f32 %r2, %r1;\n\tfma.rn.f32 %d, 0f40000000, 0f40400000, %r2;", False),
])
def test_negation_of_a_widened_half_cancelled_or_taken_out_of_a_product(tmp_path, expr, body, reported):
    """Custom kernels after held-out seed 61112 (both silent at h = −0.0 before): ``a - (-h) * y`` is
    ``fma(h.to(f32), y, a)`` and ``(-h) * y`` may be ``neg(h.to(f32) * y)``; Triton's 16-bit negation keeps
    φ(−0.0) = −2^15, the f32 one does not. Reported where the source negates the half, not the f32 value."""
    text = _with_source(tmp_path, expr, "{loc}\n\tcvt.f32.f16 %r1, %a;\n\t" + body, expr[:4], w=16, out_w=32)
    _, rep = _run(text, [[0x8000]], w=16, out_w=32)
    assert bool(rep.errors) == reported
    assert not reported or "LLVM cancelled the two" in rep.errors[0].reason or HOISTED in rep.errors[0].reason


def test_difference_with_a_product_of_a_loaded_half_is_the_negation_after_the_cast(tmp_path):
    """``3.0 - h * 2.5`` of a loaded f16 h as ``fma(-(h.to(f32)), 2.5, 3.0)`` (custom kernel after held-out seed
    61112): the ring's a − b·c is a + (−b)·c, the negation after the cast (docs/fpsan.md §2: the widening
    sign-extends), also where the source does not name h's type (a load; before, that left the neg-cast fold
    undecided, a false alarm): bit for bit, nothing reported."""
    text = _with_source(tmp_path, "3.0 - x0 * 2.5", "{loc}\n\tcvt.f32.f16 %r1, %a;\n\tneg.f32 %r2, %r1;\n\t"
                        "fma.rn.f32 %d, %r2, 0f40200000, 0f40400000;", "3.0", w=16, out_w=32)
    halves = (0x8000, 0x3C00, 0xC500)
    out, rep = _run(text, [[h] for h in halves], w=16, out_w=32)
    assert not rep.errors
    for got, h in zip(out, halves, strict=True):
        wide = R.sext(R.embed(np.array([h], np.uint64), "f16"), 16, 32)
        want = R.add(R.embed(np.array([0x40400000], np.uint64), "f32"),
                     R.mul(R.neg(wide, 32), R.embed(np.array([0x40200000], np.uint64), "f32"), 32), 32)
        assert got == int(R.unembed(want, "f32")[0])


def test_negation_of_a_value_of_the_ops_own_type_beside_a_widening_is_no_narrow_negation():
    """``x1.to(f64) - (-x0)`` of an f64 x0 and a bf16 x1 as ``add.f64 d, x1', x0`` (held-out seed 64499, silent at
    x1 = −0.0, found with zero-rich inputs): the PTX widens x1, and the negated x0 is already f64 — no narrow negation
    to replay; the f64 ring's add, bit for bit."""
    from tests.test_fpsan_body_join import _zero_y
    ours, theirs, _ = _zero_y("seed64499", buffer="x1_ptr", negative_zero=0x8000)
    assert np.array_equal(ours, theirs)


@pytest.mark.parametrize("name", ["seed101184", "k_min_of_widening_minus_negated_f64"])
def test_negation_of_the_ops_own_type_beside_a_choice_of_one_widening(name):
    """``minimum(h.to(f64), h.to(f64)) - (-y)`` of an f16 h and an f64 y as ``add.f64 d, h', y`` (held-out seed
    101184, silent at first contact: 4/512 elements, h = −0.0): the minimum of one value is that widening, so the
    negated y is no narrow value; bit for bit on inputs with ±0.0 halves."""
    from tests.test_fpsan_body_join import _zero_y
    ours, theirs, _ = _zero_y(name, buffer="x0_ptr", negative_zero=0x8000)
    assert np.array_equal(ours, theirs)


@pytest.mark.parametrize("expr,reported", [("-((-x0) / 3.0)", True), ("-((-x0) * x0.to(tl.float32))", True),
                                           ("-((-x0.to(tl.float32)) / 3.0)", False),
                                           ("x0.to(tl.float32) / 3.0", False)])
def test_negation_of_a_product_of_a_widened_halfs_negation(tmp_path, expr, reported):
    """``-((-h) / 3.0)`` of a half h as ``mul.f32 (1/3), h.to(f32)`` (held-out seed 72003, silent at first contact at
    h = −0.0): LLVM cancelled both negations; Triton's 16-bit negation keeps φ(−0.0) = −2^15, which the f32 one after
    the widening does not. Reported where the source negates the half, not the f32 value or nothing."""
    text = _with_source(tmp_path, expr, "cvt.f32.f16 %r1, %a;\n\t{loc}\n\tmul.f32 %d, %r1, 0f3EAAAAAB;",
                        expr[:3] if expr.startswith("-") else "", w=16, out_w=32)
    _, rep = _run(text, [[0x8000]], w=16, out_w=32)
    assert any(AROUND in e.reason for e in rep.errors) == reported


@pytest.mark.parametrize("expr,reported", [("tl.cumsum(-x0, axis=0).to(tl.float32) + 1.0", True),
                                           ("tl.cumsum(x0, axis=0).to(tl.float32) + 1.0", False)])
def test_scan_of_a_negation_widened_and_added_is_reported(tmp_path, expr, reported):
    """``s.to(f32) + 1.0`` of ``s = cumsum(-h)`` (held-out seed 72601, silent at first contact at h = −0.0): the scan's
    first row is −h itself, and LLVM writes its sum as ``sub.f32 1.0, h.to(f32)``; Triton negates h in its 16-bit
    ring (φ(−0.0) = −2^15 is its own negation) before widening. Reported; the scan of h itself has nothing to say."""
    body = "{loc}\n\tcvt.f32.f16 %r1, %a;\n\tsub.f32 %d, 0f3F800000, %r1;"
    _, rep = _run(_with_source(tmp_path, expr, body, "tl.cumsum", w=16, out_w=32), [[0x8000]], w=16, out_w=32)
    assert any(CANCELLED in e.reason for e in rep.errors) == reported


WIDENED_NEG = "negates a widening of x's negation"


@pytest.mark.parametrize("expr,negs,reported", [("-(-x0).to(tl.float32) * 3.0", False, True),
                                                ("3.0 * (-(-x0).to(tl.float32))", False, True),
                                                ("x0.to(tl.float32) * 3.0", False, False),
                                                # the PTX still negates: nothing cancelled
                                                ("-(-x0).to(tl.float32) * 3.0", True, False)])
def test_negation_of_a_widened_negation_cancelled_is_reported(tmp_path, expr, negs, reported):
    """``fma(a, -(-h).to(f64), c)`` of a bf16 h (held-out seed 73560, silent at first contact at h = −0.0): LLVM
    cancels both negations (and CSEs the widening with another ``h.to(f64)``); Triton negates h in its 16-bit ring,
    where φ(−0.0) = −2^15 is its own negation, then sign-extends and negates again. Reported."""
    body = ("neg.f16 %h1, %a;\n\tcvt.f32.f16 %r1, %h1;\n\tneg.f32 %r2, %r1;" if negs
            else "cvt.f32.f16 %r2, %a;") + "\n\t{loc}\n\tmul.f32 %d, %r2, 0f40400000;"
    _, rep = _run(_with_source(tmp_path, expr, body, expr[:3], w=16, out_w=32), [[0x8000]], w=16, out_w=32)
    assert any(WIDENED_NEG in e.reason for e in rep.errors) == reported


def test_negated_half_subtracted_from_a_product_is_an_fmas_addend_negated_in_the_half():
    """``x / 3.0 - (-h)`` of a bf16 h (held-out seed 81248, silent at first contact at h = −0.0): LLVM contracts the
    product and the folded ``+ h`` into ``fma(1/3, x, h.to(f32))``; Triton negates h in its 16-bit ring, where
    φ(−0.0) = −2^15 is its own negation, then widens. The fma's addend is replayed so."""
    _assert_bit_exact("seed81248", folds=())


@pytest.mark.parametrize("expr,narrow", [("x1.to(tl.float32) * 3.0 - (-x0)", True),
                                         ("x1.to(tl.float32) * 3.0 + x0.to(tl.float32)", False)])
def test_fma_addend_of_a_subtracted_half_negation(tmp_path, expr, narrow):
    body = "{loc}\n\tcvt.f32.f16 %r1, %a;\n\tcvt.f32.f16 %r2, %b;\n\tfma.rn.f32 %d, %r2, 0f40400000, %r1;"
    text = _with_source(tmp_path, expr, body, "x1", nin=2, w=16, out_w=32)
    rows = [[0x8000, 0x3C00], [0xC000, 0x3C00], [0x0000, 0xC100]]
    out, rep = _run(text, rows, w=16, out_w=32)
    e = lambda v, t: R.embed(np.array([v], np.uint64), t)  # noqa: E731
    for got, (h, y) in zip(out, rows, strict=True):
        prod = R.mul(R.sext(e(y, "f16"), 16, 32), e(0x40400000, "f32"), 32)
        negated = R.sext(R.neg(e(h, "f16"), 16), 16, 32) if narrow else R.neg(R.sext(e(h, "f16"), 16, 32), 32)
        assert got == int(R.unembed(R.sub(prod, negated, 32), "f32")[0])
    assert not rep.errors


def test_loaded_negation_of_another_op_on_a_merged_line_is_no_narrow_negation(tmp_path):
    """``(fma(w, y, w) + (-y)) - (y + (-w))`` of ``w = x.to(f64)``, a half x and an f64 y (held-out seed 86303, silent
    at first contact at x = −0.0): LLVM's ``sub.f64 y, w`` carries the merged location 9:0, where the line's other
    Add negates the loaded y; that -y is not this sub's operand, whose ring subtraction of w is Triton's
    y + (−sext φ(x)) as written."""
    expr = "(tl.fma(x0.to(tl.float64), x1, x0.to(tl.float64)) + (-x1)) - (x1 + (-x0.to(tl.float64)))"
    body = (f".loc 1 {EXPR_LINE} 0\n\tcvt.f64.f16 %e1, %a;\n\tcvt.u64.u32 %e2, %b;\n\tshl.b64 %e2, %e2, 32;\n\t"
            "sub.f64 %e3, %e2, %e1;\n\tcvt.rn.f32.f64 %d, %e3;")
    text = _with_source(tmp_path, expr, body, "", nin=2, w=16)
    _, rep = _run(text, [[0x8000, 0xC000]], w=16)
    assert not [i for i in rep.items if "a − (−h)" in i.reason]


def test_held_out_loaded_negation_of_another_op_is_tritons_bits():
    _assert_bit_exact("seed86303", folds=())


@pytest.mark.parametrize("name,buffer,replayed", [("seed104994", "x0_ptr", True),
                                                  ("k_exp_of_negated_widened_f16", "x0_ptr", False)])
def test_negation_folded_into_exps_multiplier(name, buffer, replayed):
    """``tl.exp(((-x0) * y).to(f32))`` of bf16 values as ``mul.f32 t, x', -log2(e); ex2`` (held-out seed 104994, silent
    at x0 = −0.0 with special-rich inputs): Triton negates in the bf16 ring before the widening, which differs from the
    f32 negation LLVM folded into exp's multiplier at φ(−0) = −2^15; ``tl.exp(-(x.to(f32)))`` negates at f32, nothing
    to replay. Bit for bit on inputs with ±0.0 there."""
    from tests.test_fpsan_body_join import _zero_y
    ours, theirs, items = _zero_y(name, buffer=buffer, negative_zero=0x8000)
    assert np.array_equal(ours, theirs)
    assert any("negation moved onto the other factor" in i.reason for i in items) == replayed


def test_scan_of_widened_negations_whose_add_llvm_made_a_sub():
    """``tl.cumsum((-x).to(f64))`` of an f32 x (held-out seed 107911, silent at x = −0.0 with zero-rich inputs): LLVM
    adds the first two elements as ``sub.f64 d, e1, x0.to(f64)``, the first element's negation folded into the sub;
    Triton sums sext(−φ(x0)), which differs from −sext(φ(x0)) at φ(−0) = −2^31. The sub's location is the scan's,
    inlined at the user's call: decided there. Bit for bit on inputs with ±0.0."""
    from tests.test_fpsan_body_join import _zero_y
    ours, theirs, items = _zero_y("seed107911", buffer="x0_ptr", negative_zero=1 << 31)
    assert np.array_equal(ours, theirs)
    assert any(i.opcode == "sub.f64" and "decided by the source" in i.reason for i in items)


@pytest.mark.parametrize("name,buffer", [("seed116414", "x0_ptr"), ("k_add_of_negated_narrow_product_bf16", "x0_ptr")])
def test_narrow_product_with_a_negated_factor_folded_into_the_widened_add(name, buffer):
    """``((h * -1.0) * w) + q`` of bf16 ``h``, ``w`` and an f32 ``q`` (held-out seed 116414, silent at first contact at
    x0 = −0.0): LLVM's ``q - h·w`` with the product widened; Triton widens the bf16 ring's −(h·w), which differs
    from the f32 ring's −sext(h·w) where h·w is φ(−0) = −2^15. Bit for bit on inputs with ±0.0 there."""
    from tests.test_fpsan_body_join import _zero_y
    ours, theirs, items = _zero_y(name, buffer=buffer, negative_zero=0x8000)
    assert np.array_equal(ours, theirs)
    assert any(i.opcode == "sub.f32" and "a − (−h)" in i.reason and "decided by the source" in i.reason for i in items)


def test_sum_of_widened_narrow_products_with_a_negated_factor():
    """``tl.sum((x0 * (-x1.to(bf16))).to(f32), axis=1)`` of bf16 x0 (held-out seed 117323, silent at first contact in
    3 of 8 rows): LLVM keeps the sign xor on alternate products and adds the others as ``sub.f32 a, sext(x0·x1)``;
    Triton sums the widened bf16 ring products −(x0·x1), which differ where x0·x1 is φ(−0) = −2^15 (frequent for
    products of bf16 ring values). The sub's location is the inlined sum's, decided at the user's call."""
    from tests.test_fpsan_libdevice import _compare
    ours, theirs, errors = _compare("seed117323", folds=())
    assert np.array_equal(ours, theirs)
    assert not errors


@pytest.mark.parametrize("name,negative_zero", [("k_narrowed_add_of_widened_negation_bf16", 0x8000),
                                                ("k_narrowed_sub_of_widened_negation_bf16", 0x8000),
                                                ("k_narrowed_add_of_widened_negation_f32", 1 << 31)])
def test_narrowed_f64_op_with_a_narrow_negation_folded_in(name, negative_zero):
    """``((-h).to(f64) + y).to(f32)`` (and ``y - (h * -1.0).to(f64)``) of a bf16 or f32 h: LLVM shrinks the f64 op to
    f32 and folds the negation into it (``sub.f32 y, h'``, ``add.f32 h', y``); Triton negates h in its own ring, widens
    to f64, adds and narrows. The replay at f64 takes sext(−φ(h)), which differs from −sext(φ(h)) at φ(−0) = −2^(w−1)
    (silent before). Bit for bit on inputs with ±0.0 in h."""
    from tests.test_fpsan_body_join import _zero_y
    ours, theirs, items = _zero_y(name, buffer="x0_ptr", negative_zero=negative_zero)
    assert np.array_equal(ours, theirs)
    assert any("narrow negation LLVM folded into this op" in i.reason for i in items)


def test_narrowed_f64_add_of_two_loads_with_a_negation_folded_in_is_the_negated_ones():
    """``(y - (-x).to(f64)).to(f32)`` of f32 x, y: LLVM's ``add.f32`` of the two loads; the source negates x, and the
    operand x's load is assigned to (``HintsBase.loaded_name``) is the one replayed as sext(−φ(x)) (silent before)."""
    from tests.test_fpsan_body_join import _zero_y
    ours, theirs, items = _zero_y("k_narrowed_sub_of_widened_negation_f32", buffer="x0_ptr", negative_zero=1 << 31)
    assert np.array_equal(ours, theirs)
    assert any("narrow negation LLVM folded into this op" in i.reason for i in items)


def test_narrowed_f64_add_of_two_operands_no_load_tells_apart_is_reported(tmp_path):
    """The same add where neither operand is a load the source names (registers of the hand-written kernel): which
    one the source negates the PTX does not say, so the replay cannot negate the right payload: reported."""
    from tests.test_fpsan_folds import _run
    from tests.test_fpsan_source_hints import _with_source
    text = _with_source(tmp_path, "(x1 - (-x0).to(tl.float64)).to(tl.float32)", "{loc}\n\tadd.f32 %d, %a, %b;", "(x1 -",
                        nin=2)
    _, rep = _run(text, [[0x3F800000, 0x40000000]])
    assert any(i.severity == "error" and "subtracts a narrow negation" in i.reason for i in rep.items)


def test_select_of_narrow_negations_promoted_by_an_add():
    """``tl.where(c, -a, -b) + y`` of bf16 a, b and an f32 y: LLVM hoists the negation out of the select and subtracts
    the widened select; Triton widens the bf16 ring's negation (silent at a = −0.0 before)."""
    from tests.test_fpsan_body_join import _zero_y
    ours, theirs, items = _zero_y("k_add_of_negated_select_bf16", buffer="x0_ptr", negative_zero=0x8000)
    assert np.array_equal(ours, theirs)
    assert any(i.opcode == "sub.f32" and "a − (−h)" in i.reason for i in items)


def test_widening_of_a_narrow_product_with_a_negated_factor_is_the_negation_before_the_cast():
    """``((h * -1.0) * w).to(f32) + y * 3.0`` of bf16 h, w: LLVM's ``neg.f32`` of the widened product, the source's
    ``(-p).to(f32)`` (the ring's (−φ(h))·φ(w) is −(φ(h)·φ(w))): the cast of the bf16 ring negation, decided by the
    source (reported as undecided before). Bit for bit on inputs with ±0.0 in h."""
    from tests.test_fpsan_body_join import _zero_y
    ours, theirs, items = _zero_y("k_neg_cast_of_negated_product_bf16", buffer="x0_ptr", negative_zero=0x8000)
    assert np.array_equal(ours, theirs)
    assert not [i for i in items if i.severity == "error"]


def test_negation_through_a_maximum_of_one_value_is_a_chain_step():
    """``(-tl.maximum(w, w)).to(f16)`` of ``w = x.to(f64)``, an f32 x (held-out seed 120415, reported before): LLVM
    folds the max of one value and narrows before the sign xor; the source's chain through the max is f64, neg, f16
    (the ring's max of w with itself is w), so Triton's narrowing of the f64 negation is replayed."""
    from tests.test_fpsan_libdevice import _compare
    ours, theirs, errors = _compare("k_neg_of_same_max_widened_narrowed_f32", folds=())
    assert np.array_equal(ours, theirs)
    assert not errors


@pytest.mark.parametrize("name", ["k_self_sub_beside_half_sum_of_negation", "seed161760"])
def test_self_sub_at_a_merged_location_beside_a_half_sum_of_a_negation(name):
    """``log(y.to(f32) - y.to(f32)).to(f16) + h`` beside ``e.to(f16) + (-h)`` (held-out seed 161760, silent at first
    contact where y = −0.0): the later copies' ``sub.f32 t, y, y`` sit at the line's column 0, whose half sum of a
    negation is no f32 op: the ring's φ(y) − φ(y) = 0, not a − (−h). Bit for bit on inputs with ±0.0 there."""
    from tests.test_fpsan_body_join import _zero_y
    ours, theirs, items = _zero_y(name, buffer="x1_ptr", negative_zero=0x8000)
    assert np.array_equal(ours, theirs)
    assert not any(i.opcode == "sub.f32" and "a − (−h)" in i.reason for i in items)


@pytest.mark.parametrize("name", ["seed229561", "k_neg_cast_minus_diff_of_cast_f32"])
def test_plain_subtraction_of_a_cast_shared_with_a_negated_one_is_bit_exact(name):
    """``(-x).to(f16) - (y - x.to(f16))`` (held-out seed 229561, silent at first contact in 83/128): LLVM makes both
    casts of x one cvt at the first's location and negates it with a ``neg.f16`` for ``(-x).to(f16)``; the inner
    ``sub.f16 t, y, c`` is the source's plain ``y - x.to(f16)`` (its own location says so), not ``(-x).to(f16) + y``
    with the negation moved into it. Bit for bit, nothing reported."""
    from tests.test_fpsan_libdevice import _compare
    ours, theirs, errors = _compare(name, folds=())
    assert np.array_equal(ours, theirs)
    assert not errors
