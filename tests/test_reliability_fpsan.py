"""Issue 9, "Honest reports": `sanitize --report`/`--json` list every floating-point instruction left
native on purpose (with its reason; a note where the choice is Triton's), `--strict` fails on errors
only, and instructions that are rewritten are never described as left native. Each test here failed on
a2e5b72 (native compares/abs/copysign/int↔float cvt were not listed; atomics were errors; the
directed-rounding item said nothing about being rewritten)."""

from __future__ import annotations

import json
import re

import pytest

from ptxkit.cli import main
from ptxkit.fpsan_ptx import sanitize_text
from tests.conftest import PTX_CORPUS, needs_shared

HEAD = ".version 8.0\n.target sm_90\n.address_size 64\n"


def _kernel(*body: str) -> str:
    """A kernel whose float registers %f1..%f3 come from memory and whose line 11 is ``body[0]``."""
    lines = [".visible .entry k(.param .u64 p)", "{", "\t.reg .f32 %f<8>;", "\t.reg .b32 %r<4>;",
             "\t.reg .pred %p<2>;", "\t.reg .b64 %rd<2>;", "\tld.param.u64 %rd1, [p];"]
    lines += ["\t" + b for b in body] + ["\tst.global.f32 [%rd1], %f3;", "\tret;", "}"]
    return HEAD + "\n".join(lines) + "\n"


def test_setp_on_floats_gets_a_report_entry_and_json_lists_it(tmp_path, capsys):
    src = _kernel("ld.global.f32 %f1, [%rd1];", "setp.lt.f32 %p1, %f1, 0f00000000;",
                  "selp.f32 %f3, %f1, 0f3F800000, %p1;")
    f = tmp_path / "k.ptx"
    f.write_text(src)
    assert main(["sanitize", str(f), "-o", str(tmp_path / "o.ptx"), "--json"]) == 0
    obj = json.loads(capsys.readouterr().out)
    [item] = obj["unsanitized"]  # the loads, the select and the store are bit moves: not listed
    assert (item["line"], item["col"], item["opcode"]) == (12, 2, "setp.lt.f32")
    assert (item["severity"], item["native"]) == ("note", True) and "comparison" in item["reason"]
    assert (obj["errors"], obj["notes"]) == (0, 1)
    assert main(["sanitize", str(f), "-o", str(tmp_path / "o.ptx"), "--report"]) == 0
    out = capsys.readouterr().out
    assert f"{f}:12:2: note: setp.lt.f32: left native: float comparison" in out
    assert main(["sanitize", str(f), "-o", str(tmp_path / "o.ptx"), "--strict"]) == 0  # a note: Triton's choice


@pytest.mark.parametrize("instr,opcode,word,native", [
    # abs is the sign-bit and, as in Triton's build (a float abs canonicalizes NaNs on a GPU: test_fpsan_abs_bits)
    ("abs.f32 %f3, %f1;", "abs.f32", "abs", False),
    ("copysign.f32 %f3, %f1, %f2;", "copysign.f32", "copysign", True),
    ("cvt.rn.f32.s32 %f3, %r1;", "cvt.rn.f32.s32", "int↔float", True),
    ("cvt.rzi.s32.f32 %r1, %f1;", "cvt.rzi.s32.f32", "int↔float", True),
    ("set.gtu.u32.f32 %r1, %f1, %f2;", "set.gtu.u32.f32", "comparison", True),
    ("testp.finite.f32 %p1, %f1;", "testp.finite.f32", "classification", True),
])
def test_native_float_instructions_are_notes(instr, opcode, word, native):
    src = _kernel("ld.global.f32 %f1, [%rd1];", "ld.global.f32 %f2, [%rd1+4];", instr)
    res = sanitize_text(src, "k.ptx", strict=True)  # notes never fail --strict
    [item] = res.report.items
    assert (item.line, item.opcode, item.severity, item.native) == (13, opcode, "note", native)
    assert word in item.reason


def test_half_to_int_conversion_is_an_error():
    """LLVM folds Triton's f16→f32→int (and f16→f64→int) into one cvt.rzi.s32.f16 (issue 10 E): rewritten
    as through f32, but the other source gives other bits — an error, never a silent note
    (tests/test_fpsan_half_to_int.py checks the bits)."""
    src = _kernel("ld.global.b16 %rs1, [%rd1];", "cvt.rzi.s32.f16 %r1, %rs1;")
    res = sanitize_text(src.replace(".reg .b32 %r<4>;", ".reg .b32 %r<4>;\n\t.reg .b16 %rs<2>;"), "k.ptx")
    [item] = res.report.errors
    assert (item.opcode, item.native) == ("cvt.rzi.s32.f16", False) and "through f32" in item.reason


def test_texture_fetch_is_an_error_under_strict():
    """Filtering interpolates in float in hardware: not Triton's choice, not modelled."""
    src = _kernel("ld.global.f32 %f1, [%rd1];",
                  "tex.2d.v4.f32.f32 {%f3, %f4, %f5, %f6}, [%rd1, {%f1, %f1}];")
    res = sanitize_text(src, "k.ptx")
    [item] = res.report.errors
    assert (item.line, item.opcode, item.native) == (12, "tex.2d.v4.f32.f32", True)
    with pytest.raises(Exception, match=r"k.ptx:12:2: error: not sanitized: tex"):
        sanitize_text(src, "k.ptx", strict=True)


