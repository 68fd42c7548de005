"""LLVM's folds that hide Triton's op in the plain PTX (issue 10 K F G J L M D; ``ptxkit.fpsan.folds``):
hand-written kernels in the shape Triton 3.9 emits, sanitized and run on the simulator, against bits
worked out from docs/fpsan.md (its f32 vectors, φ(1) = 1, φ(±0) = 0 / 2^(w−1), φ(−x) = −φ(x)) or the
ring module where no vector exists; and the report: an error where the PTX cannot tell the source form,
a note where the user stated it or where only one form is plausible."""

from __future__ import annotations

import numpy as np
import pytest

from ptxkit.errors import PtxkitError
from ptxkit.fpsan import ring as R
from ptxkit.fpsan.abs_bits import HALF_ABS
from ptxkit.fpsan_ptx import sanitize_text
from tests.conftest import needs_ptxas

HEADER = ".version 8.0\n.target sm_90\n.address_size 64\n"
UINT = {16: np.uint16, 32: np.uint32, 64: np.uint64}


def _kernel(body: str, w: int = 32, out_w: int | None = None, nin: int = 2) -> str:
    """Thread i reads in[nin·i + k] into %a, %b (b{w} registers, as Triton's loads) and stores %d."""
    out_w = out_w or w
    b, ob = w // 8, out_w // 8
    loads = "\n\t".join(f"ld.global.b{w} %{'abc'[k]}, [%rd4+{k * b}];" for k in range(nin))
    return HEADER + f"""
.visible .entry k(.param .u64 pin, .param .u64 pout)
{{
	.reg .pred %p<4>;
	.reg .b16 %h<8>;
	.reg .b32 %r<8>, %i;
	.reg .b64 %rd<8>, %e<8>;
	.reg .b{w} %a, %b, %c, %t, %u;
	.reg .b{out_w} %d;
	ld.param.u64 %rd1, [pin];
	ld.param.u64 %rd2, [pout];
	mov.u32 %i, %tid.x;
	mul.wide.u32 %rd3, %i, {nin * b};
	add.s64 %rd4, %rd1, %rd3;
	{loads}
	{body}
	mul.wide.u32 %rd5, %i, {ob};
	add.s64 %rd6, %rd2, %rd5;
	st.global.b{out_w} [%rd6], %d;
	ret;
}}
"""


def _run(text: str, inputs: list[list[int]], w: int = 32, out_w: int | None = None, **opts):
    """Sanitize ``text`` and run one thread per input row; returns (output bits, report)."""
    from ptxkit.exec_sim import KernelArg, run_kernel
    from ptxkit.exec_sim.frontend import parse_text

    res = sanitize_text(text, "k.ptx", **opts)
    inp = np.array(inputs, dtype=UINT[w]).reshape(-1)
    n = len(inputs)
    ot = UINT[out_w or w]
    m = parse_text(res.text, "k.ptx")
    fn = m.function("k")
    args = [KernelArg("pin", 0, fn.params[0].name, "buffer", f"u{w}", data=inp.copy()),
            KernelArg("pout", 1, fn.params[1].name, "buffer", f"u{out_w or w}", data=np.zeros(n, ot))]
    out = run_kernel(m, "k", args, (1, 1, 1), (n, 1, 1))
    return [int(v) for v in np.asarray(out.buffers["pout"]).view(ot)], res.report


def _items(report) -> list[tuple[str, str]]:
    """(opcode, severity) of each item but the error every 16-bit |x| gets (tests/test_fpsan_abs_bits.py)."""
    return [(i.opcode, i.severity) for i in report.items if i.reason != HALF_ABS]


def _errors(report) -> list:
    return [i for i in report.errors if i.reason != HALF_ABS]


# ------------------------------------------------------------------------------ K: x*2.0 → add x, x

ONE, TWO, HALF = 0x3F800000, 0x40000000, 0x3F000000
MUL_2_HALF = 0x2A34FD6E  # fpsan.md §2 vector: mul(2.0, 0.5)
ADD_1_2 = 0x2B2EB900     # fpsan.md §2 vector: add(1.0, 2.0)
# the ring's x + x, φ⁻¹(2φ(x)), for x = 0.5 (φ(0.5) = 0x5fded582, fpsan.md §1) and x = 1.0 (φ⁻¹(2))
SELF_ADD_HALF, SELF_ADD_ONE = (int(v) for v in R.float_binop("add", np.array([HALF, ONE], np.uint64),
                                                              np.array([HALF, ONE], np.uint64), "f32"))


def test_self_add_is_the_ring_sum_by_default_and_reported():
    """``add.f32 d, x, x`` is the source's ``x + x`` or LLVM's fold of ``x*2.0`` (Triton: φ(x)·φ(2)).
    Undecided, it is sanitized as written, 2φ(x) (so sanitize stays a ring homomorphism of the PTX:
    equiv's algebraic twins rely on it), and reported as an error."""
    text = _kernel("add.f32 %d, %a, %a;", nin=1)
    out, rep = _run(text, [[HALF], [ONE]])
    assert out == [SELF_ADD_HALF, SELF_ADD_ONE] and SELF_ADD_ONE != TWO  # ring 1 + 1 = 2 is not φ(2.0)
    assert _items(rep) == [("add.f32", "error")] and "--fold self-add=add|mul2" in rep.items[0].reason
    with pytest.raises(PtxkitError, match=r"not Triton-exact: add\.f32"):
        sanitize_text(text, "k.ptx", strict=True)


def test_self_add_stated_forms_are_notes():
    text = _kernel("add.f32 %d, %a, %a;", nin=1)
    out, rep = _run(text, [[HALF]], folds=(("self-add", "mul2"),))
    assert out == [MUL_2_HALF] and _items(rep) == [("add.f32", "note")]
    out, rep = _run(text, [[HALF], [ONE]], folds=(("self-add", "add"),))
    # the ring's x + x: 2φ(x) (for x = 1: ring 2, which is not φ(2.0))
    want = R.float_binop("add", np.array([HALF, ONE], np.uint64), np.array([HALF, ONE], np.uint64), "f32")
    assert out == [int(v) for v in want] and out[1] != TWO and _items(rep) == [("add.f32", "note")]


@pytest.mark.parametrize("t,w,one,two", [("f16", 16, 0x3C00, 0x4000), ("bf16", 16, 0x3F80, 0x4000),
                                         ("f64", 64, 0x3FF0000000000000, 0x4000000000000000)])
def test_self_add_every_width(t, w, one, two):
    """φ(1) = 1 in every type: x*2.0 at x = 1.0 is 2.0 in every width, the ring's 1+1 = 2 is not φ(2)."""
    out, rep = _run(_kernel(f"add.{t} %d, %a, %a;", w=w, nin=1), [[one]], w=w)
    assert out == [int(R.float_binop("add", np.array([one], np.uint64), np.array([one], np.uint64), t)[0])]
    assert out != [two] and _items(rep) == [(f"add.{t}", "error")]
    out, rep = _run(_kernel(f"add.{t} %d, %a, %a;", w=w, nin=1), [[one]], w=w, folds=(("self-add", "mul2"),))
    assert out == [two] and _items(rep) == [(f"add.{t}", "note")]


def test_self_add_packed_lanes():
    out, rep = _run(_kernel("add.f16x2 %d, %a, %a;", nin=1), [[0x3C003C00]])
    lane = int(R.float_binop("add", np.array([0x3C00], np.uint64), np.array([0x3C00], np.uint64), "f16")[0])
    assert out == [lane << 16 | lane] and _items(rep) == [("add.f16x2", "error")]
    out, rep = _run(_kernel("add.f16x2 %d, %a, %a;", nin=1), [[0x3C003C00]], folds=(("self-add", "mul2"),))
    assert out == [0x40004000] and _items(rep) == [("add.f16x2", "note")]


def test_add_of_two_registers_is_not_a_fold():
    out, rep = _run(_kernel("add.f32 %d, %a, %b;"), [[ONE, TWO]])
    assert out == [ADD_1_2] and rep.items == []


# ------------------------------------------------------------------------------ F / J: -x → sign-bit xor

SIGN = 0x80000000
NEG_MUL_2_HALF = MUL_2_HALF ^ SIGN  # φ(−y) = −φ(y): ring negation of a nonzero y flips the float sign


