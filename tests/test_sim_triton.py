"""Issue 3 Done-means: every Triton FPSan kernel (fpsan.ptx and fpsan_sm80.ptx) run on the simulator
with its vectors/ inputs reproduces expected_fpsan_*.bin bit for bit; plain.ptx builds run and agree
with a numpy reference within float tolerance (approximate instructions are not bit-specified)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from conftest import PTX_CORPUS, needs_shared

from ptxkit.corpus.triton import load_case, run_case

TRITON = PTX_CORPUS / "triton_fpsan"
KERNELS = sorted(p.name for p in TRITON.iterdir() if (p / "vectors").is_dir()) if TRITON.is_dir() else []


def run_build(kern: str, build_file: str):
    c = load_case(TRITON / kern, build_file)
    _, res = run_case(c)
    return res, c


@needs_shared
def test_all_kernels_collected():
    # the parametrisations below run over these: an empty glob would make them vacuous
    assert KERNELS == ["add", "cast_f16", "div", "dot16", "exp", "exp2", "ext_bf16", "fma", "minimum", "mul",
                       "neg", "rowsum", "sin", "sub", "sum_loop"]


@needs_shared
def test_one_reader_sizes_scratch_from_the_build_metadata():
    """Scratch parameters get Triton's reported size per CTA x CTAs (dot16's FPSan dot keeps its
    emulation scratch in profile_scratch, 2048 bytes per CTA, grid 1); a size of 0 passes NULL. The same
    reader serves a build named by file or by signature.json key."""
    fp = load_case(TRITON / "dot16", "fpsan.ptx")
    assert fp == load_case(TRITON / "dot16", "fpsan") and fp.build == "fpsan"
    assert fp.specs[3:] == ("3=null", "4=u8[2048]:zeros")
    assert load_case(TRITON / "dot16", "plain").specs[3:] == ("3=null", "4=null")
    add = load_case(TRITON / "add", "fpsan")  # 6 parameters: x, y, o, n, global_scratch, profile_scratch
    assert add.specs[2:] == ("2=u32[256]:zeros", "3=u32:256", "4=null", "5=null") and add.output == "2"
    assert add.expected.dtype == np.uint32 and add.expected.size == 256


@needs_shared
@pytest.mark.parametrize("build_file", ["fpsan.ptx", "fpsan_sm80.ptx"])
@pytest.mark.parametrize("kern", KERNELS)
def test_fpsan_bit_exact(kern, build_file):
    r, c = run_build(kern, build_file)
    got = r.buffers[c.output]
    want = np.fromfile(c.expected_path, got.dtype)
    bad = np.flatnonzero(got != want)
    assert bad.size == 0, f"{bad.size}/{want.size} differ, first at {bad[0]}: {got[bad[0]]:#x} != {want[bad[0]]:#x}"
    assert r.instructions > 0 and r.lane_instructions >= r.instructions


# ---------------------------------------------------------------- plain builds vs numpy
def _inputs(kern):
    d = TRITON / kern / "vectors"
    sig = json.loads((TRITON / kern / "signature.json").read_text())
    out = {}
    for name, t in sig["signature"].items():
        f = d / (name.replace("_ptr", "") + ".bin")
        if f.is_file():
            out[name.replace("_ptr", "")] = np.fromfile(f, {"*fp32": np.float32, "*fp16": np.float16,
                                                           "*bf16": np.uint16}[t])
    return out


def _reference(kern, x):
    with np.errstate(all="ignore"):
        return _reference_(kern, x)


def _reference_(kern, x):
    f64 = np.float64
    if kern == "add":
        return x["x"].astype(f64) + x["y"]
    if kern == "sub":
        return x["x"].astype(f64) - x["y"]
    if kern == "mul":
        return x["x"].astype(f64) * x["y"]
    if kern == "div":
        return x["x"].astype(f64) / x["y"]
    if kern == "fma":
        return x["x"].astype(f64) * x["y"] + x["z"]
    if kern == "neg":
        return -x["x"].astype(f64)
    if kern == "exp":
        return np.exp(x["x"].astype(f64))
    if kern == "exp2":
        return np.exp2(x["x"].astype(f64))
    if kern == "sin":
        return np.sin(x["x"].astype(f64))
    if kern == "minimum":
        # tl.minimum's default (propagate_nan=NONE) lowers to min.f32: a NaN operand yields the other
        return np.fmin(x["x"].astype(f64), x["y"].astype(f64))
    if kern == "cast_f16":
        return x["x"].astype(np.float16).astype(f64)
    if kern == "ext_bf16":
        return (x["x"].astype(np.uint32) << 16).view(np.float32).astype(f64)
    if kern in ("rowsum", "sum_loop"):
        return x["x"].astype(f64).reshape(4, -1).sum(axis=1)
    if kern == "dot16":
        return x["a"].astype(f64).reshape(16, 16) @ x["b"].astype(f64).reshape(16, 16)
    raise KeyError(kern)


@needs_shared
@pytest.mark.parametrize("kern", KERNELS)
def test_plain_matches_numpy(kern):
    r, c = run_build(kern, "plain.ptx")
    out_t = np.float16 if c.output_type == "u16" else np.float32
    got = r.buffers[c.output].view(out_t).astype(np.float64)
    want = _reference(kern, _inputs(kern)).reshape(-1)
    tol = 1e-2 if kern in ("cast_f16", "dot16") else 2e-5
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol * 1e-3, equal_nan=True)
