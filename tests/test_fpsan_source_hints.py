"""Source hints (``ptxkit.fpsan.source_hints``; docs/fpsan.md §3 "Folds", docs/cli.md ``--source-hints``):
the folds K J H whose PTX two sources share are decided by the Python source the ``.file``/``.loc``
debug lines name — hand-written kernels in Triton 3.9's shape (the columns Triton emits: a BinOp's or
Compare's first column, a ``.to()`` call's receiver start, 1-based) with a small kernel.py in tmp_path,
against the bits of docs/fpsan.md's vectors or the ring module; a stale, missing or unparsable source,
``--source-hints off`` and an explicit ``--fold`` keep today's behaviour."""

from __future__ import annotations

import ast
import struct
from pathlib import Path

import numpy as np
import pytest

from ptxkit.cli import main
from ptxkit.fpsan import ring as R
from tests.test_fpsan_folds import (
    HALF,
    MUL_2_HALF,
    ONE,
    SELF_ADD_HALF,
    SELF_ADD_ONE,
    SIGN,
    TWO,
    _errors,
    _items,
    _kernel,
    _run,
)
from tests.test_fpsan_half_to_int import HALVES, triton
from tests.test_fpsan_libdevice import DATA, _assert_bit_exact, _compare

SRC = """import triton
import triton.language as tl


@triton.jit
def k(x0_ptr, x1_ptr, out_ptr):
    x0 = tl.load(x0_ptr)
    x1 = tl.load(x1_ptr)
    r = EXPR
    tl.store(out_ptr, r.to(tl.float16))
"""
EXPR_LINE, STORE_LINE = 9, 10


def _with_source(tmp_path: Path, expr: str, body: str, anchor: str, nin: int = 1, w: int = 32,
                 out_w: int | None = None, file: str | None = None) -> str:
    """A kernel whose ``body`` lines ``.loc`` at ``anchor`` in ``r = EXPR`` (``{loc}``) or at the store's
    ``r.to(...)`` (``{store}``), and the kernel.py it names."""
    src = SRC.replace("EXPR", expr)
    (tmp_path / "kernel.py").write_text(src)
    lines = src.splitlines()
    col = lines[EXPR_LINE - 1].index(anchor) + 1 if anchor else 1
    store = lines[STORE_LINE - 1].index("r.to(") + 1
    text = _kernel(body.format(loc=f".loc 1 {EXPR_LINE} {col}", store=f".loc 1 {STORE_LINE} {store}"),
                   w=w, out_w=out_w, nin=nin)
    return text + f'\t.file\t1 "{file or tmp_path / "kernel.py"}"\n'


# ------------------------------------------------------------------------------ K: add x, x

K_BODY = "{loc}\n\tadd.f32 %d, %a, %a;"


@pytest.mark.parametrize("expr,severity", [("tl.where(x1 < x0, x0 * 2.0, x0 + x0.to(tl.float32))", "error"),
                                           ("tl.where(x1 < x0, x0 * 2.0, x0 + x0)", "error"),
                                           ("tl.where(x1 < x0, x0 * 2.0, 2.0 * x0)", "note")])
def test_self_add_of_both_arms_of_a_where_in_two_ring_forms_is_undecided(tmp_path, expr, severity):
    """``where(c, h * 2.0, h + h.to(f32))`` stored as f16 (hand kernel, silent: taken for the mul): LLVM makes both
    arms one ``add.f16 h, h`` and drops the select; Triton computes each arm in its own ring, so no one form is the
    add's: reported. Arms of one computation are that one."""
    text = _with_source(tmp_path, expr, "{loc}\n\tadd.f16 %d, %a, %a;", "x0 * 2.0", w=16)
    _, rep = _run(text, [[0x3E00]], w=16)
    assert [s for o, s in _items(rep) if o == "add.f16"] == [severity]


def test_inner_of_two_self_adds_at_one_location_is_undecided(tmp_path):
    """``((h.to(f32) * 2.0).to(f64).to(bf16) * 2.0)`` of a bf16 h (held-out seed 5719): LLVM narrows both
    products to ``add.bf16 x, x`` at the expression's location, whose node is the outer product; the inner one
    went through f32 and f64 in Triton's ring, which the location does not tell: reported, not the outer's form."""
    expr = "((x0.to(tl.float32) * 2.0).to(tl.float64).to(tl.bfloat16) * 2.0)"
    text = _with_source(tmp_path, expr, "{loc}\n\tadd.bf16 %h1, %a, %a;\n\tadd.bf16 %d, %h1, %h1;", "(x0", w=16)
    _, rep = _run(text, [[0x3F80]], w=16)
    assert [(i.line, i.severity) for i in rep.items if i.opcode == "add.bf16"] == [(rep.items[0].line, "error"),
                                                                                  (rep.items[0].line + 1, "note")]
    assert "self-add=mul2, decided by the source" in rep.items[1].reason


def test_inner_self_add_at_column_zero_of_the_outer_ones_line_is_undecided(tmp_path):
    """``2.0 * (x + -(x * -1.0))`` (held-out seed 12693, silent before): LLVM cancels the negations, x + x at the
    merged location 9:0, then doubles it at the expression's 9:C; the inner add is no x * 2.0 of the source (Triton's
    ring computes x − x·φ(−1)), so the outer expression must not decide it: reported; the outer one is the product."""
    expr = "2.0 * (x0 + (-(x0 * -1.0)))"
    body = f".loc 1 {EXPR_LINE} 0\n\tadd.f32 %r1, %a, %a;\n{{loc}}\n\tadd.f32 %d, %r1, %r1;"
    text = _with_source(tmp_path, expr, body, "2.0")
    _, rep = _run(text, [[ONE]])
    assert [i.severity for i in rep.items if i.opcode == "add.f32"] == ["error", "note"]
    assert "self-add=mul2, decided by the source" in rep.items[1].reason


# the other form on the operand cast to another type cannot be this add (held-out seed 19764: x0 * 2.0 beside
# x0.to(f64) + x0.to(f64), an add.f64 of its own); to the add's own type it can (held-out seed 14183)
@pytest.mark.parametrize("expr,decided", [("x0 * 2.0", True), ("(x0 * 2.0) - (x0.to(tl.float64) + x0.to(tl.float64))",
                                                              True),
                                          ("(x0 * 2.0) - (x0.to(tl.float32) + x0.to(tl.float32))", False),
                                          # narrowed back: LLVM may shrink it to an f32 add x, x
                                          ("(x0 * 2.0) - (x0.to(tl.float64) + x0.to(tl.float64)).to(tl.float32)",
                                           False),
                                          # the same form at f64 narrowed back: one add after LLVM's CSE, another
                                          # ring computation (held-out seed 24622, silent at first contact)
                                          ("(x0 * 2.0) - (x0.to(tl.float64) * 2.0).to(tl.float32)", False)])
def test_self_add_of_x_times_two_decided_by_the_source(tmp_path, expr, decided):
    text = _with_source(tmp_path, expr, K_BODY, "x0 * 2.0")
    out, rep = _run(text, [[HALF], [ONE]])
    if not decided:
        assert out == [SELF_ADD_HALF, SELF_ADD_ONE] and _items(rep) == [("add.f32", "error")]
        return
    assert out == [MUL_2_HALF, TWO]  # φ(x)·φ(2): the docs/fpsan.md vector mul(2.0, 0.5); φ(1)·φ(2) = φ(2)
    assert _items(rep) == [("add.f32", "note")]
    assert "self-add=mul2, decided by the source at kernel.py:9:" in rep.items[0].reason


@pytest.mark.parametrize("expr,decided", [("(x0.to(tl.float64) + x0.to(tl.float64)).to(tl.float32) * 3.0", True),
                                          ("(x0.to(tl.float64) + x0.to(tl.float64)).to(tl.float32) * (x0 + x0)",
                                           False)])
def test_widened_self_add_beside_the_lanes_own_is_undecided(tmp_path, expr, decided):
    """Held-out seed 160526 (silent at first contact, 61/128): ``(x.to(f64) + x.to(f64)).to(f16)`` beside ``x + x`` of
    an f16 x — LLVM shrinks the first to the second and its CSE makes them one add, at the widened one's location:
    the add's own location no longer decides (two ring computations read it). Alone, it is the f64 form."""
    text = _with_source(tmp_path, expr, K_BODY, "(x0.to(tl.float64)")
    _, rep = _run(text, [[HALF], [ONE]])
    said = [i for i in rep.items if i.opcode == "add.f32"]
    assert [i.severity for i in said] == (["note"] if decided else ["error"])
    assert ("self-add=add-f64, decided by the source" in said[0].reason) == decided


def test_self_add_of_a_narrowed_load_beside_the_loads_own_sum_is_decided(tmp_path):
    """``(x0 + x0) - (x0.to(f32) * 2.0)`` of an f64 x0 (held-out seed 27560): the PTX's ``add.f32 x, x`` reads
    ``cvt.rn.f32.f64`` of the load, so the source's uncast ``x0 + x0`` is the f64 sum (an add.f64 of its own), not
    another form of this add: the product decides it. With an f32 load (no narrowing) the two stay ambiguous."""
    expr = "(x0 + x0) - (x0.to(tl.float32) * 2.0)"
    body = "{loc}\n\tcvt.rn.f32.f64 %r1, %a;\n\tadd.f32 %d, %r1, %r1;"
    text = _with_source(tmp_path, expr, body, "x0.to", w=64, out_w=32)
    one, half = 0x3FF0000000000000, 0x3FE0000000000000
    out, rep = _run(text, [[one], [half]], w=64, out_w=32)
    said = [i for i in rep.items if i.opcode == "add.f32"]
    assert [i.severity for i in said] == ["note"] and "self-add=mul2, decided by the source" in said[0].reason
    assert out == _run(text, [[one], [half]], w=64, out_w=32, folds=(("self-add", "mul2"),))[0]
    assert out != _run(text, [[one], [half]], w=64, out_w=32, folds=(("self-add", "add"),))[0]
    out, rep = _run(_with_source(tmp_path, expr, K_BODY, "x0.to"), [[HALF]])
    assert out == [SELF_ADD_HALF] and _items(rep) == [("add.f32", "error")]


def test_self_add_of_x_plus_x_decided_by_the_source(tmp_path):
    text = _with_source(tmp_path, "(x0 + x0)", K_BODY, "x0 + x0")
    out, rep = _run(text, [[HALF], [ONE]])
    want = R.float_binop("add", np.array([HALF, ONE], np.uint64), np.array([HALF, ONE], np.uint64), "f32")
    assert out == [int(v) for v in want] and out[1] != TWO  # ring 2φ(x), not φ(2.0)
    assert _items(rep) == [("add.f32", "note")] and "self-add=add, decided by the source" in rep.items[0].reason


@pytest.mark.parametrize("expr,anchor", [("x0 * 3.0", "x0"), ("x0 + x1", "x0"), ("x0 * 2.0", "2.0"),
                                         ("tl.sqrt(x0)", "tl"),
                                         # both forms on one operand: LLVM's CSE makes them one add x, x
                                         # (held-out seed 2363: (s + s) / (s * 2.0) as div t, t)
                                         ("(x0 + x0) / (x0 * 2.0)", "x0 + x0"), ("(x0 * 2.0) - (x0 + x0)", "x0 *")])
def test_self_add_with_a_stale_source_stays_undecided(tmp_path, expr, anchor):
    """The node at the ``.loc`` does not agree with ``add x, x`` (an edited file, a column on the
    constant, another expression): the default (the PTX as written, x + x) and an error, as without a
    source."""
    out, rep = _run(_with_source(tmp_path, expr, K_BODY, anchor), [[HALF]])
    assert out == [SELF_ADD_HALF] and _items(rep) == [("add.f32", "error")]


def test_missing_or_unparsable_source_keeps_the_error(tmp_path):
    text = _with_source(tmp_path, "(x0 + x0)", K_BODY, "x0 + x0", file=str(tmp_path / "gone" / "kernel.py"))
    assert _items(_run(text, [[HALF]])[1]) == [("add.f32", "error")]
    text = _with_source(tmp_path, "(x0 + x0)", K_BODY, "x0 + x0")
    (tmp_path / "kernel.py").write_text("def k(:\n")
    out, rep = _run(text, [[HALF]])
    assert out == [SELF_ADD_HALF] and _items(rep) == [("add.f32", "error")]


def test_a_cu_source_is_not_read(tmp_path):
    (tmp_path / "k.cu").write_text("x0 + x0\n")
    text = _kernel(".loc 1 1 1\n\tadd.f32 %d, %a, %a;", nin=1) + f'\t.file\t1 "{tmp_path / "k.cu"}"\n'
    assert _items(_run(text, [[HALF]])[1]) == [("add.f32", "error")]


def test_stated_fold_wins_and_hints_can_be_turned_off(tmp_path):
    text = _with_source(tmp_path, "(x0 + x0)", K_BODY, "x0 + x0")
    out, rep = _run(text, [[HALF]], folds=(("self-add", "mul2"),))
    assert out == [MUL_2_HALF] and _items(rep) == [("add.f32", "note")] and "stated" in rep.items[0].reason
    out, rep = _run(text, [[HALF]], source_hints=False)
    assert out == [SELF_ADD_HALF] and _items(rep) == [("add.f32", "error")]


def test_source_root_finds_a_moved_source(tmp_path):
    """``.file`` names a path that no longer exists; under ``source_root`` its longest existing suffix."""
    text = _with_source(tmp_path / "", "(x0 + x0)", K_BODY, "x0 + x0", file="/build/host/abc123/kernel.py")
    (tmp_path / "abc123").mkdir()
    (tmp_path / "kernel.py").rename(tmp_path / "abc123" / "kernel.py")
    (tmp_path / "kernel.py").write_text(SRC.replace("EXPR", "x0 * 2.0"))  # a shorter suffix: not taken
    assert _items(_run(text, [[HALF]])[1]) == [("add.f32", "error")]
    out, rep = _run(text, [[HALF]], source_root=str(tmp_path))
    assert out[0] != MUL_2_HALF and _items(rep) == [("add.f32", "note")]


def test_cli_source_hints_options(tmp_path, capsys):
    text = _with_source(tmp_path, "(x0 + x0)", K_BODY, "x0 + x0")
    (tmp_path / "k.ptx").write_text(text)
    assert main(["sanitize", str(tmp_path / "k.ptx"), "--strict", "-o", str(tmp_path / "o.ptx")]) == 0
    off = ["sanitize", str(tmp_path / "k.ptx"), "--strict", "--source-hints", "off", "-o", str(tmp_path / "o.ptx")]
    assert main(off) == 2 and "error: not Triton-exact: add.f32" in capsys.readouterr().err
    (tmp_path / "m.ptx").write_text(text.replace(str(tmp_path / "kernel.py"), "/gone/kernel.py"))
    moved = ["sanitize", str(tmp_path / "m.ptx"), "--strict", "-o", str(tmp_path / "o.ptx")]
    assert main(moved) == 2 and "self-add=add|mul2" in capsys.readouterr().err
    assert main([*moved, "--source-root", str(tmp_path)]) == 0


# ------------------------------------------------------------------------------ J: the sign xor of a cvt

J_BODY = "{loc}\n\tcvt.rn.f16.f32 %h1, %a;\n\t{store}\n\txor.b16 %d, %h1, -32768;"  # the xor: the store's .loc
XS = [0x40490FDB, 0xC0A00000, 0x3DCCCCCD]  # π, −5, 0.1: narrowing folds with nonzero discarded bits
AFTER = [int(R.float_cast(np.array([x], np.uint64), "f32", "f16")[0]) ^ 0x8000 for x in XS]
BEFORE = [int(R.float_cast(np.array([x ^ SIGN], np.uint64), "f32", "f16")[0]) for x in XS]


@pytest.mark.parametrize("expr,anchor,want,form", [("(-x0).to(tl.float16)", "(-x0)", BEFORE, "before"),
                                                   ("(-x0.to(tl.float16))", "x0.to", AFTER, "after"),
                                                   # a reduction keeps its input's type (held-out seed 1850)
                                                   ("(-tl.cumsum(x0, axis=0)).to(tl.float16)", "(-tl", BEFORE,
                                                    "before"),
                                                   # arithmetic on loaded values alone (seed 1821)
                                                   ("((x0 / x1) * -1.0).to(tl.float16)", "((x0", None, "before"),
                                                   # and reduced (held-out seed 22361, reported before)
                                                   ("(tl.sum(x0 / x1, axis=0) * -1.0).to(tl.float16)", "(tl.sum",
                                                    None, "before"),
                                                   # and through tl math (held-out seed 23360, reported before)
                                                   ("(-(tl.cos(x0) / x1)).to(tl.float16)", "(-(tl", None, "before"),
                                                   # a libdevice call (held-out seed 24477, reported before)
                                                   ("(libdevice.tanh(x0 / x1) * -1.0).to(tl.float16)", "(libdevice",
                                                    None, "before"),
                                                   # a transcendental of a cast: never narrowed by LLVM, so of the
                                                   # cvt's source type (held-out seed 30958, reported before)
                                                   ("(-tl.cos(x0 / x1 - x1.to(tl.float32))).to(tl.float16)", "(-tl",
                                                    None, "before")])
def test_neg_cast_decided_by_the_source(tmp_path, expr, anchor, want, form):
    """The cvt's ``.loc`` is its ``.to()`` call: a negated receiver is ``(-x).to(T)`` (the ring cast of
    −φ(x)), a call under a unary minus ``-(x.to(T))`` (the ring negation of the cast)."""
    assert AFTER != BEFORE
    if want is None:  # the cvt reads the quotient: x0 here, with x1 = 1.0
        out, rep = _run(_with_source(tmp_path, expr, J_BODY, anchor, out_w=16, nin=2), [[x, ONE] for x in XS],
                        out_w=16)
        want = BEFORE
    else:
        out, rep = _run(_with_source(tmp_path, expr, J_BODY, anchor, out_w=16), [[x] for x in XS], out_w=16)
    assert out == want and [s for o, s in _items(rep) if o == "xor.b16"] == ["note"]
    assert f"neg-cast={form}, decided by the source" in rep.items[0].reason


@pytest.mark.parametrize("expr,want,form", [("x0.to(tl.float16) * (-x0).to(tl.float16)", BEFORE, "before"),
                                            ("x0.to(tl.float16) * (-x0.to(tl.float16))", AFTER, "after")])
def test_neg_cast_decided_at_the_negs_own_location(tmp_path, expr, want, form):
    """The cvt LLVM shares with the line's plain ``x.to(f16)`` carries that one's location; the ``neg`` carries its own
    (held-out seed 216044: ``(-x).to(f32)`` of an f64 x beside ``x.to(f32)``, reported before): a cast of a negation
    there is ``before``, a negation of a cast ``after``."""
    col = 9 + expr.index("(-x0" if form == "before" else "-x0")  # (the Call of a parenthesised receiver, the UnaryOp)
    body = "{loc}\n\tcvt.rn.f16.f32 %h1, %a;\n\t.loc 1 9 " + str(col) + "\n\tneg.f16 %d, %h1;"
    out, rep = _run(_with_source(tmp_path, expr, body, "x0.to", out_w=16), [[x] for x in XS], out_w=16)
    assert out == want and [s for o, s in _items(rep) if o == "neg.f16"] == ["note"]
    assert f"neg-cast={form}, decided by the source" in next(i.reason for i in rep.items if i.opcode == "neg.f16")


def test_neg_cast_of_an_extremum_with_an_f64_operand_is_before(tmp_path):
    """``(-maximum(x0 / x1, x1.to(f64))).to(f32)`` (held-out seed 30772, reported before): one operand of unknown type
    beside an explicit f64 makes the maximum f64, so the negation is of the f64 value the cvt narrows: the ring cast
    of −φ(x)."""
    xs = [0x400921FB54442D18, 0xC014000000000000, 0x3FB999999999999A]  # π, −5, 0.1 as f64
    body = "{loc}\n\tcvt.rn.f32.f64 %r1, %a;\n\t{store}\n\txor.b32 %d, %r1, -2147483648;"
    expr = "(-tl.maximum(x0 / x1, x1.to(tl.float64))).to(tl.float32)"
    out, rep = _run(_with_source(tmp_path, expr, body, "(-tl", nin=2, w=64, out_w=32),
                    [[x, 0x3FF0000000000000] for x in xs], w=64, out_w=32)
    assert out == [int(R.float_cast(np.array([x ^ (1 << 63)], np.uint64), "f64", "f32")[0]) for x in xs]
    assert "neg-cast=before, decided by the source" in next(i.reason for i in rep.items if i.opcode == "xor.b32")


@pytest.mark.parametrize("expr,anchor,error", [("x0.to(tl.float32) < (x0.to(tl.float32) + x0.to(tl.float32))",
                                                 "x0.to", True),
                                                ("x0 < -0.0", "x0 <", False)])
def test_comparison_with_a_constant_the_source_does_not_have_is_reported(tmp_path, expr, anchor, error):
    """A comparison of two expressions that is ``setp.lt.f64 p, x, c`` in the PTX is LLVM's algebra on native floats,
    which Triton's ring casts and arithmetic do not follow: left native with an error (held-out seed 11701 was silent;
    its ``x.to(f32) < -x.to(f32)`` is rebuilt now, test_comparison_with_its_own_negation). A source that compares
    with a number there is the comparison as written."""
    body = "{loc}\n\tsetp.lt.f64 %p1, %a, 0dB690000000000000;\n\tselp.b64 %d, 1, 0, %p1;"
    out, rep = _run(_with_source(tmp_path, expr, body, anchor, w=64, nin=1), [[0xBFF0000000000000]], w=64)
    assert out == [1]
    assert [s for o, s in _items(rep) if o == "setp.lt.f64"] == (["error"] if error else ["note"])


@pytest.mark.parametrize("expr,ptx,cmp", [("x0.to(tl.float32) < (-x0.to(tl.float32))", "lt", "lt"),
                                          ("x0.to(tl.float32) < (-x0.to(tl.float32))", "geu", "lt"),  # inverted
                                          ("(-x0.to(tl.float16)) >= x0.to(tl.float16)", "le", "ge"),
                                          ("(-x0) > x0", "lt", "gt")])
def test_comparison_with_its_own_negation(tmp_path, expr, ptx, cmp):
    """``x.to(T) < -x.to(T)`` of an f64 x (held-out seed 11701) is ``setp.lt.f64 p, x, -2^-150`` in the PTX: LLVM's
    algebra on the native cast. Triton narrows φ(x) in the ring, negates there and compares the two floats: rebuilt
    so, in the source's sense (LLVM may invert the setp for its select: ``geu``)."""
    import operator
    body = f"{{loc}}\n\tsetp.{ptx}.f64 %p1, %a, 0dB690000000000000;\n\tselp.b64 %d, 1, 0, %p1;"
    xs = [0xBFF0000000000000, 0x3FF0000000000000, 0, 1 << 63, 0x3E70000000000000, 0xB690000000000000]
    out, rep = _run(_with_source(tmp_path, expr, body, "x0" if expr.startswith("x0") else "(-x0", w=64, nin=1),
                    [[x] for x in xs], w=64)
    t = "f16" if "float16" in expr else "f32" if "float32" in expr else "f64"
    a = R.float_cast(np.array(xs, np.uint64), "f64", t) if t != "f64" else np.array(xs, np.uint64)
    neg = R.float_unop("neg", a, t)
    dt = {"f16": np.float16, "f32": np.float32, "f64": np.float64}[t]
    ui = {"f16": np.uint16, "f32": np.uint32, "f64": np.uint64}[t]
    fa, fn = a.astype(ui).view(dt), neg.astype(ui).view(dt)
    left, right = (fa, fn) if expr.startswith("x0") else (fn, fa)
    want = getattr(operator, cmp)(left, right)
    assert out == [int(v) if ptx != "geu" else int(not v) for v in want]
    assert [s for o, s in _items(rep) if o == f"setp.{ptx}.f64"] == ["note"]


def test_neg_cast_of_an_fma_of_unknown_operand_types_is_before(tmp_path):
    """``(-tl.fma(w, x0 / x0, x1)).to(f16)`` (held-out seed 11293): ``x0 / x0`` of a loaded value has no known
    type in the source, but the cvt converts an ``fma.f32``, which LLVM never narrows from f64: the negation
    was of the f32 fma, before the cast (ring cast of −φ(fma)); a ``mul`` in the PTX in its place says nothing."""
    expr = "(-tl.fma(tl.where(x0 > x1, x0.to(tl.float16).to(tl.float32), x0), x0 / x0, x1)).to(tl.float16)"
    body = "{loc}\n\tfma.rn.f32 %t, %a, %b, %a;\n\tcvt.rn.f16.f32 %h1, %t;\n\t{store}\n\txor.b16 %d, %h1, -32768;"
    rows = [[x, ONE] for x in XS]
    out, rep = _run(_with_source(tmp_path, expr, body, "(-tl", out_w=16, nin=2), rows, out_w=16)
    a = np.array(XS, np.uint64)
    fma = R.unembed(R.fma(R.embed(a, "f32"), R.embed(np.full(3, ONE, np.uint64), "f32"), R.embed(a, "f32"), 64), "f32")
    want = [int(v) for v in R.float_cast(R.float_unop("neg", fma, "f32"), "f32", "f16")]
    assert out == want and [s for o, s in _items(rep) if o == "xor.b16"] == ["note"]
    assert "neg-cast=before, decided by the source" in next(i.reason for i in rep.items if i.opcode == "xor.b16")
    mul = body.replace("fma.rn.f32 %t, %a, %b, %a", "mul.f32 %t, %a, %b")
    _, rep = _run(_with_source(tmp_path, expr, mul, "(-tl", out_w=16, nin=2), rows, out_w=16)
    assert [s for o, s in _items(rep) if o == "xor.b16"] == ["error"]


