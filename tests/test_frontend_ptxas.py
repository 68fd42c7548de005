"""ptxas as the oracle: each snippet is rejected by our parser exactly when ptxas reports a *syntax*
error for it (semantic complaints — types, operand counts — are not the parser's job); and corpus
instructions re-printed from their IR compile to the same cubin as the original text."""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest
from conftest import PTX_CORPUS, needs_ptxas, needs_shared, shared_files

from ptxkit import ir
from ptxkit.errors import PtxkitError
from ptxkit.ptx.emit import emit
from ptxkit.ptx.parser import parse, parse_file

KERNEL = """.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 k_p)
{{
\t.reg .pred %p<3>;
\t.reg .b32 %r<5>;
\t.reg .f32 %f<5>;
\t.reg .b64 %rd<5>;
{stmt}
$L1:
\tret;
}}
"""

SNIPPETS = [
    "\tmov.u32 %r1, 7%3;",
    "\tmov.u32 %r1, 7 % 3;",
    "\tmov.f32 %f1, -0f3F800000;",
    "\tmov.f32 %f1, 0f3F800000;",
    "\tadd.f32 %f1 %f2;",
    "\tmov.u32 %r1, ;",
    "\tld.global.u32 %r1, [%rd1+-4];",
    "\tld.global.u32 %r1, [ %rd1 + 0 ];",
    "\tld.param.u64 %rd1, [k_p+8];",
    "\tmov.b64 {%r1, %r2}, %rd1;",
    "\tmov.u32 %r1, (1+2)*3;",
    "\t@!%p1 bra $L1;",
    "\tsetp.lt.s32 %p1|%p2, %r1, %r2;",
    "\tmov.u32 %r1, 0x1F;",
    "\tmov.u32 %r1, 1 ? 2 : 3;",
    "\tadd.s32 %r1, %r2, %r3",
    "\t{ .reg .b32 t; mov.b32 t, %r1; }",
    "\tfoo.bar %r1, %r2;",
    "\tmov.u32 %r1, %r2,;",
    "\tld.global.u32 %r1, [%rd1+];",
]


@needs_ptxas
@pytest.mark.parametrize("stmt", SNIPPETS)
def test_syntax_errors_agree_with_ptxas(stmt, tmp_path):
    err, stderr = _ours_and_ptxas(KERNEL.format(stmt=stmt), tmp_path)
    if err is not None:
        m = re.search(r"line (\d+)", stderr)
        assert m and err.first.line == int(m.group(1))  # the line ptxas reports
    assert (err is not None) == ("syntax error" in stderr), stderr


def _ours_and_ptxas(src: str, tmp_path) -> tuple[PtxkitError | None, str]:
    """Our parse error (None when it parses) and ptxas's stderr on the same text."""
    f = tmp_path / "k.ptx"
    f.write_text(src)
    r = subprocess.run([shutil.which("ptxas"), "-arch=sm_90", str(f), "-o", str(tmp_path / "k.o")],
                       capture_output=True, text=True)
    try:
        parse(src)
        return None, r.stderr
    except PtxkitError as e:
        return e, r.stderr


MODULE = """.version 8.0
.target sm_90
.address_size 64
{decl}
.visible .entry k()
{{
\tret;
}}
"""

DECLS = [
    ".global .attribute(.managed) .align 4 .u32 x;",
    ".global .align 4 .u32 tbl[2][2] = {{1, 2}, {3, 4}};",
    ".global .u64 p[2] = {generic(q), generic(q)+8};\n.global .u32 q[4];",
    ".const .f32 c = 0f3F800000;",
    ".global .u32 x = ;",
    ".global .u32 x[2] = {1, 2,};",
    ".shared .align 16 .b8 s[];",
    ".global .u32 %r<3>;",
    ".extern .func (.param .b32 r) f(.param .b32 a);",
    ".visible .func f(.param .b32 a) .noreturn;",
    "extern .shared .b32 x[];",
    ".global .u32 x",
]


@needs_ptxas
@pytest.mark.parametrize("decl", DECLS)
def test_declaration_syntax_agrees_with_ptxas(decl, tmp_path):
    err, stderr = _ours_and_ptxas(MODULE.format(decl=decl), tmp_path)
    assert (err is not None) == ("syntax error" in stderr), stderr


# ---------------------------------------------------------------- the IR holds everything ptxas reads
# Every instruction of a corpus file is re-printed from its IR node alone (format_statement: no source
# text), and ptxas must compile the result to the very same cubin as the file itself — or, for a file
# ptxas rejects, give the same complaints. A parser that drops a modifier, flips a guard, misreads an
# operand or an address offset changes the machine code (checked: with such damage injected into the
# IR, the cubins differ). Debug directives (.loc/.file/.section) go from both texts alike: their line
# tables record PTX line numbers. The sample: 123 files, 91 of which this ptxas compiles (measured).
_DEBUG = ("loc", "file", "section")
_OLD_TARGETS = ("sm_30", "sm_32", "sm_35", "sm_50", "sm_52", "sm_53", "sm_60", "sm_61", "sm_62", "sm_70", "sm_72")


def _reprint_sample() -> list:
    pick = [p for p in shared_files("nvcc/*.ptx") if "thrust_big" not in p.name]
    pick += shared_files("triton/*.ptx")
    pick += shared_files("triton_fpsan/*/fpsan_v90.ptx") + shared_files("triton_fpsan/*/plain_sm80.ptx")
    pick += shared_files("zluda/**/*.ptx")[::6] + shared_files("pyptx/**/*.ptx")[::6]
    return [p for p in pick if "/pass/test/" not in p.as_posix() and "shared_ptr" not in p.name]


def _texts(path) -> tuple[str, str]:
    """(the file without debug directives, the same with every instruction re-printed from the IR)"""
    out = []
    for reprint in (False, True):
        m = parse_file(path)
        for it in list(m.items):
            if isinstance(it, ir.Directive) and it.name in _DEBUG:
                m.replace(it, [])
        for f in m.functions():
            for s in list(f.statements()):
                if isinstance(s, ir.Directive) and s.name in _DEBUG:
                    m.replace(s, [])
                elif reprint and isinstance(s, ir.Instruction):
                    m.replace(s, [s])
        out.append(emit(m))
    return out[0], out[1]


@needs_shared
@needs_ptxas
@pytest.mark.parametrize("path", _reprint_sample(), ids=lambda p: p.relative_to(PTX_CORPUS).as_posix())
def test_reprinted_instructions_compile_to_the_same_cubin(path, tmp_path):
    base, again = _texts(path)
    target = (re.search(r"^\s*\.target\s+(\w+)", base, re.M) or [None, "sm_75"])[1]
    arch = "sm_75" if target in _OLD_TARGETS else target  # this ptxas starts at sm_75
    results = []
    for name, text in (("a", base), ("b", again)):
        (tmp_path / name).mkdir()
        src = tmp_path / name / "k.ptx"
        src.write_bytes(text.encode("utf-8", "surrogateescape"))
        r = subprocess.run([shutil.which("ptxas"), f"-arch={arch}", str(src), "-o", str(tmp_path / name / "k.cubin")],
                           capture_output=True, text=True)
        cubin = (tmp_path / name / "k.cubin").read_bytes() if r.returncode == 0 else None
        results.append((r.returncode, r.stderr.replace(str(src), "k.ptx"), cubin))
    assert results[0] == results[1], (results[0][:2], results[1][:2])
    assert results[0][0] != 0 or results[0][2]  # compiled: a real cubin was compared

