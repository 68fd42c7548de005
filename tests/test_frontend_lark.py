"""The fast path must build exactly the IR the grammar (ptxkit/grammar.lark) builds: compared on
every corpus file (nodes with ==, and every span), and on a sample of the 204k-line CUB file's
functions (the whole file through Lark alone takes minutes on this machine)."""

from __future__ import annotations

import pytest
from conftest import PTX_CORPUS, needs_shared, shared_files

from ptxkit import ir
from ptxkit.errors import PtxkitError
from ptxkit.ptx import lark_parser
from ptxkit.ptx.parser import decode, parse, parse_reference

ALL = [p for p in shared_files("**/*.ptx") if "thrust_big" not in p.name]


def _spans(items) -> list:
    out = []
    for it in items:
        out.append((type(it).__name__, it.span))
        if isinstance(it, ir.Function):
            out += [(type(p).__name__, p.span) for p in it.params + it.ret_params]
            out += [(type(d).__name__, d.span) for d in it.directives]
            out += _spans(it.body or [])
        elif isinstance(it, ir.Block):
            out += _spans(it.body)
    return out


def _id(p):
    return p.relative_to(PTX_CORPUS).as_posix()


@needs_shared
@pytest.mark.parametrize("path", ALL, ids=_id)
def test_fast_path_equals_grammar(path):
    src = decode(path.read_bytes())
    try:
        fast = parse(src, str(path))
    except PtxkitError as e:
        with pytest.raises(PtxkitError) as ref:
            parse_reference(src, str(path))
        # the reference stops at the first error; the fast path reports it first too
        assert (ref.value.first.line, ref.value.first.col) == (e.first.line, e.first.col)
        return
    ref = parse_reference(src, str(path))
    assert fast.items == ref.items
    assert _spans(fast.items) == _spans(ref.items)


@needs_shared
def test_fast_path_equals_grammar_on_cub_sample():
    path = PTX_CORPUS / "nvcc" / "thrust_big_sm90.ptx"
    src = decode(path.read_bytes())
    m = parse(src, str(path))
    fns = m.functions()
    assert len(fns) == 162
    sample = fns[::4] + [i for i in m.items if not isinstance(i, ir.Function)][:20]
    for node in sample:
        s = node.span
        got = lark_parser.parse_toplevel(src, s.start, s.end, s.line, s.col, str(path))
        assert got == [node]
        assert _spans(got) == _spans([node])


@pytest.mark.parametrize("lit", ["0.0", "-1.5", "1e3", ".25", "-.5e-2", "3.", "1E+10", "-0.0"])
def test_decimal_float_operands_fast_path_equals_grammar(lit):
    """Decimal literals (ISA §4.5.1: f64) are on the fast path; it builds what the grammar builds."""
    src = (".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\n\t.reg .f64 %fd<2>;\n"
           f"\tmov.f64 %fd0, {lit};\n\tadd.f64 %fd1, %fd0, {lit};\n\tret;\n}}\n")
    fast, ref = parse(src, "k.ptx"), parse_reference(src, "k.ptx")
    assert fast.items == ref.items and _spans(fast.items) == _spans(ref.items)
