"""ptxas as the oracle for syntax: each snippet is rejected by our parser exactly when ptxas reports
a *syntax* error for it (semantic complaints — types, operand counts — are not the parser's job)."""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest

from conftest import needs_ptxas
from ptxkit.errors import PtxkitError
from ptxkit.ptx.parser import parse

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
    src = KERNEL.format(stmt=stmt)
    f = tmp_path / "k.ptx"
    f.write_text(src)
    r = subprocess.run([shutil.which("ptxas"), "-arch=sm_90", str(f), "-o", str(tmp_path / "k.o")],
                       capture_output=True, text=True)
    ptxas_syntax = "syntax error" in r.stderr
    try:
        parse(src)
        ours = False
    except PtxkitError as e:
        ours = True
        m = re.search(r"line (\d+)", r.stderr)
        assert m and e.first.line == int(m.group(1))  # the line ptxas reports
    assert ours == ptxas_syntax, r.stderr


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
    src = MODULE.format(decl=decl)
    f = tmp_path / "m.ptx"
    f.write_text(src)
    r = subprocess.run([shutil.which("ptxas"), "-arch=sm_90", str(f), "-o", str(tmp_path / "m.o")],
                       capture_output=True, text=True)
    ptxas_syntax = "syntax error" in r.stderr
    try:
        parse(src)
        ours = False
    except PtxkitError:
        ours = True
    assert ours == ptxas_syntax, r.stderr
