"""Fold K with both forms on one operand (``ptxkit.fpsan.fold_self_add``; issue 10, held-out seeds 12159, 13187,
13296, silent-free but reported before): LLVM's CSE makes ``x + x`` and ``2.0 * x`` one ``add x, x``; each reader
takes the form its own location's expression reads. Hand-written kernels in Triton 3.9's shape against the ring
module's arithmetic (docs/fpsan.md §2), and a reader the source does not place keeps the error."""

from __future__ import annotations

import re
import shutil
import struct
from pathlib import Path

import numpy as np
import pytest

from ptxkit.fpsan import ring as R
from ptxkit.fpsan_ptx import sanitize_text
from tests.test_fpsan_folds import HALF, ONE, _items, _run
from tests.test_fpsan_libdevice import DATA, SPECS, _assert_bit_exact, _assert_ptxas_accepts, _compare
from tests.test_fpsan_source_hints import EXPR_LINE, SRC, _with_source

A, B = 0x3FC00000, 0x40400000  # 1.5, 3.0


def _phi(bits: int) -> np.ndarray:
    return R.embed(np.array([bits], np.uint64), "f32")


def _bits(payload: np.ndarray) -> int:
    return int(R.unembed(payload, "f32")[0])


def _f(bits: int) -> float:
    return struct.unpack("<f", bits.to_bytes(4, "little"))[0]


def _col(expr: str, anchor: str) -> int:
    return SRC.replace("EXPR", expr).splitlines()[EXPR_LINE - 1].index(anchor) + 1


ADD = lambda x: R.add(_phi(x), _phi(x), 32)  # noqa: E731  2φ(x)
MUL2 = lambda x: R.mul(_phi(x), _phi(0x40000000), 32)  # noqa: E731  φ(x)·φ(2)


def test_fma_of_both_forms_takes_each_at_its_operand(tmp_path):
    """``tl.fma(x1, 2.0 * x0, x0 + x0)`` as ``add t, x0, x0; fma d, x1, t, t`` (seed 13296's shape)."""
    expr = "tl.fma(x1, 2.0 * x0, x0 + x0)"
    body = f"{{loc}}\n\tadd.f32 %t, %a, %a;\n\t.loc 1 {EXPR_LINE} {_col(expr, 'tl.fma')}\n\tfma.rn.f32 %d, %b, %t, %t;"
    out, rep = _run(_with_source(tmp_path, expr, body, "2.0 *", nin=2), [[A, B], [HALF, ONE]])
    for got, (x0, x1) in zip(out, [(A, B), (HALF, ONE)], strict=True):
        want = _bits(R.fma(_phi(x1), MUL2(x0), ADD(x0), 32))
        assert got == want
        assert got not in (_bits(R.fma(_phi(x1), ADD(x0), ADD(x0), 32)), _bits(R.fma(_phi(x1), MUL2(x0), MUL2(x0), 32)))
    assert all(s == "note" for _, s in _items(rep))
    assert "sanitized as both" in rep.items[0].reason


def test_fma_reading_the_one_add_thrice_takes_each_form_at_its_operand(tmp_path):
    """``tl.fma(x0 + x0, 2.0 * x0, x0 + x0)`` as ``add t, x0, x0; fma d, t, t, t`` (held-out seed 35136, reported
    before): the product is 2φ(x)·φ(x)φ(2), the addend 2φ(x)."""
    expr = "tl.fma(x0 + x0, 2.0 * x0, x0 + x0)"
    body = f"{{loc}}\n\tadd.f32 %t, %a, %a;\n\t.loc 1 {EXPR_LINE} {_col(expr, 'tl.fma')}\n\tfma.rn.f32 %d, %t, %t, %t;"
    out, rep = _run(_with_source(tmp_path, expr, body, "2.0 *", nin=2), [[A, B], [HALF, ONE]])
    for got, x0 in zip(out, (A, HALF), strict=True):
        assert got == _bits(R.fma(ADD(x0), MUL2(x0), ADD(x0), 32)) != _bits(R.fma(ADD(x0), ADD(x0), ADD(x0), 32))
    assert all(s == "note" for _, s in _items(rep))


@pytest.mark.parametrize("expr,tail,want,other", [
    # held-out seed 43594's shape (silent before): the call and LLVM's contraction of the sum are two fmas at the
    # call's column; the addend tells them apart (the sum's is the call's fma)
    ("tl.fma(x0, x0 + x0, x1) + (2.0 * x0) * x1", "fma.rn.f32 %e, %a, %t, %b;\n\tfma.rn.f32 %d, %t, %b, %e;",
     lambda x0, x1: R.fma(MUL2(x0), _phi(x1), R.fma(_phi(x0), ADD(x0), _phi(x1), 32), 32),
     lambda x0, x1: R.fma(ADD(x0), _phi(x1), R.fma(_phi(x0), ADD(x0), _phi(x1), 32), 32)),
    # the mul at the call's column is the product, not the call
    ("tl.fma(x0 + x0, x1, x0) * (2.0 * x0)", "fma.rn.f32 %e, %t, %b, %a;\n\tmul.f32 %d, %t, %e;",
     lambda x0, x1: R.mul(MUL2(x0), R.fma(ADD(x0), _phi(x1), _phi(x0), 32), 32),
     lambda x0, x1: R.mul(ADD(x0), R.fma(ADD(x0), _phi(x1), _phi(x0), 32), 32))])
