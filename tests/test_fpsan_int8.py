"""Float → integer conversions the plain PTX does not show as Triton's build converts (``ptxkit.fpsan.casts``; issue
10): at the source's ``.to(tl.int8)`` (held-out seeds 33573, 28003, 38353) an out-of-range fptosi to i8 is poison,
and whether LLVM keeps the 8-bit wrap differs between the two builds; an int → half → int round trip after the
conversion (40069) LLVM folds away, which Triton's ring values need not survive. Both are reported."""

from __future__ import annotations

from tests.test_fpsan_folds import _run
from tests.test_fpsan_libdevice import _compare
from tests.test_fpsan_source_hints import EXPR_LINE, SRC, _with_source


def test_f32_to_int8_conversion_is_reported(tmp_path):
    """``(2.0 * x).to(int8)`` of f32 as ``cvt.rzi.s16.f32`` (held-out seed 38353, silent before): the same poison
    out-of-range fptosi as a half's — reported, left as the PTX's conversion; an int16 one says nothing."""
    body = "{loc}\n\tcvt.rzi.s16.f32 %h1, %a;\n\tcvt.rn.f16.s16 %d, %h1;"
    for dtype, reported in (("int8", True), ("int16", False)):
        expr = f"(2.0 * x0).to(tl.{dtype}).to(tl.float16)"
        out, rep = _run(_with_source(tmp_path, expr, body, "(2.0", out_w=16), [[0x40400000]], out_w=16)
        assert out == [0x4200]  # 3.0 → 3 → 3.0
        assert any("fptosi is poison" in e.reason for e in rep.errors) == reported


def test_half_to_int_followed_by_an_int_round_trip_is_reported(tmp_path):
    """``h.to(f32).to(int32).to(f16).to(int32)`` as one ``cvt.rzi.s32.f16`` (held-out seed 40069, silent before):
    the ring conversion gives integers far outside f16's range, whose round trip through f16 Triton's build keeps."""
    expr = "x0.to(tl.float32).to(tl.int32).to(tl.float16).to(tl.int32).to(tl.float16)"
    body = "{loc}\n\tcvt.rzi.s32.f16 %r1, %a;\n\tcvt.rn.f16.s32 %d, %r1;"
    _, rep = _run(_with_source(tmp_path, expr, body, "x0", w=16), [[0x4248]], w=16)
    assert any(e.opcode == "cvt.rzi.s32.f16" for e in rep.errors)


def test_round_trip_alone_at_the_conversion_is_undecided_not_a_crash(tmp_path):
    """The cvt's location names only the round trip ``.to(bf16).to(int32)`` of an int (held-out seed 54091: a
    ``KeyError`` stopped ``sanitize`` there, the round trip taken for a widening type): undecided, reported."""
    expr = "x0.to(tl.int8).to(tl.bfloat16).to(tl.int32).to(tl.float16)"
    col = SRC.replace("EXPR", expr).splitlines()[EXPR_LINE - 1].index("x0.to(tl.int8).to(tl.bfloat16)") + 1
    body = f".loc 1 {EXPR_LINE} {col}\n\tcvt.rzi.s32.bf16 %r1, %a;\n\tcvt.rn.f16.s32 %d, %r1;"
    _, rep = _run(_with_source(tmp_path, expr, body, "", w=16), [[0x4248]], w=16)
    assert any(e.opcode == "cvt.rzi.s32.bf16" for e in rep.errors)


def test_held_out_kernel_with_the_round_trip_sanitizes():
    """Seed 54091's Triton 3.9 pair (a dot's result through ``.to(bf16).to(int8).to(bf16).to(int32)``): bit for
    bit, with the 8-bit conversions' poison reported."""
    ours, theirs, _ = _compare("seed54091", folds=())
    assert (ours == theirs).all()
