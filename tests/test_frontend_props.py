"""Property tests of the front end (Hypothesis): (a) generated statements round-trip through the
canonical printer and the parser; (b) random mutations of corpus files only ever raise PtxkitError,
always with a line and a column: 2,000 in the default tier, 10,000 in the slow tier (likewise the fast
path against the grammar on damaged input: 1,000 and 3,000)."""

from __future__ import annotations

import re

import pytest
from conftest import shared_files
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ptxkit import ir
from ptxkit.errors import PtxkitError
from ptxkit.ptx.emit import emit, format_statement
from ptxkit.ptx.parser import parse, parse_reference

HEAD = ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k()\n{\n"
TAIL = "\n}\n"

regs = st.from_regex(r"%[a-z]{1,3}[0-9]{0,3}", fullmatch=True).map(ir.Reg)
syms = st.from_regex(r"[a-zA-Z][a-zA-Z0-9_$]{0,8}", fullmatch=True).map(ir.Sym)
imms = st.integers(-(2**63), 2**64 - 1).map(ir.Imm)
floats = st.one_of(st.builds(ir.FloatImm, st.integers(0, 2**32 - 1), st.just(32)),
                   st.builds(ir.FloatImm, st.integers(0, 2**64 - 1), st.just(64)))
addrs = st.one_of(st.builds(ir.Addr, st.one_of(regs, syms), st.integers(-2**31, 2**31)),
                  st.builds(ir.Addr, st.none(), st.integers(0, 2**31)))
scalars = st.one_of(regs, syms, imms, floats)
vecs = st.lists(st.one_of(regs, st.just(ir.Sink()), imms), min_size=1, max_size=4).map(
    lambda xs: ir.Vec(tuple(xs)))
pipes = st.builds(ir.Pipe, regs, regs)
nots = st.builds(ir.Not, regs)
operands = st.one_of(scalars, addrs, vecs, pipes, nots)
mods = st.lists(st.from_regex(r"[a-z0-9][a-z0-9_]{0,4}(::[a-z0-9_]{1,4})?", fullmatch=True), max_size=4)
opcodes = st.from_regex(r"[a-z][a-z0-9]{0,6}", fullmatch=True)
guards = st.one_of(st.none(), st.builds(ir.Guard, st.from_regex(r"%p[0-9]{1,2}", fullmatch=True),
                                        st.booleans()))


@st.composite
def instructions(draw):
    ops = draw(st.lists(operands, max_size=5))
    if draw(st.booleans()) and draw(st.booleans()):  # a call with parameter lists
        return ir.Instruction("call", ("uni",), (ir.ParamList(tuple(draw(st.lists(regs, max_size=2)))),
                                                 draw(syms), ir.ParamList(tuple(draw(st.lists(syms, max_size=3))))))
    return ir.Instruction(draw(opcodes), tuple(draw(mods)), tuple(ops), draw(guards))


def _one(text: str) -> ir.Instruction:
    m = parse(HEAD + text + TAIL)
    (i,) = list(m.functions()[0].instructions())
    return i


@settings(max_examples=400, derandomize=True, deadline=None)
@given(instructions())
def test_generated_statement_round_trips(inst):
    text = format_statement(inst)
    got = _one(text)
    assert got == inst
    src = HEAD + text + TAIL
    assert emit(parse(src)) == src
    # and the canonical text of the parsed node is a fixed point
    assert format_statement(got) == text


@settings(max_examples=150, derandomize=True, deadline=None)
@given(instructions(), st.lists(st.sampled_from([" ", "\t", "  ", " /* c */ "]), min_size=8, max_size=8))
def test_whitespace_and_comments_do_not_matter(inst, ws):
    text = format_statement(inst).strip()
    # re-space around punctuation (outside the opcode) and check the IR is unchanged
    head, _, rest = text.partition(" ")
    i = 0
    out = []
    for ch in rest:
        if ch in ",[]{}()|":
            out.append(ws[i % 8] + ch + ws[(i + 3) % 8])
            i += 1
        else:
            out.append(ch)
    spaced = head + " " + "".join(out) if rest else text
    spaced = re.sub(r"\+ *-", "+-", spaced)
    src = HEAD + "\t" + spaced + TAIL
    got = list(parse(src).functions()[0].instructions())
    ref = list(parse_reference(src).functions()[0].instructions())
    assert got == ref == [inst]


# ---------------------------------------------------------------- (b) mutations

SAMPLE = """.version 8.0
.target sm_90
.address_size 64
.global .align 4 .u32 tbl[3] = {1, 2, 3};
.visible .entry k(.param .u64 k_p, .param .u32 n)
.maxntid 128, 1, 1
{
\t.reg .pred %p<3>;
\t.reg .b32 %r<9>;
\t.reg .f32 %f<5>;
\t.reg .b64 %rd<5>;
\tld.param.u64 %rd1, [k_p];
\tmov.u32 %r1, %tid.x;
\tsetp.ge.u32 %p1|%p2, %r1, 64;
\t@%p1 bra $L__BB0_2;
\tmul.wide.u32 %rd2, %r1, 4;
\tadd.s64 %rd3, %rd1, %rd2;
\tld.global.v2.f32 {%f1, %f2}, [%rd3+-8];
\tadd.rn.f32 %f3, %f1, 0f3F800000;  // comment
\tcall.uni (%r2), f, (%r1, %r3);
\t{ .reg .b32 t; mov.b32 t, %r1; }
\tst.global.f32 [%rd3], %f3;
$L__BB0_2:
\tret;
}
"""
_TOKEN = re.compile(r"\s+|//[^\n]*|[%$.\w:]+|.", re.S)
GARBAGE = ["{", "}", "(", ")", "[", "]", ";", ",", "@", "!", "%", ".", ":", '"', "/*", "//", "0f",
           "0x", "<", ">", "|", "+", "-", "\n", "08", "0fZZ", ".reg", ".entry", "@!", "$", "\x00", "é",
           "\udcff", "=", "?", "_"]


def _sources() -> list[str]:
    out = [SAMPLE]
    for p in shared_files("**/*.ptx"):
        if p.stat().st_size < 2500 and "/pass/test/" not in p.as_posix():
            out.append(p.read_bytes().decode("utf-8", "surrogateescape"))
        if len(out) >= 40:
            break
    return out


SOURCES = _sources()


@st.composite
def mutated(draw):
    src = draw(st.sampled_from(SOURCES))
    toks = _TOKEN.findall(src)
    for _ in range(draw(st.integers(1, 3))):
        i = draw(st.integers(0, len(toks) - 1))
        kind = draw(st.integers(0, 2))
        if kind == 0:
            del toks[i]
        elif kind == 1:
            toks.insert(i, toks[i])
        else:
            toks[i] = draw(st.sampled_from(GARBAGE))
        if not toks:
            toks = [";"]
    return "".join(toks)


def _mutant_raises_only_located_errors(text: str) -> None:
    try:
        m = parse(text, "m.ptx")
    except PtxkitError as e:
        lines = text.split("\n")
        for d in e.diagnostics:
            assert d.line >= 1 and d.col >= 1
            assert d.line <= len(lines) and d.col <= len(lines[d.line - 1]) + 1
            assert d.source_line == lines[d.line - 1]
            assert d.render().startswith(f"m.ptx:{d.line}:{d.col}: error: ")
    else:
        assert emit(m) == text


def _fast_path_agrees_with_grammar(text: str) -> None:
    """On damaged input too, the fast path accepts exactly what the grammar accepts, with the same IR."""
    try:
        fast = parse(text)
    except PtxkitError:
        fast = None
    try:
        ref = parse_reference(text)
    except PtxkitError:
        ref = None
    assert (fast is None) == (ref is None)
    if fast is not None:
        assert fast.items == ref.items


def _mutation_property(check, examples: int):
    return settings(max_examples=examples, derandomize=True, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])(
        given(mutated())(check))


# the default tier keeps the README's `make test` under ten minutes on two cores; the slow tier runs the
# full counts
test_mutations_raise_only_ptxkit_errors_with_positions = _mutation_property(_mutant_raises_only_located_errors, 2000)
test_mutations_raise_only_ptxkit_errors_with_positions_10k = pytest.mark.slow(
    _mutation_property(_mutant_raises_only_located_errors, 10_000))
test_mutations_fast_path_and_grammar_agree = _mutation_property(_fast_path_agrees_with_grammar, 1000)
test_mutations_fast_path_and_grammar_agree_3k = pytest.mark.slow(
    _mutation_property(_fast_path_agrees_with_grammar, 3000))