def test_fma_call_and_an_op_at_its_column_take_their_own_forms(tmp_path, expr, tail, want, other):
    """Two readers at the ``tl.fma`` call's column: each takes the form of its own operand (the call reads 2φ(x0),
    the contracted sum or the product φ(x0)·φ(2))."""
    body = f"{{loc}}\n\tadd.f32 %t, %a, %a;\n\t.loc 1 {EXPR_LINE} {_col(expr, 'tl.fma')}\n\t{tail}"
    out, rep = _run(_with_source(tmp_path, expr, body, "x0 + x0", nin=2), [[A, B], [HALF, ONE]])
    for got, (x0, x1) in zip(out, [(A, B), (HALF, ONE)], strict=True):
        assert got == _bits(want(x0, x1)) != _bits(other(x0, x1))
    assert all(s == "note" for _, s in _items(rep))


def test_comparison_and_select_of_both_forms(tmp_path):
    """``tl.where((x0 + x0) < x1, x0 * 2.0, x1)`` (seed 12159's shape): the comparison reads 2φ(x0) (compared as
    its float bits, as Triton leaves comparisons native), the select's arm φ(x0)·φ(2)."""
    expr = "tl.where((x0 + x0) < x1, x0 * 2.0, x1)"
    body = (f"{{loc}}\n\tadd.f32 %t, %a, %a;\n\t.loc 1 {EXPR_LINE} {_col(expr, '(x0 + x0) <')}\n"
            f"\tsetp.lt.f32 %p1, %t, %b;\n\t.loc 1 {EXPR_LINE} {_col(expr, 'tl.where')}\n\tselp.f32 %d, %t, %b, %p1;")
    a, m = _f(_bits(ADD(A))), _f(_bits(MUL2(A)))
    x1 = struct.unpack("<I", struct.pack("<f", (a + m) / 2 if np.isfinite(a + m) else 0.0))[0]
    rows = [[A, x1], [A, 0xFF800000], [A, 0x7F800000]]  # between the two forms' floats, -inf, +inf
    out, rep = _run(_with_source(tmp_path, expr, body, "x0 + x0", nin=2), rows)
    for got, (x0, y) in zip(out, rows, strict=True):
        assert got == (_bits(MUL2(x0)) if _f(_bits(ADD(x0))) < _f(y) else y)
    assert all(s == "note" for _, s in _items(rep)) and "sanitized as both" in rep.items[0].reason


def test_self_comparison_of_the_two_forms_compares_them(tmp_path):
    """``tl.where((2.0 * x0) == (x0 + x0), x1, x0)``: LLVM compares the one add with itself (``setp.num t, t``),
    Triton the two forms' floats: equal only where φ(x)·φ(2) and 2φ(x) meet."""
    expr = "tl.where((2.0 * x0) == (x0 + x0), x1, x0)"
    body = (f"{{loc}}\n\tadd.f32 %t, %a, %a;\n\t.loc 1 {EXPR_LINE} {_col(expr, '(2.0 * x0) ==')}\n"
            f"\tsetp.num.f32 %p1, %t, %t;\n\t.loc 1 {EXPR_LINE} {_col(expr, 'tl.where')}\n\tselp.f32 %d, %b, %a, %p1;")
    rows = [[A, B], [HALF, B], [0, B]]  # φ(0) = 0: both forms 0, equal
    out, rep = _run(_with_source(tmp_path, expr, body, "2.0 *", nin=2), rows)
    assert out == [A, HALF, B]
    assert all(s == "note" for _, s in _items(rep))


def test_reader_the_source_does_not_place_keeps_the_error(tmp_path):
    """The fma at a merged location (column 0): which operand reads which form is unknown: the default, reported."""
    expr = "tl.fma(x1, 2.0 * x0, x0 + x0)"
    body = f"{{loc}}\n\tadd.f32 %t, %a, %a;\n\t.loc 1 {EXPR_LINE} 0\n\tfma.rn.f32 %d, %b, %t, %t;"
    out, rep = _run(_with_source(tmp_path, expr, body, "2.0 *", nin=2), [[A, B]])
    assert out == [_bits(R.fma(_phi(B), ADD(A), ADD(A), 32))]
    assert ("add.f32", "error") in _items(rep)


