"""An argument LLVM computes inside one arm of an inlined libdevice body (``LibRange.remat``, issue 10 A): for
``libdevice.acosh(x * 0.25)`` it sinks the caller's ``x * 0.25`` into the arm that reads the product and contracts it
into the other arm's ``fma(x, 0.25, -1.0)``, so no other path defines the argument. The call hash recomputes the
caller's op in the ring at the exit; an op it cannot recompute leaves the body unrecognised and reported."""

from __future__ import annotations

import re

import pytest

from tests.test_fpsan_libdevice import DATA, _assert_bit_exact, _compare


@pytest.mark.parametrize("name", ["k_acosh_of_product_f32", "k_acosh_of_product_f64"])
def test_argument_sunk_into_one_arm_is_recomputed(name):
    """Bit for bit against Triton's FPSan build (silent before: the hash read a register only that arm wrote)."""
    _assert_bit_exact(name, folds=())


def test_the_sunk_op_is_in_one_arm_only():
    """The pair still has the shape: the product's mul after the body's first branch, its fma before."""
    text = (DATA / "k_acosh_of_product_f32.plain.ptx").read_text()
    mul = re.search(r"^\s*mul\.f32\s+(%r\d+), (%r\d+), 0f3E800000;", text[text.index("@%p3 bra"):], re.M)
    assert mul is not None
    assert re.search(rf"fma\.rn\.f32\s+%r\d+, {mul.group(2)}, 0f3E800000, 0fBF800000;",
                     text[:text.index("@%p3 bra")])


def test_an_op_the_hash_cannot_recompute_is_reported():
    """The same body with the sunk op squaring its operand (LLVM's x * x, whose doubling folds make the ring's
    product ambiguous): the body is not recognised, and the mismatch is reported, never silent."""
    def square(t: str) -> str:
        head, tail = t.split("@%p3 bra", 1)
        tail = re.sub(r"(mul\.f32\s+%r\d+, (%r\d+)), 0f3E800000;", r"\1, \2;", tail, count=1)
        return head + "@%p3 bra" + tail
    ours, theirs, errors = _compare("k_acosh_of_product_f32", mutate=square, folds=())
    assert (ours != theirs).any()
    assert any(e.opcode == "libdevice:__nv_acoshf" for e in errors), [e.reason for e in errors]
