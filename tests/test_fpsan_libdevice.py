"""Inlined libdevice bodies (issue 10 A/B/C): ``ptxkit sanitize`` of Triton 3.9's plain PTX must compute
the bits Triton's own FPSan build computes, on the simulator, with the same seeded inputs.

The pairs under tests/data/triton_libdevice/ were compiled by Triton 3.9.0 (make_pairs.py there); the
reference is Triton's FPSan PTX, which ptxkit did not produce. No Triton needed to run these tests.
"""

from __future__ import annotations

import importlib.util
import json
import re
import shutil
import subprocess
import tempfile
from collections.abc import Callable
from itertools import pairwise
from pathlib import Path

import numpy as np
import pytest

import ptxkit.fpsan.libdevice as LIBDEVICE
from ptxkit.corpus.triton_check import Compiled, run_ptx
from ptxkit.exec_sim.frontend import parse_text
from ptxkit.fpsan.abs_bits import HALF_ABS
from ptxkit.fpsan.libdevice import recognise
from ptxkit.fpsan.libdevice_flow import Flow
from ptxkit.fpsan_ptx import sanitize_text

DATA = Path(__file__).parent / "data" / "triton_libdevice"
META = json.loads((DATA / "meta.json").read_text())
_MP = importlib.util.spec_from_file_location("make_pairs", DATA / "make_pairs.py")
assert _MP is not None and _MP.loader is not None
MAKE_PAIRS = importlib.util.module_from_spec(_MP)
_MP.loader.exec_module(MAKE_PAIRS)


class _Specs(dict):
    """name -> the KernelSpec the pair was compiled from (make_pairs.spec_of: matrix, idiom, seedN, hand)."""

    def __missing__(self, name: str):
        self[name] = MAKE_PAIRS.spec_of(name)
        return self[name]


SPECS = _Specs()


def _build(name: str, mode: str) -> tuple[str, Compiled]:
    text = (DATA / f"{name}.{mode}.ptx").read_text()
    return text, Compiled(ptx=text, **META[f"{name}.{mode}"])


def _compare(name: str, mutate: Callable[[str], str] = lambda t: t,
             folds: tuple[tuple[str, str], ...] = (("half", "native"),)) -> tuple[np.ndarray, np.ndarray, list]:
    spec = SPECS[name]
    plain, cp = _build(name, "plain")
    plain = mutate(plain)
    fpsan, cf = _build(name, "fpsan")
    # the Python source the PTX's .file names, written where --source-root finds it (its directory and
    # name): the folds only the source decides (abs next to a cast, ptxkit.fpsan.folds) are decided
    with tempfile.TemporaryDirectory() as root:
        m = re.search(r'^\s*\.file\s+\d+\s+"([^"]+)"', plain, re.M)
        if m:
            src = Path(root) / Path(m.group(1)).parent.name / Path(m.group(1)).name
            src.parent.mkdir(parents=True)
            src.write_text(spec.source)
        # these kernels' 16-bit ops are half arithmetic (stated by default: without a source they are reported,
        # issue 10 H); ``folds=()`` lets the source decide each
        res = sanitize_text(plain, f"{name}.plain.ptx", folds=folds, source_root=root)
    ours = run_ptx(spec, cp, res.text, f"{name}.sanitized.ptx")
    theirs = run_ptx(spec, cf, fpsan, f"{name}.fpsan.ptx")
    return ours, theirs, res.report.errors


def _assert_bit_exact(name: str, folds: tuple[tuple[str, str], ...] = (("half", "native"),)) -> None:
    ours, theirs, errors = _compare(name, folds=folds)
    diff = np.nonzero(ours != theirs)[0]
    assert diff.size == 0, f"{name}: {diff.size}/{ours.size} elements differ, first at {diff[:1]}"
    # a half's |x| and an int8 conversion are reported by design: what Triton's build does there is LLVM's choice
    # (test_fpsan_abs_bits, test_fpsan_int8)
    assert not [e for e in errors if HALF_ABS not in e.reason and "fptosi is poison" not in e.reason], \
        [e.reason for e in errors]


def test_second_inlined_cos_copy_is_recognised():
    """Issue 10 B: tl.cos on 2 elements per thread inlines __nv_cosf twice; the second copy ends at
    ``%__nv_cosf.exit55`` and was missed silently (element 32 on, where the second copy's lanes are)."""
    _assert_bit_exact("k_cos_f32")


# issue 10 A (f32) and C (f64): bodies recognised by their structure; Triton's op is math.NAME's
@pytest.mark.parametrize("name", ["k_log_f32", "k_log2_f32", "k_erf_f32", "k_exp_f64", "k_exp2_f64", "k_log_f64",
                                  "k_log2_f64"])
def test_inlined_body_is_tritons_fpsan_op(name):
    _assert_bit_exact(name)


def test_recognised_body_is_a_note_naming_the_op():
    res = sanitize_text((DATA / "k_log_f32.plain.ptx").read_text(), "k_log_f32.plain.ptx")
    notes = [i for i in res.report.items if i.opcode == "libdevice:__nv_logf"]
    assert len(notes) == 2 and all(i.severity == "note" and "ring log" in i.reason for i in notes)
    assert "mul.lo.s32" in res.text and "0x34c2cb2c" in res.text.lower()  # the Log tag (docs/fpsan.md §2)


def test_unmatched_body_is_an_error_never_silent():
    """Held-out seed 771: ``libdevice.pow(d, -d)`` (f32): LLVM computes -d inside the body, at a merged
    column-0 location, so the PTX is pow(d, -d) or pow(d, d) whose body negates d; without the source no
    choice of inputs stands alone. Not matched: reported as an error (--strict fails), not silently."""
    res = sanitize_text((DATA / "seed771.plain.ptx").read_text(), "seed771.plain.ptx", source_hints=False)
    assert {i.opcode for i in res.report.errors} >= {"libdevice:__nv_powf"}


@pytest.mark.parametrize("name", ["seed199", "seed965"])
def test_special_case_select_sunk_past_user_code_keeps_the_general_arm(name):
    """Seed 199: ``libdevice.pow(a, b).to(f32)`` (f64): LLVM sinks __nv_pow's special cases (x == 1 or
    y == 0 → 1) past the user's narrowing, as ``selp.b32 r, 1.0f, cvt(p), q``; held-out seed 965:
    ``0.0 * (0.0 * (tl.log(x) - 0.5))``, logf's x == 0 case selected to NaN after the user's arithmetic.
    Triton's FPSan hashes the whole call (no special case): each such select, which carries the call's
    ``.loc``, becomes a move of its general arm, with a note (it was an unmatched body, reported)."""
    _assert_bit_exact(name)
    plain = (DATA / f"{name}.plain.ptx").read_text()
    res = sanitize_text(plain, f"{name}.plain.ptx", source_hints=False)
    notes = [i for i in res.report.items if i.opcode.startswith("selp") and "special case" in i.reason]
    assert notes and all(i.severity == "note" for i in notes) and not res.report.errors
    lines = [ln.strip() for ln in res.text.splitlines()]
    moved = [a for a, b in pairwise(lines) if a.startswith("// fpsan: selp") and b.startswith("mov.")]
    assert len(moved) == len({i.line for i in notes})  # each select now a move


@pytest.mark.parametrize("name", ["seed46161", "k_where_abs_log2_f32"])
def test_special_case_select_at_an_enclosing_calls_location_keeps_the_general_arm(name):
    """Held-out seed 46161 (reported before: the body was not recognised): ``abs(log2(d))`` of f32, LLVM's abs at
    the store's location and log2's x == 0 select of +inf after it, at the abs call's (an expression enclosing the
    call on its line); beside a user's ``tl.where(d == 0.0, inf, ..)`` on the same value, whose select stays Triton's:
    bit for bit, nothing reported."""
    _assert_bit_exact(name)