def test_readers_of_one_form_decide_the_add(tmp_path):
    """Both forms in the file, but the add's readers read only ``x0 * 2.0`` (the other form sits in a branch LLVM
    dropped): the add is that product, a note."""
    expr = "tl.where(x1 < 0.0, x0 * 2.0, x1) + 0.0 * (x0 + x0)"
    body = f"{{loc}}\n\tadd.f32 %t, %a, %a;\n\t.loc 1 {EXPR_LINE} {_col(expr, 'tl.where')}\n\tselp.f32 %d, %t, %b, %p1;"
    body = "setp.lt.f32 %p1, %b, 0f00000000;\n\t" + body
    out, rep = _run(_with_source(tmp_path, expr, body, "x0 * 2.0", nin=2), [[A, 0xBF800000]])
    assert out == [_bits(MUL2(A))]
    assert [s for o, s in _items(rep) if o == "add.f32"] == ["note"]


def test_forms_on_one_value_through_a_cast_round_trip_stay_reported(tmp_path):
    """``tl.fma(x1, 2.0 * x0.to(tl.float64).to(tl.float32), x0 + x0)`` (held-out seed 14183, silent before): LLVM
    drops the round trip and makes both one add, while Triton's ring widens and narrows the payload; the add's
    location (the product) must not decide it: the default, an error."""
    expr = "tl.fma(x1, 2.0 * x0.to(tl.float64).to(tl.float32), x0 + x0)"
    body = f"{{loc}}\n\tadd.f32 %t, %a, %a;\n\t.loc 1 {EXPR_LINE} {_col(expr, 'tl.fma')}\n\tfma.rn.f32 %d, %b, %t, %t;"
    out, rep = _run(_with_source(tmp_path, expr, body, "2.0 *", nin=2), [[A, B]])
    assert out == [_bits(R.fma(_phi(B), ADD(A), ADD(A), 32))]
    assert ("add.f32", "error") in _items(rep)


@pytest.mark.parametrize("name", ["seed12159", "seed13296", "seed13187", "seed15755", "seed35136", "seed43594",
                                  "seed60500", "seed63791", "seed136085", "seed157585"])
def test_held_out_kernels_with_both_forms_are_tritons_bits(name):
    """Triton 3.9 pairs (tests/data/triton_libdevice): ``where(x + x < floor(x), x / x, 2.0 * x)`` (12159, f64
    through bf16), ``fma(tanh(x), 2.0 * x, x + x)`` (13296), ``where(-x > 2.0 * x, fma(..), x + x)`` of f64 (13187),
    ``fma(.., 2.0 * where(c, x, x), cos(x + x))`` of f64 (15755: the add keeps the form the cos body's native lines and
    ring op read, the fma the other), ``erf(fma(x + x, 2.0 * x, x + x))`` of f64 (35136), ``|fma(|x|, x + x, x) +
    2.0 * x * floor(x)|`` of f64 (43594: two fmas at one column, silent before), ``fma(fma(.., x, x + x), 2.0 * (x *
    2.0), ..)`` (157585: the fma that contracts the outer doubling reads the split's other register, silent before):
    bit for bit with Triton's
    FPSan build, nothing reported (each was a reported mismatch)."""
    _assert_bit_exact(name)


@pytest.mark.parametrize("name", ["seed47198", "k_self_add_f64_narrowed_twice_bf16", "seed48281"])
def test_self_add_under_casts_between_op_and_store_is_tritons_chain(name):
    """Triton 3.9 pairs, reported before: ``(h.to(f32) * 2.0).to(f64)`` stored as f16 (held-out seed 47198: Triton folds
    the exact widening to f64 into the store's narrowing, so the f32 product narrows straight to f16), and
    ``(2.0 * x.to(f64)).to(f32)`` of a bf16 x stored as f16 (the f64 product narrows to f32, then to f16: two ring
    steps). LLVM writes both as ``add.f16 x, x``: bit for bit, nothing reported. Held-out seed 48281:
    ``sin((2.0 * h.to(f64)).to(f32))`` of an f16 h on four elements, the later copies and the widenings they double at
    a merged location (14:0): the copy that kept its location decides them all."""
    _assert_bit_exact(name, folds=())


@pytest.mark.parametrize("name", ["seed47599", "k_where_sum_or_doubled_f64",
                                  "k_where_doubled_or_minus_neg_product_f64", "seed50569", "seed203572",
                                  "seed207436"])
def test_doubled_arm_of_a_where_with_the_addend_taken_out_is_tritons_product(name):
    """``tl.where(c, 2.0 * x, x + y)`` as ``add d, selp(c, x, y), x`` (LLVM: 2.0 * x as x + x, then the common
    addend x out of the select; held-out seed 47599, ``where(.., 2.0 * x, x + abs(x))``, and the arms the other way
    round of f64, both silent before; 50569: the other arm ``y - (x * -1.0)``, which InstCombine makes ``y + x``,
    silent at first contact; 203572: of halves, ``add.f16``, silent at first contact; 207436: of bf16 with the other
    arm ``x - 0.5``, a ``selp.b16`` of the immediate 0xBF00, silent when that was embedded as an integer): Triton's
    select of φ(x)·φ(2) and φ(y) + φ(x), bit for bit."""
    _assert_bit_exact(name, folds=())


