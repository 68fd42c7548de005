"""`ptxkit verify --reference MODULE:FUNCTION`: a numpy reference written with the FPSan ring API
(`verify.reference.FPRing`) compared bit for bit with the FPSan-sanitized kernel. Expected bits come
from docs/fpsan.md's Triton 3.9 test vectors and from ring algebra (Z/2^w is commutative and
associative, so a tree sum equals a sequential one), not from the code under test."""

from __future__ import annotations

import json

import numpy as np
import pytest

from ptxkit.cli import main
from ptxkit.verify.reference import FPRing

HEAD = ".version 7.8\n.target sm_80\n.address_size 64\n"

# out[i] = x[i] OP y[i] for i = %tid.x (one element per thread, no sharing: race-free).
ELEMENTWISE = HEAD + """.visible .entry k(.param .u64 x, .param .u64 y, .param .u64 out)
{
  .reg .b32 %r<4>;
  .reg .f32 %f<4>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [x];
  ld.param.u64 %rd2, [y];
  ld.param.u64 %rd3, [out];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd4, %r1, 4;
  add.u64 %rd5, %rd1, %rd4;
  add.u64 %rd6, %rd2, %rd4;
  add.u64 %rd7, %rd3, %rd4;
  ld.global.f32 %f1, [%rd5];
  ld.global.f32 %f2, [%rd6];
  OP.f32 %f3, %f1, %f2;
  st.global.f32 [%rd7], %f3;
  ret;
}
"""

# One thread sums x[0..n) left to right: out[0] = ((x0 + x1) + x2) + …
SEQSUM = HEAD + """.visible .entry k(.param .u64 x, .param .u64 out, .param .u32 n)
{
  .reg .b32 %r<4>;
  .reg .f32 %f<4>;
  .reg .b64 %rd<4>;
  .reg .pred %p<2>;
  ld.param.u64 %rd1, [x];
  ld.param.u64 %rd2, [out];
  ld.param.u32 %r1, [n];
  mov.f32 %f1, 0f00000000;
  mov.u32 %r2, 0;
LOOP:
  setp.ge.u32 %p1, %r2, %r1;
  @%p1 bra DONE;
  ld.global.f32 %f2, [%rd1];
  add.f32 %f1, %f1, %f2;
  add.u64 %rd1, %rd1, 4;
  add.u32 %r2, %r2, 1;
  bra LOOP;
DONE:
  st.global.f32 [%rd2], %f1;
  ret;
}
"""

REFS = '''
import numpy as np

def add(fp, x, y, out):
    return {"out": fp.add(x, y)}

def mul_instead(fp, x, y, out):
    return {"out": fp.mul(x, y)}

def add_in_place(fp, x, y, out):
    out[:] = fp.add(x, y)

def tree_sum(fp, x, out, n):
    v = x[:int(n)]
    while len(v) > 1:            # pairwise: ((x0+x1)+(x2+x3))+…, another order than the kernel's
        v = np.concatenate([fp.add(v[0::2][:len(v) // 2], v[1::2]), v[len(v) // 2 * 2:]])
    return {"out": v[:1]}

def ring_sum(fp, x, out, n):
    return {"out": fp.sum(x[:int(n)]).reshape(1)}

def native_sum(fp, x, out, n):   # plain float32 arithmetic: not the ring, so not the sanitized bits
    return {"out": np.array([x[:int(n)].sum(dtype=np.float32)], np.float32)}

def wrong_name(fp, x, y, out):
    return {"z": x}

def wrong_shape(fp, x, y, out):
    return {"out": x[:3]}

def float64_for_f32(fp, x, y, out):
    return {"out": x.astype(np.float64)}

def raises(fp, x, y, out):
    raise ValueError("boom")

def not_a_dict(fp, x, y, out):
    return 42

def no_type(fp, x, y, out):
    return {"out": fp.add(1.0, 2.0)}
'''

XY = ("--arg", "x=f32[32]:rand", "--arg", "y=f32[32]:rand", "--arg", "out=f32[32]:zeros", "--block", "32")