def test_sign_xor_of_a_float_result_is_ring_negation():
    """The xor'ed value comes from mul.f32: a float, so LLVM's folded -x, Triton's 0 − φ(x). At ±0 the
    ring keeps the zero (0·φ(b) = 0 → +0.0; the xor would give −0.0). A note, not an error."""
    text = _kernel("mul.f32 %t, %a, %b;\n\txor.b32 %d, %t, -2147483648;")
    out, rep = _run(text, [[TWO, HALF], [0, HALF]])
    assert out == [NEG_MUL_2_HALF, 0]
    assert ("xor.b32", "note") in _items(rep) and not rep.errors


def test_sign_xor_read_as_float_is_ring_negation():
    """Float evidence downstream: the xor's result feeds add.f32 (-x + y); x = +0.0 must stay +0.0."""
    text = _kernel("xor.b32 %t, %a, -2147483648;\n\tadd.f32 %d, %t, %b;")
    out, rep = _run(text, [[0, TWO]])
    assert out == [TWO] and not rep.errors  # ring: −φ(+0) + φ(2) = φ(2); the bit move gives −0.0 + 2.0 in the ring
    # the bit move would give the ring −0.0 + 2.0 = 2^31 + φ(2): not 2.0. A stated form only settles xors
    # the dataflow leaves undecided, so it changes nothing here
    assert int(R.float_binop("add", np.array([SIGN], np.uint64), np.array([TWO], np.uint64), "f32")[0]) != TWO
    assert _run(text, [[0, TWO]], folds=(("sign-xor", "bits"),))[0] == [TWO]


def test_sign_xor_of_integer_code_stays_a_bit_move():
    """Integer evidence: the value is incremented by add.s32 afterwards (a radix-sort key flip)."""
    text = _kernel("xor.b32 %t, %a, -2147483648;\n\tadd.s32 %d, %t, 1;", nin=1)
    out, rep = _run(text, [[0], [5]])
    assert out == [SIGN + 1, SIGN + 6] and rep.items == [] and sanitize_text(text, "k.ptx").text == text


def test_sign_xor_without_evidence_is_negation_reported_as_undecided():
    """ld.b32 → xor → st.b32 (Triton's ``-x`` on a loaded value): nothing types it. Default: the ring
    negation (neg(2.0) = 0xC0000000, the fpsan.md vector; ±0 stay) and an error; ``sign-xor=bits``
    (or ``--sign-xor-as-neg`` for neg) states it and makes it a note."""
    text = _kernel("xor.b32 %d, %a, -2147483648;", nin=1)
    out, rep = _run(text, [[TWO], [0], [SIGN]])
    assert out == [0xC0000000, 0, SIGN] and _items(rep) == [("xor.b32", "error")]
    out, rep = _run(text, [[TWO], [0], [SIGN]], folds=(("sign-xor", "bits"),))
    assert out == [0xC0000000, SIGN, 0] and _items(rep) == [("xor.b32", "note")]
    out, rep = _run(text, [[0]], sign_xor_as_neg=True)
    assert out == [0] and _items(rep) == [("xor.b32", "note")]


def test_packed_sign_xor_is_lanewise_ring_negation():
    """LLVM's ``-x`` on f16x2 bits is ``xor.b32 d, a, 0x80008000`` (seed 62): each lane negated in the
    ring, a ±0 lane kept (−0 | 2.0 → −0 | −2.0; the xor would give +0 | −2.0)."""
    text = _kernel("xor.b32 %d, %a, -2147450880;", nin=1)
    out, rep = _run(text, [[0x80004000], [0], [0x3C00BC00]])
    assert out == [0x8000C000, 0, 0xBC003C00] and _items(rep) == [("xor.b32", "error")]


def test_sign_xor_typed_by_loads_and_declarations():
    """nvcc types its loads and registers: ``ld.global.u32`` → xor → ``st.global.u32`` is integer code
    (thrust's radix-sort key flip: left as written, nothing listed), a register declared ``.f32`` is a
    float (``mov.b32 %r, %f`` moves its bits: ring negation, a note)."""
    text = _kernel("ld.global.u32 %t, [%rd4];\n\txor.b32 %u, %t, -2147483648;\n\tst.global.u32 [%rd4], %u;\n\t"
                   "mov.b32 %d, %u;", nin=1)
    out, rep = _run(text, [[0]])
    assert out == [SIGN] and rep.items == []
    body = ".reg .f32 %f1;\n\tmov.b32 %f1, %a;\n\tmov.b32 %t, %f1;\n\txor.b32 %d, %t, -2147483648;"
    out, rep = _run(_kernel(body, nin=1), [[0], [TWO]])
    assert out == [0, 0xC0000000] and _items(rep) == [("xor.b32", "note")]


def test_vector_pack_does_not_join_values():
    """nvcc's libm builds a double from an integer exponent: ``add.s32 e, …; xor.b32 h, e, signmask;
    mov.b64 %fd, {h, lo}``. The f64 is not the xor'ed value: integer code, left alone."""
    body = ("add.s32 %t, %a, 1;\n\txor.b32 %u, %t, -2147483648;\n\tmov.b32 %r1, 0;\n\t"
            "mov.b64 %e1, {%r1, %u};\n\tadd.f64 %e2, %e1, %e1;\n\tmov.b64 {%r2, %d}, %e2;")
    rep = sanitize_text(_kernel(body, nin=1), "k.ptx", folds=(("self-add", "mul2"),)).report
    assert "xor.b32" not in [o for o, _ in _items(rep)]


J_BODY = "cvt.rn.f16.f32 %h1, %a;\n\txor.b16 %d, %h1, -32768;"


def test_sign_xor_after_narrowing_cvt_is_ambiguous():
    """``(-x).to(f16)`` and ``-(x.to(f16))`` both give cvt.rn.f16.f32 + xor.b16 (issue 10 J). Default:
    the negation after the cast (an error); ``neg-cast=before``: the ring cast of −φ(x) — Triton's cast
    of the float −x, since φ(−x) = −φ(x) — a note."""
    text = _kernel(J_BODY, out_w=16, nin=1)
    xs = [0x40490FDB, 0xC0A00000, 0x3DCCCCCD]  # π, −5, 0.1: narrowing folds with nonzero discarded bits
    after = [int(R.float_cast(np.array([x], np.uint64), "f32", "f16")[0]) ^ 0x8000 for x in xs]
    before = [int(R.float_cast(np.array([x ^ SIGN], np.uint64), "f32", "f16")[0]) for x in xs]
    assert after != before
    out, rep = _run(text, [[x] for x in xs], out_w=16)
    assert out == after and [s for o, s in _items(rep) if o == "xor.b16"] == ["error"]
    out, rep = _run(text, [[x] for x in xs], out_w=16, folds=(("neg-cast", "before"),))
    assert out == before and [s for o, s in _items(rep) if o == "xor.b16"] == ["note"]


# ------------------------------------------------------------------------------ G, L, M, D

def test_mul_by_negative_zero_is_zero_times_negation():
    """``0.0*(-x)`` → ``mul.f32 x, -0.0``: Triton's φ(0)·(−φ(x)) = 0 → +0.0 for every x (the literal
    product φ(x)·φ(−0.0) = φ(x)·2^31 gave −0.0 for odd payloads such as φ(1) = 1)."""
    out, rep = _run(_kernel("mul.f32 %d, %a, 0f80000000;", nin=1), [[ONE], [TWO], [SIGN], [0x7FC00000]])
    assert out == [0, 0, 0, 0] and _items(rep) == [("mul.f32", "note")]


def test_fma_by_negative_zero_is_the_addend():
    """``c - 0.0*x`` contracted into ``fma.rn.f32 d, x, -0.0, c`` (the G fold inside an fma, issue 10 seed
    108): Triton's φ(c) − φ(0)·φ(x) = φ(c), so d = c bit for bit (the literal ring fma φ(x)·2^31 + φ(c)
    gave c with the sign bit flipped for odd payloads, e.g. x = 1: φ(1) = 1)."""
    body = "fma.rn.f32 %d, %a, 0f80000000, %b;"
    rows = [[ONE, TWO], [TWO, ONE], [ONE, 0x7FC00000], [0x3F800001, 0x40490FDB]]
    out, rep = _run(_kernel(body), rows)
    assert out == [b for _, b in rows] and _items(rep) == [("fma.rn.f32", "note")]


SELF_CMP_X = [0x7FF8000000000000, 0xBFFC359ACF9922C8, 0x400D0DDB6224D8A6, 0x3FF0000000000000]


def _bf16_is_nan(x: int) -> bool:
    """NaN-ness of the float bits of Triton's ring cast f64 → bf16 (ring helpers, fpsan.md §1)."""
    b = int(R.float_cast(np.array([x], np.uint64), "f64", "bf16")[0])
    return (b & 0x7FFF) > 0x7F80