@pytest.mark.parametrize("expr,narrow", [("(-x0) * (x1.to(tl.float32) * x1) + 1.0", True),  # held-out seed 7005
                                         ("x0 * (-(x1.to(tl.float32) * x1)) + 1.0", False)])
def test_negation_moved_onto_the_other_factor_is_negated_in_the_half(tmp_path, expr, narrow):
    """``(-h) * y + 1.0`` of a half h and an f32 y, which LLVM computes as fma(-y, h.to(f32), 1.0): Triton negates
    in h's 16-bit ring and widens, which differs at h = -0; a source negation of y stays as written."""
    body = ("{loc}\n\tcvt.f32.f16 %r1, %a;\n\tcvt.f32.f16 %r2, %b;\n\tmul.f32 %r5, %r2, %r2;\n\t"
            "neg.f32 %r3, %r5;\n\tfma.rn.f32 %r4, %r3, %r1, 0f3F800000;\n\tmov.b32 %d, %r4;")
    text = _with_source(tmp_path, expr, body, expr[:4], nin=2, w=16, out_w=32)
    hs, y = [0x8000, 0x3C00, 0xC000], 0x4000
    out, rep = _run(text, [[h, y] for h in hs], w=16, out_w=32)
    e16 = lambda v: int(R.embed(np.array([v], np.uint64), "f16")[0])  # noqa: E731
    u32 = lambda p: int(R.unembed(np.array([p % (1 << 32)], np.uint64), "f32")[0])  # noqa: E731
    h_of = (lambda h: _sext16((-e16(h)) % (1 << 16))) if narrow else (lambda h: -_sext16(e16(h)))
    want = [u32(h_of(h) * _sext16(e16(y)) ** 2 + 1) for h in hs]  # φ(1.0) = 1
    assert out == want and not rep.errors


def test_negation_of_the_unwidened_factor_stays_where_the_source_has_it(tmp_path):
    """``x1.to(f32) * (-x0)`` of a half x1 and an f32 x0 (held-out seed 68499, silent at x1 = −0.0): the PTX's
    ``mul(neg(x0), cvt(x1))`` has the shape of ``(-h) * y`` with the negation moved onto y, but here the widening is
    the source's own other factor and the negation stayed on x0: the ring product as written, nothing to say."""
    body = "{loc}\n\tcvt.u16.u32 %h1, %b;\n\tcvt.f32.f16 %r1, %h1;\n\tneg.f32 %r3, %a;\n\tmul.f32 %d, %r3, %r1;"
    text = _with_source(tmp_path, "x1.to(tl.float32) * (-x0)", body, "x1.to", nin=2)
    rows = [[0x3FC00000, 0x8000], [0x3FC00000, 0xC000]]
    out, rep = _run(text, rows)
    e = lambda v, t: R.embed(np.array([v], np.uint64), t)  # noqa: E731
    want = [int(R.unembed(R.mul(R.neg(e(x, "f32"), 32), R.sext(e(h, "f16"), 16, 32), 32), "f32")[0]) for x, h in rows]
    assert out == want and not rep.errors
    assert not [i for i in rep.items if "moved onto the other factor" in i.reason]
    _assert_bit_exact("seed68499", folds=())


def test_negated_product_sharing_a_negation_with_another_product_is_the_ring_product(tmp_path):
    """``(-x0) * 3.0 + (-(x1.to(f32) * x0))`` of a half x1 and an f32 x0 (held-out seed 68925, silent at x1 = −0.0):
    LLVM computes the first term as ``mul(cvt(x1), neg(x0))`` with the neg it shares with ``(-x0) * 3.0``. The mul's
    own location is ``-(… * x0)``, whose ring value is the product of the widening and −φ(x0); the neg's location (the
    other product, whose -x0 reads as ``(-h) * y``) is not this product's: no negation moved into the half."""
    expr = "(-x0) * 3.0 + (-(x1.to(tl.float32) * x0))"
    line = SRC.replace("EXPR", expr).splitlines()[EXPR_LINE - 1]
    at = lambda a: f".loc 1 {EXPR_LINE} {line.index(a) + 1}"  # noqa: E731
    body = (f"{at('(-x0)')}\n\tneg.f32 %r3, %a;\n\tmul.f32 %r4, %r3, 0f40400000;\n"
            f"{at('-(x1')}\n\tcvt.u16.u32 %h1, %b;\n\tcvt.f32.f16 %r1, %h1;\n\tmul.f32 %r5, %r1, %r3;\n"
            f"{at('+ (-(')}\n\tadd.f32 %d, %r4, %r5;")
    text = _with_source(tmp_path, expr, body, "", nin=2)
    rows = [[0x3FC00000, 0x8000], [0x3FC00000, 0xC000], [0xBF800000, 0x8000]]
    out, rep = _run(text, rows)
    e = lambda v, t: R.embed(np.array([v], np.uint64), t)  # noqa: E731
    want = [int(R.unembed(R.add(R.mul(R.sext(e(h, "f16"), 16, 32), R.neg(e(x, "f32"), 32), 32),
                                R.mul(R.neg(e(x, "f32"), 32), e(0x40400000, "f32"), 32), 32), "f32")[0])
            for x, h in rows]
    assert out == want and not rep.errors
    assert not [i for i in rep.items if "moved onto the other factor" in i.reason]


@pytest.mark.parametrize("source", [True, False])
def test_sign_bit_and_of_an_int_conversion_is_zero_times_x(tmp_path, source):
    """``0.0 * i.to(f32)`` (held-out seed 7517): LLVM's copysign(0.0, x) as ``and.b32 d, x, 0x80000000`` at an inner
    cast's column; the enclosing product decides Triton's ring φ(0)·φ(x) = 0 (+0.0). Without a source: native,
    an error."""
    body = "{loc}\n\tcvt.rzi.s32.f32 %r1, %a;\n\tcvt.rn.f32.s32 %r2, %r1;\n\tand.b32 %d, %r2, -2147483648;"
    text = _with_source(tmp_path, "0.0 * x0.to(tl.int32).to(tl.float32)", body, "x0.to")
    if not source:
        text = text.replace(".file", "// .file")
    xs = [0xC0490FDB, 0x40490FDB]  # -π, π
    out, rep = _run(text, [[x] for x in xs])
    assert out == ([0, 0] if source else [SIGN, 0])
    assert [s for o, s in _items(rep) if o == "and.b32"] == (["note"] if source else ["error"])


def test_negation_of_a_cast_read_by_an_fma_with_an_immediate_sanitizes(tmp_path):
    """The fma reading the negation may multiply by an immediate (held-out seed 6928: ``tanh(x.to(f64)) * 2.0 -
    x.to(f64)`` as fma(t, 2.0, -x)): the reader check takes registers only (it raised TypeError)."""
    body = ("{loc}\n\tcvt.f64.f32 %e1, %a;\n\tneg.f64 %e2, %e1;\n\tfma.rn.f64 %e3, %e2, 0d4000000000000000, %e1;\n\t"
            "cvt.rn.f32.f64 %d, %e3;")
    text = _with_source(tmp_path, "x0.to(tl.float64) - x0.to(tl.float64) * 2.0", body, "x0")
    out, _ = _run(text, [[TWO]])
    p = int(R.float_cast(np.array([TWO], np.uint64), "f32", "f64")[0])
    e = int(R.embed(np.array([p], np.uint64), "f64")[0])
    two = int(R.embed(np.array([0x4000000000000000], np.uint64), "f64")[0])
    want = int(R.unembed(np.array([(e - e * two) % (1 << 64)], np.uint64), "f64")[0])
    assert out == [int(R.float_cast(np.array([want], np.uint64), "f64", "f32")[0])]


SELECT_XOR_BODY = ("{loc}\n\tcvt.rn.f16.f32 %h1, %a;\n\tcvt.rn.f16.f32 %h2, %b;\n\tsetp.lt.f32 %p1, %a, %b;\n\t"
                   "selp.b16 %h3, %h1, %h2, %p1;\n\t{store}\n\txor.b16 %d, %h3, -32768;")


_ARMS = "tl.where(x0 < x1, x0.to(tl.float32), x1.to(tl.float32))"


@pytest.mark.parametrize("expr,before", [(f"-{_ARMS}", True),  # held-out seed 6284
                                         (f"-({_ARMS}.to(tl.float16))", False)])
def test_negation_moved_past_a_narrowing_through_a_select_is_tritons_per_arm(tmp_path, expr, before):
    """``(-where(c, a, b)).to(f16)`` of f32 a, b, which LLVM computes as the sign xor of a select of the narrowed
    arms: Triton narrows the f32 ring's negation, which the 16-bit ring's negation of the narrowed value is not
    (held-out seed 6284: reported before); sanitized as that narrowing of the selected arm's negation
    (:mod:`ptxkit.fpsan.fold_negated_promoted_select`), and where the source negates after the cast as the xor's
    ring negation. A note either way."""
    text = _with_source(tmp_path, expr, SELECT_XOR_BODY, "tl.where", nin=2, out_w=16)
    # 2.0 < π: the select takes a = 2.0, whose narrowed negation and negated narrowing differ in the ring
    out, rep = _run(text, [[TWO, 0x40490FDB]], out_w=16)
    assert [s for o, s in _items(rep) if o == "xor.b16"] == ["note"]
    if before:
        want = R.float_cast(R.unembed(R.neg(R.embed(np.array([TWO], np.uint64), "f32"), 32), "f32"), "f32", "f16")
    else:
        half = R.embed(R.float_cast(np.array([TWO], np.uint64), "f32", "f16"), "f16")
        want = R.unembed(R.neg(half, 16), "f16")
    assert out == [int(want[0])]


@pytest.mark.parametrize("arms,noted", [("x0.to(tl.float32), x1.to(tl.float32)", True),
                                        ("x0.to(tl.float32) * 3.0, x1.to(tl.float32)", False)])  # seed 6284's kind
def test_negated_select_of_widened_halves_narrowed_back_is_the_wide_ring_negation(tmp_path, arms, noted):
    """``(-where(c, x0.to(f32), x1.to(f32))).to(f16)`` of halves (held-out seed 21794, f32 arms widened to f64,
    reported before): LLVM selects the halves and flips the sign bit; Triton negates the widening in the f32 ring
    and narrows it, which is the half ring's negation except at −0 (its wide negation is no sign extension):
    computed so, a note. Where an arm is wide arithmetic (which LLVM's select of halves does not compute), an
    error as before."""
    body = "{loc}\n\tsetp.lt.f16 %p1, %a, %b;\n\tselp.b16 %h3, %a, %b, %p1;\n\t{store}\n\txor.b16 %d, %h3, -32768;"
    text = _with_source(tmp_path, f"-tl.where(x0 < x1, {arms})", body, "tl.where", nin=2, w=16, out_w=16)
    rows = [[0x8000, 0x3C00], [0xC000, 0x3C00], [0x3C00, 0x0000]]
    out, rep = _run(text, rows, w=16, out_w=16)
    chosen = np.array([0x8000, 0xC000, 0x0000], np.uint64)  # x0 < x1 picks −0, −2, then x1 = +0
    wide = R.embed(R.float_cast(chosen, "f16", "f32"), "f32")
    want = [int(v) for v in R.float_cast(R.unembed((-wide.astype(np.int64)) % (1 << 32), "f32"), "f32", "f16")]
    assert [i for i in _items(rep) if i[0] == "xor.b16"] == [("xor.b16", "note" if noted else "error")]
    if noted:
        assert out == want and out[0] != 0x8000  # the half ring's negation keeps −0
    else:
        assert out[0] == 0x8000


def test_negated_widening_narrowed_then_cast_again_is_not_taken_for_the_outer_cast(tmp_path):
    """``r = (-x0.to(f64)).to(f16)`` stored as ``r.to(bf16)`` (held-out seed 33794, silent at −0): LLVM's sign xor
    of the half, then ``cvt.rn.bf16.f16``. The store's location names the outer cast, to bf16, but the value the
    xor makes is read as an f16: not the narrowing the location names, so reported, not computed as Triton's
    narrowing to bf16 of the wide negation."""
    body = "{store}\n\txor.b16 %h1, %a, -32768;\n\tcvt.rn.bf16.f16 %d, %h1;"
    text = _with_source(tmp_path, "(-x0.to(tl.float64)).to(tl.float16)", body, "", nin=1, w=16, out_w=16)
    src = tmp_path / "kernel.py"
    src.write_text(src.read_text().replace("r.to(tl.float16)", "r.to(tl.bfloat16)"))
    _, rep = _run(text, [[0x8000], [0x3C00]], w=16, out_w=16)
    assert ("xor.b16", "error") in _items(rep), _items(rep)


@pytest.mark.parametrize("expr,reported", [("(-x0.to(tl.float32)).to(tl.float16) * (-x1.to(tl.float16))", True),
                                           ("(x0.to(tl.float32)).to(tl.float16) * x1.to(tl.float16)", False)])
def test_narrowed_negation_llvm_cancelled_is_reported(tmp_path, expr, reported):
    """``(-x).to(f16) * (-y)`` with x wider, which LLVM computes as ``x.to(f16) * y`` (held-out seed 6034): Triton
    narrows the wide ring's −φ(x), which is not the narrow ring's negation of the narrowed x, so the cancelled pair
    is not the ring's: the cvt is reported."""
    body = "{loc}\n\tcvt.rn.f16.f32 %h1, %a;\n\tcvt.rn.f16.f32 %h2, %b;\n\tmul.f16 %d, %h1, %h2;"
    text = _with_source(tmp_path, expr, body, "(-x0" if reported else "(x0", nin=2, out_w=16)
    _, rep = _run(text, [[TWO, ONE]], out_w=16)
    assert (("cvt.rn.f16.f32", "error") in _items(rep)) == reported


def test_narrowed_double_negation_of_a_masked_load_is_reported(tmp_path):
    """``(-(x0.to(tl.float64) * -1.0)).to(tl.float16)`` of a masked load (held-out seed 14443, silent before): LLVM
    cancels both negations and narrows x0 itself; x0's register is written twice (the load's ``mov`` of its other
    value and the guarded load), which must not hide the source's negation: reported."""
    body = ("setp.ne.s32 %p1, %i, 99;\n\t@%p1 ld.global.b32 %a, [%rd4];\n\t{store}\n\tcvt.rn.f16.f32 %d, %a;")
    text = _with_source(tmp_path, "(-(x0.to(tl.float64) * -1.0))", body, "", nin=1, out_w=16)
    _, rep = _run(text, [[TWO]], out_w=16)
    assert ("cvt.rn.f16.f32", "error") in _items(rep)


@pytest.mark.parametrize("expr,form", [
    ("tl.where(x0 < x1, x1 * x1, -(x0 / x1))", "before"),  # the f32 quotient negated, then the store's narrowing
    ("tl.where(x0 < x1, x1 * x1, (x0 / x1) * -1.0)", "before"),
    # Triton's true division promotes halves to f32: the quotient negated in f32, then narrowed (seed 192036's)
    ("tl.where(x0 < x1, x1.to(tl.float16), -(x0.to(tl.float16) / x1.to(tl.float16)))", "before"),
    # a half product: the cast is the product's own narrowing, the negation after it
    ("tl.where(x0 < x1, x1.to(tl.float16), -(x0.to(tl.float16) * x1.to(tl.float16)))", "after"),
    ("tl.where(x0 < x1, -x1, -(x0 / x1))", "before")])  # both negated: LLVM hoists the negation (before, too)
def test_negated_arm_of_a_narrowed_where(tmp_path, expr, form):
    """``where(c, a, -q).to(f16)`` (held-out seeds 198682, 192036, reported): LLVM sinks the store's narrowing into the
    select's arms and moves the negation below the cast of q; the one negated arm says which form the neg is."""
    body = "{store}\n\tcvt.rn.f16.f32 %h1, %a;\n\tneg.f16 %d, %h1;"
    text = _with_source(tmp_path, expr, body, "", nin=2, out_w=16)
    rows = [[x, ONE] for x in XS]
    out, rep = _run(text, rows, out_w=16)
    assert [s for o, s in _items(rep) if o == "neg.f16"] == ["error" if form is None else "note"]
    if form is not None:
        assert out == _run(text, rows, out_w=16, folds=(("neg-cast", form),))[0]
        assert out != _run(text, rows, out_w=16, folds=(("neg-cast", {"before": "after"}.get(form, "before")),))[0]


@pytest.mark.parametrize("expr,anchor,form", [
    ("-(((x0 * 2.0) * -1.0).to(tl.float16))", "((x0 * 2.0) * -1.0).to", "after"),
    ("-((-(2.0 * x0)).to(tl.float16))", "(-(2.0", "after"),
    ("((x0 * -1.0) * x1).to(tl.float16)", "((x0", "before")])  # no constant to take the negation: LLVM moves it
def test_negation_taken_by_a_constant_factor_leaves_the_neg_after_the_cast(tmp_path, expr, anchor, form):
    """``-(((x * 2.0) * -1.0).to(f16))`` (held-out seed 212555, silent at first contact: 176/256): InstCombine folds
    the inner negation into the constant (``x * -2.0``), so the ``neg.f16`` after the cvt is the source's outer one,
    the ring negation after the cast, not the inner one LLVM would move below it."""
    body = "{loc}\n\tmul.f32 %t, %a, %b;\n\tcvt.rn.f16.f32 %h1, %t;\n\t{store}\n\tneg.f16 %d, %h1;"
    text = _with_source(tmp_path, expr, body, anchor, nin=2, out_w=16)
    rows = [[x, 0xC0000000] for x in XS]
    out, rep = _run(text, rows, out_w=16)
    assert [s for o, s in _items(rep) if o == "neg.f16"] == ["note"]
    assert f"neg-cast={form}, decided by the source" in next(i.reason for i in rep.items if i.opcode == "neg.f16")
    assert out == _run(text, rows, out_w=16, folds=(("neg-cast", form),))[0]
    assert out != _run(text, rows, out_w=16, folds=(("neg-cast", {"before": "after", "after": "before"}[form]),))[0]


def test_negation_taken_by_a_constant_factor_pair():
    """Seed 212555: ``cumsum(where(.., (x.to(f64) * 2.0) * -1.0))`` stored as ``-s.to(f16)``: bit for bit."""
    _assert_bit_exact("seed212555", folds=())


@pytest.mark.parametrize("name", ["seed198682", "seed192036"])
def test_negated_arm_of_a_narrowed_where_pairs(name):
    _assert_bit_exact(name, folds=())


def _neg_cast_after(tmp_path, expr: str, body: str, anchor: str, severity: str):
    """Run the two-input f16 kernel ``body`` under ``expr``: its output is the neg-cast fold's ``after`` form as
    stated, and the ``neg.f16`` has ``severity`` (a note where the source decided it); the report."""
    text = _with_source(tmp_path, expr, body, anchor, nin=2, out_w=16)
    rows = [[x, ONE] for x in XS]
    out, rep = _run(text, rows, out_w=16)
    stated, _ = _run(text, rows, out_w=16, folds=(("neg-cast", "after"),))
    assert out == stated
    assert [s for o, s in _items(rep) if o == "neg.f16"] == [severity]
    return rep


SUB_BODY = ("{loc}\n\tcvt.rn.f16.f32 %h1, %a;\n\tcvt.rn.f16.f32 %h2, %b;\n\tneg.f16 %h3, %h1;\n"
            "\tfma.rn.f16 %d, OPERANDS;")


@pytest.mark.parametrize("operands,severity", [("%h3, %h1, %h2", "note"),   # a - b*c as fma(-b, c, a)
                                               ("%h1, %h1, %h3", "error")])  # the negation an addend: not a - b*c
def test_negation_of_a_cast_llvm_made_from_a_sub_of_a_product_is_decided(tmp_path, operands, severity):
    """``a - b * c`` of halves, which LLVM contracts into fma(−b, c, a) with a ``neg`` of b's cvt (held-out
    seed 4703): the ring's a − b·c is a + (−b)·c, the negation after the cast; the source has no negation
    of its own to read."""
    expr = "x1.to(tl.float16) - x0.to(tl.float16) * x0.to(tl.float16)"
    rep = _neg_cast_after(tmp_path, expr, SUB_BODY.replace("OPERANDS", operands), "x1.to", severity)
    if severity == "note":
        assert "neg-cast=after, decided by the source at kernel.py:9:9: `x1.to(tl.float16) - x0" in next(
            i.reason for i in rep.items if i.opcode == "neg.f16")


@pytest.mark.parametrize("reader,severity", [("fma.rn.f16 %d, %h2, %h2, %h3;", "note"),  # p - c' as fma(a, b, -c')
                                             ("fma.rn.f16 %d, %h3, %h2, %h2;", "error")])  # the negation a factor
def test_negation_of_a_cast_llvm_made_from_a_sub_of_a_cast_is_decided(tmp_path, reader, severity):
    """``p - c.to(f16)`` as ``fma(a, b, −c')`` with a ``neg`` of c's cvt (held-out seed 55126, a false alarm before):
    the ring's p − c' is p + (−c'), the negation after the cast."""
    expr = "x1.to(tl.float16) * x1.to(tl.float16) - x0.to(tl.float16)"
    _neg_cast_after(tmp_path, expr, NEG_PRODUCT_BODY.replace("READER", reader), "x1.to", severity)


@pytest.mark.parametrize("expr,at_store,severity", [("(-x0)", True, "note"), ("x0 * -1.0", False, "note"),
                                                     ("x0", True, "error"),
                                                     # a negation in the f64 ring, narrowed: no 16-bit negation
                                                     # (held-out seed 52161 at −0.0, silent with the hint's first
                                                     # form); the negation chain through the choice of one value
                                                     # replays it (held-out seed 120415's kin)
                                                     ("(-tl.where(x0 < 1.0, x0.to(tl.float64), x0.to(tl.float64)))",
                                                      True, "chain")])
def test_sign_xor_no_float_instruction_touches_is_decided_by_a_negation(tmp_path, expr, at_store, severity):
    """``xor.b16 d, x, 0x8000`` of a loaded value that goes straight to the store (held-out seeds 55551, 55670: LLVM
    sinks ``-x`` to the store's location, a false alarm before): the source's negation there (in the stored value, or
    at the xor's own location) decides Triton's ring negation; no negation, or one of a wider value, leaves the
    default reported."""
    at = f".loc 1 {STORE_LINE} 5" if at_store else "{loc}"
    text = _with_source(tmp_path, expr, at + "\n\txor.b16 %d, %a, -32768;", "x0", w=16)
    out, rep = _run(text, [[0x3C00], [0x8000]], w=16)
    if severity == "note":  # the ring negation: 0 − φ(x), whose −0.0 (φ = −2^15) is its own negation
        assert out == [0xBC00, 0x8000]
    if severity == "chain":  # sext to f64, the f64 ring's negation, Triton's narrowing: not −0.0's own negation
        assert out[0] == 0xBC00 and out[1] != 0x8000
        assert any("f16 → f64 → neg → f16" in i.reason for i in rep.items)
        severity = "note"
    assert [s for o, s in _items(rep) if o == "xor.b16"] == [severity]


NEG_PRODUCT_BODY = "{loc}\n\tcvt.rn.f16.f32 %h1, %a;\n\tcvt.rn.f16.f32 %h2, %b;\n\tneg.f16 %h3, %h1;\n\tREADER"


@pytest.mark.parametrize("reader,severity", [("mul.f16 %d, %h3, %h2;", "note"),   # -(a * b) as (-a) * b
                                             ("add.f16 %d, %h3, %h2;", "error")])  # not a product of the negation
def test_negation_of_a_cast_llvm_moved_into_a_negated_product_is_decided(tmp_path, reader, severity):
    """``-(a.to(f16) * b.to(f16))``, which LLVM writes as ``(−a')·b'`` with a ``neg`` of a's cvt (held-out seed 55102,
    a false alarm before): the ring's −(a·b) is (−a)·b, the negation after the cast."""
    expr = "-(x0.to(tl.float16) * x1.to(tl.float16))"
    _neg_cast_after(tmp_path, expr, NEG_PRODUCT_BODY.replace("READER", reader), "-(x0", severity)


@pytest.mark.parametrize("expr,anchor", [("(-x0).to(tl.bfloat16)", "(-x0)"), ("x0.to(tl.float16)", "x0"),
                                         ("(-x0).to(tl.float16)", "-x0")])
def test_neg_cast_with_a_stale_source_stays_undecided(tmp_path, expr, anchor):
    """Another cast type, no negation at the call, the column of the operand: the default (after), an error."""
    out, rep = _run(_with_source(tmp_path, expr, J_BODY, anchor, out_w=16), [[x] for x in XS], out_w=16)
    assert out == AFTER and [s for o, s in _items(rep) if o == "xor.b16"] == ["error"]


# ------------------------------------------------------------------------------ H: 16-bit ops

A16, B16 = [0x4248, 0xC500, 0x2E66], [0x4500, 0x3C00, 0xB800]  # π, −5, 0.1 (f16) by 5, 1, −0.5
HALF_MUL = [int(v) for v in R.float_binop("mul", np.array(A16, np.uint64), np.array(B16, np.uint64), "f16")]
_WIDE = R.float_binop("mul", R.float_cast(np.array(A16, np.uint64), "f16", "f32"),
                      R.float_cast(np.array(B16, np.uint64), "f16", "f32"), "f32")
NARROWED = [int(v) for v in R.float_cast(_WIDE, "f32", "f16")]


def test_narrowed_half_mul_decided_by_the_source(tmp_path):
    """LLVM's mul.f16 carries the ``r.to(tl.float16)`` cast's ``.loc``; ``r`` is the f32 product of
    widened halves: Triton's f32 ring product narrowed (half=f32)."""
    assert HALF_MUL != NARROWED
    text = _with_source(tmp_path, "x0.to(tl.float32) * x1.to(tl.float32)", "{store}\n\tmul.f16 %d, %a, %b;", "",
                        nin=2, w=16)
    out, rep = _run(text, [list(r) for r in zip(A16, B16)], w=16)
    assert out == NARROWED and _items(rep) == [("mul.f16", "note")]
    assert "half=f32, decided by the source at kernel.py:10:23: `r.to(tl.float16)`" in rep.items[0].reason


