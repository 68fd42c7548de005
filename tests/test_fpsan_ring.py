"""ptxkit.fpsan.ring against docs/fpsan.md (constants, vectors) and Triton 3.9's expected outputs."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ptxkit.fpsan import ring as R
from tests.conftest import PTX_CORPUS, needs_shared

# fpsan.md §1 table: mulA, mulBPos, mulBNeg, inv(mulBPos), inv(mulBNeg), inv(mulA)
DOC_TABLE = {
    "f32": (0x00E3F789, 0x0BEAC0C7, 0x74153F39, 0x7B8000F7, 0x047FFF09, 0x6D2BAEB9),
    "f16": (0x7789, 0x11B7, 0x6E49, 0x1C07, 0x63F9, 0x2EB9),
    "bf16": (0x7789, 0x4E47, 0x31B9, 0x7B77, 0x0489, 0x2EB9),
    "f64": (0xE3F789, 0x47E51BFF1AA71547, 0x381AE400E558EAB9, 0x4770000000000477,
            0x388FFFFFFFFFFB89, 0x76FB3970ED2BAEB9),
}
ONE = {"f16": 0x3C00, "bf16": 0x3F80, "f32": 0x3F800000, "f64": 0x3FF0000000000000}


@pytest.mark.parametrize("t", sorted(DOC_TABLE))
def test_constants_match_doc_table(t):
    r = R.ring(t)
    assert (r.mulA, r.mulBPos, r.mulBNeg, r.invBPos, r.invBNeg, r.invA) == DOC_TABLE[t]


@pytest.mark.parametrize("t", sorted(DOC_TABLE))
def test_special_values(t):
    w = R.ring(t).w
    sign = 1 << (w - 1)
    assert R.embed_int(0, t) == 0
    assert R.embed_int(sign, t) == sign                     # φ(−0) = 2^(w−1)
    assert R.embed_int(ONE[t], t) == 1
    assert R.embed_int(ONE[t] | sign, t) == (1 << w) - 1   # φ(−1) = −1


@pytest.mark.parametrize("t", ["f16", "bf16"])
def test_bijection_exhaustive_16bit(t):
    u = np.arange(1 << 16, dtype=np.uint64)
    p = R.embed(u, t)
    assert len(np.unique(p)) == 1 << 16
    assert np.array_equal(R.unembed(p, t), u)
    # φ(−x) = −φ(x) for x ≠ ±0
    nz = u[(u & 0x7FFF) != 0]
    assert np.array_equal(R.embed(nz ^ 0x8000, t), (np.uint64(1 << 16) - R.embed(nz, t)) & np.uint64(0xFFFF))


@pytest.mark.parametrize("t", ["f32", "f64"])
def test_round_trip_and_odd_symmetry_wide(t):
    w = R.ring(t).w
    rng = np.random.default_rng(1)
    u = rng.integers(0, 1 << 63, 20000, dtype=np.uint64) * np.uint64(2) + rng.integers(0, 2, 20000, dtype=np.uint64)
    u &= np.uint64((1 << w) - 1)
    assert np.array_equal(R.unembed(R.embed(u, t), t), u)
    p = R.unembed(u, t)
    assert np.array_equal(R.embed(p, t), u)
    nz = u[(u & np.uint64((1 << (w - 1)) - 1)) != 0]
    neg = R.embed(nz ^ np.uint64(1 << (w - 1)), t)
    assert np.array_equal(neg, R.neg(R.embed(nz, t), w))


def test_doc_phi_vectors_f32():
    want = {0x40000000: 0x35606380, 0x3F000000: 0x5FDED582, 0xC0500000: 0xB0B616CD,
            0x40490FDB: 0x17DE6876, 0x3FB8AA3B: 0x26A29A75}
    for x, p in want.items():
        assert R.embed_int(x, "f32") == p
        assert R.unembed_int(p, "f32") == x


def test_doc_op_vectors_f32():
    one, two, half = 0x3F800000, 0x40000000, 0x3F000000
    def b(op, x, y):
        return int(R.float_binop(op, x, y, "f32"))

    assert b("add", one, two) == 0x2B2EB900
    assert b("sub", one, two) == 0xC1FCF5B9
    assert b("mul", two, half) == 0x2A34FD6E
    assert b("div", one, two) == 0x89EE4753
    assert b("min", two, half) == 0x40000000
    assert b("max", two, half) == 0x3F000000
    assert int(R.float_unop("exp2", one, "f32")) == 0x65147F00
    assert int(R.float_unop("neg", two, "f32")) == 0xC0000000


def test_doc_tags_and_hashes():
    assert R.tag("sqrt", 32) == 0xC77C4573
    assert R.tag("precise_sqrt", 32) == 0xA1D572C4
    assert R.tag("log", 32) == 0x34C2CB2C
    assert R.fnv1a64("__nv_tanhf") & 0xFFFFFFFF == 0x1B1943D1
    assert R.sincos_base(32) == (0x99999999, 0x33333334)
    assert R.narrow_mult(32, 16) == 0x0DB70DB7
    assert R.narrow_mult(64, 32) == 0x00000DB700000DB7
    assert R.narrow_mult(32, 8) == 0xB7B7B7B7


words = {16: st.integers(0, (1 << 16) - 1), 32: st.integers(0, (1 << 32) - 1), 64: st.integers(0, (1 << 64) - 1)}


@settings(max_examples=200, deadline=None)
@given(st.sampled_from([16, 32, 64]).flatmap(lambda w: st.tuples(st.just(w), words[w], words[w])))
def test_ring_identities(wab):
    w, a, b = wab
    m = (1 << w) - 1
    # inverse: odd → true inverse; 1/(1/x) = x always
    if a & 1:
        assert int(R.mul(a, R.inv(a, w), w)) == 1
    assert int(R.inv(R.inv(a, w), w)) == a
    # exp2 closed form is a homomorphism (1+2^k)^(a+b) = (1+2^k)^a (1+2^k)^b
    assert int(R.exp2((a + b) & m, w)) == int(R.mul(R.exp2(a, w), R.exp2(b, w), w))
    # sin/cos: addition theorems and the Pythagorean identity hold exactly in Z/2^w[i]
    ca, sa = (int(v) for v in R.sincos(a, w))
    cb, sb = (int(v) for v in R.sincos(b, w))
    cab, sab = (int(v) for v in R.sincos((a + b) & m, w))
    assert sab == (sa * cb + ca * sb) & m
    assert cab == (ca * cb - sa * sb) & m
    assert (ca * ca + sa * sa) & m == 1
    # narrowing after widening is the identity; homomorphic narrowing is truncation
    if w > 16:
        assert int(R.narrow(R.sext(b & 0xFFFF, 16, w), w, 16)) == b & 0xFFFF
        assert int(R.narrow(a, w, 16, homomorphic=True)) == a & 0xFFFF


def test_exp2_matches_repeated_multiplication():
    for w in (16, 32, 64):
        base = 1 + (1 << R.exp2_k(w))
        for x in [0, 1, 2, 3, 5, 77, 513, 1000]:
            assert int(R.exp2(x, w)) == pow(base, x, 1 << w)


def test_srem_is_c_remainder():
    assert int(R.srem(7, 4, 32)) == 7 % 5                      # b | 1 = 5
    assert int(R.srem((-7) & 0xFFFFFFFF, 2, 32)) == (-1) & 0xFFFFFFFF  # sign of the dividend
    assert int(R.srem(0x80000000, 0xFFFFFFFF, 32)) == 0


# ---- Triton 3.9's own FPSan outputs (raw files produced by running fpsan.ptx's reference) ----------

TF = PTX_CORPUS / "triton_fpsan"


def _load(kernel: str, name: str, dtype=np.uint32) -> np.ndarray:
    return np.fromfile(TF / kernel / "vectors" / name, dtype=dtype).astype(np.uint64)


ELEMENTWISE = {
    "add": lambda x, y: R.float_binop("add", x, y, "f32"),
    "sub": lambda x, y: R.float_binop("sub", x, y, "f32"),
    "mul": lambda x, y: R.float_binop("mul", x, y, "f32"),
    "div": lambda x, y: R.float_binop("div", x, y, "f32"),
    "minimum": lambda x, y: R.float_binop("min", x, y, "f32"),
    "neg": lambda x: R.float_unop("neg", x, "f32"),
    "exp2": lambda x: R.float_unop("exp2", x, "f32"),
    "exp": lambda x: R.float_unop("exp", x, "f32"),
    "sin": lambda x: R.float_unop("sin", x, "f32"),
}


@needs_shared
@pytest.mark.parametrize("kernel", sorted(ELEMENTWISE))
def test_ring_reproduces_triton_vectors(kernel):
    fn = ELEMENTWISE[kernel]
    ins = [_load(kernel, f) for f in ("x.bin", "y.bin") if (TF / kernel / "vectors" / f).exists()]
    want = _load(kernel, "expected_fpsan_o.bin")
    assert np.array_equal(fn(*ins), want)


@needs_shared
def test_ring_reproduces_triton_fma_casts_and_sums():
    x, y, z = (_load("fma", f) for f in ("x.bin", "y.bin", "z.bin"))
    def e(v):
        return R.embed(v, "f32")

    assert np.array_equal(R.unembed(R.fma(e(x), e(y), e(z), 32), "f32"), _load("fma", "expected_fpsan_o.bin"))
    x = _load("cast_f16", "x.bin")
    assert np.array_equal(R.float_cast(x, "f32", "f16"), _load("cast_f16", "expected_fpsan_o.bin", np.uint16))
    x = _load("ext_bf16", "x.bin", np.uint16)
    assert np.array_equal(R.float_cast(x, "bf16", "f32"), _load("ext_bf16", "expected_fpsan_o.bin"))
    for k in ("rowsum", "sum_loop"):
        x = _load(k, "x.bin").reshape(4, 128)
        s = R.embed(x, "f32").sum(axis=1) & np.uint64(0xFFFFFFFF)
        assert np.array_equal(R.unembed(s, "f32"), _load(k, "expected_fpsan_o.bin"))


# ------------------------------------------------------------------ models beyond Triton's op set

def test_tanh_is_the_doc_libcall_hash():
    """fpsan.md §2: `__nv_tanhf` hashes to 0x1b1943d1 (low 32 bits); tanh(+0.0) has payload E(0) = 0,
    so the ring tanh of +0.0 is exactly the hash."""
    assert R.fnv1a64("__nv_tanhf") & 0xFFFFFFFF == 0x1B1943D1
    assert int(R.embed(R.float_unop("tanh", 0, "f32"), "f32")) == 0x1B1943D1
    x = np.array([0x3F800000, 0xC0490FDB], dtype=np.uint64)  # 1.0, -π: E(x) XOR hash
    assert np.array_equal(R.embed(R.float_unop("tanh", x, "f32"), "f32"), R.embed(x, "f32") ^ np.uint64(0x1B1943D1))


def test_rint_trunc_symbols():
    assert R.libcall_symbol("rint", "f32") == "__nv_rintf" and R.libcall_symbol("trunc", "f64") == "__nv_trunc"
    x = np.array([0x3FC00000], dtype=np.uint64)  # 1.5
    h = R.fnv1a64("__nv_rintf") & 0xFFFFFFFF
    assert int(R.embed(R.float_unop("rint", x, "f32"), "f32")[0]) == int(R.embed(x, "f32")[0]) ^ h


@pytest.mark.parametrize("t", ["f16", "bf16"])
def test_abs_and_sign_payloads_match_float_bit_ops_exhaustive(t):
    """abs_payload / set_sign_payload are what clearing / setting the float sign bit does to φ."""
    u = np.arange(1 << 16, dtype=np.uint64)
    assert np.array_equal(R.abs_payload(R.embed(u, t), 16), R.embed(u & np.uint64(0x7FFF), t))
    pos = np.arange(1 << 15, dtype=np.uint64)
    assert np.array_equal(R.set_sign_payload(R.embed(pos, t), True, 16), R.embed(pos | np.uint64(0x8000), t))


@pytest.mark.parametrize("t,w", [("f16", 16), ("bf16", 16), ("f32", 32)])
def test_xorsign_minmax_is_native_abs_ring_minmax_native_signxor(t, w):
    """The model = native abs on both floats, the ring min/max, then the float sign bit set to
    sign(a) XOR sign(b) — all at the float-bit level, independent of the payload formulas."""
    rng = np.random.default_rng(5)
    a = rng.integers(0, 1 << w, 4000, dtype=np.uint64)
    b = rng.integers(0, 1 << w, 4000, dtype=np.uint64)
    a[:4] = [0, 1 << (w - 1), 0, 1 << (w - 1)]
    b[:4] = [0, 0, 1 << (w - 1), 1 << (w - 1)]
    mag, sign = np.uint64((1 << (w - 1)) - 1), np.uint64(1 << (w - 1))
    for op in ("min", "max"):
        m = R.float_binop(op, a & mag, b & mag, t)  # ring min/max of the native |a|, |b|
        want = m | ((a ^ b) & sign)
        got = R.unembed(R.xorsign_minmax(R.embed(a, t), R.embed(b, t), op, w), t)
        assert np.array_equal(got, want), op


@pytest.mark.parametrize("t,one", [("e4m3", 0x38), ("e5m2", 0x3C)])
def test_fp8_phi_has_the_doc_properties_exhaustive(t, one):
    """fpsan.md §1's procedure applied to the 8-bit formats: a bijection with φ(+0)=0, φ(1)=1,
    φ(−1)=2^8−1, φ(−0)=2^7 and φ(−x) = −φ(x) for x ≠ ±0."""
    u = np.arange(256, dtype=np.uint64)
    e = R.embed(u, t)
    assert len(set(e.tolist())) == 256 and np.array_equal(R.unembed(e, t), u)
    assert [int(R.embed(x, t)) for x in (0, one, one | 0x80, 0x80)] == [0, 1, 255, 128]
    nz = u[(u & np.uint64(0x7F)) != 0]
    assert np.array_equal(R.embed(nz ^ np.uint64(0x80), t), (np.uint64(256) - R.embed(nz, t)) & np.uint64(0xFF))