@pytest.mark.parametrize("cmp,nan", [("num", False), ("nan", True)])
def test_self_compare_of_a_narrowed_cast_tests_the_ring_cast(cmp, nan):
    """``x.to(bf16) <= x.to(bf16)`` on an f64 x: LLVM drops the fptrunc (it keeps NaN-ness) and emits
    ``setp.num.f64 p, x, x`` (issue 10 seed 154). Triton's FPSan compares the bits of the ring cast,
    whose NaN-ness is not x's: a NaN x casts to 0x9D8A (a number), 1.75…/3.6… to NaN patterns. Stated
    (or decided by the source) as bf16 it gives those; undecided it stays native and is an error."""
    body = f"setp.{cmp}.f64 %p1, %a, %a;\n\tselp.b64 %d, 1, 0, %p1;"
    text = _kernel(body, w=64, nin=1)
    want = [int(_bf16_is_nan(x) == nan) for x in SELF_CMP_X]
    native = [int((x & (1 << 63) - 1 > 0x7FF << 52) == nan) for x in SELF_CMP_X]
    assert want != native
    out, rep = _run(text, [[x] for x in SELF_CMP_X], w=64, folds=(("self-compare", "bf16"),))
    assert out == want and _items(rep) == [("setp." + cmp + ".f64", "note")]
    out, rep = _run(text, [[x] for x in SELF_CMP_X], w=64)
    assert out == native and _items(rep) == [("setp." + cmp + ".f64", "error")]


def test_self_compare_of_a_bf16_cast_to_f16_tests_the_f16_bits():
    """``s.to(f16) != s.to(f16)`` of a bf16 s as ``setp.nan.bf16 p, s, s`` (held-out seed 2650): the ring cast
    between the 16-bit types keeps the payload, which Triton compares as f16 bits; stated f16 it gives that
    NaN-ness (a bf16 NaN's payload is no f16 NaN, bf16 -5.0's is)."""
    body = "setp.nan.bf16 %p1, %a, %a;\n\tselp.b16 %d, 1, 0, %p1;"
    xs = [0x7FC0, 0x3F80, 0xC0A0, 0x4049, 0x0001, 0xFF80]
    f16 = R.unembed(R.embed(np.array(xs, np.uint64), "bf16"), "f16")
    want = [int((int(b) & 0x7FFF) > 0x7C00) for b in f16]
    assert want != [int((x & 0x7FFF) > 0x7F80) for x in xs]  # a bf16 NaN is no f16 NaN, and -5.0 becomes one
    out, rep = _run(_kernel(body, w=16, nin=1), [[x] for x in xs], w=16, folds=(("self-compare", "f16"),))
    assert out == want and _items(rep) == [("setp.nan.bf16", "note")]
    out, rep = _run(_kernel(body, w=16, nin=1), [[x] for x in xs], w=16)
    assert out == [int((x & 0x7FFF) > 0x7F80) for x in xs] and ("setp.nan.bf16", "error") in _items(rep)


def test_cumsum_select_of_negative_zero_is_the_ring_identity():
    """cumsum's ``p ? x : x + y`` folded into ``x + (p ? -0.0 : y)`` (issue 10 L): p → x itself,
    else the ring x + y (x = 1, y = 2: the vector add(1.0, 2.0))."""
    body = ("setp.ne.b32 %p1, %c, 0;\n\tselp.f32 %t, 0f80000000, %b, %p1;\n\tadd.f32 %d, %t, %a;")
    out, rep = _run(_kernel(body, nin=3), [[HALF, TWO, 1], [ONE, TWO, 0]])
    assert out == [HALF, ADD_1_2] and ("selp.f32", "note") in _items(rep) and not rep.errors


@pytest.mark.parametrize("t", ["f16", "bf16"])
def test_half_cumsum_select_of_negative_zero_is_the_ring_identity(t):
    """The same fold on halves (held-out seeds 1893, 1930): ``selp.b16 t, 0x8000, y, p`` (PTX has no 16-bit
    float selects) read only by an ``add.f16``/``add.bf16``: p → x itself, else the half ring x + y."""
    body = f"setp.ne.b16 %p1, %c, 0;\n\tselp.b16 %t, 0x8000, %b, %p1;\n\tadd.{t} %d, %t, %a;"
    x, y = 0x3C00 if t == "f16" else 0x3F80, 0x4000
    out, rep = _run(_kernel(body, w=16, nin=3), [[x, y, 1], [x, y, 0]], w=16, folds=(("half", "native"),))
    ring = int(R.float_binop("add", np.array([y], np.uint64), np.array([x], np.uint64), t)[0])
    assert out == [x, ring] and ("selp.b16", "note") in _items(rep) and not rep.errors
    # read by something else too (a store): no identity, the select is left
    body2 = body + "\n\tst.global.b16 [%rd2], %t;"
    _, rep = _run(_kernel(body2, w=16, nin=3), [[x, y, 1]], w=16, folds=(("half", "native"),))
    assert ("selp.b16", "note") not in _items(rep)


def test_select_of_negative_zero_read_otherwise_is_left():
    """The same select stored as well: not (only) an additive identity, so it stays as written."""
    body = ("setp.ne.b32 %p1, %c, 0;\n\tselp.f32 %d, 0f80000000, %b, %p1;\n\t"
            "add.f32 %t, %d, %a;\n\tst.global.b32 [%rd4], %t;")
    text = _kernel(body, nin=3)
    out, rep = _run(text, [[HALF, TWO, 1]])
    assert out == [SIGN] and "selp.f32" not in [o for o, _ in _items(rep)]


@pytest.mark.parametrize("half,it,readers", [("bf16", "s32", "setp"), ("f16", "s64", "setp"), ("bf16", "s16", "setp"),
                                              ("f16", "s64", "abs-setp"), ("f16", "s32", "abs-setp"),
                                              ("bf16", "s32", "store"), ("f16", "s64", "abs-store"),
                                              ("f16", "s64", "branch-setp")])
def test_half_to_int_to_f32_compared_is_the_trunc_of_the_ring_widening(half, it, readers):
    """``h.to(intN).to(f32) >= y`` (held-out seed 5041: silent before), or ``abs(..) >= y`` (held-out seed 209470,
    silent at first contact): Triton's FPSan widens h to f32 in the ring, then LLVM folds fptosi/sitofp of that f32
    into a trunc (a comparison, an fabs ignore the sign of zero); the plain build cannot (its cvt reads the half).
    Stored, even through an abs (a mask on the ring payload in Triton's build), the pair stays two native
    conversions; so does a pair the kernel's own branch splits (two blocks in both builds: no combine)."""
    ireg = {"s16": "%h2", "s32": "%r1", "s64": "%rd7"}[it]
    use = {"setp": "setp.ge.f32 %p1, %r2, %b;\n\tselp.b32 %d, 1065353216, 0, %p1;", "store": "mov.b32 %d, %r2;",
           "abs-setp": "abs.f32 %r3, %r2;\n\tsetp.ge.f32 %p1, %r3, %b;\n\tselp.b32 %d, 1065353216, 0, %p1;",
           "abs-store": "abs.f32 %r3, %r2;\n\tmov.b32 %d, %r3;",
           "branch-setp": "setp.ge.f32 %p1, %r2, %b;\n\tselp.b32 %d, 1065353216, 0, %p1;"}[readers]
    split = "setp.eq.u32 %p2, %i, 999;\n\t@%p2 bra $L__skip;\n$L__skip:\n\t" if readers == "branch-setp" else ""
    body = (f"cvt.rn.{half}.f32 %h1, %a;\n\tcvt.rzi.{it}.{half} {ireg}, %h1;\n\t{split}cvt.rn.f32.{it} %r2, {ireg};"
            f"\n\t{use}")
    # −π, 0.5, inf, −1: widened in the ring to about −2.1e35, −6.8e16, 5.5e29, −1, far outside the integers'
    # ranges but the last; each y lies between the trunc and the saturated integer
    xs = [0xC0490FDB, 0x3F000000, 0x7F800000, 0xBF800000]
    ys = [int(v) for v in np.array([-1e30, -1e10, 1e25, 0.0], np.float32).view(np.uint32)]
    if readers.startswith("abs"):  # (the magnitudes: −2.1e35 lies above 1e30, its saturated integer below)
        ys = [y & 0x7FFFFFFF for y in ys]
    out, rep = _run(_kernel(body), [[x, y] for x, y in zip(xs, ys)], folds=(("half-int", "f32"),))
    h = R.float_cast(np.array(xs, np.uint64), "f32", half)
    wide = R.float_cast(h, half, "f32").astype(np.uint32).view(np.float32)  # φ⁻¹ of the sign-extended payload
    mag = abs if readers.startswith("abs") else (lambda v: v)
    n = int(it[1:])
    ints = [int(max(min(np.trunc(float(w)), 2 ** (n - 1) - 1), -2 ** (n - 1))) for w in wide]  # saturating
    if readers == "branch-setp":
        assert out == [0x3F800000 if i >= y else 0 for i, y in zip(ints, np.array(ys, np.uint32).view(np.float32))]
    elif readers.endswith("setp"):
        want = [0x3F800000 if mag(np.trunc(w)) >= y else 0
                for w, y in zip(wide, np.array(ys, np.uint32).view(np.float32))]
        assert out == want
        assert (f"cvt.rn.f32.{it}", "note") in _items(rep) and not rep.errors
    else:
        assert out == [int(np.float32(mag(i)).view(np.uint32)) for i in ints]


