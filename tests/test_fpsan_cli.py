"""`ptxkit sanitize` CLI: the README example, idempotence, byte-identity of untouched text, the report,
--strict, --json, --atomics ring and bad input."""

from __future__ import annotations

import json
import subprocess

import numpy as np

from ptxkit.cli import main
from ptxkit.fpsan import ring as R
from ptxkit.fpsan_ptx import MARKER, sanitize_text
from tests.conftest import ROOT, needs_ptxas

EXAMPLE = ROOT / "corpora" / "examples" / "vector_add.ptx"


def _sim(text: str, specs: list[str], n: int, block: int):
    from ptxkit.exec_sim import parse_arg_specs, run_kernel
    from ptxkit.exec_sim.frontend import parse_text

    m = parse_text(text, "t.ptx")
    fn = m.entries()[0]
    res = run_kernel(m, None, parse_arg_specs(specs, fn), (max(1, n // block), 1, 1), (block, 1, 1))
    return res


def test_readme_example_matches_ring(tmp_path):
    out = tmp_path / "out.ptx"
    assert main(["sanitize", str(EXAMPLE), "-o", str(out), "--report"]) == 0
    text = out.read_text()
    n = 128
    rng = np.random.default_rng(3)
    x = rng.integers(0, 2**32, n, dtype=np.uint32)
    y = rng.integers(0, 2**32, n, dtype=np.uint32)
    x[:4] = [0, 0x80000000, 0x3F800000, 0x40000000]
    x.tofile(tmp_path / "x.bin")
    y.tofile(tmp_path / "y.bin")
    res = _sim(text, [f"0=u32[{n}]:{tmp_path / 'x.bin'}", f"1=u32[{n}]:{tmp_path / 'y.bin'}",
                      f"2=u32[{n}]:zeros", f"3=u32:{n}"], n, 64)
    def e(v):
        return R.embed(v, "f32")

    half = R.embed_int(0x3F000000, "f32")
    want = R.unembed(R.add(R.mul(R.exp(R.add(e(x), e(y), 32), 32), half, 32), R.div(e(x), e(y), 32), 32), "f32")
    assert np.array_equal(np.asarray(res.buffers["2"]).view(np.uint32).astype(np.uint64), want)
    # the four intermediates stay in shadow registers: one φ⁻¹ for the stored result only
    assert text.count("0x6D2BAEB9") == 1


def test_untouched_text_is_byte_identical_and_idempotent():
    src = EXAMPLE.read_text()
    once = sanitize_text(src, "v.ptx").text
    assert once.startswith(MARKER + "\n")
    # every original line that is not a float instruction survives verbatim, in order
    kept = [ln for ln in src.splitlines() if not any(op in ln for op in (".f32 \t%f3", "add.f32", "mul.f32", "ex2.",
                                                                          "div.rn", "fma.rn"))]
    it = iter(once.splitlines())
    assert all(any(ln == o for o in it) for ln in kept)
    twice = sanitize_text(once, "v.ptx")
    assert twice.text == once and twice.report.rewritten == 0


def test_report_strict_and_json(tmp_path, capsys):
    """Native float atomics (Triton's choice) are a note: listed, not fatal under --strict; a directed-
    rounding op (a libm body rewritten op by op) is an error: listed, fatal under --strict."""
    src = (".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k(.param .u64 p)\n{\n"
           "\t.reg .f32 %f<4>;\n\t.reg .b64 %rd<2>;\n\tld.param.u64 %rd1, [p];\n\tld.global.f32 %f1, [%rd1];\n"
           "\tatom.global.add.f32 %f2, [%rd1], %f1;\n\tadd.f32 %f3, %f2, %f1;\n"
           "\tst.global.f32 [%rd1], %f3;\n\tret;\n}\n")
    f = tmp_path / "t.ptx"
    f.write_text(src)
    o = tmp_path / "o.ptx"
    assert main(["sanitize", str(f), "-o", str(o), "--json"]) == 0
    obj = json.loads(capsys.readouterr().out)
    assert obj["rewritten"] == 1 and (obj["errors"], obj["notes"]) == (0, 1)
    [item] = obj["unsanitized"]
    assert (item["line"], item["opcode"], item["severity"], item["native"]) == (10, "atom.global.add.f32", "note", True)
    assert main(["sanitize", str(f), "-o", str(o), "--strict"]) == 0
    assert main(["sanitize", str(f), "-o", str(o), "--report"]) == 0
    assert f"{f}:10:2: note: atom.global.add.f32: left native" in capsys.readouterr().out
    g = tmp_path / "rm.ptx"
    g.write_text(src.replace("add.f32 %f3", "add.rm.f32 %f3"))
    assert main(["sanitize", str(g), "-o", str(o), "--strict"]) == 2
    err = capsys.readouterr().err
    assert f"{g}:11:2: error: not Triton-exact: add.rm.f32" in err and "atom" not in err


def test_bad_input_is_a_located_error(tmp_path, capsys):
    f = tmp_path / "bad.ptx"
    f.write_text(".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k()\n{\n\tadd.f32 %f1, , %f2;\n")
    assert main(["sanitize", str(f), "-o", str(tmp_path / "o.ptx")]) == 2
    assert "bad.ptx:" in capsys.readouterr().err
    assert main(["sanitize", str(tmp_path / "missing.ptx"), "-o", str(tmp_path / "o.ptx")]) == 2


ATOMIC = """.version 8.0
.target sm_90
.address_size 64
.visible .entry acc(.param .u64 pin, .param .u64 pout)
{
	.reg .b32 %i;
	.reg .f32 %v, %old;
	.reg .b64 %p<6>;
	ld.param.u64 %p1, [pin];
	ld.param.u64 %p2, [pout];
	mov.u32 %i, %tid.x;
	mul.wide.u32 %p3, %i, 4;
	add.s64 %p4, %p1, %p3;
	ld.global.f32 %v, [%p4];
	atom.global.add.f32 %old, [%p2], %v;
	red.global.add.f32 [%p2+4], %v;
	ret;
}
"""


def test_atomics_ring_is_an_order_independent_ring_sum(tmp_path):
    native = sanitize_text(ATOMIC, "a.ptx")
    assert native.report.errors == []
    assert [i.opcode for i in native.report.notes] == ["atom.global.add.f32", "red.global.add.f32"]
    ring = sanitize_text(ATOMIC, "a.ptx", atomics="ring")
    assert ring.report.items == [] and ring.report.rewritten == 2
    n = 64
    x = np.random.default_rng(5).integers(0, 2**32, n, dtype=np.uint32)
    x.tofile(tmp_path / "x.bin")
    res = _sim(ring.text, [f"pin=u32[{n}]:{tmp_path / 'x.bin'}", "pout=u32[2]:zeros"], n, n)
    total = R.unembed((R.embed(x, "f32").sum() + R.embed_int(0, "f32")) & np.uint64(0xFFFFFFFF), "f32")
    out = np.asarray(res.buffers["pout"]).view(np.uint32)
    assert int(out[0]) == int(total) and int(out[1]) == int(total)


ATOMIC_WIDTHS = """.version 8.0
.target sm_90
.address_size 64
.visible .entry acc(.param .u64 pin, .param .u64 pout)
{
	.reg .b32 %i;
	.reg .f64 %v, %old;
	.reg .b16 %h, %ho;
	.reg .pred %q;
	.reg .b64 %p<6>;
	ld.param.u64 %p1, [pin];
	ld.param.u64 %p2, [pout];
	mov.u32 %i, %tid.x;
	setp.eq.u32 %q, %i, 3;
	mul.wide.u32 %p3, %i, 8;
	add.s64 %p4, %p1, %p3;
	ld.global.f64 %v, [%p4];
	ld.global.b16 %h, [%p4];
	@%q atom.global.gpu.relaxed.add.f64 %old, [%p2], %v;
	@!%q red.shared.add.noftz.f16 [%p2+8], %h;
	atom.global.add.noftz.bf16 %ho, [%p2+16], %h;
	atom.global.add.f32 %i, [%p2+32], 0f3F800000;
	ret;
}
"""


@needs_ptxas
def test_ptxas_accepts_example_and_atomics(tmp_path):
    widths = sanitize_text(ATOMIC_WIDTHS, "w.ptx", atomics="ring")
    assert widths.report.rewritten == 4 and widths.report.errors == []
    for name, text in [("ex", sanitize_text(EXAMPLE.read_text(), "v.ptx").text),
                       ("at", sanitize_text(ATOMIC, "a.ptx", atomics="ring").text), ("w", widths.text)]:
        p = tmp_path / f"{name}.ptx"
        p.write_text(text)
        r = subprocess.run(["ptxas", "-arch=sm_90", str(p), "-o", "/dev/null"], capture_output=True, text=True)
        assert r.returncode == 0, r.stderr


def test_directed_rounding_is_reported_as_libm_body():
    """nvcc's inlined expf uses fma.rm: rewritten, but the report says the body is not Triton's exp."""
    src = (".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k(.param .u64 p)\n{\n"
           "\t.reg .f32 %f<4>;\n\t.reg .b64 %rd<2>;\n\tld.param.u64 %rd1, [p];\n\tld.global.f32 %f1, [%rd1];\n"
           "\tfma.rm.f32 %f2, %f1, 0f437C0000, 0f4B400001;\n\tst.global.f32 [%rd1], %f2;\n\tret;\n}\n")
    res = sanitize_text(src, "e.ptx")
    assert res.report.rewritten == 1
    [item] = res.report.errors
    assert (item.line, item.opcode) == (10, "fma.rm.f32") and "libm" in item.reason
    assert not item.native  # rewritten, not left native: no float fma is left outside comments
    assert not any("fma.rm" in ln.split("//")[0] for ln in res.text.splitlines())


def test_mma_expansion_flag(tmp_path):
    """`--mma`: the default (int8) and shuffle leave no float mma (integer instructions only: integer
    mma.sync on 8-bit limbs, or none); `limbs` keeps float mma.sync on exact 8-bit limbs. All are checked
    bit-exact against Triton's dot16 in test_fpsan_triton."""
    src = ROOT / "corpora" / "pairs" / "gemm_mma.ptx"
    outs = {}
    for mode in (None, "shuffle", "limbs"):
        out = tmp_path / f"{mode}.ptx"
        argv = ["sanitize", str(src), "-o", str(out)] + (["--mma", mode] if mode else [])
        assert main(argv) == 0
        outs[mode] = [ln for ln in out.read_text().splitlines() if "mma.sync" in ln.split("//")[0]]
    assert outs[None] and all(".s32." in ln and (".s8." in ln or ".u8." in ln) for ln in outs[None])
    assert outs["shuffle"] == []
    assert outs["limbs"] and all(".f16" in ln or ".tf32" in ln for ln in outs["limbs"])
    assert main(["sanitize", str(src), "-o", str(tmp_path / "x.ptx"), "--mma", "bogus"]) == 2
