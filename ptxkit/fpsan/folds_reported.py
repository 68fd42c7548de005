"""Source shapes LLVM rewrote where the PTX no longer tells Triton's value (issue 10; docs/fpsan.md §3 "Folds"):
each detector finds one, and the rewrite reports it as an error before any fold runs. Split from
:mod:`ptxkit.fpsan.folds`."""

from __future__ import annotations

from collections.abc import Callable

from ptxkit import ir
from ptxkit.fpsan.abs_bits import HALF_ABS, dropped_half_abs
from ptxkit.fpsan.ctx import RewriteContext
from ptxkit.fpsan.fold_dropped_round_trip import READERS as ROUND_TRIP_READERS
from ptxkit.fpsan.fold_dropped_round_trip import dropped_round_trip
from ptxkit.fpsan.fold_flow import Flow
from ptxkit.fpsan.fold_nan_test_in_extremum import nan_test_in_extremum
from ptxkit.fpsan.fold_neg_extremum import negated_select_of_extremum
from ptxkit.fpsan.fold_neg_into_constant import (
    negation_above_product,
    negation_cancelled_around_product,
    negation_of_widened_negation,
)
from ptxkit.fpsan.fold_select_const import select_of_shared_narrowing
from ptxkit.fpsan.fold_self_negation_compare import self_negation_compare
from ptxkit.fpsan.report import ERROR
from ptxkit.fpsan.source_ast import Decision

# source shapes LLVM rewrote where the PTX no longer tells Triton's value, reported before any fold (in this order):
# (opcodes, detector, reason of the opcode and the source's Decision, native)
_REPORTED_FIRST: tuple[tuple[tuple[str, ...], Callable[[ir.Instruction, Flow], Decision | None],
                             Callable[[str, Decision], str], bool], ...] = (
    (("neg", "xor"), negated_select_of_extremum, lambda op, d: (
        f"negation of a select of a max/min where the source at {d.where} takes the extremum of negations: LLVM's "
        "−select(c, min(a, x), a) for maximum(−a, −where(c, x, a)), which the ring computes differently where a "
        "payload is φ(−0) = −2^(w−1) (its own negation); sanitized as written"), False),
    (("neg",), negation_above_product, lambda op, d: (
        f"negation of a product where the source at {d.where} negates x before widening it: LLVM took the negation "
        "out of the product; Triton's FPSan negates x's payload in its own ring and sign-extends it, which differs at "
        "φ(−0.0) = −2^(w−1) (its own negation there); sanitized as written"), False),
    (("mul", "div", "fma"), negation_cancelled_around_product, lambda op, d: (
        f"{op} of a widened value where the source at {d.where} negates a product of x's negation, x narrower: LLVM "
        "cancelled the two negations; Triton's FPSan negates x's payload in its own ring and sign-extends it, which "
        "differs at φ(−0.0) = −2^(w−1) (its own negation there); sanitized as written"), False),
    (("fma", "mad", "mul", "add", "sub", "div"), negation_of_widened_negation, lambda op, d: (
        f"{op} of a widened value where the source at {d.where} negates a widening of x's negation, x narrower: LLVM "
        "cancelled the two negations; Triton's FPSan negates x's payload in its own ring and sign-extends it, which "
        "differs at φ(−0.0) = −2^(w−1) (its own negation there); sanitized as written"), False),
    (("max", "min"), nan_test_in_extremum, lambda op, d: (
        f"{op} propagating NaN where the source at {d.where} takes it of a select on a NaN test (x >= x): LLVM folded "
        "the test into the NaN propagation; Triton's FPSan tests the ring value's float bits (a NaN pattern for some "
        "payloads) and its ring max/min propagates none, so the two pick differently there; sanitized as written"),
     False),
    (ROUND_TRIP_READERS, dropped_round_trip, lambda op, d: (
        f"{op} of an integer's conversion where the source at {d.where} narrows a value and widens it back: LLVM drops "
        "the round trip of an integer exact in the narrow type; Triton's FPSan narrows φ(x) with its hash fold and "
        "sign-extends it, which is not φ(x); sanitized as written"), False),
    (("mul", "fma"), dropped_half_abs, lambda op, d: (
        f"{op} squaring a 16-bit value where the source at {d.where} squares its |x|: LLVM dropped the abs, which "
        f"Triton's build keeps. {HALF_ABS}"), False),
    (("selp",), select_of_shared_narrowing, lambda op, d: (
        f"select of a half narrowing that other code shares, where the source at {d.where} selects a value widened to "
        "f64 and narrows the result: LLVM narrows the arms (dropping the exact widening) and shares the narrowing with "
        "another conversion of the value; Triton narrows the 64-bit ring value, which the 32-bit narrowing is not; "
        "left as written"), True),
    (("setp",), self_negation_compare, lambda op, d: (
        f"|x| == 0 test of a float's bits where the source at {d.where} compares a value with its negation across a "
        "widening: LLVM's x == -x; in Triton's ring the half's −0.0, sign-extended, is not its own negation, so the "
        "two differ there; left as written"), True),
)


def report_rewritten_shapes(instr: ir.Instruction, ctx: RewriteContext, flow: Flow) -> None:
    """Report every shape of :data:`_REPORTED_FIRST` ``instr`` belongs to (an error each)."""
    for opcodes, detect, say, native in _REPORTED_FIRST:
        if instr.opcode in opcodes and (found := detect(instr, flow)) is not None:
            ctx.report(instr, say(instr.opcode, found), ERROR, native)
