"""Our own CUDA kernel pairs (corpora/pairs/manifest.json) give their expected `ptxkit equiv` verdicts.

The expected verdicts come from algebra, not from ptxkit (each manifest entry says why); the PTX is
nvcc's. Includes sequential vs tree vs warp-shuffle sums, an mma.sync GEMM tile vs a naive loop
(which checks the mma fragment layouts of ptxkit/fpsan/mma.py on the simulator), and float atomics
with --atomics ring/native.
"""

from __future__ import annotations

import importlib
import json
import re
import shutil
import subprocess

import pytest

from tests.conftest import ROOT, needs_ptxas

PAIRS = ROOT / "corpora" / "pairs"
MANIFEST = json.loads((PAIRS / "manifest.json").read_text())["pairs"]


def _needs_pipeline():
    # plain imports, not importorskip: a broken import must fail the test, not skip it
    for mod in ("ptxkit.ptx.parser", "ptxkit.fpsan_ptx", "ptxkit.exec_sim.args"):
        importlib.import_module(mod)


def argv_for(p: dict, extra: list[str] = ()) -> list[str]:
    argv = ["equiv", str(PAIRS / p["a"]), str(PAIRS / p["b"])]
    for a in p["args"]:
        argv += ["--arg", a]
    argv += ["--grid", p["grid"], "--block", p["block"], *p["options"], *extra]
    if p.get("kernel"):
        argv += ["--kernel", p["kernel"]]
    if p.get("kernel_b"):
        argv += ["--kernel-b", p["kernel_b"]]
    return argv


@pytest.mark.parametrize("pair", MANIFEST, ids=[p["name"] for p in MANIFEST])
def test_pair_verdict(pair, capsys):
    _needs_pipeline()
    from ptxkit.cli import main

    code = main(argv_for(pair, ["--json", "--trials", "2"]))
    out = capsys.readouterr()
    assert code in (0, 1), out.err
    verdict = json.loads(out.out)
    assert verdict["verdict"] == pair["expected"], (pair["reason"], verdict.get("difference"))
    assert code == (0 if pair["expected"] == "EQUIVALENT" else 1)
    if pair["expected"] == "EQUIVALENT":
        assert verdict["elements_compared"] > 0
        # nothing in our pairs is outside the modelled set (mma included)
        assert not verdict["a"]["unmodelled"] and not verdict["b"]["unmodelled"], verdict


def test_manifest_is_complete():
    """Every referenced file exists, every .cu has its .ptx, both sides of every pair are listed."""
    names = {p["name"] for p in MANIFEST}
    assert len(names) == len(MANIFEST)
    for p in MANIFEST:
        assert (PAIRS / p["a"]).is_file() and (PAIRS / p["b"]).is_file()
        assert p["expected"] in ("EQUIVALENT", "DIFFERENT") and p["reason"]
    for cu in PAIRS.glob("*.cu"):
        assert cu.with_suffix(".ptx").is_file(), cu
    kinds = {p["expected"] for p in MANIFEST}
    assert kinds == {"EQUIVALENT", "DIFFERENT"}


@needs_ptxas
@pytest.mark.parametrize("ptx", sorted(PAIRS.glob("*.ptx")), ids=lambda p: p.name)
def test_pair_ptx_assembles_before_and_after_sanitizing(ptx, tmp_path):
    """ptxas accepts each committed nvcc PTX and its FPSan version (mma expansion included)."""
    arch = re.search(r"^\.target\s+(sm_\w+)", ptx.read_text(), re.M).group(1)
    r = subprocess.run(["ptxas", f"-arch={arch}", str(ptx), "-o", str(tmp_path / "a.cubin")],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[:2000]
    fp = importlib.import_module("ptxkit.fpsan_ptx")
    res = fp.sanitize_text(ptx.read_text(), str(ptx), atomics="ring")
    # all expanded: no float mma left (the default int8 expansion uses integer mma on 8-bit limbs)
    assert not [ln for ln in res.text.splitlines() if "mma.sync" in ln.split("//")[0] and ".s32." not in ln]
    out = tmp_path / "s.ptx"
    out.write_text(res.text)
    r = subprocess.run(["ptxas", f"-arch={arch}", str(out), "-o", str(tmp_path / "s.cubin")],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[:2000]


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc not on PATH")
def test_committed_ptx_is_nvccs_output(tmp_path):
    """One pair file recompiled: the committed PTX is what the manifest's nvcc command produces
    (so the .cu is the real source). One file only: nvcc is slow."""
    cu = PAIRS / "sum_tree.cu"
    out = tmp_path / "sum_tree.ptx"
    subprocess.run(["nvcc", "-ptx", "-arch=sm_80", "--extended-lambda", str(cu), "-o", str(out)], check=True)
    strip = lambda t: [ln for ln in t.splitlines() if not ln.startswith("//")]  # noqa: E731
    assert strip(out.read_text()) == strip((PAIRS / "sum_tree.ptx").read_text())


@pytest.mark.parametrize("kernel,t,K,acc", [
    ("gemm_mma_f16", "f16", 32, "f32"), ("gemm_mma_bf16", "bf16", 16, "f32"),
    ("gemm_mma_tf32", "f32", 16, "f32"),  # mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32
    ("gemm_mma_f16_k8_f16acc", "f16", 16, "f16")])  # mma.sync.aligned.m16n8k8.row.col.f16.f16.f16.f16
def test_plain_mma_tiles_compute_the_float_gemm(kernel, t, K, acc):
    """Unsanitized, our mma kernels compute A·B + C (to float tolerance) on the simulator's own mma:
    their fragment loading agrees with the simulator's reading of the ISA layouts (and with mma.py's,
    whose sanitized result equals the naive loop above)."""
    import numpy as np

    _needs_pipeline()
    from ptxkit.exec_sim import parse_arg_specs, run_kernel
    from ptxkit.ptx.parser import parse

    m = parse((PAIRS / "gemm_mma.ptx").read_text(), "gemm_mma.ptx")
    specs = [f"0={t}[{16 * K}]:rand", f"1={t}[{8 * K}]:rand", f"2={acc}[128]:rand", f"3={acc}[128]:zeros", f"4=s32:{K}"]
    args = parse_arg_specs(specs, m.function(kernel), 3)
    res = run_kernel(m, kernel, args, (1, 1, 1), (32, 1, 1))

    def as_f64(x):
        if t == "bf16":
            return (x.view(np.uint16).astype(np.uint32) << 16).view(np.float32).astype(np.float64)
        return x.astype(np.float64)

    A, B = as_f64(args[0].data).reshape(16, K), as_f64(args[1].data).reshape(K, 8)
    want = (A @ B + args[2].data.astype(np.float64).reshape(16, 8)).reshape(-1)
    got = np.asarray(res.buffers["3"]).astype(np.float64)
    assert np.allclose(got, want, rtol=2e-2, atol=0.25 if acc == "f16" else 1e-2)