def test_special_case_select_of_other_code_is_not_taken():
    """A select with the same shape whose predicate other code reads too (a branch) is not the body's
    special case: the body stays unmatched and reported."""
    plain = (DATA / "seed965.plain.ptx").read_text()
    sel = next(ln for ln in plain.splitlines() if "selp.f32" in ln and "0f7FC00000" in ln)
    pred = sel.rstrip(";").split(",")[-1].strip()
    mutated = plain.replace(sel, sel + f"\n\t@{pred} bra $L__BB0_2;", 1)
    errors = sanitize_text(mutated, "m.ptx", source_hints=False).report.errors
    assert "libdevice:__nv_logf" in {i.opcode for i in errors}


@pytest.mark.parametrize("name", [
    # pow(.., (x.to(f32) * y) * 2.0): the p + p of the product contracted into fma(x, y, p) in the later copies, after
    # the first powf's join, which its cold blocks (at the function's end) jump back to: no loop (silent before)
    "seed62394",
    "seed142",   # 2 * log2(x) under tl.min: 16 copies' x == 0 tests packed into a bit mask, tested once after the min
    "seed1346",  # abs(log2(..)): logf's x == 0 select merged into the user's abs (the abs's location)
    "seed2018",  # log2(x) under tl.max: the select after the exit, a debug label before the reduction
    "seed1147",  # log2f of i.to(f32): its subnormal test x < 2^-126 done on the integer, i < 1
    "seed1625",  # tanh(-y): the body squares y itself ((-y)² = y·y)
    # __nv_exp's |x| test and the next __nv_pow's exponent field read one unpacking of y (mov.b64 {lo, hi}, y);
    # pow's y == 0 / x == 1 tests after the exit compare the halves y and x came from (setp.eq.f16): native
    # like the body, not reported as half arithmetic
    "seed1239",
    "seed2128",  # pow(x, h.to(f32) * -1.0): the half's conversion and the caller's neg sunk past y == 0
    "seed2432",  # pow(y, x.to(f32)) + x.to(f32): one conversion, shared by the body and the caller's add
    # pow(x0, x1.to(f32)) of a half x1: its conversion sunk past the x == 1 branch at line 0 column 0 is
    # computed again at the exit (read as an input, it was stale where the branch skipped it: silent)
    "seed1677",
    # exp(x.to(f64)) of a bf16 x: the x < 0 test is setp.lt.bf16 on the half, which reaches x's cvt through a
    # packing of two halves and its unpacking (mov.b32 r, {h, g}; mov.b32 {h2, g2}, r)
    "seed2963",
    # exp2(s.to(f64)) of a cumsum s: the cumsum's next fma.rn.f16 sits in the body's range at line 0 of the
    # call's column, reading s's half: other code, not the body's start
    "seed3005",
    # pow(x - y, x * y) beside (x * y) * 0.5: the user's product by 0.5 is the y * 0.5 of powf's odd test
    "seed3009",
    # log2(x * 0.5) * pow(x, x): the user's x * 0.5, computed before the pow's range, is powf's y * 0.5 (the pow was
    # taken for pow(x, x * 0.5), silently); held-out seed 63444 has it among erf, log and pow of one x
    "k_log2_of_half_x_times_pow_x_x",
    "seed63444",
    # tanh(x) and log(x) of one x: four logf copies, with their branches, between tanhf's |x| and its tail
    "seed3065",
    # pow(tanh(x1), x0) under sin: a tanhf's final select sunk past a powf body (its out-of-line blocks)
    "seed718",
    # cos(x) and tanh(x) of one x share cosf's |x|, read by both bodies alone: native, no abs-of-cast report
    "seed1261",
    # cos(x) and pow(x, x): powf multiplies by x and takes the log of the |x| cosf computed — x, not |x|
    "seed1773",
    # max(x * x, tanh(x)): the user's x * x is tanhf's x² (the fourth copy's at a merged location, 11:0)
    "seed2094",
    # tanh(x) and pow(x, x) share tanhf's |x| (no marker before powf): pow(x, x), not pow(x, |x|) (was silent)
    "seed3218",
    # max(pow(s, s), erf(s)) of f64: the erf body (no exit marker) reads the pow body's |s| and s's high word, and
    # its first coefficient is moved into a register at the pow's location
    "seed1633",
    # -sin(erf(h.to(f64))): erf's result (no exit marker) is first read inside a one-line { } block that unpacks
    # it: the ring op goes before the block
    "seed3573",
    # sin(x.to(f64)) * pow(y, x.to(f64)): the unmarked sin body and the pow body share x's words, its isinf test
    # and |x| (CSE): values of x, read by the two bodies alone
    "seed3817",
    # where(sin(x) == log2(x), .., erf(x)) of f64: three bodies of one x, sharing |x| and x's tests
    "seed3121",
    # exp2(x) / (sin(x) - abs(x)) of f64: the unmarked sin body's range test reads the |x| computed before it
    "seed3602",
    # exp2(x.to(f64) * x.to(f64)): LLVM contracts the body's x - round(x) with the caller's product into
    # fma(h, h, -round(x)): the body reads the product's factors besides its input
    "seed3924",
    # tanh(x) and erf(x) of f64: erf's copysign reads the sign of x tanh's body extracted (and.b32 s, hi(x), 1<<31),
    # which LLVM also hoisted, at erf's location, into an arm of tanh's branch
    "seed1003",
    # pow(pow(x, x), tanh(x)): powf's out-of-line blocks branch back into its body (no loop), so tanhf's 1.0
    # register, moved once before them, still holds the immediate at the tanhf tail
    "seed4267",
    # ceil(exp2(x)) * (tanh(x) * pow(x, y)) of f64: pow's base is the x whose |x| tanh computed (it went to the log
    # call): pow(x, y), not pow(y, x) (silent for a while this session)
    "seed3351",
    # log(pow(x, ceil(x) - x)) of f64: log's copy of its input (the body updates it in place) is pow's anchor; the
    # copy goes after pow's ring op, or it copies pow's native result (silent before)
    "seed5340",
    # pow(x / x, x) == x of f64: the user's comparison of pow's result sits after the exit at the call's location,
    # behind pow's sunk y == 0 / x == 1 selects; the body's tail ends in the value, the test is the caller's
    "seed4744",
    # pow(pow(x2, y), y) - .., y = x1.to(f64): the second pow body and its sunk selects read the first's y == 0 and
    # odd-integer tests of y (LLVM's CSE); the first is recognised beside the second, its ring op before it
    "seed8085",
    # x <= pow(x, x) beside log(x) of f64: the log body reads the hi word of x that pow's body unpacked, and rewrites
    # that register in place with its scaled x's; the word read before the rewrite is x's bits (recognised beside)
    "seed8287",
    # pow(-x / (x * x), -x): both x and the caller's -x pass as the exponent; the body computes with -x only (its
    # y * 0.5 is x * -0.5, LLVM's fold of the negation): pow(a, -x)
    "seed8705",
    # exp(pow(x.to(f64), x.to(f64))) on four elements: the fourth pow's x == 1 select sunk past two exp bodies carries
    # line 0 and the exp call's column; its predicate and arm are the pow's own sunk steps
    "seed7733",
    # fma(a.to(bf16).to(f64), exp2(a), a + a) of f64: LLVM copies the user's a + a into the arm of exp2's branch whose
    # NaN case returns x + x, under exp2's location; the copy is the user's ring add, the body reads it
    "seed9188",
    # max over rows of pow(x1 + x1, h.to(f64)): each copy's y == 0 select, on the half's bits packed with the next
    # element's, sits at the call's location past the exit: the body's special case, it keeps the general arm (silent)
    "seed9580",
    # cos(x.to(f64)) beside x.to(f64) + 1.0: LLVM schedules the add, at the merged location kernel.py:12:0, between the
    # cos body's reduction and its polynomial; the add is the caller's (its result is not the body's)
    "seed10951",
    # sin(x.to(f64)) beside log2(sqrt(x.to(f32)).to(bf16).to(f64)): LLVM schedules log2's conversion (at 12:0) and its
    # in-place subnormal scaling (at line 0) into the unmarked sin bodies; an update in place reads itself, which
    # kept it in the body (held-out seed 226218, reported as unrecognised)
    "seed226218", "k_sin_beside_log2_of_sqrt_f64",
    # x1 > cos(x2.to(f64)) on eight elements interleaved with sinf bodies: the cos tails carry line 0 and the sinf's
    # column (kernel.py:0:95); they read only the body's values
    "seed11068",
    # pow(x2f, x1f)'s y == 0 test on x1's f16 source, sunk past the exit, is the outer pow(x1f, ..)'s x == 0 test: a
    # comparison of the inputs alone that the other body reads, not this body's result
    "seed11184",
    # the user's exp(x) >= 1.5 after the exit at a merged location is the caller's test of the result
    "k_exp_ge_const_f64",
    # exp(x.to(f64)) tests the f32 x, while a later log2 body of the same x.to(f64) scales it in place
    "k_exp_and_log2_of_one_f64",
    # log(x) of f64 whose first read of x is its subnormal scaling mul x, x, 2^54 in an arm of its own branch (tanh's
    # body unpacked x's words): the copy of x goes before the branch
    "seed11554",
    # pow(d, d) and erf(d) of sixteen dot results a thread: erf reads the |d| pow's body computed (LLVM's CSE), and its
    # |d|-or-d² phi shares that register (a second write, in erf's arm); both bodies were left unrecognised
    "seed12199",
    # pow(erf(..), -i.to(f32)) of an int32 i: the body tests i == 0 itself, and the conversion and negation of i are
    # sunk past its x == 1 branch (the argument is the chain from i, replayed in the ring)
    "seed10345",
    # tanh(x1.to(f32)) and sin(x1.to(f32)) on four elements: sinf's |x| tests read the |x| tanhf computed (native, as
    # every comparison), and the user's sqrt(x) of the same x sits at kernel.py:12:0 inside the last sinf copy
    "seed12411",
    # sqrt(abs(x)) beside sin(x) and tanh(x): LLVM computes the user's abs and sqrt inside the sinf range (12:0); they
    # are the caller's, and the abs no sunk argument of sinf (its reader is the sqrt)
    "seed12474",
    # where(pow(a, a) < a, ..) of tf32x3 dot inputs: the user's comparison sits after the exit at the call's location
    # (the Compare starts where the call does), and pow's result register is rewritten in place by its sign and NaN
    # selects; the comparison reads the last write: the caller's test of the result
    "seed12443",
    # sin(x) + log2(x) of one f64 x: the sin's ring op, after log2's in-place scaling of x (which runs for x < 0 too),
    # reads log2's copy of x (silent for every negative x before)
    "k_sin_plus_log2_of_one_f64",
    # pow(a + a, a) of f16 dot inputs: the next element's user a + a at the merged location 13:0 is read by pow's own
    # x + x (its NaN arm, at the call's 13:10): a body's step, not an outer self-add that would leave it undecided
    "seed12700",
    # sin(rsqrt((x1 * x0) / sin(x0))) of f32: the user's x1 * x0 sits at the merged location inside the inner sinf's
    # range; it reads x0 and another value, no intermediate of the body: the caller's
    "seed10549",
    # exp2(abs(x * x)) beside sin(x) of a widened bf16 x: LLVM computes the user's x * x and its abs inside the sinf
    # range (11:0), the abs read by the exp2 after the exit; the x * x, read by that abs alone, is the caller's too
    # (the sinf body was dropped as leaking it before: reported)
    "seed107800",
    # sin(x * 2.0 + pow(x, y)) of f64 on sixteen elements: one pow's y == 0 select (1.0) and its test sunk into the
    # first sin body's range, at that sin's merged column (0:9); a compiler-made select on a test of the inputs alone
    # is the special case's (the body was left unrecognised before: reported)
    "seed108767",
    # pow(x, (-exp2(d)).to(f32)) of an f64 d: LLVM sinks the negation of the narrowed value into powf past its y == 0
    # test; Triton narrows the f64 negation (the ring's narrowing does not commute with it), as the source says; and
    # pow(x, -(exp2(d).to(f32))), the same PTX, negates the narrowed value (silent at first contact before)
    "seed109879",
    "k_pow_of_negated_narrowing_before_f64",
    "k_pow_of_negated_narrowing_after_f64",
    # pow(x * 2.0, x + x): LLVM's one add x, x for both arguments; Triton's ring has φ(x)·φ(2) and 2φ(x), replayed at
    # the exit as the source's call says (held-out seeds 103190, 107913: the body was left unrecognised, reported)
    "seed103190",
    "k_pow_of_doublings_f32",
    "k_pow_of_doublings_swapped_f64",
    # log2(rsqrt(x) * -1.0) and log(-x) of f64: LLVM folds the argument's negation into the body (its subnormal
    # scaling as x * -2^54, −x's words read beside x): the argument the source negates is replayed as the ring's −φ(x)
    "seed14670",
    "seed15330",
    # pow(log2(x2), abs(h.to(f32))) of a half h, two copies: LLVM's |h| (abs.f16) then its cvt sunk into each body, at
    # kernel.py:13:0 and at line 0; the source's abs takes the cast, so Triton's ring widens h, then takes |·| on the
    # f32 bits (silent at h = −0 before: the |h| widened)
    "seed17682",
    # maximum(0.0 * a, log(a)) of tf32x3 dot inputs: LLVM folds logf's x == 0 case (−inf) through the user's max into
    # a select of 0.0 * a past the exit, at the call's location; Triton's ring max has no such case (the general arm)
    "seed22633",
    # sin(x) / 3.0 beside erf(x) of f32: LLVM's CSE gives erf the |x| sinf computed, and erf's |x|-or-x² phi reuses
    # that register after sinf's range (a second write, in erf's arm); sinf was left unrecognised (reported before)
    "seed23406",
    # tanh(-x0) on eight elements: LLVM squares x0 itself ((-x)² = x·x) and hoists each copy's x² and first polynomial
    # step above the negation that is the body's input (reported before: the bodies were left unrecognised)
    "seed23814",
    # tanh(abs(x1)) of f64 beside exp(abs(abs(x1))): the tanh body squares x1 itself (|x|² = x·x) and computes with
    # the caller's |x1|: the argument is |x1|, not x1 (silent at first contact: x1 was taken, the abs left outside)
    "seed25782",
    # pow(a.to(int64).to(f32), a.to(f32)) of bf16 dot inputs: a's halves are unpacked from an ldmatrix word under the
    # call's location (a layout move, not the body's work), and the body tests a == 0 on the bf16 and x == 1 on the
    # int64 (reported before: the bf16 was taken for a value the body computed, so no argument was found)
    "seed26920",
    # pow(x0, y) and pow(y, x0) of f64 (y = x1.to(f64)): the second reads the |y| and y's sign test the first computed
    # (LLVM's CSE across two calls of one function), and f64 pow's float work is in __internal_accurate_pow, so the
    # second body's sunk selects are found by its last float instruction, not its last arithmetic (reported before)
    "seed27401",
    # log2(y) + pow(x0, y) + max(sin(y), ...) of f64: the next sin body tests pow's |hi(y)| for inf, the high word an
    # earlier log2 body unpacked: bits of the input, not a value the pow body leaks (reported before)
    "seed27648",
    # pow(tanh(pow(x0.to(f64), x1.to(f64))), x1.to(f64)): LLVM rematerialises the outer pow's y == 0 test (on the bf16
    # x1) after the outer exit at the inner call's location; the outer body's select reads it, so it is no step of the
    # inner body's tail, whose ring op goes before the tanh (reported before: the tail reached past the outer body)
    "seed27324",
    # pow(y, y) / pow(x0, y) of f64, y = x1.to(f64): the first body's |y| != 0.5 test is read by the second too; a
    # comparison of |y| is as native in Triton's FPSan as one of y (its abs is), so it is no result of the first body
    "seed28487",
    # abs(pow(h.to(f64), h.to(f64))) stored f32: pow(x, x)'s x == 0 and x == 1 selects sunk past the user's narrowing
    # and the abs LLVM moved after it, at the narrowing's location (reported before: no location tied them to the call)
    "seed29381",
    # pow(pow(x, x), sqrt(x)) of a widened bf16 on eight elements: LLVM interleaves the copies, and the later inner
    # copies' x == 0 / x == 1 selects carry the outer call's column at line 0 (merged locations), one select reading
    # the other: silent before (the selects kept 1.0 natively, 9/512 elements, hidden behind a 16-bit op report)
    "seed29941",
    # (pow(x, h.to(f64)) - 0.5) * exp2(..) of sixteen rows: LLVM folds the user's - 0.5 into pow's y == 0 (on the
    # half's bits) and x == 1 selects, select(c, 0.5, pow - 0.5), at the call's location: the special case's, the
    # select keeps its general arm (held-out seed 123395, silent at first contact: the 0.5 kept, 7/64 columns)
    "seed123395",
    # -exp2(pow(x, x)) of a widened f32 on eight elements: one copy's y == 0 select is found by the body's own tests,
    # and the x == 1 select reading it sits past the next exp2 body: the select of a special case's select is the
    # next special case all the same (held-out seed 152431, silent at first contact: 1.0 kept at x == 1, 2/512)
    "seed152431",
    # sqrt(erf(abs(x))) of a NaN input: erf's body runs natively and reads |x|, and so does the ring erf that replaces
    # it: |x| is Triton's and, not a float abs.f32 writing 0x7fffffff (silent at first contact under the GPU's NaN)
    "seed33457",
    # floor(x + x) beside pow(2.0 * x, ...): LLVM's one add x, x split into both forms, the readers' one the ring add
    # of x with itself (crashed at first contact: the split's second form got one operand)
    "seed33679",
    # pow(x, where(c, x, x)): the choice of one value is x in Triton's ring too — the call passes one value twice
    "k_pow_of_one_choice_f32",
    # libdevice.floor(x0) - tl.ceil(x1) of f64: the same cvt.rmi/.rpi, a hashed call and a tagged op in Triton's FPSan
    # (the floor was taken for the tag, silent: the source's libdevice call decides)
    "k_libdevice_floor_tl_ceil_f64",
    # f64 libdevice.log / exp / erf ... called directly are hashed calls in Triton's FPSan (its f32 ones the math ops),
    # and libdevice.sqrt / f64 rsqrt single instructions hashed too: the source's call decides (silent before)
    "k_libdevice_log_tl_exp_f64",
    "k_libdevice_sqrt_rsqrt",
    "k_libdevice_copysign_f32",
    # libdevice.copysign(x.to(f64), y.to(f64)).to(f32) as copysign.f32: the f64 call's hash of the widened payloads,
    # narrowed (hand kernel, silent in 100/128 before)
    "k_copysign_of_widenings_f32",
])
def test_body_whose_special_case_or_input_llvm_rewrote_is_tritons_op(name):
    """Held-out kernels where LLVM moved a body's special case or rewrote its input: each is Triton's op
    bit for bit, with no error (they were unmatched bodies, reported)."""
    _assert_bit_exact(name)


