"""pow's inputs where its body reads a value and forms of it (issue 10; random first contact seed 245296, silent in
64/64: ``pow(abs(s), -s)`` of f64 hashed as pow(-s, s)). The matcher chooses the inputs from the body's reads; the
source's call locates each argument's register (``libdevice_order._check_pow``), and where it cannot, the inputs are
reported as disputed."""

from __future__ import annotations

import pytest

from ptxkit.fpsan_ptx import sanitize_text
from tests.test_fpsan_libdevice import DATA, _assert_bit_exact


@pytest.mark.parametrize("name", ["seed245296", "k_pow_abs_and_negation_f64", "k_pow_abs_and_negation_f32"])
def test_pow_inputs_are_the_arguments_the_source_computes(name):
    """The f64 kernels were silent (64/64, 36/128); the f32 one, whose matcher chose right, guards the check against
    taking a correct choice for a disputed one."""
    _assert_bit_exact(name, folds=())


def test_without_the_source_the_matchers_choice_stands():
    """No ``.file`` source: nothing contradicts the matcher (no dispute reported); the source is what decides."""
    text = (DATA / "seed245296.plain.ptx").read_text()
    res = sanitize_text(text, "seed245296.plain.ptx", source_hints=False)
    assert not [i for i in res.report.items if "inputs of the inlined" in i.reason]


def test_atan2_of_an_abs_and_a_negation_orders_its_inputs_by_their_ops():
    """``atan2(abs(x), -x)``: both computed at LLVM's merged locations, the order undecided (reported) before; the
    argument that is an abs is the input an ``abs`` wrote."""
    _assert_bit_exact("k_atan2_abs_and_negation_f32", folds=())
