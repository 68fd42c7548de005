"""Every rewritten op against ptxkit.fpsan.ring, on hand-made single-instruction kernels run on the
simulator (the sanitized code is pure integer PTX), plus ptxas acceptance of those kernels."""

from __future__ import annotations

import subprocess

import numpy as np
import pytest

from ptxkit.fpsan import ring as R
from ptxkit.fpsan.cast_calls import MIN_SITES
from ptxkit.fpsan_ptx import sanitize_text
from tests.conftest import needs_ptxas

# name: (element type, register decl type, ld/st type, body using %a %b %c -> %d, expected(a, b, c))
F32, F64, F16, BF16 = "f32", "f64", "f16", "bf16"


def b2(op, t):
    return lambda a, b, c: R.float_binop(op, a, b, t)


def u1(op, t):
    return lambda a, b, c: R.float_unop(op, a, t)


def emb(x, t):
    return R.embed(x, t)


def _fp8_widen(words, t):
    """f16x2 result of widening the two bytes of each 16-bit word (low byte → low half)."""
    lo = R.float_cast(words & np.uint64(0xFF), t, F16)
    hi = R.float_cast(words >> np.uint64(8), t, F16)
    return lo | (hi << np.uint64(16))


def _fp8_narrow(words, t):
    """Two bytes narrowed from the f16 halves of each 32-bit word (low half → low byte)."""
    lo = R.float_cast(words & np.uint64(0xFFFF), F16, t)
    hi = R.float_cast((words >> np.uint64(16)) & np.uint64(0xFFFF), F16, t)
    return lo | (hi << np.uint64(8))


