"""The Dat3M litmus importer: every public file imports; lowering checked against the files' text;
bad input gets FILE:LINE:COL."""

from __future__ import annotations

import pytest
from conftest import LITMUS_CORPUS, needs_shared, shared_files

from ptxkit.errors import PtxkitError
from ptxkit.explore.access import resolve
from ptxkit.explore.condition import from_tuple
from ptxkit.ir import Addr, Guard, Imm, Instruction, Label, Reg, Sym
from ptxkit.litmus.parser import parse_formula, parse_litmus

DAT3M = LITMUS_CORPUS / "litmus" / "PTX"
FILES = shared_files("**/*.litmus", DAT3M)


@needs_shared
def test_corpus_is_there():
    assert len(FILES) >= 190


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(DAT3M)))
def test_every_dat3m_file_imports(path):
    prog = parse_litmus(path.read_text(), str(path))
    assert prog.threads and prog.condition is not None
    # every column of the thread header became a thread, numbered in order
    assert [t.index for t in prog.threads] == list(range(len(prog.threads)))
    for th in prog.threads:
        for s in th.body:
            assert isinstance(s, (Instruction, Label))
            assert s.span is not None and s.span.line > 0
            # the span points at the litmus text of the instruction
            text = prog.source[s.span.start:s.span.end]
            if isinstance(s, Label):
                assert text == f"{s.name}:"
            elif s.opcode not in ("setp", "mov", "bra"):
                assert text.split()[0].split(".")[0] in (s.opcode, "cold", "ld", "st", "bar")


MP = """PTX MP-sys-fence
"comment line"
{ x=0; y=0; P1:r1=0; P1:r2=0; }
 P0@cta 0,gpu 0         | P1@cta 1,gpu 2         ;
 st.weak x, 1           | ld.relaxed.sys r1, y   ;
 fence.acq_rel.sys      | fence.acq_rel.sys      ;
 st.relaxed.sys y, 1    | ld.weak r2, x          ;
~exists
(P1:r1 == 1 /\\ P1:r2 != 1)
"""


def test_lowering_message_passing():
    p = parse_litmus(MP, "mp.litmus")
    assert p.name == "MP-sys-fence"
    assert (p.threads[1].cta, p.threads[1].gpu) == (1, 2)
    assert p.threads[1].init_regs == {"r1": 0, "r2": 0}
    assert {n: l.initial for n, l in p.locations.items()} == {"x": 0, "y": 0}
    t0 = p.threads[0].body
    assert t0 == [
        Instruction("st", ("weak", "global", "u32"), (Addr(Sym("x")), Imm(1))),
        Instruction("fence", ("acq_rel", "sys"), ()),
        Instruction("st", ("relaxed", "sys", "global", "u32"), (Addr(Sym("y")), Imm(1))),
    ]
    assert p.threads[1].body[0] == Instruction("ld", ("relaxed", "sys", "global", "u32"),
                                               (Reg("r1"), Addr(Sym("y"))))
    c = p.condition
    assert c.quantifier == "not exists"
    assert c.formula == from_tuple(("and", ("cmp", "==", ("reg", 1, "r1"), ("int", 1)),
                         ("cmp", "!=", ("reg", 1, "r2"), ("int", 1))))
    # spans: line/col of the text
    assert (t0[2].span.line, t0[2].span.col) == (7, 2)


def test_lowering_atomics_barriers_branches_aliases():
    src = """PTX all
{
x = 0;
y @ generic aliases x;
s2 @ surface aliases y;
c @ constant aliases x;
P0:r5 = &x;
}
 P0@cta 0,gpu 0                  | P1@cta 0,gpu 0     ;
 atom.acq_rel.gpu.cas r1, x, 0, 1 | LC00:             ;
 red.relaxed.cta.sub x, r1       | bar.cta.sync 1, r2, 3 ;
 bne r1, 0, LC00                 | bar.cta.arrive 2   ;
 LC00:                           | goto LC00          ;
 sust.weak s2, 3                 | cold.weak r4, c    ;
 fence.proxy.surface             | tld.weak r6, y     ;
 ld r7, 5                        | add r8, r6, 2      ;
 ld.const r9, c                  | ld.const.weak r9, c ;
exists (0:r1 = 1 /\\ ~(x == 2 \\/ P1:r8 >= 3))
"""
    p = parse_litmus(src, "all.litmus")
    b0, b1 = p.threads[0].body, p.threads[1].body
    assert b0[0] == Instruction("atom", ("acq_rel", "gpu", "global", "cas", "b32"),
                                (Reg("r1"), Addr(Sym("x")), Imm(0), Imm(1)))
    assert b0[1] == Instruction("red", ("relaxed", "cta", "global", "sub", "u32"), (Addr(Sym("x")), Reg("r1")))
    assert b0[2] == Instruction("setp", ("ne", "s32"), (Reg("p0"), Reg("r1"), Imm(0)))
    assert b0[3] == Instruction("bra", (), (Sym("LC00"),), guard=Guard("p0"))
    assert b0[4] == Label("LC00")
    assert b0[5] == Instruction("sust", ("weak", "global", "u32"), (Addr(Sym("s2")), Imm(3)))
    assert b0[6] == Instruction("fence", ("proxy", "surface"), ())
    assert b0[7] == Instruction("mov", ("u32",), (Reg("r7"), Imm(5)))
    assert b1[1] == Instruction("bar", ("cta", "sync"), (Imm(1), Reg("r2"), Imm(3)))
    assert b1[2] == Instruction("bar", ("cta", "arrive"), (Imm(2),))
    assert b1[3] == Instruction("bra", ("uni",), (Sym("LC00"),))
    assert b1[4] == Instruction("ld", ("weak", "const", "u32"), (Reg("r4"), Addr(Sym("c"))))
    assert b1[6] == Instruction("add", ("s32",), (Reg("r8"), Reg("r6"), Imm(2)))
    assert b0[8] == b1[7] == Instruction("ld", ("weak", "const", "u32"), (Reg("r9"), Addr(Sym("c"))))
    assert p.threads[0].init_regs == {"r5": "x"}
    locs = p.locations
    assert (locs["y"].alias_of, locs["y"].proxy) == ("x", "generic")
    assert (locs["s2"].alias_of, locs["s2"].proxy) == ("y", "surface")
    # ISA §8.6 / ISCA'22: a surface alias of the generic alias y reaches y's virtual address
    assert resolve(locs, "s2") == ("x", "y")
    assert resolve(locs, "y") == ("x", "y")
    assert resolve(locs, "c") == ("x", "x")
    f = p.condition.formula
    assert f == from_tuple(("and", ("cmp", "==", ("reg", 0, "r1"), ("int", 1)),
                            ("not", ("or", ("cmp", "==", ("loc", "x"), ("int", 2)),
                                     ("cmp", ">=", ("reg", 1, "r8"), ("int", 3))))))


