"""A max/min of a widened value and a constant, narrowed back (``ptxkit.fpsan.fold_narrowed_extremum``; issue 10 H,
hand kernels after held-out seed 170795, silent in 100 of 128 elements before): LLVM takes it at the narrow type,
Triton's ring at the wide one. Triton 3.9 pairs, and hand-written PTX against the ring module."""

from __future__ import annotations

import numpy as np
import pytest

from ptxkit.fpsan import ring as R
from tests.test_fpsan_folds import _items, _run
from tests.test_fpsan_libdevice import DATA, _assert_bit_exact
from tests.test_fpsan_source_hints import _with_source


@pytest.mark.parametrize("name,op", [("k_max_widened_and_constant_f32", "max.f32"),
                                     ("k_min_widened_and_constant_f16", "min.f16")])
def test_held_out_style_extremum_of_a_widening_and_a_constant_is_tritons_bits(name, op):
    assert op in (DATA / f"{name}.plain.ptx").read_text()
    _assert_bit_exact(name, folds=())


def _wide_max(x: int, c: float) -> int:
    """Triton's ``tl.maximum(x.to(f64), c).to(f32)`` of the f32 bits x, as f32 bits."""
    px = R.sext(R.embed(np.array([x], np.uint64), "f32"), 32, 64)
    pc = R.embed(np.array([np.array([c], np.float64).view(np.uint64)[0]], np.uint64), "f64")
    return int(R.unembed(R.narrow(R.smax(px, pc, 64), 64, 32), "f32")[0])


@pytest.mark.parametrize("x", [0x40490FDB, 0xC0490FDB, 0x3F800000, 0x80000000])
def test_max_of_a_widening_and_a_constant_compares_in_the_wide_ring(tmp_path, x):
    expr = "tl.maximum(x0.to(tl.float64), 3.0).to(tl.float32)"
    text = _with_source(tmp_path, expr, "{loc}\n\tmax.f32 %d, %a, 0f40400000;", "tl.max", out_w=32)
    out, rep = _run(text, [[x]])
    assert out == [_wide_max(x, 3.0)] and ("max.f32", "note") in _items(rep)


def test_max_the_source_goes_on_computing_with_at_the_wide_type_is_reported(tmp_path):
    expr = "(tl.maximum(x0.to(tl.float64), 0.5) * 2.0).to(tl.float32)"
    text = _with_source(tmp_path, expr, "{loc}\n\tmax.f32 %d, %a, 0f3F000000;", "tl.max", out_w=32)
    _, rep = _run(text, [[0x40490FDB]])
    assert ("max.f32", "error") in _items(rep)


def test_max_of_two_loads_is_the_rings_own(tmp_path):
    """No constant: the f32 ring max (LLVM's max of two widenings is the widening of the max, in either ring)."""
    expr = "tl.maximum(x0.to(tl.float64), x1.to(tl.float64)).to(tl.float32)"
    text = _with_source(tmp_path, expr, "{loc}\n\tmax.f32 %d, %a, %b;", "tl.max", nin=2, out_w=32)
    _, rep = _run(text, [[0x40490FDB, 0x3F800000]])
    assert not [i for i in rep.items if i.opcode == "max.f32" and "widens" in i.reason]


def test_clamp_of_a_widening_is_reported(tmp_path):
    """``tl.clamp(x.to(f64), 0.5, 3.0).to(f32)`` as ``max.f32``, ``min.f32``: Triton's ring clamps at f64 and
    narrows once (hand kernel, silent before in 100/128): both ops reported."""
    expr = "tl.clamp(x0.to(tl.float64), 0.5, 3.0).to(tl.float32)"
    body = "{loc}\n\tmax.f32 %t, %a, 0f3F000000;\n\tmin.f32 %d, %t, 0f40400000;"
    _, rep = _run(_with_source(tmp_path, expr, body, "tl.clamp", out_w=32), [[0x40490FDB]])
    assert ("max.f32", "error") in _items(rep) and ("min.f32", "error") in _items(rep)


def test_max_of_a_widening_and_zero_is_the_rings_own(tmp_path):
    """With 0.0 (φ_W(0) = 0 = sext φ_T(0)) the ring's max at W is the widening of the one at T: the T op for any
    reader, no report (``(tl.maximum(x.to(f64), 0.0) * 2.0).to(f32)``)."""
    expr = "(tl.maximum(x0.to(tl.float64), 0.0) * 2.0).to(tl.float32)"
    text = _with_source(tmp_path, expr, "{loc}\n\tmax.f32 %d, %a, 0f00000000;", "tl.max", out_w=32)
    _, rep = _run(text, [[0xC0490FDB]])
    assert ("max.f32", "error") not in _items(rep)


@pytest.mark.parametrize("name", ["k_min_of_half_widenings_to_int", "k_max_of_half_widening_and_zero_to_int"])
def test_half_to_int_of_a_choice_of_widenings_is_tritons_bits(name):
    """``tl.minimum(h0.to(f64), h1.to(f64)).to(int32)`` as ``min.f16`` and ``cvt.rzi.s32.f16``: through the f64
    ring widening of the chosen half (reported before); a max with 0.0 likewise."""
    assert "cvt.rzi.s32.f16" in (DATA / f"{name}.plain.ptx").read_text()
    _assert_bit_exact(name, folds=())