CASES = {
    # f32 in nvcc-style .f32 registers
    "add_f32": (F32, "f32", "f32", "add.rn.f32 %d, %a, %b;", b2("add", F32)),
    "sub_f32": (F32, "f32", "f32", "sub.ftz.f32 %d, %a, %b;", b2("sub", F32)),
    "mul_f32": (F32, "f32", "f32", "mul.rn.f32 %d, %a, %b;", b2("mul", F32)),
    "min_f32": (F32, "f32", "f32", "min.f32 %d, %a, %b;", b2("min", F32)),
    "max_f32": (F32, "f32", "f32", "max.NaN.f32 %d, %a, %b;", b2("max", F32)),
    "div_rn_f32": (F32, "f32", "f32", "div.rn.f32 %d, %a, %b;", b2("div", F32)),
    "div_approx_f32": (F32, "f32", "f32", "div.approx.f32 %d, %a, %b;", b2("div", F32)),
    "div_full_f32": (F32, "f32", "f32", "div.full.f32 %d, %a, %b;", b2("div", F32)),
    "fma_f32": (F32, "f32", "f32", "fma.rn.f32 %d, %a, %b, %c;",
                lambda a, b, c: R.unembed(R.fma(emb(a, F32), emb(b, F32), emb(c, F32), 32), F32)),
    "neg_f32": (F32, "f32", "f32", "neg.f32 %d, %a;", u1("neg", F32)),
    "rcp_f32": (F32, "f32", "f32", "rcp.rn.f32 %d, %a;", u1("rcp", F32)),
    "ex2_f32": (F32, "f32", "f32", "ex2.approx.ftz.f32 %d, %a;", u1("exp2", F32)),
    "exp_idiom_f32": (F32, "f32", "f32", "mul.f32 %t, %a, 0f3FB8AA3B;\n\tex2.approx.f32 %d, %t;", u1("exp", F32)),
    "log_idiom_f32": (F32, "f32", "f32", "lg2.approx.f32 %t, %a;\n\tmul.f32 %d, %t, 0f3F317218;",
                      lambda a, b, c: R.unembed(R.tagged(emb(a, F32), "log", 32), F32)),
    "lg2_then_other_mul_f32": (F32, "f32", "f32", "lg2.approx.f32 %t, %a;\n\tmul.f32 %d, %t, 0f3F317219;",
                               lambda a, b, c: R.unembed(R.mul(R.tagged(emb(a, F32), "log2", 32),
                                                               R.embed_int(0x3F317219, F32), 32), F32)),
    "sin_f32": (F32, "f32", "f32", "sin.approx.f32 %d, %a;", u1("sin", F32)),
    "cos_f32": (F32, "f32", "f32", "cos.approx.ftz.f32 %d, %a;", u1("cos", F32)),
    "sqrt_rn_f32": (F32, "f32", "f32", "sqrt.rn.f32 %d, %a;", u1("precise_sqrt", F32)),
    "sqrt_approx_f32": (F32, "f32", "f32", "sqrt.approx.f32 %d, %a;", u1("sqrt", F32)),
    "rsqrt_f32": (F32, "f32", "f32", "rsqrt.approx.f32 %d, %a;", u1("rsqrt", F32)),
    "lg2_f32": (F32, "f32", "f32", "lg2.approx.f32 %d, %a;", u1("log2", F32)),
    "floor_f32": (F32, "f32", "f32", "cvt.rmi.f32.f32 %d, %a;", u1("floor", F32)),
    "imm_add_f32": (F32, "f32", "f32", "add.f32 %d, %a, 0f40000000;",
                    lambda a, b, c: R.float_binop("add", a, np.full_like(a, 0x40000000), F32)),
    "sat_f32": (F32, "f32", "f32", "add.sat.f32 %d, %a, %b;",
                lambda a, b, c: R.unembed(R.smax(R.smin(R.add(emb(a, F32), emb(b, F32), 32), 1, 32), 0, 32), F32)),
    # a chain through shadows, with the destination reused as a source
    "chain_f32": (F32, "f32", "f32", "mul.f32 %t, %a, %b;\n\tadd.f32 %t, %t, %c;\n\tmul.f32 %d, %t, %t;",
                  lambda a, b, c: R.unembed(R.mul(*(2 * [R.add(R.mul(emb(a, F32), emb(b, F32), 32),
                                                                emb(c, F32), 32)]), 32), F32)),
    # φ⁻¹ tails: an unreferenced (line-info) label does not end the run, the native mov still needs
    # %t's bits; a loop label does end it (the loop-carried %d is read from its float bits)
    "debug_label_f32": (F32, "f32", "f32",
                        "add.f32 %t, %a, %b;\n$L__tmp7:\n\tmul.f32 %c, %t, %t;\n\tmov.f32 %d, %t;", b2("add", F32)),
    "loop_f32": (F32, "f32", "f32", "mov.f32 %d, %c;\n\t{ .reg .pred %q; .reg .b32 %j; mov.b32 %j, 0;\n"
                 "$Lloop:\n\tadd.f32 %d, %d, %a;\n\tadd.s32 %j, %j, 1;\n\tsetp.lt.s32 %q, %j, 3;\n\t@%q bra $Lloop; }",
                 lambda a, b, c: R.unembed(R.add(emb(c, F32), R.mul(emb(a, F32), 3, 32), 32), F32)),
    # Triton style: f32 in .b32 registers
    "add_b32regs": (F32, "b32", "b32", "add.f32 %d, %a, %b;", b2("add", F32)),
    "fma_b32regs": (F32, "b32", "b32", "fma.rn.f32 %d, %a, %b, %c;",
                    lambda a, b, c: R.unembed(R.fma(emb(a, F32), emb(b, F32), emb(c, F32), 32), F32)),
    # f64
    "add_f64": (F64, "f64", "f64", "add.rn.f64 %d, %a, %b;", b2("add", F64)),
    "mul_f64": (F64, "f64", "f64", "mul.f64 %d, %a, %b;", b2("mul", F64)),
    "div_f64": (F64, "f64", "f64", "div.rn.f64 %d, %a, %b;", b2("div", F64)),
    "fma_f64": (F64, "f64", "f64", "fma.rn.f64 %d, %a, %b, %c;",
                lambda a, b, c: R.unembed(R.fma(emb(a, F64), emb(b, F64), emb(c, F64), 64), F64)),
    "max_f64": (F64, "f64", "f64", "max.f64 %d, %a, %b;", b2("max", F64)),
    "rcp_f64": (F64, "f64", "f64", "rcp.rn.f64 %d, %a;", u1("rcp", F64)),
    # f64 tl.sqrt lowers to sqrt.rn.f64 and Triton tags it Sqrt (k_sqrt_f64; tl.sqrt_rn refuses f64): issue 10 D
    "sqrt_f64": (F64, "f64", "f64", "sqrt.rn.f64 %d, %a;", u1("sqrt", F64)),
    "neg_f64": (F64, "f64", "f64", "neg.f64 %d, %a;", u1("neg", F64)),
    # f16 / bf16 in .b16 registers
    "add_f16": (F16, "b16", "b16", "add.f16 %d, %a, %b;", b2("add", F16)),
    "fma_f16": (F16, "b16", "b16", "fma.rn.f16 %d, %a, %b, %c;",
                lambda a, b, c: R.unembed(R.fma(emb(a, F16), emb(b, F16), emb(c, F16), 16), F16)),
    "ex2_f16": (F16, "b16", "b16", "ex2.approx.f16 %d, %a;", u1("exp2", F16)),
    "neg_f16": (F16, "b16", "b16", "neg.f16 %d, %a;", u1("neg", F16)),
    "mul_bf16": (BF16, "b16", "b16", "mul.rn.bf16 %d, %a, %b;", b2("mul", BF16)),
    "min_bf16": (BF16, "b16", "b16", "min.bf16 %d, %a, %b;", b2("min", BF16)),
    "fma_bf16": (BF16, "b16", "b16", "fma.rn.bf16 %d, %a, %b, %c;",
                 lambda a, b, c: R.unembed(R.fma(emb(a, BF16), emb(b, BF16), emb(c, BF16), 16), BF16)),
    # casts (a is read as the source type, d written as the destination type)
    "cvt_f16_f32": ((F32, F16), ("f32", "b16"), ("f32", "b16"), "cvt.rn.f16.f32 %d, %a;",
                    lambda a, b, c: R.float_cast(a, F32, F16)),
    "cvt_f16_f32_homomorphic": ((F32, F16), ("f32", "b16"), ("f32", "b16"), "cvt.rn.f16.f32 %d, %a;",
                                lambda a, b, c: R.float_cast(a, F32, F16, homomorphic=True)),
    "cvt_bf16_f32": ((F32, BF16), ("b32", "b16"), ("b32", "b16"), "cvt.rn.bf16.f32 %d, %a;",
                     lambda a, b, c: R.float_cast(a, F32, BF16)),
    "cvt_f32_f16": ((F16, F32), ("b16", "f32"), ("b16", "f32"), "cvt.f32.f16 %d, %a;",
                    lambda a, b, c: R.float_cast(a, F16, F32)),
    "cvt_f32_bf16": ((BF16, F32), ("b16", "b32"), ("b16", "b32"), "cvt.f32.bf16 %d, %a;",
                     lambda a, b, c: R.float_cast(a, BF16, F32)),
    "cvt_f64_f32": ((F32, F64), ("f32", "f64"), ("f32", "f64"), "cvt.f64.f32 %d, %a;",
                    lambda a, b, c: R.float_cast(a, F32, F64)),
    "cvt_f32_f64": ((F64, F32), ("f64", "f32"), ("f64", "f32"), "cvt.rn.f32.f64 %d, %a;",
                    lambda a, b, c: R.float_cast(a, F64, F32)),
    "cvt_f16_f64": ((F64, F16), ("f64", "b16"), ("f64", "b16"), "cvt.rn.f16.f64 %d, %a;",
                    lambda a, b, c: R.float_cast(a, F64, F16)),
    # integer rounding in float (same type): floor/ceil tags, rint/trunc libdevice hashes
    "ceil_f32": (F32, "f32", "f32", "cvt.rpi.f32.f32 %d, %a;", u1("ceil", F32)),
    "rint_f32": (F32, "f32", "f32", "cvt.rni.f32.f32 %d, %a;", u1("rint", F32)),
    "trunc_f32": (F32, "b32", "b32", "cvt.rzi.ftz.f32.f32 %d, %a;", u1("trunc", F32)),
    "rint_f64": (F64, "f64", "f64", "cvt.rni.f64.f64 %d, %a;", u1("rint", F64)),
    "trunc_f64": (F64, "f64", "f64", "cvt.rzi.f64.f64 %d, %a;", u1("trunc", F64)),
    "floor_f64": (F64, "f64", "f64", "cvt.rmi.f64.f64 %d, %a;", u1("floor", F64)),
    "rint_f16": (F16, "b16", "b16", "cvt.rni.f16.f16 %d, %a;", u1("rint", F16)),
    "trunc_bf16": (BF16, "b16", "b16", "cvt.rzi.bf16.bf16 %d, %a;", u1("trunc", BF16)),
    # tanh.approx: the libdevice-call hash of __nv_tanhf
    "tanh_f32": (F32, "f32", "f32", "tanh.approx.f32 %d, %a;", u1("tanh", F32)),
    "tanh_f16": (F16, "b16", "b16", "tanh.approx.f16 %d, %a;", u1("tanh", F16)),
    "tanh_bf16": (BF16, "b16", "b16", "tanh.approx.bf16 %d, %a;", u1("tanh", BF16)),
    # min/max.xorsign.abs
    "max_xorsign_f32": (F32, "f32", "f32", "max.xorsign.abs.f32 %d, %a, %b;",
                        lambda a, b, c: R.unembed(R.xorsign_minmax(emb(a, F32), emb(b, F32), "max", 32), F32)),
    "min_xorsign_f16": (F16, "b16", "b16", "min.xorsign.abs.f16 %d, %a, %b;",
                        lambda a, b, c: R.unembed(R.xorsign_minmax(emb(a, F16), emb(b, F16), "min", 16), F16)),
    "max_xorsign_bf16": (BF16, "b16", "b16", "max.NaN.xorsign.abs.bf16 %d, %a, %b;",
                         lambda a, b, c: R.unembed(R.xorsign_minmax(emb(a, BF16), emb(b, BF16), "max", 16),
                                                   BF16)),
    # 8-bit floats: two bytes of a b16 widened into f16x2; two f32 narrowed into two bytes (a high)
    "cvt_f16x2_e5m2x2": ((F16, F32), ("b16", "b32"), ("b16", "b32"), "cvt.rn.f16x2.e5m2x2 %d, %a;",
                         lambda a, b, c: _fp8_widen(a, "e5m2")),
    "cvt_f16x2_e4m3x2": ((F16, F32), ("b16", "b32"), ("b16", "b32"), "cvt.rn.f16x2.e4m3x2 %d, %a;",
                         lambda a, b, c: _fp8_widen(a, "e4m3")),
    "cvt_e4m3x2_f32": ((F32, F16), ("b32", "b16"), ("b32", "b16"), "cvt.rn.satfinite.e4m3x2.f32 %d, %a, %b;",
                       lambda a, b, c: (R.float_cast(a, F32, "e4m3") << np.uint64(8)) | R.float_cast(b, F32, "e4m3")),
    "cvt_e5m2x2_f32": ((F32, F16), ("b32", "b16"), ("b32", "b16"), "cvt.rn.satfinite.e5m2x2.f32 %d, %a, %b;",
                       lambda a, b, c: (R.float_cast(a, F32, "e5m2") << np.uint64(8)) | R.float_cast(b, F32, "e5m2")),
    # the two halves of an f16x2 (read as 32-bit words) narrowed into two bytes (low half → low byte): f16 → fp8
    "cvt_e4m3x2_f16x2": ((F32, F16), ("b32", "b16"), ("b32", "b16"), "cvt.rn.satfinite.e4m3x2.f16x2 %d, %a;",
                         lambda a, b, c: _fp8_narrow(a, "e4m3")),
    "cvt_e5m2x2_f16x2": ((F32, F16), ("b32", "b16"), ("b32", "b16"), "cvt.rn.satfinite.e5m2x2.f16x2 %d, %a;",
                         lambda a, b, c: _fp8_narrow(a, "e5m2")),
    # two f32 narrowed into the halves of a b32 (a → high half)
    "cvt_f16x2_f32": (F32, "b32", "b32", "cvt.rn.f16x2.f32 %d, %a, %b;",
                      lambda a, b, c: (R.float_cast(a, F32, F16) << np.uint64(16)) | R.float_cast(b, F32, F16)),
    "cvt_bf16x2_f32": (F32, "b32", "b32", "cvt.rn.bf16x2.f32 %d, %a, %b;",
                       lambda a, b, c: (R.float_cast(a, F32, BF16) << np.uint64(16)) | R.float_cast(b, F32, BF16)),
    "cvt_bf16_f16": ((F16, BF16), ("b16", "b16"), ("b16", "b16"), "cvt.rn.bf16.f16 %d, %a;",
                     lambda a, b, c: R.float_cast(a, F16, BF16)),
}

