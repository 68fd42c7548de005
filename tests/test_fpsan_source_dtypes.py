"""Casts written with dtype expressions (``ptxkit.fpsan.source_dtypes``): ``.to(out_ptr.dtype.element_ty)``,
``.to(x.dtype)`` and ``.to(ACC)`` of a module constant are read as the ``tl.T`` they stand for, and a ``tl.full``'s or
``tl.zeros``'s ``dtype`` gives the tensor's type (``source_ast._constructed``). User-style kernels
written so were silent (or reported) where the same kernel with ``tl.float16`` was exact."""

from __future__ import annotations

import ast

import pytest

from ptxkit.exec_sim.frontend import parse_text
from ptxkit.fpsan.source_ast import SourceFile
from ptxkit.fpsan.source_dtypes import with_dtypes
from ptxkit.fpsan.source_locations import HintsBase
from tests.test_fpsan_libdevice import DATA, SPECS, _assert_bit_exact


@pytest.mark.parametrize("name", ["k_threshold_ety_f16", "k_int_round_trip_xdtype_f16", "k_threshold_acc_bf16",
                                  "k_int_f32_promoted_f64", "k_full_f32_times_half_f16"])
def test_dtype_expressions_are_the_casts_they_name(name):
    """Bit for bit against Triton's FPSan build, nothing reported, the source deciding every fold."""
    _assert_bit_exact(name, folds=())


def _typed_source(name: str) -> str:
    """The kernel's source as the hints read it, with the PTX of its plain build."""
    text = (DATA / f"{name}.plain.ptx").read_text()
    module = parse_text(text, f"{name}.plain.ptx")
    fn = next(f for f in module.items if getattr(f, "body", None))
    f = SourceFile.of_tree("kernel.py", SPECS[name].source, ast.parse(SPECS[name].source))
    typed = with_dtypes(f, "1", fn, HintsBase.of(module, fn, None).loc)
    return ast.unparse(typed.tree)


def test_pointer_element_type_comes_from_the_ptx():
    """``out_ptr.dtype.element_ty`` is f16: the registers its ``tl.store`` writes are f16 (a cvt.rn.f16.f32 or
    a half select); ``x0.dtype`` of ``x0 = tl.load(x0_ptr + ..)``, from the loaded registers' readers."""
    assert "r.to(tl.float16)" in _typed_source("k_threshold_ety_f16")
    assert ".to(tl.int32).to(tl.float16)" in _typed_source("k_int_round_trip_xdtype_f16")


def test_module_constant_is_read_from_the_source():
    assert "x0.to(tl.float32) < -0.5" in _typed_source("k_threshold_acc_bf16")


def test_unknown_dtype_stays_as_written():
    """Without evidence (no PTX instruction at the file's locations) nothing is replaced."""
    src = "import triton.language as tl\n\ndef k(x_ptr, out_ptr):\n    x = tl.load(x_ptr)\n" \
          "    tl.store(out_ptr, x.to(out_ptr.dtype.element_ty))\n"
    module = parse_text((DATA / "k_threshold_ety_f16.plain.ptx").read_text(), "a.ptx")
    fn = next(f for f in module.items if getattr(f, "body", None))
    f = SourceFile.of_tree("other.py", src, ast.parse(src))
    assert with_dtypes(f, "9", fn, {}) is f


@pytest.mark.parametrize("name", ["k_copysign_of_halves_f16", "k_copysign_of_halves_bf16"])
def test_copysign_of_halves_is_the_hashed_call(name):
    """``libdevice.copysign(a.to(f32), b.to(f32))`` narrowed to a half: LLVM's expansion (|a|, neg, a select on b's
    sign bit) is Triton's hash of ``__nv_copysignf`` of the widened payloads (``ptxkit.fpsan.fold_half_copysign``;
    silent in 480/512 elements op by op)."""
    _assert_bit_exact(name, folds=())


def test_names_bound_to_dtypes_are_followed():
    """A module constant and a function's ``dt = tl.bfloat16`` read as their dtypes; a name bound to something else
    (a parameter, a call) is not a candidate."""
    from ptxkit.fpsan.source_dtypes import _candidates, _dtype_of

    src = ("import triton.language as tl\nACC: tl.constexpr = tl.float32\nN = 4\n\ndef k(x_ptr, DT: tl.constexpr):\n"
           "    dt = tl.bfloat16\n    x = tl.load(x_ptr)\n    y = x.to(dt) + x.to(ACC) + x.to(DT) * N\n")
    f = SourceFile.of_tree("k.py", src, ast.parse(src))
    got = {ast.unparse(n): _dtype_of(f, n, {}, 4) for n in _candidates(f)}
    assert got == {"dt": "bfloat16", "ACC": "float32", "N": None}