def test_int_round_trip_compared_across_a_body_is_the_trunc_of_tritons_build():
    """Held-out seed 11450: log2(x.to(f64)).to(int64).to(f64) read only by comparisons whose selects follow pow
    bodies. The plain build keeps cvt.rzi.s64.f64 / cvt.rn.f64.s64 (the bodies split the block LLVM's DAG combine
    sees); Triton's FPSan build, where each body is one ring op, folds the pair into cvt.rzi.f64.f64 (silent before)."""
    plain = (DATA / "seed11450.plain.ptx").read_text()
    assert "cvt.rn.f64.s64" in plain and "cvt.rzi.f64.f64" not in plain
    assert "cvt.rzi.f64.f64" in (DATA / "seed11450.fpsan.ptx").read_text()
    _assert_bit_exact("seed11450")
    res = sanitize_text(plain, "seed11450.plain.ptx")
    assert sum("folds the pair into a trunc" in i.reason and i.severity == "note" for i in res.report.items) == 4


def test_half_int_round_trip_compared_across_a_body_stays_two_conversions():
    """Held-out seed 157106 (silent at first contact, 258/512): ``x0 <= x0.to(int16).to(bf16)`` of a bf16 x0 beside
    pow bodies: Triton's FPSan converts the half to the integer through its f32 widening, so its build keeps
    ``cvt.rzi.s16.f32`` / ``cvt.rn.bf16.s16`` (two types: no trunc to fold them into) — the pair, not a trunc."""
    assert "cvt.rn.bf16.s16" in (DATA / "seed157106.fpsan.ptx").read_text()
    _assert_bit_exact("seed157106")
    res = sanitize_text((DATA / "seed157106.plain.ptx").read_text(), "seed157106.plain.ptx")
    assert not any("folds the pair into a trunc" in i.reason for i in res.report.items)


