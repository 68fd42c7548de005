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
    from ptxkit.exec_sim import gpucheck

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
    from ptxkit.exec_sim import load_module, parse_arg_specs
    from ptxkit.exec_sim.triton_vectors import case

    c = case(PTX_CORPUS / "triton_fpsan", kern, "fpsan.ptx")
    m = load_module(c.path)
    args = parse_arg_specs(c.specs, m.entries()[0], 0)
    r = gpu.run_kernel(m, m.entries()[0].name, args, c.grid, c.block, c.shared)
    got = r.buffers[c.output]
    assert np.array_equal(got, np.fromfile(c.expected, got.dtype))


@needs_shared
def test_gpucheck_flow_with_the_simulator_standing_in(monkeypatch, tmp_path, capsys):
    """The unattended GPU check end to end, with the simulator standing in for the GPU launcher (so
    this checks the script's plumbing — specs, comparisons, table, JSON — not a GPU)."""
    import json

    from ptxkit import gpu
    from ptxkit.exec_sim import gpucheck, run_kernel

    def fake_gpu(module, kernel, args, grid, block, shared, repeats=0):
        r = run_kernel(module, kernel, args, grid, block, shared)
        return gpu.GpuResult(buffers=r.buffers, seconds=1e-6, ptx_version="8.5")

    monkeypatch.setattr(gpu, "available", lambda: True)
    monkeypatch.setattr(gpu, "run_kernel", fake_gpu)
    out = tmp_path / "rows.json"
    rc = gpucheck.main([str(PTX_CORPUS.parent.parent), "--json", str(out), "--repeats", "1"])
    data = json.loads(out.read_text())
    assert rc == 0, capsys.readouterr().out
    assert data["summary"]["fpsan_builds"] == data["summary"]["fpsan_cpu_gpu_identical"] > 0
    assert data["summary"]["fpsan_gpu_matches_expected"] == data["summary"]["fpsan_builds"]
    assert "cpu==gpu True" in capsys.readouterr().out
