"""Inlined libdevice bodies that LLVM laid out around the caller's code or shares work with (``ptxkit.fpsan.
libdevice_match``, ``libdevice_unmarked``; issue 10 A): Triton 3.9 pairs, bit for bit, with every body recognised as one
FPSan op (before, each was reported and its float instructions were sanitized one by one)."""

from __future__ import annotations

import numpy as np
import pytest

from tests.test_fpsan_body_join import _zero_y
from tests.test_fpsan_libdevice import _assert_bit_exact, _compare


def _body_errors(name: str) -> list[str]:
    _, _, errors = _compare(name, folds=(("half", "native"),))
    return [e.reason for e in errors if e.opcode.startswith("libdevice:")]


@pytest.mark.parametrize("name", [
    # pow(i.to(f32), y) whose log runs in an out-of-line block LLVM located at the function's column (``.loc 1 0 1``,
    # compiler-made): the block is reached from the body only, so it is the body's work (held-out seed 90888)
    "seed90888",
    # two pow copies (two elements per thread) reading the caller's x + x (the user's 2.0 * x), which LLVM shares with
    # pow's x + x of its x == 0 or inf case (held-out seed 81550)
    "seed81550",
])
def test_pow_body_around_callers_code_is_tritons_op(name):
    assert _body_errors(name) == []
    _assert_bit_exact(name)


def test_pow_reading_callers_self_add_at_zero_base():
    """Seed 81550 with every x = ±0, where the body's result is its x + x path: still Triton's call hash."""
    ours, theirs, items = _zero_y("seed81550", buffer="x0_ptr", negative_zero=0x8000)
    bodies = [i for i in items if i.opcode == "libdevice:__nv_powf"]
    assert len(bodies) == 2 and all(i.severity == "note" for i in bodies)
    diff = np.nonzero(ours != theirs)[0]
    assert diff.size == 0, f"{diff.size}/{ours.size} elements differ"


def test_tanh_reading_the_sign_erf_computed_is_tritons_op():
    """tanhf (no exit marker) of x beside erff of the same x, which computes x's sign bit in both arms of its branch;
    tanhf's copysign reads that register (held-out seed 85289: where(erf(h.to(f32)) >= .., .., tanh(h.to(f32))))."""
    ours, theirs, errors = _compare("seed85289", folds=(("half", "native"),))
    assert not [e for e in errors if e.opcode.startswith("libdevice:")]
    diff = np.nonzero(ours != theirs)[0]
    assert diff.size == 0, f"{diff.size}/{ours.size} elements differ"
    # (the sign's copy in erff's other arm, at tanhf's location, is still a zero-sign fold the source cannot decide:
    # left native, which is right here, and reported)
    assert [e.opcode for e in errors] == ["and.b32"]