def test_pow_copies_whose_sunk_selects_interleave_with_later_copies_stay_reported():
    """Held-out seed 5710: pow(pow(a, a), -a) on four elements a thread — LLVM sinks each inner pow's x == 0 and
    x == 1 selects past the later copies, its test into their ranges. Recognised beside the outer copies, an inner
    body's ring op went before those selects, which then picked 1.0 natively (89 elements, nothing reported);
    and a ring op placed in one arm of a later copy's branch ran on that path only. Such a body stays reported."""
    ours, theirs, errors = _compare("seed5710")
    assert (ours == theirs).all() or "libdevice:__nv_pow" in {e.opcode for e in errors}


def test_second_pow_sharing_one_argument_of_the_first_is_not_taken_for_its_arguments():
    """Held-out seed 27349: ``minimum(pow(x1, x0.to(f32)), pow(x1, x1))`` — LLVM's CSE gives the second body the first's
    log2|x1|. Paired with it as two calls of one function (as pow(x, y) and pow(y, x) are, seed 27401), the second was
    taken for pow(x1, x0) though it never reads x0 (64/128 elements, nothing reported): each argument must be read by
    the later body's own work, else the pair is refused and the bodies reported."""
    ours, theirs, errors = _compare("seed27349")
    assert (ours == theirs).all() or "libdevice:__nv_powf" in {e.opcode for e in errors}


def test_comparison_read_only_by_bypassed_special_case_selects_is_not_reported():
    """Held-out seed 29941: pow's x == 0 / x == 1 tests on the bf16 x, sunk far from their bodies, are read only by
    the special-case selects the bodies' ring ops bypass — no value reads them, so their 16-bit comparison (a fold the
    source would have to decide) is a note, not an error: the error there hid a silent mismatch at first contact."""
    plain = (DATA / "seed29941.plain.ptx").read_text()
    res = sanitize_text(plain, "seed29941.plain.ptx")
    said = [i for i in res.report.items if i.opcode == "setp.eq.bf16"]
    assert all(i.severity == "note" for i in said) and any("special-case selects" in i.reason for i in said)
    assert not res.report.errors


def test_pow_of_two_forms_of_one_negation_is_reported():
    """Held-out seed 29830 (silent at first contact): ``pow(-y, y * -1.0)`` of a widened half y — one value natively
    (LLVM's one neg, the body reading it and y with negated constants), two in Triton's ring (−φ(y) and φ(y)·φ(−1)).
    The body was hashed as pow(-y, y); neither register pair is Triton's, so the body is left reported."""
    ours, theirs, errors = _compare("seed29830")
    assert not (ours == theirs).all() and "libdevice:__nv_powf" in {e.opcode for e in errors}