def test_doubled_arm_of_a_where_of_halves_with_a_constant_addend(tmp_path):
    """``where(c, h - 0.5, h * 2.0)`` as ``add.f16 d, h, selp.b16(0xB800, h, c)``: the immediate is the half's bits
    (−0.5), embedded as such (held-out seed 207436, silent when read as the integer 47104)."""
    expr = "tl.where(x1 < x0, x0 - 0.5, x0 * 2.0)"
    body = (f"setp.lt.f16 %p1, %b, %a;\n\t.loc 1 {EXPR_LINE} {_col(expr, 'tl.where')}\n\t"
            "selp.b16 %h1, 0xB800, %a, %p1;\n\tadd.f16 %d, %a, %h1;")
    h, g = 0x3E00, 0x4200  # 1.5, 3.0
    out, rep = _run(_with_source(tmp_path, expr, body, "tl.where", nin=2, w=16), [[h, g], [g, h]], w=16)
    phi = {v: R.embed(np.array([v], np.uint64), "f16") for v in (h, g, 0x4000, 0xB800)}
    want = [int(R.unembed(R.mul(phi[h], phi[0x4000], 16), "f16")[0]),  # x1 = g > x0 = h: the doubled arm
            int(R.unembed(R.add(phi[g], phi[0xB800], 16), "f16")[0])]  # x1 = h < x0 = g: g - 0.5
    assert out == want and any("select" in i.reason for i in rep.items if i.opcode == "add.f16")


@pytest.mark.parametrize("expr,taken", [("tl.where(x1 < x0, x0 + x1, x0 * 2.0)", True),
                                        # f32 arms LLVM narrowed to the half add: the H fold's, not this one
                                        ("tl.where(x1 < x0, x0.to(tl.float32) + x1.to(tl.float32), "
                                         "x0.to(tl.float32) * 2.0)", False)])
def test_doubled_arm_of_a_where_of_halves(tmp_path, expr, taken):
    """``where(c, h + g, h * 2.0)`` of halves as ``add.f16 d, selp(c, g, h), h`` (held-out seed 203572, silent at first
    contact): the f16 ring's select of φ(h)·φ(2) and φ(g) + φ(h); arms computed at f32 are not this fold's."""
    h, g = 0x3E00, 0x4200  # 1.5, 3.0 (f16)
    at = _col(expr, "tl.where")
    body = (f"setp.lt.f16 %p1, %b, %a;\n\t.loc 1 {EXPR_LINE} {at}\n\tselp.b16 %h1, %b, %a, %p1;"
            "\n\tadd.f16 %d, %h1, %a;")
    out, rep = _run(_with_source(tmp_path, expr, body, "tl.where", nin=2, w=16), [[h, g], [g, h]], w=16)
    notes = [i for i in rep.items if "select" in i.reason and i.opcode == "add.f16"]
    assert bool(notes) == taken
    phi = {v: R.embed(np.array([v], np.uint64), "f16") for v in (h, g, 0x4000)}
    mul2 = int(R.unembed(R.mul(phi[h], phi[0x4000], 16), "f16")[0])  # thread 0: x0 = h, not x1 < x0
    total = int(R.unembed(R.add(phi[g], phi[h], 16), "f16")[0])  # thread 1: x0 = g, x1 = h < g
    assert mul2 != int(R.unembed(R.add(phi[h], phi[h], 16), "f16")[0])
    assert (out == [mul2, total]) == taken


def test_doubled_arm_written_as_a_sum_stays_as_written(tmp_path):
    """``tl.where(x1 < x0, x0 + x0, x1 + x0)``: the select of two sums is the sum of the select in the ring too
    (2φ(x0)); the add is left to the ordinary ring add, no note."""
    expr = "tl.where(x1 < x0, x0 + x0, x1 + x0)"
    body = (f"setp.lt.f32 %p1, %b, %a;\n\t.loc 1 {EXPR_LINE} {_col(expr, 'tl.where')}\n\tselp.f32 %u, %a, %b, %p1;"
            f"\n\t{{loc}}\n\tadd.f32 %d, %u, %a;")
    out, rep = _run(_with_source(tmp_path, expr, body, "tl.where", nin=2), [[A, HALF], [HALF, A]])
    assert out == [_bits(ADD(A)), _bits(R.add(_phi(A), _phi(HALF), 32))]
    assert not [i for i in rep.items if "select" in i.reason and i.opcode.startswith("add")]


