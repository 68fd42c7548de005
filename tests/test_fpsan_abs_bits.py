"""|x| of a ring value (ptxkit/fpsan/abs_bits.py, docs/fpsan.md §4 "abs"): Triton's FPSan build gets the sign
bit cleared by an integer ``and`` (LLVM folds ``fabs`` of the bitcast ring integer), while a GPU's float ``abs``
writes the canonical NaN for NaN bit patterns (tests/test_sim_gpu_vectors.py holds what an H200 does). The
reference here is the same kernel without the ``abs``, its bits with the sign cleared — which ring values
with NaN bit patterns among the inputs make differ from a float abs."""

from __future__ import annotations

import numpy as np
import pytest

from ptxkit.fpsan.abs_bits import AS_AND, HALF_ABS
from tests.test_fpsan_folds import _kernel, _run
from tests.test_fpsan_libdevice import _compare
from tests.test_fpsan_source_hints import _with_source

N = 1024
_RNG = np.random.default_rng(28)


def _nan_pattern(bits: int, w: int) -> bool:
    exp, man = {32: (0x7F800000, 0x7FFFFF), 16: (0x7C00, 0x3FF)}[w]
    return (bits & exp) == exp and (bits & man) != 0


def _pairs(w_in: int) -> list[list[int]]:
    hi = 1 << w_in
    return [[int(v) for v in _RNG.integers(0, hi, 2, dtype=np.uint64)] for _ in range(N)]


def test_abs_of_a_rewritten_f32_value_is_the_sign_bit_and():
    rows = _pairs(32)
    plain, _ = _run(_kernel("add.f32 %t, %a, %b;\n\tmov.b32 %d, %t;"), rows)
    absd, rep = _run(_kernel("add.f32 %t, %a, %b;\n\tabs.f32 %d, %t;"), rows)
    assert any(_nan_pattern(v, 32) for v in plain)  # ring sums that are NaN patterns: where a float abs differs
    assert absd == [v & 0x7FFFFFFF for v in plain]
    # an f32 |x| is Triton's and: a note saying so, the instruction rewritten
    assert [(i.opcode, i.severity, i.reason, i.native) for i in rep.items] == [("abs.f32", "note", AS_AND, False)]


def test_abs_of_a_ring_cast_half_is_the_and_and_reported():
    rows = [[r[0]] for r in _pairs(32)]
    cast = "cvt.rn.f16.f32 %h1, %a;\n\t{}\n\tmov.b16 %d, %h2;"
    plain, _ = _run(_kernel(cast.format("mov.b16 %h2, %h1;"), out_w=16, nin=1), rows, out_w=16)
    absd, rep = _run(_kernel(cast.format("abs.f16 %h2, %h1;"), out_w=16, nin=1), rows, out_w=16)
    assert any(_nan_pattern(v, 16) for v in plain)
    assert absd == [v & 0x7FFF for v in plain]
    # whether Triton's build has this and or a float abs.f16/abs.f16x2 is LLVM's choice: an error
    assert any(i.reason == HALF_ABS and i.severity == "error" for i in rep.items if i.opcode == "abs.f16")


def test_abs_of_a_loaded_f32_is_the_and_too():
    """``tl.abs(x)`` of a loaded f32 NaN (held-out seeds 32502, 32576, silent at first contact): Triton's build
    has the and (LLVM folds the bitcast of fabs that the ring reads), a float abs.f32 writes 0x7fffffff."""
    from ptxkit.fpsan_ptx import sanitize_text

    text = _kernel("abs.f32 %d, %a;", nin=1)
    assert "and.b32 %d, %a, 0x7FFFFFFF;" in sanitize_text(text, "k.ptx").text
    out, rep = _run(text, [[0x7FC00001], [0xBF800000], [0xFF800001]])
    assert out == [0x7FC00001, 0x3F800000, 0x7F800001] and not rep.errors


def test_packed_half_abs_stays_float_abs():
    """A packed ``abs.f16x2`` (of a ring cast) stays a float abs, as Triton's build mostly has it where the plain
    build packs one (22 of 35 generated kernels; held-out seeds 130, 32119, 32231, 32273, 38507's kin): on the
    simulator, as on a GPU, each NaN half becomes 0x7fff."""
    from ptxkit.fpsan_ptx import sanitize_text

    rows = _pairs(32)
    cast = "cvt.rn.f16x2.f32 %r1, %a, %b;\n\t{}\n\tmov.b32 %d, %r2;"
    keep = cast.format("abs.f16x2 %r2, %r1;")
    plain, _ = _run(_kernel(cast.format("mov.b32 %r2, %r1;")), rows)
    absd, rep = _run(_kernel(keep), rows)
    assert sanitize_text(_kernel(keep), "k.ptx").text.count("abs.f16x2") == 1
    halves = [(v >> s) & 0xFFFF for v in plain for s in (0, 16)]
    assert any(_nan_pattern(h, 16) for h in halves)
    assert absd == [sum((0x7FFF if _nan_pattern((v >> s) & 0xFFFF, 16) else (v >> s) & 0x7FFF) << s for s in (0, 16))
                    for v in plain]
    assert any(i.reason == HALF_ABS and i.severity == "error" for i in rep.items if i.opcode == "abs.f16x2")