def test_narrowed_packed_half_mul_by_a_constant_takes_the_wide_constant(tmp_path):
    """``(x.to(tl.float32) * 0.5).to(tl.float16)`` on two elements, LLVM's ``mul.f16x2 d, x, 0x38003800`` (held-out seed
    15653, silent before: each lane's 0.5 was widened as a payload): Triton's f32 ring product by φ_f32(0.5), narrowed,
    lane by lane."""
    lo, hi = np.array(A16[:2], np.uint64), np.array(B16[:2], np.uint64)
    half = np.array([0x3F000000] * 2, np.uint64)
    want = [R.float_cast(R.float_binop("mul", R.float_cast(v, "f16", "f32"), half, "f32"), "f32", "f16")
            for v in (lo, hi)]
    body = "{store}\n\tmov.b32 %t, 0x38003800;\n\tmul.f16x2 %d, %a, %t;"
    text = _with_source(tmp_path, "x0.to(tl.float32) * 0.5", body, "", nin=1)
    out, rep = _run(text, [[int(a) | int(b) << 16] for a, b in zip(lo, hi, strict=True)])
    assert out == [int(a) | int(b) << 16 for a, b in zip(*want, strict=True)]
    assert [s for o, s in _items(rep) if o == "mul.f16x2"] == ["note"]


def test_genuine_half_mul_decided_by_the_source(tmp_path):
    text = _with_source(tmp_path, "x0 * x1", "{loc}\n\tmul.f16 %d, %a, %b;", "x0 * x1", nin=2, w=16)
    out, rep = _run(text, [list(r) for r in zip(A16, B16)], w=16)
    assert out == HALF_MUL and _items(rep) == [("mul.f16", "note")] and "half=native" in rep.items[0].reason


@pytest.mark.parametrize("expr,form", [
    # held-out seed 2990: both arms one product after CSE, the select gone
    ("tl.where(x0 > x1, x0.to(tl.float32) * x1.to(tl.float32), x1.to(tl.float32) * x0.to(tl.float32))", "f32"),
    ("tl.where(x0 > x1, x0.to(tl.float32) * x1.to(tl.float32), x1)", "f32"),  # fptrunc sunk into one arm
    ("tl.where(x0 > x1, x0.to(tl.float32) * x1.to(tl.float32), x1.to(tl.float64) * x0.to(tl.float64))", None)])
def test_narrowed_half_mul_through_a_select_decided_by_its_arms(tmp_path, expr, form):
    """LLVM sinks the narrowing of ``tl.where(c, a, b)`` into its arms: a ``mul.f16`` at the cast of the
    where is the arms' product of widened halves (both arms' products must agree on the width)."""
    text = _with_source(tmp_path, expr, "{store}\n\tmul.f16 %d, %a, %b;", "", nin=2, w=16)
    out, rep = _run(text, [list(r) for r in zip(A16, B16)], w=16)
    if form is None:
        assert out == HALF_MUL and _items(rep) == [("mul.f16", "error")]
    else:
        assert out == NARROWED and _items(rep) == [("mul.f16", "note")] and f"half={form}" in rep.items[0].reason


@pytest.mark.parametrize("expr,op,form", [
    ("(x0.to(tl.float32) * -1.0) + x1.to(tl.float32)", "sub.f16 %d, %b, %a", "f32"),  # (-a) + b as b - a
    ("x1.to(tl.float32) + (-x0.to(tl.float32))", "sub.f16 %d, %b, %a", "f32"),
    ("x1.to(tl.float32) - (x0.to(tl.float32) * -1.0)", "add.f16 %d, %b, %a", "f32"),  # b - (-a) as b + a
    ("(x0.to(tl.float64) * -1.0) + x1.to(tl.float64)", "sub.f16 %d, %b, %a", "f64"),
    # the negation at f64, the add at f32 after its narrowing: no ring identity (held-out 807, 2238)
    ("(x0.to(tl.float64) * -1.0).to(tl.float32) + x1.to(tl.float32)", "sub.f16 %d, %b, %a", None)])
def test_narrowed_half_sum_of_a_negation_decided_by_the_source(tmp_path, expr, op, form):
    """``((h.to(f32) * -1.0) + 1.0).to(bf16)`` as ``sub.bf16 1.0, h`` (held-out seed 188462, reported): the negation
    at the wide type folded into the op is the ring's b − a, so the narrowed op is the wide one (φ(−1)·φ(a) = −φ(a))."""
    text = _with_source(tmp_path, expr, "{store}\n\t" + op + ";", "", nin=2, w=16)
    rows = [list(r) for r in zip(A16, B16)]
    out, rep = _run(text, rows, w=16)
    if form is None:
        assert [s for o, s in _items(rep) if o == op[:7]] == ["error"]
        return
    a, b = (R.float_cast(np.array(v, np.uint64), "f16", form).astype(np.uint64) for v in (A16, B16))
    a = a if op.startswith("add") else R.float_unop("neg", a, form).astype(np.uint64)
    wide = R.float_binop("add", b, a, form).astype(np.uint64)
    assert out == [int(v) for v in R.float_cast(wide, form, "f16")]
    assert [s for o, s in _items(rep) if o == op[:7]] == ["note"] and f"half={form}" in rep.items[0].reason
    _assert_bit_exact("seed188462", folds=())


def test_narrowed_negated_product_with_a_constant_decided_by_the_source(tmp_path):
    """``(-(x0.to(tl.float32) * 2.0)).to(tl.float16)`` (held-out seed 14052): InstCombine negates the constant and
    narrows the product, ``mul.f16 x, -2.0`` at the cast's location; Triton's f32 ring product by φ(2.0), negated,
    narrowed (φ(−c) = −φ(c), so the product by φ(−2.0) is the same)."""
    wide = R.float_binop("mul", R.float_cast(np.array(A16, np.uint64), "f16", "f32"),
                         np.array([0x40000000] * len(A16), np.uint64), "f32")
    want = [int(v) for v in R.float_cast(R.float_unop("neg", wide, "f32"), "f32", "f16")]
    body = "{store}\n\tmov.b16 %t, 0xC000;\n\tmul.f16 %d, %a, %t;"
    text = _with_source(tmp_path, "(-(x0.to(tl.float32) * 2.0))", body, "", nin=1, w=16)
    out, rep = _run(text, [[a] for a in A16], w=16)
    assert out == want and [s for o, s in _items(rep) if o == "mul.f16"] == ["note"]
    assert "half=f32" in next(i.reason for i in rep.items if i.opcode == "mul.f16")


@pytest.mark.parametrize("expr,anchor,at", [("x0.to(tl.float32) + x1.to(tl.float32)", "", "store"),  # not a mul
                                            ("x0.to(tl.float32) * x1", "x0", "loc"),  # its own .loc: not narrowed
                                            ("x0.to(tl.float32) * libdevice.fn(x1)", "", "store"),  # unknown
                                            ("x0 * x1", "", "store")])  # a cast of a half product: no widening
def test_half_mul_with_a_stale_or_unclear_source_stays_undecided(tmp_path, expr, anchor, at):
    text = _with_source(tmp_path, expr, f"{{{at}}}\n\tmul.f16 %d, %a, %b;", anchor, nin=2, w=16)
    out, rep = _run(text, [list(r) for r in zip(A16, B16)], w=16)
    assert out == HALF_MUL and _items(rep) == [("mul.f16", "error")]


def test_half_comparison_decided_by_the_source(tmp_path):
    """``setp.lt.f16`` at a Compare of widened halves compares Triton's f32 values (tests/test_fpsan_folds)."""
    body = "{loc}\n\tsetp.lt.f16 %p1, %a, %b;\n\tselp.b16 %d, %a, %b, %p1;"
    a, b = [0x4248, 0x2E66, 0x3C00, 0xC500], [0x2E66, 0x3C00, 0x4000, 0x3C00]
    wa, wb = (R.float_cast(np.array(v, np.uint64), "f16", "f32").astype(np.uint32).view(np.float32) for v in (a, b))
    expr = "tl.where(x0.to(tl.float32) < x1.to(tl.float32), x0, x1)"
    out, rep = _run(_with_source(tmp_path, expr, body, "x0.to", nin=2, w=16), [list(r) for r in zip(a, b)], w=16)
    assert out == [x if lt else y for x, y, lt in zip(a, b, wa < wb)]
    assert ("setp.lt.f16", "note") in _items(rep)


@pytest.mark.parametrize("expr,anchor,other", [
    ("tl.where(x0.to(tl.float64) < x1.to(tl.float64), x0, x1)", "x0.to", "%b"),  # held-out seed 18867 (silent)
    ("tl.where(x0.to(tl.float64) < 0.1, x0, x1)", "x0.to", "0f3DCCCCCD")])  # the constant's exact widening
def test_f32_comparison_of_values_the_source_widens_to_f64(tmp_path, expr, anchor, other):
    """``setp.lt.f32`` at a Compare of f32 values widened to f64 (LLVM drops exact fpexts around an fcmp): Triton's
    FPSan compares the f64 ring widenings φ⁻¹₆₄(sext φ₃₂(x)), which the f32 order does not give; a loaded x's own
    f32 compare stays native."""
    body = "{loc}\n\tsetp.lt.f32 %p1, %a, " + other + ";\n\tselp.b32 %d, %a, %b, %p1;"
    # 1.0 < 10.0 and 2.0 < 3.0 but not their widenings; 3.0 < 2.0 not, theirs is; 0.5 < 0.1 not, the widening is
    a, b = [0x3F800000, 0x40000000, 0x40400000, 0x3F000000, 0xBF800000], [0x41200000, 0x40400000, 0x40000000,
                                                                          0x3DCCCCCD, 0x3F800000]
    wa, wb = (R.float_cast(np.array(v, np.uint64), "f32", "f64").view(np.float64) for v in (a, b))
    if other.startswith("0f"):
        wb = np.full(len(a), np.float64(np.float32(0.1)))
    out, rep = _run(_with_source(tmp_path, expr, body, anchor, nin=2), [list(r) for r in zip(a, b)])
    want = [x if lt else y for x, y, lt in zip(a, b, wa < wb)]
    assert want != [x if lt else y for x, y, lt in zip(a, b, np.array(a, np.uint32).view(np.float32)
                                                        < (np.array(b, np.uint32).view(np.float32) if other == "%b"
                                                           else np.float32(0.1)))]  # the vectors tell them apart
    assert out == want
    assert any("the source at kernel.py:9:18" in i.reason and "widens to f64" in i.reason for i in rep.items)
    own, rep = _run(_with_source(tmp_path, expr.replace(".to(tl.float64)", ""), body, "x0 <", nin=2),
                    [list(r) for r in zip(a, b)])
    assert own != want and not any("widens to f64" in i.reason for i in rep.items)


@pytest.mark.parametrize("expr,form", [("x0.to(tl.float64)", "cast"), ("-x0.to(tl.float64)", "wider"),
                                       ("x0", None), ("x0.to(tl.float32)", None),
                                       # a select of one value Triton folds first (held-out seed 67531)
                                       ("tl.where(x0 > 0.0, x0.to(tl.float64), x0.to(tl.float64))", "cast"),
                                       ("tl.where(x0 > 0.0, -x0.to(tl.float64), -x0.to(tl.float64))", "wider")])
def test_narrowing_of_an_f64_the_source_widened_from_f32(tmp_path, expr, form):
    """``cvt.rn.f16.f32`` at ``r.to(tl.float16)`` of an ``r`` the source computes in f64 (held-out seed 18885, silent
    at first contact: LLVM dropped ``fpext``, exact in IEEE): Triton's FPSan narrows the sign-extended 64-bit ring
    value, whose discarded bits the narrowing mixes in (docs/fpsan.md), so the chain f32 → f64 → f16, where exact f64
    work lies between that LLVM dropped too (a negation): reported. ``x.to(f64).to(f16)`` itself Triton folds before
    its FPSan pass (held-out seed 3218: bit-exact as the direct narrowing)."""
    xs = [0x3F800000, 0x40490FDB, 0xC0A00000, 0x3DCCCCCD, 0x7F7FFFFF]
    out, rep = _run(_with_source(tmp_path, expr, "{store}\n\tcvt.rn.f16.f32 %d, %a;", "", out_w=16),
                    [[x] for x in xs], out_w=16)
    direct = [int(v) for v in R.float_cast(np.array(xs, np.uint64), "f32", "f16")]
    chain = [int(v) for v in R.float_cast(R.float_cast(np.array(xs, np.uint64), "f32", "f64"), "f64", "f16")]
    assert chain != direct  # the vectors tell the two apart
    assert out == (chain if form == "wider" else direct)
    said = [i for i in rep.items if "narrows an f64" in i.reason]
    assert [i.severity for i in said] == (["error"] if form == "wider" else [])
    if "where" in expr:
        _assert_bit_exact("seed67531", folds=())


@pytest.mark.parametrize("expr,folded", [
    ("tl.where(x0.to(tl.float64).to(tl.int32).to(tl.float64) < x1.to(tl.float64), 1.0, 0.0)", True),
    ("tl.where(x0.to(tl.int32).to(tl.float64) < x1.to(tl.float64), 1.0, 0.0)", False)])
def test_f32_to_int_to_f64_compared_through_f64_is_the_f64_trunc(tmp_path, expr, folded):
    """``x.to(f64).to(int32).to(f64)`` of an f32 x read only by a comparison (held-out seed 19853, silent at first
    contact): LLVM converts from the f32 (``cvt.rzi.s32.f32``, then ``cvt.rn.f64.s32``: no same-type pair to fold);
    Triton's FPSan widens x to f64 in the ring and LLVM folds the f64 → int → f64 pair into the trunc of it. Without
    the f64 in the source, the f32's own conversion (native: saturating)."""
    body = ("{loc}\n\tcvt.rzi.s32.f32 %r1, %a;\n\tcvt.rn.f64.s32 %e1, %r1;\n\tcvt.f64.f32 %e2, %b;\n\t"
            "setp.lt.f64 %p1, %e1, %e2;\n\tselp.b32 %d, 1065353216, 0, %p1;")
    # 2.0, 0.1, the largest f32 widen in the ring to 4.5e253, 3.9e250, 4430.2; y (0.1, 3.0, the largest) to 3.9e250,
    # 7.9e238, 4430.2: the trunc of the first two is above y, their saturated int32 below
    xs = [0x40000000, 0x3DCCCCCD, 0x7F7FFFFF]
    ys = [0x3DCCCCCD, 0x40400000, 0x7F7FFFFF]
    out, rep = _run(_with_source(tmp_path, expr, body, "x0.to", nin=2), [[x, y] for x, y in zip(xs, ys)])
    wx, wy = (R.float_cast(np.array(v, np.uint64), "f32", "f64").view(np.float64) for v in (xs, ys))
    trunc = [0x3F800000 if np.trunc(a) < b else 0 for a, b in zip(wx, wy)]
    f32 = np.array(xs, np.uint32).view(np.float32)
    native = [0x3F800000 if float(max(min(np.trunc(a), 2**31 - 1), -2**31)) < b else 0 for a, b in zip(f32, wy)]
    saturated = [0x3F800000 if float(max(min(np.trunc(a), 2**31 - 1), -2**31)) < b else 0 for a, b in zip(wx, wy)]
    assert trunc != native and trunc != saturated  # the vectors tell them apart
    assert out == (trunc if folded else native)
    assert any("into a trunc" in i.reason for i in rep.items) == folded


def test_inlined_loc_and_a_library_source_outside_the_root(tmp_path):
    """``.loc 2 L C, function_name …, inlined_at 1 …`` (Triton's reductions: ``_sum_combine``'s
    ``return a + b`` in triton/language/standard.py, which is not under ``--source-root``): its own file,
    line and column; the BinOp of two parameters is half arithmetic."""
    lib = tmp_path / "lib" / "standard.py"
    lib.parent.mkdir()
    lib.write_text("def _sum_combine(a, b):\n    return a + b\n")
    body = ".loc 2 2 12, function_name $L__info_string0, inlined_at 1 9 5\n\tadd.f16 %d, %a, %b;"
    text = _kernel(body, w=16, nin=2) + f'\t.file\t1 "/gone/kernel.py"\n\t.file\t2 "{lib}"\n'
    out, rep = _run(text, [list(r) for r in zip(A16, B16)], w=16, source_root=str(tmp_path / "root"))
    want = [int(v) for v in R.float_binop("add", np.array(A16, np.uint64), np.array(B16, np.uint64), "f16")]
    assert out == want and _items(rep) == [("add.f16", "note")]
    assert "half=native, decided by the source at standard.py:2:12: `a + b`" in rep.items[0].reason


@pytest.mark.parametrize("expr,form", [("tl.fma(x0, x1, x0) * tl.abs(x1)", "native"),
                                       ("tl.where(x0 < x1, x0.to(tl.float32), x1) * x1", None),
                                       ("tl.sqrt(x0) * x1", "native"),
                                       ("libdevice.fn(x0) * x1", None)])
def test_half_operand_types_through_elementwise_calls(tmp_path, expr, form):
    """tl.fma/abs/where and the tl math functions keep their operands' type (a 16-bit op on them is half
    arithmetic; a widened operand at the op's own .loc contradicts the PTX); other calls (libdevice) are
    unknown: undecided."""
    text = _with_source(tmp_path, expr, "{loc}\n\tmul.f16 %d, %a, %b;", expr.split("(")[0] if "(" in expr else "",
                        nin=2, w=16)
    out, rep = _run(text, [list(r) for r in zip(A16, B16)], w=16)
    assert out == HALF_MUL and _items(rep) == [("mul.f16", "note" if form else "error")]


def test_subtracting_a_negation_is_an_add(tmp_path):
    """``x0 - (-x0)`` is LLVM's ``add x, x`` too (the fneg folded into the operator): Triton's ring
    φ(x) − (−φ(x)) = 2φ(x), the ``add`` form; ``p - (-a)`` at a 16-bit add is half arithmetic."""
    out, rep = _run(_with_source(tmp_path, "x0 - (-x0)", K_BODY, "x0 -"), [[ONE]])
    assert out != [TWO] and _items(rep) == [("add.f32", "note")] and "self-add=add" in rep.items[0].reason
    text = _with_source(tmp_path, "x0 - (-x1)", "{loc}\n\tadd.f16 %d, %a, %b;", "x0 -", nin=2, w=16)
    out, rep = _run(text, [list(r) for r in zip(A16, B16)], w=16)
    assert out == [int(v) for v in R.float_binop("add", np.array(A16, np.uint64), np.array(B16, np.uint64), "f16")]
    assert _items(rep) == [("add.f16", "note")] and "half=native" in rep.items[0].reason


# ------------------------------------------------------------------------------ E: half → int, int → half

E_BODY = "{loc}\n\tcvt.rzi.s16.f16 %d, %a;"


@pytest.mark.parametrize("expr,via", [("x0.to(tl.float64).to(tl.int8)", "f64"),  # seed 57's shape
                                      ("x0.to(tl.float32).to(tl.int16)", "f32"),
                                      ("x0.to(tl.int16)", "f32")])  # Triton converts a half through f32
def test_half_to_int_decided_by_the_source(tmp_path, expr, via):
    out, rep = _run(_with_source(tmp_path, expr, E_BODY, "x0", w=16), [[h] for h in HALVES], w=16)
    assert out == [triton(h, "f16", via, 16) for h in HALVES]
    # int8: NVPTX converts into 16 bits; the wrap of a poison out-of-range fptosi is LLVM's choice in each build
    poison = [("cvt.rzi.s16.f16", "error")] if "int8" in expr else []
    assert _items(rep) == [*poison, ("cvt.rzi.s16.f16", "note")]
    assert f"through {via} (decided by the source at kernel.py:9:9: `x0." in rep.items[-1].reason


def test_half_to_int_through_a_choice_of_one_value(tmp_path):
    """Held-out seed 8343: ``tl.minimum(h.to(f64), h.to(f64), propagate_nan=ALL).to(int32)`` — LLVM folds the min of
    one value and the widening into ``cvt.rzi.s32.bf16``; Triton's ring min of one value is that value, converted
    through f64."""
    expr = "tl.minimum(x0.to(tl.float64), x0.to(tl.float64), propagate_nan=tl.PropagateNan.ALL).to(tl.int16)"
    out, rep = _run(_with_source(tmp_path, expr, E_BODY, "tl.minimum", w=16), [[h] for h in HALVES], w=16)
    assert out == [triton(h, "f16", "f64", 16) for h in HALVES]
    assert _items(rep) == [("cvt.rzi.s16.f16", "note")] and "through f64" in rep.items[0].reason


@pytest.mark.parametrize("expr", ["x0.to(tl.float64).to(tl.uint32)",  # another width, unsigned: not modelled
                                  "x0.to(tl.float64)", "x0.to(tl.float64).to(tl.float32)"])
def test_half_to_int_with_a_stale_or_refolded_source_stays_undecided(tmp_path, expr):
    out, rep = _run(_with_source(tmp_path, expr, E_BODY, "x0", w=16), [[h] for h in HALVES], w=16)
    assert out == [triton(h, "f16", "f32", 16) for h in HALVES] and _items(rep) == [("cvt.rzi.s16.f16", "error")]


@pytest.mark.parametrize("expr,via", [("x0.to(tl.float64).to(tl.int64)", "f64"),
                                      ("x0.to(tl.int64).to(tl.float32).to(tl.int16)", "f32")])  # seed 159's shape
def test_half_to_a_wider_int_narrowed_by_llvm_converts_at_the_source_width(tmp_path, expr, via):
    """LLVM narrows ``h.to(int64)`` to ``cvt.rzi.s16.f16`` when only the low bits are used (exact for a
    half's range); Triton's FPSan converts the widened payload at 64 bits (saturating), then truncates."""
    want = [triton(h, "f16", via, 64) & 0xFFFF for h in HALVES]
    assert want != [triton(h, "f16", via, 16) for h in HALVES]
    out, rep = _run(_with_source(tmp_path, expr, E_BODY, "x0", w=16), [[h] for h in HALVES], w=16)
    assert out == want and _items(rep) == [("cvt.rzi.s16.f16", "note")]
    assert f"through {via} at s64" in rep.items[0].reason


@pytest.mark.parametrize("expr,via", [("tl.max(x0.to(tl.float16), axis=0).to(tl.float64).to(tl.int16)", "f64"),
                                      ("tl.max(x0.to(tl.float16), axis=0).to(tl.int16)", "f32"),
                                      # an f32 value of no known half: not decided
                                      ("tl.max(x0.to(tl.float32), axis=0).to(tl.float64).to(tl.int16)", None)])
def test_half_to_int_of_a_max_of_halves(tmp_path, expr, via):
    """``tl.max(h).to(f64).to(int32)`` (held-out seed 202935, reported): Triton's max of halves is the f32 of their
    exact widening, which LLVM drops (the max of bf16s, then ``cvt.rzi.s32.bf16``); the ring's widenings compose
    (sign extensions), so the conversion is through f64."""
    text = _with_source(tmp_path, expr, E_BODY, "tl.max", w=16)
    out, rep = _run(text, [[h] for h in HALVES], w=16)
    assert out == [triton(h, "f16", via or "f32", 16) for h in HALVES]
    assert _items(rep) == [("cvt.rzi.s16.f16", "note" if via else "error")]
    if via == "f64":
        assert out != [triton(h, "f16", "f32", 16) for h in HALVES]
        _assert_bit_exact("seed202935", folds=())


def test_half_to_int_of_a_reassigned_name(tmp_path):
    """Seed 194: ``a = … a.to(tl.float32).to(tl.int64) …`` — the half's name is assigned twice, so its
    type is unknown; the cvt's own f16 operand says it is a half: through f32."""
    text = _with_source(tmp_path, "x0.to(tl.float32).to(tl.int16)", E_BODY, "x0", w=16)
    src = tmp_path / "kernel.py"
    src.write_text(src.read_text().replace("x1 = tl.load(x1_ptr)", "x0 = tl.load(x1_ptr)"))
    out, rep = _run(text, [[h] for h in HALVES], w=16)
    assert out == [triton(h, "f16", "f32", 16) for h in HALVES] and _items(rep) == [("cvt.rzi.s16.f16", "note")]


def test_half_to_int_stated_fold_wins_over_the_source(tmp_path):
    text = _with_source(tmp_path, "x0.to(tl.float64).to(tl.int8)", E_BODY, "x0", w=16)
    out, rep = _run(text, [[h] for h in HALVES], w=16, folds=(("half-int", "f32"),))
    assert out == [triton(h, "f16", "f32", 16) for h in HALVES]
    assert "stated: --fold half-int=f32" in rep.items[-1].reason


INTS = [0, 1, 0xFFFF, 7, 0xFF85, 2049]  # s16 bits: 0, 1, -1, 7, -123, 2049 (rounds to 2048 in f16)


@pytest.mark.parametrize("expr,anchor,at", [("x0.to(tl.int16)", "", "store"),  # r.to(f16) of an integer
                                            ("x0.to(tl.int16).to(tl.float32)", "x0", "loc")])  # seed 57's .loc
def test_int_to_half_decided_native_by_the_source(tmp_path, expr, anchor, at):
    text = _with_source(tmp_path, expr, "{" + at + "}\n\tcvt.rn.f16.s16 %d, %a;", anchor, w=16)
    out, rep = _run(text, [[i] for i in INTS], w=16)
    assert out == [int(np.float16(np.int16(np.uint16(i))).view(np.uint16)) for i in INTS]  # native sitofp
    assert _items(rep) == [("cvt.rn.f16.s16", "note")] and "decided by the source at kernel.py:" in rep.items[0].reason