def test_pow_whose_two_arguments_llvm_made_one_register_is_reported():
    """Held-out seed 16769 (silent at first contact): ``pow(abs(x), x)`` of f64 — the user's |x| is read only inside
    the body, whose inputs are then both x; the source passes two different arguments, so the body is left
    unrecognised and reported rather than hashed as pow(x, x)."""
    ours, theirs, errors = _compare("seed16769")
    assert not (ours == theirs).all() and "libdevice:__nv_pow" in {e.opcode for e in errors}


def test_caller_arithmetic_sunk_with_a_half_conversion_is_reported():
    """Held-out seed 73705 (silent at first contact): ``pow(tanh(..), (0.0 * y.to(f32)) + 1.0)`` of a bf16 y — LLVM
    sank y's cvt and the ``fma(y, 0.0, 1.0)`` past powf's ``x == 1`` exit at a merged location (0:9), and the body was
    hashed as pow(t, y). The source's call passes no cast, so the conversion is not the argument: left reported."""
    ours, theirs, errors = _compare("seed73705")
    assert not (ours == theirs).all() and "libdevice:__nv_powf" in {e.opcode for e in errors}


def test_sunk_abs_and_cast_of_an_argument_without_a_source_are_reported():
    """Held-out seed 17682: the half's abs.f16 and cvt.f32.f16 inside powf's body are ``abs(h.to(f32))`` in the source
    (LLVM moved the abs above the cast), or ``abs(h).to(f32)`` in another kernel (held-out seed 802): without the
    source the order is undecided, replayed as written and reported; with it, bit-exact (the parametrized test)."""
    plain = (DATA / "seed17682.plain.ptx").read_text()
    res = sanitize_text(plain, "seed17682.plain.ptx", folds=(("half", "native"),), source_hints=False)
    said = [e for e in res.report.errors
            if e.opcode == "libdevice:__nv_powf" and "abs.f16 then cvt.f32.f16" in e.reason]
    assert len(said) == 2


@pytest.mark.parametrize("name", ["k_pow_of_negated_narrowing_before_f64", "k_pow_of_negated_narrowing_after_f64"])
def test_sunk_negation_of_a_narrowing_without_a_source_is_reported(name):
    """The neg.f32 of a cvt.rn.f32.f64 result that LLVM sank into powf is ``(-e).to(f32)`` or ``-(e.to(f32))``, one
    PTX for both (held-out seed 109879): without the source the order is undecided, replayed as written and reported
    once per body; with it, bit-exact (the parametrized test)."""
    plain = (DATA / f"{name}.plain.ptx").read_text()
    res = sanitize_text(plain, f"{name}.plain.ptx", folds=(("half", "native"),), source_hints=False)
    said = [e for e in res.report.errors
            if e.opcode == "libdevice:__nv_powf" and "neg.f32 of a cvt.rn.f32.f64 result" in e.reason]
    assert len(said) == 2


def test_unmarked_bodies_inside_a_recognised_bodys_range_are_reported():
    """Held-out seed 10725 (silent at first contact): eight interleaved f64 sin bodies (no exit marker), two of them
    recognised, whose line ranges span the other six's constants. Those six are sanitized op by op — reported at
    their constants, since only the lines a recognised body runs natively are its own."""
    ours, theirs, errors = _compare("seed10725")
    assert (ours == theirs).all() or "libdevice:__nv_sin/cos" in {e.opcode for e in errors}


def test_two_bodies_of_one_input_sharing_their_common_steps_are_both_recognised():
    """Held-out seed 3169: ``tl.where(c, tl.log(x), tl.log2(x))`` — LLVM's CSE makes the log2f body read the
    logf body's subnormal scaling of x, its exponent bias, its inf/NaN fix-up and its ``x == 0`` test. Both
    run natively, each result is its ring op, bit for bit with Triton's FPSan. A shared value that other code
    reads as well (a mutation: the user's add of logf's scaled x) leaves both bodies reported, never silent."""
    _assert_bit_exact("seed3169")
    plain = (DATA / "seed3169.plain.ptx").read_text()
    sel = "selp.f32 \t%r78, %r8, %r77, %p5;"
    assert plain.count(sel) == 1
    res = sanitize_text(plain.replace(sel, sel + "\n\tadd.f32 \t%r78, %r78, %r6;"), "m.ptx", source_hints=False)
    assert {"libdevice:__nv_logf", "libdevice:__nv_log2f"} <= {i.opcode for i in res.report.errors}


def test_ring_op_anchored_in_a_one_line_block_goes_before_the_block(tmp_path):
    """Held-out seed 3753: the instruction a ring op goes before (after the selects LLVM sank past the exit) can
    sit in a one-line ``{ .reg .b32 tmp; … }`` block; lines inserted in the middle of that line cut its closing
    brace (the output did not parse). A mutation of seed 965 puts logf's anchor, the user's ``add.f32``, in such
    a block: the op goes before the block, bit for bit with Triton's FPSan, and ptxas accepts the output."""
    add = "add.f32 \t%r41, %r45, 0fBF000000;"

    def wrap(t: str) -> str:
        assert t.count(add) == 1
        return t.replace(add, "{ .reg .b32 tmp; " + add + " }")
    ours, theirs, errors = _compare("seed965", wrap)
    assert (ours == theirs).all() and not errors
    text = sanitize_text(wrap((DATA / "seed965.plain.ptx").read_text()), "m.ptx").text
    parse_text(text)
    if shutil.which("ptxas") is not None:
        _assert_ptxas_accepts(text, tmp_path)


def test_value_two_bodies_share_read_by_user_code_leaves_them_reported():
    """Seed 3817's sin body reduces x (``fma.rn.f64 %rd17``: x − k·π/2); a mutation where the user's product also
    reads that step (a native value where Triton's FPSan has a ring op's) drops the sin body: reported, never a
    silent ring op next to a native value. (Its |x|, ``abs.f64 %rd57``, which pow's body shares, is no such value:
    abs is native in Triton's FPSan too, seed 12474.)"""
    plain = (DATA / "seed3817.plain.ptx").read_text()
    mul = "mul.f64 \t%rd55, %rd3, %rd54;"
    assert plain.count(mul) == 1 and "fma.rn.f64 \t%rd17, %rd15, %rd16, %rd2;" in plain
    res = sanitize_text(plain.replace(mul, mul + "\n\tadd.f64 \t%rd55, %rd55, %rd17;"), "m.ptx", source_hints=False)
    assert "libdevice:__nv_sin/cos" in {i.opcode for i in res.report.errors}
    res = sanitize_text(plain.replace(mul, mul + "\n\tadd.f64 \t%rd55, %rd55, %rd57;"), "m.ptx", source_hints=False)
    assert "libdevice:__nv_sin/cos" not in {i.opcode for i in res.report.errors}


def test_tests_sunk_past_the_exit_run_natively_unreported():
    """Seed 1239: __nv_pow's y == 0 and x == 1 tests after the exit (``setp.eq.f16 p, h, 0`` on the halves the
    f64 arguments came from, then ``selp.f64 r, 1.0, r, p``) still compute the body's result, which the ring
    op replaces: they run natively like the body, not sanitized (and reported) as half comparisons; the pow's
    exponent field reads the unpacking of y that the __nv_exp before it made. Only the unrelated
    ``i.to(f64)`` of an int16 (no source here) stays an error."""
    res = sanitize_text((DATA / "seed1239.plain.ptx").read_text(), "seed1239.plain.ptx", source_hints=False)
    assert {i.opcode for i in res.report.errors} == {"cvt.rn.f64.s16"}
    assert {i.opcode for i in res.report.items if i.opcode.startswith("libdevice")} == {
        "libdevice:__nv_pow", "libdevice:__nv_exp", "libdevice:__nv_exp2"}