def test_filter_forall_and_final():
    base = "PTX t\n{ x=0; }\n P0@cta 0,gpu 0 ;\n ld.weak r0, x ;\n"
    p = parse_litmus(base + "filter (P0:r0 == 0)\nforall (x == 0)\n", "t.litmus")
    assert p.condition.quantifier == "forall"
    assert p.condition.filter == from_tuple(("cmp", "==", ("reg", 0, "r0"), ("int", 0)))
    p = parse_litmus(base + "final (P0:r0 == 0) with ~exists\n", "t.litmus")
    assert p.condition.quantifier == "not exists"
    assert from_tuple(parse_formula("out[1] == 2 /\\ P0:r1 != 0")) == from_tuple((
        "and", ("cmp", "==", ("elem", "out", 1), ("int", 2)), ("cmp", "!=", ("reg", 0, "r1"), ("int", 0))))


BAD = [
    # (text, line, col, message fragment)
    ("PTX t\n{ x=0; }\n P0@cta 0,gpu 0 ;\n ld.bogus r0, x ;\nexists (P0:r0 == 0)\n", 4, 2, "semantics"),
    ("PTX t\n{ x=0; }\n P0@cta 0,gpu 0 ;\n ld.weak r0 ;\nexists (P0:r0 == 0)\n", 4, 2, "operands"),
    ("PTX t\n{ x=0; }\n P0@cta 0,gpu 0 ;\n frob x, 1 ;\nexists (P0:r0 == 0)\n", 4, 2, "unknown litmus instruction"),
    ("PTX t\n{ x=0; }\n P0@cta 0,gpu 0 ;\n st.weak x, 1 | st.weak x, 2 ;\nexists (x == 0)\n", 4, 2, "columns"),
    ("PTX t\n{ x=0; }\n P0@cta 0,gpu 0 ;\n goto LC07 ;\nexists (x == 0)\n", 4, 2, "undefined label"),
    ("PTX t\n{ x=0; }\n P0@cta 0,gpu 0 ;\n st.weak x, 1 ;\nexists (P0:r0 = = 0)\n", 5, 17, "operand"),
    ("PTX t\n{ x=0; }\n P0@cta 0,gpu 0 ;\n st.weak x, 1 ;\nexists (P3:r0 == 0)\n", 5, 9, "no thread P3"),
    ("PTX t\n{ x=0; y @ magic aliases x; }\n P0@cta 0,gpu 0 ;\n st.weak x, 1 ;\nexists (x == 1)\n", 2, 12, "proxy"),
    ("PTX t\n{ x=0\n P0@cta 0,gpu 0 ;\n", 3, 2, "missing '}'"),
    ("X86 t\n{ x=0; }\n", 1, 1, "not a PTX litmus"),
    ("PTX t\n{ x=0; }\n P0@cta 0,gpu 0 ;\n atom.relaxed.add r0, x, 1 ;\nexists (x == 1)\n", 4, 2, "scope"),
    ("PTX t\n{ x=0; }\n P0@cta 0,gpu 0 ;\n st.weak x, 1 \n", 5, 1, "missing ';'"),
]


@pytest.mark.parametrize("text,line,col,frag", BAD)
def test_bad_input_has_file_line_col(text, line, col, frag):
    with pytest.raises(PtxkitError) as ei:
        parse_litmus(text, "bad.litmus")
    d = ei.value.first
    assert (d.file, d.line, d.col) == ("bad.litmus", line, col), ei.value.render()
    assert frag in d.message
    assert ei.value.render().startswith(f"bad.litmus:{line}:{col}: error:")