def test_int_to_half_through_cancelled_float_arithmetic_is_the_ring_arithmetic(tmp_path):
    """Seed 51: ``r = -(i.to(tl.float32) * -1.0)`` stored as ``r.to(f16)``; LLVM cancels the arithmetic into
    one ``cvt.rn.f16.s16``, Triton's FPSan computes −(φ(f32(i))·φ(−1.0)) in the ring and narrows it."""
    text = _with_source(tmp_path, "-(x0.to(tl.int64).to(tl.float32) * -1.0)", "{store}\n\tcvt.rn.f16.s16 %d, %a;",
                        "", w=16)
    out, rep = _run(text, [[i] for i in INTS], w=16)
    f = np.array([int(np.float32(np.int16(np.uint16(i))).view(np.uint32)) for i in INTS], np.uint64)
    prod = R.float_binop("mul", f, np.full(len(INTS), 0xBF800000, np.uint64), "f32")
    neg = R.float_binop("sub", np.zeros(len(INTS), np.uint64), prod, "f32")
    want = [int(v) for v in R.float_cast(neg, "f32", "f16")]
    assert want != [int(np.float16(np.int16(np.uint16(i))).view(np.uint16)) for i in INTS]
    assert out == want and _items(rep) == [("cvt.rn.f16.s16", "note")]
    assert "ring arithmetic and narrowing" in rep.items[0].reason


def test_int_to_f32_beside_an_integer_half_cast_back_to_an_int_is_direct(tmp_path):
    """Seed 77311's chain ``h.to(bf16).to(int16).to(bf16).to(int16).to(f32)``: the inner ``i.to(bf16)`` is cast back
    to an integer (a round trip LLVM drops), not widened to f32, so it is no half LLVM dropped from the f32 conversion:
    decided ``direct`` (before, that half made the location undecided and the conversion was reported)."""
    expr = "x0.to(tl.bfloat16).to(tl.int16).to(tl.bfloat16).to(tl.int16).to(tl.float32)"
    out, rep = _run(_with_source(tmp_path, expr, "{loc}\n\tcvt.rn.f32.s16 %d, %a;", "x0", w=16, out_w=32),
                    [[i] for i in INTS], w=16, out_w=32)
    assert out == [int(np.float32(np.int16(np.uint16(i))).view(np.uint32)) for i in INTS]
    assert _items(rep) == [("cvt.rn.f32.s16", "note")]


@pytest.mark.parametrize("expr,anchor,at", [("tl.abs(x0.to(tl.int64).to(tl.float32))", "", "store"),
                                            ("x0.to(tl.int16).to(tl.float32) + 1.0", "x0", "loc"),
                                            # held-out seed 4160: the half of an integer, then through int32 and
                                            # back (dropped by LLVM as exact; Triton widens the half in the ring)
                                            ("x0.to(tl.int8).to(tl.float16).to(tl.int32).to(tl.float16)", "x0",
                                             "loc")])
def test_int_to_half_through_float_arithmetic_stays_undecided(tmp_path, expr, anchor, at):
    text = _with_source(tmp_path, expr, "{" + at + "}\n\tcvt.rn.f16.s16 %d, %a;", anchor, w=16)
    assert _items(_run(text, [[i] for i in INTS], w=16)[1]) == [("cvt.rn.f16.s16", "error")]


# ------------------------------------------------------------------------------ K on a widened operand

def _two_times_widened(xs: list[int], t: str, wt: str) -> list[int]:
    """Triton's ``(2.0 * x.to(wt)).to(t)``: sext payload, the ring product by φ(2.0) at ``wt``, narrowed."""
    two = np.array([0x40000000 if wt == "f32" else 0x4000000000000000], np.uint64)  # the constant 2.0 at wt
    wide = R.float_binop("mul", R.float_cast(np.array(xs, np.uint64), t, wt), np.repeat(two, len(xs)), wt)
    return [int(v) for v in R.float_cast(wide, wt, t)]


def test_self_add_of_a_widened_half_times_two_decided_by_the_source(tmp_path):
    """``add.f16 x, x`` under ``r.to(tl.float16)``'s ``.loc`` with ``r = 2.0 * x0.to(tl.float32)``: LLVM
    shrank the f32 multiply; Triton multiplies the widened payload in the f32 ring and narrows it."""
    want = _two_times_widened(A16, "f16", "f32")
    assert want != [int(v) for v in R.float_binop("mul", np.array(A16, np.uint64), np.full(3, 0x4000, np.uint64),
                                                  "f16")]
    text = _with_source(tmp_path, "2.0 * x0.to(tl.float32)", "{store}\n\tadd.f16 %d, %a, %a;", "", w=16)
    out, rep = _run(text, [[a] for a in A16], w=16)
    assert out == want and _items(rep) == [("add.f16", "note")]
    assert "self-add=mul2-f32, decided by the source at kernel.py:10:23: `r.to(tl.float16)`" in rep.items[0].reason


@pytest.mark.parametrize("expr,form", [("(2.0 * x0.to(tl.float64)).to(tl.float32)", "mul2-f64"),  # seed 98
                                       ("(x0.to(tl.float64) + x0.to(tl.float64)).to(tl.float32)", "add-f64"),
                                       # held-out seed 8449's shape: two negations and a min of one value
                                       ("(-(-(x0.to(tl.float64) + tl.minimum(x0.to(tl.float64), "
                                        "x0.to(tl.float64))))).to(tl.float32)", "add-f64"),
                                       ("(-(x0.to(tl.float64) + x0.to(tl.float64))).to(tl.float32)", None),
                                       ("(3.0 * x0.to(tl.float64)).to(tl.float32)", None),
                                       ("(2.0 * x0).to(tl.float32)", None),  # no widening: not this .loc
                                       ("(2.0 * x0.to(tl.float64)).to(tl.float16)", None)])  # another type
def test_self_add_of_a_widened_f32_decided_by_the_source(tmp_path, expr, form):
    text = _with_source(tmp_path, expr, K_BODY, "(")
    out, rep = _run(text, [[x] for x in XS])
    if form == "add-f64":
        wide = R.float_cast(np.array(XS, np.uint64), "f32", "f64")
        want = [int(v) for v in R.float_cast(R.float_binop("add", wide, wide, "f64"), "f64", "f32")]
    else:
        want = _two_times_widened(XS, "f32", "f64") if form else [int(v) for v in R.float_binop(
            "add", np.array(XS, np.uint64), np.array(XS, np.uint64), "f32")]  # undecided: the PTX as written
    assert out == want and _items(rep) == [("add.f32", "note" if form else "error")]
    if form:
        assert f"self-add={form}, decided by the source at kernel.py:9:9:" in rep.items[0].reason


@pytest.mark.parametrize("expr,anchor,form", [
    ("tl.abs(x0) * (x0.to(tl.float32) + x0.to(tl.float32))", "tl.abs", "add"),  # seed 118's shape
    ("tl.abs(x0) * (x0 + x0)", "tl.abs", None),  # the operand's type is not explicit
    ("(x0.to(tl.float32) * 2.0) * (x0.to(tl.float32) + x0.to(tl.float32))", "(x0", None),  # two forms inside
    ("tl.abs(x0) * (x0.to(tl.float64) + x0.to(tl.float64))", "tl.abs", None)])  # another type
def test_self_add_at_an_enclosing_expressions_column(tmp_path, expr, anchor, form):
    """LLVM gives the add an enclosing expression's ``.loc``: decided when exactly one form occurs inside it
    on operands explicitly of the add's type."""
    out, rep = _run(_with_source(tmp_path, expr, K_BODY, anchor), [[HALF], [ONE]])
    add = [int(v) for v in R.float_binop("add", np.array([HALF, ONE], np.uint64), np.array([HALF, ONE], np.uint64),
                                         "f32")]
    assert out == add  # decided x + x, or undecided: the PTX as written
    assert _items(rep) == [("add.f32", "note" if form else "error")]
    if form:
        assert "self-add=add, decided by the source at kernel.py:9:23: `x0.to(tl.float32) + x0.to(tl.float32)`" \
            in rep.items[0].reason


@pytest.mark.parametrize("expr,form", [("x0.to(tl.float32) * 2.0", "mul2"),  # seed 139's shape
                                       ("(x0.to(tl.float32) * 2.0) - (x0.to(tl.float32) + x0.to(tl.float32))", None),
                                       ("x0 * 2.0", "mul2"),  # a loaded x0 of its own type: the line's one form
                                       ("(x0 * 2.0) - (x1 + x1)", None),  # two forms on loaded values
                                       # a dot's result has its accumulator's type (held-out seed 17752)
                                       ("tl.dot(x0, x1, x0) * 2.0", "mul2"),
                                       ("tl.dot(x0, x1) * 2.0", None),  # f32, or f64 for f64 inputs: unknown
                                       # a libdevice call promotes a half to f32: an f32 add is of its own type
                                       # (held-out seed 21892, reported before)
                                       ("(libdevice.tanh(x1) - x0) * 2.0", "mul2"),
                                       ("(libdevice.tanh(x1.to(tl.float16)) - x0) * 2.0", None),
                                       ("(libdevice.tanh(x1) - x0) * 2.0 + (x1 + x1)", None)])
def test_self_add_at_column_zero_decided_by_its_line(tmp_path, expr, form):
    """``.loc F L 0``: LLVM merged two locations of one line; the one typed form on the line decides, else
    the one form on values of their own type (held-out seed 2462: the next element's ``2.0 * x0`` of an f64
    x0, scheduled after a libdevice body)."""
    out, rep = _run(_with_source(tmp_path, expr, ".loc 1 9 0\n\tadd.f32 %d, %a, %a;", ""), [[HALF], [ONE]])
    assert out == ([MUL_2_HALF, TWO] if form else [SELF_ADD_HALF, SELF_ADD_ONE])  # undecided: as written
    assert _items(rep) == [("add.f32", "note" if form else "error")]
    if form:
        assert f"self-add=mul2, decided by the source at kernel.py:9:9: `{expr}`" in rep.items[0].reason


def test_negated_left_operand_is_a_sub(tmp_path):
    """``(-x0) + x1`` is LLVM's ``sub x1, x0`` (seed 170): a genuine half op."""
    text = _with_source(tmp_path, "(-x0) + x1", "{loc}\n\tsub.f16 %d, %b, %a;", "(-x0)", nin=2, w=16)
    out, rep = _run(text, [list(r) for r in zip(A16, B16)], w=16)
    assert out == [int(v) for v in R.float_binop("sub", np.array(B16, np.uint64), np.array(A16, np.uint64), "f16")]
    assert _items(rep) == [("sub.f16", "note")] and "half=native, decided by the source" in rep.items[0].reason


def test_subtracting_a_number_is_an_add_of_its_negation(tmp_path):
    """``x0 - 0.5`` is LLVM's ``add.f16 x, -0.5`` (seeds 5, 133, 2): a genuine half op; φ is odd, so the
    ring add of φ(−0.5) is Triton's ring sub of φ(0.5)."""
    text = _with_source(tmp_path, "x0 - 0.5", "mov.b16 %t, 0xB800;\n\t{loc}\n\tadd.f16 %d, %a, %t;", "x0", w=16)
    out, rep = _run(text, [[a] for a in A16], w=16)
    assert out == [int(v) for v in R.float_binop("sub", np.array(A16, np.uint64), np.full(3, 0x3800, np.uint64),
                                                 "f16")]
    assert _items(rep) == [("add.f16", "note")] and "half=native, decided by the source" in rep.items[0].reason


@pytest.mark.parametrize("expr,anchor,want", [
    # minimum(x, -x): Triton's ring min keeps ±0 as they are (−0 is its own ring negation), −|x| elsewhere
    ("tl.minimum(x0, x0 * -1.0)", "tl.minimum", [0, SIGN, TWO | SIGN]),
    # -abs(x): the ring negation of |x|, +0 at both zeros
    ("-tl.abs(x0)", "-tl.abs", [0, 0, TWO | SIGN])])
def test_sign_or_decided_by_the_source(tmp_path, expr, anchor, want):
    """LLVM's −|x| (``or.b32 d, x, 0x80000000``, held-out seed 610) from two sources that differ at −0: the
    source at the or's location — or at the store it sank to — decides; a note then, an error without."""
    for loc in ("{loc}", "{store}"):
        text = _with_source(tmp_path, expr, loc + "\n\tor.b32 %d, %a, -2147483648;", anchor)
        out, rep = _run(text, [[0], [SIGN], [TWO]])
        assert out == want and _items(rep) == [("or.b32", "note")], (loc, rep.items)


@pytest.mark.parametrize("expr,want", [
    ("tl.dot(tl.minimum(x0 * -1.0, x0).to(tl.float32), x1)", [0, SIGN, TWO | SIGN]),
    ("tl.dot(x1, (-tl.abs(x0)).to(tl.float32))", [0, 0, TWO | SIGN]),
    ("tl.dot(tl.minimum(x0 * -1.0, x0), -tl.abs(x1))", None),  # both operands, two forms: undecided
    ("tl.dot(x0, x1)", None)])
def test_sign_or_at_a_dots_location_is_its_operands_form(tmp_path, expr, want):
    """LLVM's −|x| hoisted into a dot's operand loads from shared memory, at the dot's location (held-out seed
    188325, reported: ``a = minimum(a * -1.0, a).to(f32)`` into a tf32 dot): its operands' one form decides."""
    text = _with_source(tmp_path, expr, "{loc}\n\tor.b32 %d, %a, -2147483648;", "tl.dot")
    out, rep = _run(text, [[0], [SIGN], [TWO]])
    assert _items(rep) == [("or.b32", "note" if want else "error")], rep.items
    if want:
        assert out == want
        _assert_bit_exact("seed188325", folds=())


@pytest.mark.parametrize("expr,want", [("tl.minimum(-x0, x0) * 3.0", [0, SIGN, TWO | SIGN]),
                                       ("-tl.abs(x0) * 3.0", [0, 0, TWO | SIGN]),
                                       ("tl.minimum(-x0, x0) + (-tl.abs(x0))", None),  # two forms of x0: undecided
                                       ("tl.minimum(-x1, x1) * 3.0", None)])  # not of this load's value
def test_sign_or_at_the_loads_location_is_the_functions_one_form_of_it(tmp_path, expr, want):
    """LLVM's −|x| of a loaded x at the load's own location (held-out seed 71844, reported: ``minimum(-x1, x1) * y``
    of an f64 x1, the ``or.b64`` at ``x1 = tl.load(..)``'s column): the one form the function takes of that loaded
    value decides; two forms, or none of it, leave it undecided (an error)."""
    col = SRC.splitlines()[6].index("tl.load") + 1
    text = _with_source(tmp_path, expr, f".loc 1 7 {col}\n\tor.b32 %d, %a, -2147483648;", "")
    out, rep = _run(text, [[0], [SIGN], [TWO]])
    assert _items(rep) == [("or.b32", "note" if want else "error")], rep.items
    if want:
        assert out == want
    if expr.startswith("tl.minimum(-x0"):
        _assert_bit_exact("seed71844", folds=())


@pytest.mark.parametrize("expr,noted", [("tl.minimum(tl.maximum(x0, x0), -x0)", True), ("-tl.abs(x0)", False)])
def test_sign_or_after_a_narrowing_of_a_min_of_negation_is_the_wide_ring_min(tmp_path, expr, noted):
    """``minimum(maximum(x, x), -x)`` of an f32 x stored as f16 (held-out seed 24129, reported before): LLVM narrows
    x, then sets the sign; Triton's ring min of φ(x) and −φ(x) at f32 (−|x|; +0 stays +0), then the ring narrowing.
    A negated abs narrowed stays undecided (the abs's ring differs before and after the cast)."""
    xs = [0, SIGN, TWO, 0xC0490FDB]
    body = "cvt.rn.f16.f32 %h1, %a;\n\t{store}\n\tor.b16 %d, %h1, -32768;"
    out, rep = _run(_with_source(tmp_path, expr, body, "", out_w=16), [[x] for x in xs], out_w=16)
    mins = [0, SIGN, TWO | SIGN, 0xC0490FDB]  # the ring min, −|x| but +0 at +0
    assert [s for o, s in _items(rep) if o == "or.b16"] == ["note" if noted else "error"]
    if noted:
        assert out == [int(v) for v in R.float_cast(np.array(mins, np.uint64), "f32", "f16")]


@pytest.mark.parametrize("expr,op,wide", [("tl.maximum(-x0, x0)", "and", True),  # held-out seed 27966, silent before
                                           ("tl.minimum(-x0, x0)", "or", True),
                                           # the extremum of values already narrowed: the ring op at f16, after the
                                           # cast (the or was taken for the f32 min, silent before)
                                           ("tl.maximum(-x0.to(tl.float16), x0.to(tl.float16))", "and", False),
                                           ("tl.minimum(-x0.to(tl.float16), x0.to(tl.float16))", "or", False)])
def test_sign_bit_op_after_a_narrowing_is_the_extremum_at_the_sources_type(tmp_path, expr, op, wide):
    """``maximum(-x, x).to(f16)`` of an f32 x: LLVM narrows x, then clears the sign (``and.b16``, at the store);
    Triton's ring max of φ(x) and −φ(x) at f32, then the ring narrowing (which does not commute with the max).
    Where the source's extremum takes f16 values, the ring op is at f16 after the ring narrowing."""
    xs = [0, SIGN, TWO, TWO | SIGN, 0xC0490FDB, 0x3E2AAAAB]
    mask = "32767" if op == "and" else "-32768"
    body = f"cvt.rn.f16.f32 %h1, %a;\n\t{{store}}\n\t{op}.b16 %d, %h1, {mask};"
    out, rep = _run(_with_source(tmp_path, expr, body, "", out_w=16), [[x] for x in xs], out_w=16)

    def extremum(p: np.ndarray, w: int) -> np.ndarray:
        s = p.astype(np.int64) - ((p >> (w - 1)) << w).astype(np.int64)  # signed payloads
        n = np.where(s == -(1 << (w - 1)), s, -s)
        return ((np.maximum(s, n) if op == "and" else np.minimum(s, n)) % (1 << w)).astype(np.uint64)

    bits = np.array(xs, np.uint64)
    if wide:
        want = R.float_cast(R.unembed(extremum(R.embed(bits, "f32"), 32), "f32"), "f32", "f16")
    else:
        want = R.unembed(extremum(R.embed(R.float_cast(bits, "f32", "f16"), "f16"), 16), "f16")
    assert out == [int(v) for v in want]
    if wide:
        assert _items(rep) == [(f"{op}.b16", "note")] and "then the ring narrowing" in rep.items[0].reason


def _narrowed_negated_product(a: int, b: int) -> int:
    """Triton's ``((-a) * b).to(f32)`` of f64 bits, as payload: the ring narrowing of −(φ(a)·φ(b))."""
    pa, pb = (R.embed(np.array([v], np.uint64), "f64") for v in (a, b))
    return int(R.narrow(R.neg(R.mul(pa, pb, 64), 64), 64, 32)[0])


@pytest.mark.parametrize("expr,op,anchor", [("((-x0) * x1).to(tl.float32) + 1.0", "sub", "(("),  # seed 29884's kin
                                            ("1.0 - ((-x0) * x1).to(tl.float32)", "add", "1.0")])
def test_negation_of_a_narrowed_product_moved_into_an_add(tmp_path, expr, op, anchor):
    """``((-a) * b).to(f32) + 1.0`` of f64 a, b: LLVM narrows the product and subtracts it (``sub.f32 1.0, c``);
    ``1.0 - ((-a) * b).to(f32)`` adds it. Triton narrows −(φ(a)·φ(b)) in the ring (which does not commute with the
    negation), then adds (subtracts) φ(1.0): the source's negated factor inside the cast says so (silent before)."""
    one = "0f3F800000"
    sides = f"{one}, %r1" if op == "sub" else f"%r1, {one}"
    cast = f".loc 1 {EXPR_LINE} {len('    r = ') + expr.index('((') + 1}"  # the cast's own column, as Triton's
    body = f"mul.f64 %e1, %a, %b;\n\t{cast}\n\tcvt.rn.f32.f64 %r1, %e1;\n\t{{loc}}\n\t{op}.f32 %d, {sides};"
    text = _with_source(tmp_path, expr, body, anchor, nin=2, w=64, out_w=32)
    rows = [[0x3FF8000000000000, 0x4004000000000000], [0xC01C000000000000, 0x3FE0000000000000]]
    out, rep = _run(text, rows, w=64, out_w=32)
    p1 = int(R.embed(np.array([ONE], np.uint64), "f32")[0])
    want = [int(R.unembed(np.array([(p1 + c if op == "sub" else p1 - c) % (1 << 32)], np.uint64), "f32")[0])
            for c in (_narrowed_negated_product(a, b) for a, b in rows)]
    assert out == want
    assert [(o, sev) for o, sev in _items(rep) if o == f"{op}.f32"] == [(f"{op}.f32", "note")]


def test_negation_of_a_narrowed_product_cancelled_after_the_cast_is_reported(tmp_path):
    """``((-a) * b).to(f32) * -1.0 + 1.0``: LLVM cancels the two negations (``add.f32 c, 1.0`` of the narrowed
    product), Triton narrows −(φ(a)·φ(b)) and multiplies by φ(−1): no PTX form carries it — reported at the cvt
    (silent before); with the negated factor still in the PTX's product, nothing is."""
    expr = "((-x0) * x1).to(tl.float32) * -1.0 + 1.0"
    for product, said in (("mul.f64 %e1, %a, %b;", True), ("neg.f64 %e2, %a;\n\tmul.f64 %e1, %e2, %b;", False)):
        body = f"{product}\n\t{{loc}}\n\tcvt.rn.f32.f64 %r1, %e1;\n\tadd.f32 %d, %r1, 0f3F800000;"
        _, rep = _run(_with_source(tmp_path, expr, body, "((", nin=2, w=64, out_w=32),
                      [[0x3FF8000000000000, 0x4004000000000000]], w=64, out_w=32)
        errors = [i for i in rep.items if i.severity == "error" and i.opcode == "cvt.rn.f32.f64"]
        assert bool(errors) == said and all("narrows a negation" in i.reason for i in errors)


@pytest.mark.parametrize("expr,body,said", [("libdevice.add_rn(x0, x1)", "add.rn.f32 %d, %a, %b;", True),
                                             ("libdevice.rcp_rn(x0)", "rcp.rn.f32 %d, %a;", True),
                                             ("libdevice.fma(x0, x1, x0)", "fma.rn.f32 %d, %a, %b, %a;", False),
                                             ("x0 + x1", "add.rn.f32 %d, %a, %b;", False)])
def test_direct_libdevice_call_lowered_to_instructions_is_reported(tmp_path, expr, body, said):
    """``libdevice.add_rn(x, y)`` is ``add.rn.f32``: Triton's FPSan hashes the call (custom kernels of add_rn, mul_rn,
    rcp_rn, saturatef, nearbyint, fdim, abs were silent), which the instruction sanitized as the ring add is not:
    reported. A function whose lowering matches Triton's (``fma``) and plain arithmetic are not."""
    _, rep = _run(_with_source(tmp_path, expr, "{loc}\n\t" + body, expr.split("(")[0], nin=2), [[HALF, ONE]])
    errors = [i for i in rep.items if i.severity == "error" and "direct libdevice" in i.reason]
    assert bool(errors) == said


def _ring_max_of_negation(x: int) -> int:
    """Triton's ``maximum(x, -x)`` on f32 bits: the signed max of the payloads φ(x) and −φ(x), unembedded."""
    p = int(R.embed(np.array([x], np.uint64), "f32")[0])
    ps = p - (1 << 32) if p >> 31 else p
    q = max(ps, -ps if ps != -(1 << 31) else ps) % (1 << 32)
    return int(R.unembed(np.array([q], np.uint64), "f32")[0])


@pytest.mark.parametrize("expr,ring", [("tl.maximum(tl.where(x0 > x0, x0, x0), -x0)", True),  # held-out seed 4957
                                       ("tl.maximum(x0 * -1.0, x0)", True),
                                       # an exact round trip is x in the ring too (held-out seed 215940, silent)
                                       ("tl.maximum(x0.to(tl.float64).to(tl.float32), -x0)", True),
                                       ("tl.abs(x0)", False)])  # Triton's abs: native, +0 at both zeros
def test_sign_and_decided_by_the_source(tmp_path, expr, ring):
    """LLVM's |x| (``and.b32 d, x, 0x7FFFFFFF``) from ``maximum(x, -x)``, which Triton computes as the ring
    max: −0 (the payload −2^31, its own negation) stays −0; an ``abs`` call stays native."""
    xs = [0, SIGN, TWO, TWO | SIGN, 0xFFC00000, 0xFF800000, 0x00000001 | SIGN]  # ±0, ±2, −NaN, −inf, −denormal
    text = _with_source(tmp_path, expr, "{loc}\n\tand.b32 %d, %a, 2147483647;", "tl.")
    out, rep = _run(text, [[x] for x in xs])
    assert out == ([_ring_max_of_negation(x) for x in xs] if ring else [x & 0x7FFFFFFF for x in xs])
    assert out[1] == (SIGN if ring else 0)
    assert [(i.opcode, i.severity) for i in rep.items] == ([("and.b32", "note")] if ring else [])


def test_max_of_round_trip_and_negation_pair():
    """Seed 215940: ``maximum(h.to(f64).to(f16), -h)`` of f16 h, LLVM's |h| (an ``and.b16``): bit for bit."""
    _assert_bit_exact("seed215940", folds=())


def _sext16(p: int) -> int:
    return (p - (1 << 16) if p >> 15 else p) % (1 << 32)