PACKED = {
    # name: (lane type, body, lane function(a, b, c))
    "add_f16x2": (F16, "add.f16x2 %d, %a, %b;", b2("add", F16)),
    "fma_bf16x2": (BF16, "fma.rn.bf16x2 %d, %a, %b, %c;",
                   lambda a, b, c: R.unembed(R.fma(emb(a, BF16), emb(b, BF16), emb(c, BF16), 16), BF16)),
    "mul_f16x2": (F16, "mul.rn.f16x2 %d, %a, %b;", b2("mul", F16)),
    "tanh_bf16x2": (BF16, "tanh.approx.bf16x2 %d, %a;", u1("tanh", BF16)),
    "max_xorsign_f16x2": (F16, "max.xorsign.abs.f16x2 %d, %a, %b;",
                          lambda a, b, c: R.unembed(R.xorsign_minmax(emb(a, F16), emb(b, F16), "max", 16), F16)),
    "min_xorsign_bf16x2": (BF16, "min.xorsign.abs.bf16x2 %d, %a, %b;",
                           lambda a, b, c: R.unembed(R.xorsign_minmax(emb(a, BF16), emb(b, BF16), "min", 16),
                                                     BF16)),
}

HALF_NATIVE = (("half", "native"),)
N = 64
WIDTH = {F16: 16, BF16: 16, F32: 32, F64: 64}
UINT = {16: np.uint16, 32: np.uint32, 64: np.uint64}
SPECIAL = {16: [0, 0x8000, 0x3C00, 0xBC00, 0x3F80, 0x7C00, 0x7E00],
           32: [0, 0x80000000, 0x3F800000, 0xBF800000, 0x40000000, 0x7F800000, 0x7FC00000],
           64: [0, 1 << 63, 0x3FF0000000000000, 0xBFF0000000000000, 0x7FF0000000000000]}


