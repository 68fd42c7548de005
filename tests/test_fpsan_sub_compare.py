"""``(x - y) < 0.0`` that LLVM compares as ``x < y`` (``ptxkit.fpsan.fold_sub_compare``; issue 10, held-out seed
35022, silent at first contact): Triton's FPSan compares the float of the ring difference φ⁻¹(φ(x) − φ(y)) with
zero, whose sign the order of x and y does not give. Hand-written kernels in Triton 3.9's shape against the ring
module, and the held-out pair."""

from __future__ import annotations

import numpy as np
import pytest

from ptxkit.fpsan import ring as R
from tests.test_fpsan_folds import _items, _run
from tests.test_fpsan_libdevice import _compare
from tests.test_fpsan_source_hints import _with_source

PAIRS = [[0x3F800000, 0x40000000], [0x40490FDB, 0xBF800000], [0xC0A00000, 0x3DCCCCCD], [0x3E99999A, 0x3E99999A],
         [0x7F800000, 0x42C80000], [0xBF000000, 0xC1200000], [0x3F8CCCCD, 0x3F8CCCCE], [0x00000000, 0x80000000]]
SELECT = "{loc}\n\tsetp.CMP.f32 %p1, %a, %b;\n\tselp.f32 %d, %a, %b, %p1;"


def _ring_less(pairs: list[list[int]], ft: str = "f32", wide: str | None = None) -> list[bool]:
    """φ⁻¹(φ(x) − φ(y)) < 0 of each pair, at ``wide``'s ring when the source subtracts widened values."""
    xs, ys = (R.embed(np.array([p[k] for p in pairs], np.uint64), ft) for k in (0, 1))
    w, bits = R.ring(ft).w, R.ring(wide or ft).w
    if wide:
        xs, ys = (R._from_signed(R._signed(v, w), bits) for v in (xs, ys))
    d = R.unembed(R.sub(xs, ys, bits), wide or ft).astype(np.uint64)
    return [bool(v >> np.uint64(bits - 1)) and bool(v & np.uint64((1 << (bits - 1)) - 1)) for v in d]


def _selected(pairs: list[list[int]], less: list[bool]) -> list[int]:
    return [a if lt else b for (a, b), lt in zip(pairs, less)]


def _native_less(pairs: list[list[int]]) -> list[bool]:
    f = np.array(pairs, np.uint32).view(np.float32)
    return [bool(a < b) for a, b in f]


@pytest.mark.parametrize("expr,cmp", [("tl.where(0.0 > (x0 - x1), x0, x1)", "lt"),
                                      ("tl.where((x0 - x1) < 0, x0, x1)", "lt")])
def test_difference_compared_with_zero_is_the_ring_difference(tmp_path, expr, cmp):
    out, rep = _run(_with_source(tmp_path, expr, SELECT.replace("CMP", cmp), expr.split("(", 1)[1][:3], nin=2),
                    PAIRS)
    less = _ring_less(PAIRS)
    assert less != _native_less(PAIRS)  # the order of x and y is not the sign of the ring difference
    assert out == _selected(PAIRS, less)
    assert [s for o, s in _items(rep) if o == "setp.lt.f32"] == ["note"]


@pytest.mark.parametrize("expr,cmp", [("tl.where(-(x0 - x1) > 0.0, x0, x1)", "lt"),
                                      ("tl.where(x0 + (-x1) < 0.0, x0, x1)", "lt"),
                                      ("tl.where((x0 - x1) * -1.0 < 0.0, x0, x1)", "gt")])
def test_difference_under_a_negation_or_as_a_sum_of_a_negation(tmp_path, expr, cmp):
    """``-(x - y) > 0`` (LLVM: x < y), ``x + (-y) < 0``, ``(x - y) * -1.0 < 0`` (x > y): the ring difference; its
    negation compares as the float's negation (silent before)."""
    out, rep = _run(_with_source(tmp_path, expr, SELECT.replace("CMP", cmp), expr.split("(", 1)[1][:3], nin=2),
                    PAIRS)
    less = _ring_less(PAIRS)
    greater = [not lt and d for lt, d in zip(less, _ring_less([[b, a] for a, b in PAIRS]))]
    assert out == _selected(PAIRS, less if cmp == "lt" else greater)
    assert [s for o, s in _items(rep) if o == f"setp.{cmp}.f32"] == ["note"]


def test_widened_difference_is_the_rings_cast_of_it(tmp_path):
    """``(x - y).to(f64) < 0.0`` of f32 values: LLVM drops the exact widening and compares x < y; Triton's ring
    sign-extends the 32-bit difference (silent before)."""
    expr = "tl.where((x0 - x1).to(tl.float64) < 0.0, x0, x1)"
    out, rep = _run(_with_source(tmp_path, expr, SELECT.replace("CMP", "lt"), "(x0", nin=2), PAIRS)
    xs, ys = (R.embed(np.array([p[k] for p in PAIRS], np.uint64), "f32") for k in (0, 1))
    d = R._from_signed(R._signed(R.sub(xs, ys, 32), 32), 64)
    f = R.unembed(d, "f64").astype(np.uint64).view(np.float64)
    assert out == _selected(PAIRS, [bool(v < 0) for v in f])
    assert [s for o, s in _items(rep) if o == "setp.lt.f32"] == ["note"]