@pytest.mark.parametrize("expr,narrow", [("(x0 * -1.0).to(tl.float32) + x1.to(tl.float32)", True),  # seed 5462
                                         ("x1.to(tl.float32) + (x0 * -1.0)", True),  # 6550: promoted by the add
                                         ("x1.to(tl.float32) - x0.to(tl.float32)", False)])
def test_widened_negation_folded_into_a_sub_is_negated_in_the_half(tmp_path, expr, narrow):
    """``(h * -1.0).to(f32) + y`` of a loaded half h, which LLVM turns into ``y - h.to(f32)``: Triton negates in
    h's 16-bit ring and widens, which differs from the f32 ring's subtraction at h = -0 (φ = -2^15, its own
    16-bit negation); a source subtraction stays as written."""
    body = "{loc}\n\tcvt.f32.f16 %r1, %a;\n\tcvt.f32.f16 %r2, %b;\n\tsub.f32 %r3, %r2, %r1;\n\tmov.b32 %d, %r3;"
    text = _with_source(tmp_path, expr, body, expr[:5], nin=2, w=16, out_w=32)
    hs, y = [0x8000, 0x3C00, 0xC000, 0x0000], 0x4000
    out, rep = _run(text, [[h, y] for h in hs], w=16, out_w=32)
    e16 = lambda v: int(R.embed(np.array([v], np.uint64), "f16")[0])  # noqa: E731
    u32 = lambda p: int(R.unembed(np.array([p % (1 << 32)], np.uint64), "f32")[0])  # noqa: E731
    if narrow:
        want = [u32(_sext16(e16(y)) + _sext16((-e16(h)) % (1 << 16))) for h in hs]
    else:
        want = [u32(_sext16(e16(y)) - _sext16(e16(h))) for h in hs]
    assert out == want
    assert (want[0] == u32(_sext16(e16(y)) - _sext16(e16(0x8000)))) == (not narrow)  # they differ at -0 only
    assert not rep.errors


@pytest.mark.parametrize("expr,narrow", [("(-x0).to(tl.float32) * 0.5", True),  # held-out seed 6041 (in a cumsum)
                                         ("x0.to(tl.float32) * -0.5", False)])
def test_negation_moved_into_a_constant_factor_is_negated_in_the_half(tmp_path, expr, narrow):
    """``(-h).to(f32) * 0.5`` of a half h, which LLVM computes as ``h.to(f32) * -0.5``: Triton negates in h's
    16-bit ring and widens, which differs from multiplying by φ(-0.5) at h = -0; a source constant that is
    negative stays as written."""
    body = "{loc}\n\tcvt.f32.f16 %r1, %a;\n\tmul.f32 %r2, %r1, 0fBF000000;\n\tmov.b32 %d, %r2;"
    text = _with_source(tmp_path, expr, body, "(-x0)" if narrow else "x0.to", w=16, out_w=32)
    hs = [0x8000, 0x3C00, 0xC000, 0x0000]
    out, rep = _run(text, [[h] for h in hs], w=16, out_w=32)
    e16 = lambda v: int(R.embed(np.array([v], np.uint64), "f16")[0])  # noqa: E731
    e32 = lambda v: int(R.embed(np.array([v], np.uint64), "f32")[0])  # noqa: E731
    u32 = lambda p: int(R.unembed(np.array([p % (1 << 32)], np.uint64), "f32")[0])  # noqa: E731
    if narrow:
        want = [u32(_sext16((-e16(h)) % (1 << 16)) * e32(0x3F000000)) for h in hs]
    else:
        want = [u32(_sext16(e16(h)) * e32(0xBF000000)) for h in hs]
    assert out == want
    assert (want[0] == u32(_sext16(e16(0x8000)) * e32(0xBF000000))) == (not narrow)  # they differ at -0 only
    assert not rep.errors and (("mul.f32", "note") in _items(rep)) == narrow


# ------------------------------------------------------------------------------ i.to(f32).to(f64)

WIDE_BODY = "{loc}\n\tcvt.rzi.s32.f32 %r1, %a;\n\tcvt.rn.f64.s32 %d, %r1;"
WIDE_XS = [0x3F800000, 0xC0490FDB, 0x4B7FFFFF, 0x00000000, 0xBF000000]  # 1, -π, 2^24 - 1, 0, -0.5


def _through_f32(x: int) -> int:
    """Triton's ``x.to(int32).to(f32).to(f64)``: native conversions to f32, then the ring widening of the
    payload (a sign extension, docs/fpsan.md §1)."""
    f = np.float32(int(np.array([x], np.uint32).view(np.float32)[0]))  # int(): trunc toward 0, +0.0
    p = int(R.embed(np.array([f.view(np.uint32)], np.uint64), "f32")[0])
    return int(R.unembed(np.array([(p - (1 << 32) if p >> 31 else p) % (1 << 64)], np.uint64), "f64")[0])


@pytest.mark.parametrize("expr,through", [("x0.to(tl.int32).to(tl.float32).to(tl.float64)", True),
                                          ("x0.to(tl.int32).to(tl.float64)", False)])
def test_int_to_f64_through_a_dropped_f32_decided_by_the_source(tmp_path, expr, through):
    """``cvt.rn.f64.s32`` of an f32's truncation: LLVM drops the exact f32 of ``i.to(f32).to(f64)`` (held-out
    seed 1244), which Triton's FPSan widens in the ring; ``i.to(f64)`` stays native (no report: 32-bit
    integer conversions are everywhere, only a source that shows the f32 changes them)."""
    text = _with_source(tmp_path, expr, WIDE_BODY, "x0", out_w=64)
    out, rep = _run(text, [[x] for x in WIDE_XS], out_w=64)
    native = [int(np.float64(int(np.array([x], np.uint32).view(np.float32)[0])).view(np.uint64)) for x in WIDE_XS]
    assert out == ([_through_f32(x) for x in WIDE_XS] if through else native)
    assert (out != native) == through
    assert [i.severity for i in rep.items if "i.to(f32).to(f64)" in i.reason] == (["note"] if through else [])


def test_int_to_f32_through_f64_is_native(tmp_path):
    """``i.to(f64).to(f32)``: Triton folds the pair into one conversion before its FPSan pass (held-out seed
    694), so the ``cvt.rn.f32.s32`` stays native even where the source shows the f64."""
    body = "{loc}\n\tcvt.rzi.s32.f32 %r1, %a;\n\tcvt.rn.f32.s32 %d, %r1;"
    text = _with_source(tmp_path, "x0.to(tl.int32).to(tl.float64).to(tl.float32)", body, "x0")
    out, rep = _run(text, [[x] for x in WIDE_XS])
    assert out == [int(np.float32(int(np.array([x], np.uint32).view(np.float32)[0])).view(np.uint32)) for x in WIDE_XS]
    assert not rep.errors and not [i for i in rep.items if "i.to(f" in i.reason]


@pytest.mark.parametrize("wide", ["float32", "float64"])
def test_abs_of_a_widened_half_narrowed_back_is_tritons_ring_abs(tmp_path, wide):
    """Held-out seeds 3944, 13343: ``tl.abs(h.to(f32)).to(f16)`` as ``and.b16 d, h, 0x7FFF`` at the store — LLVM drops
    both conversions; Triton's ring widens φ(h), clears the sign of the wide float's bits and narrows back, which is
    not the half's own abs: computed so where only stores read it (the half's type from the narrowing cast), a
    note; read by other code, an error (reported before, 13343 mismatched in 3 elements of 256)."""
    ft = {"float32": "f32", "float64": "f64"}[wide]
    xs = np.array([0xBC00, 0x3555, 0x8000, 0x8001], np.uint64)  # they differ at -0.0 only
    bits = R.float_cast(xs, "f16", ft)
    want = [int(v) for v in R.float_cast(bits & np.uint64((1 << (R.ring(ft).w - 1)) - 1), ft, "f16")]
    assert want != [int(x) & 0x7FFF for x in xs]
    expr = f"tl.abs(x0.to(tl.{wide}))"
    text = _with_source(tmp_path, expr, f".loc 1 {STORE_LINE} 5\n\tand.b16 %d, %a, 32767;", "", w=16)
    out, rep = _run(text, [[int(x)] for x in xs], w=16)
    assert out == want and [s for o, s in _items(rep) if o == "and.b16"] == ["note"]
    # at the abs call's own location (not narrowed there) of an abs.f16: modelled where only stores read it
    out, rep = _run(_with_source(tmp_path, expr, "{loc}\n\tabs.f16 %d, %a;", "tl.abs", w=16), [[int(x)] for x in xs],
                    w=16)
    assert out == want and [s for o, s in _items(rep) if o == "abs.f16"] == ["note"]
    body = "{loc}\n\tabs.f16 %t, %a;\n\tadd.f16 %d, %t, %a;"
    _, rep = _run(_with_source(tmp_path, expr, body, "tl.abs", w=16), [[0xBC00]], w=16)
    assert ("abs.f16", "error") in _items(rep)
    # a sign-bit and at the abs call, negated twice before the store's narrowing (held-out seed 22758, reported
    # before): the stores' f16 is the half type, -(E * -1.0) is E in the ring too
    body = f"{{loc}}\n\tand.b16 %t, %a, 32767;\n\t.loc 1 {STORE_LINE} 5\n\tmov.b16 %d, %t;"
    out, rep = _run(_with_source(tmp_path, f"-({expr} * -1.0)", body, "tl.abs", w=16), [[int(x)] for x in xs], w=16)
    assert out == want and [s for o, s in _items(rep) if o == "and.b16"] == ["note"]


@pytest.mark.parametrize("expr", ["tl.abs(x0.to(tl.float32)).to(tl.float16)",  # stored as r.to(f16) again
                                  "tl.abs(-x0.to(tl.float32))", "tl.abs((-x0.to(tl.float32))).to(tl.float16)"])
def test_abs_of_a_widened_half_narrowed_once_or_negated_is_tritons_ring_abs(tmp_path, expr):
    """The same where the name is narrowed already (``r = abs(h.to(f32)).to(f16)``, stored ``r.to(f16)``: one
    narrowing, the store's cast is its own type) or the widening negated (``abs(-h.to(f32))``: |φ⁻¹(−s)| is
    |φ⁻¹(s)| for a sign-extended s): custom kernels, reported before (7/128 elements at −0)."""
    xs = np.array([0xBC00, 0x3555, 0x8000, 0x8001], np.uint64)
    bits = R.float_cast(xs, "f16", "f32")
    want = [int(v) for v in R.float_cast(bits & np.uint64(0x7FFFFFFF), "f32", "f16")]
    text = _with_source(tmp_path, expr, f".loc 1 {STORE_LINE} 5\n\tand.b16 %d, %a, 32767;", "", w=16)
    out, rep = _run(text, [[int(x)] for x in xs], w=16)
    assert out == want and [s for o, s in _items(rep) if o == "and.b16"] == ["note"]


@pytest.mark.parametrize("expr,reported", [("tl.abs(tl.where(x0 < x1, x0 / x1.to(tl.float32), x1))", True),
                                           ("tl.abs(tl.where(x0 < x1, x0 * x1, x1))", False)])
def test_abs_of_a_wider_select_narrowed_to_a_half_is_reported(tmp_path, expr, reported):
    """Held-out seed 14541 (silent at first contact): ``tl.abs(where(c, x / y.to(f32), y)).to(f16)`` — LLVM narrows
    the f32 arm, selects halves and clears the half's sign at the store; Triton takes abs of the f32 value's bits
    and narrows in the ring, which does not commute with abs: an error. The abs of a half select: native."""
    text = _with_source(tmp_path, expr, f".loc 1 {STORE_LINE} 5\n\tand.b16 %d, %a, 32767;", "", nin=2, w=16)
    _, rep = _run(text, [[0xBC00, 0x3C00]], w=16)
    assert (("and.b16", "error") in _items(rep)) == reported


def test_abs_of_a_widened_f32_narrowed_back_is_tritons_ring_abs(tmp_path):
    """Held-out seed 15164: ``tl.abs(x.to(tl.float64))`` stored ``.to(tl.float32)`` as ``and.b32 d, x, 0x7FFFFFFF``:
    Triton's ring widening to f64, abs of the f64 bits, ring narrowing back (differs at −0)."""
    xs = np.array([0xBF800000, 0x80000000, 0x3E000001], np.uint64)
    want = [int(v) for v in R.float_cast(R.float_cast(xs, "f32", "f64") & np.uint64((1 << 63) - 1), "f64", "f32")]
    assert want != [int(x) & 0x7FFFFFFF for x in xs]
    body = f".loc 1 {STORE_LINE} 5\n\tand.b32 %d, %a, 2147483647;"
    text = _with_source(tmp_path, "tl.abs(x0.to(tl.float64))", body, "")
    src = tmp_path / "kernel.py"
    src.write_text(src.read_text().replace("r.to(tl.float16)", "r.to(tl.float32)"))  # narrowed back to f32
    out, rep = _run(text, [[int(x)] for x in xs])
    assert out == want and [s for o, s in _items(rep) if o == "and.b32"] == ["note"]


@pytest.mark.parametrize("expr,chain", [("tl.abs(x0.to(tl.float32))", ("f32",)),  # held-out seed 15309
                                        ("tl.abs(x0.to(tl.float64)).to(tl.float16)", ("f64", "f16"))])  # 12601
def test_abs_of_a_widened_half_cast_again_is_tritons_chain(tmp_path, expr, chain):
    """``abs(h.to(W))`` (narrowed back to the half or not) then ``.to(tl.float64)`` at the store, as LLVM's ``and.b16``
    of h and ``cvt.f64.f16``: Triton's ring widening to W, abs of W's bits, the ring casts after it (differs from the
    half's abs widened at −0)."""
    xs = np.array([0xBC00, 0x8000, 0x3555], np.uint64)
    wide = R.float_cast(xs, "f16", chain[0]) & np.uint64((1 << (R.ring(chain[0]).w - 1)) - 1)
    v, t = wide, chain[0]
    for nxt in (*chain[1:], "f64"):
        v, t = R.float_cast(v, t, nxt), nxt
    want = [int(b) for b in v]
    assert want != [int(b) for b in R.float_cast(xs & np.uint64(0x7FFF), "f16", "f64")]
    body = f".loc 1 {EXPR_LINE} 5\n\tand.b16 %t, %a, 32767;\n\t{{store}}\n\tcvt.f64.f16 %d, %t;"
    text = _with_source(tmp_path, expr, body, "", w=16, out_w=64)
    src = tmp_path / "kernel.py"
    src.write_text(src.read_text().replace("r.to(tl.float16)", "r.to(tl.float64)"))  # widened at the store
    out, rep = _run(text, [[int(x)] for x in xs], w=16, out_w=64)
    assert out == want and [s for o, s in _items(rep) if o == "cvt.f64.f16"] == ["note"]


def test_abs_of_a_narrowed_cast_widened_again_is_the_abs_before_the_narrowing(tmp_path):
    """``tl.abs(x.to(tl.float32)).to(tl.float16)`` of an f64 x stored ``.to(tl.float32)`` (held-out seed 43362,
    silent before): LLVM's ``cvt.rn.f16.f32``, ``abs.f16``, ``cvt.f32.f16``. The abs is Triton's on the f32 (then the
    ring narrowing), and the widening only widens that: not the source's chain re-read from the half, as for a
    loaded half's ``abs(h.to(f32)).to(f16).to(f32)``."""
    xs = np.array([0xBFF0000000000001, 0x8000000000000000, 0x3FD5555555555555], np.uint64)
    f32 = R.float_cast(xs, "f64", "f32")
    want = [int(b) for b in R.float_cast(R.float_cast(f32 & np.uint64(0x7FFFFFFF), "f32", "f16"), "f16", "f32")]
    half = R.float_cast(f32, "f32", "f16")
    reread = R.float_cast(R.float_cast(half, "f16", "f32") & np.uint64(0x7FFFFFFF), "f32", "f16")
    assert want != [int(b) for b in R.float_cast(reread, "f16", "f32")]
    expr = "tl.abs(x0.to(tl.float32)).to(tl.float16)"
    col = SRC.replace("EXPR", expr).splitlines()[EXPR_LINE - 1].index("x0.to") + 1
    body = (f".loc 1 {EXPR_LINE} {col}\n\tcvt.rn.f32.f64 %r1, %a;\n\t{{loc}}\n\tcvt.rn.f16.f32 %h1, %r1;\n\t"
            "abs.f16 %h2, %h1;\n\t{store}\n\tcvt.f32.f16 %d, %h2;")
    text = _with_source(tmp_path, expr, body, "tl.abs", w=64, out_w=32)
    src = tmp_path / "kernel.py"
    src.write_text(src.read_text().replace("r.to(tl.float16)", "r.to(tl.float32)"))
    out, rep = _run(text, [[int(x)] for x in xs], w=64, out_w=32)
    assert out == want
    assert all(s == "note" for _, s in _items(rep))


@pytest.mark.parametrize("name", ["seed43362", "k_sqrt_of_abs_narrowed_widened_f32",
                                  "k_abs_of_abs_narrowed_widened_f32"])
def test_held_out_abs_of_a_narrowed_cast_widened_again_is_tritons_bits(name):
    """Triton 3.9 pairs (tests/data/triton_libdevice), each silent before: seed 43362;
    ``sqrt(abs(x.to(f32)).to(f16).to(f32))`` of an f32 x (the widening was read as abs(x.to(f32)) of the half);
    ``abs(abs(x).to(f16).to(f32))`` (the outer abs, which LLVM merged into the one abs.f16, was lost): bit for bit,
    nothing reported."""
    from tests.test_fpsan_libdevice import _assert_bit_exact
    _assert_bit_exact(name)


def test_abs_of_a_widening_hoisted_to_the_load_is_reported_at_its_reader(tmp_path):
    """``(tl.abs(x.to(tl.float64)) * 2.0).to(tl.float32)`` (held-out seed 16587, silent at first contact): LLVM's
    ``and.b32`` of the f32 x hoisted to the load's location, read by the narrowed self-add; Triton's abs is on the
    f64 bits (differs at −0): the reader's expression names it, an error."""
    expr = "(tl.abs(x0.to(tl.float64)) * 2.0).to(tl.float32)"
    col = SRC.replace("EXPR", expr).splitlines()[EXPR_LINE - 1].index("(tl.abs") + 1
    body = f".loc 1 6 0\n\tand.b32 %t, %a, 2147483647;\n\t.loc 1 {EXPR_LINE} {col}\n\tadd.f32 %d, %t, %t;"
    _, rep = _run(_with_source(tmp_path, expr, body, ""), [[0x80000000]])
    assert ("and.b32", "error") in _items(rep)


@pytest.mark.parametrize("expr,reported", [("tl.abs(x0.to(tl.float64)).to(tl.float32)", True),
                                           ("tl.abs(x0).to(tl.float32)", False)])
def test_abs_of_a_widening_hoisted_to_the_load_is_reported_through_names(tmp_path, expr, reported):
    """``e = tl.abs(x.to(tl.float64)).to(tl.float32)`` read by a later expression through its name (held-out seed
    18911, silent at first contact: ``tl.cumsum(e)``): the hoisted ``and.b32`` of the f32 x is reported at its
    reader, whose expression names ``e``; an abs of the f32 itself is not."""
    body = ".loc 1 6 0\n\tand.b32 %t, %a, 2147483647;\n\t{store}\n\tmul.f32 %d, %t, %b;"
    _, rep = _run(_with_source(tmp_path, expr, body, "", nin=2), [[0x80000000, ONE]])
    assert (("and.b32", "error") in _items(rep)) == reported


@pytest.mark.parametrize("expr,reported", [("tl.cumsum(-x0.to(tl.float64), axis=0)", True),
                                           ("tl.cumsum(x0.to(tl.float64), axis=0)", False)])
def test_narrowed_scan_of_a_negation_whose_negation_llvm_dropped_is_reported(tmp_path, expr, reported):
    """``s.to(f16)`` of ``s = tl.cumsum(-x.to(f64))`` squared (held-out seeds 18885, 19017, silent at first contact):
    the scan's first element is −x, whose negation LLVM squares away, narrowing x's widening itself; Triton narrows
    the f64 ring's −φ(x), which differs: the cvt is reported."""
    text = _with_source(tmp_path, expr, "{store}\n\tcvt.rn.f16.f64 %d, %a;", "", nin=1, w=64, out_w=16)
    _, rep = _run(text, [[0x4000000000000000]], w=64, out_w=16)
    assert (("cvt.rn.f16.f64", "error") in _items(rep)) == reported


@pytest.mark.parametrize("expr,severity", [("x0.to(tl.int32).to(tl.float64) * 0.5", "error"),
                                           ("x0.to(tl.float64) * 0.5", "note")])
def test_narrowed_f64_product_of_an_int_conversion_is_reported(tmp_path, expr, severity):
    """``(i.to(f64) * 0.5).to(f32)`` (held-out seed 17257, silent at first contact): LLVM converts i to f32 and
    multiplies in f32; Triton's operand is the native i → f64 conversion, not the ring widening of an f32 (not
    modelled): an error. The f32 x widened (``x.to(f64) * 0.5``) is the narrowed f64 product, a note."""
    body = "{store}\n\tcvt.rzi.s32.f32 %r1, %a;\n\tcvt.rn.f32.s32 %t, %r1;\n\tmul.f32 %d, %t, 0f3F000000;"
    text = _with_source(tmp_path, expr, body, "", nin=1)
    src = tmp_path / "kernel.py"
    src.write_text(src.read_text().replace("r.to(tl.float16)", "r.to(tl.float32)"))
    _, rep = _run(text, [[0x40490FDB]])
    assert [s for o, s in _items(rep) if o == "mul.f32"] == [severity]


@pytest.mark.parametrize("expr,form", [("(x0.to(tl.float64) * -1.0) - 0.5", "f64"),
                                       ("(-x0.to(tl.float64)) - 0.5", "f64"),
                                       ("(x0.to(tl.int32).to(tl.float64) * -1.0) - 0.5", "int")])
def test_narrowed_f64_ops_that_llvm_folds_into_one_sub(tmp_path, expr, form):
    """``((x.to(f64) * -1.0) - 0.5).to(f32)`` as ``sub.f32 d, -0.5, x`` (held-out seed 54683, of an int's
    conversion, silent at first contact): the source has no sub of that shape, LLVM moved the negation into the
    subtraction's order, which the ring agrees with (−a − c = (−c) − a): Triton's f64 ring op of the widened operand,
    narrowed. Of an int converted to f64 (Triton's operand the native i → f64 conversion): reported."""
    conv = "cvt.rzi.s32.f32 %r1, %a;\n\tcvt.rn.f32.s32 %t, %r1;" if form == "int" else "mov.b32 %t, %a;"
    body = "{store}\n\t" + conv + "\n\tmov.b32 %c, 0fBF000000;\n\tsub.f32 %d, %c, %t;"
    text = _with_source(tmp_path, expr, body, "", nin=1)
    src = tmp_path / "kernel.py"
    src.write_text(src.read_text().replace("r.to(tl.float16)", "r.to(tl.float32)"))
    out, rep = _run(text, [[0x40490FDB]])
    if form == "int":
        assert [s for o, s in _items(rep) if o == "sub.f32"] == ["error"]
        return
    wide = R.float_cast(np.array([0x40490FDB], np.uint64), "f32", "f64")
    want = R.float_cast(R.float_binop("sub", np.array([0xBFE0000000000000], np.uint64), wide, "f64"), "f64", "f32")
    assert out == [int(want[0])] and [s for o, s in _items(rep) if o == "sub.f32"] == ["note"]


@pytest.mark.parametrize("neg", [True, False])
def test_narrowed_f64_product_negated_after_the_narrowing(tmp_path, neg):
    """``-(x1.to(f64) * x0.to(f64)).to(f32)`` (held-out seed 32469, silent at first contact; reported until stop
    51): LLVM multiplies in f32 and moves the negation onto an operand, both at the negation's location; Triton's ring
    multiplies the sign extensions in f64, narrows, then negates. Without the negation, the narrowed f64 product."""
    expr = "(x1.to(tl.float64) * x0.to(tl.float64)).to(tl.float32)"
    body = ("{loc}\n\tneg.f32 %t, %b;\n\tmul.f32 %d, %a, %t;" if neg else "{loc}\n\tmul.f32 %d, %a, %b;")
    text = _with_source(tmp_path, "-" + expr if neg else expr, body, "-(" if neg else "(x1", nin=2)
    out, rep = _run(text, [[0x40490FDB, 0x3F000000]])
    assert [s for o, s in _items(rep) if o == "mul.f32"] == ["note"]
    wide = [R.float_cast(np.array([b], np.uint64), "f32", "f64") for b in (0x40490FDB, 0x3F000000)]
    want = R.float_cast(R.float_binop("mul", wide[0], wide[1], "f64"), "f64", "f32")
    assert out == [int((R.float_unop("neg", want, "f32") if neg else want)[0])]


def test_abs_of_a_half_itself_is_native(tmp_path):
    """``tl.abs(x0)`` of the half itself is Triton's native abs: no report."""
    text = _with_source(tmp_path, "tl.abs(x0)", f".loc 1 {STORE_LINE} 5\n\tand.b16 %d, %a, 32767;", "", w=16)
    out, rep = _run(text, [[0xBC00]], w=16)
    assert out == [0x3C00] and not rep.errors


_THRESHOLD = {"int16": 4.0e4, "int32": 2.4e9, "int64": 1.0e19}  # between the type's maximum and the trunc of 3e9 / 2^70