def _kernel(name: str, st: str, dt: str, rs: str, rd: str, ls: str, lds: str, body: str) -> str:
    size = {"f32": 4, "b32": 4, "f64": 8, "b64": 8, "b16": 2}
    sb, db = size[ls], size[lds]
    return f"""
.visible .entry k_{name}(.param .u64 pin, .param .u64 pout)
{{
	.reg .{rs} %a, %b, %c, %t;
	.reg .{rd} %d;
	.reg .b32 %i;
	.reg .b64 %p<8>;
	ld.param.u64 %p1, [pin];
	ld.param.u64 %p2, [pout];
	mov.u32 %i, %tid.x;
	mul.wide.u32 %p3, %i, {3 * sb};
	add.s64 %p4, %p1, %p3;
	ld.global.{ls} %a, [%p4];
	ld.global.{ls} %b, [%p4+{sb}];
	ld.global.{ls} %c, [%p4+{2 * sb}];
	{body}
	mul.wide.u32 %p5, %i, {db};
	add.s64 %p6, %p2, %p5;
	st.global.{lds} [%p6], %d;
	ret;
}}
"""


HEADER = ".version 8.0\n.target sm_90\n.address_size 64\n"


def _case(name):
    if name in CASES:
        t, regs, ldst, body, fn = CASES[name]
        st, dt = (t, t) if isinstance(t, str) else t
        rs, rd = (regs, regs) if isinstance(regs, str) else regs
        ls, lds = (ldst, ldst) if isinstance(ldst, str) else ldst
        return st, dt, rs, rd, ls, lds, body, fn
    lt, body, fn = PACKED[name]
    return lt, lt, "b32", "b32", "b32", "b32", body, fn


