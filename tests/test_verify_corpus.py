"""corpora/verify (issue 11): every kernel gets its expected `ptxkit verify` verdict, argued from the PTX ISA
in the kernel's header, and every bug's witness names the expected instructions (0 false alarms on the
correct kernels). The expectations come from the manifest written by corpora/verify/build.py, not from
ptxkit: the verdicts from the ISA, the witness lines from the compiled PTX.

Also checked here: ptxas accepts every file, each header states the manifest's verdict, the witness lines
are instructions, and the correct kernels the simulator supports compute what numpy computes.

A kernel whose expected verdict or witness `ptxkit verify` does not reach yet is xfail(strict=True) with
the reason (PENDING): it turns red the moment it passes, so the list must shrink as verify improves.
A report may give one of the verdicts the header argues (`verdict` or one of `accept`); its witness must
then name one line of each group of that verdict's witness.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from ptxkit.bench.verify import sentryward_input
from ptxkit.cli import main

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "corpora" / "verify"
MANIFEST: dict[str, dict[str, Any]] = json.loads((CORPUS / "manifest.json").read_text())
VERDICTS = {"verified", "race", "not-well-synchronized", "different", "inconclusive"}

# kernel -> why its expected verdict is not reached on main yet (strict xfail: passing turns it red)
PENDING: dict[str, str] = {}

# kernels `ptxkit run` cannot execute yet, with the reason
RUN_PENDING: dict[str, str] = {}


def _param(name: str, pending: dict[str, str]) -> Any:
    """Every kernel runs in the default tier (verify and run take ≤ 1.5 s each in-process)."""
    marks = [pytest.mark.xfail(strict=True, reason=pending[name])] if name in pending else []
    return pytest.param(name, marks=marks, id=name)


def _ptx(name: str) -> str:
    return (CORPUS / MANIFEST[name]["file"]).read_text()


def test_manifest_shape() -> None:
    assert len(MANIFEST) >= 30
    kinds = {e["kind"] for e in MANIFEST.values()}
    assert kinds == {"nvcc", "triton"}
    assert {e["arch"] for e in MANIFEST.values() if e["kind"] == "triton"} >= {"sm_80", "sm_90a"}
    for name, e in MANIFEST.items():
        assert e["verdict"] in VERDICTS and set(e["accept"]) <= VERDICTS, name
        assert (CORPUS / e["file"]).is_file(), name
        src = e["source"].split(":")[0]
        assert (CORPUS / src).is_file(), name
        # one witness per acceptable verdict: two groups for a race, none for verified, 1-2 for a misuse
        assert set(e["witness"]) == {e["verdict"], *e["accept"]}, name
        for verdict, groups in e["witness"].items():
            assert len(groups) == {"verified": 0, "race": 2}.get(verdict, len(groups) or -1), (name, verdict)
    assert sum(e["verdict"] == "verified" for e in MANIFEST.values()) >= 12
    assert sum(e["verdict"] != "verified" for e in MANIFEST.values()) >= 12


@pytest.mark.parametrize("name", sorted(MANIFEST))
def test_header_states_verdict_and_witness_lines_are_instructions(name: str) -> None:
    e = MANIFEST[name]
    lines = _ptx(name).splitlines()
    header = []
    for ln in lines:
        if not ln.startswith("//"):
            break
        header.append(ln)
    text = "\n".join(header)
    assert re.search(r"EXPECTED: " + re.escape(e["verdict"]), text), "the header argues another verdict"
    assert "ISA" in text and "launch: ptxkit verify" in text and ("nvcc -arch" in text or "triton.compile" in text)
    for group in (g for groups in e["witness"].values() for g in groups):
        assert group
        for n in group:
            ln = lines[n - 1].strip()
            assert ln and not ln.startswith(("//", ".", "$", "{", "}")), (n, ln)


@pytest.mark.skipif(shutil.which("ptxas") is None, reason="ptxas not on PATH")
@pytest.mark.parametrize("name", sorted(MANIFEST))
def test_ptxas_accepts(name: str, tmp_path: Path) -> None:
    arch = MANIFEST[name]["arch"]
    r = subprocess.run(["ptxas", f"-arch={arch}", str(CORPUS / MANIFEST[name]["file"]), "-o", str(tmp_path / "o")],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr


def _witness_lines(obj: Any) -> set[int]:
    """Every int under a key `line` anywhere inside the witness object."""
    found: set[int] = set()
    if isinstance(obj, dict):
        for k, v in obj.items():
            if k == "line" and isinstance(v, int):
                found.add(v)
            else:
                found |= _witness_lines(v)
    elif isinstance(obj, list):
        for v in obj:
            found |= _witness_lines(v)
    return found


@pytest.mark.parametrize("name", [_param(n, PENDING) for n in sorted(MANIFEST)])
def test_verify_verdict_and_witness(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    e = MANIFEST[name]
    rc = main(["verify", str(CORPUS / e["file"]), *e["args"], "--json"])
    cap = capsys.readouterr()
    assert cap.out.strip(), cap.err[-2000:]
    out = json.loads(cap.out)
    want = {e["verdict"], *e["accept"]}
    assert out["verdict"] in want, f"verdict {out['verdict']}, expected {sorted(want)}: {cap.out[-1500:]}"
    assert rc == (0 if out["verdict"] == "verified" else 1)
    lines = _witness_lines(out.get("witness"))
    for group in e["witness"][out["verdict"]]:
        assert lines & set(group), f"witness lines {sorted(lines)} name none of {group}"


# --- the correct kernels on the simulator, against numpy -----------------------------------------------

def _bin(d: Path, arg: str, dtype: Any) -> np.ndarray:
    return np.fromfile(d / f"{arg}.bin", dtype=dtype)


def _sum_close(got: float, xs: np.ndarray) -> bool:
    return bool(np.isclose(got, float(np.sum(xs.astype(np.float64))), rtol=1e-5, atol=1e-4))


def _check_reduce(d: Path) -> None:
    assert _sum_close(_bin(d, "1", np.float32)[0], _bin(d, "0", np.float32))


def _check_gemm(d: Path) -> None:
    a = _bin(d, "0", np.float32).reshape(16, 64)
    b = _bin(d, "1", np.float32).reshape(64, 16)
    np.testing.assert_allclose(_bin(d, "2", np.float32).reshape(16, 16), a @ b, rtol=1e-4, atol=1e-3)


def _check_lastblock(d: Path) -> None:
    assert _sum_close(_bin(d, "3", np.float32)[0], _bin(d, "0", np.float32))
    assert _bin(d, "2", np.uint32)[0] == 3


def _check_flag(d: Path) -> None:
    assert _bin(d, "2", np.uint32)[0] == 42


def _check_atomic(d: Path) -> None:
    assert _bin(d, "1", np.uint32)[0] == np.uint32(np.sum(_bin(d, "0", np.uint32).astype(np.uint64)) & 0xFFFFFFFF)


def _check_rounds(d: Path) -> None:  # out[lane] = sum over 4 rounds of in[r*32 + lane]
    x = _bin(d, "0", np.float32).reshape(4, 32)
    np.testing.assert_allclose(_bin(d, "1", np.float32), x.sum(axis=0), rtol=1e-5, atol=1e-5)


def _check_cpasync(d: Path) -> None:  # out[t] = sum over 4 tiles of in[i*64 + 63 - t]
    x = _bin(d, "0", np.float32).reshape(4, 64)
    np.testing.assert_allclose(_bin(d, "1", np.float32), x[:, ::-1].sum(axis=0), rtol=1e-5, atol=1e-5)


def _check_bulk(d: Path) -> None:  # out[t] = in[63 - t] + in[t]
    x = _bin(d, "0", np.float32)
    np.testing.assert_array_equal(_bin(d, "1", np.float32), x[63:31:-1] + x[:32])


def _check_bulk_store(d: Path) -> None:  # out = 2 * in, through the bulk copy
    np.testing.assert_array_equal(_bin(d, "1", np.float32), 2.0 * _bin(d, "0", np.float32))


def _check_cluster(d: Path) -> None:  # out[r*32 + t] = in[r*32 + t] + in[(r^1)*32 + 31 - t]
    x = _bin(d, "0", np.float32).reshape(2, 32)
    np.testing.assert_array_equal(_bin(d, "1", np.float32).reshape(2, 32), x + x[::-1, ::-1])


def _check_softmax(d: Path) -> None:
    x = _bin(d, "0", np.float32).astype(np.float64)
    e = np.exp(x - x.max())
    np.testing.assert_allclose(_bin(d, "1", np.float32), e / e.sum(), rtol=1e-4, atol=1e-7)


def _check_atomic_s32(d: Path) -> None:
    assert _bin(d, "1", np.int32)[0] == np.sum(_bin(d, "0", np.int32), dtype=np.int32)  # wraps like atom.add


def _check_mm80(d: Path) -> None:
    a = _bin(d, "0", np.float16).astype(np.float64).reshape(64, 128)
    b = _bin(d, "1", np.float16).astype(np.float64).reshape(128, 64)
    np.testing.assert_allclose(_bin(d, "2", np.float32).reshape(64, 64), a @ b, rtol=1e-3, atol=1e-2)


def _check_mmtma(d: Path) -> None:
    a = _bin(d, "0", np.float16).astype(np.float64).reshape(64, 128)
    b = _bin(d, "5", np.float16).astype(np.float64).reshape(128, 64)
    np.testing.assert_allclose(_bin(d, "10", np.float32).reshape(64, 64), a @ b, rtol=1e-3, atol=1e-2)


CHECKS = {
    "reduce_smem": _check_reduce, "shfl_reduce": _check_reduce, "triton_reduce_sm80": _check_reduce,
    "triton_reduce_sm90": _check_reduce, "gemm_tiled": _check_gemm, "lastblock_fence": _check_lastblock,
    "flag_gpu": _check_flag, "flag_fence_relaxed": _check_flag, "atomic_reduce": _check_atomic,
    "ws_named_barriers": _check_rounds, "mbarrier_pc": _check_rounds, "cpasync_double": _check_cpasync,
    "bulk_copy": _check_bulk, "bulk_store": _check_bulk_store, "triton_softmax_sm80": _check_softmax,
    "triton_atomic_sm90": _check_atomic_s32, "cluster_dsmem": _check_cluster,
    "triton_matmul_sm80": _check_mm80, "triton_matmul_tma_sm90": _check_mmtma,
}


def test_every_correct_kernel_has_a_numpy_check() -> None:
    assert set(CHECKS) == {n for n, e in MANIFEST.items() if e["verdict"] == "verified"}


@pytest.mark.parametrize("name", [_param(n, RUN_PENDING) for n in sorted(CHECKS)])
def test_correct_kernel_runs_like_numpy(name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    e = MANIFEST[name]
    # each needs < 3,000 warp-instructions: a spin that never ends stops at once
    rc = main(["run", str(CORPUS / e["file"]), *e["args"], "--out", str(tmp_path), "--max-steps", "20000"])
    assert rc == 0, capsys.readouterr().err[-2000:]
    CHECKS[name](tmp_path)


# --- the bench's translation of a launch into SentryWard's input (hand-computed expectations) -----------

def test_sentryward_input_scalars_nulls_and_launch() -> None:
    e = MANIFEST["gemm_tiled"]
    cfg = sentryward_input(_ptx("gemm_tiled"), e["args"])
    assert cfg["entry"] == "gemm_tiled" and cfg["schema"] == "spverify.kernel-input/v1"
    assert cfg["launch"] == {"grid_dim": [1, 1, 1], "block_dim": [16, 16, 1]}
    # buffers stay symbolic; the two scalars N = 16, K = 64 with the declared .u32 type
    assert cfg["arguments"] == [{"parameter": "gemm_tiled_param_3", "type": "u32", "value": 16},
                                {"parameter": "gemm_tiled_param_4", "type": "u32", "value": 64}]
    cfg = sentryward_input(_ptx("triton_reduce_sm80"), MANIFEST["triton_reduce_sm80"]["args"])
    assert cfg["launch"]["dynamic_shared_bytes"] == 16
    assert cfg["arguments"] == [{"parameter": f"reduce_sum_param_{i}", "type": "pointer", "value": None}
                                for i in (2, 3)]


def test_sentryward_input_tensor_maps() -> None:
    cfg = sentryward_input(_ptx("triton_matmul_tma_sm90"), MANIFEST["triton_matmul_tma_sm90"]["args"])
    a, b = cfg["tma_descriptors"]
    # A: f16 64x128 row-major, box 32 (K) x 64 (M), 64B swizzle; B: 128x64, box 64 (N) x 32 (K), 128B
    assert a == {"parameter": "matmul_tma_param_0", "object": "tensor_0", "interleave": "none", "swizzle": "64B",
                 "element_type": "f16", "global_shape": [128, 64], "box_shape": [32, 64], "element_strides": [1, 1],
                 "coordinate_strides_bytes": [2, 256]}
    assert (b["parameter"], b["global_shape"], b["box_shape"], b["swizzle"], b["coordinate_strides_bytes"]) == \
        ("matmul_tma_param_5", [64, 128], [64, 32], "128B", [2, 128])