def test_native_float_atomics_are_a_note_not_a_strict_failure():
    src = _kernel("ld.global.f32 %f1, [%rd1];", "atom.global.add.f32 %f3, [%rd1], %f1;")
    res = sanitize_text(src, "k.ptx", strict=True)
    [item] = res.report.items
    assert (item.opcode, item.severity, item.native) == ("atom.global.add.f32", "note", True)
    assert "--atomics ring" in item.reason
    assert sanitize_text(src, "k.ptx", atomics="ring").report.items == []


def test_directed_rounding_says_it_was_rewritten(tmp_path, capsys):
    """nvcc's libm bodies (expf/logf…) use fma.rm/.rp: they are rewritten op by op, which is not
    Triton's single FPSan op — an error, but never "not sanitized"."""
    src = _kernel("ld.global.f32 %f1, [%rd1];", "fma.rm.f32 %f3, %f1, 0f437C0000, 0f4B400001;")
    res = sanitize_text(src, "k.ptx")
    [item] = res.report.errors
    assert (item.line, item.native) == (12, False) and "libm" in item.reason
    assert res.report.rewritten == 1 and "rewritten op by op" in res.report.render()
    f = tmp_path / "k.ptx"
    f.write_text(src)
    assert main(["sanitize", str(f), "-o", str(tmp_path / "o.ptx"), "--strict"]) == 2
    err = capsys.readouterr().err
    assert f"{f}:12:2: error: not Triton-exact: fma.rm.f32" in err and "not sanitized" not in err


_CMP = re.compile(r"^\s*(?:@!?%\w+\s+)?setp\.\w+\.f(?:16|32|64)\b", re.M)


@needs_shared
def test_every_float_comparison_of_a_corpus_file_is_listed():
    """Counted independently by a regex over the text: nvcc's softmax has float setp."""
    text = (PTX_CORPUS / "nvcc" / "softmax_sm90.ptx").read_text()
    res = sanitize_text(text, "softmax.ptx")
    want = len(_CMP.findall(text))
    assert want > 0
    assert sum(1 for i in res.report.notes if i.opcode.startswith("setp.")) == want


@needs_shared
def test_recognised_libdevice_body_is_listed_as_a_note():
    """Triton's tl.sin: the inlined __nv_sinf body runs natively and its result is replaced by the
    ring sin — listed (with its line range) as a note, not an error."""
    res = sanitize_text((PTX_CORPUS / "triton_fpsan" / "sin" / "plain.ptx").read_text(), "sin.ptx", strict=True)
    [body] = [i for i in res.report.items if i.opcode == "libdevice:__nv_sinf"]
    assert body.severity == "note" and body.end_line > body.line and "ring sin" in body.reason


def test_deeply_nested_blocks_are_sanitized():
    """ptxas accepts ``{ }`` nested 1,000 deep; the rewrite walked the block tree recursively and died
    with a RecursionError (exit 70). The add inside is rewritten and the nesting kept."""
    depth = 1000
    src = (HEAD + ".visible .entry k(.param .u64 p)\n{\n\t.reg .f32 %f<3>;\n\t.reg .b64 %rd<2>;\n"
           "\tld.param.u64 %rd1, [p];\n\tld.global.f32 %f1, [%rd1];\n\tld.global.f32 %f0, [%rd1+4];\n"
           + "{\n" * depth + "\tadd.f32 %f2, %f1, %f0;\n\tst.global.f32 [%rd1], %f2;\n" + "}\n" * depth + "\tret;\n}\n")
    res = sanitize_text(src, "nest.ptx", strict=True)
    assert res.report.rewritten == 1 and res.report.items == []
    assert res.text.count("{") == src.count("{") and "add.s32" in res.text


def _self_add_with_source(path: str) -> str:
    """``add.f32 x, x`` (the K fold, decided from the Python source) whose ``.loc`` names ``path``."""
    lines = [".visible .entry k(.param .u64 p)", "{", "\t.reg .f32 %f<4>;", "\t.reg .b64 %rd<2>;",
             "\tld.param.u64 %rd1, [p];", "\tld.global.f32 %f1, [%rd1];", "\t.loc\t1 3 12",
             "\tadd.f32 %f2, %f1, %f1;", "\tst.global.f32 [%rd1], %f2;", "\tret;", "}",
             f'\t.file\t1 "{path}"']
    return HEAD + "\n".join(lines) + "\n"


@pytest.mark.parametrize("kind", ["long-name", "fifo", "directory"])
def test_hostile_source_named_by_file_is_not_read(tmp_path, kind):
    """The `.file` of a `.loc` names a path the sanitizer may read (--source-hints): a name too long
    for the file system raised OSError (exit 70), a FIFO named `k.py` blocked for ever. Neither is a
    source: the fold stays undecided (its default and an error), the output is written."""
    import os
    if kind == "long-name":
        path = str(tmp_path / ("x" * 5000 + ".py"))
    elif kind == "fifo":
        path = str(tmp_path / "k.py")
        os.mkfifo(path)
    else:
        path = str(tmp_path / "d.py")
        os.mkdir(path)
    res = sanitize_text(_self_add_with_source(path), filename="k.ptx")
    assert not re.search(r"^\s*add\.f32", res.text, re.M)  # rewritten into ring arithmetic
    assert [i.opcode for i in res.report.errors] == ["add.f32"]
