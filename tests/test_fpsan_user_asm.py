"""The user's ``tl.inline_asm_elementwise`` (``ptxkit.fpsan.fold_user_asm``, issue 10; user-style probes: silent in
200/200, the asm text's instructions sanitized as the user's own arithmetic). Triton's FPSan hashes the call as an
opaque pure one: Σ rotl(E(arg_i), i) XOR FNV-1a-64 of the asm string, result k XOR k, integer arguments as they are;
the pairs below are checked against its own FPSan build."""

from __future__ import annotations

import pytest

from ptxkit.fpsan_ptx import sanitize_text
from tests.test_fpsan_libdevice import DATA, _assert_bit_exact, _compare


@pytest.mark.parametrize("name", ["k_user_asm_mul_f32", "k_user_asm_move_times_two_f64", "k_user_asm_mul_f16",
                                  "k_user_asm_int_argument_f32", "k_user_asm_three_results_f32",
                                  "k_user_asm_packed_f16", "k_user_asm_in_helper_f32", "k_user_asm_impure_f32"])
def test_user_inline_asm_is_tritons_call_hash(name):
    """``mul.f32 $0, $1, $2`` (two float arguments), ``mov.b64`` then ``* 2.0`` at the same location (only the
    template's run is the asm), ``mul.f16`` (the template types the 16-bit arguments), an integer argument, three
    results (the hash XOR 0, 1, 2), ``pack=2`` of halves (each lane hashed: Triton's FPSan works on elements), the asm
    in a helper (its copies at the helper's location, the call's arguments), and an asm with side effects, which
    Triton's FPSan leaves as written."""
    _assert_bit_exact(name, folds=())


def test_user_asm_whose_half_arguments_are_untyped_is_reported():
    """``mov.b16 $0, $1`` of an f16: nothing in the asm says f16 or bf16, whose φ differ (not modelled): an error at
    the asm's instruction, never its bit move taken for the result."""
    ours, theirs, errors = _compare("k_user_asm_untyped_half_f16", folds=())
    assert (ours != theirs).any()
    assert any("inline asm" in e.reason and "16-bit" in e.reason for e in errors), [e.reason for e in errors]


def test_without_the_source_the_asm_is_the_users_arithmetic():
    """The PTX alone cannot tell the asm's ``mul.f32`` from the user's ``x * y``: without the source it is sanitized
    as a ring mul (what the rest of ptxkit does with a ``mul.f32``), so the hash needs ``--source-root``."""
    text = (DATA / "k_user_asm_mul_f32.plain.ptx").read_text()
    res = sanitize_text(text, "k_user_asm_mul_f32.plain.ptx", source_hints=False)
    assert not [i for i in res.report.items if "inline asm" in i.reason]
