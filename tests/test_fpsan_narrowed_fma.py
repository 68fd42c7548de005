"""A 16-bit ``fma`` LLVM made of a sum the source computes wide on widened halves (``ptxkit.fpsan.fold_narrowed_fma``;
issue 10 H, held-out seed 63768, silent at first contact): ``((x * 2.0).to(f64) - x.to(f64)).to(bf16)`` of a bf16 x
is ``fma.rn.bf16 d, x, 2.0, -x`` natively; Triton's FPSan subtracts the sign-extended payloads in the 64-bit ring and
narrows with its hash. Reported (the Triton 3.9 pair and hand-written kernels); a sum the source computes in the half
itself is the 16-bit ring fma, nothing to say."""

from __future__ import annotations

import pytest

from tests.test_fpsan_folds import _items, _run
from tests.test_fpsan_libdevice import _compare
from tests.test_fpsan_source_hints import _with_source

BODY = "neg.f16 %h1, %a;\n\tmov.b16 %h2, 0x4000;\n\t{store}\n\tfma.rn.f16 %d, %a, %h2, %h1;"


@pytest.mark.parametrize("expr,at,severity", [("(x0 * 2.0).to(tl.float64) - x0.to(tl.float64)", "{store}", "error"),
                                              ("(x0 * 2.0).to(tl.float32) - x0.to(tl.float32)", "{store}", "error"),
                                              ("x0 * 2.0 - x0", "{store}", None),
                                              # an f32 sum at the fma's own location is no narrowed one (a merged
                                              # location's other work: held-out seed 61235, a false alarm)
                                              ("x0.to(tl.float32) - x0.to(tl.float32)", "{loc}", None)])
def test_half_fma_of_a_wide_sum_is_reported(tmp_path, expr, at, severity):
    _, rep = _run(_with_source(tmp_path, expr, BODY.replace("{store}", at), "x0", w=16), [[0x3C00]], w=16)
    assert [s for o, s in _items(rep) if o == "fma.rn.f16"] == ([severity] if severity else [])


def test_held_out_half_fma_of_a_wide_sum_is_reported():
    ours, theirs, errors = _compare("seed63768", folds=())
    assert not (ours == theirs).all() and any(e.opcode == "fma.rn.bf16" and "adds at f64" in e.reason for e in errors)
