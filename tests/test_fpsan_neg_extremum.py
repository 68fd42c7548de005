"""LLVM's ``min(−a, −b)`` → ``−max(a, b)`` under a reduction (``ptxkit.fpsan.fold_neg_extremum``; issue 10, held-out
seeds 14282, 14470, 13518, reported before): where the user's ``tl.min`` reduces negations, each max of the tree is
computed as −min(−a, −b), so the negation at the root is Triton's ring min of the negations, −0 included
(φ(−0) = −2^31 is its own negation). Hand-written kernels in Triton 3.9's shape against the ring module."""

from __future__ import annotations

import numpy as np
import pytest

from ptxkit.fpsan import ring as R
from tests.test_fpsan_body_join import _zero_y
from tests.test_fpsan_folds import ONE, TWO, _items, _run
from tests.test_fpsan_libdevice import _assert_bit_exact, _compare
from tests.test_fpsan_source_hints import EXPR_LINE, SRC, _with_source

NEG0 = 0x80000000


def _body(expr: str) -> str:
    col = SRC.replace("EXPR", expr).splitlines()[EXPR_LINE - 1].index("tl.") + 1
    at = f".loc 2 254 12, function_name $L__info_string0, inlined_at 1 {EXPR_LINE} {col}"
    return f"{at}\n\tmax.f32 %t, %a, %b;\n\tmax.f32 %u, %t, %a;\n\tneg.f32 %d, %u;"


def _ring_min_of_negations(a: int, b: int) -> int:
    pa, pb = (R.embed(np.array([x], np.uint64), "f32") for x in (a, b))
    na, nb = R.neg(pa, 32), R.neg(pb, 32)
    return int(R.unembed(R.smin(R.smin(na, nb, 32), na, 32), "f32")[0])


@pytest.mark.parametrize("a,b", [(NEG0, ONE), (ONE, NEG0), (TWO, ONE)])
def test_min_of_negations_reduced_as_a_negated_max_tree_is_tritons(tmp_path, a, b):
    expr = "tl.min(-x0, axis=0)"
    text = _with_source(tmp_path, expr, _body(expr), "", nin=2) + '\t.file\t2 "standard.py"\n'
    out, rep = _run(text, [[a, b]])
    assert out == [_ring_min_of_negations(a, b)]
    assert [s for o, s in _items(rep) if o == "neg.f32"] == ["note"]
    if NEG0 in (a, b):
        assert out == [NEG0]  # the ring's −max(a, b) would be −1.0 here


@pytest.mark.parametrize("expr", ["tl.min(-tl.maximum(x0, x1), axis=0)", "tl.min(x0, axis=0)"])
def test_tree_stays_as_written_where_the_source_does_not_negate_only_the_operands(tmp_path, expr):
    """A max the source takes itself inside the negation (``-maximum(x0, x1)``: Triton's −max(a, b) differs from
    min(−a, −b) at −0), or no negation: the tree as written, the negation reported."""
    text = _with_source(tmp_path, expr, _body(expr), "", nin=2) + '\t.file\t2 "standard.py"\n'
    out, rep = _run(text, [[NEG0, ONE]])
    assert out == [0xBF800000] and ("neg.f32", "error") in _items(rep)


@pytest.mark.parametrize("name", ["seed14282", "seed14470", "seed34595", "seed36975", "seed38073"])
def test_held_out_reductions_of_negations_are_tritons_bits(name):
    """Triton 3.9 pairs: ``tl.min(-maximum(x, x))`` of f32 whose result pow reads (its body tests the max tree's
    value natively, 14282), ``tl.min(-x.to(bf16))`` through a shuffle step (14470), ``tl.max(x.to(bf16) * -1.0)``
    as a min.bf16 tree under one ``xor.b16`` (34595: silent before, −0 columns differed), ``tl.max(-fma(..))`` of bf16
    stored as ``s.to(f64) + 1.0``, the negation in the sub after the widening (36975, silent before), ``(-tl.min(-h))
    * 2.0`` of bf16, the negations cancelled (38073, silent before): bit for bit with Triton's FPSan build, nothing
    reported."""
    _assert_bit_exact(name)


@pytest.mark.parametrize("name,buffer", [("seed137708", "x0_ptr"), ("k_min_of_wide_negations_bf16", "x0_ptr"),
                                         ("k_min_of_narrow_negations_widened_bf16", "x1_ptr")])