def test_tanhf_sharing_its_abs_with_another_body_is_recognised():
    """Held-out seed 2405: ``tanh(x)`` and ``sin(x)`` of one x share ``abs.ftz.f32 a, x`` (tanhf's scaling and
    sinf's range test): |x| is a value of the input that the sinf body reads too, not tanhf's result. The
    tanhf body is Triton's call hash, bit for bit; the shared abs, read only by the bodies (sinf's test of it is a
    comparison in its range), is libdevice's own step, native like them (a note; reported as an abs next to a
    conversion the source does not show before held-out seed 12411)."""
    ours, theirs, errors = _compare("seed2405")
    assert (ours == theirs).all()
    res = sanitize_text((DATA / "seed2405.plain.ptx").read_text(), "seed2405.plain.ptx", source_hints=False)
    assert "libdevice:__nv_tanhf" in {i.opcode for i in res.report.items if i.severity == "note"}
    assert not errors and "abs.ftz.f32" in {i.opcode for i in res.report.items if i.severity == "note"}


def test_select_at_a_location_of_its_own_is_the_users():
    """The same select at a location of its own (a user's ``tl.where(x == 0, inf, abs(log2(x)))``) is not the
    body's special case: the body stays unmatched and reported, the select is left to the user's code."""
    plain = (DATA / "seed1346.plain.ptx").read_text()
    sel = next(ln for ln in plain.splitlines() if "selp.f32" in ln and "0f7F800000" in ln)
    mutated = plain.replace(sel, "\t.loc\t1 12 5\n" + sel, 1)
    errors = sanitize_text(mutated, "m.ptx", source_hints=False).report.errors
    assert "libdevice:__nv_log2f" in {i.opcode for i in errors}
    assert "libdevice:__nv_log2f" not in {i.opcode for i in sanitize_text(plain, "p.ptx").report.errors}


@pytest.mark.parametrize("name", ["k_pow_of_neg_self_f32", "seed2056", "seed771"])
def test_two_argument_body_of_a_value_and_its_negation_is_decided_by_the_source(name):
    """``libdevice.pow(-y, y)`` (held-out seed 2056: y = d.to(f32) of a dot): the body reads -y and y, which is
    also the PTX of pow(x, x) with x = -y (it tests |x| and y as well); both choices of inputs pass. The
    source's call passes two expressions: (-y, y), bit-exact (it was taken as pow(-y, -y), silently).
    Seed 771, ``pow(d, -d)``: -d is computed inside the body after its x == 0 / x == 1 branch, so it is
    computed again at the exit from d. Without the source the body is left unmatched and reported."""
    _assert_bit_exact(name)
    plain = (DATA / f"{name}.plain.ptx").read_text()
    errors = sanitize_text(plain, f"{name}.plain.ptx", source_hints=False).report.errors
    assert "libdevice:__nv_powf" in {i.opcode for i in errors}


def test_body_calling_a_func_is_the_call_hash():
    """__nv_pow (f64) calls ``__internal_accurate_pow`` (a ``.func`` with its own inlined __nv_exp): the
    callseq (st.param, call, ld.param) is dataflow of the body, the ``.func`` is called from the bodies
    only, so it is part of them and left as it is (it was sanitized op by op, with its __nv_exp reported).
    Triton's op is the call hash of __nv_pow over (x, y)."""
    _assert_bit_exact("k_pow_f64")
    plain = (DATA / "k_pow_f64.plain.ptx").read_text()
    out = sanitize_text(plain, "k_pow_f64.plain.ptx").text
    func = plain[plain.index(".func  (.param .b64 func_retval0) __internal_accurate_pow("):]
    assert func.split("\n.section")[0] in out  # the .func's text unchanged


def test_float_work_shared_with_user_code_is_the_users():
    """``libdevice.pow(x0, x1) * (x0 + x1)`` (f64): pow's x + y test and the user's x0 + x1 are one
    ``add.f64``; it reads only the inputs and is read by the user's multiply: it is the user's (a ring add),
    the body may read it."""
    _assert_bit_exact("k_pow_times_sum_f64")


def test_body_with_out_of_line_blocks_is_recognised():
    """__nv_powf: LLVM lays the main path out after the kernel's ret (blocks that branch back to the
    exit), and reuses one register for a constant of the first copy and the result of the second.
    Triton's FPSan op is the call hash of __nv_powf over (x, y) in that order."""
    _assert_bit_exact("k_pow_f32")


def test_body_without_exit_marker_is_reported():
    """Issue 10 A0/C: LLVM inlines f64 erf/sin/cos with no ``%__nv_NAME.exit`` marker; bodies that are not
    recognised were sanitized op by op silently. Seed 187 (``tl.sin`` f64 among other work) is recognised
    since its abs of the input counts as the input's source; with the quadrant select's −1.0 changed, no
    body matches and each is reported by its constants (and the result differs)."""
    ours, theirs, errors = _compare("seed187")
    assert (ours == theirs).all() and not [e for e in errors if e.opcode.startswith("libdevice:")]
    ours, theirs, errors = _compare("seed187", lambda t: t.replace("0dBFF0000000000000", "0dBFF0000000000001"))
    assert "libdevice:__nv_sin/cos" in {e.opcode for e in errors}


@pytest.mark.parametrize("name", ["k_sin_f64", "k_cos_f64", "k_erf_f64", "seed91", "seed16", "seed147"])
def test_f64_body_without_exit_marker_is_tritons_op(name):
    """__nv_sin/__nv_cos (f64: x·2/π key, ends at the quadrant select r = p ? s : s·(−1) + 0, calls
    ``__internal_trig_reduction_slowpathd`` for large |x|) and __nv_erf (|x| into its polynomial, ends at the
    copysign pack) are recognised by shape under the call's .loc: the ring sin/cos and the Erf tag. The op
    goes before the next instruction outside a one-line ``{ }`` block (a comment inside one swallowed the
    rest of the line). Seed 91: erf's result read right after its end by the user's minimum. Seed 16: the
    quadrant register's 0 is LLVM's hoisted constant, also the masked loads' default read before the body.
    Seed 147: 8 interleaved copies, a debug label (no branch target) right after a body's end."""
    _assert_bit_exact(name)


def test_input_updated_in_place_is_copied_before_the_body():
    """__nv_log (f64) scales a subnormal input in place (``mul.f64 x, x, 2^54``): the ring log must read
    x as it was before the body (a copy), else subnormal inputs give log(x·2^54)."""
    res = sanitize_text((DATA / "k_log_f64.plain.ptx").read_text(), "k_log_f64.plain.ptx")
    saves = [ln for ln in res.text.splitlines() if "mul.f64" not in ln and "mov.b64 %fps" in ln]
    assert len(saves) == 2, saves


def test_log2_f64_tail_after_the_exit_is_part_of_the_body():
    """__nv_log2 (f64) multiplies log(x) by 1/ln2 (hi + lo) after its exit marker; those two float ops
    belong to the body (the replaced result is theirs), else the ring log2 would be scaled again."""
    _assert_bit_exact("k_log2_f64")


@pytest.mark.skipif(shutil.which("ptxas") is None, reason="ptxas not installed")
@pytest.mark.parametrize("name", ["k_log_f64", "k_log2_f64", "k_log_f32", "k_exp2_f64", "k_pow_f32", "k_tanh_f32",
                                  "k_pow_f64", "k_sin_f64", "k_erf_f64", "k_idiom_A_sin2_plus_cos2_f32", "seed16",
                                  "seed35", "seed199", "seed965", "seed3573", "seed140845"])
def test_ptxas_accepts_the_replaced_bodies(name, tmp_path):
    """The ring op at the exit, the input copy inside a one-line ``{ .reg .b32 tmp; … }`` block: ptxas
    (sm_90a, the pairs' target; .version relabelled for the local ptxas) accepts the output."""
    _assert_ptxas_accepts(sanitize_text((DATA / f"{name}.plain.ptx").read_text(), name).text, tmp_path)


