"""Names assigned numbers (``s = 0.5``): Triton 3.9 makes such a local an fp32 scalar tensor, not a literal the other
operand types, so it promotes a half to f32 (``x * s`` of an f16 x is an f32 product), and an f64 where with it takes
its f32 value. User-style probes found clamps, comparisons and products of halves silent or reported, and selects of
such a name through LLVM's folds silent (``source_ast._width``, ``fold_select_arith._arm_number``,
``fold_narrowed_extremum``)."""

from __future__ import annotations

import ast

import pytest

from ptxkit.fpsan.source_ast import CONST, SourceFile, _width
from tests.test_fpsan_libdevice import _assert_bit_exact, _compare


@pytest.mark.parametrize("name", ["k_named_clamp_of_half_f16", "k_named_threshold_of_half_f16",
                                  "k_named_scale_of_half_bf16", "k_where_name_literal_times_two_f32"])
def test_named_number_is_an_fp32_scalar(name):
    """Bit for bit against Triton's FPSan build, nothing reported."""
    _assert_bit_exact(name, folds=())


def _widths(src: str) -> dict[str, int | None]:
    tree = ast.parse(src)
    f = SourceFile.of_tree("k.py", src, tree)
    ret = next(n for n in ast.walk(tree) if isinstance(n, ast.Return))
    assert isinstance(ret.value, ast.Tuple)
    return {ast.unparse(e): _width(f, e, 8) for e in ret.value.elts}


def test_a_names_float_is_f32_and_a_literal_takes_the_other_operands_type():
    widths = _widths("def k(x):\n    s = 0.5\n    i = 3\n    return s, 0.5, i, 3\n")
    assert widths == {"s": 32, "0.5": CONST, "i": CONST, "3": CONST}


@pytest.mark.parametrize("name", ["k_constexpr_param_floor_f32", "k_constexpr_local_where_times_three_f64"])
def test_constexpr_numbers_are_literals(name):
    """``S: tl.constexpr = 1.5`` in the body is a literal (typed by its use); a ``S: tl.constexpr`` parameter's value
    is the launch's, which the PTX's constant gives where LLVM's max.f32 reads it as is. Bit for bit, nothing
    reported (silent before)."""
    _assert_bit_exact(name, folds=())


def test_constexpr_parameter_put_through_arithmetic_is_reported():
    """``where(x > 0, x, S) * 3.0`` of a ``S: tl.constexpr`` parameter: LLVM's select constant is S · 3.0 folded
    natively; the source does not give S, so the ring's φ(S)·φ(3) is not replayed — an error, never silent."""
    ours, theirs, errors = _compare("k_constexpr_param_where_times_three_f32", folds=())
    assert (ours != theirs).any()
    assert any("tl.constexpr parameter" in e.reason for e in errors), [e.reason for e in errors]


@pytest.mark.parametrize("name", ["k_named_two_times_x_f32", "k_named_two_times_half_f16", "k_helper_scale_by_two_f16",
                                  "k_constexpr_param_times_S_f64"])
def test_what_multiplies_as_two_decides_a_self_add(name):
    """LLVM's ``add x, x`` of ``x * s``: a name assigned 2.0 (an f32 lane: the fp32 scalar is the literal's ring
    value; of a half, the f32 product it promotes to, narrowed back), a helper's parameter given 2.0, a
    ``tl.constexpr`` parameter (only 2.0 folds so): Triton's ring product (``source_self_add.two_like``; reported as
    undecided before)."""
    _assert_bit_exact(name, folds=())