def test_scalar_half_abs_is_the_and_however_many():
    """Four scalar ``abs.f16`` (of 214 generated kernels without a packed half |x|, Triton's build has the and in
    168 of 179): each becomes the integer and, NaN patterns kept, and is reported."""
    from ptxkit.fpsan_ptx import sanitize_text

    body = "cvt.rn.f16.f32 %h1, %a;\n\t" + "\n\t".join(f"abs.f16 %h{k}, %h1;" for k in (2, 3, 4, 5)) + \
        "\n\tmov.b16 %d, %h2;"
    text = sanitize_text(_kernel(body, out_w=16, nin=1), "k.ptx").text
    assert "abs.f16" not in text.replace("// fpsan: abs.f16", "") and text.count("0x7FFF;") >= 4


def test_abs_a_float_select_reads_stays_a_float_abs():
    """``where(c, a, abs(a)) + abs(a)`` as ``abs.f32 t, a; selp.f32 s, t, b, p; add.f32 d, t, s``: Triton's FPSan
    leaves the select alone, so LLVM keeps the float abs in its build and the ring add reads that result (held-out
    seed 98179, silent at first contact: a tf32x3 dot's operand, 288/1024 elements); on the ring sums' NaN patterns
    the float abs writes the canonical NaN, which the integer and would not."""
    from ptxkit.fpsan.abs_bits import SELECTED
    from ptxkit.fpsan_ptx import sanitize_text

    body = "add.f32 %t, %a, %b;\n\tabs.f32 %u, %t;\n\tsetp.gt.f32 %p1, %a, %b;\n\tselp.f32 %c, %u, %b, %p1;\n\t" \
           "add.f32 %d, %u, %c;"
    text = _kernel(body)
    assert "abs.f32 %u, %t;" in sanitize_text(text, "k.ptx").text
    _, rep = _run(text, _pairs(32))
    assert [(i.opcode, i.severity, i.reason) for i in rep.items if i.opcode == "abs.f32"] == [
        ("abs.f32", "note", SELECTED)]


def test_held_out_abs_selected_into_a_tf32x3_dot_is_tritons_bits():
    from tests.test_fpsan_libdevice import _assert_bit_exact

    _assert_bit_exact("seed98179", folds=())


@pytest.mark.parametrize("name,buffer", [("k_log_of_select_of_abs_f32", "x0_ptr"), ("seed124367", "x0_ptr")])
def test_abs_selected_against_a_load_into_a_libdevice_body_is_an_and(name, buffer):
    """``log(where(c, abs(x), x))`` (held-out seed 124367, silent at first contact at x = NaN): only the log's body,
    which the ring op replaces, reads the select, so Triton's build selects the integers and clears the sign with an
    ``and``; the float abs kept (the rule above, for a select a native op reads) writes the canonical NaN. Bit for
    bit with a NaN x."""
    from tests.test_fpsan_body_join import _zero_y
    ours, theirs, items = _zero_y(name, buffer=buffer, negative_zero=0x7FC00000)
    assert np.array_equal(ours, theirs)
    assert not [i for i in items if i.opcode.startswith("abs") and "kept as a float abs" in i.reason]


@pytest.mark.parametrize("expr,reported", [("tl.abs(x0) * tl.abs(x0)", True),
                                           ("tl.fma(tl.abs(x0), tl.abs(x0), 1.0)", True),
                                           ("x0 * x0", False),
                                           ("tl.abs(x0) * tl.abs(x1)", False)])
def test_half_square_of_an_abs_llvm_dropped_is_reported(tmp_path, expr, reported):
    """``|x|·|x|`` of a half is ``x·x`` to LLVM, the abs gone from the plain PTX; Triton's build keeps it (an and or a
    float abs, :data:`HALF_ABS`): reported like every half |x| (held-out seed 133332, silent at a NaN before a dot,
    where Triton's build wrote ``abs.bf16``)."""
    body = "{loc}\n\tmul.f16 %d, %a, %a;" if "fma" not in expr else "{loc}\n\tfma.rn.f16 %d, %a, %a, 0x3C00;"
    _, rep = _run(_with_source(tmp_path, expr, body, expr[:6], nin=2, w=16, out_w=16), [[0x3C00, 0x4000]], w=16)
    assert any(HALF_ABS in i.reason and "dropped the abs" in i.reason for i in rep.errors) == reported


def test_held_out_half_square_of_an_abs_is_reported():
    ours, theirs, errors = _compare("seed133332", folds=())
    assert not (ours == theirs).all() and any("dropped the abs" in e.reason for e in errors)


def test_negated_half_abs_folded_into_a_sign_or_is_reported():
    """``-abs(maximum(a, b, propagate_nan=ALL))`` of bf16 a, b stored as f16 (held-out seed 198919, silent at first
    contact: 10/512 elements, at NaN inputs): LLVM's ``or.b16`` of the max, where Triton's build may keep a float abs
    (the canonical NaN); like every half |x| it is reported (HALF_ABS), here on the or."""
    ours, theirs, errors = _compare("seed198919")
    assert not (ours == theirs).all()
    assert any(e.opcode == "or.b16" and e.reason == HALF_ABS for e in errors)