def test_difference_of_widened_values_is_taken_in_the_wide_ring(tmp_path):
    """``(x.to(f64) - y.to(f64)) < 0.0`` of f32 values: LLVM compares the f32s, Triton's ring sign-extends the
    payloads and subtracts in 64 bits."""
    expr = "tl.where((x0.to(tl.float64) - x1.to(tl.float64)) < 0.0, x0, x1)"
    out, rep = _run(_with_source(tmp_path, expr, SELECT.replace("CMP", "lt"), "(x0", nin=2), PAIRS)
    assert out == _selected(PAIRS, _ring_less(PAIRS, "f32", "f64"))
    assert [s for o, s in _items(rep) if o == "setp.lt.f32"] == ["note"]


def test_other_side_llvm_proved_zero_is_reported(tmp_path):
    """The other side an expression (``(0.0 * x).to(int32).to(f32)``, which LLVM finds zero, as 35022's): computed
    as the ring difference compared with zero, and reported — the PTX no longer shows that Triton's ring makes it
    zero too."""
    expr = "tl.where((0.0 * x0).to(tl.int32).to(tl.float32) > (x0 - x1), x0, x1)"
    out, rep = _run(_with_source(tmp_path, expr, SELECT.replace("CMP", "lt"), "(0.0", nin=2), PAIRS)
    assert out == _selected(PAIRS, _ring_less(PAIRS))
    assert [s for o, s in _items(rep) if o == "setp.lt.f32"] == ["error"]


@pytest.mark.parametrize("expr,body", [
    ("tl.where((x0 - x1) < 0.0, x0, x1)", "sub.f32 %t, %a, %b;\n\t{loc}\n\tsetp.lt.f32 %p1, %t, 0f00000000;"),
    ("tl.where(x1 > (x0 - x1), x0, x1)", "sub.f32 %t, %a, %b;\n\t{loc}\n\tsetp.gt.f32 %p1, %b, %t;"),
    # the difference through a move (held-out seed 39296: a lane of a packed sub, unpacked), not LLVM's x < y
    ("tl.where(x1 > (x0 - x1), x0, x1)", "sub.f32 %t, %a, %b;\n\tmov.b32 %u, %t;\n\t{loc}\n\tsetp.gt.f32 %p1, %b, %u;"),
])
def test_difference_the_ptx_computes_is_compared_as_written(tmp_path, expr, body):
    """The PTX compares the difference itself (with zero, or with the source's other side): the ring sub, then the
    native comparison of its float."""
    out, rep = _run(_with_source(tmp_path, expr, body + "\n\tselp.f32 %d, %a, %b, %p1;", expr.split("(", 1)[1][:3],
                                 nin=2), PAIRS)
    d = R.unembed(R.sub(*(R.embed(np.array([p[k] for p in PAIRS], np.uint64), "f32") for k in (0, 1)), 32), "f32")
    f = d.astype(np.uint32).view(np.float32)
    b = np.array([p[1] for p in PAIRS], np.uint32).view(np.float32)
    want = [bool(v < 0) for v in f] if "0f0" in body else [bool(y > v) for y, v in zip(b, f)]
    assert out == _selected(PAIRS, want)
    assert all("compares a difference" not in i.reason for i in rep.items)


def test_nested_difference_llvm_compares_with_its_subtrahend_is_the_ring_difference(tmp_path):
    """``E < ((x0 - x1) - x1)`` with an E LLVM finds zero, compared as ``(x0 - x1) > x1`` (held-out seed 64175,
    silent at first contact: the PTX's operand is a difference, which read as "the difference compared as written"):
    the ring difference of the two compared with zero, reported as the other folded comparisons are."""
    expr = "tl.where((0.0 * x0).to(tl.int32).to(tl.float32) < ((x0 - x1) - x1), x0, x1)"
    body = "sub.f32 %t, %a, %b;\n\t{loc}\n\tsetp.gt.f32 %p1, %t, %b;\n\tselp.f32 %d, %a, %b, %p1;"
    out, rep = _run(_with_source(tmp_path, expr, body, "(0.0", nin=2), PAIRS)
    xs, ys = (R.embed(np.array([p[k] for p in PAIRS], np.uint64), "f32") for k in (0, 1))
    d = R.unembed(R.sub(R.sub(xs, ys, 32), ys, 32), "f32").astype(np.uint32).view(np.float32)
    assert out == _selected(PAIRS, [bool(v > 0) for v in d])
    assert [s for o, s in _items(rep) if o == "setp.gt.f32"] == ["error"]
    ours, theirs, _ = _compare("seed64175", folds=())
    assert np.array_equal(ours, theirs)


def test_held_out_comparison_of_a_difference_is_tritons_bits():
    """Triton 3.9 pair: ``tl.where(E > (p - q), …)`` with an E LLVM folded to zero, compared as ``p < q``: bit for
    bit with Triton's FPSan build (reported: the zero is LLVM's proof)."""
    ours, theirs, errors = _compare("seed35022")
    assert np.array_equal(ours, theirs)
    assert [e.opcode for e in errors] == ["setp.lt.f32"] and "LLVM found it zero" in errors[0].reason
