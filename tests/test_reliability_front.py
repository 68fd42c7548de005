"""Issue 9 regressions of the front end (PTX parser, litmus parser, `ptxkit parse`).

Each test reproduces one reported failure of the old code: ptxas accepted a construct that ptxkit
rejected (checked against ptxas itself where it is installed), an input gave exit 70 or a
RecursionError instead of a located exit 2, or the error output grew without bound."""

from __future__ import annotations

import re

import pytest
from conftest import needs_ptxas
from test_frontend_ptxas import _ours_and_ptxas

from ptxkit import ir
from ptxkit.cli import main
from ptxkit.errors import MAX_DIAGNOSTICS, PtxkitError
from ptxkit.explore import condition as cf
from ptxkit.litmus.parser import MAX_FORMULA_DEPTH, parse_formula, parse_litmus
from ptxkit.ptx.emit import emit, format_statement
from ptxkit.ptx.parser import parse, parse_reference

HEAD = ".version 9.0\n.target sm_90\n.address_size 64\n"
CALLEES = (".visible .func (.param .b32 r) fa(.param .b32 a)\n{\n\tst.param.b32 [r], 1;\n\tret;\n}\n"
           ".visible .func (.param .b32 r) fb(.param .b32 a)\n{\n\tst.param.b32 [r], 2;\n\tret;\n}\n")


def kernel(body: str, head: str = HEAD) -> str:
    return (head + CALLEES + ".visible .entry k(.param .u32 k_p)\n{\n\t.reg .b32 %r<5>;\n\t.reg .b64 %rd<5>;\n"
            "\tld.param.u32 %r1, [k_p];\n" + body + "\n\tret;\n}\n")


def _flat(items: list) -> list:
    """Nodes in order with block boundaries as markers (== on 1,000 nested Blocks would recurse)."""
    out: list = []
    stack = [iter(items)]
    while stack:
        for x in stack[-1]:
            if isinstance(x, ir.Function):
                out.append(ir.Function(x.kind, x.name, x.params, x.ret_params, x.linkage, x.directives))
                stack.append(iter(x.body or []))
                break
            if isinstance(x, ir.Block):
                out.append(("{", x.span))
                stack.append(iter(x.body))
                break
            out.append(x)
        else:
            stack.pop()
            out.append("}")
    return out


def _parses_alike(src: str) -> ir.Module:
    """Parse with the fast path and with the grammar alone: the same IR, and --emit is identity."""
    m = parse(src, "t.ptx")
    assert _flat(parse_reference(src, "t.ptx").items) == _flat(m.items)
    assert emit(m) == src
    return m


def _directives(m: ir.Module) -> list[ir.Directive]:
    return [s for f in m.functions() for s in f.statements() if isinstance(s, ir.Directive)]


# ---------------------------------------------------------------- constructs ptxas accepts

JUMP_TABLE = kernel("$L_brx_0: .branchtargets\n\t\t$L1,\n\t\t$L2,\n\t\t$L3;\n\tbrx.idx \t%r1, $L_brx_0;\n"
                    "$L1:\n\tret;\n$L2:\n\tret;\n$L3:")
CALL_TARGETS = kernel("ctl: .calltargets fa, fb;\n\tmov.u64 %rd2, fa;\n"
                      "\t{\n\t.param .b32 pa;\n\t.param .b32 pr;\n\tst.param.b32 [pa], 1;\n"
                      "\tcall (pr), %rd2, (pa), ctl;\n\t}")
PROTOTYPES = [
    "(.param .b32 _) _ (.param .b32 _) .abi_preserve 8",
    "(.param .b32 _) _ (.param .b32 _) .abi_preserve 8 .abi_preserve_control 4",
    "_ (.param .b32 _) .noreturn .abi_preserve 8",
    "_ .noreturn",
    "(.param .b32 _) _",
    "_ ()",
]


def _prototype(p: str) -> str:
    return kernel(f"proto: .callprototype {p};\n\tmov.u64 %rd2, fa;")


