"""Half → integer conversions LLVM merged, and an integer compared through a half
(``ptxkit.fpsan.fold_merged_int_conversion``, ``SourceHints.int_wide``; issue 10 E, held-out seeds 10869 and 49895, both
silent at first contact; the f32 kin, silent in custom kernels).

``h.to(f32).to(int64)`` and ``h.to(f64).to(int64)`` of one half are both ``cvt.rzi.s64.f16`` after LLVM's folds, and
CSE keeps one: Triton's FPSan widens the payload to f32 in one and to f64 in the other, so no one conversion gives both
readers their integers — reported. ``y <= i.to(f16)`` of an f32 ``y`` widens the half for the comparison, which LLVM
folds into ``cvt.rn.f32.s32``: Triton's FPSan converts to the half natively and widens its payload, as the
int-wide fold computes — decided by the comparison's location."""

from __future__ import annotations

import pytest

from tests.test_fpsan_folds import _run
from tests.test_fpsan_libdevice import _assert_bit_exact, _compare
from tests.test_fpsan_source_hints import EXPR_LINE, SRC, _with_source

MERGED = "merged from two source conversions"
# one cvt for both conversions, read at the f32 chain's location and at the f64 chain's
BODY = ("{loc}\n\tcvt.rzi.s64.f16 %rd1, %a;\n\tcvt.rn.f32.s64 %r1, %rd1;\n\t.loc 1 {line} {col}\n\t"
        "cvt.rn.f32.s64 %r2, %rd1;\n\tadd.f32 %d, %r1, %r2;")


def _merged(rep) -> list[str]:
    return [i.reason for i in rep.errors if MERGED in i.reason]


@pytest.mark.parametrize("other,reported", [("x0.to(tl.float64)", True),  # the other chain widens to f64
                                            ("x0.to(tl.float32)", False)])  # both through f32: one conversion
def test_one_conversion_for_two_widenings_is_reported(tmp_path, other, reported):
    expr = f"x0.to(tl.float32).to(tl.int64).to(tl.float32) + {other}.to(tl.int64).to(tl.float32)"
    # the second chain's receiver: Triton's column for its .to() calls, 1-based
    col = SRC.replace("EXPR", expr).splitlines()[EXPR_LINE - 1].rindex(other) + 1
    body = BODY.replace("{col}", str(col)).replace("{line}", str(EXPR_LINE))
    _, rep = _run(_with_source(tmp_path, expr, body, "x0.to", w=16), [[0x4248], [0xC500]])
    got = _merged(rep)
    assert bool(got) == reported
    if reported:
        assert "f32" in got[0] and "f64" in got[0]


@pytest.mark.parametrize("name", ["k_half_to_int_through_f32_and_f64", "k_f32_to_int_directly_and_through_f64",
                                  "k_half_to_int_through_f64_and_round_trip"])
def test_held_out_kernel_is_reported(name):
    """Triton 3.9 pairs of the shape (10869's; and of an f32 x, where LLVM's a + a of the merged conversion is a shift
    at the cvt's own location, so only the file tells of the other conversion): the mismatch is reported."""
    ours, theirs, errors = _compare(name, folds=())
    assert not (ours == theirs).all()
    assert any(MERGED in e.reason for e in errors)


def test_half_narrowed_back_to_f32_is_its_f32_widening():
    """``h.to(f32).to(int32)`` beside ``h.to(f64).to(f32).to(int32)``: the ring narrows the sign-extended payload of h
    to h's f32 payload, so the two are one conversion in Triton's FPSan too: nothing merged, bit for bit."""
    ours, theirs, errors = _compare("k_half_to_int_through_f32_and_round_trip", folds=())
    assert not any(MERGED in e.reason for e in errors)
    assert (ours == theirs).all()


def test_two_values_converted_apart_are_not_merged(tmp_path):
    """``x0.to(int32)`` beside ``x1.to(f64).to(int32)``: two values, two conversions — nothing merged."""
    expr = "x0.to(tl.int32).to(tl.float32) + x1.to(tl.float64).to(tl.int32).to(tl.float32)"
    body = "{loc}\n\tcvt.rzi.s32.f32 %r1, %a;\n\tcvt.rn.f32.s32 %r2, %r1;\n\tadd.f32 %d, %r2, %r2;"
    _, rep = _run(_with_source(tmp_path, expr, body, "x0.to", nin=2), [[0x40000000, 0x3F800000]])
    assert not _merged(rep)


def test_integer_compared_through_a_half_is_bit_exact():
    """``tl.where(y.to(f32) <= i.to(f16), ..)`` with i from a bf16 (49895's comparison): bit-exact."""
    _assert_bit_exact("k_f32_le_int_to_f16", folds=())