@pytest.mark.parametrize("expr,severity", [("tl.where(x1 < x0, x0 * 2.0, x1 * 2.0)", "note"),
                                           ("tl.where(x1 < x0, x0 * 2.0, x1 + x1)", "error")])
def test_doubling_taken_out_of_a_select_takes_the_arms_form(tmp_path, expr, severity):
    """``tl.where(c, x0 * 2.0, x1 * 2.0)`` as ``add d, s, s`` of ``s = selp x0, x1`` (LLVM takes the doubling out of
    the select; custom kernel, reported before): both arms double by 2.0, so the add is φ(s)·φ(2); arms of two forms
    leave it undecided, reported."""
    at = _col(expr, "tl.where")
    body = (f"setp.lt.f32 %p1, %b, %a;\n\t.loc 1 {EXPR_LINE} {at}\n\tselp.f32 %u, %a, %b, %p1;"
            "\n\tadd.f32 %d, %u, %u;")
    out, rep = _run(_with_source(tmp_path, expr, body, "tl.where", nin=2), [[A, HALF], [HALF, A]])
    assert [s for o, s in _items(rep) if o == "add.f32"] == [severity]
    if severity == "note":
        assert out == [_bits(MUL2(A)), _bits(MUL2(A))] != [_bits(ADD(A))] * 2


@pytest.mark.parametrize("name", ["seed14183", "seed160526"])
def test_held_out_forms_through_a_cast_round_trip_are_reported(name):
    """Seed 14183's pair, and 160526's (``(x.to(f64) + x.to(f64)).to(f16)`` beside ``x + x`` of an f16 x, one
    ``add.f16`` at the widened one's location): the mismatch (silent at first contact) is reported at the add."""
    ours, theirs, errors = _compare(name)
    assert not (ours == theirs).all() and "add.f16" in {e.opcode for e in errors}


def test_forms_on_one_value_through_a_choice_of_itself_are_split(tmp_path):
    """``tl.fma(x1, 2.0 * tl.minimum(x0, x0), x0 + x0)`` (held-out seed 15343, silent at first contact): the ring's
    minimum of x0 with itself is x0, as natively, so both forms are on one operand; each reader takes its own."""
    expr = "tl.fma(x1, 2.0 * tl.minimum(x0, x0), x0 + x0)"
    body = f"{{loc}}\n\tadd.f32 %t, %a, %a;\n\t.loc 1 {EXPR_LINE} {_col(expr, 'tl.fma')}\n\tfma.rn.f32 %d, %b, %t, %t;"
    out, rep = _run(_with_source(tmp_path, expr, body, "2.0 *", nin=2), [[A, B]])
    assert out == [_bits(R.fma(_phi(B), MUL2(A), ADD(A), 32))]
    assert all(s == "note" for _, s in _items(rep))


@pytest.mark.parametrize("expr", ["tl.fma(x1, 2.0 * x0, x0 + tl.where(x1 < x0, x0, x0))",
                                  "tl.fma(x1, 2.0 * x0, tl.where(x1 < x0, x0, x0) + x0)"])
def test_sum_of_a_value_and_a_choice_of_itself_is_a_self_add(tmp_path, expr):
    """``x + where(c, x, x)`` is ``x + x`` to LLVM and in the ring (held-out seed 136085, silent at first contact: one
    add for it and a ``2.0 * x``, decided as the product for all its readers)."""
    body = f"{{loc}}\n\tadd.f32 %t, %a, %a;\n\t.loc 1 {EXPR_LINE} {_col(expr, 'tl.fma')}\n\tfma.rn.f32 %d, %b, %t, %t;"
    out, rep = _run(_with_source(tmp_path, expr, body, "2.0 *", nin=2), [[A, B]])
    assert out == [_bits(R.fma(_phi(B), MUL2(A), ADD(A), 32))]
    assert all(s == "note" for _, s in _items(rep))


@pytest.mark.skipif(shutil.which("ptxas") is None, reason="ptxas not installed")
def test_split_output_is_accepted_by_ptxas(tmp_path):
    """Seed 12159's sanitized PTX, whose readers of the second form were written out again (a native select reading
    the fresh register), assembles."""
    plain = (DATA / "seed12159.plain.ptx").read_text()
    m = re.search(r'^\s*\.file\s+\d+\s+"([^"]+)"', plain, re.M)
    assert m is not None
    src = tmp_path / "root" / Path(m.group(1)).parent.name / Path(m.group(1)).name
    src.parent.mkdir(parents=True)
    src.write_text(SPECS["seed12159"].source)
    res = sanitize_text(plain, "seed12159.plain.ptx", source_root=str(tmp_path / "root"))
    assert any("sanitized as both" in i.reason for i in res.report.items)
    _assert_ptxas_accepts(res.text, tmp_path)