@pytest.mark.parametrize("half,it,cmp", [("f16", "s64", "gt"), ("bf16", "s32", "gt"), ("f16", "s16", "gt"),
                                         ("bf16", "s32", "eq"), ("f16", "s64", "eq")])
def test_half_to_int_to_f32_compared_with_a_ring_zero_keeps_the_integer(half, it, cmp):
    """``h.to(intN).to(f32) < (y - y)`` (held-out seed 105660, silent at first contact): in Triton's build y − y is
    the ring's 0, a constant, and LLVM compares the integer instead (``fcmp(sitofp i, 0)`` → ``icmp``): fptosi's
    saturation and NaN (0; INT_MIN on the 64-bit path) decide, not a trunc. The inputs include x whose ring widening
    is a NaN."""
    ireg = {"s16": "%h2", "s32": "%r1", "s64": "%rd7"}[it]
    body = (f"cvt.rn.{half}.f32 %h1, %a;\n\tcvt.rzi.{it}.{half} {ireg}, %h1;\n\tcvt.rn.f32.{it} %r2, {ireg};\n\t"
            f"sub.f32 %r3, %b, %b;\n\tsetp.{cmp}.f32 %p1, %r3, %r2;\n\tselp.b32 %d, 1065353216, 0, %p1;")
    xs = np.arange(0x3F800000, 0x3F800000 + 200000, 97, dtype=np.uint64)
    wide_all = R.float_cast(R.float_cast(xs, "f32", half), half, "f32").astype(np.uint32).view(np.float32)
    nan_x = [int(xs[i]) for i in np.flatnonzero(np.isnan(wide_all))[:2]]
    xs = [0xC0490FDB, 0x3F000000, 0x7F800000, 0xBF800000, *nan_x]
    out, rep = _run(_kernel(body), [[x, 0x3F800000] for x in xs], folds=(("half-int", "f32"),))
    wide = R.float_cast(R.float_cast(np.array(xs, np.uint64), "f32", half), half, "f32").astype(np.uint32).view(
        np.float32)
    n = int(it[1:])
    nan_int = -2 ** 63 if n == 64 else 0  # (the GPU's cvt.rzi on the 64-bit path, ptxkit.exec_sim.semantics.convert)
    ints = [nan_int if np.isnan(w) else int(max(min(np.trunc(float(w)), 2 ** (n - 1) - 1), -2 ** (n - 1)))
            for w in wide]
    assert len(nan_x) == 2 and out == [0x3F800000 if (i < 0 if cmp == "gt" else i == 0) else 0 for i in ints]
    assert (f"cvt.rn.f32.{it}", "note") in _items(rep) and not rep.errors


def test_held_out_abs_of_half_to_int64_compared_is_tritons_bits():
    """Seed 209470: ``where(abs(h.to(int64).to(f32)) >= abs(h.to(f32) / 3.0), ..)``: silent at first contact (16/128
    with special inputs in the hand reduction), now bit for bit."""
    from tests.test_fpsan_libdevice import _assert_bit_exact
    _assert_bit_exact("seed209470")


def test_held_out_half_to_int_compared_across_a_libdevice_body_is_tritons_bits():
    """Seed 210588: ``maximum(x.to(f32), ..) >= x.to(bf16).to(int32).to(f32)`` with a pow body between the two
    conversions in the plain build (its branches; one ring op in Triton's, where the pair folds): silent at first
    contact (2/32), now bit for bit."""
    from tests.test_fpsan_libdevice import _assert_bit_exact
    _assert_bit_exact("seed210588")


def test_held_out_half_to_int64_compared_with_a_ring_zero_is_tritons_bits():
    """Seed 105660: ``where(d.to(f16).to(int64).to(f32) < (d - d), ..)`` of a tf32x3 dot's d: bit for bit (2/512
    elements differed where the ring widening of the half is a NaN)."""
    from tests.test_fpsan_libdevice import _assert_bit_exact
    _assert_bit_exact("seed105660")


def test_half_to_int_to_f64_compared_through_f64_is_the_f64_trunc():
    """``h.to(f64).to(int8).to(f64) < y`` (held-out seed 16720, silent at first contact): Triton's FPSan widens h to
    f64 in the ring and LLVM folds the f64 → int → f64 pair into ``cvt.rzi.f64.f64``; the plain build keeps
    ``cvt.rzi.s16.bf16`` / ``cvt.rn.f64.s16``. Stated through f64, the trunc of the f64 widening."""
    body = ("cvt.rn.bf16.f32 %h1, %a;\n\tcvt.rzi.s16.bf16 %h2, %h1;\n\tcvt.rn.f64.s16 %e1, %h2;\n\t"
            "cvt.f64.f32 %e2, %b;\n\tsetp.lt.f64 %p1, %e1, %e2;\n\tselp.b32 %d, 1065353216, 0, %p1;")
    xs = [0xC0490FDB, 0x3F000000, 0xBF800000]
    ys = [int(v) for v in np.array([-1e30, -1e10, 0.5], np.float32).view(np.uint32)]
    out, rep = _run(_kernel(body), [[x, y] for x, y in zip(xs, ys)], folds=(("half-int", "f64"),))
    h = R.float_cast(np.array(xs, np.uint64), "f32", "bf16")
    wide = R.float_cast(h, "bf16", "f64").view(np.float64)  # φ⁻¹ of the sign-extended payload
    want = [0x3F800000 if np.trunc(w) < y else 0 for w, y in zip(wide, np.array(ys, np.uint32).view(np.float32))]
    assert out == want and ("cvt.rn.f64.s16", "note") in _items(rep) and not rep.errors


def test_f64_maximum_nan_expansion_is_the_ring_max():
    """LLVM's llvm.maximum.f64 (Triton's maximum(propagate_nan=ALL), k_maximum_nan_f64): with a NaN
    input Triton's ring max of the payloads decides, not the canonical NaN of the expansion."""
    body = """setp.eq.b64 %p1, %a, 0;
	selp.f64 %e1, %a, %b, %p1;
	setp.nan.f64 %p2, %a, %b;
	max.f64 %e2, %a, %b;
	selp.f64 %e3, 0d7FF8000000000000, %e2, %p2;
	setp.eq.f64 %p3, %a, %b;
	selp.f64 %d, %e1, %e3, %p3;"""
    nan, one, two, neg0 = 0x7FF8000000000000, 0x3FF0000000000000, 0x4000000000000000, 1 << 63
    rows = [[nan, one], [one, nan], [two, one], [0, neg0], [neg0, 0], [nan | (1 << 63), one]]  # (−NaN: ring max 1)
    out, rep = _run(_kernel(body, w=64), rows, w=64)
    a, b = (np.array([r[k] for r in rows], np.uint64) for k in (0, 1))
    assert out == [int(v) for v in R.float_binop("max", a, b, "f64")]
    assert out[3:5] == [0, 0]  # +0 vs −0: payloads 0 and 2^63 (the most negative): ring max +0.0
    assert out[5] == one  # a NaN whose payload is below φ(1.0): the ring max is 1.0, not the canonical NaN
    assert ("selp.f64", "note") in _items(rep) and not rep.errors
    # held-out seed 4236: LLVM scheduled another body (its branches, a join label) between the max and its NaN
    # select; the max's one definition still reaches the select: the same ring max (it was the canonical NaN)
    split = body.replace("\tselp.f64 %e3,", "\tsetp.eq.b32 %p0, %i, 99;\n\t@%p0 bra $L_j;\n\tadd.f64 %e4, %a, %a;\n"
                         "$L_j:\n\tselp.f64 %e3,")
    assert split != body
    out, rep = _run(_kernel(split, w=64).replace(".reg .b32 %r<8>, %i;", ".reg .b32 %r<8>, %i;\n\t.reg .b64 %e4;"),
                    rows, w=64)
    assert out == [int(v) for v in R.float_binop("max", a, b, "f64")]