@pytest.mark.parametrize("other,reported", [("x0.to(tl.float64)", True), ("x0.to(tl.float32)", False)])
def test_merged_conversion_read_through_its_merged_conversion_back(tmp_path, other, reported):
    """Held-out seed 82680 (silent at first contact): ``x.to(int64).to(f64)`` and ``x.to(f64).to(int64).to(f64)`` of
    one f32 x are one ``cvt.rzi.s64.f32`` and one ``cvt.rn.f64.s64`` at the first chain's location; the second
    chain's reader (its abs) is what tells the other widening."""
    expr = f"x0.to(tl.int64).to(tl.float64) + tl.abs({other}.to(tl.int64).to(tl.float64))"
    col = SRC.replace("EXPR", expr).splitlines()[EXPR_LINE - 1].index("tl.abs") + 1
    # (another conversion of x in the PTX: not the file-wide fallback that says it)
    body = ("{loc}\n\tcvt.f64.f32 %e5, %a;\n\tcvt.rzi.s64.f32 %rd1, %a;\n\tcvt.rn.f64.s64 %e1, %rd1;\n\t"
            f".loc 1 {EXPR_LINE} {col}\n\tabs.f64 %e2, %e1;\n\tadd.f64 %e3, %e1, %e2;\n\tcvt.rn.f32.f64 %d, %e3;")
    _, rep = _run(_with_source(tmp_path, expr, body, "x0.to"), [[0x40490FDB]])
    assert bool(_merged(rep)) == reported


def test_held_out_merged_conversion_read_through_its_conversion_back_is_reported():
    ours, theirs, errors = _compare("seed82680", folds=())
    assert not (ours == theirs).all() and any(MERGED in e.reason for e in errors)


def test_integer_converted_straight_to_f32_that_the_source_widens_to_f64_is_reported(tmp_path):
    """``where(c, 1.0, abs(x.to(f64).to(int64).to(f64)))`` stored as f32 (custom kernel after seed 82680, silent
    30/128): LLVM converts the integer straight to f32 at the store's narrowing; Triton converts it to f64, takes
    abs and narrows the payload with its hash fold. Not modelled: reported."""
    expr = "tl.where(x0 > 0.5, 1.0, tl.abs(x0.to(tl.float64).to(tl.int64).to(tl.float64)))"
    body = "cvt.rzi.s64.f32 %rd1, %a;\n\t{store}\n\tcvt.rn.f32.s64 %r1, %rd1;\n\tand.b32 %d, %r1, 2147483647;"
    text = _with_source(tmp_path, expr, body, "")
    src = tmp_path / "kernel.py"
    src.write_text(src.read_text().replace("r.to(tl.float16)", "r.to(tl.float32)"))
    _, rep = _run(text, [[0x40490FDB]])
    assert any("converts the integer to a wider float" in e.reason for e in rep.errors)


def test_integer_through_a_half_under_a_double_negation_is_widened_in_the_ring():
    """``(-(-x.to(f16).to(int32).to(f16))).to(f32)`` (held-out seed 111429, silent at first contact): LLVM drops the
    two negations and folds the half into one ``cvt.rn.f32.s32``; Triton converts to f16 natively, negates twice in
    the ring (the identity) and widens the payload. The source's cast is read through the double negation."""
    _assert_bit_exact("seed111429", folds=())


@pytest.mark.parametrize("name", ["seed224356", "k_min_of_int_through_bf16_double_neg",
                                  "k_min_of_int_through_bf16_neg"])
def test_reduction_widening_of_an_integer_through_bf16_is_bit_exact(name):
    """``tl.min(-(-i.to(bf16)))`` (held-out seed 224356, silent in 50/64 elements): tl.min widens the half to f32,
    which LLVM folds with the exact conversion into ``cvt.rn.f32.s64``; the source's -(-E) is E, so the min's
    argument shows the half: its native conversion, widened in the ring. (And under one negation, -i.to(bf16).)"""
    _assert_bit_exact(name, folds=())


@pytest.mark.parametrize("value,reported", [("tl.reshape(x1.to(tl.int32).to(tl.bfloat16), (1,))", True),
                                            ("tl.reshape(x1.to(tl.int32), (1,)).to(tl.float32)", False)])
def test_half_of_an_integer_a_name_holds_is_reported_where_undecided(tmp_path, value, reported):
    """``tl.min(e)`` with ``e`` assigned a line above: a half cast of an integer in e's value, which the min's
    location does not show, may be the half LLVM dropped into ``cvt.rn.f32.s32`` (held-out seed 224356's shape,
    silent): the conversion is reported; with no such half in e, native as Triton's sitofp."""
    text = _with_source(tmp_path, "tl.min(e, axis=0)", "{loc}\n\tcvt.rn.f32.s32 %d, %a;", "tl.min")
    src = tmp_path / "kernel.py"
    src.write_text(src.read_text().replace("x1 = tl.load(x1_ptr)", f"e = {value}"))
    _, rep = _run(text, [[7]])
    assert bool([e for e in rep.errors if e.opcode == "cvt.rn.f32.s32"]) == reported