def test_minimum_of_negations_at_the_negations_width(name, buffer):
    """``tl.minimum(-a.to(f64), -b.to(f64)) + 1.0`` of bf16 a, b is ``1.0 - max.bf16(a, b)`` widened: the source negates
    the wide values, whose ring order the narrow max carries as written (held-out seed 137708, silent at −0: replayed
    with 16-bit negations, which keep φ(−0) = −2^15); ``tl.minimum((-a).to(f64), (-b).to(f64))`` negates the narrow
    ones, the tree's 16-bit replay (silent before: the negation under the cast was not seen). Bit for bit at ±0."""
    _assert_bit_exact(name, folds=())
    ours, theirs, items = _zero_y(name, buffer=buffer, negative_zero=0x8000)
    assert np.array_equal(ours, theirs)
    assert not [i for i in items if i.severity == "error"]


def test_negation_widened_to_the_trees_type_stays_reported():
    """``tl.max((x * -1.0).to(f32))`` of a half x (held-out seed 131412, reported before, silent under the first
    version of the rule above): the negation is the half's, before the widening to the tree's own f32; the tree's
    32-bit replay would differ at −0, so the negation stays reported."""
    ours, theirs, errors = _compare("seed131412", folds=())
    assert not (ours == theirs).all()
    assert any("negation of a max/min" in e.reason for e in errors)


def test_max_read_by_a_vector_move_is_walked_without_a_crash():
    """A max whose result a ``mov.b64 {_, hi}, m`` splits (the held-out range 15100–15299 crashed on six kernels
    in the tree walk): sanitized, the max as the ring max (no negation reaches it)."""
    from tests.test_fpsan_folds import _kernel
    body = "max.f64 %t, %a, %b;\n\tmov.b64 {_, %r1}, %t;\n\tmov.b64 %d, {%r1, %r1};"
    out, rep = _run(_kernel(body, w=64), [[0x3FF0000000000000, 0x4000000000000000]], w=64)
    assert not rep.errors and len(out) == 1


def test_sign_xor_after_the_tree_at_the_stores_location(tmp_path):
    """``tl.min(-x)`` whose negation LLVM leaves as one sign xor after the tree, carrying the store's location
    (held-out seed 11777, reported before): the tree's own location (the reduction's call) decides it."""
    from tests.test_fpsan_source_hints import STORE_LINE
    expr = "tl.min(-x0, axis=0)"
    body = _body(expr).replace("\tneg.f32 %d, %u;", f"\t.loc 1 {STORE_LINE} 5\n\txor.b32 %d, %u, -2147483648;")
    text = _with_source(tmp_path, expr, body, "", nin=2) + '\t.file\t2 "standard.py"\n'
    out, rep = _run(text, [[NEG0, ONE], [TWO, ONE]])
    assert out == [NEG0, _ring_min_of_negations(TWO, ONE)]
    assert [s for o, s in _items(rep) if o == "xor.b32"] == ["note"]


@pytest.mark.parametrize("expr,converted", [("tl.minimum(-x0, x1 * -1.0)", True),
                                            ("tl.minimum(-x0, x1)", False)])
def test_elementwise_minimum_of_negations(tmp_path, expr, converted):
    """``tl.minimum(-a, -b)`` as LLVM's ``neg(max(a, b))`` at the call's location (held-out seed 14532): the max is
    computed as −min(−a, −b), the negation is Triton's ring min of the negations; with one operand not negated the
    PTX cannot be this call, and nothing changes (the negation reported)."""
    body = "{loc}\n\tmax.f32 %t, %a, %b;\n\tneg.f32 %d, %t;"
    text = _with_source(tmp_path, expr, body, "tl.minimum", nin=2)
    out, rep = _run(text, [[NEG0, ONE]])
    if converted:
        assert out == [NEG0] and [s for o, s in _items(rep) if o == "neg.f32"] == ["note"]
    else:
        assert out == [0xBF800000] and ("neg.f32", "error") in _items(rep)


@pytest.mark.parametrize("a,b", [(NEG0, ONE), (NEG0, NEG0), (TWO, ONE)])
def test_negation_moved_into_a_subtraction_after_a_widening(tmp_path, a, b):
    """``tl.min(-x)`` stored as ``r.to(f64) + 1.0`` (held-out seed 36975, silent at −0: the max tree, ``cvt.f64.f32 c,
    T`` and ``sub.f64 d, 1.0, c``): Triton widens the ring min of the negations and adds φ(1.0) — sext(−T), not
    −sext(T), which differ where T = φ(−0) = −2^31 (a column of −0s)."""
    expr = "tl.min(-x0, axis=0)"
    root = "\t{store}\n\tcvt.f64.f32 %e1, %u;\n\tsub.f64 %rd7, 0d3FF0000000000000, %e1;\n\tmov.b64 %d, %rd7;"
    body = _body(expr).replace("\tneg.f32 %d, %u;", root)
    text = _with_source(tmp_path, expr, body, "", nin=2, out_w=64) + '\t.file\t2 "standard.py"\n'
    out, rep = _run(text, [[a, b]], out_w=64)
    m = np.array([_ring_min_of_negations(a, b)], np.uint64)
    wide = R.float_cast(m, "f32", "f64").astype(np.uint64)
    want = R.unembed(R.add(R.embed(wide, "f64"), R.embed(np.array([0x3FF0000000000000], np.uint64), "f64"), 64), "f64")
    assert out == [int(want[0])]
    assert [s for o, s in _items(rep) if o in ("sub.f64", "max.f32")] == ["note", "note", "note"]