@pytest.mark.parametrize("expr,severity", [("tl.exp2(2.0 * x0)", "note"), ("tl.exp2(2.0 * x0) + (x1 + x1)", "error")])
def test_self_add_at_no_location_is_the_files_one_form(tmp_path, expr, severity):
    """An ``add x, x`` at line 0 (LLVM's "no location": held-out seed 35394, the later copies of ``exp2(2.0 * a)``
    at 0:10, reported before): the one self-add form the file writes on a value of the add's type decides it; with
    both forms in the file it stays the default, reported."""
    body = "{loc}\n\tadd.f32 %t, %a, %a;\n\t.loc 1 0 10\n\tadd.f32 %d, %a, %a;"
    out, rep = _run(_with_source(tmp_path, expr, body, "2.0 *", nin=2), [[A, B]])
    assert [s for o, s in _items(rep) if o == "add.f32"][-1] == severity
    assert out == [_bits(MUL2(A) if severity == "note" else ADD(A))]


def test_widened_add_read_as_both_forms_is_reported(tmp_path):
    """``((h + h) / 3.0) / (h * 2.0)`` of bf16 h (held-out seed 37743, silent before): one add, widened once at the
    inner division's location, and the widening read as the dividend (x + x) and the divisor (x * 2.0): the cvt's
    own location names only the add, its readers both — no one form, the default, reported."""
    expr = "((x0 + x0) / 3.0) / (x0 * 2.0)"
    inner, outer = _col(expr, "(x0 + x0)"), _col(expr, "((x0")
    body = (f"{{loc}}\n\tadd.bf16 %h1, %a, %a;\n\t.loc 1 {EXPR_LINE} {inner}\n\tcvt.f32.bf16 %r1, %h1;"
            f"\n\tdiv.rn.f32 %r2, %r1, 0f40400000;\n\t.loc 1 {EXPR_LINE} {outer}\n\t"
            "div.rn.f32 %r3, %r2, %r1;\n\tcvt.rn.bf16.f32 %d, %r3;")
    _, rep = _run(_with_source(tmp_path, expr, body, "x0 + x0", w=16), [[0x3FC0]], w=16)
    assert ("add.bf16", "error") in _items(rep)


@pytest.mark.parametrize("expr,two", [("(2.0 * x0.to(tl.int64).to(tl.float64)).to(tl.float32)", True),
                                      ("(x0.to(tl.int64).to(tl.float64) + x0.to(tl.int64).to(tl.float64))"
                                       ".to(tl.float32)", False)])
def test_doubled_integer_widened_to_f64_then_narrowed_is_tritons(tmp_path, expr, two):
    """``(2.0 * i.to(f64)).to(f32)`` as ``cvt.rn.f32.s64`` then ``add.f32 x, x`` (held-out seed 38208, silent at
    first contact, then reported; 169688): Triton doubles the native i → f64 conversion in the 64-bit ring (times
    φ(2.0), or added to itself) and narrows, which the PTX's i → f32 widened is not: replayed from i."""
    body = "cvt.rzi.s64.f32 %e1, %a;\n\tcvt.rn.f32.s64 %t, %e1;\n\t{loc}\n\tadd.f32 %d, %t, %t;"
    x = -1234567.0
    bits = struct.unpack("<I", struct.pack("<f", x))[0]
    out, rep = _run(_with_source(tmp_path, expr, body, "(2.0" if two else "(x0"), [[bits]])
    assert ("add.f32", "note") in _items(rep) and not rep.errors
    wide = np.array([np.float64(np.trunc(x))], np.float64).view(np.uint64)
    other = np.array([2.0 if two else np.trunc(x)], np.float64).view(np.uint64)
    want = R.float_cast(R.float_binop("mul" if two else "add", wide, other, "f64"), "f64", "f32")
    assert out == [int(want[0])]


def test_self_add_at_a_merged_location_takes_its_copies_form(tmp_path):
    """``2.0 * (x + x)`` on two elements, the second element's outer add at column 0 (held-out seed 40079, reported
    before): the line has both forms, but the copy on the other element — an ``add t, t`` of an inner add from the
    same location — kept the product's location: the merged one is the product too."""
    expr = "2.0 * (x0 + x0)"
    inner, outer = _col(expr, "x0 + x0"), _col(expr, "2.0")
    body = (f".loc 1 {EXPR_LINE} {inner}\n\tadd.f32 %t, %a, %a;\n\tadd.f32 %u, %b, %b;\n\t"
            f".loc 1 {EXPR_LINE} {outer}\n\tadd.f32 %r1, %t, %t;\n\t.loc 1 {EXPR_LINE} 0\n\tadd.f32 %r2, %u, %u;\n\t"
            "add.f32 %d, %r1, %r2;")
    out, rep = _run(_with_source(tmp_path, expr, body, "2.0", nin=2), [[A, B]])
    merged = [i for i in rep.items if i.opcode == "add.f32" and "its copies" in i.reason]
    assert len(merged) == 1 and merged[0].severity == "note" and "self-add=mul2" in merged[0].reason
    two = _phi(0x40000000)
    assert out == [_bits(R.add(R.mul(ADD(A), two, 32), R.mul(ADD(B), two, 32), 32))]


