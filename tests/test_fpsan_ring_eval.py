"""A source expression of constants and one ``tl.where`` of literals, evaluated natively and in Triton's ring
(``ptxkit.fpsan.source_ring_eval``), and the two folds that read it: the select of constants LLVM computed from the
where's literals and the work above it (statement seed 4333, silent), and a constant LLVM folded from an expression
Triton computes in part in the ring (statement seed 2147, silent). The ring values are docs/fpsan.md's f32 vectors;
the native ones numpy's IEEE arithmetic; the kernels Triton's own FPSan build, bit for bit."""

from __future__ import annotations

import ast
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from ptxkit.fpsan import ring as R
from ptxkit.fpsan.source_ast import SourceFile
from ptxkit.fpsan.source_decided import decided_arm
from ptxkit.fpsan.source_ring_eval import _round, constant_parts, evaluate
from tests.test_fpsan_libdevice import _assert_bit_exact


def _source(body: str) -> tuple[SourceFile, ast.expr, ast.Call | None]:
    src = "def k(x):\n" + "".join(f"    {line}\n" for line in body.splitlines())
    tree = ast.parse(src)
    f = SourceFile.of_tree("k.py", src, tree)
    ret = next(n for n in ast.walk(tree) if isinstance(n, ast.Return))
    where = next((n for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
                  and n.func.attr == "where"), None)
    assert ret.value is not None
    return f, ret.value, where


@pytest.mark.parametrize("body,arm,native,bits", [
    ("return tl.where(x > 0, 1.0, 3.0) + 2.0", 1.0, 3.0, 0x2B2EB900),  # add(1.0, 2.0)
    ("return tl.where(x > 0, 2.0, 3.0) * 0.5", 2.0, 1.0, 0x2A34FD6E),  # mul(2.0, 0.5)
    ("return tl.maximum(tl.where(x > 0, 2.0, 3.0), 0.5)", 2.0, 2.0, 0x3F000000),  # max(2.0, 0.5): payload order
    ("return tl.minimum(0.5, tl.where(x > 0, 2.0, 3.0))", 2.0, 0.5, 0x40000000),  # min(2.0, 0.5)
    ("v = tl.where(x > 0, 1.0, 3.0)\nreturn 2.0 + v", 1.0, 3.0, 0x2B2EB900),  # (through a name)
])
def test_where_arm_through_the_work_above_it_is_the_rings(body, arm, native, bits):
    f, e, where = _source(body)
    v = evaluate(f, e, where, arm)
    assert v is not None and v.ring and v.t == "f32"
    assert (v.native, v.bits) == (native, bits)


def test_constants_alone_are_folded_natively():
    """MLIR folds arithmetic of constants before the FPSan pass: no ring value (a name's number is an fp32 scalar)."""
    f, e, _ = _source("c = 0.5\nreturn tl.maximum(c, 2.0) * 3.0")
    v = evaluate(f, e)
    assert v is not None and (v.t, v.native, v.ring) == ("f32", 6.0, False)
    assert v.bits == int(np.float32(6.0).view(np.uint32))


def test_an_inexact_cast_of_a_constant_is_the_rings_and_so_is_all_after_it():
    f, e, _ = _source("c = 0.7978845608\nreturn tl.minimum(c.to(tl.float16), c.to(tl.float32)) + x")
    parts = constant_parts(f, e)
    assert [ast.unparse(p) for p, _ in parts] == ["tl.minimum(c.to(tl.float16), c.to(tl.float32))"]
    v = parts[0][1]
    assert v.ring and v.t == "f32" and v.native == float(np.float16(np.float32(0.7978845608)))


def test_other_operations_and_other_values_are_not_evaluated():
    for body in ("return tl.where(x > 0, 1.0, 3.0) + x", "return tl.exp(tl.where(x > 0, 1.0, 3.0))",
                 "return tl.where(x > 0, 1.0, 3.0) / 3.0"):
        f, e, where = _source(body)
        assert evaluate(f, e, where, 1.0) is None, body


@given(st.floats(allow_nan=False, allow_infinity=False, width=64), st.floats(allow_nan=False, allow_infinity=False,
                                                                          width=64))
def test_exact_rounding_is_ieees(a, b):
    """The native value of a sum, correctly rounded from its exact value, is numpy's f32/f16 sum of the operands."""
    for t, ft in (("f32", np.float32), ("f16", np.float16)):
        with np.errstate(all="ignore"):
            x, y = ft(a), ft(b)
        if not (np.isfinite(x) and np.isfinite(y)):
            continue
        with np.errstate(all="ignore"):
            want = ft(x + y)
        exact = Fraction(float(x)) + Fraction(float(y))
        if exact != 0:
            assert _round(exact, t) == float(want)


@pytest.mark.parametrize("name", ["k_fma_of_where_literals_f16", "k_max_of_where_literals_bf16",
                                  "k_half_sum_of_where_literal_f32", "k_min_of_named_literal_casts_f32",
                                  "k_where_literal_sum_widened_stored_f16", "k_where_literals_squared_twice_read_f16"])
def test_folded_constants_are_tritons_ring_values(name):
    """Bit for bit against Triton's FPSan build, nothing reported (silent mismatches before)."""
    _assert_bit_exact(name, folds=())