def _assert_ptxas_accepts(text: str, tmp_path: Path) -> None:
    """ptxas (sm_90a, the pairs' target; ``.version`` relabelled for the local ptxas) assembles ``text``."""
    src = tmp_path / "s.ptx"
    src.write_text(re.sub(r"\.version \d+\.\d+", ".version 9.0", text))
    r = subprocess.run(["ptxas", "-arch=sm_90a", str(src), "-o", str(tmp_path / "s.cubin")],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr


def test_select_on_the_result_is_not_taken_into_the_body():
    """``tl.where(tl.log(x) > 0, tl.log(x), 0)``: the comparison and select on the result (LLVM merges
    them with logf's zero-case select) are the user's, not the body's. The body is then not matched:
    the mismatch is reported, never a silent replacement of the user's select."""
    ours, theirs, errors = _compare("k_relu_of_log_f32")
    assert (ours == theirs).all() or "libdevice:__nv_logf" in {e.opcode for e in errors}


@pytest.mark.parametrize("name", ["seed63", "seed85"])
def test_body_after_other_float_work_takes_the_calls_input(name):
    """Random kernels: ``tl.log2(x1.to(f16).to(f32))`` (seed 63) and ``tl.erf(...)``/``libdevice.pow`` on
    computed values (seed 85). The work before the body is a pure function of an upstream value, which
    passes the structural checks too; the body's own float work carries the call's ``.loc`` alone, so the
    call's input is the one taken (Triton applies the op to it)."""
    _assert_bit_exact(name)


def test_upstream_value_is_not_taken_for_the_input():
    """Seed 43: ``tl.erf(((2.0 * x0.to(f32)) + (-x1)) - 0.5)``: the subtraction of 0.5 before the body is
    a pure function of the sum, so both the sum and the difference pass the structural checks; only the
    difference's slice carries the call's .loc alone. The body is recognised (the kernel's remaining
    mismatch is issue 10 K/F: 2.0*x folded to x+x, -x1 to a sign-bit xor)."""
    res = sanitize_text((DATA / "seed43.plain.ptx").read_text(), "seed43.plain.ptx")
    notes = [i for i in res.report.items if i.opcode == "libdevice:__nv_erff"]
    assert notes and all(i.severity == "note" for i in notes)


def test_other_work_scheduled_inside_a_body_is_sanitized():
    """Seed 12: ``tl.rsqrt(tl.erf(x0.to(f32)))`` on bf16, 2 elements per thread: LLVM schedules the second
    element's ``cvt.f32.bf16`` inside the first erff body. That conversion is not the body's (it does not
    read it) and must be sanitized (ring widening), while the body runs natively; and it is not a body of
    its own (the last float op before the exit must belong to the body)."""
    _assert_bit_exact("seed12")


def test_conversion_before_the_body_is_not_taken_into_it():
    """Seed 26: ``libdevice.pow(x0.to(f32), x1.to(f32))`` with x0 bf16, x1 f64, then a cumsum. The raw
    bf16/f64 registers passed the structural checks as the body's inputs (the cvts being pure functions of
    them), and the body was replaced silently by a hash of the wrong values (256/256 differ, --strict
    passed). The cvts carry their own .loc, so that slice is not the call's: the body is reported."""
    ours, theirs, errors = _compare("seed26")
    assert (ours == theirs).all() or "libdevice:__nv_powf" in {e.opcode for e in errors}


@pytest.mark.parametrize("name", ["k_tanh_f32", "seed42", "k_tanh_plus_one_f32", "seed35"])
def test_tanhf_without_marker_is_the_call_hash(name):
    """Issue 10 A0: __nv_tanhf is inlined branch-free with no exit marker; recognised from its
    ``abs``/``mul 0f4038AA3B`` start up to its final select (|x| < 0.6), under the call's .loc. The user's
    ``.to(f16)`` (seed 42) and ``+ 1.0`` right after carry the same .loc and are not taken into it. Seed 35
    (16 copies a thread, then a max): LLVM hoists a copy's x·x above its start (into the previous copy), and
    a debug label follows the last copy (1 of 16 was matched)."""
    _assert_bit_exact(name)


def test_sin_and_cos_sharing_one_reduction_are_both_recognised():
    """Issue 10 A/B: ``tl.sin(x)**2 + tl.cos(x)**2``: LLVM computes x·2/π once, so the __nv_cosf bodies
    have no reduction of their own and read the sin bodies' quadrant and reduced argument. Both are the
    ring sin/cos of x (a group per x), so the sum is exactly 1 in the ring: (cos, sin) = (a + bi)^x with
    a² + b² = (9 + 16)/25 = 1 (docs/fpsan.md §2), i.e. φ⁻¹(1) = 0x3f800000 in every element (an
    expectation that needs neither ptxkit nor Triton)."""
    spec = SPECS["k_idiom_A_sin2_plus_cos2_f32"]
    plain, cp = _build("k_idiom_A_sin2_plus_cos2_f32", "plain")
    res = sanitize_text(plain, "sin2cos2.plain.ptx")
    ours = run_ptx(spec, cp, res.text, "sin2cos2.sanitized.ptx")
    assert not res.report.errors, [e.reason for e in res.report.errors]
    assert sum(i.opcode in ("libdevice:__nv_sinf", "libdevice:__nv_cosf") for i in res.report.items) == 4
    n = spec.scalars["n"]  # the masked tail is not stored
    assert (ours[:n] == np.uint32(0x3F800000)).all(), f"{np.sum(ours[:n] != 0x3F800000)}/{n} are not 1.0"
    _assert_bit_exact("k_idiom_A_sin2_plus_cos2_f32")


def test_next_copys_input_conversion_inside_a_sin_body_is_sanitized():
    """Seed 67: ``tl.sin(x1.to(f32))`` with x1 f64, 2 elements per thread: LLVM schedules the second
    element's ``cvt.rn.f32.f64`` inside the first __nv_sinf body. The body was rejected (two of its
    registers read after the exit) and sanitized op by op (63/128 differ, reported); the conversion is
    not the body's (it does not read x): it is sanitized (ring narrowing) while the body runs natively."""
    _assert_bit_exact("seed67")


@pytest.mark.parametrize("name", ["seed122", "seed136"])
def test_first_body_of_a_function_is_found_among_many_registers(name):
    """The first body's range starts at the function's top: every register the preamble computes was a
    candidate input (over the bound of 64, or 32 for pow), so erff (seed 122) and powf (seed 136) were
    reported. Only the call's own float work (its ``.loc``) reads inputs, and it does not compute them."""
    _assert_bit_exact(name)


@pytest.mark.parametrize("name", ["seed171", "k_pow_of_f64_f32", "k_pow_of_neg_f16"])
def test_body_may_test_the_source_of_its_input(name):
    """LLVM rewrites tests on ``x.to(f32)`` as tests on the f64 source (``setp.geu.f64 p, x, -2^-150`` for
    x < 0), and on ``-x.to(f32)`` as tests on the f16 source (``setp.eq.f16 p, x, 0xBC00`` for -x == 1): the
    body reads registers the input is computed from by cvt/neg alone. They were "not its input": reported."""
    _assert_bit_exact(name)


def test_constant_register_shared_with_user_code():
    """``libdevice.pow(tl.ceil(x), x / 3.0)``: the register holding 1.0 for the user's 1/3 is the body's 1.0
    and later the result of the next copy: every write before the body (and in it) moves an immediate."""
    _assert_bit_exact("k_pow_ceil_third_f32")


def test_pow_sharing_a_comparison_with_user_code():
    """``tl.where(x1 < 0.0, tl.sqrt(x0), tl.log2(x0)) + libdevice.pow(x1, x0)``, 4 elements per thread: powf's
    x < 0 test and the user's are one ``setp`` (read by both: a comparison is native in Triton's FPSan too),
    the out-of-line blocks fall through into each other, and sqrt(x0) is scheduled into a body's range
    before the body's first read of x1: the base of pow is the input whose |x| feeds the log reduction
    (the first read was x0's: silently swapped arguments while this was being written)."""
    _assert_bit_exact("k_sqrt_or_log2_plus_pow_f32")


def test_body_whose_intermediate_value_other_code_reads_is_dropped():
    """A recognised body runs natively: a value of it that other code reads (not its result) would be the
    native one where Triton's FPSan computes a ring one (held-out seed 2094: the user's x * x at a merged
    location, taken into a tanhf body, read by the user's max: silent). The last check of ``recognise``
    drops such a body (then reported as unrecognised), whatever its matcher accepted: here cosf's body,
    matched on the plain PTX, against the same PTX with a user store of its x·2/π after the exit."""
    plain = (DATA / "k_cos_f32.plain.ptx").read_text()
    exit_label = "$L__BB0_12:                             // %__nv_cosf.exit\n"
    assert exit_label in plain and "mul.f32 \t%r29, %r21, 0f3F22F983;" in plain
    leaked = plain.replace(exit_label, exit_label + "\tst.global.b32 [%rd5], %r29;\n", 1)  # lines before: same
    original = parse_text(plain, "k.ptx")
    bodies = [b for b in recognise(original, original.entries()[0]) if b.name == "cosf"]
    assert [b.start_line for b in bodies] == [67, 188]  # two copies; the first one's x·2/π is %r29
    bodies = bodies[:1]  # (the added line shifts the second copy's)
    for text, kept in ((plain, 1), (leaked, 0)):
        fn = parse_text(text, "k.ptx").entries()[0]
        stmts = [s for s in fn.statements() if s.span is not None]
        assert len(LIBDEVICE._without_leaks(Flow(fn, frozenset()), stmts, bodies)) == kept


@pytest.mark.parametrize("name", ["k_cos_f64_erf_f32_of_bf16", "seed70513"])
def test_an_inputs_conversion_sunk_into_another_body_is_the_callers(name):
    """``cos(h.to(f64)) + erf(h.to(f32))`` of a bf16 h (held-out seed 70513, silent at first contact): LLVM sinks
    erf's argument conversion ``cvt.f32.bf16`` into cos's body at a merged location (line 11, column 0), inside the
    range of erf's body. Taken for erf's own work, it ran natively (the IEEE widening, not Triton's ring cast) and,
    writing the input, made the body an in-place update whose copy was taken before the input was written."""
    _assert_bit_exact(name, folds=())


@pytest.mark.parametrize("name", ["k_tanh_plus_erf_f32", "k_tanh_times_square_f32", "seed72029"])
def test_tanhf_sharing_its_sign_and_square_with_other_code(name):
    """``__nv_tanhf`` (inlined without an exit marker) whose values of x alone other code reads too (held-out seed
    72029, reported as unrecognised): beside ``tl.erf(x)`` LLVM's CSE shares x's sign and x² with erf's body, and
    ``tanh(x) * (x * x)`` reads the polynomial's x² as the user's product. The body's result is one FPSan op; x² is
    the ring product where the user's code reads it, the sign stays native inside the bodies: bit for bit."""
    _assert_bit_exact(name, folds=())


@pytest.mark.parametrize("name", ["k_pow_of_ratio_to_half_log_f64", "seed73188"])
def test_the_callers_conversions_sunk_into_a_body_are_no_input(name):
    """``pow(x * (x / x.to(f16).to(f64)), log(x))`` of an f64 x (held-out seed 73188, silent at first contact): LLVM
    sinks the second element's ``x.to(f16)`` (at 0:0) and ``.to(f64)`` into the second log body's range. The f16 was
    taken for the log's input, whose f64 source the body reads (the alias of a narrowing): a log of an f16 register.
    A body's input has the body's width; the caller's chain of conversions of it, read after the exit by the caller's
    division, is the caller's work (Triton's ring casts), not a second result."""
    _assert_bit_exact(name, folds=())


def test_a_scans_first_row_converted_to_a_half_inside_a_body_goes_through_f32():
    """``pow(s, s.to(bf16).to(f32))`` of ``s = cumsum(i.to(f32), axis=0)`` over small integers i (held-out seed
    75360, silent at first contact in 15/256 elements): on the scan's first row s is ``i.to(f32)``, and LLVM folds
    its sitofp and the fptrunc into one ``cvt.rn.bf16.s16``, sunk into powf's body. Triton's FPSan converts to f32
    natively and narrows the payload in the ring; the replayed argument did the conversion to bf16 natively."""
    _assert_bit_exact("seed75360", folds=())


def test_half_abs_of_a_sunk_argument_is_reported():
    """``pow(x.to(f32), abs(x.to(f16)).to(f32))`` of a bf16 x (held-out seed 84945, silent at first contact in 8/512
    elements): the half's abs sunk into powf's body is replayed as the integer and, while Triton's build packs it
    into ``abs.f16x2``, which turns the ring's NaN patterns into the canonical NaN: reported as every half |x|."""
    ours, theirs, errors = _compare("seed84945", folds=())
    assert not (ours == theirs).all()
    assert any(HALF_ABS in e.reason and e.opcode == "libdevice:__nv_powf" for e in errors)


def test_log2f_zero_test_sunk_under_another_calls_merged_location_is_recognised():
    """Held-out seed 168518 (reported at first contact, 481/512): eight log2f copies whose x == 0 tests on the scaled
    x LLVM sank past a logf body, at that call's merged location ``0:163``, selecting −inf there; the tests are the
    bodies' own (no user code can compare their inner values) and Triton's single op has no special case."""
    plain = (DATA / "seed168518.plain.ptx").read_text()
    assert re.search(r"\.loc\s+1 0 163\b", plain)
    _assert_bit_exact("seed168518", folds=())


def test_log2f_zero_select_past_the_users_negation_and_max_is_recognised():
    """``tl.maximum(-tl.log2(x), y)`` (held-out seed 165976, reported at first contact, 168/256): LLVM folds the
    x == 0 case (−(−inf) = +inf wins the max) into a select of +inf after the max, at the negation's location; the
    general arm is Triton's."""
    _assert_bit_exact("seed165976", folds=())


def test_pow_whose_abs_of_x_llvm_put_in_both_arms_of_an_earlier_body_is_recognised():
    """``pow(s, exp2(s))`` of f64 s (held-out seed 168861, reported at first contact, 256/256): pow's |s| is computed
    in both arms of exp2's branch (two copies of one ``abs.f64``, which exp2's NaN test reads); it is a value of the
    input all the same."""
    plain = (DATA / "seed168861.plain.ptx").read_text()
    assert len(re.findall(r"abs\.f64\s+(%rd\d+), %rd2;", plain)) == 2
    _assert_bit_exact("seed168861", folds=())


def test_negated_pow_whose_special_selects_follow_a_sign_xor_moved_to_the_store_is_recognised():
    """``-pow(d.to(f64), d.to(f64))`` (held-out seed 168816, reported at first contact, 256/256): LLVM writes the
    negation as a sign ``xor.b64`` at the store's column of the same line, and pow's x == 0 / x == 1 selects of −1.0
    after it at the negation's column; Triton's single op has no special case."""
    _assert_bit_exact("seed168816", folds=())


def test_f64_erf_copies_whose_signs_of_x_llvm_hoisted_into_the_first_are_recognised():
    """Held-out seed 171938 (reported at first contact): four unmarked f64 erf bodies at one location, whose
    ``and.b32 s, hi(x), 1 << 31`` (the copysign's sign of x) LLVM hoisted together to the end of the first copy,
    before the others' polynomials: integer logic on x's words at the call's location is a value of x."""
    plain = (DATA / "seed171938.plain.ptx").read_text()
    assert len(re.findall(r"and\.b32\s+%r6[2-5], %r[1-4], -2147483648;", plain)) == 4
    _assert_bit_exact("seed171938", folds=())