def test_sum_of_two_doublings_of_one_value_is_the_ring_sum():
    """``(2.0 * h) + (h * 2.0)`` (held-out seed 53241, silent at first contact): LLVM's CSE makes the two products one
    ``add.bf16 p, h, h`` and the sum ``add.bf16 s, p, p`` — an add of one value to itself whose source is a sum of two
    equal products (in either operand order), so Triton's ring 2·(φ(h)·φ(2)), not a third doubling by φ(2)."""
    _assert_bit_exact("seed53241", folds=())


@pytest.mark.parametrize("expr, inner, want", [
    # the source's product contracted with the sum: φ(x)·φ(2) + 2φ(x)
    ("2.0 * x0 + (x0 + x0)", "x0 + x0", lambda a: R.add(MUL2(a), ADD(a), 32)),
    ("(x0 + x0) + x0 * 2.0", "x0 + x0", lambda a: R.add(ADD(a), MUL2(a), 32)),
    # LLVM's p + p of p = x * 2.0 (held-out seed 4209): φ(2)·(φ(x)·φ(2)), each a product
    ("2.0 * (x0 * 2.0)", "x0 * 2.0", lambda a: R.mul(MUL2(a), _phi(0x40000000), 32)),
])
def test_fma_of_x_two_and_its_self_add_follows_the_sum_at_its_location(tmp_path, expr, inner, want):
    """``add t, x, x; fma d, x, 2.0, t`` is ``2.0 * x + (x + x)`` contracted (held-out seed 60500, a reported mismatch
    before: read as seed 4209's ``2.0 * (x * 2.0)``, the ring p + p) or that product of a product; the source at the
    fma's location, a sum with a ``2.0 * x`` operand or a product, says which."""
    body = (f".loc 1 {EXPR_LINE} {_col(expr, inner)}\n\tadd.f32 %t, %a, %a;\n\t{{loc}}\n\t"
            "fma.rn.f32 %d, %a, 0f40000000, %t;")
    out, rep = _run(_with_source(tmp_path, expr, body, expr[:4]), [[A], [HALF]])
    assert out == [_bits(want(A)), _bits(want(HALF))]
    assert not rep.errors


def test_self_add_of_a_quotient_at_column_zero_is_decided_by_the_line(tmp_path):
    """``add t, q, q`` of a quotient of loads at LLVM's merged column 0 (held-out seed 63791, a reported mismatch
    before: ``fma(.., 2.0 * (x1 / x1), ..)`` of f64): a division of loads is of their own type (a half's promoted to
    f32), so the line's ``2.0 * (x0 / x1)`` is the add's: φ(q)·φ(2)."""
    expr = "tl.fma(x1 * 0.5, 2.0 * (x0 / x1), x1)"
    body = f".loc 1 {EXPR_LINE} 0\n\tdiv.rn.f32 %t, %a, %b;\n\tadd.f32 %d, %t, %t;"
    out, rep = _run(_with_source(tmp_path, expr, body, "", nin=2), [[A, B]])
    q = R.div(_phi(A), _phi(B), 32)
    assert out == [_bits(R.mul(q, _phi(0x40000000), 32))]
    assert [s for o, s in _items(rep) if o == "add.f32"] == ["note"]


def test_self_add_of_a_conversion_hoisted_into_a_pow_body_is_not_the_pows_doubling():
    """``(pow(x, x) * 2.0) / (tl.cos(x) + (x + x))`` of ``x = h.to(f32)`` (held-out seed 119523, silent at first contact
    in 118 of 128 elements): LLVM hoists the ``add x, x`` of the converted h into pow's body, whose column is also
    that of ``pow(..) * 2.0``; that form's operand is the pow's result, not a conversion, so the add is the source's
    ``x + x`` further along the line (ring 2φ(x), not φ(x)·φ(2))."""
    _assert_bit_exact("seed119523", folds=())


def test_self_add_of_a_converted_math_call_stays_its_doubling():
    """``tl.erf(..).to(bf16) * 2.0`` beside ``x0.to(f16) + x0.to(f16)`` (held-out seed 122020): the operand of LLVM's
    ``add.bf16`` is a conversion of erf's result, as the source's cast says; the rule above must not take the cast
    call for the math call (it did, silently, in a first version of it)."""
    _assert_bit_exact("seed122020", folds=())


