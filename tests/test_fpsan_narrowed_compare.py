"""A narrowing cast compared with a literal (``ptxkit.fpsan.fold_narrowed_compare``; issue 10, custom kernels found
probing held-out seed 49895, silent before): ``x.to(f16) <= 0.5`` of an f64 x is ``setp.le.f64 x, 0.50048828125``
in the plain PTX (LLVM drops the narrowing and moves the constant to the rounding boundary), while Triton's FPSan
compares the float of the ring narrowing with 0.5. Triton 3.9 pairs in tests/data/triton_libdevice (make_pairs.py
HAND), bit for bit on the simulator."""

from __future__ import annotations

import re

import pytest

from tests.test_fpsan_libdevice import _assert_bit_exact, _build, _compare


@pytest.mark.parametrize("name", ["k_f16_cast_le_half_f64", "k_bf16_cast_gt_f32", "k_f32_cast_lt_zero_f64"])
def test_narrowed_value_compared_with_a_literal_is_tritons_comparison(name):
    plain, _ = _build(name, "plain")
    wide = "f64" if name.endswith("f64") else "f32"
    assert re.search(rf"setp\.\w+\.{wide}\s+%p\d+, %\w+, 0[fd]", plain)  # the shape: the wide value, a constant
    _assert_bit_exact(name, folds=())


def test_select_of_literals_narrowed_after_it_is_tritons_ring_narrowing():
    """``tl.where(c, 1.0, 2.0)`` stored as bf16 (custom kernel probing seed 49895, silent before): LLVM folds the
    narrowing into the literals (``selp.b16 d, 0x3F80, 0x4000, p``), Triton narrows φ_f32(2.0) in the ring."""
    plain, _ = _build("k_where_literals_stored_bf16", "plain")
    assert re.search(r"selp\.b16\s+%rs\d+, 16256, 16384", plain)
    _assert_bit_exact("k_where_literals_stored_bf16", folds=())


def test_select_of_a_literal_and_a_widening_narrowed_after_it_is_computed_wide():
    """``tl.where(c, 3.0, x.to(f64))`` stored as f16 of an f32 x (silent before): the select's narrowing of the
    widened x is Triton's f64 → f16 ring narrowing (computed so, reported: the source decides it), not f32's."""
    ours, theirs, errors = _compare("k_where_literal_or_widened_stored_f16", folds=())
    assert (ours == theirs).all()
    assert any(e.opcode.startswith("cvt.rn.f16.f32") for e in errors)


def test_select_of_a_widening_whose_narrowing_llvm_shared_is_reported():
    """``tl.where(c, x1.to(f64), ..)`` stored as bf16 beside an ``x1.to(bf16)`` of the f32 x1 (held-out seed 135626,
    silent at first contact: 170/512): LLVM narrows the arms and reads the other conversion's ``cvt.rn.bf16.f32``;
    Triton narrows the f64 ring value. Reported at the select."""
    ours, theirs, errors = _compare("seed135626", folds=())
    assert not (ours == theirs).all()
    assert any(e.opcode == "selp.b16" and "shares" in e.reason for e in errors)


@pytest.mark.parametrize("name,shape", [("k_where_literals_stored_f64", r"selp\.b64\s+%rd\d+, 4607182418800017408, "
                                                                        r"4611686018427387904"),
                                        ("k_where_loaded_or_literal_stored_f64", r"selp\.b64\s+%rd\d+, %rd\d+, "
                                                                                 r"4611686018427387904"),
                                        ("k_where_literal_or_loaded_stored_bf16", r"selp\.b16\s+%rs\d+, 16384, %rs\d+"),
                                        ("seed68925", None)])
def test_select_of_literals_cast_after_it_is_tritons_ring_cast(name, shape):
    """``tl.where(c, 1.0, 2.0)`` promoted to f64 (held-out seed 68925, silent at first contact with zero-rich inputs,
    and in 29 of 128 elements of ``where(x*x - y.to(f64) < 0.5, 1.0, 2.0)``): LLVM folds the widening into the
    literals (``selp.b64 d, 1.0, 2.0``); Triton sign-extends φ_f32(2.0) in the ring, which is not φ_f64(2.0). Where
    an arm is a loaded x (``where(c, x, 2.0)`` of an f32 x stored as f64 or bf16, silent), the PTX's conversion of
    x says the where's type, and for a 16-bit select whether the literal went to f16 or bf16."""
    if shape is not None:
        plain, _ = _build(name, "plain")
        assert re.search(shape, plain)
    _assert_bit_exact(name, folds=())


@pytest.mark.parametrize("name", ["seed110741", "k_where_negated_narrowing_lt_f32", "k_where_narrowing_ge_negated_f64",
                                  "k_where_negated_gt_f32"])
@pytest.mark.parametrize("zeros", [False, True])
def test_value_compared_with_its_negation_is_tritons_comparison(name, zeros):
    """``(-x.to(f16)) < x.to(f16)`` of an f32 x (held-out seed 110741, reported before) is ``setp.gt.f32 x, 2^-25``:
    LLVM folds the comparison with the negation into the boundary where the narrowed sign changes. Rebuilt as
    Triton's comparison of the ring narrowing with its ring negation, on the kernels' inputs and on ±0.0 ones."""
    if not zeros:
        _assert_bit_exact(name, folds=())
        return
    import numpy as np

    from tests.test_fpsan_body_join import _zero_y
    zero = 1 << 63 if "f64" in name else 1 << 31
    ours, theirs, _ = _zero_y(name, buffer="x0_ptr", negative_zero=zero)
    assert np.array_equal(ours, theirs)
