"""`ptxkit equiv` command-line contract (docs/cli.md): verdict exit codes, JSON, bad input → exit 2
with a located message and no traceback."""

from __future__ import annotations

import importlib
import json

import pytest

from tests.conftest import ROOT

PAIRS = ROOT / "corpora" / "pairs"
EW2 = ["--arg", "0=f32[64]:rand", "--arg", "1=f32[64]:rand", "--arg", "2=f32[64]:zeros", "--arg", "3=s32:64",
       "--grid", "2", "--block", "32"]


def _main(argv, capsys):
    from ptxkit.cli import main

    code = main(argv)
    out = capsys.readouterr()
    return code, out.out, out.err


def _needs_pipeline():
    # plain imports, not importorskip: a broken import must fail the test, not skip it
    for mod in ("ptxkit.ptx.parser", "ptxkit.fpsan_ptx", "ptxkit.exec_sim.args"):
        importlib.import_module(mod)


def test_text_output_and_exit_codes(capsys):
    _needs_pipeline()
    code, out, _ = _main(["equiv", str(PAIRS / "sub_ab.ptx"), str(PAIRS / "sub_ba.ptx"), *EW2], capsys)
    assert code == 1 and out.startswith("DIFFERENT")
    assert "buffer 2[" in out  # the first differing buffer, named as in --arg
    code, out, _ = _main(["equiv", str(PAIRS / "sub_ab.ptx"), str(PAIRS / "sub_ab.ptx"), *EW2], capsys)
    assert code == 0 and out.startswith("EQUIVALENT")


def test_json_is_one_object(capsys):
    _needs_pipeline()
    code, out, _ = _main(["equiv", str(PAIRS / "exp_sum.ptx"), str(PAIRS / "exp_add.ptx"), *EW2, "--json"], capsys)
    d = json.loads(out)
    assert code == 1 and d["verdict"] == "DIFFERENT"
    diff = d["difference"]
    assert diff["buffer"] == "2" and diff["a_bits"] != diff["b_bits"]


def test_param_names_of_kernel_a_work_for_kernel_b(capsys):
    """--arg by A's parameter names: B's parameters are matched by position."""
    _needs_pipeline()
    argv = ["equiv", str(PAIRS / "assoc_left.ptx"), str(PAIRS / "assoc_right.ptx"), "--grid", "2", "--block", "32",
            "--trials", "3"]
    for i, spec in enumerate(["f32[64]:rand", "f32[64]:rand", "f32[64]:rand", "f32[64]:zeros", "s32:64"]):
        argv += ["--arg", f"assoc_left_param_{i}={spec}"]
    code, out, err = _main(argv, capsys)
    assert code == 0, out + err
    # (a+b)+c vs a+(b+c): equal in the FPSan ring; 3 trials x 4 buffers x 64 elements
    assert out.startswith("EQUIVALENT") and "3 trial(s), 768 elements in 4 buffer(s)" in out, out


@pytest.mark.parametrize("argv,needle", [
    (["equiv", "/nonexistent/a.ptx", str(PAIRS / "sub_ab.ptx"), *EW2], "a.ptx"),
    (["equiv", str(PAIRS / "sub_ab.ptx"), str(PAIRS / "sub_ba.ptx"), *EW2, "--kernel", "nope"], "nope"),
    (["equiv", str(PAIRS / "gemm_mma.ptx"), str(PAIRS / "gemm_naive.ptx"), *EW2], "--kernel"),
    (["equiv", str(PAIRS / "sub_ab.ptx"), str(PAIRS / "sub_ba.ptx"), *EW2, "--trials", "0"], "trials"),
    (["equiv", str(PAIRS / "sub_ab.ptx"), str(PAIRS / "sub_ba.ptx"), *EW2, "--grid", "0"], "grid"),
    (["equiv", str(PAIRS / "sub_ab.ptx"), str(PAIRS / "sum_seq.ptx"), *EW2], "parameters"),
    (["equiv", str(PAIRS / "sub_ab.ptx"), str(PAIRS / "sub_ba.ptx"), "--arg", "bogus"], "bogus"),
    (["equiv", str(PAIRS / "sub_ab.ptx")], "the following arguments are required: B.ptx"),
])
def test_bad_input_exits_2(argv, needle, capsys):
    importlib.import_module("ptxkit.ptx.parser")
    code, out, err = _main(argv, capsys)
    assert code == 2, (out, err)
    assert "Traceback" not in err and "internal error" not in err, err
    assert needle in err
    assert out == ""


def test_bad_ptx_is_located(tmp_path, capsys):
    importlib.import_module("ptxkit.ptx.parser")
    bad = tmp_path / "bad.ptx"
    bad.write_text(".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k()\n"
                   "{\n\tld.global.f32 %f1, [%rd1;\n}\n")
    code, _out, err = _main(["equiv", str(bad), str(bad)], capsys)
    assert code == 2 and f"{bad}:6:26: error: unexpected ';'" in err and "Traceback" not in err


def test_device_gpu_without_a_gpu_is_a_clean_error(capsys):
    _needs_pipeline()
    gpu = importlib.import_module("ptxkit.gpu")
    if gpu.available():
        pytest.skip("a GPU is present: covered by the GPU run")
    code, _out, err = _main(["equiv", str(PAIRS / "sub_ab.ptx"), str(PAIRS / "sub_ba.ptx"), *EW2,
                            "--device", "gpu"], capsys)
    assert code == 2 and "gpu" in err.lower() and "Traceback" not in err