def test_self_add_of_a_load_at_column_zero_is_the_form_on_that_load():
    """``pow(x1 * 2.0, ..)`` beside ``x0.to(f32) + x0.to(f32)`` on one line of bf16 x0 and f32 x1 (held-out seed 128298,
    silent at first contact in 197/512 elements): the later elements' ``add x1, x1`` carry column 0, and the line's
    one form with an explicit ``.to(f32)`` was taken; the add's operand is x1's load, so only the form on x1 is its
    own (``x1 * 2.0``, ring φ(x1)·φ(2))."""
    _assert_bit_exact("seed128298", folds=())


def test_widened_self_add_reading_a_kept_narrowing_stays_decided():
    """``(h.to(f16) + h.to(f16)) / ..`` beside ``(h.to(f32) * 2.0).to(f16)`` of a bf16 h (held-out seed 126295): two
    adds, the second reading the ``cvt.rn.f16.f32`` LLVM kept, so no CSE made it the first: its location decides
    (``mul2-f32``) despite 160526's check; only the first, whose own form the file also writes widened, is reported."""
    ours, theirs, errors = _compare("seed126295")
    assert (ours == theirs).all()
    assert len(errors) == 1 and errors[0].opcode == "add.f16" and "self-add=add" in errors[0].reason


def test_held_out_doubled_integer_conversion_is_tritons_bits():
    """Held-out seed 169688 (reported at first contact): ``2.0 * (x2 - x1.to(bf16)).to(int64).to(f64)`` stored as
    f32, which LLVM writes as ``cvt.rn.f32.s64`` and ``add.f32 x, x``: bit for bit Triton's."""
    _assert_bit_exact("seed169688", folds=())


def test_widened_self_add_beside_the_lane_form_on_a_widened_half_is_reported():
    """``erf((h.to(f64) + h.to(f64)).to(f32)) / sqrt(2.0 * h.to(f32))`` of a bf16 h (held-out seed 181080, silent at
    first contact in 235/256): both forms read the one ``cvt.f32.bf16`` LLVM made of h, so its CSE made them one
    ``add.f32 x, x`` (unlike a narrowing LLVM kept, 126295): no one form, reported."""
    ours, theirs, errors = _compare("seed181080")
    assert (ours != theirs).any()
    assert any(e.opcode == "add.f32" and "self-add" in e.reason for e in errors)


def test_negated_doubling_reduced_is_the_product():
    """``tl.sum((x * 2.0) * -1.0, axis=1)`` of f64 x (held-out seed 170583, reported: 8/8 elements differed): the
    add carries the location of the negation LLVM computes apart; its operand is the product. Bit for bit, nothing
    reported."""
    _assert_bit_exact("seed170583")


def test_quotient_of_both_forms_splits_by_position():
    """``(x + x) / (2.0 * x)`` of f64 x (held-out seed 168925, reported: 220/256 elements differed): LLVM's one
    add divided by itself; the dividend takes the sum, the divisor the product. Bit for bit, nothing reported."""
    _assert_bit_exact("seed168925")


@pytest.mark.parametrize("expr", ["(x0 + x0) - 2.0 * x0", "(x0 + x0) - x0 * 2.0"])
def test_difference_of_both_forms_contracted_takes_the_minuend_sum(tmp_path, expr):
    """``(x + x) - 2.0 * x`` as ``add t, x, x`` and LLVM's contraction ``fma(x, -2.0, t)`` at the difference's location:
    the fma's addend is the minuend, the sum (2φ(x)); the product is the fma's own."""
    body = (f"{{loc}}\n\tadd.f32 %t, %a, %a;\n\t.loc 1 {EXPR_LINE} {_col(expr, '(x0 + x0)')}\n\t"
            "fma.rn.f32 %d, %a, 0fC0000000, %t;")
    out, rep = _run(_with_source(tmp_path, expr, body, "x0 + x0"), [[A]])
    assert [s for o, s in _items(rep) if o == "add.f32"] == ["note"]
    assert out == [_bits(R.fma(_phi(A), _phi(0xC0000000), ADD(A), 32))]  # φ(x)·φ(−2) + 2φ(x)


def test_negated_factor_of_a_contracted_difference_takes_its_form():
    """``((q - (x + x)) - c * (x * 2.0))`` of f64 x (held-out seed 191166, reported: 106/512 elements differed): one
    add for both forms, read by the sub (the sum) and by the ``neg`` of LLVM's ``fma(-t, c, ..)``, whose location is
    the outer difference: the subtracted product's factor is the product form. Bit for bit, nothing reported."""
    _assert_bit_exact("seed191166")


def test_doubling_in_a_narrowed_where_arm_is_the_wide_product():
    """``where(c, h.to(f32) * 2.0, g.to(f32))`` stored as f16: LLVM sinks the narrowing into the arms and writes the
    doubling as ``add.f16 h, h``; the arm says Triton's f32 ``h * 2.0`` (reported before, undecided)."""
    _assert_bit_exact("k_where_narrowed_doubling_f16", folds=())
