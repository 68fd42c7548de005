"""Issue 9 regressions for the `run` area: kernel arguments, launches, output safety, litmus2ptx.
Each test reproduces an input that the old code mishandled (exit 70, silent acceptance, lost file)."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import threading

import numpy as np
import pytest
from conftest import LITMUS_CORPUS, ROOT, needs_shared

from ptxkit import cli
from ptxkit.cli import main
from ptxkit.errors import BoundExceeded, UsageError
from ptxkit.exec_sim.args import parse_arg_specs, parse_dim
from ptxkit.exec_sim.launch import run_kernel
from ptxkit.exec_sim.limits import NWARPID
from ptxkit.io import atomic_write, check_allocation, memory_budget
from ptxkit.ptx.parser import parse

HEAD = ".version 7.0\n.target sm_70\n.address_size 64\n"
# an endless loop, and a three-instruction kernel (one buffer parameter, unused)
LOOP = HEAD + """.visible .entry k(.param .u64 p)
{
  .reg .b32 %r<4>;
L:
  add.s32 %r1, %r1, 1;
  bra L;
}
"""
TRIVIAL = HEAD + """.visible .entry k(.param .u64 p, .param .u32 n)
{
  .reg .b32 %r<4>;
  mov.u32 %r1, %tid.x;
  add.s32 %r1, %r1, 1;
  ret;
}
"""
# each thread stores %nwarpid to p[tid]
NWARP = HEAD + """.visible .entry k(.param .u64 p, .param .u32 n)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [p];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %nwarpid;
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r2;
  ret;
}
"""


@pytest.fixture
def ptx(tmp_path):
    def write(text: str, name: str = "k.ptx") -> str:
        p = tmp_path / name
        p.write_text(text)
        return str(p)
    return write


def _run(capsys, *argv: str) -> tuple[int, str]:
    rc = main(list(argv))
    err = capsys.readouterr().err
    assert "Traceback" not in err and "internal error" not in err, err
    return rc, err

# --- ptxkit/io.py --------------------------------------------------------------------------------

def test_atomic_write_replaces_whole_file(tmp_path):
    p = tmp_path / "out.ptx"
    p.write_text("old contents")
    atomic_write(p, "new")
    assert p.read_text() == "new"
    atomic_write(p, b"\x00\x01")
    assert p.read_bytes() == b"\x00\x01"
    assert os.listdir(tmp_path) == ["out.ptx"]


def test_atomic_write_keeps_old_file_on_interrupt(tmp_path, monkeypatch):
    p = tmp_path / "out.ptx"
    p.write_text("old contents")

    def boom(*a, **k):
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "replace", boom)
    with pytest.raises(KeyboardInterrupt):
        atomic_write(p, "new contents")
    assert p.read_text() == "old contents"
    assert os.listdir(tmp_path) == ["out.ptx"]  # no temporary left behind


@pytest.mark.parametrize("target", ["missing/dir/out.ptx", "adir"])
def test_atomic_write_bad_target_is_usage_error(tmp_path, target):
    (tmp_path / "adir").mkdir()
    with pytest.raises(UsageError) as e:
        atomic_write(tmp_path / target, "x")
    assert str(tmp_path / target) in e.value.render()
    assert ":0:0" not in e.value.render()


@pytest.mark.skipif(os.geteuid() == 0, reason="root ignores directory permissions")
def test_atomic_write_read_only_dir(tmp_path):
    d = tmp_path / "ro"
    d.mkdir()
    d.chmod(0o500)
    try:
        with pytest.raises(UsageError, match="cannot write"):
            atomic_write(d / "x.ptx", "x")
    finally:
        d.chmod(0o700)


def test_atomic_write_keeps_permissions(tmp_path):
    p = tmp_path / "x.sh"
    p.write_text("a")
    p.chmod(0o751)
    atomic_write(p, "b")
    assert p.stat().st_mode & 0o777 == 0o751


def test_atomic_write_follows_symlinks(tmp_path):
    (tmp_path / "real.ptx").write_text("old")
    (tmp_path / "link.ptx").symlink_to("real.ptx")
    atomic_write(tmp_path / "link.ptx", "new")
    assert (tmp_path / "link.ptx").is_symlink() and (tmp_path / "real.ptx").read_text() == "new"


def test_atomic_write_into_a_pipe_writes_in_place(tmp_path):
    # renaming a temporary file onto /dev/null or a FIFO would replace the device node itself
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()))
    reader.start()
    atomic_write(fifo, "through the pipe")
    reader.join(10)
    assert got == [b"through the pipe"]
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode) and os.listdir(tmp_path) == ["pipe"]


def test_memory_budget(monkeypatch):
    monkeypatch.delenv("PTXKIT_MEMORY_BUDGET", raising=False)
    assert memory_budget() == 4 << 30
    check_allocation(1 << 30, "x")
    with pytest.raises(UsageError, match="memory budget"):
        check_allocation(40_000_000_000, "--arg f32[10000000000]")
    monkeypatch.setenv("PTXKIT_MEMORY_BUDGET", "1M")
    assert memory_budget() == 1 << 20
    with pytest.raises(UsageError, match="PTXKIT_MEMORY_BUDGET"):
        check_allocation(2 << 20, "a buffer")
    monkeypatch.setenv("PTXKIT_MEMORY_BUDGET", "lots")
    with pytest.raises(UsageError, match="PTXKIT_MEMORY_BUDGET"):
        memory_budget()


# --- launch shapes, hardware limits ------------------------------------------------------------

@pytest.mark.parametrize("flag,text,needle", [
    ("--grid", "99999999999999999999", "positive integers"),  # was exit 70 (OverflowError in numpy)
    ("--grid", "1,65536", "y = 65536 is outside 1 .. 65535"),
    ("--grid", "2147483648", "x = 2147483648 is outside"),
    ("--block", "1,1,65", "z = 65 is outside 1 .. 64"),
    ("--block", "1025", "x = 1025 is outside 1 .. 1024"),
    ("--block", "32,32,2", "at most 1024 threads, this gives 2048"),
    ("--block", "0", "outside"),
    ("--block", "1,,1", "positive integers"),
])
def test_launch_shape_over_hardware_limits(flag, text, needle):
    with pytest.raises(UsageError, match=needle):
        parse_dim(text, flag)


def test_launch_shape_at_hardware_limits():
    assert parse_dim("2147483647,65535,65535", "--grid") == (2147483647, 65535, 65535)
    assert parse_dim("1,1024", "--block") == (1, 1024, 1)
    assert parse_dim("16,1,64", "--block") == (16, 1, 64)


@pytest.mark.parametrize("flags", [
    ["--grid", "99999999999999999999"], ["--seed", "-1"], ["--shared", "-1"],
    ["--shared", "1000000000000"], ["--block", "1,1,65"], ["--grid", "1,65536"],
    ["--max-steps", "0"], ["--max-steps", "-1"], ["--max-steps", "x"],
])
def test_run_bad_launch_flags_exit_2(ptx, capsys, flags):
    rc, err = _run(capsys, "run", ptx(TRIVIAL), "--arg", "p=null", "--arg", "n=u32:1", *flags)
    assert rc == 2, err
    assert err.strip().splitlines()[-1].startswith("ptxkit run: error:"), err


# --- scalar and buffer specs ---------------------------------------------------------------------

FN_TEXT = HEAD + ".visible .entry k(.param .u64 p, .param .u32 n, .param .f32 x, .param .f16 h)\n{\n ret;\n}\n"


def _specs(*over: str) -> list[str]:
    base = {"p": "p=null", "n": "n=u32:1", "x": "x=f32:0", "h": "h=f16:0"}
    for o in over:
        base[o.split("=")[0]] = o
    return list(base.values())


@pytest.mark.parametrize("spec,needle", [
    ("n=null", "not a 64-bit pointer"),          # null for a .u32 was accepted
    ("n=u32:-1", "-1 does not fit in u32"),      # negative unsigned was taken as 0xffffffff
    ("x=f32:1e999", "out of range for f32"),     # a finite literal that rounds to infinity
    ("x=f32:1e39", "out of range for f32"),
    ("h=f16:70000", "out of range for f16"),
    ("x=f32:0x1ffffffff", "does not fit in f32"),
])
def test_bad_scalar_values_refused(spec, needle):
    fn = parse(FN_TEXT, "k.ptx").entries()[0]
    with pytest.raises(UsageError, match=needle):
        parse_arg_specs(_specs(spec), fn, 0)


def test_float_edge_values_accepted():
    fn = parse(FN_TEXT, "k.ptx").entries()[0]
    args = parse_arg_specs(_specs("x=f32:inf", "h=f16:65504"), fn, 0)
    assert args[2].value == 0x7F800000 and args[3].value == 0x7BFF
    args = parse_arg_specs(_specs("x=f32:-inf", "h=f16:65519"), fn, 0)  # 65519 rounds to 65504
    assert args[2].value == 0xFF800000 and args[3].value == 0x7BFF


@pytest.mark.parametrize("source", ["1," * 3000 + "1", "a\x00b.bin"], ids=["long", "nul"])
def test_buffer_source_that_is_no_path_is_a_usage_error(source):
    """A long inline SOURCE (a name too long for the file system) raised OSError from Path.is_file()
    (exit 70) and a NUL byte ValueError: both are 'no such file', exit 2."""
    with pytest.raises(UsageError, match="no such file"):
        _npy_arg(source)


def _npy_arg(path, typ="f32", n=4):
    fn = parse(FN_TEXT, "k.ptx").entries()[0]
    return parse_arg_specs(_specs(f"p={typ}[{n}]:{path}"), fn, 0)[0]


@pytest.mark.parametrize("arr,needle", [
    (np.arange(4, dtype=np.float64), "dtype <f8 .*f32 needs <f4"),
    (np.arange(4, dtype=">f4"), "dtype >f4 .*f32 needs <f4"),
    (np.arange(4, dtype=np.complex64), "dtype <c8"),
    (np.array(["a", "b", "c", "d"]), "dtype <U1"),
    (np.ones(4, dtype=bool), "dtype |b1"),
    (np.arange(4, dtype=np.int32), "dtype <i4"),
    (np.arange(5, dtype=np.float32), r"shape \(5,\) \(5 elements\), f32\[4\] needs 4"),
    (np.arange(3, dtype=np.float32), r"shape \(3,\)"),
])
def test_npy_of_wrong_dtype_or_size_refused(tmp_path, arr, needle):
    p = tmp_path / "a.npy"
    np.save(p, arr)
    with pytest.raises(UsageError, match=needle):
        _npy_arg(p)


def test_npy_exact_match_accepted(tmp_path):
    p = tmp_path / "a.npy"
    np.save(p, np.arange(4, dtype=np.float32).reshape(2, 2))
    assert _npy_arg(p).data.tolist() == [0.0, 1.0, 2.0, 3.0]
    np.save(p, np.arange(4, dtype=np.uint16))
    assert _npy_arg(p, "bf16").data.tolist() == [0, 1, 2, 3]


@pytest.mark.parametrize("content", ["object", "corrupt", "truncated"])
def test_unreadable_npy_exit_2(tmp_path, ptx, capsys, content):
    p = tmp_path / "a.npy"
    if content == "object":
        np.save(p, np.array([{"a": 1}, None], dtype=object), allow_pickle=True)
    elif content == "corrupt":
        p.write_bytes(b"\x93NUMPY garbage garbage")
    else:
        np.save(p, np.arange(1000, dtype=np.float32))
        p.write_bytes(p.read_bytes()[:300])
    rc, err = _run(capsys, "run", ptx(TRIVIAL), "--arg", f"p=f32[1000]:{p}", "--arg", "n=u32:1")
    assert rc == 2 and "ptxkit run: error: --arg p:" in err and str(p) in err, err


# --- memory budget ---------------------------------------------------------------------------------

def test_huge_buffer_refused_up_front(ptx, capsys):
    rc, err = _run(capsys, "run", ptx(TRIVIAL), "--arg", "p=f32[10000000000]:zeros", "--arg", "n=u32:1")
    assert rc == 2 and "memory budget" in err, err


def test_budget_is_configurable(ptx, capsys, monkeypatch):
    monkeypatch.setenv("PTXKIT_MEMORY_BUDGET", "1M")
    rc, err = _run(capsys, "run", ptx(TRIVIAL), "--arg", "p=u8[2000000]:zeros", "--arg", "n=u32:1")
    assert rc == 2 and "memory budget of 1.0 MiB" in err, err
    monkeypatch.setenv("PTXKIT_MEMORY_BUDGET", "64M")
    rc, err = _run(capsys, "run", ptx(TRIVIAL), "--arg", "p=u8[2000000]:zeros", "--arg", "n=u32:1")
    assert rc == 0, err


def test_local_memory_over_budget_refused(ptx, capsys, monkeypatch):
    monkeypatch.setenv("PTXKIT_MEMORY_BUDGET", "16M")
    text = TRIVIAL.replace(".reg .b32 %r<4>;", ".reg .b32 %r<4>;\n  .local .b8 big[65536];")
    rc, err = _run(capsys, "run", ptx(text), "--arg", "p=null", "--arg", "n=u32:1", "--block", "1024")
    assert rc == 2 and "memory budget" in err, err


# --- the work bound covers the whole launch ----------------------------------------------------------

def test_endless_loop_is_a_bound_exit_3(ptx, capsys):
    rc = main(["run", ptx(LOOP), "--arg", "p=null", "--max-steps", "1000"])
    err = capsys.readouterr().err
    assert rc == 3, err
    assert "k.ptx:8:3: error: step limit of 1000 warp-instructions exceeded" in err


def test_step_limit_counts_every_batch():
    # 2,000 one-thread CTAs x 3 instructions = 6,000 warp-instructions. The old limit applied to each
    # batch of 512 CTAs (1,536 < 10,000), so the launch ran to the end however large the grid.
    m = parse(TRIVIAL, "k.ptx")
    fn = m.entries()[0]
    args = parse_arg_specs(["p=null", "n=u32:1"], fn, 0)
    r = run_kernel(m, None, args, 2000, 1, max_steps=6000)
    assert r.instructions == 6000
    with pytest.raises(BoundExceeded, match="step limit of 5999"):
        run_kernel(m, None, args, 2000, 1, max_steps=5999)
    with pytest.raises(BoundExceeded):
        run_kernel(m, None, args, 100_000_000, 1, max_steps=10_000)


def test_nwarpid_is_the_sm_constant(ptx, tmp_path, capsys):
    # PTX ISA, special registers: %nwarpid is the maximum number of warp ids, not the launch's warps
    rc = main(["run", ptx(NWARP), "--arg", "p=u32[40]:zeros", "--arg", "n=u32:0", "--block", "40",
               "--out", str(tmp_path / "o")])
    assert rc == 0, capsys.readouterr().err
    assert np.fromfile(tmp_path / "o" / "p.bin", np.uint32).tolist() == [NWARPID] * 40 == [64] * 40


# --- outputs ---------------------------------------------------------------------------------------

def test_run_out_where_bin_is_a_directory(ptx, tmp_path, capsys):
    (tmp_path / "o" / "p.bin").mkdir(parents=True)
    rc, err = _run(capsys, "run", ptx(TRIVIAL), "--arg", "p=u32[4]:zeros", "--arg", "n=u32:1",
                   "--out", str(tmp_path / "o"))
    assert rc == 2 and "p.bin" in err and "directory" in err, err


def test_stdout_write_error_exit_2(ptx):
    with open("/dev/full", "w") as full:
        r = subprocess.run([sys.executable, "-m", "ptxkit", "parse", "--emit", ptx(TRIVIAL)], stdout=full,
                           stderr=subprocess.PIPE, text=True, cwd=ROOT, env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert r.returncode == 2, r.stderr
    assert r.stderr.strip() == "ptxkit parse: error: cannot write the output: No space left on device"


def test_interrupt_is_one_line_per_verb(monkeypatch, capsys, ptx):
    def interrupted(args):
        raise KeyboardInterrupt

    monkeypatch.setattr(cli.command("run"), "run", interrupted)
    assert main(["run", ptx(TRIVIAL)]) == 130
    assert capsys.readouterr().err == "ptxkit run: interrupted\n"


# --- litmus2ptx ------------------------------------------------------------------------------------

MP = "PTX t\n{ x=3; }\n P0@cta 0,gpu 0 ;\n st.weak x, 1 ;\nexists (x == 1)\n"


def _litmus(tmp_path, text: str = MP, name: str = "t.litmus") -> str:
    p = tmp_path / name
    p.write_bytes(text.encode() if isinstance(text, str) else text)
    return str(p)


@pytest.mark.parametrize("text,where,needle", [
    (b"PTX t\n{ x=0; }\n P0@cta 0,gpu 0 ;\n st.weak x, 1 ; // \xff\nexists (x == 1)\n", ":4:20:",
     "invalid UTF-8 byte 0xff"),
    ("PTX t\n{ x=0; }\n P0@cta 0,gpu 0 ;\n st.weak x, 1 ;\nexists (y == 1)\n", ":5:9:",
     "the condition names 'y', which is not a location"),
    # 2^32 and -2^31-1: 64-bit integers the litmus parser takes, but no 32-bit location holds them
    ("PTX t\n{ x=0; }\n P0@cta 0,gpu 0 ;\n st.weak x, 4294967296 ;\nexists (x == 1)\n", ":4:2:",
     "constant 4294967296 is out of range"),
    ("PTX t\n{ x=-2147483649; }\n P0@cta 0,gpu 0 ;\n st.weak x, 1 ;\nexists (x == 1)\n", ":2:3:",
     "initial value -2147483649 of x is out of range"),
    ("PTX t\n{ x=0; }\n P0@cta 0,gpu 0 ;\n st.weak x, 1 ;\nexists (x == 4294967296)\n", ":5:14:",
     "constant 4294967296 in the condition is out of range"),
])
def test_litmus2ptx_bad_tests_located(tmp_path, capsys, text, where, needle):
    src = _litmus(tmp_path, text)
    rc, err = _run(capsys, "litmus2ptx", src, "-o", str(tmp_path / "t.ptx"))
    assert rc == 2 and f"t.litmus{where} error:" in err and needle in err, err
    assert not (tmp_path / "t.ptx").exists()


@needs_shared
@pytest.mark.parametrize("name", ["quorum1-pass", "quorum2-pass", "quorum4-pass"])
def test_litmus2ptx_refuses_barrier_quorums_a_gpu_cannot_complete(tmp_path, capsys, name):
    # Dat3M says Ok (three threads at a barrier of quorum 2, the third passes); the kernel deadlocked
    src = LITMUS_CORPUS / "litmus" / "PTX" / "Barrier" / f"{name}.litmus"
    rc, err = _run(capsys, "litmus2ptx", str(src), "-o", str(tmp_path / "q.ptx"))
    assert rc == 2 and f"{name}.litmus:" in err and "counts 2 thread(s) per phase but 3 arrive" in err, err
    assert "cannot be preserved" in err and not (tmp_path / "q.ptx").exists()


@pytest.mark.parametrize("name", ["a b; ret; }", "1abc", "", "a-b", "%"])
def test_litmus2ptx_kernel_name_must_be_a_ptx_identifier(tmp_path, capsys, name):
    rc, err = _run(capsys, "litmus2ptx", _litmus(tmp_path), "--kernel", name)
    assert rc == 2 and "ptxkit litmus2ptx: error: --kernel" in err and "not a PTX identifier" in err, err
    assert capsys.readouterr().out == ""


def test_litmus2ptx_kernel_name_accepted(tmp_path, capsys):
    assert main(["litmus2ptx", _litmus(tmp_path), "--kernel", "$my_k2"]) == 0
    assert ".visible .entry $my_k2(" in capsys.readouterr().out


def test_litmus2ptx_refuses_overwriting_its_input(tmp_path, capsys):
    src = _litmus(tmp_path)
    rc, err = _run(capsys, "litmus2ptx", src, "-o", src)
    assert rc == 2 and "refusing to overwrite" in err, err
    assert (tmp_path / "t.litmus").read_text() == MP
    # the initial-memory image of -o t.ptx is t.mem.bin: the input must survive that too
    mem = _litmus(tmp_path, MP, "t.mem.bin")
    rc, err = _run(capsys, "litmus2ptx", mem, "-o", str(tmp_path / "t.ptx"))
    assert rc == 2 and "initial-memory image" in err and "refusing to overwrite" in err, err
    assert (tmp_path / "t.mem.bin").read_text() == MP and not (tmp_path / "t.ptx").exists()


def test_litmus2ptx_keeps_a_foreign_init_image(tmp_path, capsys):
    # -o data.ptx writes data.mem.bin: a data.mem.bin that no earlier run of this -o wrote is kept
    src = _litmus(tmp_path, MP, "data.litmus")
    (tmp_path / "data.mem.bin").write_bytes(b"precious")
    rc, err = _run(capsys, "litmus2ptx", src, "-o", str(tmp_path / "data.ptx"))
    assert rc == 2 and "refusing to overwrite a file litmus2ptx did not write" in err, err
    assert (tmp_path / "data.mem.bin").read_bytes() == b"precious" and not (tmp_path / "data.ptx").exists()
    (tmp_path / "data.mem.bin").unlink()
    for _ in range(2):  # a fresh run, then a re-run over its own outputs
        assert main(["litmus2ptx", src, "-o", str(tmp_path / "data.ptx")]) == 0
        assert (tmp_path / "data.mem.bin").read_bytes() == (3).to_bytes(4, "little")


def test_unknown_option_is_the_verbs_error(ptx, capsys):
    rc, err = _run(capsys, "parse", "--bogus", ptx(TRIVIAL))
    assert rc == 2 and err.strip().splitlines()[-1] == "ptxkit parse: error: unrecognized arguments: --bogus"


@pytest.mark.parametrize("verb", ["run", "sanitize"])
def test_inputs_read_within_the_budget(ptx, capsys, monkeypatch, verb):
    monkeypatch.setenv("PTXKIT_MEMORY_BUDGET", "1K")  # 1/32 of it for a source file: 32 bytes
    rc, err = _run(capsys, verb, ptx(TRIVIAL), "--arg", "p=null") if verb == "run" else \
        _run(capsys, verb, ptx(TRIVIAL))
    assert rc == 2 and f"ptxkit {verb}: error:" in err and "memory budget" in err, err


@pytest.mark.parametrize("target", ["missing/x.ptx", "adir"])
def test_litmus2ptx_bad_output_path_exit_2(tmp_path, capsys, target):
    (tmp_path / "adir").mkdir()
    rc, err = _run(capsys, "litmus2ptx", _litmus(tmp_path), "-o", str(tmp_path / target))
    assert rc == 2 and f"cannot write '{tmp_path / target}'" in err, err
    assert ":0:0" not in err


# --- sanitize / equiv outputs and locations --------------------------------------------------------

def test_sanitize_failed_write_keeps_old_output(tmp_path, ptx, capsys, monkeypatch):
    out = tmp_path / "o.ptx"
    out.write_text("previous result")

    def full(*a, **k):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", full)
    rc, err = _run(capsys, "sanitize", ptx(TRIVIAL), "-o", str(out))
    assert rc == 2 and f"ptxkit sanitize: error: cannot write '{out}': No space left on device" in err
    assert out.read_text() == "previous result"
    assert sorted(os.listdir(tmp_path)) == ["k.ptx", "o.ptx"]  # no temporary file left behind


def test_equiv_input_errors_have_no_fake_location(tmp_path, ptx, capsys):
    a = ptx(TRIVIAL)
    rc, err = _run(capsys, "equiv", a, str(tmp_path / "missing.ptx"), "--arg", "p=u32[4]:zeros", "--arg", "n=u32:1")
    assert rc == 2 and ":0:0" not in err and "missing.ptx" in err, err
    rc, err = _run(capsys, "equiv", a, a, "--kernel", "nope", "--arg", "p=u32[4]:zeros", "--arg", "n=u32:1")
    assert rc == 2 and ":0:0" not in err and "no .entry named 'nope'" in err, err


def test_equiv_bound_covers_every_trial(ptx, capsys):
    # 3 warp-instructions per launch, 2 launches per trial: 20 trials need 120. The old bound applied
    # to each batch of each launch, so --trials alone could make a check run for hours.
    k = ptx(TRIVIAL)
    argv = ["equiv", k, k, "--arg", "p=u32[4]:zeros", "--arg", "n=u32:1", "--no-sanitize", "--trials", "20"]
    assert main([*argv, "--max-steps", "120"]) == 0
    capsys.readouterr()
    assert main([*argv, "--max-steps", "119"]) == 3
    assert "step limit of 119 warp-instructions exceeded" in capsys.readouterr().err
    rc, err = _run(capsys, *argv[:-1], "1001")
    assert rc == 2 and "--trials 1001: expected 1 .. 1000" in err, err


@pytest.mark.parametrize("count", ["9" * 5000, "99999999999999999999"])
def test_huge_buffer_count_refused(ptx, capsys, count):
    rc, err = _run(capsys, "run", ptx(TRIVIAL), "--arg", f"p=u32[{count}]:zeros", "--arg", "n=u32:1")
    assert rc == 2 and "memory budget" in err, err


def test_equiv_endless_loop_is_a_bound_exit_3(ptx, capsys):
    loop = ptx(LOOP)
    rc = main(["equiv", loop, loop, "--arg", "p=u32[4]:zeros", "--max-steps", "500", "--no-sanitize"])
    assert rc == 3, capsys.readouterr().err


FAULT_AFTER_FLOAT = HEAD + """.visible .entry k(.param .u64 p)
{
\t.reg .f32 %f<4>;
\t.reg .b64 %rd<3>;
\tld.param.u64 %rd1, [p];
\tld.global.f32 %f1, [%rd1];
\tadd.f32 %f2, %f1, 0f3F800000;
\tmul.f32 %f3, %f2, %f1;
\tadd.s64 %rd2, %rd1, 2;
\tst.global.f32 [%rd2], %f3;
\tret;
}
"""


@pytest.mark.parametrize("verb", ["run", "equiv"])
def test_run_time_error_of_a_sanitized_kernel_is_at_the_users_line(tmp_path, capsys, verb):
    """The misaligned store is line 13 of the user's file; the sanitized kernel faults at a later line
    of the sanitized text (the float ops expand), and that line was reported with the user's file name
    (fuzz ptx:714: `cp.async` at 77 reported at 369)."""
    f = tmp_path / "k.ptx"
    f.write_text(FAULT_AFTER_FLOAT)
    line = FAULT_AFTER_FLOAT.split("\n").index("\tst.global.f32 [%rd2], %f3;") + 1
    argv = ["run", str(f), "--sanitize"] if verb == "run" else ["equiv", str(f), str(f)]
    rc, err = _run(capsys, *argv, "--arg", "p=f32[4]:zeros")
    assert rc == 2, err
    assert err.startswith(f"{f}:{line}:2: error: ") and "misaligned" in err, err
    assert err.split("\n")[1].strip() == "st.global.f32 [%rd2], %f3;", err


def test_a_huge_grid_cut_by_the_step_bound_allocates_nothing_per_cta():
    """`run --grid 100000000 --max-steps N` took 850 MB (an identity CTA permutation, np.arange over
    the grid, built for every launch since run_kernel(cta_order=)); now only the batches are built."""
    import tracemalloc
    fn = parse(TRIVIAL, "k.ptx")
    args = parse_arg_specs(["p=u32[4]:zeros", "n=u32:1"], fn.entries()[0], 0)
    tracemalloc.start()
    try:
        with pytest.raises(BoundExceeded):
            run_kernel(fn, "k", args, (10_000_000, 1, 1), (32, 1, 1), 0, max_steps=1000)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 40 << 20, f"{peak >> 20} MB for a launch cut after 1000 warp-instructions"