@pytest.mark.parametrize("w,ints", [(32, ("int32", "int16")), (64, ("int32", "int64"))])
@pytest.mark.parametrize("compared", [True, False])
def test_trunc_of_casts_through_an_integer_at_f32_and_f64(tmp_path, w, ints, compared):
    """``cvt.rzi.f32.f32`` (``.f64.f64``) where the source casts through an integer: both conversions are native on
    φ⁻¹'s bits in Triton's FPSan, of the same types as in the plain PTX. Read only by a comparison (held-out seed
    3651: ``y <= x.to(f32).to(int32).to(f32)``), LLVM folds them into the same trunc there — out of the integer's
    range (3e9, 2^70, NaN) a trunc; read by other code (5106: ``x.to(int16).to(f32) - 0.5``, which LLVM folds in the
    plain build only, x + 0.5 being blind to the sign of zero), the ring code reads it in Triton's: the saturating
    round trip (NaN → 0, or the integer's minimum through f64 or 64 bits)."""
    t = f"f{w}"
    ft = np.float32 if w == 32 else np.float64
    vals = np.array([3.0e9, -2.5, 2.0 ** 70, np.nan, -0.75], ft)
    xs = [int(v) for v in vals.view(np.uint32 if w == 32 else np.uint64)]
    one = int(ft(1.0).view(np.uint32 if w == 32 else np.uint64))
    for it in ints:
        thr = ft(_THRESHOLD[it])
        k = f"{thr.view(np.uint32 if w == 32 else np.uint64):0{w // 4}X}"
        body = (f"{{loc}}\n\tcvt.rzi.{t}.{t} %t, %a;\n\t"
                + (f"setp.ge.{t} %p1, %t, 0{'f' if w == 32 else 'd'}{k};\n\tselp.b{w} %d, {one}, 0, %p1;" if compared
                   else f"mov.b{w} %d, %t;"))
        text = _with_source(tmp_path, f"x0.to(tl.{it}).to(tl.float{w})", body, "x0", w=w)
        out, rep = _run(text, [[x] for x in xs], w=w, out_w=w)
        if compared:
            assert out == [one if np.trunc(v) >= thr else 0 for v in vals], it
        else:
            n = int(it[3:])
            # NaN converts to 0, or to the integer's minimum from an f64 or into 64 bits (as an sm_90 GPU does:
            # tests/test_sim_gpu_vectors.py)
            nan = -2.0 ** (n - 1) if w == 64 or n == 64 else 0.0
            sat = [nan if np.isnan(v) else float(int(min(max(np.trunc(v), -2.0 ** (n - 1)), 2.0 ** (n - 1) - 1)))
                   for v in vals]  # an integer: -0.75 gives +0
            assert out == [int(v) for v in np.array(sat, ft).view(np.uint32 if w == 32 else np.uint64)], it
        assert [i for i in _items(rep) if i[0].startswith("cvt")] == [(f"cvt.rzi.{t}.{t}", "note")] and not rep.errors
        assert ("native, as LLVM folds" if compared else f"native conversions through s{max(16, int(it[3:]))}") \
            in rep.items[0].reason


@pytest.mark.parametrize("w", [16, 32])
def test_trunc_of_casts_through_an_f64_widening_converts_from_f64(tmp_path, w):
    """``x.to(f64).to(int32).to(fT)`` of a narrower x (held-out seed 6651: a bf16 x, as ``cvt.rzi.bf16.bf16``): LLVM
    drops the exact f64, Triton's ring widens φ(x) to 64 bits and converts φ⁻¹ of that (saturating) — another
    integer than from the f32 widening."""
    t = {16: "bf16", 32: "f32"}[w]
    xs = [0x4020, 0xC049, 0x3F00] if w == 16 else [0x40200000, 0xC0490FDB, 0x3F000000]  # 2.5, -π, 0.5
    body = f"{{loc}}\n\tcvt.rzi.{t}.{t} %d, %a;"
    text = _with_source(tmp_path, f"x0.to(tl.float64).to(tl.int32).to(tl.{'bfloat16' if w == 16 else 'float32'})",
                        body, "x0", w=w, out_w=w)
    out, rep = _run(text, [[x] for x in xs], w=w, out_w=w)
    wide = R.float_cast(np.array(xs, np.uint64), t, "f64").view(np.float64)
    ints = [0 if np.isnan(v) else int(min(max(np.trunc(v), -2.0 ** 31), 2.0 ** 31 - 1)) for v in wide]
    # each integer is saturated or below 2^24, so its f32 is exact and one round to nearest even gives its bf16
    assert all(abs(v) < 1 << 24 or v in (2 ** 31 - 1, -2 ** 31) for v in ints)
    f32 = [int(b) for b in np.array(ints, np.float32).view(np.uint32)]
    want = [(b + 0x7FFF + ((b >> 16) & 1)) >> 16 for b in f32] if w == 16 else f32
    assert out == want
    assert "native conversions through s32 from the widened payload" in rep.items[0].reason and not rep.errors


@pytest.mark.parametrize("expr,via_f64", [("x0.to(tl.float64).to(tl.int64)", True),  # held-out seed 1473
                                           ("x0.to(tl.int64).to(tl.float64).to(tl.int64)", False),  # 7104
                                           # a choice of widened values: LLVM moves it below the fpext (170795)
                                           ("tl.minimum(x0.to(tl.float64), x1.to(tl.float64)).to(tl.int64)", True),
                                           ("tl.where(x0 > 0, x1.to(tl.float64), x0.to(tl.float64)).to(tl.int64)",
                                            True),
                                           ("tl.maximum(x0.to(tl.float64), 0.0).to(tl.int64)", True),  # φ(0) = 0
                                           # an arm computed at f64 is no widening of the f32 the cvt reads
                                           ("tl.maximum(x0.to(tl.float64), x1.to(tl.float64) * 3.0).to(tl.int64)",
                                            False)])
def test_f32_to_int_through_an_f64_cast_of_the_float_only(tmp_path, expr, via_f64):
    """``cvt.rzi.s64.f32 i, x`` is ``x.to(f64).to(int64)`` (the ring widens φ(x) to 64 bits first) only where the
    f64 is a cast of the float: of an integer (``x.to(int64).to(f64).to(int64)``, which Triton folds) the cvt is
    the first conversion, from f32."""
    body = "{loc}\n\tcvt.rzi.s64.f32 %rd7, %a;\n\tcvt.u32.u64 %d, %rd7;"
    _assert_f32_to_int64(_with_source(tmp_path, expr + ".to(tl.float32)", body, expr[:4]), via_f64)


def _assert_f32_to_int64(text: str, via_f64: bool) -> None:
    """``text``'s ``cvt.rzi.s64.f32`` (low word stored) converts the ring's widening to f64 (``via_f64``, reported
    "through f64") or the f32 itself."""
    xs = [0x40200000, 0xC0490FDB]
    out, rep = _run(text, [[x] for x in xs])
    src = R.float_cast(np.array(xs, np.uint64), "f32", "f64").view(np.float64) if via_f64 else \
        np.array(xs, np.uint32).view(np.float32).astype(np.float64)
    ints = [0 if np.isnan(v) else int(min(max(np.trunc(v), -2.0 ** 63), 2.0 ** 63 - 1)) for v in src]
    assert out == [i % (1 << 32) for i in ints]
    assert any("through f64" in i.reason for i in rep.items) == via_f64


@pytest.mark.parametrize("expr,via_f64", [("x0.to(tl.float64).to(tl.int64).to(tl.float32)", True),
                                           # the file converts an f32 to int64 directly too: no one answer
                                           ("x0.to(tl.float64).to(tl.int64).to(tl.float32) + x0.to(tl.int64)", False)])
def test_f32_to_int_with_no_location_is_the_files_one_form(tmp_path, expr, via_f64):
    """``cvt.rzi.s64.f32`` at line 0 (LLVM's "no location": the last of eight copies of ``a.to(f64).to(int32)`` in
    held-out seed 75724, left native silently before): the file's one form of an f32 → int64 conversion decides."""
    text = _with_source(tmp_path, expr, ".loc 1 0 0\n\tcvt.rzi.s64.f32 %rd7, %a;\n\tcvt.u32.u64 %d, %rd7;", "")
    _assert_f32_to_int64(text, via_f64)
    if via_f64:
        _assert_bit_exact("seed75724", folds=())


@pytest.mark.parametrize("expr", ["tl.minimum(x0.to(tl.float64), -2.5).to(tl.int64)",
                                  "tl.where(x0 > 0, x0.to(tl.float64), 3.0).to(tl.int64)",
                                  "tl.maximum(x0.to(tl.float64), -0.0).to(tl.int64)"])
def test_f32_to_int_of_a_choice_of_a_widening_and_a_constant_is_reported(tmp_path, expr):
    """A constant arm of the choice (other than 0.0) is φ_f64(c) in Triton's ring, which the ring widening of the f32
    constant LLVM selects is not: reported (hand kernels after held-out seed 170795, silent before in 24–97 of 128
    elements)."""
    body = "{loc}\n\tcvt.rzi.s64.f32 %rd7, %a;\n\tcvt.u32.u64 %d, %rd7;"
    _, rep = _run(_with_source(tmp_path, expr + ".to(tl.float32)", body, expr[:4]), [[0x40490FDB]])
    assert [i.severity for i in rep.items if i.opcode == "cvt.rzi.s64.f32"] == ["error"]


def test_f32_to_int_of_a_min_of_widened_values_is_tritons_bits():
    """``tl.minimum(x0.to(f64), x2.to(f64)).to(int16)`` of f32 values (held-out seed 170795, silent at first
    contact in 81/128): LLVM takes the min of the f32s and converts it to s16 directly; Triton's ring widens each
    payload, and their min's widening is the f64 the integer comes from — bit for bit."""
    assert "cvt.rzi.s16.f32" in (DATA / "seed170795.plain.ptx").read_text()
    _assert_bit_exact("seed170795", folds=())


def _through_f16(x: int) -> int:
    """Triton's ``x.to(int32).to(f16)`` promoted to f32: the native conversion to f16, then the ring widening
    of its payload (a sign extension)."""
    h = np.float16(int(np.array([x], np.uint32).view(np.float32)[0]))
    p = int(R.embed(np.array([h.view(np.uint16)], np.uint64), "f16")[0])
    return int(R.unembed(np.array([(p - (1 << 16) if p >> 15 else p) % (1 << 64)], np.uint64), "f32")[0])


@pytest.mark.parametrize("expr,anchor,form", [
    # the promotion of the half in an f32 add carries the add's location (held-out seed 594)
    ("x0 * x0 + x0.to(tl.int32).to(tl.float16)", "x0 * x0 +", "decided"),
    # or the elementwise call's (held-out seed 3220: tl.maximum of a half of an integer and a value)
    ("tl.maximum(x0.to(tl.int32).to(tl.float16), x0 * x0)", "tl.maximum", "decided"),
    # another location on a line that casts an integer to a half: reported, computed natively
    ("(x0 * x0).to(tl.int32).to(tl.float32) + x0.to(tl.int32).to(tl.float16)", "(x0 * x0)", "reported"),
    ("x0 * x0 + x0.to(tl.int32).to(tl.float32)", "x0 * x0 +", "native"),  # no half: native, no report
    # a scan's first row widened: its operand, the half (held-out seed 24917, silent at first contact)
    ("(tl.cumsum(x0.to(tl.int32).to(tl.float16), axis=0)).to(tl.float32)", "(tl.cumsum", "decided"),
    # of an f64 scan: Triton narrows the scan's ring value, no fold across the scan (held-out seed 24288, silent
    # behind another report at first contact, then while a first version took it for i.to(f32))
    ("(tl.cumsum(x0.to(tl.int32).to(tl.float64), axis=0)).to(tl.float32)", "(tl.cumsum", "decided64")])
def test_int_to_f32_through_a_dropped_half_at_a_promotion(tmp_path, expr, anchor, form):
    """``cvt.rn.f32.s32`` of an integer LLVM knows fits a half: Triton's ``i.to(f16)`` promoted to f32 by an
    add with an f32 widens the half's payload in the ring."""
    body = "{loc}\n\tcvt.rzi.s32.f32 %r1, %a;\n\tcvt.rn.f32.s32 %d, %r1;"
    xs = [0x3F800000, 0xC0490FDB, 0x42C80000, 0x00000000]  # 1, -π, 100, 0
    out, rep = _run(_with_source(tmp_path, expr, body, anchor), [[x] for x in xs])
    native = [int(np.float32(int(np.array([x], np.uint32).view(np.float32)[0])).view(np.uint32)) for x in xs]
    if form == "decided64":
        ints = np.trunc(np.array(xs, np.uint32).view(np.float32)).astype(np.float64).view(np.uint64)
        assert out == [int(v) for v in R.float_cast(ints, "f64", "f32")] != native
        assert [i.severity for i in rep.items if "i.to(f64)" in i.reason or i.severity == "error"] == ["note"]
        return
    assert out == ([_through_f16(x) for x in xs] if form == "decided" else native)
    assert [i.severity for i in rep.items if "i.to(f16)" in i.reason or i.severity == "error"] == {
        "decided": ["note"], "reported": ["error"], "native": []}[form]


LIB_SRC = """import triton.language as tl


def widen_then_max(input):
    input = input.to(tl.float32)
    return input
"""


@pytest.mark.parametrize("expr,decided", [("tl.max(x0.to(tl.int32).to(tl.float16), axis=0)", True),
                                          ("tl.max(x0.to(tl.int32).to(tl.float32), axis=0)", False)])
def test_int_to_f32_in_an_inlined_library_function_is_decided_at_its_call(tmp_path, expr, decided):
    """``tl.max`` widens a half input to f32 in Triton's standard.py (``input.to(core.float32)``), whose
    parameter says nothing: the cvt's ``inlined_at`` location, the user's call, names the half of an integer
    that LLVM dropped (held-out seed 4703: silent before)."""
    (tmp_path / "lib.py").write_text(LIB_SRC)
    col = LIB_SRC.splitlines()[4].index("input.to") + 1
    call = SRC.replace("EXPR", expr).splitlines()[EXPR_LINE - 1].index("tl.max") + 1
    body = ("{loc}\n\tcvt.rzi.s32.f32 %r1, %a;\n"
            f"\t.loc 2 5 {col}, function_name $L__info_string0, inlined_at 1 {EXPR_LINE} {call}\n"
            "\tcvt.rn.f32.s32 %d, %r1;")
    text = _with_source(tmp_path, expr, body, "tl.max") + f'\t.file\t2 "{tmp_path / "lib.py"}"\n'
    xs = [0x3F800000, 0xC0490FDB, 0x42C80000, 0x00000000]  # 1, -π, 100, 0
    out, rep = _run(text, [[x] for x in xs])
    native = [int(np.float32(int(np.array([x], np.uint32).view(np.float32)[0])).view(np.uint32)) for x in xs]
    assert out == ([_through_f16(x) for x in xs] if decided else native)
    notes = [i for i in rep.items if "i.to(f16)" in i.reason]
    assert [i.severity for i in notes] == (["note"] if decided else [])
    assert not rep.errors
    if decided:
        assert f"decided by the source at kernel.py:{EXPR_LINE}:{call}" in notes[0].reason


@pytest.mark.parametrize("expr,wider", [("tl.max(tl.abs(-x0.to(tl.float64)), axis=0)", True),
                                       ("tl.max(tl.abs(-x0.to(tl.float32)), axis=0)", False),
                                       ("tl.max(x0.to(tl.float64), axis=0)", False)])  # held-out seed 22539
def test_max_of_a_reduction_the_source_computes_wider_is_reported(tmp_path, expr, wider):
    """``tl.max(abs(-x.to(f64)))`` stored as f32 (held-out seed 12552, silent before): LLVM drops the widening and
    reduces with ``max.f32`` (max commutes with the exact fpext); Triton's FPSan widens, negates and reduces in the
    f64 ring. The reduction's ``inlined_at`` call names the f64 operand: an error; an f32 operand is the op itself,
    and so is a bare widening (the ring's sign extension keeps the payloads' signed order)."""
    (tmp_path / "lib.py").write_text(LIB_SRC)
    call = SRC.replace("EXPR", expr).splitlines()[EXPR_LINE - 1].index("tl.max") + 1
    body = (f"\t.loc 2 5 5, function_name $L__info_string0, inlined_at 1 {EXPR_LINE} {call}\n"
            "\tmax.f32 %d, %a, %b;")
    text = _with_source(tmp_path, expr, body, "tl.max", nin=2) + f'\t.file\t2 "{tmp_path / "lib.py"}"\n'
    _, rep = _run(text, [[0x3F800000, 0x40000000]])
    assert [(i.opcode, i.severity) for i in rep.errors] == ([("max.f32", "error")] if wider else [])
    if wider:
        assert f"kernel.py:{EXPR_LINE}:{call}: `tl.max(" in rep.errors[0].reason


def test_max_of_widened_values_narrowed_is_narrowed_from_the_wide_ring(tmp_path):
    """``tl.max(x.to(f64)).to(f16)`` of f32 values (held-out seed 22539, reported before): LLVM reduces the f32
    values and narrows them once; Triton's ring narrows the max of the sign-extended payloads from 64 bits, which
    is the 64-bit narrowing of the f32 max's sign extension: computed so, a note."""
    (tmp_path / "lib.py").write_text(LIB_SRC)
    expr = "tl.max(x0.to(tl.float64), axis=0)"
    call = SRC.replace("EXPR", expr).splitlines()[EXPR_LINE - 1].index("tl.max") + 1
    body = (f"\t.loc 2 5 5, function_name $L__info_string0, inlined_at 1 {EXPR_LINE} {call}\n"
            "\tmax.f32 %r9, %a, %b;\n\t{store}\n\tcvt.rn.f16.f32 %d, %r9;")
    text = _with_source(tmp_path, expr, body, "tl.max", nin=2, out_w=16) + f'\t.file\t2 "{tmp_path / "lib.py"}"\n'
    rows = [[0x3F800000, 0x40490FDB], [0xC0A00000, 0x3DCCCCCD]]
    out, rep = _run(text, rows, out_w=16)
    top = np.array([0x40490FDB, 0x3DCCCCCD], np.uint64)  # the larger payload (φ keeps these ones' order)
    wide = R.float_cast(R.float_cast(top, "f32", "f64").astype(np.uint64), "f64", "f16")
    assert out == [int(v) for v in wide] != [int(v) for v in R.float_cast(top, "f32", "f16")]
    assert not rep.errors and ("cvt.rn.f16.f32", "note") in _items(rep)


@pytest.mark.parametrize("expr,folded", [("x0.to(tl.int64).to(tl.bfloat16).to(tl.int32)", True),
                                        ("x0.to(tl.int64).to(tl.int32)", False)])
def test_int_round_trip_through_a_float_folded_by_llvm_is_reported(tmp_path, expr, folded):
    """``i.to(bf16).to(int32)`` of an int64 i that came from a bf16 (held-out seed 13142, silent before): LLVM folds
    the exact round trip into ``cvt.u32.u64``; Triton's FPSan widens the bf16 in the ring before converting back.
    An integer conversion the source writes as one stays native and unreported."""
    body = "{loc}\n\tcvt.u32.u64 %d, %a;\n\tmul.f32 %r1, %r2, %r3;"  # (float work: a function without is skipped)
    text = _with_source(tmp_path, expr, body, "x0", w=64, out_w=32)
    _, rep = _run(text, [[5]], w=64, out_w=32)
    assert [(i.opcode, i.severity) for i in rep.errors] == ([("cvt.u32.u64", "error")] if folded else [])


REDUCE_SRC = """import triton
import triton.language as tl


def _sum_combine(a, b):
    return a + b


def _wide_combine(a, b):
    return a.to(tl.float32) + b.to(tl.float32)


def k(x):
    return tl.reduce(x, 0, COMBINE)
"""


@pytest.mark.parametrize("combine,decided", [("_sum_combine", True), ("_wide_combine", False)])
def test_half_op_at_a_reduce_call_is_its_combine_on_the_element_type(tmp_path, combine, decided):
    """LLVM gives a reduction tree it vectorised (``add.bf16x2``) the ``core.reduce`` call's location in
    Triton's standard.py (held-out seed 42: ``tl.sum`` of bf16): the combine there, ``return a + b`` of its two
    parameters, adds the tensor's own elements, so the op is half arithmetic (native). A combine that casts
    is not read: undecided, reported."""
    src = REDUCE_SRC.replace("COMBINE", combine)
    (tmp_path / "standard.py").write_text(src)
    col = src.splitlines()[13].index("tl.reduce") + 1
    text = _kernel(f".loc 1 14 {col}\n\tadd.bf16 %d, %a, %b;", w=16, nin=2)
    text += f'\t.file\t1 "{tmp_path / "standard.py"}"\n'
    xs = [[0x3F80, 0x4000], [0xC040, 0x3E80]]
    out, rep = _run(text, xs, w=16)
    ring = [int(R.float_binop("add", np.array([a], np.uint64), np.array([b], np.uint64), "bf16")[0]) for a, b in xs]
    assert out == ring  # native half arithmetic either way (the default when undecided)
    assert _items(rep) == [("add.bf16", "note" if decided else "error")]


def test_self_add_shared_with_a_libdevice_body_takes_the_lines_form(tmp_path):
    """``a * 2.0`` that LLVM shared with ``pow(a, a)``'s own x + y test carries the call's location (held-out
    seed 2348): the line's one form on a loaded value decides it."""
    text = _with_source(tmp_path, "libdevice.pow(x0, x0) * (x0 * 2.0)", K_BODY, "libdevice")
    out, rep = _run(text, [[HALF], [ONE]])
    assert out == [MUL_2_HALF, TWO] and _items(rep) == [("add.f32", "note")]