@pytest.mark.parametrize("a,b", [(NEG0, ONE), (TWO, ONE)])
def test_tree_whose_negation_llvm_cancelled_is_the_negated_reduction(tmp_path, a, b):
    """``-tl.min(-x)`` (held-out seed 38073: ``(-tl.min(-h)) * 2.0`` of bf16, silent at −0): LLVM's max tree with no
    negation left; each node is computed as −min(−a, −b), so the tree's value is Triton's −(min of the negations)."""
    expr = "-tl.min(-x0, axis=0)"
    body = _body(expr).replace("\tneg.f32 %d, %u;", "\tmov.b32 %d, %u;")
    text = _with_source(tmp_path, expr, body, "", nin=2) + '\t.file\t2 "standard.py"\n'
    out, rep = _run(text, [[a, b]])
    m = R.embed(np.array([_ring_min_of_negations(a, b)], np.uint64), "f32")
    assert out == [int(R.unembed(R.neg(m, 32), "f32")[0])]
    assert [s for o, s in _items(rep) if o == "max.f32"] == ["note", "note"]


def test_narrow_tree_of_a_wider_reduction_of_negations_is_reported(tmp_path):
    """``-tl.min(-h.to(f32))`` of f16 h as an f16 max tree (held-out seed 40668, silent at −0): Triton reduces the
    negated widenings at 32 bits, where −sext(φ(−0)) = +2^15 is no minimum; the tree is not the narrow ring's
    reduction of negations: reported (the wider-reduction rule), not rewritten."""
    expr = "-tl.min(-x0.to(tl.float32), axis=0)"
    body = _body(expr).replace("max.f32", "max.f16").replace("\tneg.f32 %d, %u;", "\tmov.b16 %d, %u;")
    text = _with_source(tmp_path, expr, body, "", nin=2, w=16) + '\t.file\t2 "standard.py"\n'
    _, rep = _run(text, [[0x8000, 0x3C00]], w=16)
    assert [s for o, s in _items(rep) if o == "max.f16"] == ["error", "error"]


@pytest.mark.parametrize("expr,reported", [("tl.maximum(-x1, -tl.where(x0 > 0, x0, x1))", True),
                                           ("-tl.where(x0 > 0, tl.minimum(x0, x1), x1)", False)])  # the PTX's order
def test_negated_select_of_an_extremum_of_negations_is_reported(tmp_path, expr, reported):
    """``maximum(-a, -where(c, x, a))`` as ``−select(c, min(a, x), a)`` (held-out seed 56870, silent at first contact at
    φ(−0)): the select between the min and the sign xor hid the tree; reported where the source takes the extremum of
    negations, not where it writes the PTX's order itself."""
    col = SRC.replace("EXPR", expr).splitlines()[EXPR_LINE - 1].index("tl.") + 1
    body = (f"setp.gt.f32 %p1, %a, 0f00000000;\n\t.loc 1 {EXPR_LINE} {col}\n\tmin.f32 %t, %b, %a;\n\t"
            "selp.f32 %u, %t, %b, %p1;\n\t{store}\n\txor.b32 %d, %u, -2147483648;")
    _, rep = _run(_with_source(tmp_path, expr, body, "", nin=2), [[NEG0, ONE], [TWO, ONE]])
    assert any("select of a max/min" in e.reason for e in rep.errors) == reported


def test_held_out_negated_select_of_an_extremum_is_reported():
    ours, theirs, errors = _compare("seed56870", folds=())
    assert not (ours == theirs).all() and any("select of a max/min" in e.reason for e in errors)


def test_packed_negation_of_a_packed_max_is_rewritten_lane_by_lane():
    """Held-out seed 172555 (a sanitize crash at first contact, ``KeyError: no FPSan ring for type 'f16x2'``): a
    ``neg.f16x2`` of a ``max.NaN.f16x2`` that a min reads went to the sign folds' single-type ring op; it is the
    ring negation of each lane — bit for bit Triton's."""
    _assert_bit_exact("seed172555", folds=())
