"""The GPU path (ptxkit/gpu.py): pure helpers tested everywhere; launches only with CuPy and a GPU."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import PTX_CORPUS, needs_shared


def test_relabel_lowers_only_newer_versions():
    from ptxkit.gpu import relabel

    text = "//\n.version 9.4\n.target sm_90a\n.address_size 64\n"
    out, v = relabel(text, "8.5")
    assert v == "8.5" and ".version 8.5\n.target sm_90a" in out and out.startswith("//\n")
    out, v = relabel(text.replace("9.4", "7.8"), "8.5")
    assert v == "7.8" and ".version 7.8" in out


def test_gpucheck_without_gpu_exits_2(capsys):
    from ptxkit import gpu
    from ptxkit.corpus import gpucheck

    if gpu.available():
        pytest.skip("a GPU is present")
    assert gpucheck.main(["/nonexistent"]) == 2
    assert "no usable GPU" in capsys.readouterr().err


def _gpu_ok():
    try:
        from ptxkit import gpu
        return gpu.available()
    except Exception:
        return False


@needs_shared
@pytest.mark.skipif(not _gpu_ok(), reason="needs CuPy and an NVIDIA GPU")
@pytest.mark.parametrize("kern", ["add", "rowsum", "dot16", "sum_loop"])
def test_gpu_reproduces_expected(kern):
    from ptxkit import gpu
    from ptxkit.corpus.triton import load_case
    from ptxkit.exec_sim import load_module, parse_arg_specs

    c = load_case(PTX_CORPUS / "triton_fpsan" / kern, "fpsan.ptx")
    m = load_module(c.path)
    args = parse_arg_specs(list(c.specs), m.entries()[0], 0)
    r = gpu.run_kernel(m, m.entries()[0].name, args, c.grid, c.block, c.shared)
    got = r.buffers[c.output]
    assert np.array_equal(got, c.expected.view(got.dtype))


@needs_shared
def test_gpucheck_flow_with_the_simulator_standing_in(monkeypatch, tmp_path, capsys):
    """The unattended GPU check end to end, with the simulator standing in for the GPU launcher (so
    this checks the script's plumbing — specs, comparisons, table, JSON — not a GPU). The stand-in
    corrupts one launch, so the comparison must be able to fail; the CPU side is checked against the
    expected_fpsan_*.bin files, which the code did not produce."""
    import json

    from ptxkit import gpu
    from ptxkit.corpus import gpucheck
    from ptxkit.exec_sim import run_kernel

    calls = []

    def fake_gpu(module, kernel, args, grid, block, shared, repeats=0):
        r = run_kernel(module, kernel, args, grid, block, shared)
        calls.append(kernel)
        if len(calls) == 1:  # the first "GPU" launch returns one wrong bit: the check must notice it
            for buf in r.buffers.values():
                buf.view(np.uint8)[0] ^= 1
        return gpu.GpuResult(buffers=r.buffers, seconds=1e-6, ptx_version="8.5")

    monkeypatch.setattr(gpu, "available", lambda: True)
    monkeypatch.setattr(gpu, "run_kernel", fake_gpu)
    out = tmp_path / "rows.json"
    rc = gpucheck.main([str(PTX_CORPUS.parent.parent), "--json", str(out), "--repeats", "1"])
    data = json.loads(out.read_text())
    text = capsys.readouterr().out
    s = data["summary"]
    # the triton_fpsan corpus: every kernel with vectors/ has two FPSan builds (sm_90, sm_80)
    kernels = [p for p in (PTX_CORPUS / "triton_fpsan").iterdir() if (p / "vectors").is_dir()]
    assert s["fpsan_builds"] == 2 * len(kernels) > 0 and s["errors"] == 0, text
    # one corrupted launch: exit 1, exactly one build neither identical nor matching expected
    assert rc == 1, text
    assert s["fpsan_cpu_gpu_identical"] == s["fpsan_gpu_matches_expected"] == s["fpsan_builds"] - 1
    first = data["rows"][0]
    assert first["build"] == "fpsan.ptx" and first["bit_identical_cpu_gpu"] is False
    assert first["cpu_matches_expected"] is True and first["gpu_matches_expected"] is False
    assert first["differing"] == 1
    assert all(r["cpu_matches_expected"] for r in data["rows"] if "cpu_matches_expected" in r)
    assert "cpu==gpu False" in text and "cpu==gpu True" in text
