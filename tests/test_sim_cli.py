"""`ptxkit run` (docs/cli.md): outputs written to --out, JSON, and the one-line errors (exit 2) for bad
specs, missing parameters and out-of-bounds / null / misaligned accesses (compute-sanitizer style:
which thread, which instruction, which address)."""

from __future__ import annotations

import importlib
import json

import pytest
from conftest import PTX_CORPUS, needs_shared

from ptxkit.cli import main

ADD = PTX_CORPUS / "triton_fpsan" / "add"


def _add_args(x=None, y=None, out="o=u32[256]:zeros", n="3=u32:256"):
    v = ADD / "vectors"
    return ["--arg", x or f"0=u32[256]:{v / 'x.bin'}", "--arg", y or f"1=u32[256]:{v / 'y.bin'}",
            "--arg", out.replace("o=", "2="), "--arg", n, "--arg", "4=null", "--arg", "5=null",
            "--grid", "2", "--block", "128"]


@needs_shared
def test_run_writes_outputs_and_json(tmp_path, capsys):
    rc = main(["run", str(ADD / "fpsan.ptx"), *_add_args(), "--out", str(tmp_path), "--json"])
    assert rc == 0
    info = json.loads(capsys.readouterr().out)
    assert [b["name"] for b in info["buffers"]] == ["0", "1", "2"]
    got = (tmp_path / "2.bin").read_bytes()
    assert got == (ADD / "vectors" / "expected_fpsan_o.bin").read_bytes()
    assert info["instructions"] > 0 and info["lane_instructions"] > info["instructions"]


@needs_shared
def test_run_by_param_name_text_output(tmp_path, capsys):
    v = ADD / "vectors"
    rc = main(["run", str(ADD / "fpsan.ptx"), "--arg", f"fpsan_add_param_0=u32[256]:{v / 'x.bin'}",
               "--arg", f"fpsan_add_param_1=u32[256]:{v / 'y.bin'}", "--arg", "fpsan_add_param_2=u32[256]:zeros",
               "--arg", "fpsan_add_param_3=u32:256", "--arg", "fpsan_add_param_4=null",
               "--arg", "fpsan_add_param_5=null", "--grid", "2", "--block", "128", "--out", str(tmp_path)])
    assert rc == 0
    assert "fpsan_add_param_2: u32[256]" in capsys.readouterr().out
    assert (tmp_path / "fpsan_add_param_2.bin").read_bytes() == (v / "expected_fpsan_o.bin").read_bytes()


def _err(capsys):
    err = capsys.readouterr().err.strip()
    return err


@needs_shared
@pytest.mark.parametrize("bad, needle", [
    (["--arg", "0=u32[256:zeros"], "expected TYPE:VALUE"),
    (["--arg", "0=q32[4]:zeros"], "unknown buffer type"),
    (["--arg", "0=u32[4]:/no/such/file.bin"], "no such file"),
    (["--arg", "9=u32:1"], "has no parameter '9'"),
    (["--arg", "3=u64:1"], "has 8 bytes but parameter"),
    (["--arg", "3=u32:abc"], "not a valid u32"),
])
def test_bad_specs_one_line_exit_2(capsys, bad, needle):
    rc = main(["run", str(ADD / "fpsan.ptx"), *bad])
    assert rc == 2
    err = _err(capsys)
    assert needle in err and len(err.splitlines()) <= 3  # usage line + one error line
    assert "Traceback" not in err


@needs_shared
def test_missing_param(capsys):
    rc = main(["run", str(ADD / "fpsan.ptx"), "--arg", "0=u32[4]:zeros"])
    assert rc == 2
    assert "missing --arg for parameters fpsan_add_param_1" in _err(capsys)


@needs_shared
def test_out_of_bounds_reported_like_compute_sanitizer(capsys):
    v = ADD / "vectors"
    rc = main(["run", str(ADD / "fpsan.ptx"), *_add_args(x=f"0=u32[100]:{v / 'x.bin'}")])
    assert rc == 2
    err = _err(capsys)
    first = err.splitlines()[0]
    # thread 100 of block 0 reads x[100], one past the end of the 100-element buffer
    assert "fpsan.ptx:52:" in first and "invalid __global__ access of size 4" in first
    assert "thread (100,0,0) in block (0,0,0)" in first and "out of bounds" in first
    assert "ld.global.b32" in err  # the offending line is shown


@needs_shared
def test_null_pointer(capsys):
    rc = main(["run", str(ADD / "fpsan.ptx"), *_add_args(y="1=null")])
    assert rc == 2
    assert "null pointer" in _err(capsys).splitlines()[0]


def test_misaligned_and_unimplemented(tmp_path, capsys):
    src = tmp_path / "k.ptx"
    src.write_text(""".version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 p)
{
  .reg .b64 %rd<3>;
  .reg .b32 %r<3>;
  ld.param.u64 %rd1, [p];
  ld.global.u32 %r1, [%rd1+2];
  ret;
}
""")
    rc = main(["run", str(src), "--arg", "p=u32[4]:zeros"])
    assert rc == 2
    first = _err(capsys).splitlines()[0]
    assert "k.ptx:9:" in first and "misaligned" in first and "thread (0,0,0)" in first
    src.write_text(src.read_text().replace("ld.global.u32 %r1, [%rd1+2];", "tanh.approx.f16x2 %r1, %r2;\n"
                                           "  brkpt;\n  suld.b.1d.v4.b32.trap {%r1,%r1,%r1,%r1}, [%rd1, {%r2}];"))
    rc = main(["run", str(src), "--arg", "p=u32[4]:zeros"])
    assert rc == 2
    err = _err(capsys)
    assert "k.ptx:11:" in err and "does not implement" in err and "suld" in err


def test_gpu_without_cupy_is_a_clean_error(tmp_path, capsys):
    try:
        import cupy  # noqa: F401
        pytest.skip("CuPy is installed")
    except Exception:
        pass
    src = tmp_path / "k.ptx"
    src.write_text(".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\n ret;\n}\n")
    rc = main(["run", str(src), "--device", "gpu"])
    assert rc == 2
    assert "CuPy" in _err(capsys)


def _gpu_ok():
    try:
        from ptxkit import gpu
        return gpu.available()
    except Exception:
        return False


@needs_shared
@pytest.mark.skipif(not _gpu_ok(), reason="needs CuPy and an NVIDIA GPU")
def test_gpu_matches_cpu_bit_for_bit(tmp_path, capsys):
    rc = main(["run", str(ADD / "fpsan.ptx"), *_add_args(), "--device", "gpu", "--out", str(tmp_path)])
    assert rc == 0
    assert (tmp_path / "2.bin").read_bytes() == (ADD / "vectors" / "expected_fpsan_o.bin").read_bytes()


@needs_shared
def test_run_sanitize_plain_reproduces_triton_fpsan(tmp_path, capsys):
    importlib.import_module("ptxkit.fpsan_ptx")
    rc = main(["run", str(ADD / "plain.ptx"), "--sanitize", *_add_args(), "--out", str(tmp_path), "--json"])
    assert rc == 0
    assert json.loads(capsys.readouterr().out)["sanitized"] is True
    assert (tmp_path / "2.bin").read_bytes() == (ADD / "vectors" / "expected_fpsan_o.bin").read_bytes()