def test_a_narrowing_of_a_widening_is_the_narrowing_of_the_value():
    """MLIR folds ``truncf(extf(x))`` before the FPSan pass: the ring narrows x itself, not its sign extension."""
    f, e, where = _source("return (tl.where(x > 0, 1.5, 2.0) + 0.1).to(tl.float64).to(tl.float16)")
    g, d, where2 = _source("return (tl.where(x > 0, 1.5, 2.0) + 0.1).to(tl.float16)")
    via, direct = evaluate(f, e, where, 1.5), evaluate(g, d, where2, 1.5)
    assert via is not None and direct is not None and via.t == "f16"
    assert (via.native, via.bits) == (direct.native, direct.bits)


def test_an_fma_of_constants_is_the_rings():
    """MLIR folds arithmetic of constants but not ``math.fma``: Triton's FPSan build of ``tl.math.fma(c2, -1.0, 4.0)``
    (statement seed 5463) multiplies by the payload 1078088956 = φ(0.25)·φ(−1) + φ(4) (its ``mad.wide.s32``)."""
    f, e, _ = _source("return tl.fma(0.25, -1.0, 4.0)")  # (parse_python reads tl.math.fma as tl.fma)
    v = evaluate(f, e)
    assert v is not None and v.ring and v.t == "f32" and v.native == 3.75
    assert R.embed_int(v.bits, "f32") == 1078088956


@pytest.mark.parametrize("body,picked", [
    ("tl.where(tl.where(x < 0, 4.0, x) < 0, y, 2.0)", "2.0"),  # x < 0 picks 4.0, not < 0; else x, not < 0
    ("tl.where(tl.where(x < 0, x, -1.0) < 0, 2.0, y)", "2.0"),  # x < 0 picks x, < 0; else -1.0, < 0
    ("tl.where(tl.where(x > 1.0, 0.5, x) > 1.0, y, 2.0)", "2.0"),
    ("tl.where(x > x, y, 2.0)", "2.0"),  # (never true, NaN too)
])
def test_a_where_llvm_decides_from_the_source_picks_its_arm(body, picked):
    f, e, _ = _source(f"return {body}")
    assert isinstance(e, ast.Call)
    arm = decided_arm(f, e)
    assert arm is not None and ast.unparse(arm) == picked


@pytest.mark.parametrize("body", [
    "tl.where(tl.where(x < 0, -4.0, x) < 0, y, 2.0)",  # -4.0 < 0: the comparison is x < 0's, not decided
    "tl.where(tl.where(x < 0, 4.0, x) <= 0, y, 2.0)",  # x = 0 is <= 0
    "tl.where(tl.where(x < 0, 4.0, x) < 1.0, y, 2.0)",  # another bound
    "tl.where(x > y, y, 2.0)",
])
def test_a_where_the_source_does_not_decide_is_not_picked(body):
    f, e, _ = _source(f"return {body}")
    assert isinstance(e, ast.Call) and decided_arm(f, e) is None


def test_the_floor_of_a_decided_where_is_the_rings_tag():
    """``floor(where(where(x < 0, 4.0, x) < 0, y, 2.5))`` of an f64 y: LLVM's 2.0; Triton's build floors the picked
    arm in the ring (docs/fpsan.md §2 tagged unary: ((E·K) ^ T)·K, Floor 9) at the where's type, y's."""
    f, e, _ = _source("y = tl.load(p)\nreturn tl.floor(tl.where(tl.where(x < 0, 4.0, x) < 0, y, 2.5))")
    v = evaluate(f, e, types={"y": "f64"})
    assert v is not None and v.ring and v.t == "f64" and v.native == 2.0
    k, t = 314159, R.murmur64(9)
    want = (((R.embed_int(0x4004000000000000, "f64") * k) % 2**64) ^ t) * k % 2**64
    assert R.embed_int(v.bits, "f64") == want
    assert evaluate(f, e) is None  # (y's type unknown: the where's type is not known)


def test_a_static_range_loop_runs_unrolled():
    """``v = 1e-6``, then ``v = v * 3.0 + 1e-6`` in a ``tl.static_range(2)``: the frontend unrolls it and MLIR folds
    the fp32 arithmetic (native); the inexact bf16 narrowing after it is the ring's (statement seed 6028)."""
    f, e, _ = _source("v = 1e-6\nfor _i in tl.static_range(2):\n    v = v * 3.0 + 1e-6\nreturn v.to(tl.bfloat16)")
    v32 = np.float32(1e-6)
    for _ in range(2):
        v32 = np.float32(np.float32(v32 * np.float32(3.0)) + np.float32(1e-6))
    got = evaluate(f, e)
    want = int(R.float_cast(np.array([v32.view(np.uint32)], np.uint64), "f32", "bf16")[0])
    assert got is not None and got.ring and got.t == "bf16" and got.bits == want


def test_a_loop_the_run_cannot_unroll_leaves_the_name_unknown():
    f, e, _ = _source("v = 1e-6\nfor i in range(n):\n    v = v * 3.0 + 1e-6\nreturn v.to(tl.bfloat16)")
    assert evaluate(f, e) is None