def test_sqrt_rn_f64_takes_tritons_sqrt_tag():
    """Triton 3.9's FPSan PTX of f64 tl.sqrt (k_sqrt_f64) XORs 0xe8b4b3b1c77c4573 = murmur64(6), the Sqrt
    tag; ptxkit gave it the PreciseSqrt tag (issue 10 D)."""
    text = sanitize_text(_kernel("sqrt.rn.f64 %d, %a;", w=64, nin=1), "k.ptx").text
    assert "0xe8b4b3b1c77c4573" in text.lower() and "0xefc6be81a1d572c4" not in text.lower()


def test_bad_fold_option_is_a_usage_error(tmp_path, capsys):
    from ptxkit.cli import main

    src = tmp_path / "k.ptx"
    src.write_text(_kernel("add.f32 %d, %a, %a;", nin=1))
    assert main(["sanitize", str(src), "--fold", "self-add=x3"]) == 2
    assert "--fold" in capsys.readouterr().err
    assert main(["sanitize", str(src), "-o", str(tmp_path / "o.ptx"), "--strict", "--fold", "self-add=mul2"]) == 0
    assert main(["sanitize", str(src), "-o", str(tmp_path / "o.ptx"), "--strict"]) == 2


# ------------------------------------------------------------------------------ H: narrowed half arithmetic

def _f16(xs: list[int]) -> np.ndarray:
    return np.array(xs, np.uint64)


def test_half_op_is_reported_and_the_widened_form_can_be_stated():
    """``mul.f16`` is half arithmetic or LLVM's narrowing of ``(x.to(f32)*y.to(f32)).to(f16)`` (same
    PTX): half by default, reported; ``half=f32`` is Triton's FPSan of the widened source — ring
    widening (sign extension), the f32 ring product, Triton's narrowing fold."""
    text = _kernel("mul.f16 %d, %a, %b;", w=16)
    a, b = [0x4248, 0xC500, 0x2E66], [0x4500, 0x3C00, 0xB800]  # π, −5, 0.1 (f16) by 5, 1, −0.5
    half = [int(v) for v in R.float_binop("mul", _f16(a), _f16(b), "f16")]
    wide = R.float_binop("mul", R.float_cast(_f16(a), "f16", "f32"), R.float_cast(_f16(b), "f16", "f32"), "f32")
    narrowed = [int(v) for v in R.float_cast(wide, "f32", "f16")]
    assert half != narrowed
    out, rep = _run(text, [list(r) for r in zip(a, b)], w=16)
    assert out == half and {(o, s) for o, s in _items(rep)} == {("mul.f16", "error")}
    out, rep = _run(text, [list(r) for r in zip(a, b)], w=16, folds=(("half", "f32"),))
    assert out == narrowed and {(o, s) for o, s in _items(rep)} == {("mul.f16", "note")}
    out, _ = _run(text, [list(r) for r in zip(a, b)], w=16, folds=(("half", "native"),))
    assert out == half


def test_half_comparison_of_widened_values():
    """``setp.lt.f16`` of two widened halves compares Triton's f32 values φ⁻¹(sext φ(x)), not the halves."""
    body = "setp.lt.f16 %p1, %a, %b;\n\tselp.b16 %d, %a, %b, %p1;"
    a, b = [0x4248, 0x2E66, 0x3C00, 0xC500], [0x2E66, 0x3C00, 0x4000, 0x3C00]  # π·0.1, 0.1·1, 1·2, −5·1
    wa, wb = (R.float_cast(_f16(v), "f16", "f32").astype(np.uint32).view(np.float32) for v in (a, b))
    want = [x if lt else y for x, y, lt in zip(a, b, wa < wb)]
    out, rep = _run(_kernel(body, w=16), [list(r) for r in zip(a, b)], w=16, folds=(("half", "f32"),))
    assert list(wa < wb) == [True, False, False, True]  # the halves give [False, True, True, True]
    assert out == want and ("setp.lt.f16", "note") in _items(rep)
    out, rep = _run(_kernel(body, w=16), [list(r) for r in zip(a, b)], w=16)
    assert out == [x if x_ < y_ else y for x, y, x_, y_ in zip(a, b, *(_f16(v).astype(np.uint16).view(np.float16)
                                                                      for v in (a, b)))]
    assert ("setp.lt.f16", "error") in _items(rep)


# ------------------------------------------------------------------------------ on Triton 3.9's own PTX

STATED = [("k_idiom_J_neg_then_narrow", "neg-cast=before"), (3, "neg-cast=after"), (46, "self-add=add"),
          ("k_neg_f32", "sign-xor=neg"), ("k_idiom_H_mul_f16_via_f32", "half=f32"),
          ("k_idiom_H_add_bf16_via_f32", "half=f32"), ("k_idiom_H_cmp_f16_via_f32", "half=f32"),
          ("k_idiom_H_mul_f16_via_f64", "half=f64"), (39, "half=f64")]


@pytest.mark.parametrize("key,fold", STATED)
def test_stated_source_form_is_bit_exact_with_triton(key, fold):
    """Kernels whose PTX two sources share (tests/test_triton_gen.py: exact-but-reported or reported
    mismatches by default): with the source form stated, ``sanitize`` equals Triton's FPSan output and
    the fold's report items are notes."""
    from ptxkit.corpus.triton_check import TRITON_VERSION, compile_ptx, run_ptx, triton_available
    from ptxkit.corpus.triton_kernels import generate, idiom_kernels, single_op_matrix

    if triton_available() != TRITON_VERSION:
        pytest.skip(f"Triton {TRITON_VERSION} not installed")
    spec = generate(key) if isinstance(key, int) else {k.name: k for k in single_op_matrix() + idiom_kernels()}[key]
    plain, fpsan = compile_ptx(spec, ""), compile_ptx(spec, "fpsan")
    name, form = fold.split("=")
    res = sanitize_text(plain.ptx, "plain.ptx", folds=((name, form),))
    ours, theirs = run_ptx(spec, plain, res.text, "s.ptx"), run_ptx(spec, fpsan, fpsan.ptx, "f.ptx")
    assert np.array_equal(ours, theirs), f"{int((ours != theirs).sum())}/{ours.size} differ"
    assert not [i for i in res.report.errors if f"({name}=" in i.reason]


PTXAS_CASES = {
    "self_add_f16x2": ("add.f16x2 %d, %a, %a;", 32, 32, 1, ()),
    "packed_xor": ("xor.b32 %d, %a, -2147450880;", 32, 32, 1, ()),
    "neg_cast_before": (J_BODY, 32, 16, 1, (("neg-cast", "before"),)),
    "cumsum_select": ("setp.ne.b32 %p1, %c, 0;\n\tselp.f32 %t, 0f80000000, %b, %p1;\n\tadd.f32 %d, %t, %a;", 32, 32, 3,
                      ()),
    "half_f64": ("mul.f16 %d, %a, %b;", 16, 16, 2, (("half", "f64"),)),
    "neg_cast_packed": ("cvt.rn.f16x2.f32 %t, %a, %b;\n\tneg.f16x2 %d, %t;", 32, 32, 2, ()),
    "neg_cast_packed_before": ("cvt.rn.bf16x2.f32 %t, %a, %b;\n\tneg.bf16x2 %d, %t;", 32, 32, 2,
                               (("neg-cast", "before"),)),
    "packed_neg_zero": ("mov.b32 %t, -2147450880;\n\tfma.rn.f16x2 %d, %a, %t, %b;", 32, 32, 2, ()),
    "zero_sign": ("cvt.rn.f32.s32 %t, %a;\n\tcopysign.f32 %d, %t, 0f00000000;", 32, 32, 1, ()),
    "half_setp": ("setp.lt.f16 %p1, %a, %b;\n\tselp.b16 %d, %a, %b, %p1;", 16, 16, 2, (("half", "f32"),)),
}


