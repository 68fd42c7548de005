"""Arithmetic LLVM pushes into a ``tl.where``'s literal arm and folds natively (``ptxkit.fpsan.fold_select_arith``):
``where(c, x, 3.0) * 2.0`` is ``selp d, x * 2.0, 6.0, p``, where Triton's FPSan multiplies φ(3.0) by φ(2.0) in the
ring. User-style probes found the half and max/min chains, ``float("-inf")``/``float("nan")`` literals, the
exp's ``* log2e`` on a where of a cast, a literal through a name or a helper's parameter, and a where of f64 widenings
narrowed before the arithmetic silent; a folded constant no chain explains is reported."""

from __future__ import annotations

import pytest

from tests.test_fpsan_libdevice import _assert_bit_exact, _compare


@pytest.mark.parametrize("name", ["k_select_half_times_f16", "k_select_max_bf16", "k_select_inf_times_f32",
                                  "k_select_nan_plus_f64", "k_select_exp_ninf_f64", "k_select_exp_const_f64",
                                  "k_select_own_arm_ninf_f32", "k_select_lit_cast_chain_f64",
                                  "k_where_name_literal_times_two_f32", "k_helper_where_literal_times_three_f64",
                                  "k_where_wide_literal_times_three_f32"])
def test_folded_literal_arm_is_the_rings(name):
    _assert_bit_exact(name, folds=())


def test_folded_constant_no_chain_explains_is_reported():
    """``exp(where(c, 1.0, 2.0)) * x``: LLVM selects e and e² computed natively; Triton's ring exps of φ(1.0) and
    φ(2.0) are not replayed — an error at the select, never silent."""
    ours, theirs, errors = _compare("k_select_consts_exp_f32", folds=())
    assert (ours != theirs).any()
    assert any("select of a constant no literal of the where" in e.reason for e in errors)
