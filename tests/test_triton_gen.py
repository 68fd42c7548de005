"""Random Triton 3.9 kernels against Triton's own FPSan (issue 10; ptxkit/corpus/triton_gen.py).

The generator tests need nothing; the harness is checked against the shared Triton FPSan pairs
(Triton's expected vectors); the differential sample needs Triton 3.9.0 (``pip install
'ptxkit[triton]'``) and skips without it. Each sample kernel asserts what holds today: bit-exact
kernels stay bit-exact, and every mismatch is reported (fails ``--strict``). Known-open classes are
``xfail(strict=True)`` with their cause, so they turn red when fixed (then drop the marker).
``PTXKIT_TRITON_GEN_N=200`` runs the large sweep (skipped otherwise: minutes of CPU)."""

from __future__ import annotations

import dataclasses
import functools
import json
import os

import numpy as np
import pytest

from ptxkit.corpus.triton_check import (
    TRITON_VERSION,
    Compiled,
    Outcome,
    cache_dir,
    check,
    compile_ptx,
    run_ptx,
    summarize,
    triton_available,
)
from ptxkit.corpus.triton_kernels import (
    BITS,
    CMP,
    FLOATS,
    INTS,
    LIBDEVICE1,
    MATH1,
    Buffer,
    KernelSpec,
    generate,
    idiom_kernels,
    single_dot,
    single_op_matrix,
)
from ptxkit.fpsan_ptx import sanitize_text
from tests.conftest import PTX_CORPUS, needs_ptxas, needs_shared

TF = PTX_CORPUS / "triton_fpsan"
PAIRS = sorted(p.name for p in TF.iterdir()) if TF.is_dir() else []
needs_triton = pytest.mark.skipif(triton_available() != TRITON_VERSION,
                                  reason=f"Triton {TRITON_VERSION} not installed (pip install 'ptxkit[triton]')")
_DT = {"*fp16": "f16", "*bf16": "bf16", "*fp32": "f32", "*fp64": "f64"}


# ------------------------------------------------------------------------------ the generator (no Triton)

def test_generate_is_deterministic_and_valid_python():
    for seed in range(50):
        a, b = generate(seed), generate(seed)
        assert a == b and a.source == b.source
        compile(a.source, f"k{seed}.py", "exec")
        assert all(np.array_equal(x, y) for x, y in zip(a.input_arrays().values(), b.input_arrays().values()))
        assert {b.name for b in a.inputs} | {a.output.name} | set(a.scalars) | set(a.constexprs) == set(a.signature)


def test_first_200_kernels_cover_the_issue_10_op_list():
    """Every op of issue 10's list appears in seeds 0..199: the 200-kernel figures measure all of them."""
    feats = {f for s in range(200) for f in generate(s).features}
    kinds = {generate(s).kind for s in range(200)}
    names = {f.split(":")[0] for f in feats}
    want = {"+", "-", "*", "/", "fma", "neg", "abs", "pow", "minimum", "maximum", "minimum_nan", "maximum_nan",
            "num_warps=1", "num_warps=4", "mask", "dot_acc", "dot_prec=tf32", "dot_prec=tf32x3", "dot_prec=ieee"}
    want |= set(MATH1) | set(LIBDEVICE1) | {f"where{op}" for op in CMP} | {"sum0", "sum1", "max1", "min0", "cumsum1"}
    assert want <= names, sorted(want - names)
    assert kinds == {"elementwise", "reduce", "scan", "dot"}
    for t in FLOATS:  # every dtype is cast to and from, through every integer type
        assert any(f.startswith(f"cast:{t}->") for f in feats) and any(f.endswith(f"->{t}") for f in feats)
        assert any(f.startswith("dot") and f.endswith(f":{t}") for f in feats), t
    assert {it for f in feats for it in INTS if f"->{it}->" in f} == set(INTS)


def test_single_op_matrix_names_are_unique_and_each_names_one_op():
    m = single_op_matrix()
    assert len({k.name for k in m}) == len(m)
    for k in m:
        compile(k.source, k.name, "exec")


def test_seeded_inputs_have_the_dtype_bits_and_specials():
    spec = next(generate(s) for s in range(100) if any(b.dtype == "bf16" for b in generate(s).inputs))
    arrays = spec.input_arrays()
    for b in spec.inputs:
        a = arrays[b.name]
        assert a.dtype == BITS[b.dtype] and a.size == b.n
    bf = next(arrays[b.name] for b in spec.inputs if b.dtype == "bf16")
    f = (bf.astype(np.uint32) << 16).view(np.float32)
    assert np.all(np.isnan(f) | (np.abs(f) <= 4.0) | np.isinf(f))   # uniform in [-4, 4] or a special


# ------------------------------------------------------------------------------ the harness, against Triton's vectors

