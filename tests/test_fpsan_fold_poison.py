"""Float → int conversions of values Triton's FPSan build computes from constants alone
(``ptxkit.fpsan.fold_poison``; issue 10, held-out seed 14009, silent at first contact): LLVM folds the ring chain,
and an out-of-range ``fptosi`` is poison there. Reported where φ⁻¹'s float does not fit, quiet where it does."""

from __future__ import annotations

import numpy as np
import pytest

from ptxkit.fpsan import ring as R
from tests.test_fpsan_folds import ONE, _items, _kernel, _run
from tests.test_fpsan_libdevice import DATA, _compare


def test_conversion_of_rsqrt_of_x_minus_x_is_reported():
    """``tl.rsqrt(x0 - x0).to(tl.int32)``: ring rsqrt(0) is a tag whose float is ~2.7e17, beyond int32. Triton's
    FPSan PTX of the kernel (seed 14009) stores an undefined register; the plain build's saturating cvt runs."""
    tag = float(R.unembed(R.tagged(np.array([0], np.uint64), "rsqrt", 32), "f32").view(np.float32)[0])
    assert not -2**31 <= tag < 2**31
    body = "sub.f32 %t, %a, %a;\n\trsqrt.approx.ftz.f32 %u, %t;\n\tcvt.rzi.s32.f32 %d, %u;"
    _, rep = _run(_kernel(body, nin=1), [[ONE]])
    assert ("cvt.rzi.s32.f32", "error") in _items(rep)
    assert "poison" in next(i.reason for i in rep.items if i.opcode == "cvt.rzi.s32.f32")


def test_conversion_of_floor_of_zero_times_x_is_reported():
    """``tl.floor(0.0 * x).to(tl.int16)`` (held-out seed 19112, silent at first contact): ring 0·φ(x) is 0, its floor
    the floor tag, whose float is beyond int16: Triton's FPSan build folds the chain to poison."""
    tag = float(R.unembed(R.tagged(np.array([0], np.uint64), "floor", 32), "f32").view(np.float32)[0])
    assert not -2**15 <= tag < 2**15
    body = ("mul.f32 %t, %a, 0f00000000;\n\tcvt.rmi.ftz.f32.f32 %u, %t;\n\tcvt.rzi.s16.f32 %h1, %u;\n\t"
            "cvt.s32.s16 %d, %h1;")
    _, rep = _run(_kernel(body, nin=1), [[ONE]])
    assert ("cvt.rzi.s16.f32", "error") in _items(rep)


def test_conversion_of_a_constant_in_range_is_not_reported():
    """``(x0 - x0).to(tl.int32)``: φ⁻¹(0) is +0.0, which the fold and the run-time conversion both make 0."""
    out, rep = _run(_kernel("sub.f32 %t, %a, %a;\n\tcvt.rzi.s32.f32 %d, %t;", nin=1), [[ONE]])
    assert out == [0] and ("cvt.rzi.s32.f32", "error") not in _items(rep)


def test_conversion_of_a_loaded_value_is_not_reported():
    _, rep = _run(_kernel("rsqrt.approx.ftz.f32 %u, %a;\n\tcvt.rzi.s32.f32 %d, %u;", nin=1), [[ONE]])
    assert ("cvt.rzi.s32.f32", "error") not in _items(rep)


def test_held_out_pair_the_fpsan_build_folds_to_poison_is_reported():
    """Seed 14009's Triton 3.9 pair: Triton's FPSan PTX has no conversion left (its store reads a register nothing
    writes); ours differs, and says so at each of the four conversions (silent at first contact)."""
    assert "cvt.rzi" not in (DATA / "seed14009.fpsan.ptx").read_text()
    ours, theirs, errors = _compare("seed14009")
    assert not (ours == theirs).all()
    assert sum(e.opcode == "cvt.rzi.s32.f32" and "poison" in e.reason for e in errors) == 4


@pytest.mark.parametrize("name,cvt", [("k_erf_of_x_minus_x_to_int64", "cvt.rzi.s64.f32"),
                                      ("seed26725", "cvt.rzi.s64.f16")])
def test_conversion_of_a_libdevice_body_of_constants_is_reported(name, cvt):
    """``tl.erf(x0 - x0).to(tl.int64)`` (held-out seed 26725, silent at first contact behind a wrong report): the
    inlined __nv_erff body runs natively and its result is the ring erf of φ(x − x) = 0, which Triton's FPSan build
    folds with the rest; the erf tag's float is beyond int64, so the conversion is poison there."""
    tag = float(R.unembed(R.tagged(np.array([0], np.uint64), "erf", 32), "f32").view(np.float32)[0])
    assert not -2**63 <= tag < 2**63
    ours, theirs, errors = _compare(name, folds=())
    assert not (ours == theirs).all()
    assert any(e.opcode == cvt and "poison" in e.reason for e in errors)


def test_conversion_of_a_division_by_x_minus_x_is_reported():
    """Seed 134379: ``tl.erf(x / (x - x)).to(f16).to(int32)``: the ring's inv(0) is 0 (the Newton inverse of 0 | 1 with
    its low bit cleared), so x / 0 is 0 whatever x is and Triton's build folds the chain (erf's NaN tag, narrowed, is
    no integer) to poison; silent at first contact. Also ``rcp`` of 0."""
    assert int(R.div(np.array([R.embed_int(0x3F800000, "f32")], np.uint64), np.array([0], np.uint64), 32)[0]) == 0
    assert "cvt.rzi" not in (DATA / "seed134379.fpsan.ptx").read_text()
    _, _, errors = _compare("seed134379", folds=())
    assert sum(e.opcode == "cvt.rzi.s32.f16" and "poison" in e.reason for e in errors) == 8
    # rcp(0) is ring 0 too: lg2's tag of it (−7.1e22) is no int32
    body = "sub.f32 %t, %a, %a;\n\trcp.rn.f32 %u, %t;\n\tlg2.approx.f32 %c, %u;\n\tcvt.rzi.s32.f32 %d, %c;"
    _, rep = _run(_kernel(body, nin=1), [[ONE]])
    assert ("cvt.rzi.s32.f32", "error") in _items(rep)