def _verify(tmp_path, capsys, kernel: str, ref: str, *args: str) -> tuple[int, dict, str]:
    (tmp_path / "k.ptx").write_text(kernel)
    (tmp_path / "refs.py").write_text(REFS)
    rc = main(["verify", str(tmp_path / "k.ptx"), *args, "--reference", f"{tmp_path / 'refs.py'}:{ref}",
               "--json"])
    cap = capsys.readouterr()
    return rc, json.loads(cap.out) if cap.out.strip() else {}, cap.err


def _f32(bits: int) -> np.ndarray:
    return np.array([bits], np.uint32).view(np.float32)


def test_ring_api_reproduces_the_fpsan_vectors():
    # docs/fpsan.md §2, Triton 3.9 f32 vectors (bits in → bits out)
    fp = FPRing()
    one, two, half = _f32(0x3F800000), _f32(0x40000000), _f32(0x3F000000)
    cases = [(fp.add(one, two), 0x2B2EB900), (fp.sub(one, two), 0xC1FCF5B9), (fp.mul(two, half), 0x2A34FD6E),
             (fp.div(one, two), 0x89EE4753), (fp.exp2(one), 0x65147F00), (fp.neg(two), 0xC0000000),
             (fp.min(two, half), 0x40000000), (fp.max(two, half), 0x3F000000)]
    for got, want in cases:
        assert got.dtype == np.float32 and int(got.view(np.uint32)[0]) == want
    # Python floats take the array operand's type; the same vector through fp.typed on raw bits
    assert int(fp.add(one, 2.0).view(np.uint32)[0]) == 0x2B2EB900
    assert int(fp.typed("f32").add(np.uint32(0x3F800000), np.uint32(0x40000000)).view(np.uint32)) == 0x2B2EB900
    # φ⁻¹(φ(x)) is the identity, and the ring sum is order-free
    x = np.random.default_rng(1).standard_normal(64).astype(np.float32)
    assert np.array_equal(fp.phi_inv(fp.phi(x), "f32").view(np.uint32), x.view(np.uint32))
    seq = x[:1]
    for v in x[1:]:
        seq = fp.add(seq, v)
    assert np.array_equal(fp.sum(x).view(np.uint32), seq[0].view(np.uint32))
    with pytest.raises(AttributeError):
        _ = fp.hypot


def test_sanitized_add_equals_a_ring_reference(tmp_path, capsys):
    rc, d, _ = _verify(tmp_path, capsys, ELEMENTWISE.replace("OP", "add"), "add", *XY)
    assert (rc, d["verdict"]) == (0, "verified"), d
    rc, d, _ = _verify(tmp_path, capsys, ELEMENTWISE.replace("OP", "add"), "add_in_place", *XY)
    assert (rc, d["verdict"]) == (0, "verified"), d


def test_a_different_expression_is_different_at_the_first_element(tmp_path, capsys):
    # x = y = 0.0 at 0..2, then x = 1.0, y = 2.0. φ(0.0) = 0 and φ(1.0) = 1 (fpsan.md §1: mulB makes
    # φ(1.0) the ring's 1), so mul(0, 0) = add(0, 0) = 0 (equal), mul(1.0, 2.0) = 2.0 = 0x40000000, while
    # the kernel's add(1.0, 2.0) = 0x2b2eb900 (fpsan.md test vector): first difference at index 3.
    x = np.ones(32, np.float32)
    y = np.full(32, 2.0, np.float32)
    x[:3] = y[:3] = 0.0
    np.save(tmp_path / "x.npy", x)
    np.save(tmp_path / "y.npy", y)
    args = ("--arg", f"x=f32[32]:{tmp_path / 'x.npy'}", "--arg", f"y=f32[32]:{tmp_path / 'y.npy'}",
            "--arg", "out=f32[32]:zeros", "--block", "32")
    rc, d, _ = _verify(tmp_path, capsys, ELEMENTWISE.replace("OP", "add"), "mul_instead", *args)
    assert rc == 1 and d["verdict"] == "different"
    assert d["difference"] == {"buffer": "out", "index": 3, "count": 29, "kernel": "0x2b2eb900",
                               "reference": "0x40000000"}
    assert "out[3] differs after FPSan" in d["reason"]
    rc, d, _ = _verify(tmp_path, capsys, ELEMENTWISE.replace("OP", "mul"), "mul_instead", *args)
    assert (rc, d["verdict"]) == (0, "verified")