def _pair_spec(kernel: str) -> tuple[KernelSpec, dict, np.ndarray]:
    """A shared Triton FPSan pair as a KernelSpec with its vector files as inputs."""
    d = TF / kernel
    sig = json.loads((d / "signature.json").read_text())
    exp = next((d / "vectors").glob("expected_fpsan_*.bin"))
    inputs, arrays, scalars, out = [], {}, {}, None
    for name, t in sig["signature"].items():
        if t == "constexpr":
            continue
        if t.startswith("*"):
            f = d / "vectors" / f"{name.removesuffix('_ptr')}.bin"
            if f.exists():
                arrays[name] = np.fromfile(f, BITS[_DT[t]])
                inputs.append(Buffer(name, _DT[t], arrays[name].size))
            else:
                out = Buffer(name, _DT[t], exp.stat().st_size // np.dtype(BITS[_DT[t]]).itemsize)
        else:
            scalars[name] = int(sig["args"][name])
    assert out is not None
    spec = KernelSpec(-1, "pair", sig["func"], (d / "kernel.py").read_text(), sig["signature"], sig["constexprs"],
                      sig["num_warps"], tuple((sig["grid"] + [1, 1])[:3]), inputs, out, scalars, [], arrays)
    return spec, sig, np.fromfile(exp, BITS[out.dtype])


def _build(sig: dict, build: str, text: str) -> Compiled:
    b = sig["builds"][build]
    return Compiled(text, b["shared_bytes"], b["global_scratch_size"], b["profile_scratch_size"])


@needs_shared
@pytest.mark.parametrize("kernel", PAIRS)
def test_run_ptx_reproduces_tritons_fpsan_vectors(kernel):
    """The harness's parameter layout (inputs, output, scalars, global/profile scratch, shared bytes)
    runs Triton's FPSan PTX to Triton's expected outputs (dot16 needs the profile scratch)."""
    spec, sig, want = _pair_spec(kernel)
    comp = _build(sig, "fpsan", (TF / kernel / "fpsan.ptx").read_text())
    assert np.array_equal(run_ptx(spec, comp, comp.ptx, f"{kernel}/fpsan.ptx"), want)


@needs_shared
def test_check_classifies_the_neg_pair_as_exact_but_reported(monkeypatch):
    """Classification on a pair whose answer is known without Triton: LLVM folds ``-x`` into a
    sign-bit xor that nothing in the kernel types (issue 10 F): sanitize takes it for Triton's
    negation (bit-exact) and reports it as undecided, so --strict fails."""
    spec, sig, _ = _pair_spec("neg")
    builds = {"": _build(sig, "plain", (TF / "neg" / "plain.ptx").read_text()),
              "fpsan": _build(sig, "fpsan", (TF / "neg" / "fpsan.ptx").read_text())}
    monkeypatch.setattr("ptxkit.corpus.triton_check.compile_ptx", lambda s, mode: builds[mode])
    o = check(spec)
    assert (o.status, o.strict_fails, o.differing) == ("exact", True, 0)
    assert any(n.startswith("xor.b32: sign-bit xor") for n in o.reported), o.reported
    assert summarize([o])["exact_but_strict_fails"] == 1
    spec2, sig2, _ = _pair_spec("add")
    builds = {"": _build(sig2, "plain", (TF / "add" / "plain.ptx").read_text()),
              "fpsan": _build(sig2, "fpsan", (TF / "add" / "fpsan.ptx").read_text())}
    o = check(spec2)
    assert (o.status, o.strict_fails, o.differing, o.elements) == ("exact", False, 0, 256)


@needs_shared
@pytest.mark.parametrize("kernel", ["add", "dot16"])
def test_gpubundle_round_trip_with_the_simulator_standing_in(kernel, monkeypatch, tmp_path, capsys):
    """The device check's plumbing (ptxkit/corpus/gpubundle.py), a shared pair packed and checked with
    the simulator standing in for the GPU: the packed simulator output of Triton's FPSan build is
    Triton's expected vector (which the code did not produce), and a launch that returns one wrong bit
    is noticed (exit 1, that build alone not identical)."""
    from ptxkit import gpu
    from ptxkit.corpus import gpubundle
    from ptxkit.exec_sim import run_kernel
    from ptxkit.exec_sim.frontend import parse_text

    spec, sig, want = _pair_spec(kernel)
    builds = {"": _build(sig, "plain", (TF / kernel / "plain.ptx").read_text()),
              "fpsan": _build(sig, "fpsan", (TF / kernel / "fpsan.ptx").read_text())}
    monkeypatch.setattr("ptxkit.corpus.triton_check.compile_ptx", lambda s, mode: builds[mode])
    assert gpubundle.pack_one(spec, tmp_path) == {"kernel": spec.name, "cpu_exact": True}
    with np.load(tmp_path / spec.name / "cpu.npz") as z:
        assert np.array_equal(z["fpsan"], want) and np.array_equal(z["sanitized"], want)

    launches, flip = [], {3}  # launches go plain, fpsan, sanitized: the third returns one wrong bit

    def fake_gpu(text, entry, args, grid, block, shared, repeats=0):
        r = run_kernel(parse_text(text, "k.ptx"), entry, args, grid, block, shared)
        launches.append(entry)
        if len(launches) in flip:
            for buf in r.buffers.values():
                buf.view(np.uint8)[0] ^= 1
        return gpu.GpuResult(buffers=r.buffers, seconds=1e-6)

    monkeypatch.setattr(gpu, "available", lambda: True)
    monkeypatch.setattr(gpu, "run_kernel", fake_gpu)
    out = tmp_path / "rows.json"
    rc = gpubundle.main(["check", str(tmp_path), "--jobs", "1", "--no-timing", "--json", str(out)])
    data = json.loads(out.read_text())
    (row,) = data["rows"]
    assert rc == 1, capsys.readouterr().out
    assert (row["plain_identical"], row["fpsan_identical"], row["sanitized_identical"]) == (True, True, False)
    assert row["sanitized_differing"] == 1 and row["gpu_exact"] is False and row["cpu_exact"] is True
    assert data["summary"]["fpsan_identical"] == 1 and data["summary"]["exactness_agrees"] == 0
    flip.clear()
    rc = gpubundle.main(["check", str(tmp_path), "--jobs", "1", "--no-timing"])
    assert rc == 0 and '"sanitized_identical": 1' in capsys.readouterr().out


def _strip(ptx: str) -> list[str]:
    """The PTX without what names the source file: comments, .file and the DWARF sections."""
    code = ptx.split("\t.section\t.debug", 1)[0]
    return [ln.split("//")[0].rstrip() for ln in code.splitlines() if not ln.lstrip().startswith(".file")]


@needs_shared
@needs_triton
@pytest.mark.parametrize("kernel", ["add", "dot16", "rowsum"])
def test_compile_ptx_reproduces_the_shared_pairs(kernel, tmp_path, monkeypatch):
    """compile_ptx uses the options the shared pairs were made with: same PTX, same launch facts."""
    monkeypatch.setenv("PTXKIT_TRITON_CACHE", str(tmp_path))
    spec, sig, _ = _pair_spec(kernel)
    for mode, build in (("", "plain"), ("fpsan", "fpsan")):
        c = compile_ptx(spec, mode)
        want = _build(sig, build, (TF / kernel / f"{build}.ptx").read_text())
        assert _strip(c.ptx) == _strip(want.ptx)
        assert (c.shared, c.global_scratch, c.profile_scratch) == (want.shared, want.global_scratch,
                                                                  want.profile_scratch)


def _sext(p: np.ndarray, w: int, to: int) -> np.ndarray:
    s = np.uint64(1) << np.uint64(w - 1)
    v = (p.astype(np.uint64) ^ s) - s  # sign-extend the w-bit payload (wraps mod 2^64)
    return v & np.uint64((1 << to) - 1) if to < 64 else v


@needs_triton
@pytest.mark.parametrize("it,shape,nw,prec", [("f16", (16, 16, 16), 4, ""), ("bf16", (16, 32, 32), 4, ""),
                                              ("f32", (32, 32, 16), 4, "tf32"), ("f64", (16, 16, 16), 1, ""),
                                              ("f16", (64, 64, 32), 4, "")])
def test_reference_dot_is_the_ring_dot_of_docs_fpsan(it, shape, nw, prec):
    """The reference is Triton's FPSan PTX on the simulator (8-bit-limb integer mma, stmatrix, scratch):
    for a bare tl.dot it must equal fpsan.md's D = Σ_k sext(φ(A))·sext(φ(B)) mod 2^acc, computed here
    with numpy."""
    from ptxkit.fpsan import ring

    spec = single_dot(it, shape, nw, prec)
    comp = compile_ptx(spec, "fpsan")
    got = run_ptx(spec, comp, comp.ptx, f"{spec.name}.fpsan.ptx")
    m, n, k = shape
    acc = "f64" if it == "f64" else "f32"
    w, aw = (16 if it in ("f16", "bf16") else 32 if it == "f32" else 64), (64 if acc == "f64" else 32)
    arrays = spec.input_arrays()
    a = _sext(ring.embed(arrays["a_ptr"], it), w, aw).reshape(m, k)
    b = _sext(ring.embed(arrays["b_ptr"], it), w, aw).reshape(k, n)
    d = np.zeros((m, n), np.uint64)
    mask = np.uint64((1 << aw) - 1)
    with np.errstate(over="ignore"):  # uint64 arithmetic wraps: mod 2^64, then mod 2^aw
        for t in range(k):
            d = (d + a[:, t:t + 1] * b[t:t + 1, :]) & mask
    want = ring.unembed(d.reshape(-1).astype(BITS[acc]), acc).astype(BITS[acc])
    assert np.array_equal(got, want), f"{np.sum(got != want)} of {got.size} differ"


# ------------------------------------------------------------------------------ the differential sample (Triton)

@functools.cache
def _matrix() -> dict[str, KernelSpec]:
    return {k.name: k for k in single_op_matrix() + idiom_kernels()}


@functools.cache
def _outcome(key: int | str) -> Outcome:
    return check(generate(key) if isinstance(key, int) else _matrix()[key])


def _why(o: Outcome) -> str:
    return (f"{o.name} ({o.kind}, {' '.join(o.features)}): {o.status} {o.differing}/{o.elements} differ, "
            f"{o.instruction} {o.detail[:200]} reported={o.reported} notes={o.notes}")


# Random kernels (seeds of python -m ptxkit.corpus.triton_gen --n 200 --seed 0) bit-exact today, one or
# more of each kind, and single-op kernels that are exact.
EXACT: list[int | str] = [4, 6, 15, 19, 72, 104, 114, 175, "k_rsqrt_f32", "k_exp_f32", "k_sum_bf16_1",
                          "k_cumsum_f16_1", "k_dot16x16x16_f16_default_w4",
                          20, 197,  # Triton's FPSan uses stmatrix, mma.m16n8k32.u8, add.s16x2 (27: max.u16x2)
                          "k_sin_f32",  # the second inlined __nv_sinf copy (issue 10 B)
                          88, "k_exp2_f64", "k_tanh_f32",  # inlined __nv_logf, __nv_exp2 recognised (issue 10 A, C)
                          "k_idiom_A_sin2_plus_cos2_f32", 67, 101,  # sin/cos sharing a reduction; a cvt inside a body
                          # wgmma (sm_90 64-wide dots: descriptors in shared memory) and f64 mma.m8n8k4 (issue 10)
                          "k_dot64x64x32_f16_default_w4", "k_dot64x64x64_f16_default_w4",
                          "k_dot64x64x32_bf16_default_w4", "k_dot64x64x32_f32_tf32_w4", 56,
                          "k_dot16x16x16_f64_default_w1",
                          # LLVM's folds (issue 10, ptxkit.fpsan.folds): x*2.0 as add x, x (K, exact by bits but
                          # reported: x+x gives the same PTX), -x as a sign-bit xor (F; 3: after a cast),
                          # 0*(-x) as mul -0.0 (G), cumsum's -0.0 select (L), f64 maximum NaN (M), f64 sqrt tag (D)
                          75, "k_const_xmul2p0__f16", 3, "k_neg_f64", "k_idiom_G_zero_times_neg_f32",
                          "k_idiom_L_cumsum_of_int", "k_maximum_nan_f64", "k_sqrt_f64",
                          122, 136, 171, 192,  # erff/powf: the first body of a function; powf testing x's f64 source
                          "k_pow_f64", 47, 76, 145, 167,  # __nv_pow calling __internal_accurate_pow
                          # f16/bf16 -> int folded into one cvt (E): the f32 path, exact but reported
                          "k_cast_f16subgti32subgtf32", 0, 1, 29, 148, 194,
                          "k_dot16x16x16_f32_tf32x3_w1", 105, 150,  # tf32x3: cvt.rna.tf32 is the asm's call hash (I)
                          "k_erf_f64", "k_sin_f64", "k_cos_f64", 16, 37, 91, 147,  # f64 erf/sin/cos: no exit marker
                          35,  # tanhf: x*x hoisted above a copy, a debug label after the last
                          # folds whose PTX two sources share, decided by the Python source at the .loc
                          # (ptxkit.fpsan.source_hints): x+x (K), (-x).to(f16) (J), widened halves (H)
                          46, "k_idiom_J_neg_then_narrow", "k_idiom_H_mul_f16_via_f64", "k_idiom_H_mul_f16_via_f32",
                          "k_idiom_H_cmp_f16_via_f32", "k_idiom_H_add_bf16_via_f32", 39,
                          2, 60, 126, 144, 180, 183, 195,  # mismatches before the source decided K/J/H
                          108,  # cos - 0.0*pow contracted into fma(pow, -0.0, cos): the G fold inside an fma
                          154,  # x.to(bf16) <= x.to(bf16) on f64 x as setp.num.f64 x, x: the ring cast's NaN-ness
                          181,  # tl.max of powf: the shuffle tree at the join of arms laid out after ret
                          # f16/bf16 -> int through f64 (E), decided by the source's .to() chain
                          57, "k_idiom_E_bf16_via_f64_to_i8",
                          98,  # (2.0*x.to(f64)).to(f32) as add.f32 x, x: K on the widened operand (mul2-f64)
                          118,  # pow(..) * (s64 + s64): the add x, x carries the product's column
                          119,  # int8 -> bf16 lowered as a sub.bf16x2 bit trick: native, not a half op
                          159,  # h.to(int64) narrowed by LLVM to cvt.rzi.s32.f16: converted at s64, truncated
                          51,  # -(i.to(f32) * -1.0) cancelled into cvt.rn.bf16.s64: the ring arithmetic, narrowed
                          514,  # cos(-x.to(f64)): LLVM folds the negation into the constant x·(−2/π)
                          618,  # i16.to(f16).to(f32) as cvt.rn.f32.s16: the source's half (int-wide)
                          # held-out seeds 700-899 (and earlier OPEN ones), exact since the source decides
                          505, 736,  # abs(x.to(T)) as abs(x).to(T): the ring cast of x, then abs, at the cvt
                          742,  # abs(h.to(f16)) of an f16 h widened by an fma: as written (not the cast at hand)
                          688,  # abs(d).to(bf16) as abs.bf16x2 of the packed cvt: the ring cast of |d|
                          626, 765,  # x.to(int8|int16).to(f16) folded into cvt.rzi.f16.f16: native through s16
                          701,  # a - (h * -1.0), h bf16, as a + h in f32: the negation in h's ring
                          751,  # 0.0 * i.to(f64) as copysign(0.0, x): the ring product 0
                          810, 861, 872,  # f64 sin/cos tails scheduled together at column 0 of the line
                          708,  # a pow argument's widening at column 0 stays outside the body
                          538,  # abs(minimum(h, h)) of h = x.to(f16): not abs of the cvt's f64 source
                          802, 770, 764,  # a half argument's abs/cvt sunk into powf: replayed in the ring
                          862,  # powf of -|h| reading h and |h| (sources of its input)
                          769, 805, 783,  # log2f's call location; cos(-y) as y*(-2/pi); -(0.0*h) on packed halves
                          860, 995, 1099,  # abs(x).to(f16) as |cvt(x)|: decided at the cvt's .to() call
                          960, 1087,  # (x * 0.5) * 2.0 as fma(x, 0.5, x * 0.5): the contracted K fold
                          515, 1258,  # -(a / b).to(f16): true division is f32, the negation before the cast
                          789, 1077, 1223,  # log2's tails sunk past other bodies; a 64-bit shuffle of the result
                          1266, 1267,  # pow(floor(x), x); an int exponent's conversion sunk into powf
                          1268, 1473,  # i64 through bf16 to f32 in one cvt; f32 -> i64 through a dropped f64
                          1306, 1488,  # cumsum's -0.0 select as an fma addend; an f64 constant in a bf16 mul
                          1516, 1560,  # (x.to(f64) * x.to(f64)).to(f32) as mul.f32; d.to(f64).to(int16) of a dot
                          674, 690, 737,  # pow(x, -y), pow(y, abs(z)): the caller's non-.ftz neg/abs replayed
                          1357,  # log2f of a value an ldmatrix under the call's location loaded
                          610,  # minimum(x, x * -1.0) as a sign-bit or: the ring min, decided at the store
                          # held-out seeds 1100-2099: special-case selects LLVM sank past the caller's code (pow(x, x)
                          # is 1 at x == 0, log(0) - 0.5 is NaN) keep their general arm
                          1257, 965, 1305, 1766,
                          1244, 694,  # i.to(f32).to(f64) as cvt.rn.f64.s32 (the f32 dropped); i.to(f64).to(f32): native
                          1918, 2017,  # 0.0 * (h * -1.0) on halves: mul/fma by a register holding 0x8000
                          2056,  # pow(-y, y): inputs -y and y, not pow(-y, -y) (the source's two arguments)
                          142, 1695,  # log2f's x == 0 tests packed into a mask after tl.min; merged into -log2(x)
                          1553,  # pow(s.to(int16).to(f32), ..): powf's subnormal test on the integer
                          1846,  # tanh(-y) squaring y
                          1893,  # a bf16 cumsum's -0.0 select (selp.b16 0x8000)
                          771, 2313,  # pow(d, -d): -d a second input, computed again at the exit
                          2128, 2432, 2462, 2348,  # held-out 2100-2499, silent or reported before
                          1677,  # powf's y = h.to(f32) sunk past x == 1 at line 0 column 0: replayed at the exit
                          1403, 1437, 1180,  # abs and casts told at the abs call, through tanh's f32, via a dropped f64
                          2650, 2354,  # x.to(T) != x.to(T) of a half, T the other half or f64 (2354 crashed)
                          1850, 1821,  # (-cumsum(e)).to(f16), ((x1 / x1) * -1.0).to(bf16): the negation first
                          1361, 840,  # negations through a type LLVM dropped: (-h.to(f64)).to(bf16), f64 → f32 → bf16
                          # held-out 540-599 and 2900-3299 (stop 18; the libdevice ones are pairs in
                          # tests/data/triton_libdevice): fma(..) + i.to(f16) promoted to f32 (594: silent before)
                          594, 3220,  # the half of an integer promoted at a BinOp / at tl.maximum
                          602,  # log2's unpacked high word of x, tested by the next pow body: not a leak
                          2990, 3028,  # where(c, x*y, y*x).to(bf16) as one mul.bf16; where/maximum of one value
                          540, 3282,  # abs.bf16x2 unpacked, widened; a half sum of -x (sub), h.to(f64).to(int)
                          # held-out 3500-3899 (first contact this session; the libdevice ones are pairs)
                          3651,  # y <= x.to(int32).to(f32) folded to cvt.rzi.f32.f32: a trunc in Triton's too (silent)
                          3836,  # f64 log of a dot operand loaded by ld.shared under the call's location
                          3753,  # a pow ring op anchored in a one-line { } block (the output did not parse)
                          # first contact 4700-4899 (this session)
                          529, 4703,  # tl.max(i.to(bf16)): LLVM's cvt.rn.f32.s64 at standard.py's widening (4703 had
                          # a - b*c as fma(-b, c, a) too: a neg.bf16 below b's cast, decided by the source's Sub)
                          4957,  # maximum(where(c, a, a), -a) as a sign-bit and: Triton's ring max keeps -0 (silent)
                          5041,  # bf16.to(int64).to(f32) compared: a trunc of the ring widening in Triton's (silent)
                          5106,  # x.to(int16).to(f32) - 0.5: LLVM's trunc in the plain build only (silent)
                          5462,  # (h * -1.0).to(f32) + y as y - h.to(f32): negated in h's ring (silent)
                          6041,  # cumsum((-h).to(f64) * 0.5) as fma(h, -0.5, acc) at the scan's location (silent)
                          6550,  # x1 / x0.to(bf16) + (x1 * -1.0) of a bf16 x1, promoted: as a sub (silent)
                          6651,  # h.to(f64).to(int32).to(bf16) as cvt.rzi.bf16.bf16: converted from f64 (silent)
                          6928,  # tanh(x.to(f64)) * 2.0 - x.to(f64): an fma with an immediate (sanitize crashed)
                          7005,  # (-h) * (y / y) + 1.0 as fma(-(y / y), h, 1.0): negated in h's ring (silent)
                          7104,  # x.to(int64).to(f64).to(int64): the f64 is of the integer, not of x (silent)
                          7517,  # 0.0 * (..).to(int8).to(f64) as an and with the sign bit: the ring's +0.0 (silent)
                          8343,  # tl.minimum(h.to(f64), h.to(f64), propagate_nan=ALL).to(int32): through f64
                          8449,  # -(-(x.to(f32) + minimum(x.to(f32), x.to(f32)))).to(bf16) as add.bf16 x, x: add-f32
                          8641,  # setp at column 0 after a sin body: the line's comparisons decide (one was silent)
                          8875,  # (-(a / a)).to(bf16) as neg.bf16x2 of a packed cvt: the ring cast of each lane's -x
                          9224,  # 2.0 * (x * 2.0) contracted across a cos body's branches (silent at first contact)
                          9188,  # f64 exp2's NaN arm x + x is the user's a + a, copied into the arm (reported before)
                          9227,  # 0.0 * i.to(bf16) as a select of signed zeros on i's sign (silent at first contact)
                          9816,  # (-d.to(f64)).to(bf16) of an f32 dot result: through f64 as the source says
                          10377,  # (-x.to(f64)).to(bf16) whose sign xor LLVM hoisted to the load (silent at -0)
                          10698,  # where(c, y.to(f64), y.to(f64) - 0.5).to(f32): the narrowed arm (was silent)
                          9335,  # floor(h.to(f32)) - 0.5 beside (h.to(f64) + 1.0).to(f32) at column 0 (was silent)
                          10725,  # eight interleaved f64 sin bodies (six were silent at first contact, then reported)
                          10951,  # x.to(f64) + 1.0 at a merged .loc inside an f64 cos body (was reported)
                          11068,  # eight f64 cos tails at line 0 with a sinf's column (was reported)
                          11184,  # pow's sunk y == 0 test shared with an outer pow's x == 0 test (was reported)
                          11293,  # (-tl.fma(w, x / x, p)).to(f16): an f32 fma, negated before the cast (was reported)
                          11554,  # log's in-place scaling of x in an arm of its branch is its first read (was reported)
                          11581,  # (0.0 * i.to(f64)).to(f32) as the sign of the f64's high word (silent at first)
                          11701,  # x.to(f32) < -x.to(f32) of an f64 x as setp.lt.f64 x, -2^-150 (was reported)
                          # (stop 23's held-out fixes 11450, 12199, 10345, 12411, 12474, 12443, 12700, 10549 are
                          # Triton-free pairs in tests/test_fpsan_libdevice.py; here the rest, through Triton)
                          7208,  # pow(x, -i.to(f32)): the body tests the int i (was reported)
                          12655,  # sin(x) + log2(x) of an f64 x: log2's in-place scaling (silent at first contact)
                          # 2.0 * (x + -(x * -1.0)): the inner x + x at 11:0 is undecided (reported) and sanitized as
                          # written, 2φ(x), which is Triton's x − x·φ(−1) (silent at first contact: the outer's mul2)
                          12693,
                          11355,  # the user's x1 * x0 inside a cosf range of x0 (was reported)
                          # abs(pow(x, x).to(f32)) of a bf16 x: pow's special-case selects after the abs and the
                          # narrowing carry the cast's location (open until stop 27; its class: seed29381's pair)
                          11820,
                          # open until stop 42: (s + s) / (s * 2.0), LLVM's one add divided by itself, split by
                          # position; (-where(c, a, b)).to(f16) of f32 arms, the negation per arm at f32
                          2363, 6284,
                          # open until stop 45: -abs(h.to(f64)).to(f16), LLVM's -|h| on the half; Triton's ring
                          # widens, clears the wide bits' sign, negates and narrows (decided by the source)
                          1632,
                          ]
# Known-open classes (issue 10's letters; /work/coord/issue10_findings.md): kernel -> (cause, reported
# today, i.e. the sanitize report has an error so --strict fails).
# Exact since stop 24, no longer compiled here (Triton-free pairs of their classes in tests/test_fpsan_neg_extremum.py
# and tests/test_fpsan_libdevice.py): 883, 1354, 11777 (tl.min of negations as LLVM's negated max tree) and 1014
# (log(-h.to(f64)) with the negation folded into the body). Exact since stop 26: 10449 (tl.cumsum(-x.to(f64))'s first
# row stored as bf16, the sign xor computed as Triton's f64 negation narrowed; its class is
# test_half_sign_xor_in_a_function_that_negates_wider_is_reported in tests/test_fpsan_source_hints.py).
OPEN: dict[int | str, tuple[str, bool]] = {
    # exact until the simulator took a GPU's NaN results (stop 28: a float abs writes the canonical NaN)
    27: ("tl.max(tl.abs(h)) of loaded halves: Triton's build takes |h| with abs.f16x2, which turns the ring values' "
         "NaN bit patterns into 0x7fff; the plain PTX's integer and does not (reported: a 16-bit |x|)", True),
    # held-out seeds (600-699, 500-539 of the generator), found after seeds 0-199 were exact: the PTX of
    # two sources is the same, so these mismatch and are reported (fail --strict), never silent
    777: ("(x.to(f64) * -1.0).to(f16): LLVM drops the f64 and negates after the f16 cvt (neg.f16x2)", True),
    814: ("tl.min(abs(h.to(f32))): LLVM takes abs and min in f16, then widens", True),
    1391: ("(i.to(f32) * 2.0).to(f16): LLVM converts i to f16 and doubles in f16", True),
    2690: ("(..(0.0 * x)..- 0.5).to(f32) folded by LLVM into a stored constant: no float work is left", True),
    6034: ("fma((-x.to(f32)).to(f16), -(..), ..): LLVM cancels both negations; Triton narrows the f32 ring's negation",
           True),
    5719: ("(h.to(f32) * 2.0).to(f64).to(bf16) * 2.0 as two add.bf16 at one location: the inner one's ring path "
           "through f32 and f64 is not recognised", True),
    10869: ("x.to(f32).to(int64) and x.to(f64).to(int64) of one half: LLVM's one cvt.rzi.s64.f16 for both, Triton "
            "widens the payload to each type (silent at first contact, reported since)", True),
    12552: ("tl.max(abs(-x.to(f64))) stored as f32: LLVM drops the widening and reduces with max.f32; Triton's ring "
            "widens, negates and reduces in f64 (silent at first contact, reported since)", True),
    13142: ("x.to(bf16).to(int64).to(bf16).to(int32): LLVM folds the exact int -> bf16 -> int round trip into "
            "cvt.u32.u64; Triton widens the bf16 in the ring first (silent at first contact, reported since)", True),
}


# the EXACT kernels whose check takes over 10 s on two cores (1560: a dot's result through int16 casts; 3753: pow
# bodies, one anchored in a { } block): run in the slow tier, to keep the README's `make test` under ten minutes
SLOW_EXACT = {1560, 3753}


def _tiered(keys: list[int | str]) -> list:
    return [pytest.param(k, marks=pytest.mark.slow) if k in SLOW_EXACT else k for k in keys]


def _xfail(keys, reason_if=lambda k: True) -> list:
    return [pytest.param(k, marks=pytest.mark.xfail(strict=True, reason=OPEN[k][0])) if reason_if(k) else k
            for k in keys]


@needs_triton
@pytest.mark.parametrize("key", _tiered(EXACT) + _xfail(OPEN))
def test_random_kernel_is_bit_exact(key):
    o = _outcome(key)
    assert o.status == "exact", _why(o)


@needs_triton
@pytest.mark.parametrize("key", _tiered(EXACT) + _xfail(OPEN, lambda k: not OPEN[k][1]))
def test_random_kernel_mismatch_is_reported(key):
    """Exact, or the report has an error (``--report`` names it, ``--strict`` exits 2): never silent."""
    o = _outcome(key)
    assert o.status != "compile_error", _why(o)
    assert o.status == "exact" or o.strict_fails, _why(o)


@needs_triton
@pytest.mark.parametrize("fp8,sig", [("e5m2", "*fp8e5"), ("e4m3", "*fp8e4nv")])
def test_fp8_wgmma_dot_is_bit_exact(fp8, sig):
    """A 64x64x64 fp8 tl.dot for sm_90 (plain: wgmma.mma_async.m64n64k32.f32.e5m2.e5m2 / .e4m3; Triton's
    FPSan: integer mma.m16n8k32.s8.s8 on the embedded bytes) sanitizes to Triton's FPSan bits (issue 10)."""
    s = single_dot("f16", (64, 64, 64), 4, "")
    name = f"k_dot64x64x64_{fp8}_w4"
    rng = np.random.default_rng(7)
    spec = dataclasses.replace(s, name=name, source=s.source.replace(s.name, name),
                               signature={k: (sig if v == "*fp16" else v) for k, v in s.signature.items()},
                               fixed_inputs={"a_ptr": rng.integers(0, 256, 64 * 64, dtype=np.uint8),
                                             "b_ptr": rng.integers(0, 256, 64 * 64, dtype=np.uint8)})
    assert f"{fp8}.{fp8}" in compile_ptx(spec, "").ptx  # the plain build really is an fp8 wgmma
    o = check(spec)
    assert o.status == "exact" and not o.strict_fails, _why(o)


@needs_triton
@pytest.mark.skipif(not os.environ.get("PTXKIT_TRITON_GEN_N"), reason="set PTXKIT_TRITON_GEN_N=200 for the sweep")
@pytest.mark.slow
def test_sweep_reaches_the_issue_10_goal():
    n = int(os.environ["PTXKIT_TRITON_GEN_N"])
    s = summarize([check(generate(seed)) for seed in range(n)])
    assert s["exact"] >= 0.98 * n and s["mismatch_unreported"] == 0, s


@needs_triton
def test_cli_writes_the_counts_and_every_outcome(tmp_path, capsys):
    from ptxkit.corpus.triton_gen import main

    out = tmp_path / "r.json"
    assert main(["--n", "2", "--seed", "4", "--json", str(out), "--quiet"]) == 0
    printed = json.loads(capsys.readouterr().out)
    saved = json.loads(out.read_text())
    assert printed["summary"] == saved["summary"] and saved["summary"]["kernels"] == 2
    assert [o["seed"] for o in saved["outcomes"]] == [4, 5] and saved["summary"]["exact"] == 2
    assert main(["--only", "no_such_kernel"]) == 2


def test_cli_without_triton_is_a_one_line_error(monkeypatch, capsys):
    from ptxkit.corpus import triton_gen

    monkeypatch.setattr(triton_gen, "triton_available", lambda: None)
    assert triton_gen.main(["--n", "1"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("triton_gen: error: Triton is not installed") and err.count("\n") == 1


@needs_triton
@pytest.mark.parametrize("key", ["k_cast_f32subgti8subgtf32", "k_neg_f32", "k_add_f32"])
def test_strict_fails_is_what_the_cli_does(key, tmp_path, capsys):
    """Outcome.strict_fails is `ptxkit sanitize --strict`'s exit status on the plain PTX (2 vs 0)."""
    from ptxkit.cli import main

    spec = _matrix()[key]
    plain = tmp_path / "plain.ptx"
    plain.write_text(compile_ptx(spec, "").ptx)
    rc = main(["sanitize", str(plain), "-o", str(tmp_path / "out.ptx"), "--strict"])
    capsys.readouterr()
    assert rc == (2 if _outcome(key).strict_fails else 0)
    # the int8 conversion is reported by design (out of range, fptosi is poison); k_neg_f32's sign-bit xor, which no
    # instruction types, is -x as the stored negation in the source says (reported before the source decided it)
    assert _outcome(key).strict_fails == (key == "k_cast_f32subgti8subgtf32")


@needs_triton
@needs_ptxas
@pytest.mark.parametrize("seed", [505, 626, 674, 688, 701, 751, 770, 783, 960, 1267, 1306, 1473, 1488, 1516])
def test_held_out_fold_rewrites_are_accepted_by_ptxas(seed, tmp_path):
    """The rewrites the held-out kernels exercise (abs moved across a cast, trunc as casts, replayed argument
    chains, the narrow negation, copysign of zero, packed −0.0, the contracted self-add, conversions through a
    dropped f64, the 64-bit form of a narrowed f32 op) assemble: ptxas 13.0 takes the sanitized file (Triton
    3.9 writes PTX 9.4, ptxas 13.0 reads 9.0: the version line is lowered, nothing else)."""
    import re
    import subprocess

    spec = generate(seed)
    res = sanitize_text(compile_ptx(spec, "").ptx, f"{spec.name}.ptx", source_root=str(cache_dir() / "src"))
    src = tmp_path / f"{spec.name}.ptx"
    src.write_text(re.sub(r"\.version 9\.\d+", ".version 9.0", res.text, count=1))
    arch = re.search(r"\.target\s+(sm_\w+)", res.text)
    assert arch is not None
    r = subprocess.run(["ptxas", f"-arch={arch.group(1)}", str(src), "-o", str(tmp_path / "k.o")],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[:2000]