ACCEPTED = {
    "brx.idx jump table": JUMP_TABLE,
    ".calltargets": CALL_TARGETS,
    **{f".callprototype {p}": _prototype(p) for p in PROTOTYPES},
    "blocks nested 1000 deep": kernel("\t" + "{\n" * 1000 + "\tadd.s32 %r2, %r1, 1;\n" + "}\n" * 1000),
    "\\x1a at the end": kernel("") + "\x1a",
    "\\x1a between operands": kernel("\tadd.s32 %r2,\x1a%r1, 1;"),
    "\\x1a after the opcode": kernel("\tadd.s32\x1a%r2, %r1, 1;"),
    "\\x1a before a directive": kernel("").replace(".target", "\x1a.target"),
    ".address_size 0x40": kernel("", HEAD.replace("64", "0x40")),
    ".address_size 64U": kernel("", HEAD.replace("64", "64U")),
    ".address_size 0b1000000": kernel("", HEAD.replace("64", "0b1000000")),
    "largest u64 literal": kernel("\tmov.u64 %rd1, 18446744073709551615;"),
}


@pytest.mark.parametrize("name", list(ACCEPTED))
def test_accepted_constructs_parse(name):
    m = _parses_alike(ACCEPTED[name])
    assert m.address_size == 64
    assert m.function("k") is not None and m.function("k").body


@needs_ptxas
@pytest.mark.parametrize("name", list(ACCEPTED))
def test_ptxas_accepts_them_too(name, tmp_path):
    err, stderr = _ours_and_ptxas(ACCEPTED[name], tmp_path)
    assert err is None
    assert "error" not in stderr, stderr


def test_jump_table_ir():
    m = parse(JUMP_TABLE)
    (d,) = _directives(m)
    assert (d.name, d.label, d.args) == ("branchtargets", "$L_brx_0", "$L1, $L2, $L3")
    brx = next(i for i in m.function("k").instructions() if i.opcode == "brx")
    assert brx.mods == ("idx",) and brx.operands == (ir.Reg("%r1"), ir.Sym("$L_brx_0"))
    # a new node prints in the form it was read in
    assert format_statement(d).strip() == "$L_brx_0: .branchtargets $L1, $L2, $L3;"
    (c,) = _directives(parse(CALL_TARGETS))
    assert (c.name, c.label, c.args) == ("calltargets", "ctl", "fa, fb")


def test_callprototype_attributes_kept():
    (d,) = _directives(parse(_prototype(PROTOTYPES[1])))
    assert (d.name, d.label) == ("callprototype", "proto")
    assert d.args == "(.param .b32 _) _ (.param .b32 _) .abi_preserve 8 .abi_preserve_control 4"


REJECTED = {
    # ptxas: syntax errors
    "module-level .callprototype": HEAD + "proto: .callprototype (.param .b32 _) _ (.param .b32 _);\n"
    + ".visible .entry k()\n{\n\tret;\n}\n",
    "module-level .calltargets": HEAD + CALLEES + "ctl: .calltargets fa;\n.visible .entry k()\n{\n\tret;\n}\n",
    ".maxnreg in a prototype": _prototype("_ (.param .b32 _) .maxnreg 8"),
    "empty .branchtargets": kernel("ts: .branchtargets ;\n$L1:"),
    # ptxas: "Constant overflow"
    "5000-digit literal": kernel("\tmov.u32 %r2, " + "9" * 5000 + ";"),
    "20-digit literal": kernel("\tmov.u64 %rd1, 99999999999999999999;"),
    "17-digit hex literal": kernel("\tmov.u64 %rd1, 0xfffffffffffffffff;"),
    "65-digit binary literal": kernel("\tmov.u64 %rd1, 0b1" + "0" * 64 + ";"),
    "register count over 32 bits": kernel("\t.reg .b32 %q<4294967296>;"),
    # ptxas: "Module-scoped variables in .reg state space are not allowed with ABI"
    "module-level .reg": HEAD + ".reg .b32 %r<5>;\n.visible .entry k()\n{\n\tret;\n}\n",
    # ptxas: "Illegal value for .address_size directive"
    ".address_size 1U": kernel("", HEAD.replace("64", "1U")),
    ".address_size 16": kernel("", HEAD.replace("64", "16")),
}