def test_sequential_sum_equals_a_tree_sum_in_the_ring(tmp_path, capsys):
    args = ("--arg", "x=f32[37]:rand", "--arg", "out=f32[1]:zeros", "--arg", "n=u32:37")
    for ref in ("tree_sum", "ring_sum"):
        rc, d, _ = _verify(tmp_path, capsys, SEQSUM, ref, *args)
        assert (rc, d["verdict"]) == (0, "verified"), (ref, d)
    # plain float32 numpy is not FPSan arithmetic: the bits differ (the comparison is not vacuous)
    rc, d, _ = _verify(tmp_path, capsys, SEQSUM, "native_sum", *args)
    assert rc == 1 and d["verdict"] == "different" and d["difference"]["buffer"] == "out"


@pytest.mark.parametrize("ref, message", [
    ("wrong_name", "'z', which is not a buffer argument"),
    ("wrong_shape", "has 3 elements"),
    ("float64_for_f32", "is float64, the buffer float32"),
    ("raises", "raised ValueError: boom"),
    ("not_a_dict", "returned int"),
    ("no_type", "cannot tell the float type"),
    ("missing_fn", "has no function 'missing_fn'"),
])
def test_bad_references_are_usage_errors(tmp_path, capsys, ref, message):
    rc, _, err = _verify(tmp_path, capsys, ELEMENTWISE.replace("OP", "add"), ref, *XY)
    assert rc == 2 and "ptxkit verify: error:" in err and message in err and "Traceback" not in err, err


def test_unimportable_module_and_exclusive_options(tmp_path, capsys):
    (tmp_path / "k.ptx").write_text(ELEMENTWISE.replace("OP", "add"))
    k = str(tmp_path / "k.ptx")
    assert main(["verify", k, *XY, "--reference", "no_such_module_xyz:f"]) == 2
    err = capsys.readouterr().err
    assert "cannot import 'no_such_module_xyz'" in err and "Traceback" not in err
    assert main(["verify", k, *XY, "--reference", "nocolon"]) == 2
    assert "MODULE:FUNCTION" in capsys.readouterr().err
    (tmp_path / "bad.py").write_text("def f(:\n")
    assert main(["verify", k, *XY, "--reference", f"{tmp_path / 'bad.py'}:f"]) == 2
    assert "SyntaxError" in capsys.readouterr().err
    assert main(["verify", k, *XY, "--reference", "x:f", "--against", k]) == 2
    assert "not allowed with" in capsys.readouterr().err


def test_matmul_is_fpsans_dot_with_widened_payloads():
    # fpsan.md §2: dot/mma D = Σ_k sext(E(A))·sext(E(B)) + E(C) in the accumulator's ring, and the
    # widening cast f16 → f32 is the payload's sign extension: so an f16×f16+f32 matmul equals the f32
    # fma chain over the widened operands, in any order of k.
    rng = np.random.default_rng(3)
    a = rng.uniform(-4, 4, (4, 8)).astype(np.float16)
    b = rng.uniform(-4, 4, (8, 3)).astype(np.float16)
    c = rng.uniform(-4, 4, (4, 3)).astype(np.float32)
    fp = FPRing()
    d = fp.matmul(a, b, c)
    assert d.dtype == np.float32 and d.shape == (4, 3)
    acc = c
    for k in reversed(range(8)):
        acc = fp.fma(fp.cast(a[:, k:k + 1], "f32"), fp.cast(b[k:k + 1, :], "f32"), acc)
    assert np.array_equal(d.view(np.uint32), acc.view(np.uint32))
    # bf16 (uint16 bits): φ(1.0) is the ring's 1 (fpsan.md §1), so 1.0 · x = x bit for bit
    bf = fp.typed("bf16")
    x = np.array([0x4040, 0xC0A0, 0x3E80], np.uint16)  # 3.0, -5.0, 0.25
    assert np.array_equal(bf.mul(np.full(3, 0x3F80, np.uint16), x), x)
    assert np.array_equal(bf.mul(1.0, x), x)
