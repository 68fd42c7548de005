"""Direct ``libdevice`` calls (issue 10): the argument order of a two-argument call other than pow
(``ptxkit.fpsan.libdevice_order``: ``libdevice.atan2(a, b)`` was hashed as atan2(b, a), silent in 99/128 elements),
a call whose body no matcher saw (``libdevice_unseen``), and calls not modelled (reported, never silent)."""

from __future__ import annotations

import re
import tempfile

import pytest

from ptxkit.fpsan_ptx import sanitize_text
from tests.test_fpsan_libdevice import _assert_bit_exact, _compare


@pytest.mark.parametrize("name", ["k_atan2_two_loads_f32", "k_atan2_two_loads_f16"])
def test_atan2_arguments_hashed_in_the_sources_order(name):
    """Bit for bit against Triton's FPSan build, nothing reported: the source's arguments say which input is which."""
    _assert_bit_exact(name, folds=())


@pytest.mark.parametrize("hints", [False, True])
def test_atan2_order_without_the_source_is_reported(hints):
    """No source to read (hints off, or its file not found): the body's first use is no argument order; the
    call hash in that order is reported, not passed off as Triton's."""
    from tests.test_fpsan_libdevice import _build
    plain, _ = _build("k_atan2_two_loads_f32", "plain")
    plain = re.sub(r'(\.file\s+\d+\s+")[^"]+"', r'\1/nonexistent/kernel.py"', plain)  # (an absolute path may exist)
    with tempfile.TemporaryDirectory() as empty:
        res = sanitize_text(plain, "k.ptx", source_hints=hints, source_root=empty)
    bodies = sum("call hash of __nv_atan2f" in n.reason for n in res.report.items)
    assert bodies >= 1
    assert sum("argument order of the inlined __nv_atan2f" in e.reason for e in res.report.errors) == bodies


def test_libdevice_call_whose_body_no_matcher_saw_is_reported():
    """``libdevice.hypot(x, 1.5)``: branch-free, its only marker the entry block's label before the body, so no matcher
    sees it and its instructions are sanitized one by one (100/128 elements differ from Triton's call hash). The
    source's call at instructions no recognised body covers is reported (``ptxkit.fpsan.libdevice_unseen``)."""
    ours, theirs, errors = _compare("k_hypot_literal_f32", folds=())
    assert not (ours == theirs).all()
    assert any(e.opcode == "libdevice:hypot" and "not recognised" in e.reason for e in errors)


@pytest.mark.parametrize("name", ["k_atan2_two_loads_f32", "seed238023", "k_softplus_f16"])
def test_recognised_bodies_are_not_reported_as_unseen(name):
    """A recognised body covers its call's instructions (also beside the user's arithmetic at the call's column)."""
    _, _, errors = _compare(name, folds=())
    assert not any("not recognised (no exit marker" in e.reason for e in errors)


@pytest.mark.parametrize("name,opcode", [("k_sqrt_rn_direct_f64", "sqrt.rn.f64"), ("k_div_rn_direct_f64", "div.rn.f64"),
                                         ("k_erfinv_direct_f32", "libdevice:__nv_erfinvf")])
def test_direct_calls_not_modelled_are_reported(name, opcode):
    """Model-kernel probes of every libdevice function, silent before: ``libdevice.sqrt_rn``/``div_rn`` of f64 lower
    to one instruction that Triton hashes as a call (checked for f32 only), and ``libdevice.erfinv`` of f32 is a
    recognised body whose call hash is not one verified against Triton (it differs in 99/128)."""
    ours, theirs, errors = _compare(name, folds=())
    assert not (ours == theirs).all()
    assert any(e.opcode == opcode for e in errors)


@pytest.mark.parametrize("name", ["k_log10_direct_f32", "k_log10_direct_f64"])
def test_log10_tail_past_the_exit_is_the_bodys(name):
    """``libdevice.log10``: the ln body, then ·1/ln 10 after the exit (f32 one mul, f64 a mul and fma of the split
    constant), at the call's location: the body's tail, as log2's f64 one — the call hash replaces its result, not
    the ln's (silent in 480/512 of a model-kernel probe)."""
    _assert_bit_exact(name, folds=())