@pytest.mark.parametrize("name", list(REJECTED))
def test_rejected_with_a_location(name):
    src = REJECTED[name]
    with pytest.raises(PtxkitError) as e:
        parse(src, "t.ptx")
    d = e.value.first
    assert d.line >= 1 and d.col >= 1 and d.source_line == src.split("\n")[d.line - 1]


@needs_ptxas
@pytest.mark.parametrize("name", list(REJECTED))
def test_ptxas_rejects_them_too(name, tmp_path):
    err, stderr = _ours_and_ptxas(REJECTED[name], tmp_path)
    assert err is not None
    m = re.search(r"line (\d+)", stderr)
    assert m and err.first.line == int(m.group(1)), stderr


def test_literal_messages():
    for src, line, col, words in [(REJECTED["5000-digit literal"], 19, 15, "out of range"),
                                  (REJECTED[".address_size 1U"], 3, 15, "must be 32 or 64")]:
        with pytest.raises(PtxkitError) as e:
            parse(src, "t.ptx")
        d = e.value.first
        assert (d.line, d.col) == (line, col) and words in d.message
        assert len(e.value.render()) < 500  # the 5,000 digits are not echoed


def test_constant_expressions_are_64_bit():
    """ISA §4.6.2: constant expressions are evaluated in 64 bits — a huge shift is 0, not a
    number with 10**11 digits (which the old code tried to build)."""
    m = parse(kernel("\tmov.u64 %rd1, 1 << 100000000000;\n\tmov.u64 %rd2, 0xFFFFFFFFFFFFFFFF + 2;\n"
                     "\tmov.u64 %rd3, 0x7FFFFFFFFFFFFFFF * 4;\n\tmov.u64 %rd4, -1;"))
    movs = [i.operands[1] for i in m.function("k").instructions() if i.opcode == "mov"]
    assert movs == [ir.Imm(0), ir.Imm(1), ir.Imm(0xFFFFFFFFFFFFFFFC), ir.Imm(-1)]


def test_deep_blocks_are_iterated_and_printed():
    m = parse(ACCEPTED["blocks nested 1000 deep"])
    k = m.function("k")
    assert [i.opcode for i in k.instructions()] == ["ld", "add", "ret"]
    block = next(s for s in k.body if isinstance(s, ir.Block))
    text = format_statement(block)  # a pass re-printing the block
    assert text.count("{") == 1000 and "\t" * 1001 + "add.s32" in text


# ---------------------------------------------------------------- bounded error output

def test_error_output_is_capped_and_clipped(tmp_path, capsys):
    f = tmp_path / "p.ptx"
    f.write_text(HEAD + ")" * 20000 + "\n")
    assert main(["parse", str(f)]) == 2
    err = capsys.readouterr().err
    assert len(err) < 20_000  # the old code printed 601 MB
    assert err.count(": error: unexpected ')'") == MAX_DIAGNOSTICS
    assert "too many errors" in err
    assert max(len(line) for line in err.splitlines()) < 250
    assert f"{f}:4:1: error: unexpected ')'\n" in err


def test_clipped_line_keeps_the_caret_under_the_error():
    src = kernel("\tadd.s32 %r2, %r1, 1;" * 40 + "\tadd.s32 %r2, , 1;" + "\tadd.s32 %r2, %r1, 1;" * 40)
    with pytest.raises(PtxkitError) as e:
        parse(src, "t.ptx")
    head, text, caret = e.value.render().split("\n")[:3]
    assert head.endswith("error: unexpected ','")
    assert text[len(caret) - 1] == "," and text.startswith("...") and text.endswith("...")


# ---------------------------------------------------------------- inputs that are not files

def test_dev_zero_is_refused_up_front(capsys):
    assert main(["parse", "/dev/zero"]) == 2
    err = capsys.readouterr().err
    assert "ptxkit parse: error: /dev/zero: input does not end within the limit" in err


def test_size_limit_follows_the_memory_budget(tmp_path, capsys, monkeypatch):
    f = tmp_path / "k.ptx"
    f.write_text(kernel(""))
    monkeypatch.setenv("PTXKIT_MEMORY_BUDGET", "1K")
    assert main(["parse", str(f)]) == 2
    assert "over the limit of 32 bytes" in capsys.readouterr().err
    monkeypatch.setenv("PTXKIT_MEMORY_BUDGET", "1M")
    assert main(["parse", str(f)]) == 0