@needs_ptxas
@pytest.mark.parametrize("name", sorted(PTXAS_CASES))
def test_fold_rewrites_are_accepted_by_ptxas(name, tmp_path):
    import subprocess

    body, w, ow, nin, folds = PTXAS_CASES[name]
    src = tmp_path / "k.ptx"
    src.write_text(sanitize_text(_kernel(body, w=w, out_w=ow, nin=nin), "k.ptx", folds=folds).text)
    r = subprocess.run(["ptxas", "-arch=sm_90", str(src), "-o", str(tmp_path / "k.o")], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


def test_tritons_int8_to_bf16_bit_trick_is_left_native():
    """Triton 3.9 lowers int8 → bf16 (after its FPSan pass) as ``(w & 0x437F437F) - (w & 0x43804380)`` in
    bf16x2 on bytes placed under a 0x43 exponent (triton_gen seed 119): exact, the signed bytes as bf16;
    left native like the conversions Triton's FPSan leaves, not a 16-bit ring sub (H)."""
    body = "and.b32 %t, %a, 0x437F437F;\n\tand.b32 %u, %a, 0x43804380;\n\tsub.bf16x2 %d, %t, %u;"
    pairs = [(0, 1), (0x7F, 0x80), (0xFF, 0x85), (0x2A, 0xD6)]
    words = [0x43004300 | hi << 16 | lo for lo, hi in pairs]

    def bf16(v: int) -> int:  # the signed byte as bf16 (exact: |v| < 2^8)
        return int(np.float32(np.int8(np.uint8(v))).view(np.uint32)) >> 16
    out, rep = _run(_kernel(body, nin=1), [[w] for w in words])
    assert out == [bf16(hi) << 16 | bf16(lo) for lo, hi in pairs]
    assert _items(rep) == [("sub.bf16x2", "note")]


# ------------------------------------------------------------------------------ sign-bit masks: −|x|, |x|

def test_sign_or_of_a_float_is_the_ring_negation_of_abs_and_reported():
    """``or.b32 d, x, 0x80000000`` on a float (LLVM's −|x| of minimum(x, −x), -abs(x)): |x| then the
    ring negation, whose sign stays clear at 0 (held-out seed 610); an error, since minimum(x, −x)
    differs at −0."""
    text = _kernel("mul.f32 %t, %a, %b;\n\tor.b32 %d, %t, -2147483648;")
    out, rep = _run(text, [[TWO, HALF], [0, HALF], [0x80000000, HALF]])
    assert out == [MUL_2_HALF | 0x80000000, 0, 0]
    assert ("or.b32", "error") in _items(rep)


def test_sign_or_of_llvms_abs_is_the_ring_negation_of_abs_and_reported():
    """``or.b32 d, t, 0x80000000`` of ``t = and.b32 x, 0x7FFFFFFF`` (LLVM's |x|, then −|x|: held-out seed 14869,
    ``-cumsum(abs(h))``'s first row): the and is a float sign op, not integer code; the or is the ring negation
    of |x| (sign clear at 0) and an error (silent and native before)."""
    text = _kernel("mul.f32 %t, %a, %b;\n\tand.b32 %u, %t, 2147483647;\n\tor.b32 %d, %u, -2147483648;")
    out, rep = _run(text, [[TWO, HALF], [0x80000000, HALF]])
    assert out == [MUL_2_HALF | 0x80000000, 0]
    assert ("or.b32", "error") in _items(rep)


def test_sign_or_of_integer_code_is_left_alone():
    text = _kernel("add.s32 %t, %a, %b;\n\tor.b32 %d, %t, -2147483648;")
    out, rep = _run(text, [[1, 2], [0, 0]])
    assert out == [0x80000003, 0x80000000] and not rep.items


def test_abs_moved_across_a_float_cvt_is_reported():
    """``and.b32 t, x, 0x7FFFFFFF`` read by ``cvt.f64.f32`` (LLVM's abs(x.to(f64)) → abs(x).to(f64), seed
    505) and ``abs.bf16x2`` of ``cvt.rn.bf16x2.f32`` (abs(x).to(bf16) → abs(x.to(bf16)), seed 688): the
    ring cast does not commute with abs, so each is an error; a plain abs is not."""
    widen = _kernel("add.f32 %t, %a, %b;\n\tand.b32 %u, %t, 2147483647;\n\tcvt.f64.f32 %d, %u;", out_w=64)
    _, rep = _run(widen, [[ONE, TWO]], out_w=64)
    assert ("and.b32", "error") in _items(rep)
    narrow = _kernel("cvt.rn.bf16x2.f32 %u, %a, %b;\n\tabs.bf16x2 %d, %u;")
    _, rep = _run(narrow, [[ONE, TWO]])
    assert ("abs.bf16x2", "error") in _items(rep)
    plain = _kernel("add.f32 %t, %a, %b;\n\tand.b32 %d, %t, 2147483647;")
    _, rep = _run(plain, [[ONE, TWO]])
    assert not rep.errors


@pytest.mark.parametrize("body,op", [("cvt.rzi.s16.f32 %h0, %a;\n\tcvt.rn.f32.s16 %d, %h0;", "cvt.rn.f32.s16"),
                                     ("cvt.rzi.f32.f32 %d, %a;", "cvt.rzi.f32.f32")])
def test_conversions_llvm_folds_are_reported_without_a_source(body, op):
    """``cvt.rn.f32.s16`` (i.to(f16|bf16).to(f32) without the half: seeds 529, 618) and ``cvt.rzi.f32.f32``
    (trunc, or x.to(int).to(f32): seed 626) cannot be told apart from the PTX: errors when no source
    decides (test_triton_gen checks the decisions the Python source makes)."""
    _, rep = _run(_kernel(body), [[ONE, TWO]])
    assert (op, "error") in _items(rep)


def test_negation_of_a_max_feeding_a_min_is_reported_without_a_source():
    """``neg.f32`` of ``max.f32`` read by a ``min`` (LLVM's −max(a, b) for min(−a, −b) in a reduction:
    held-out seed 883): the ring negation as written, an error since the ring differs at φ(−0) = −2^31
    (its own negation). Read by anything else (attention's ``qk − max`` as an fma of −max) it is a
    plain negation, exact in the ring: no report."""
    text = _kernel("max.f32 %t, %a, %b;\n\tneg.f32 %u, %t;\n\tmin.f32 %d, %u, %a;")
    out, rep = _run(text, [[ONE, TWO]])
    assert ("neg.f32", "error") in _items(rep)
    neg_max = R.float_unop("neg", np.array([TWO], np.uint64), "f32")
    assert out == [int(R.float_binop("min", neg_max.astype(np.uint64), np.array([ONE], np.uint64), "f32")[0])]
    plain = _kernel("max.f32 %t, %a, %b;\n\tneg.f32 %u, %t;\n\tadd.f32 %d, %u, %a;")
    _, rep = _run(plain, [[ONE, TWO]])
    assert not rep.errors


def test_sign_xor_of_a_max_is_reported_as_its_negation():
    """``tl.min(-x)`` as the reduction tree's ``max.f32`` and one sign xor of its result, stored (held-out seed
    11777: silent before, sanitized as a plain negation): the ring negation of the max, an error as for
    ``neg.f32`` of a max (the ring differs where a payload is φ(−0))."""
    text = _kernel("max.f32 %t, %a, %b;\n\txor.b32 %d, %t, -2147483648;")
    out, rep = _run(text, [[ONE, TWO]])
    assert ("xor.b32", "error") in _items(rep) and "negation of a max/min" in rep.errors[0].reason
    assert out == [int(R.float_unop("neg", np.array([TWO], np.uint64), "f32")[0])]


def test_abs_through_a_narrowed_min_or_after_a_narrowing_cvt_is_reported():
    """|h| of halves read by a ``min.f16`` whose result is widened (LLVM's min(abs(ext a), abs(ext b)) →
    ext(min(|a|, |b|)), held-out seed 814), and |cvt(x)| of a narrowing cvt (abs(x * y).to(f16), seed
    860): the ring cast does not commute with abs, so each is an error."""
    through_min = _kernel("and.b16 %t, %a, 32767;\n\tand.b16 %u, %b, 32767;\n\tmin.f16 %c, %t, %u;\n\t"
                          "cvt.f32.f16 %d, %c;", w=16, out_w=32)
    _, rep = _run(through_min, [[0x3C00, 0xC000]], w=16, out_w=32)
    assert [s for o, s in _items(rep) if o == "and.b16"] == ["error", "error"]
    after_cvt = _kernel("cvt.rn.f16.f32 %h1, %a;\n\tand.b16 %d, %h1, 32767;", out_w=16, nin=1)
    _, rep = _run(after_cvt, [[TWO]], out_w=16)
    assert ("and.b16", "error") in _items(rep)


def test_negation_of_a_cvt_is_the_neg_cast_fold():
    """``neg.f16`` of ``cvt.rn.f16.f32`` (LLVM's form of ``(x * -1.0).to(f16)``, held-out seed 777) is the J
    fold with a neg: the negation after the cast by default (an error), the ring cast of −φ(x) when
    ``neg-cast=before`` is stated (a note) — the same values as the sign-xor form."""
    text = _kernel("cvt.rn.f16.f32 %h1, %a;\n\tneg.f16 %d, %h1;", out_w=16, nin=1)
    xs = [0x40490FDB, 0xC0A00000, 0x3DCCCCCD]
    after = [int(R.float_unop("neg", R.float_cast(np.array([x], np.uint64), "f32", "f16").astype(np.uint64),
                              "f16")[0]) for x in xs]
    before = [int(R.float_cast(np.array([x ^ SIGN], np.uint64), "f32", "f16")[0]) for x in xs]
    out, rep = _run(text, [[x] for x in xs], out_w=16)
    assert out == after and ("neg.f16", "error") in _items(rep)
    out, rep = _run(text, [[x] for x in xs], out_w=16, folds=(("neg-cast", "before"),))
    assert out == before and ("neg.f16", "note") in _items(rep)


def test_negation_of_a_packed_cvt_before_the_cast_is_each_lanes_ring_cast_of_the_negation():
    """``neg.bf16x2`` of ``cvt.rn.bf16x2.f32 c, a, b`` with ``neg-cast=before`` (held-out seed 8875: the source's
    ``(-(a / a)).to(bf16)`` before a dot decided it, but the packed form was sanitized as the negation after the
    cast): the ring cast of −φ(a) in the high lane, of −φ(b) in the low one."""
    text = _kernel("cvt.rn.bf16x2.f32 %t, %a, %b;\n\tneg.bf16x2 %d, %t;", nin=2)
    rows = [[0x40490FDB, 0xC0A00000], [0x3DCCCCCD, 0x00000000], [0x80000000, 0x7F7FFFFF]]

    def cast(x: int) -> int:
        return int(R.float_cast(np.array([x], np.uint64), "f32", "bf16")[0])

    def neg(x: int) -> int:  # the ring negation (+0 stays +0: φ(+0) = 0)
        return int(R.float_unop("neg", np.array([x], np.uint64), "f32")[0])
    before = [cast(neg(a)) << 16 | cast(neg(b)) for a, b in rows]
    after = [int(R.float_unop("neg", np.array([cast(a)], np.uint64), "bf16")[0]) << 16
             | int(R.float_unop("neg", np.array([cast(b)], np.uint64), "bf16")[0]) for a, b in rows]
    assert before != after
    out, rep = _run(text, rows, folds=(("neg-cast", "before"),))
    assert out == before and ("neg.bf16x2", "note") in _items(rep)
    out, rep = _run(text, rows)
    assert out == after and ("neg.bf16x2", "error") in _items(rep)


def test_copysign_of_zero_is_the_ring_product_zero():
    """``copysign.f32 d, i.to(f32), 0.0`` is LLVM's ``0.0 * x`` for a finite x (held-out seed 751): Triton's
    φ(0)·φ(x) = 0 gives +0.0 for every x, an error without a source to tell it from a copysign call;
    ``zero-sign=copysign`` keeps the native sign (−0.0 for negative x)."""
    text = _kernel("cvt.rn.f32.s32 %t, %a;\n\tcopysign.f32 %d, %t, 0f00000000;", nin=1)
    rows = [[(-5) & 0xFFFFFFFF], [7], [0]]
    out, rep = _run(text, rows)
    assert out == [0, 0, 0] and ("copysign.f32", "error") in _items(rep)
    out, rep = _run(text, rows, folds=(("zero-sign", "copysign"),))
    assert out == [SIGN, 0, 0] and not rep.errors


def test_sign_of_an_f64_high_word_stored_as_f32_is_the_zero_sign_fold():
    """Held-out seed 11581: ``(0.0 * i.to(f64)).to(f32)`` as ``and.b32 d, hi(x), 0x80000000`` of the f64 x's high
    word, stored as the f32 result, was left as integer code, silently (−0.0 for negative i): Triton's ring
    φ(0)·φ(x) is 0, +0.0 once narrowed. An error without a source; ``zero-sign=mul`` gives +0.0 for every i;
    ``copysign`` keeps the native sign."""
    text = _kernel("cvt.rn.f64.s32 %e1, %a;\n\tmov.b64 {_, %r1}, %e1;\n\tand.b32 %d, %r1, -2147483648;", nin=1)
    rows = [[(-5) & 0xFFFFFFFF], [7], [0]]
    out, rep = _run(text, rows)
    assert out == [SIGN, 0, 0] and ("and.b32", "error") in _items(rep)
    out, rep = _run(text, rows, folds=(("zero-sign", "mul"),))
    assert out == [0, 0, 0] and ("and.b32", "note") in _items(rep)
    out, rep = _run(text, rows, folds=(("zero-sign", "copysign"),))
    assert out == [SIGN, 0, 0] and not rep.errors
    # (0.0 * (i.to(f64) * -1.0)).to(f32): the high word of not x (custom kernel after seed 81791, 62/128 silent)
    negated = _kernel("cvt.rn.f64.s32 %e1, %a;\n\tnot.b64 %e2, %e1;\n\tmov.b64 {_, %r1}, %e2;\n\t"
                      "and.b32 %d, %r1, -2147483648;", nin=1)
    out, rep = _run(negated, rows, folds=(("zero-sign", "mul"),))
    assert out == [0, 0, 0] and ("and.b32", "note") in _items(rep)


def test_packed_mul_by_negative_zero_is_zero():
    """``-(0.0 * h)`` on packed halves as ``mul.f16x2 h, {-0.0, -0.0}`` (held-out seed 783): Triton's
    φ(0)·(−φ(h)) = 0 in each lane, +0.0 bits, whatever h (the literal ring product gave −0.0 lanes)."""
    text = _kernel("mov.b32 %t, -2147450880;\n\tmul.f16x2 %d, %a, %t;", nin=1)
    out, rep = _run(text, [[0x3C00BC00], [0x7E00C500], [0x80000001]])
    assert out == [0, 0, 0] and _items(rep) == [("mul.f16x2", "note")]
    fma = _kernel("mov.b32 %t, -2147450880;\n\tfma.rn.f16x2 %d, %a, %t, %b;")
    rows = [[0x3C00BC00, 0x40004400], [0x7E00C500, 0x80008000]]
    out, rep = _run(fma, rows)
    assert out == [b for _, b in rows] and _items(rep) == [("fma.rn.f16x2", "note")]


@pytest.mark.parametrize("t", ["f16", "bf16"])
def test_half_mul_by_negative_zero_register_is_zero(t):
    """``0.0 * (h.to(f32) * -1.0)`` stored as a half: LLVM's ``mul.bf16 h, r`` with ``mov.b16 r, 0x8000``
    (held-out seeds 1918, 2017: a half's −0.0 reaches the op through a register, PTX has no 16-bit float
    immediates). Triton's φ(0)·(−φ(h)) = 0 → +0.0 bits; in an fma the addend, bit for bit (the literal
    ring product by φ(−0.0) = 2^15 gave other bits for every odd payload)."""
    rows = [[0x3C00], [0xBC00], [0x7E00], [0x0001]]
    out, rep = _run(_kernel(f"mov.b16 %t, 0x8000;\n\tmul.{t} %d, %a, %t;", w=16, nin=1), rows, w=16)
    assert out == [0, 0, 0, 0] and _items(rep) == [(f"mul.{t}", "note")]
    rows = [[0x3C00, 0x4000], [0x0001, 0xC500], [0x7E00, 0x8000]]
    out, rep = _run(_kernel(f"mov.b16 %t, 0x8000;\n\tfma.rn.{t} %d, %a, %t, %b;", w=16), rows, w=16)
    assert out == [b for _, b in rows] and _items(rep) == [(f"fma.rn.{t}", "note")]
    # a register that holds other bits (0x8001) is no −0.0: the H fold's half product, reported as such
    out, rep = _run(_kernel(f"mov.b16 %t, 0x8001;\n\tmul.{t} %d, %a, %t;", w=16, nin=1), rows[:1], w=16)
    assert [i.opcode for i in rep.items] == [f"mul.{t}"] and "-0.0" not in rep.items[0].reason


def test_product_added_to_itself_in_an_fma_is_the_self_add_fold():
    """``fma d, a, b, p`` with ``p = mul a, b``: LLVM's ``p + p`` (from ``p * 2.0``) contracted (held-out
    seeds 960, 1087). Without a source it is the K fold's default, the ring p + p, reported; stated
    ``self-add=mul2`` gives Triton's φ(p)·φ(2)."""
    text = _kernel("mul.f32 %t, %a, %b;\n\tfma.rn.f32 %d, %a, %b, %t;")
    p = R.float_binop("mul", np.array([TWO], np.uint64), np.array([HALF], np.uint64), "f32")
    added = int(R.float_binop("add", p, p, "f32")[0])
    doubled = int(R.float_binop("mul", p, np.array([TWO], np.uint64), "f32")[0])
    assert added != doubled
    out, rep = _run(text, [[TWO, HALF]])
    assert out == [added] and ("fma.rn.f32", "error") in _items(rep)
    out, rep = _run(text, [[TWO, HALF]], folds=(("self-add", "mul2"),))
    assert out == [doubled] and ("fma.rn.f32", "note") in _items(rep)


def test_doubled_self_add_in_an_fma_is_the_self_add_fold():
    """``fma d, x, 2.0, p`` with ``p = add x, x``: LLVM's ``2.0 * (x * 2.0)`` (held-out seed 4209: silent, the
    fma was ring arithmetic on the K fold's p). Stated ``self-add=mul2``, both are Triton's products:
    φ(2)·(φ(x)·φ(2))."""
    text = _kernel("add.f32 %t, %a, %a;\n\tfma.rn.f32 %d, %a, 0f40000000, %t;", nin=1)
    p = R.float_binop("mul", np.array([HALF], np.uint64), np.array([TWO], np.uint64), "f32")
    want = int(R.float_binop("mul", p, np.array([TWO], np.uint64), "f32")[0])
    out, rep = _run(text, [[HALF]], folds=(("self-add", "mul2"),))
    assert out == [want] and _items(rep) == [("add.f32", "note"), ("fma.rn.f32", "note")]


def test_doubled_self_add_in_an_fma_across_a_branch_is_the_self_add_fold():
    """Held-out seed 9224: the next element's ``2.0 * (x * 2.0)`` among a cosf body's branches — a label between the
    ``add x, x`` and the fma made the fma plain ring arithmetic on p, silently. x is written once, before, by an
    instruction on no cycle of the control flow: the same fold (also where a cold block jumps back to a join before
    it, seed 62394); a branch back over x's definition keeps it out."""
    body = "add.f32 %t, %a, %a;\n\tsetp.ne.b32 %p1, %i, 999;\n\t@%p1 bra L1;\n\tmov.b32 %u, 0;\nL1:\n\t" \
           "fma.rn.f32 %d, %a, 0f40000000, %t;"
    p = R.float_binop("mul", np.array([HALF], np.uint64), np.array([TWO], np.uint64), "f32")
    want = int(R.float_binop("mul", p, np.array([TWO], np.uint64), "f32")[0])
    out, rep = _run(_kernel(body, nin=1), [[HALF]], folds=(("self-add", "mul2"),))
    assert out == [want] and _items(rep) == [("add.f32", "note"), ("fma.rn.f32", "note")]
    looped = ("setp.eq.b32 %p2, %i, 999;\nL0:\n\tmov.b32 %c, %a;\n\t" + body.replace("%a", "%c")
              + "\n\t@%p2 bra L0;")  # (%c written once, inside a loop: the branch back may run it again)
    _, rep = _run(_kernel(looped, nin=1), [[HALF]], folds=(("self-add", "mul2"),))
    assert ("fma.rn.f32", "note") not in _items(rep)
    # held-out seed 62394 (silent before): a cold block after the code, entered from before x's definition, jumps back
    # to a join before it — no loop, x is still written once
    cold = ("setp.eq.b32 %p2, %i, 999;\n\t@%p2 bra COLD;\nL0:\n\tmov.b32 %c, %a;\n\t" + body.replace("%a", "%c")
            + "\n\tbra.uni DONE;\nCOLD:\n\tmov.b32 %u, 1;\n\tbra.uni L0;\nDONE:")
    out, rep = _run(_kernel(cold, nin=1), [[HALF]], folds=(("self-add", "mul2"),))
    assert out == [want] and ("fma.rn.f32", "note") in _items(rep)


@pytest.mark.parametrize("sign_test", ["shr.u16 %h1, %h0, 15;\n\tand.b16 %h2, %h1, 1;\n\tsetp.ne.b16 %p1, %h2, 0;",
                                       "setp.lt.s16 %p1, %h0, 0;",
                                       # 0.0 * (x * -1.0): the sign of not x (held-out seed 81791)
                                       "not.b16 %h6, %h0;\n\tshr.u16 %h1, %h6, 15;\n\tand.b16 %h2, %h1, 1;\n\t"
                                       "setp.ne.b16 %p1, %h2, 0;"])
def test_select_of_signed_zeros_on_a_floats_sign_is_the_zero_sign_fold(sign_test):
    """Held-out seed 9227: ``0.0 * i.to(bf16)`` as NVPTX's 16-bit copysign — x's sign bit tested in integer code,
    ``selp.b16 d, 0x8000, 0x0000, p``, read as a bf16 — was left native, silently: Triton's φ(0)·φ(x) is +0.0
    whatever x's sign. An error without a source; ``zero-sign=mul`` gives +0.0; ``copysign`` keeps it native."""
    body = ("cvt.rn.bf16.s16 %h0, %h5;\n\t" + sign_test +
            "\n\tselp.b16 %h3, 0x8000, 0x0000, %p1;\n\tmax.bf16 %h4, %h3, %h0;\n\tcvt.u32.u16 %d, %h4;")
    text = _kernel("cvt.u16.u32 %h5, %a;\n\t" + body, nin=1)
    rows = [[(-5) & 0xFFFF], [7]]
    out, rep = _run(text, rows)
    assert ("selp.b16", "error") in _items(rep)
    out, rep = _run(text, rows, folds=(("zero-sign", "mul"),))
    assert ("selp.b16", "note") in _items(rep)
    # max(+0.0, i) in the ring: +0.0 for the negative i, 7.0 (bf16 0x40E0) for the positive one
    assert out == [0, 0x40E0]


def test_sign_bit_and_of_a_not_is_the_zero_sign_fold():
    """``0.0 * (i.to(f32) * -1.0)`` as ``and.b32 d, not(x), 0x80000000`` (custom kernel after held-out seed 81791,
    62/128 elements silent): copysign(0.0, −x); Triton's φ(0)·φ(−x) is +0.0. An error without a source."""
    text = _kernel("cvt.rn.f32.s32 %t, %a;\n\tnot.b32 %u, %t;\n\tand.b32 %d, %u, -2147483648;", nin=1)
    rows = [[5], [(-7) & 0xFFFFFFFF]]
    _, rep = _run(text, rows)
    assert ("and.b32", "error") in _items(rep)
    out, rep = _run(text, rows, folds=(("zero-sign", "mul"),))
    assert out == [0, 0] and ("and.b32", "note") in _items(rep)


def test_packed_half_abs_read_by_a_store_does_not_stop_the_run():
    """Held-out seeds 4283, 4289: ``abs.bf16x2`` whose lanes no conversion reads (stored as they are) crashed the
    sanitizer (KeyError: no ring for the packed type) in the check for an abs of a widened half. It is Triton's
    native abs, lane by lane: computed as written, nothing reported."""
    out, rep = _run(_kernel("abs.bf16x2 %d, %a;", nin=1), [[0xBF80C000]])
    assert out == [0x3F804000] and not _errors(rep)


def test_int_round_trip_split_by_the_kernels_own_branch_stays_two_conversions():
    """Fold R's bound: ``x.to(int64).to(f32)`` read only by a comparison past a label that is no libdevice body's
    (the kernel's own control flow, which Triton's FPSan build keeps too) stays the native pair (x = 1e30
    saturates: not the trunc); the fold applies only where a recognised body splits the plain build (held-out seed
    11450, tests/test_fpsan_libdevice.py)."""
    body = ("cvt.rzi.s64.f32 %rd7, %a;\n\tcvt.rn.f32.s64 %c, %rd7;\n\tsetp.eq.f32 %p1, %b, %b;\n\t@%p1 bra L1;\n"
            "L1:\n\tsetp.gt.f32 %p2, %c, %b;\n\tselp.b32 %d, %a, %b, %p2;")
    big = 0x7149F2CA  # 1e30
    out, rep = _run(_kernel(body), [[big, 0x60AD78EC]])  # b = 1e20: above the pair's 9.2e18, below the trunc's 1e30
    reasons = [i.reason for i in rep.items if i.opcode == "cvt.rn.f32.s64"]
    assert reasons and all("left native" in r for r in reasons) and not any("trunc" in i.reason for i in rep.items)
    assert out == [0x60AD78EC]