def _inputs(w: int, seed: int, packed: bool) -> np.ndarray:
    rng = np.random.default_rng(seed)
    n = 3 * N * (2 if packed else 1)
    x = rng.integers(0, np.iinfo(UINT[w]).max, n, dtype=UINT[w], endpoint=True)
    sp = np.array(SPECIAL[w], dtype=UINT[w])
    x[: len(sp)] = sp
    x[3 * 8: 3 * 8 + len(sp)] = sp[::-1]
    return x


def _run(text: str, entry: str, inp: np.ndarray, out_dtype, n_out: int, tmp_path):
    from ptxkit.exec_sim import parse_arg_specs, run_kernel
    from ptxkit.exec_sim.frontend import parse_text

    f = tmp_path / f"{entry}.bin"
    inp.tofile(f)
    m = parse_text(text, f"{entry}.ptx")
    fn = m.function(entry)
    tname = {np.uint16: "u16", np.uint32: "u32", np.uint64: "u64"}
    specs = [f"pin=u8[{inp.nbytes}]:{f}", f"pout={tname[out_dtype]}[{n_out}]:zeros"]
    res = run_kernel(m, entry, parse_arg_specs(specs, fn), (1, 1, 1), (N, 1, 1))
    return np.asarray(res.buffers["pout"]).view(out_dtype)


@pytest.mark.parametrize("name", sorted(CASES) + sorted(PACKED))
def test_op_against_ring(name, tmp_path):
    st, dt, rs, rd, ls, lds, body, fn = _case(name)
    packed = name in PACKED
    text = HEADER + _kernel(name, st, dt, rs, rd, ls, lds, body)
    # each kernel's op means itself: 16-bit ops are half arithmetic (not LLVM's narrowing, issue 10 H)
    folds = HALF_NATIVE + ((("trunc", "call"),) if name.startswith("trunc") else ())  # libdevice.trunc
    res = sanitize_text(text, f"{name}.ptx", homomorphic_casts=name.endswith("homomorphic"), folds=folds)
    assert res.report.errors == [] and res.report.rewritten >= 1
    ws, wd = WIDTH[st], WIDTH[dt]
    inp = _inputs(ws, hash(name) % 1000, packed)
    if packed:
        out = _run(res.text, f"k_{name}", inp.view(np.uint32), np.uint32, N, tmp_path).view(UINT[ws])
        lanes = inp.reshape(N, 3, 2)
        want = np.stack([fn(lanes[:, 0, j], lanes[:, 1, j], lanes[:, 2, j]) for j in (0, 1)], axis=1).ravel()
    else:
        out = _run(res.text, f"k_{name}", inp, UINT[wd], N, tmp_path)
        v = inp.reshape(N, 3).astype(np.uint64)
        want = fn(v[:, 0], v[:, 1], v[:, 2])
    assert np.array_equal(out.astype(np.uint64), np.asarray(want, dtype=np.uint64)), name


PACKED_CASTS = ["cvt_f16x2_f32", "cvt_bf16x2_f32", "cvt_f16x2_e5m2x2", "cvt_f16x2_e4m3x2", "cvt_e4m3x2_f32",
                "cvt_e5m2x2_f32"]


@pytest.mark.parametrize("abi", [False, True])
@pytest.mark.parametrize("name", PACKED_CASTS)
def test_packed_cast_helper_against_ring(name, abi, tmp_path):
    """A packed cast used MIN_SITES times in a function goes through one helper .func (ABI .param
    parameters where the module needs the ABI: an extern function here) and still computes the ring's
    conversion of every lane."""
    st, dt, rs, rd, ls, lds, body, fn = _case(name)
    text = HEADER + (".extern .func fps_unused();\n" if abi else "") + _kernel(
        name, st, dt, rs, rd, ls, lds, "\n\t".join([body] * MIN_SITES))
    res = sanitize_text(text, f"{name}.ptx")
    assert res.report.errors == []
    assert res.text.count("call.uni") == MIN_SITES and res.text.count(".func") == 1 + abi
    assert (".param .b" in res.text.split("_cvt")[1].split(")")[0]) == abi
    ws, wd = WIDTH[st], WIDTH[dt]
    inp = _inputs(ws, hash(name) % 1000, False)
    out = _run(res.text, f"k_{name}", inp, UINT[wd], N, tmp_path)
    v = inp.reshape(N, 3).astype(np.uint64)
    assert np.array_equal(out.astype(np.uint64), np.asarray(fn(v[:, 0], v[:, 1], v[:, 2]), dtype=np.uint64)), name