def test_directory_has_no_fake_location(tmp_path, capsys):
    assert main(["parse", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert f"ptxkit parse: error: {tmp_path}: is a directory" in err
    assert ":0:0" not in err


# ---------------------------------------------------------------- litmus

LITMUS = """PTX t
"a comment"
{
x=0;
}
 P0@cta 0,gpu 0 ;
 st.weak x, 1 ;
 st.bogus x, 2 ;
exists (x == 1)
"""


@pytest.mark.parametrize("sep", ["\x0c", "\u2028", "\r", "\x1c", "\x85"])
def test_litmus_diagnostics_echo_the_right_line(sep):
    src = LITMUS.replace("a comment", f"a{sep}comment")
    with pytest.raises(PtxkitError) as e:
        parse_litmus(src, "t.litmus")
    d = e.value.first
    assert (d.line, d.col) == (8, 2) and d.source_line == " st.bogus x, 2 ;"


@pytest.mark.parametrize("where", ["x\udcff=0;", "\"a \udcff comment\""])
def test_litmus_non_utf8_byte_is_located(where, tmp_path, capsys):
    f = tmp_path / "t.litmus"
    src = LITMUS.replace("x=0;", where) if where.startswith("x") else LITMUS.replace('"a comment"', where)
    f.write_bytes(src.encode("utf-8", "surrogateescape"))
    assert main(["explore", str(f)]) == 2
    err = capsys.readouterr().err
    line = 4 if where.startswith("x") else 2
    assert re.search(rf"t\.litmus:{line}:\d+: error: invalid UTF-8 byte 0xff", err), err


def _depth(f: cf.Formula) -> int:
    stack, deepest = [(f, 1)], 0
    while stack:
        node, d = stack.pop()
        deepest = max(deepest, d)
        stack.extend((c, d + 1) for c in cf.children(node))
    return deepest


def test_condition_with_1000_terms():
    for op, cls in (("/\\", cf.And), ("\\/", cf.Or)):
        f = parse_formula(f" {op} ".join(f"x != {i}" for i in range(1000)))
        assert isinstance(f, cls) and _depth(f) == 2
        assert [c.rhs for c in f.args] == [cf.Int(i) for i in range(1000)]  # every term, in order


def test_condition_nested_1000_deep():
    assert parse_formula("(" * 1000 + "x == 1" + ")" * 1000) == cf.Cmp("==", cf.Loc("x"), cf.Int(1))
    for deep in ("~" * 1000 + "x == 1", "(x == 1 /\\ ~" * 1000 + "y == 2" + ")" * 1000):
        with pytest.raises(PtxkitError) as e:
            parse_formula(deep)
        assert e.value.first.line == 1 and "nested too deeply" in e.value.first.message
    f = parse_formula("~" * (MAX_FORMULA_DEPTH - 1) + "x == 1")  # the bound itself is fine
    assert _depth(f) == MAX_FORMULA_DEPTH
    # a parenthesised chain of the same operator joins the outer one
    assert parse_formula("(x == 1 /\\ " * 1000 + "y == 2" + ")" * 1000) == parse_formula(
        " /\\ ".join(["x == 1"] * 1000 + ["y == 2"]))


def test_explore_with_a_1000_term_condition(tmp_path, capsys):
    f = tmp_path / "t.litmus"
    f.write_text(LITMUS.replace(" st.bogus x, 2 ;\n", "").replace(
        "exists (x == 1)", "forall (" + " \\/ ".join(f"x == {i}" for i in range(1, 1001)) + ")"))
    assert main(["explore", str(f)]) == 0
    assert "Ok" in capsys.readouterr().out


@needs_ptxas
def test_other_control_bytes_stay_errors(tmp_path):
    """ptxas reads \\x1a as white space, but not \\x01: both reject that one."""
    err, stderr = _ours_and_ptxas(kernel("\tadd.s32 %r2,\x01%r1, 1;"), tmp_path)
    assert err is not None and "syntax error" in stderr