def test_a_reassigned_name_resolves_to_the_assignment_before_its_use(tmp_path):
    """Straight-line kernels reassign names (``a = tl.load(..)`` then ``a = (a * 2.0).to(..)``, seed 2348): a
    read takes the last assignment before its statement; in a branch, or before any assignment, unknown."""
    from ptxkit.fpsan.source_ast import _DEPTH, OWN, SourceFile, _width
    src = ("def k(p):\n    a = tl.load(p)\n    a = (a * 2.0).to(tl.float64)\n    b = a + a\n"
           "    if p:\n        c = 1.0\n    else:\n        c = 2.0\n    d = c * 2.0\n")
    (tmp_path / "s.py").write_text(src)
    f = SourceFile.read(tmp_path / "s.py")
    assert f is not None
    uses = {(n.lineno, n.id): n for n in ast.walk(f.tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    assert _width(f, uses[(3, "a")], _DEPTH) == OWN  # the load before line 3
    assert _width(f, uses[(4, "a")], _DEPTH) == 64  # line 3's .to(tl.float64)
    assert _width(f, uses[(9, "c")], _DEPTH) is None  # assigned in branches: unknown


@pytest.mark.parametrize("expr", ["tl.abs(x0.to(tl.float64))", "tl.abs((-x0.to(tl.float64)))",  # 22064: negated
                                  # a choice of one value (held-out seed 24945, reported before)
                                  "tl.abs(tl.where(x0 <= x0, x0.to(tl.float64), x0.to(tl.float64)))"])
def test_abs_of_a_cast_decided_at_the_abs_call_the_cvt_carries(tmp_path, expr):
    """LLVM's ``abs(x).to(f64)`` for ``tl.abs(x.to(tl.float64))`` with the sign-bit ``and`` hoisted to the load
    and the cvt at the abs call's column (held-out seed 1403): the order is told there — Triton's ring cast of
    x, then abs of its f64 bits (as written, the ring cast of |x| differs). Of ``-x.to(f64)`` the same (held-out
    seed 22064, reported before): |·| of the ring's negation is |·| of the value, ±0 included."""
    body = "and.b32 %t, %a, 2147483647;\n\t{loc}\n\tcvt.f64.f32 %d, %t;"
    xs = [0xC0490FDB, 0x3DCCCCCD, 0xBF800000]
    out, rep = _run(_with_source(tmp_path, expr, body, "tl.abs", out_w=64), [[x] for x in xs], out_w=64)
    wide = R.float_cast(np.array(xs, np.uint64), "f32", "f64")
    assert out == [int(v) & ~(1 << 63) for v in wide]
    assert not rep.errors


@pytest.mark.parametrize("expr,decided", [("x1.to(tl.float64) + tl.abs(x0.to(tl.float64))", True),
                                          # both orders in the file: no one answer
                                          ("tl.abs(x0.to(tl.float64)) + tl.abs(x1).to(tl.float64)", False)])
def test_abs_of_a_cast_at_no_location_is_the_one_form_in_the_file(tmp_path, expr, decided):
    """The sign-bit ``and`` and the cvt at LLVM's "no location" (line 0; held-out seed 61338, a reported mismatch
    before: ``log2(x.to(f64) + abs(y.to(f64)))`` in a cumsum): the file's one abs-next-to-a-cast form decides."""
    body = ".loc 1 0 9\n\tand.b32 %t, %a, 2147483647;\n\tcvt.f64.f32 %d, %t;"
    xs = [0xC0490FDB, 0x3DCCCCCD, 0xBF800000]
    out, rep = _run(_with_source(tmp_path, expr, body, "", out_w=64), [[x] for x in xs], out_w=64)
    if decided:
        wide = R.float_cast(np.array(xs, np.uint64), "f32", "f64")
        assert out == [int(v) & ~(1 << 63) for v in wide]
    assert (not rep.errors) == decided


def test_abs_of_a_cast_decided_across_a_join_of_a_masked_load(tmp_path):
    """The sign-bit ``and`` of a masked load (its default ``mov`` and the guarded ``ld``: two writes) at line 0, and
    the cvt reading it past a libdevice body's join (held-out seed 24369, reported before): x is the same value at
    both, so the abs call the cvt's location names decides (Triton's ring cast of x, then abs of its f64 bits)."""
    body = ("mov.b32 %c, 0;\n\tsetp.ne.u32 %p1, %i, 99;\n\t@%p1 mov.b32 %c, %a;\n\t.loc 1 0 9\n\t"
            "and.b32 %t, %c, 2147483647;\n\t@%p1 bra $L__BB0_2;\n\tmov.b32 %u, 0;\n$L__BB0_2:\n\t{loc}\n\t"
            "cvt.f64.f32 %d, %t;")
    xs = [0xC0490FDB, 0x3DCCCCCD, 0xBF800000]
    out, rep = _run(_with_source(tmp_path, "tl.abs(x0.to(tl.float64))", body, "tl.abs", out_w=64), [[x] for x in xs],
                    out_w=64)
    wide = R.float_cast(np.array(xs, np.uint64), "f32", "f64")
    assert out == [int(v) & ~(1 << 63) for v in wide]
    assert not rep.errors


@pytest.mark.parametrize("expr", ["x0 + tl.where(x1 > 0, -x1, -x1)",  # a negation in the op's type
                                  "x0 + (-x1.to(tl.float64)).to(tl.float16)"])  # through f64: not the ring's
def test_a_half_sub_at_an_add_stays_undecided(tmp_path, expr):
    """LLVM's ``x - y`` for ``x + (-y)``: the same in the ring only where -y is a negation in the half's own
    type; through another type (held-out 807: ``(-x.to(f64)).to(bf16)``, 2238: a sum of such values) it is
    not, and both give this PTX: an Add at a ``sub.f16`` decides nothing (reported; it was decided, silently
    wrong, for a while this session)."""
    text = _with_source(tmp_path, expr, "{loc}\n\tsub.f16 %d, %a, %b;", "x0 +", nin=2, w=16)
    out, rep = _run(text, [list(r) for r in zip(A16, B16)], w=16)
    assert out == [int(v) for v in R.float_binop("sub", np.array(A16, np.uint64), np.array(B16, np.uint64), "f16")]
    # (through f64 the source's round trip is reported at the store too: ptxkit.fpsan.folded_negations)
    assert [i for i in _items(rep) if i[0] != "st.global.b16"] == [("sub.f16", "error")]


@pytest.mark.parametrize("expr", [
    "x0.to(tl.float16).to(tl.float64).to(tl.int32)",  # (the receiver's width known: a half)
    # held-out seed 4383 (silent at first contact): through a choice of one value
    "tl.where(x0 > 0, x0.to(tl.float16).to(tl.float64), x0.to(tl.float16).to(tl.float64)).to(tl.int32)",
    # held-out seed 73774 (silent at first contact): an arm a choice of one value itself
    "tl.where(x0 > 0, tl.minimum(x0.to(tl.float16).to(tl.float64), x0.to(tl.float16).to(tl.float64)), "
    "x0.to(tl.float16).to(tl.float64)).to(tl.int32)"])
def test_half_to_int_through_f64_widened_to_f32_by_llvm(tmp_path, expr):
    """``h.to(tl.float64).to(tl.int32)`` of a half as ``cvt.f32.f16`` and ``cvt.rzi.s32.f32`` (held-out seed
    3282: LLVM widens to f32, exact, and drops the f64): Triton's ring widening to f64, then the conversion."""
    body = "cvt.f32.f16 %t, %a;\n\t{loc}\n\tcvt.rzi.s32.f32 %d, %t;"
    hs = [0x1313, 0x1F1F, 0x2222, 0x3939]  # halves whose ring widenings to f32 and to f64 convert differently
    out, rep = _run(_with_source(tmp_path, expr, body, "tl.where" if expr.startswith("tl.where") else "x0", w=16,
                                 out_w=32), [[h] for h in hs], w=16, out_w=32)
    wide = R.float_cast(np.array(hs, np.uint64), "f16", "f64").astype(np.uint64).view(np.float64)
    assert out == [int(np.clip(np.trunc(v), -2**31, 2**31 - 1)) & 0xFFFFFFFF if v == v else 0 for v in wide]
    assert ("cvt.rzi.s32.f32", "note") in _items(rep) and not rep.errors
    if "minimum" in expr:
        _assert_bit_exact("seed73774", folds=())


def test_half_abs_read_by_a_widening_half_op_is_reported(tmp_path):
    """``tl.abs(x.to(f32)) + y.to(f32)`` narrowed to ``add.f16`` of LLVM's ``|x|`` (held-out seed 3424, silent
    at first contact): the add is f32 arithmetic on widened halves in the source, whose ring widening of x does
    not commute with abs — reported; a genuine half add of |x| is not."""
    body = "and.b16 %t, %a, 32767;\n\t{store}\n\tadd.f16 %d, %t, %b;"
    for expr, reported in (("tl.abs(x0.to(tl.float32)) + x1.to(tl.float32)", True), ("tl.abs(x0) + x1", False)):
        text = _with_source(tmp_path, expr, body if reported else body.replace("{store}", "{loc}"), "tl.abs",
                            nin=2, w=16)
        _, rep = _run(text, [list(r) for r in zip(A16, B16)], w=16)
        assert (("and.b16", "error") in _items(rep)) == reported, (expr, rep.items)


def test_packed_abs_of_halves_widened_after_is_the_abs_of_the_ring_cast(tmp_path):
    """``tl.abs(x.to(tl.float32))`` of bf16 values as ``abs.bf16x2`` of a packing, unpacked and widened lane by
    lane (held-out seed 540): each lane is Triton's ring cast of x, then abs of its f32 bits; a note."""
    body = ("{loc}\n\tmov.b32 %r1, {{%a, %b}};\n\tabs.bf16x2 %r2, %r1;\n\tmov.b32 {{%h1, %h2}}, %r2;"
            "\n\tcvt.f32.bf16 %d, %h1;\n\tcvt.f32.bf16 %r4, %h2;")
    xs = [0xC049, 0x3DCD, 0xBF80, 0x8000]  # bf16: -π, 0.1, -1, -0
    text = _with_source(tmp_path, "tl.abs(x0.to(tl.float32))", body, "tl.abs", nin=2, w=16, out_w=32)
    out, rep = _run(text, [[x, 0x3F80] for x in xs], w=16, out_w=32)
    wide = R.float_cast(np.array(xs, np.uint64), "bf16", "f32")
    assert out == [int(v) & 0x7FFFFFFF for v in wide]
    assert out != [int(v) for v in R.float_cast(np.array([x & 0x7FFF for x in xs], np.uint64), "bf16", "f32")]
    assert not _errors(rep) and ("abs.bf16x2", "note") in _items(rep)


def test_a_libdevice_calls_width_is_its_explicitly_typed_arguments(tmp_path):
    """``libdevice.tanh(x.to(tl.float32))`` is f32 (held-out seed 1437: abs(fma(tanh(..), ..)).to(bf16) decided
    by it); of a loaded value (its type unknown: a half would not even compile) it stays unknown."""
    from ptxkit.fpsan.source_ast import _DEPTH, SourceFile, _width
    (tmp_path / "s.py").write_text("def k(p):\n    x = tl.load(p)\n    a = libdevice.tanh(x.to(tl.float32))\n"
                                   "    b = libdevice.pow(x.to(tl.float64), 2.0)\n    c = libdevice.tanh(x)\n"
                                   "    d = tl.sin(x) / 3.0 + x.to(tl.float64)\n    e = c + x.to(tl.float32)\n"
                                   "    g = libdevice.pow(x.to(tl.float64), x)\n")
    f = SourceFile.read(tmp_path / "s.py")
    assert f is not None
    values = {n.targets[0].id: n.value for n in ast.walk(f.tree) if isinstance(n, ast.Assign)}
    # an f64 side makes a sum f64 whatever the other (held-out seed 25688), and a call's arguments are promoted
    # likewise (held-out seed 67624: abs(where(c, pow(x.to(f64), y), ..)).to(f32), reported as no source saying
    # the abs/cvt order); an f32 side does not say
    assert [_width(f, values[k], _DEPTH) for k in "abcdeg"] == [32, 64, None, 64, None, 64]
    _assert_bit_exact("seed67624", folds=())


@pytest.mark.parametrize("expr", ["tl.abs(x0.to(tl.float64))", "tl.cumsum(tl.abs(x0.to(tl.float64)), axis=0)",
                                  # the narrowed value's abs too: one and (held-out seed 24703, silent before)
                                  "tl.abs(tl.abs(x0.to(tl.float64)).to(tl.float16))"])
def test_abs_of_a_widened_value_narrowed_after_is_computed_through_f64(tmp_path, expr):
    """``tl.abs(x.to(tl.float64))`` stored as f16 of an f32 x: LLVM drops the exact widening and emits
    ``cvt.rn.f16.f32`` then the sign-bit ``and`` (held-out seed 1180). Triton's ring widens x to f64, takes
    |·| of those bits, then narrows: computed so, a note (as written, |cvt(x)|, it differs). Likewise a scan's
    first row, its operand (held-out seed 22343, reported before), and ``abs(abs(x.to(f64)).to(f16))`` at the
    inner cast's location, whose one ``and`` is both abs calls (held-out seed 24703, silent before)."""
    outer = expr.startswith("tl.abs(tl.abs")
    cvt, and_at = ("{loc}", "{store}") if outer else ("{store}", "")  # (the outer abs's and sinks to the store)
    body = f"{cvt}\n\tcvt.rn.f16.f32 %h1, %a;\n\t{and_at}\n\tand.b16 %d, %h1, 32767;"
    xs = [0xC0490FDB, 0x3DCCCCCD, 0xBF800000, 0x47800000]
    out, rep = _run(_with_source(tmp_path, expr, body, "tl.abs(x0" if outer else "", out_w=16), [[x] for x in xs],
                    out_w=16)
    wide = R.float_cast(np.array(xs, np.uint64), "f32", "f64")
    want = [int(v) & (0x7FFF if outer else 0xFFFF)
            for v in R.float_cast(wide & np.uint64((1 << 63) - 1), "f64", "f16")]
    as_written = [int(v) & 0x7FFF for v in R.float_cast(np.array(xs, np.uint64), "f32", "f16")]
    assert out == want and out != as_written
    assert [i for i in _items(rep) if i[0] == "and.b16"] == [("and.b16", "note")]
    if outer:  # the and at the inner cast's location: the outer abs call encloses it, yet takes an f64's cast
        body = "{loc}\n\tcvt.rn.f16.f32 %h1, %a;\n\tand.b16 %d, %h1, 32767;"
        out, _ = _run(_with_source(tmp_path, expr, body, "tl.abs(x0", out_w=16), [[x] for x in xs], out_w=16)
        assert out == want


@pytest.mark.parametrize("expr", ["tl.abs(x0).to(tl.float64)", "tl.where(x0 != x0, x0, tl.abs(x0))",
                                  "tl.abs(x0 / x0)"])  # uncast arithmetic, promoted or not (held-out seed 24090)
def test_abs_widened_then_narrowed_is_the_ring_cast_of_the_abs(tmp_path, expr):
    """``tl.abs(x).to(tl.float64)`` stored as f16 of an f32 x (held-out seed 21785, reported before): LLVM narrows
    x once and moves the sign-bit ``and`` to the store; Triton's pipeline folds the exact widening the narrowing
    reads, so its ring casts |x| from f32: computed so, a note (as written, |cvt(x)|, it differs). The abs arm of a
    select narrowed (held-out seed 23249: LLVM sinks the cvt into the arms) likewise."""
    body = "{store}\n\tcvt.rn.f16.f32 %h1, %a;\n\tand.b16 %d, %h1, 32767;"
    xs = [0xC0490FDB, 0x3DCCCCCD, 0xBF800000, 0x47800000]
    out, rep = _run(_with_source(tmp_path, expr, body, "", out_w=16), [[x] for x in xs], out_w=16)
    want = [int(v) for v in R.float_cast(np.array(xs, np.uint64) & np.uint64(0x7FFFFFFF), "f32", "f16")]
    as_written = [int(v) & 0x7FFF for v in R.float_cast(np.array(xs, np.uint64), "f32", "f16")]
    assert out == want and out != as_written
    assert _items(rep) == [("and.b16", "note")]


@pytest.mark.parametrize("expr,form", [("-tl.abs(x0)", "outside"), ("-tl.abs(x0 * 2.0 - x0)", "outside"),
                                       ("-tl.abs(x0.to(tl.float16))", "inside"),
                                       # an f64 between: no sign extension of the f32 payload, undecided
                                       ("-tl.abs(x0.to(tl.float64))", None)])
def test_negated_abs_below_a_narrowing_follows_the_sources_order(tmp_path, expr, form):
    """``(-tl.abs(x)).to(f16)`` of an f32 x as ``cvt.rn.f16.f32`` then the sign-bit ``or`` (held-out seed 67953,
    reported at first contact: LLVM moves −|·| below the IEEE cast, with which it commutes): Triton's ring takes
    |x| and negates it at f32, then narrows with its hash — computed so, a note. ``-abs(x.to(f16))`` is the
    PTX's order (a note); an f64 between is undecided (an error)."""
    at = "{loc}" if form == "inside" else "{store}"
    body = at + "\n\tcvt.rn.f16.f32 %h1, %a;\n\tor.b16 %d, %h1, 0x8000;"
    xs = [0xC0490FDB, 0x3DCCCCCD, 0x80000000, 0x00000000, 0x47800000]
    out, rep = _run(_with_source(tmp_path, expr, body, "x0.to" if form == "inside" else "", out_w=16),
                    [[x] for x in xs], out_w=16)
    mag = np.array(xs, np.uint64) & np.uint64(0x7FFFFFFF)
    neg = np.where(mag != 0, mag | np.uint64(0x80000000), mag)  # the ring negation of |x| (−0's payload is 0)
    before = [int(v) for v in R.float_cast(neg.astype(np.uint64), "f32", "f16")]
    half = R.float_cast(np.array(xs, np.uint64), "f32", "f16").astype(np.uint64) & np.uint64(0x7FFF)
    after = [int(v) for v in np.where(half != 0, half | np.uint64(0x8000), half)]
    assert before != after  # the vectors tell the two orders apart
    if form is not None:  # (an f64's narrowing is computed through f64 at the cvt, reported there)
        assert out == (before if form == "outside" else after)
    said = [s for o, s in _items(rep) if o == "or.b16"]
    assert said == (["error"] if form is None else ["note"])
    if expr == "-tl.abs(x0)":
        _assert_bit_exact("seed67953", folds=())


@pytest.mark.parametrize("expr,reported", [("(x0 * 0.0).to(tl.int32).to(tl.float32) - 0.5", True),
                                           ("-0.5", False), ("x0", False)])
def test_a_stored_constant_llvm_folded_from_float_arithmetic_is_reported(tmp_path, expr, reported):
    """``((2.0 * (0.0 * x)).to(int64).to(f64) - 0.5).to(f32)`` is stored as ``mov.b32 r, -0.5`` (held-out seed
    2690): no float instruction is left, and Triton's FPSan stores the ring value of that arithmetic; the PTX
    of a literal ``-0.5`` is the same, so the source decides: an error for the arithmetic (the IEEE bits are
    stored as they are), nothing for a literal or a loaded value."""
    text = _with_source(tmp_path, expr, f"mov.b16 %d, 0xB800;\n\t.loc 1 {STORE_LINE} 5", "", w=16)  # tl.store
    out, rep = _run(text, [[0x3C00]], w=16)
    assert out == [0xB800]
    assert [(i.opcode, i.severity) for i in rep.items] == ([("st.global.b16", "error")] if reported else [])


@pytest.mark.parametrize("expr,reported", [("-((0.0 * x0).to(tl.int64).to(tl.bfloat16) * 2.0)", True),
                                           ("-0.0", False)])
def test_a_stored_conversion_of_a_folded_constant_is_reported(tmp_path, expr, reported):
    """Held-out seed 148854 (silent at first contact, 53 of 64): LLVM folds ``-(c * 2.0)`` of ``c`` a conversion
    of ``(0.0 * x).to(int64)`` (0 wherever it is defined) into the constant −0.0 and keeps its conversion to f16:
    ``cvt.rn.f16.bf16`` of ``mov.b16 0x8000``; Triton's ring gives +0.0 (−φ(0) = 0). The stored register is a
    conversion of an immediate: reported for the arithmetic, not for a literal."""
    body = f"mov.b16 %h1, 0x8000;\n\tcvt.rn.f16.bf16 %d, %h1;\n\t.loc 1 {STORE_LINE} 5"
    out, rep = _run(_with_source(tmp_path, expr, body, "", w=16), [[0x3C00]], w=16)
    assert out == [0x8000]
    assert ("st.global.b16", "error") in _items(rep) if reported else ("st.global.b16", "error") not in _items(rep)


@pytest.mark.parametrize("expr", ["(-x0.to(tl.float32)).to(tl.float16) != (-x0)", "tl.abs(x0) != tl.abs(x0)",
                                  "-x0 != -(x0.to(tl.float32))"])
def test_self_compare_of_a_negation_or_abs_is_reported(tmp_path, expr):
    """Held-out seed 3710: LLVM folds ``-x != -x`` (also through casts, and of ``abs``) into ``setp.nan x, x``;
    Triton compares the bits of the ring's −φ(x), whose NaN-ness is not x's: an error, never x's own test
    silently, where the two sides are no one negation (below)."""
    body = "{loc}\n\tsetp.nan.f16 %p1, %a, %a;\n\tselp.b16 %d, 1, 0, %p1;"
    anchor = "tl.abs" if expr.startswith("tl.abs") else "-x0" if expr.startswith("-") else "(-x0"
    _, rep = _run(_with_source(tmp_path, expr, body, anchor, w=16), [[0x7E00], [0x3C00]], w=16)
    assert ("setp.nan.f16", "error") in _items(rep)


@pytest.mark.parametrize("expr,to", [("-x0 != -x0", None), ("(x0 * -1.0) != (-x0)", None),
                                     ("(-x0.to(tl.float64)) != (-x0.to(tl.float64))", "f64"),
                                     ("-x0.to(tl.bfloat16) != -x0.to(tl.bfloat16)", "bf16")])
def test_self_compare_of_one_negation_tests_the_ring_negation(tmp_path, expr, to):
    """``-x != -x`` and ``-(x.to(T)) != -(x.to(T))`` as ``setp.nan.f16 p, x, x`` (held-out seeds 202460, 186951,
    reported before): the NaN-ness of the bits of the ring's negation of φ(x) (of its ring cast to T), hand-computed
    with the ring helpers (fpsan.md §1)."""
    body = "{loc}\n\tsetp.nan.f16 %p1, %a, %a;\n\tselp.b16 %d, 1, 0, %p1;"
    xs = [0x7E00, 0x3C00, 0xC500, 0x7C00, 0x0000, 0x8000, 0x0192, 0x7EAB, 0xFD56, 0x0329, 0x7E44, 0xFC85]
    out, rep = _run(_with_source(tmp_path, expr, body, expr[:3], w=16), [[x] for x in xs], w=16)
    t = to or "f16"
    v = R.embed(R.float_cast(np.array(xs, np.uint64), "f16", t).astype(np.uint64) if to else np.array(xs, np.uint64), t)
    w = R.ring(t).w
    bits = R.unembed(R.neg(v, w), t)
    sign, inf = 1 << (w - 1), {"f16": 0x7C00, "bf16": 0x7F80, "f64": 0x7FF << 52}[t]
    want = [int((int(b) & (sign - 1)) > inf) for b in bits]
    # (the negation in x's own ring keeps NaN-ness; after a ring cast it does not)
    assert out == want and (want != [int((x & 0x7FFF) > 0x7C00) for x in xs]) == (to is not None)
    assert [s for o, s in _items(rep) if o == "setp.nan.f16"] == ["note"]


@pytest.mark.parametrize("name", ["seed202460", "seed186951"])
def test_self_compare_of_one_negation_pairs(name):
    _assert_bit_exact(name, folds=())


@pytest.mark.parametrize("expr,want", [("x0.to(tl.float64) != x0.to(tl.float64)", "f64"),
                                       ("x0.to(tl.bfloat16) != x0.to(tl.bfloat16)", "bf16"),
                                       # held-out seed 3028: where/maximum of one value twice are that value
                                       ("tl.where(x0 > 0, x0.to(tl.float64), x0.to(tl.float64))"
                                        " != tl.maximum(x0.to(tl.float64), x0.to(tl.float64))", "f64"),
                                       ("x0 != x0", None)])
def test_self_compare_of_casts_to_any_other_type_is_decided(tmp_path, expr, want):
    """``setp.nan.f16 p, x, x`` from a comparison of two equal casts of x (held-out seed 2354: to f64, which
    crashed the decision, KeyError; 2650: to the other 16-bit type): the cast's type decides, its NaN-ness
    of the ring cast's bits is computed; ``x != x`` is x's own (native, a note)."""
    body = "{loc}\n\tsetp.nan.f16 %p1, %a, %a;\n\tselp.b16 %d, 1, 0, %p1;"
    xs = [0x7E00, 0x3C00, 0xC500, 0x7C00]
    anchor = "tl.where" if expr.startswith("tl.where") else "x0"  # the outer Compare's column
    out, rep = _run(_with_source(tmp_path, expr, body, anchor, w=16), [[x] for x in xs], w=16)
    if want is None:
        assert out == [int((x & 0x7FFF) > 0x7C00) for x in xs] and not rep.errors
        return
    cast = R.float_cast(np.array(xs, np.uint64), "f16", want)  # the bits of Triton's ring cast
    w = {"f64": 64, "bf16": 16}[want]
    above = {"f64": 0x7FF0000000000000, "bf16": 0x7F80}[want]
    assert out == [int((int(c) & ((1 << (w - 1)) - 1)) > above) for c in cast]
    assert out != [int((x & 0x7FFF) > 0x7C00) for x in xs]  # not x's own NaN-ness
    assert ("setp.nan.f16", "note") in _items(rep)


@pytest.mark.parametrize("expr,want", [("tl.where(x0 < 1.0, x0, x0.to(tl.float64) != x0.to(tl.float64))", "f64"),
                                       ("x0 < 1.0", None)])  # no self-comparison on the line: undecided
@pytest.mark.parametrize("loc", ["9 0", "0 31"])
def test_self_compare_at_column_0_is_decided_by_the_lines_self_comparison(tmp_path, expr, want, loc):
    """Held-out seed 8641 (silent, behind reported half ops): ``x1.to(f32) == x1.to(f32)`` of an f64 x1 as
    ``setp.num.f64 x1, x1`` at column 0 of its line (LLVM's merged location after a sin body) was taken for Triton's
    own test of its values (native): the line's one self-comparison decides; none, undecided. At line 0 (no
    location: held-out seed 22220, a test scheduled after a log body, silent at first contact) the file's."""
    body = f".loc 1 {loc}\n\tsetp.nan.f16 %p1, %a, %a;\n\tselp.b16 %d, 1, 0, %p1;"
    xs = [0x7E00, 0x3C00, 0xC500, 0x7C00]
    out, rep = _run(_with_source(tmp_path, expr, body, "", w=16), [[x] for x in xs], w=16)
    if want is None:
        assert ("setp.nan.f16", "error") in _items(rep)
        return
    cast = R.float_cast(np.array(xs, np.uint64), "f16", "f64")
    assert out == [int((int(c) & ((1 << 63) - 1)) > 0x7FF0000000000000) for c in cast]
    assert ("setp.nan.f16", "note") in _items(rep)


@pytest.mark.parametrize("expr,anchor", [("x0 / x1", "x0 / x1"), ("x0.to(tl.float32) / x1.to(tl.float32)", "x0.to")])
def test_half_division_compared_in_f32_is_the_f32_ring_division(tmp_path, expr, anchor):
    """``x.to(bf16) / y.to(bf16) <= x.to(bf16)`` as ``div.full.f32`` of the widened halves compared without a
    narrowing: Triton's true division promotes halves to f32 (semantic.computation_type_impl: div_or_mod), so its
    FPSan divides the ring-widened payloads in f32 — the PTX as written, nothing to report. (Stop 30 reported it,
    taking held-out seed 10869's mismatch for this; that was one cvt for two widenings, test_fpsan_merged_half_int.)"""
    body = ("cvt.f32.f16 %r1, %a;\n\tcvt.f32.f16 %r2, %b;\n\t{loc}\n\tdiv.full.f32 %r3, %r1, %r2;\n\t"
            "setp.le.f32 %p1, %r3, %r1;\n\tselp.b16 %d, 1, 0, %p1;")
    out, rep = _run(_with_source(tmp_path, expr, body, anchor, nin=2, w=16), [list(r) for r in zip(A16, B16)], w=16)
    a = R.float_cast(np.array(A16, np.uint64), "f16", "f32")
    q = R.float_binop("div", a, R.float_cast(np.array(B16, np.uint64), "f16", "f32"), "f32")
    f32 = [struct.unpack("<f", struct.pack("<I", int(v)))[0] for v in (*q, *a)]
    assert out == [int(f32[k] <= f32[k + len(A16)]) for k in range(len(A16))]
    assert not any(sev == "error" for _, sev in _items(rep))


def test_narrowed_f64_op_in_a_select_arm_is_decided_by_the_arm(tmp_path):
    """Held-out seed 10698 (silent at first contact): ``where(c, y.to(f64), y.to(f64) - 0.5).to(f32)`` — LLVM sinks the
    fptrunc into the select's arms and narrows the f64 sub to ``add.f32 y, -0.5`` under the cast's location: Triton's
    f64 ring sub of the widened payload, narrowed."""
    expr = "tl.where(x0 > 0, x0.to(tl.float64), x0.to(tl.float64) - 0.5).to(tl.float32)"
    out, rep = _run(_with_source(tmp_path, expr, "{loc}\n\tadd.f32 %d, %a, 0fBF000000;", "tl.where"), [[x] for x in XS])
    wide = R.float_cast(np.array(XS, np.uint64), "f32", "f64").astype(np.uint64)
    half = np.full(len(XS), 0xBFE0000000000000, np.uint64)
    want = [int(v) for v in R.float_cast(R.float_binop("add", wide, half, "f64").astype(np.uint64), "f64", "f32")]
    assert out == want and _items(rep) == [("add.f32", "note")]


@pytest.mark.parametrize("imm,want", [("0fBF800000", "f32"),  # floor(x0) - 1.0: the f32 op
                                      ("0f3F800000", "f64"),  # (x0.to(f64) + 1.0).to(f32): narrowed by LLVM
                                      ("0f40000000", "both")])  # neither constant: the location does not say
def test_f32_op_at_column_0_of_a_line_with_a_narrowed_f64_op(tmp_path, imm, want):
    """Held-out seed 9335 (silent at first contact): ``floor(h.to(f32)) - 0.5`` at column 0 of the line of
    ``(h.to(f64) + 1.0).to(f32)`` was taken for the narrowed f64 add. At column 0 both are candidates: the op's
    constant tells them apart (a - c is add a, -c); where it does not, the f32 op is sanitized and reported."""
    expr = "(x0.to(tl.float64) + 1.0).to(tl.float32) * (tl.floor(x0) - 1.0)"
    out, rep = _run(_with_source(tmp_path, expr, f".loc 1 9 0\n\tadd.f32 %d, %a, {imm};", ""), [[x] for x in XS])
    plain = [int(v) for v in R.float_binop("add", np.array(XS, np.uint64),
                                           np.full(len(XS), int(imm[2:], 16), np.uint64), "f32")]
    if want == "f32":
        assert out == plain and not rep.items
    elif want == "f64":
        assert _items(rep) == [("add.f32", "note")] and "f64 arithmetic" in rep.items[0].reason
    else:
        assert out == plain and _items(rep) == [("add.f32", "error")]


@pytest.mark.parametrize("cmp,want", [("lt", "native"), ("geu", "native"), ("le", "f32"), ("gtu", "f32")])
def test_half_setp_at_column_0_is_decided_by_the_line_comparison_it_can_be(tmp_path, cmp, want):
    """Held-out seed 8641: ``x2 < x0`` (halves) and ``x2.to(f64) <= x0.to(f64)`` on one line, as ``setp.lt.bf16`` and
    ``setp.le.bf16`` at column 0: each predicate can come from one of them only (as written, swapped, or inverted:
    ``geu`` is ``not (a < b)``), which decides it; a line that also calls tl.maximum stays undecided."""
    expr = "tl.where(x0 < x1, x0, x1).to(tl.float32) + tl.where(x0.to(tl.float32) <= x1.to(tl.float32), 1.0, 2.0)"
    body = f".loc 1 9 0\n\tsetp.{cmp}.f16 %p1, %a, %b;\n\tselp.b16 %d, 1, 0, %p1;"
    got = _items(_run(_with_source(tmp_path, expr, body, "", nin=2, w=16), [list(r) for r in zip(A16, B16)],
                      w=16)[1])
    assert got == [(f"setp.{cmp}.f16", "note")]
    _, rep = _run(_with_source(tmp_path, expr, body, "", nin=2, w=16), [list(r) for r in zip(A16, B16)], w=16)
    assert f"half={want}" in rep.items[0].reason
    text = _with_source(tmp_path, expr + " + tl.maximum(x0, x1)", body, "", nin=2, w=16)
    assert _items(_run(text, [list(r) for r in zip(A16, B16)], w=16)[1]) == [(f"setp.{cmp}.f16", "error")]


@pytest.mark.parametrize("expr,decided", [("(-tl.sqrt(x0.to(tl.float32)).to(tl.float64))", True),
                                          # a computed value whose type is not the PTX's (f64, the cvt reads f32)
                                          ("(-tl.sqrt(x0.to(tl.float64)).to(tl.float64))", False)])
def test_negation_through_a_type_llvm_dropped_of_a_computed_value(tmp_path, expr, decided):
    """Held-out seed 9816: ``(-d.to(f64)).to(bf16)`` of an f32 dot result d as ``cvt.rn.bf16.f32`` and a sign xor:
    the chain starts at a computed value of a known type, which must be the type the PTX converts from; computed
    through f64 as Triton's ring does (a note); another type there stays reported."""
    xs = [0x40490FDB, 0xC0A00000, 0x3DCCCCCD]
    body = "cvt.rn.f16.f32 %h1, %a;\n\t{store}\n\txor.b16 %h2, %h1, -32768;\n\tcvt.u32.u16 %d, %h2;"
    out, rep = _run(_with_source(tmp_path, expr, body, ""), [[x] for x in xs])
    wide = R.float_unop("neg", R.float_cast(np.array(xs, np.uint64), "f32", "f64").astype(np.uint64), "f64")
    want = [int(v) for v in R.float_cast(wide.astype(np.uint64), "f64", "f16")]
    got = [s for o, s in _items(rep) if o == "xor.b16"]
    if decided:
        assert out == want and got == ["note"]
    else:
        assert got == ["error"]


def test_negation_through_a_dropped_type_hoisted_to_the_load_is_read_at_its_conversion(tmp_path):
    """Held-out seed 10377 (silent at first contact, at −0 only): ``(-x.to(f64)).to(f16)``'s sign xor hoisted to the
    load, whose location says nothing; the store's ``r.to(...)`` conversion reads it and names the chain: through
    f64, as Triton's ring (the half's own ring negation keeps φ(−0) = −2^15, the f64 one does not)."""
    hs = [0x4248, 0xC500, 0x8000]
    body = ".loc 1 7 10\n\txor.b16 %h1, %a, -32768;\n\t{store}\n\tcvt.f32.f16 %d, %h1;"
    out, rep = _run(_with_source(tmp_path, "(-x0.to(tl.float64)).to(tl.float16)", body, "", w=16, out_w=32),
                    [[h] for h in hs], w=16, out_w=32)
    wide = R.float_unop("neg", R.float_cast(np.array(hs, np.uint64), "f16", "f64").astype(np.uint64), "f64")
    half = R.float_cast(wide.astype(np.uint64), "f64", "f16").astype(np.uint64)
    assert out == [int(v) for v in R.float_cast(half, "f16", "f32")]
    assert [sv for o, sv in _items(rep) if o == "xor.b16"] == ["note"]


@pytest.mark.parametrize("expr,severity", [("tl.cumsum(-x0.to(tl.float64) * x1.to(tl.float64), 0)", "error"),
                                           ("tl.cumsum(-x0, 0)", "note"),
                                           ("tl.cumsum(-x0.to(tl.float64), 0)", "note")])
def test_half_sign_xor_in_a_function_that_negates_wider_is_reported(tmp_path, expr, severity):
    """Held-out seed 10449 (silent at first contact, at −0 only): ``e = -x1.to(f64)``, ``tl.cumsum(e)`` stored as bf16 —
    the first row's sign xor of the bf16 x1 at the store: a negation the function computes wider, which Triton's
    ring narrows differently at −0, is reported where the stored value names none. A function with only narrow
    negations keeps the note; the scan's own operand ``-x.to(f64)`` is the first row's value: computed as Triton's
    f64 negation narrowed (a note; reported before)."""
    body = "{store}\n\txor.b16 %h1, %a, -32768;\n\tcvt.f32.f16 %d, %h1;"  # (read as a float: the dataflow's type)
    out, rep = _run(_with_source(tmp_path, expr, body, "", w=16, out_w=32, nin=2), [[0x8000, 0x3C00]], w=16,
                    out_w=32)
    assert [sv for o, sv in _items(rep) if o == "xor.b16"] == [severity]
    if expr == "tl.cumsum(-x0.to(tl.float64), 0)":
        wide = R.float_unop("neg", R.float_cast(np.array([0x8000], np.uint64), "f16", "f64").astype(np.uint64), "f64")
        half = R.float_cast(wide.astype(np.uint64), "f64", "f16").astype(np.uint64)
        assert out == [int(v) for v in R.float_cast(half, "f16", "f32")] != [0x80000000]


def test_negation_through_a_type_llvm_dropped_is_computed_through_it(tmp_path):
    """``(-x.to(tl.float64)).to(f16)`` of an f16 x is one sign-bit xor of x (held-out seeds 1361, 2720: LLVM drops
    the exact widening); ``((-x).to(tl.float32)).to(f16)`` of an f64 x an xor after two cvts (840). Triton's
    ring goes through every type the source names: widened, negated, narrowed — computed so, a note."""
    hs = [0x4248, 0xC500, 0x2E66, 0x8000]
    out, rep = _run(_with_source(tmp_path, "(-x0.to(tl.float64))", "{store}\n\txor.b16 %d, %a, -32768;", "", w=16),
                    [[h] for h in hs], w=16)
    wide = R.float_unop("neg", R.float_cast(np.array(hs, np.uint64), "f16", "f64").astype(np.uint64), "f64")
    want = [int(v) for v in R.float_cast(wide.astype(np.uint64), "f64", "f16")]
    assert out == want and out != [h ^ 0x8000 for h in hs]
    assert [s for o, s in _items(rep) if o == "xor.b16"] == ["note"]
    ds = [0x400921FB54442D18, 0xC014000000000000, 0x3FB999999999999A]
    body = "cvt.rn.f32.f64 %r1, %a;\n\tcvt.rn.f16.f32 %h1, %r1;\n\t{store}\n\txor.b16 %d, %h1, -32768;"
    out, rep = _run(_with_source(tmp_path, "(-x0).to(tl.float32)", body, "", w=64, out_w=16), [[d] for d in ds],
                    w=64, out_w=16)
    neg = R.float_unop("neg", np.array(ds, np.uint64), "f64").astype(np.uint64)
    want = [int(v) for v in R.float_cast(R.float_cast(neg, "f64", "f32").astype(np.uint64), "f32", "f16")]
    assert out == want and [s for o, s in _items(rep) if o == "xor.b16"] == ["note"]


def test_negation_after_a_cast_of_a_negation_is_the_wide_rings(tmp_path):
    """``-(-x).to(tl.float64)`` of an f32 x (held-out seed 24259, silent at x = −0): the PTX keeps both negations,
    the xor before the cvt and the xor after it; the source's ``(-x).to(f64)`` at the cvt names the first, so the
    second is the f64 ring's negation of the widening (not the cast of a negation, which the first already is)."""
    xs = [0x80000000, 0xC0490FDB, 0x3DCCCCCD]
    body = ("{loc}\n\txor.b32 %r1, %a, -2147483648;\n\tcvt.f64.f32 %e1, %r1;\n\t{store}\n\t"
            "xor.b64 %d, %e1, -9223372036854775808;")
    out, rep = _run(_with_source(tmp_path, "-(-x0).to(tl.float64)", body, "(-x0)", out_w=64), [[x] for x in xs],
                    out_w=64)
    inner = R.float_unop("neg", np.array(xs, np.uint64), "f32").astype(np.uint64)
    want = R.float_unop("neg", R.float_cast(inner, "f32", "f64").astype(np.uint64), "f64")
    assert out == [int(v) for v in want]
    assert [s for o, s in _items(rep) if o == "xor.b64"] == ["note"]


@pytest.mark.parametrize("expr", ["(x0.to(tl.float32) * x1.to(tl.float32))",
                                  "(x0.to(tl.float32) * x1.to(tl.float32)).to(tl.float64)"])
def test_half_op_narrowed_through_a_folded_widening_is_the_f32_op(tmp_path, expr):
    """``(a.to(f32) * b.to(f32)).to(f64)`` stored as f16 of halves: Triton's pipeline folds the widening the store's
    narrowing reads, so its FPSan multiplies in the f32 ring and narrows once — checked on Triton 3.9 (445 of 512
    elements differed while the f64 cast left it undecided): ``half=f32``, a note, as without the cast."""
    out, rep = _run(_with_source(tmp_path, expr, "{store}\n\tmul.f16 %d, %a, %b;", "", nin=2, w=16),
                    [[0x3555, 0xC248], [0x3C00, 0x4000]], w=16)
    wide = [R.float_cast(np.array([a, b], np.uint64), "f16", "f32") for a, b in ([0x3555, 0xC248], [0x3C00, 0x4000])]
    prod = [R.float_binop("mul", w_[:1], w_[1:], "f32") for w_ in wide]
    assert out == [int(R.float_cast(p.astype(np.uint64), "f32", "f16")[0]) for p in prod]
    assert _items(rep) == [("mul.f16", "note")] and "half=f32" in rep.items[0].reason


def test_held_out_negation_cast_through_a_folded_widening_is_tritons_bits():
    """Seed 26281's Triton 3.9 pair: ``(-(x1 - x0.to(f32))).to(f64).to(bf16)`` as ``cvt.rn.bf16.f32`` then ``neg.bf16``:
    Triton folds the widening the narrowing reads, so the source's ``(-e).to(T)`` at the cvt decides ``before``, the
    ring cast of the f32 negation (reported before): bit for bit, nothing reported."""
    from tests.test_fpsan_libdevice import _assert_bit_exact
    _assert_bit_exact("seed26281")


def test_negation_widened_then_narrowed_is_narrowed_once_as_triton_folds_it(tmp_path):
    """``(-x).to(tl.float64)`` stored as f16 of an f32 x (held-out seed 22248, silent at first contact with
    ``-log(x)``): Triton's pipeline folds the widening the narrowing reads, so its ring negates in f32 and
    narrows once — not through f64, whose narrowing of the sign extension differs."""
    xs = [0xC0490FDB, 0x3DCCCCCD, 0xBF800000, 0x80000000]
    body = "cvt.rn.f16.f32 %h1, %a;\n\t{store}\n\txor.b16 %d, %h1, -32768;"
    out, rep = _run(_with_source(tmp_path, "(-x0).to(tl.float64)", body, "", out_w=16), [[x] for x in xs], out_w=16)
    neg = R.float_unop("neg", np.array(xs, np.uint64), "f32").astype(np.uint64)
    via_f64 = R.float_cast(R.float_cast(neg, "f32", "f64").astype(np.uint64), "f64", "f16")
    assert out == [int(v) for v in R.float_cast(neg, "f32", "f16")] != [int(v) for v in via_f64]
    assert [s for o, s in _items(rep) if o == "xor.b16"] == ["note"]


def test_held_out_narrowed_int_ops_folded_into_one_sub_are_reported():
    """Seed 54683's Triton 3.9 pair (silent at first contact): reported."""
    ours, theirs, errors = _compare("seed54683", folds=())
    assert not (ours == theirs).all() and any(e.opcode == "sub.f32" for e in errors)


def test_difference_of_two_narrowed_negations(tmp_path):
    """``(-x1).to(f32) - (-x0).to(f32)`` of f64 x0, x1 as ``sub.f32 d, x0.to(f32), x1.to(f32)`` (held-out seed 55363's
    shape, silent at first contact: LLVM cancels both negations; the minuend was taken for a plain value): Triton's
    ring narrowings of −φ(x1) and −φ(x0), then the ring sub."""
    expr = "(-x1).to(tl.float32) - (-x0).to(tl.float32)"
    line = SRC.replace("EXPR", expr).splitlines()[EXPR_LINE - 1]
    c1, c0 = line.index("(-x1)") + 1, line.index("(-x0)") + 1
    body = (f".loc 1 {EXPR_LINE} {c1}\n\tcvt.rn.f32.f64 %r1, %b;\n\t.loc 1 {EXPR_LINE} {c0}\n\tcvt.rn.f32.f64 %r2, %a;"
            f"\n\t.loc 1 {EXPR_LINE} {c1}\n\tsub.f32 %d, %r2, %r1;")
    rows = [[0x3FF8000000000000, 0x4004000000000000], [0xC01C000000000000, 0x3FE0000000000000]]
    out, rep = _run(_with_source(tmp_path, expr, body, "", nin=2, w=64, out_w=32), rows, w=64, out_w=32)

    def narrowed_neg(v: int) -> int:
        return int(R.narrow(R.neg(R.embed(np.array([v], np.uint64), "f64"), 64), 64, 32)[0])
    want = [int(R.unembed(np.array([(narrowed_neg(b) - narrowed_neg(a)) % (1 << 32)], np.uint64), "f32")[0])
            for a, b in rows]
    assert out == want
    assert [sev for o, sev in _items(rep) if o == "sub.f32"] == ["note"]


def test_held_out_difference_of_two_narrowed_negations_is_tritons_bits():
    """Seed 55363's Triton 3.9 pair (f32 → f16): bit for bit."""
    _assert_bit_exact("seed55363", folds=())


def test_both_negation_forms_of_one_cast_leave_the_neg_cast_fold_undecided(tmp_path):
    """``fma(x.to(f16), x.to(f16) * -1.0, c)`` beside ``(-x).to(f16)`` of an f32 x (held-out seed 63568, silent at first
    contact): LLVM makes both one ``neg.f16`` of one cvt, which the first reads as the negation after the cast and the
    second as Triton's narrowing of −φ(x); the decision at the neg's location held for one reader only. Now
    undecided: the hand kernel and the Triton 3.9 pair report it."""
    expr = "tl.fma(x0.to(tl.float16), x0.to(tl.float16) * -1.0, (-x0).to(tl.float16))"
    col = SRC.replace("EXPR", expr).splitlines()[EXPR_LINE - 1].index("x0.to(tl.float16) * -1.0") + 1
    body = (f"{{loc}}\n\tcvt.rn.f16.f32 %h1, %a;\n\t.loc 1 {EXPR_LINE} {col}\n\tneg.f16 %h2, %h1;\n\t"
            "fma.rn.f16 %h3, %h1, %h2, %h2;\n\tcvt.f32.f16 %d, %h3;")
    _, rep = _run(_with_source(tmp_path, expr, body, "x0.to", out_w=32), [[0x3FC00000]], out_w=32)
    assert [s for o, s in _items(rep) if o == "neg.f16"] == ["error"]
    one = expr.replace(", (-x0).to(tl.float16))", ", x0.to(tl.float16))")  # the after form alone: decided
    _, rep = _run(_with_source(tmp_path, one, body, "x0.to", out_w=32), [[0x3FC00000]], out_w=32)
    assert [s for o, s in _items(rep) if o == "neg.f16"] == ["note"]
    ours, theirs, errors = _compare("seed63568", folds=())
    assert not (ours == theirs).all() and any(e.opcode == "neg.f16" for e in errors)


def test_both_negation_forms_with_the_cvt_at_the_negated_receiver_are_undecided(tmp_path):
    """``minimum((-x).to(f16), -x.to(f16))`` (held-out seed 65838, silent at first contact): LLVM's one cvt carries
    the first's location, whose receiver is the negation; the x under it is the other form's too."""
    expr = "tl.minimum((-x0).to(tl.float16), -x0.to(tl.float16))"
    body = "{loc}\n\tcvt.rn.f16.f32 %h1, %a;\n\tneg.f16 %h2, %h1;\n\tcvt.f32.f16 %d, %h2;"
    _, rep = _run(_with_source(tmp_path, expr, body, "(-x0).to", out_w=32), [[0x3FC00000]], out_w=32)
    assert [s for o, s in _items(rep) if o == "neg.f16"] == ["error"]
    ours, theirs, errors = _compare("seed65838", folds=())
    assert not (ours == theirs).all() and any(e.opcode == "neg.f16" for e in errors)


@pytest.mark.parametrize("expr,severity", [("tl.minimum(x1.to(tl.float64), x0.to(tl.float64))", "note"),
                                           ("tl.minimum(x1.to(tl.float64), x0)", "note"),
                                           # a number's f64 payload is no sign extension of its f32 one
                                           ("tl.minimum(x1.to(tl.float64), 0.5)", "error")])
def test_minimum_of_widenings_narrowed_is_tritons_narrowing_from_f64(tmp_path, expr, severity):
    """``minimum(y.to(f64), x.to(f64)).to(f16)`` of f32 values as ``min.f32`` then ``cvt.rn.f16.f32`` (held-out seed
    66687, silent at first contact): the ring's min keeps the sign extension's order, so Triton's value is the
    narrowing from f64 of the widened f32 min."""
    body = "min.f32 %t, %a, %b;\n\t{store}\n\tcvt.rn.f16.f32 %d, %t;"
    rows = [[0x3FC00001, 0xC0490FDB], [0x3DCCCCCD, 0x3F800000]]
    out, rep = _run(_with_source(tmp_path, expr, body, "", nin=2, out_w=16), rows, out_w=16)
    assert [s for o, s in _items(rep) if o == "cvt.rn.f16.f32"] == [severity]
    if severity == "note":
        a, b = (np.array([r[k] for r in rows], np.uint64) for k in (0, 1))
        m = R.float_binop("min", a, b, "f32").astype(np.uint64)
        assert out == [int(v) for v in R.float_cast(R.float_cast(m, "f32", "f64").astype(np.uint64), "f64", "f16")]
    _assert_bit_exact("seed66687", folds=())


def test_maximum_of_one_widening_narrowed_is_the_f32_narrowing(tmp_path):
    """``maximum(y.to(f64), y.to(f64)).to(bf16)`` (held-out seed 60716, silent with the rule above's first form): the
    maximum of one value is that value, and Triton folds the widening the narrowing then reads, so the ring narrows
    from f32 — nothing to say."""
    expr = "tl.maximum(x1.to(tl.float64), x1.to(tl.float64))"
    rows = [[0x3FC00001, 0xC0490FDB], [0x3DCCCCCD, 0x3F800000]]
    out, rep = _run(_with_source(tmp_path, expr, "{store}\n\tcvt.rn.f16.f32 %d, %b;", "", nin=2, out_w=16), rows,
                    out_w=16)
    b = np.array([r[1] for r in rows], np.uint64)
    assert out == [int(v) for v in R.float_cast(b, "f32", "f16")] and not rep.errors
    _assert_bit_exact("seed60716", folds=())


@pytest.mark.parametrize("expr,anchor,reported", [
    # LLVM shrinks the narrowed product to x0 * x1 and CSE makes the two one mul (held-out seed 172374, silent)
    ("tl.fma(x0 * x1, x0, (x0.to(tl.float64) * x1.to(tl.float64)).to(tl.float32))", "x0 * x1", True),
    ("tl.fma(x0 * x1, x0, (x1.to(tl.float64) * x0.to(tl.float64)).to(tl.float32))", "(x1.to", True),
    ("x0 * 2.0 + (x0.to(tl.float64) * 2.0).to(tl.float32)", "x0 * 2.0", True),
    # other operands: one f32 product, one narrowed product of its own
    ("tl.fma(x0 * x1, x0, (x0.to(tl.float64) * x0.to(tl.float64)).to(tl.float32))", "x0 * x1", False)])
def test_f32_op_merged_with_a_narrowed_twin_is_reported(tmp_path, expr, anchor, reported):
    """``x * y`` and ``(x.to(f64) * y.to(f64)).to(f32)`` in one statement are one ``mul.f32`` after LLVM (the f64
    product of two f32 is exact): Triton's ring has an f32 product and a narrowed f64 one, two values, which one
    instruction cannot give its readers: an error, from either location."""
    text = _with_source(tmp_path, expr, "{loc}\n\tmul.f32 %d, %a, %b;", anchor, nin=2)
    _, rep = _run(text, [[0x40490FDB, 0x3FC00000]])
    errs = [i.reason for i in rep.items if i.opcode == "mul.f32" and i.severity == "error"]
    assert bool(errs) == reported and all("widened to f64, narrowed back" in r for r in errs)


@pytest.mark.parametrize("order", ["inner first", "outer reads nothing of its twin"])
def test_narrowed_product_and_its_f32_reader_at_one_location_are_told_apart_by_dataflow(tmp_path, order):
    """``(x0.to(f64) * x1.to(f64)).to(f32) * x0`` (held-out seed 200333, silent at first contact): LLVM shrinks the
    f64 product to an f32 mul at the cast's location, where the outer mul starts too; the mul the other reads is the
    narrowed one (the ring's f64 product, narrowed), its reader the f32 one. Two such muls neither of which reads the
    other are not told apart: reported."""
    expr = "(x0.to(tl.float64) * x1.to(tl.float64)).to(tl.float32) * x0"
    body = ("{loc}\n\tmul.f32 %t, %a, %b;\n\tmul.f32 %d, %t, %a;" if order == "inner first"
            else "{loc}\n\tmul.f32 %t, %a, %b;\n\tmul.f32 %d, %b, %a;")
    rows = [[0x40490FDB, 0x3FC00001], [0xBF800001, 0x7F7FFFFF], [0x00000001, 0x80000000]]
    out, rep = _run(_with_source(tmp_path, expr, body, "(x0", nin=2), rows)
    a, b = (np.array([r[k] for r in rows], np.uint64) for k in (0, 1))
    errs = [i for i in rep.items if i.opcode == "mul.f32" and i.severity == "error"]
    if order != "inner first":
        assert len(errs) == 2 and all("does not say" in i.reason for i in errs)
        return
    wide = R.float_binop("mul", *(R.float_cast(v, "f32", "f64").astype(np.uint64) for v in (a, b)), "f64")
    inner = R.float_cast(wide.astype(np.uint64), "f64", "f32").astype(np.uint64)
    assert not errs and out == [int(v) for v in R.float_binop("mul", inner, a, "f32")]
    assert out != [int(v) for v in R.float_binop("mul", R.float_binop("mul", a, b, "f32").astype(np.uint64), a,
                                                 "f32")]
    _assert_bit_exact("seed200333", folds=())


def test_integer_converted_through_f64_to_a_half_is_triton_folded_conversion():
    """``tl.min((-x).to(int64).to(f64).to(f16))`` stored via ceil as f32 (held-out seed 181208, silent at first
    contact in 18/32): Triton folds ``i.to(f64).to(f16)`` into one native conversion to f16 before its FPSan pass
    (``cvt.rn.f16.s64`` in its build), LLVM converts straight to f32 (the half exact): the native conversion to
    f16, then the ring widening — bit for bit."""
    assert "cvt.rn.f32.s64" in (DATA / "seed181208.plain.ptx").read_text()
    assert "cvt.rn.f16.s64" in (DATA / "seed181208.fpsan.ptx").read_text()
    _assert_bit_exact("seed181208", folds=())