def test_division_by_one_divisor_shares_its_inverse(tmp_path):
    """Triton divides a row by one sum: the Newton inverse of a divisor's payload is emitted once per
    straight-line run, and both quotients are still the ring's."""
    body = "div.full.f32 %t, %a, %b;\n\tdiv.full.f32 %d, %c, %b;\n\tadd.f32 %d, %d, %t;"
    res = sanitize_text(HEADER + _kernel("div2", F32, F32, "f32", "f32", "f32", "f32", body), "div2.ptx")
    assert res.report.errors == [] and res.text.count("sub.s32") == 1  # Newton's e = 1 - a·a, once
    inp = _inputs(32, 7, False)
    out = _run(res.text, "k_div2", inp, np.uint32, N, tmp_path)
    a, b, c = (inp.reshape(N, 3)[:, j].astype(np.uint64) for j in range(3))
    want = R.float_binop("add", R.float_binop("div", c, b, F32), R.float_binop("div", a, b, F32), F32)
    assert np.array_equal(out.astype(np.uint64), np.asarray(want, dtype=np.uint64))


@needs_ptxas
def test_ptxas_accepts_every_op_kernel(tmp_path):
    """All the single-op kernels in one file, sanitized (one ptxas run)."""
    text = HEADER + "".join(_kernel(n, *_case(n)[:7]) for n in sorted(CASES) + sorted(PACKED))
    orig = tmp_path / "orig.ptx"
    orig.write_text(text)
    r0 = subprocess.run(["ptxas", "-arch=sm_90", str(orig), "-o", "/dev/null"], capture_output=True, text=True)
    assert r0.returncode == 0, r0.stderr  # the hand-made kernels are valid PTX to start with
    res = sanitize_text(text, "ops.ptx")
    out = tmp_path / "san.ptx"
    out.write_text(res.text)
    r = subprocess.run(["ptxas", "-arch=sm_90", str(out), "-o", "/dev/null"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[:2000]


@needs_ptxas
@pytest.mark.parametrize("abi", [False, True])
def test_ptxas_accepts_packed_cast_helpers(abi, tmp_path):
    """The packed-cast helpers and their call sites, .reg and ABI .param forms (one ptxas run each)."""
    text = HEADER + (".extern .func fps_unused();\n" if abi else "") + "".join(
        _kernel(n, *_case(n)[:6], "\n\t".join([_case(n)[6]] * MIN_SITES)) for n in PACKED_CASTS)
    res = sanitize_text(text, "casts.ptx")
    assert res.text.count("call.uni") == MIN_SITES * len(PACKED_CASTS)
    out = tmp_path / "san.ptx"
    out.write_text(res.text)
    r = subprocess.run(["ptxas", "-arch=sm_90", str(out), "-o", "/dev/null"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[:2000]


def test_guarded_op_keeps_old_value_when_false(tmp_path):
    body = ("mov.f32 %d, %c;\n\t{ .reg .pred %q; .reg .b32 %j; and.b32 %j, %i, 1; setp.eq.b32 %q, %j, 1;\n\t"
            "@%q add.f32 %d, %a, %b; }")
    text = HEADER + _kernel("guard", F32, F32, "f32", "f32", "f32", "f32", body)
    res = sanitize_text(text, "guard.ptx")
    inp = _inputs(32, 7, False)
    out = _run(res.text, "k_guard", inp, np.uint32, N, tmp_path)
    v = inp.reshape(N, 3).astype(np.uint64)
    want = np.where(np.arange(N) % 2 == 1, R.float_binop("add", v[:, 0], v[:, 1], F32), v[:, 2])
    assert np.array_equal(out.astype(np.uint64), want)


def test_shadow_drops_unembed_of_dead_intermediate():
    """exp idiom: the product only feeds ex2, so its φ⁻¹ is dropped (one φ⁻¹ in the output)."""
    text = HEADER + _kernel("e", F32, F32, "b32", "b32", "b32", "b32", CASES["exp_idiom_f32"][3])
    res = sanitize_text(text, "e.ptx")
    assert res.text.count("0x6D2BAEB9") == 1   # inv(mulA) of f32 appears once per φ⁻¹
    assert res.text.count("0xE3F789") == 1     # a single φ (of %a)


# ---- random straight-line programs: exercises the shadow cache and the dropping of φ⁻¹ tails ----------
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_OPS = ["add", "sub", "mul", "fma", "neg", "min", "max", "div", "ex2", "mov", "label", "store", "imm", "gmul"]


def _program(draw_ops):
    """Registers %v0..%v3 start as a, b, c, a. Returns (PTX body, ring function)."""
    lines, steps = [], []
    for op, d, x, y, z in draw_ops:
        def V(i):
            return f"%v{i}"

        if op in ("add", "sub", "mul", "min", "max", "div"):
            lines.append(f"{op}{'.rn' if op == 'div' else ''}.f32 {V(d)}, {V(x)}, {V(y)};")
        elif op == "fma":
            lines.append(f"fma.rn.f32 {V(d)}, {V(x)}, {V(y)}, {V(z)};")
        elif op == "neg":
            lines.append(f"neg.f32 {V(d)}, {V(x)};")
        elif op == "ex2":
            lines.append(f"ex2.approx.f32 {V(d)}, {V(x)};")
        elif op == "mov":
            lines.append(f"mov.f32 {V(d)}, {V(x)};")
        elif op == "imm":
            lines.append(f"mul.f32 {V(d)}, {V(x)}, 0f40490FDB;")
        elif op == "label":
            lines.append(f"bra.uni L{len(lines)};\nL{len(lines)}:")
        elif op == "gmul":  # guarded: only odd threads write
            lines.append(f"@%q mul.f32 {V(d)}, {V(x)}, {V(y)};")
        elif op == "store":  # a native read of an intermediate (its φ⁻¹ must stay)
            lines.append(f"st.global.f32 [%p6+4], {V(x)};")
        steps.append((op, d, x, y, z))

    def ring_fn(a, b, c):
        w = 32
        v = [R.embed(a, F32), R.embed(b, F32), R.embed(c, F32), R.embed(a, F32)]
        pi = R.embed_int(0x40490FDB, F32)
        for op, d, x, y, z in steps:
            if op in ("add", "sub", "mul", "min", "max", "div"):
                fn = {"add": R.add, "sub": R.sub, "mul": R.mul, "min": R.smin, "max": R.smax, "div": R.div}[op]
                v[d] = fn(v[x], v[y], w)
            elif op == "fma":
                v[d] = R.fma(v[x], v[y], v[z], w)
            elif op == "neg":
                v[d] = R.neg(v[x], w)
            elif op == "ex2":
                v[d] = R.exp2(v[x], w)
            elif op == "mov":
                v[d] = v[x]
            elif op == "gmul":
                v[d] = np.where(np.arange(len(a)) % 2 == 1, R.mul(v[x], v[y], w), v[d])
            elif op == "imm":
                v[d] = R.mul(v[x], pi, w)
        return R.unembed(v[0], F32)

    return "\n\t".join(lines), ring_fn


_step = st.tuples(st.sampled_from(_OPS), st.integers(0, 3), st.integers(0, 3), st.integers(0, 3), st.integers(0, 3))


@settings(max_examples=int(__import__('os').environ.get('FPSAN_EXAMPLES', 25)), deadline=None)
@given(st.lists(_step, min_size=1, max_size=8))
def test_random_programs_match_ring(tmp_path_factory, steps):
    body, fn = _program(steps)
    body = "\t.reg .f32 %v<4>;\n\t.reg .pred %q;\n\t.reg .b32 %j;\n\tand.b32 %j, %i, 1;\n\t" \
           "setp.eq.b32 %q, %j, 1;\n\tmul.wide.u32 %p5, %i, 4;\n\tadd.s64 %p6, %p2, %p5;\n\t" \
           "mov.f32 %v0, %a;\n\tmov.f32 %v1, %b;\n\tmov.f32 %v2, %c;\n\tmov.f32 %v3, %a;\n\t" \
           + body + "\n\tmov.f32 %d, %v0;"
    text = HEADER + _kernel("rnd", F32, F32, "f32", "f32", "f32", "f32", body)
    res = sanitize_text(text, "rnd.ptx", folds=(("self-add", "add"),))  # add.f32 x, x here means x + x
    assert res.report.errors == []
    inp = _inputs(32, 11, False)
    out = _run(res.text, "k_rnd", inp, np.uint32, 2 * N, tmp_path_factory.mktemp("rnd"))[:N]
    v = inp.reshape(N, 3).astype(np.uint64)
    # thread i stores its result at i; the "store" steps write out[i + 1], overwritten by thread i+1
    # except for the last thread, so compare the first N-1 elements only when a store step exists
    want = fn(v[:, 0], v[:, 1], v[:, 2])
    k = N - 1 if any(s[0] == "store" for s in steps) else N
    assert np.array_equal(out[:k].astype(np.uint64), np.asarray(want)[:k])


WMMA = """.version 8.0
.target sm_80
.address_size 64
.visible .entry k_wmma(.param .u64 pa, .param .u64 pb, .param .u64 pc, .param .u64 pd)
{
	.reg .b32 %a<8>, %b<8>;
	.reg .f32 %c<8>, %d<8>;
	.reg .b64 %p<4>;
	ld.param.u64 %p0, [pa];
	ld.param.u64 %p1, [pb];
	ld.param.u64 %p2, [pc];
	ld.param.u64 %p3, [pd];
	wmma.load.a.sync.aligned.row.m16n16k16.global.f16 {%a0, %a1, %a2, %a3, %a4, %a5, %a6, %a7}, [%p0], 16;
	wmma.load.b.sync.aligned.col.m16n16k16.global.f16 {%b0, %b1, %b2, %b3, %b4, %b5, %b6, %b7}, [%p1], 16;
	wmma.load.c.sync.aligned.row.m16n16k16.global.f32 {%c0, %c1, %c2, %c3, %c4, %c5, %c6, %c7}, [%p2], 16;
	wmma.mma.sync.aligned.row.col.m16n16k16.f32.f32 {%d0, %d1, %d2, %d3, %d4, %d5, %d6, %d7},
		{%a0, %a1, %a2, %a3, %a4, %a5, %a6, %a7}, {%b0, %b1, %b2, %b3, %b4, %b5, %b6, %b7},
		{%c0, %c1, %c2, %c3, %c4, %c5, %c6, %c7};
	wmma.store.d.sync.aligned.row.m16n16k16.global.f32 [%p3], {%d0, %d1, %d2, %d3, %d4, %d5, %d6, %d7}, 16;
	ret;
}
"""


def test_wmma_f16_f32_against_ring_gemm(tmp_path):
    """wmma.mma (layout unspecified) through the layout-agnostic limb expansion, on the simulator's own
    (consistent) wmma layout: D = Σ_k sext(E(A))·sext(E(B)) + E(C) on whole 16×16 tiles."""
    from ptxkit.exec_sim import parse_arg_specs, run_kernel
    from ptxkit.exec_sim.frontend import parse_text

    res = sanitize_text(WMMA, "wmma.ptx")
    assert res.report.errors == [] and res.report.rewritten == 1
    rng = np.random.default_rng(16)
    A = rng.integers(0, 1 << 16, (16, 16), dtype=np.uint64)  # row-major
    B = rng.integers(0, 1 << 16, (16, 16), dtype=np.uint64)  # B[k][n], stored column-major
    C = rng.integers(0, 1 << 32, (16, 16), dtype=np.uint64)
    files = []
    for name, arr, dt in (("a", A, np.uint16), ("b", B.T, np.uint16), ("c", C, np.uint32)):
        f = tmp_path / f"{name}.bin"
        np.ascontiguousarray(arr).astype(dt).tofile(f)
        files.append(f)
    m = parse_text(res.text, "wmma.ptx")
    fn = m.function("k_wmma")
    specs = [f"pa=u16[256]:{files[0]}", f"pb=u16[256]:{files[1]}", f"pc=u32[256]:{files[2]}", "pd=u32[256]:zeros"]
    out = run_kernel(m, "k_wmma", parse_arg_specs(specs, fn), (1, 1, 1), (32, 1, 1))
    got = np.asarray(out.buffers["pd"]).view(np.uint32).reshape(16, 16).astype(np.uint64)
    ea = R.sext(R.embed(A, F16), 16, 32)
    eb = R.sext(R.embed(B, F16), 16, 32)
    acc = R.embed(C, F32)
    for k in range(16):
        acc = R.add(acc, R.mul(ea[:, k:k + 1], eb[k:k + 1, :], 32), 32)
    assert np.array_equal(got, R.unembed(acc, F32))


WMMA_TF32 = """.version 8.0
.target sm_80
.address_size 64
.visible .entry k_wmma32(.param .u64 pa, .param .u64 pd)
{
	.reg .b32 %a<4>, %b<4>;
	.reg .f32 %c<8>;
	.reg .b64 %p<2>;
	ld.param.u64 %p0, [pa];
	ld.param.u64 %p1, [pd];
	wmma.load.a.sync.aligned.row.m16n16k8.global.tf32 {%a0, %a1, %a2, %a3}, [%p0], 8;
	wmma.load.b.sync.aligned.row.m16n16k8.global.tf32 {%b0, %b1, %b2, %b3}, [%p0+512], 16;
	wmma.load.c.sync.aligned.row.m16n16k8.global.f32 {%c0, %c1, %c2, %c3, %c4, %c5, %c6, %c7}, [%p1], 16;
	wmma.mma.sync.aligned.row.row.m16n16k8.f32.tf32.tf32.f32 {%c0, %c1, %c2, %c3, %c4, %c5, %c6, %c7},
		{%a0, %a1, %a2, %a3}, {%b0, %b1, %b2, %b3}, {%c0, %c1, %c2, %c3, %c4, %c5, %c6, %c7};
	wmma.store.d.sync.aligned.row.m16n16k8.global.f32 [%p1], {%c0, %c1, %c2, %c3, %c4, %c5, %c6, %c7}, 16;
	ret;
}
"""


@needs_ptxas
@pytest.mark.parametrize("text", [WMMA, WMMA_TF32], ids=["f16", "tf32"])
def test_ptxas_accepts_sanitized_wmma(text, tmp_path):
    """(The tf32 limb products are checked against the ring GEMM through mma in test_equiv_mma.py: the
    wmma form differs only in the instruction that multiplies the limb fragments.)"""
    orig = tmp_path / "o.ptx"
    orig.write_text(text)
    r0 = subprocess.run(["ptxas", "-arch=sm_80", str(orig), "-o", "/dev/null"], capture_output=True, text=True)
    assert r0.returncode == 0, r0.stderr[:2000]
    res = sanitize_text(text, "wmma.ptx")
    assert res.report.errors == [] and res.report.rewritten == 1
    f = tmp_path / "w.ptx"
    f.write_text(res.text)
    r = subprocess.run(["ptxas", "-arch=sm_80", str(f), "-o", "/dev/null"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[:2000]
