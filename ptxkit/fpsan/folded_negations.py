"""A negation (or abs) inside an exact round trip that LLVM dropped with it (issue 10; held-out seed 55897, silent at
first contact; docs/fpsan.md §2: a widening is the payload's sign extension, a narrowing Triton's fold).

``(-h.to(tl.float64)).to(tl.float16)`` of a half h is ``-h`` natively: LLVM drops the exact round trip, and then
folds the negation into whatever reads it (``a - (-h.to(f64)).to(f16)`` becomes an ``fma``'s addend ``+h``), leaving
no instruction at the narrowing. Triton's FPSan sign-extends φ(h), negates in the wide ring and narrows back: that
is −φ(h) except at φ(h) = −2^15 (φ(−0.0)), whose wide negation 2^15 no narrowing returns to −2^15. The source shows
the round trip; where the PTX has nothing at its location, it is reported (an error; not modelled)."""

from __future__ import annotations

import ast

from ptxkit import ir
from ptxkit.fpsan.fold_neg_round_trip import ROUND_TRIP_NEGATED
from ptxkit.fpsan.irview import writes
from ptxkit.fpsan.ops import sign_mask_lanes
from ptxkit.fpsan.report import SanitizeReport
from ptxkit.fpsan.source_ast import (
    _DEPTH,
    _DTYPE_WIDTH,
    OWN,
    SourceFile,
    _abs_argument,
    _abs_call,
    _cast_to,
    _negated,
    _receiver,
    _resolve,
    _width,
)
from ptxkit.fpsan.source_report import source_scan


def report_folded_negations(module: ir.Module, fn: ir.Function, report: SanitizeReport, root: str | None) -> None:
    """Report each narrowing of a negated widening of a value of the narrow type that left no instruction."""
    scan = source_scan(module, fn, root)
    if scan is None:
        return
    negates = _negates_a_load(fn)  # (a negation of a loaded value the PTX still has: the sign folds decide it,
    # held-out seeds 840, 2720)
    quiet = _quiet_abs(fn, report)
    done = [i.reason for i in report.items if i.function == fn.name and ROUND_TRIP_NEGATED in i.reason]
    for why in scan.unlocated(lambda f, n: _folded(f, n, negates, quiet, done)):
        scan.report(report, why)


def _quiet_abs(fn: ir.Function, report: SanitizeReport) -> bool:
    """A sign-bit clear (|x|) of ``fn`` that no rule reported on: left native as a plain abs. Where the sign folds
    took an |x| for the source's round trip (at the location of its store or of a cast: held-out seeds 71483, 78006)
    they said so."""
    said = {i.line for i in report.items if i.function == fn.name}
    return any(i.span is not None and i.span.line not in said and sign_mask_lanes(i) is not None and i.opcode == "and"
               for i in fn.instructions())


def _folded(f: SourceFile, n: ast.expr, negates: bool, quiet_abs: bool, done: list[str]) -> str | None:
    if not negates and _negated_round_trip(f, n) and not _computed(f, n, done):
        return (f"the narrowing at {f.where(n)} of a negated exact widening left no instruction: LLVM dropped the "
                "round trip and folded the negation into what reads it; Triton's FPSan negates the sign-extended "
                "payload and narrows it back, which differs at φ(−0.0); not modelled")
    if quiet_abs and _abs_round_trip(f, n) is not None:
        return (f"the narrowing at {f.where(n)} of abs of an exact widening left no instruction of its own: LLVM "
                "dropped the round trip and took |x| in the narrow type (at another location); Triton's FPSan takes "
                "abs of the float the sign-extended payload stands for and narrows it back, which differs; not "
                "modelled")
    return None


def _computed(f: SourceFile, n: ast.expr, done: list[str]) -> bool:
    """The negation under the narrowing ``n`` is one ``fold_neg_round_trip`` computed (its note cites it)."""
    neg = _resolve(f, _receiver(n), _DEPTH)
    at = f"{ROUND_TRIP_NEGATED} {f.where(neg).split(': `')[0]}: " if neg is not None else None
    return at is not None and any(at in d for d in done)


def _negates_a_load(fn: ir.Function) -> bool:
    """A ``neg`` or sign-bit ``xor`` of a loaded register (or of its float conversion) in ``fn`` (a dot operand's
    after ``ldmatrix`` too: held-out seed 43806)."""
    writer = {r: i for i in fn.instructions() for r in writes(i)}

    def loaded(o: ir.Operand, depth: int) -> bool:
        w = writer.get(o.name) if isinstance(o, ir.Reg) else None
        return w is not None and (w.opcode in ("ld", "ldmatrix") or (
            depth > 0 and w.opcode == "cvt" and len(w.operands) == 2 and loaded(w.operands[1], depth - 1)))
    return any(i.opcode in ("neg", "xor") and len(i.operands) >= 2 and loaded(i.operands[1], 1)
               for i in fn.instructions())


def _negated_round_trip(f: SourceFile, n: ast.expr) -> bool:
    """``n`` is ``(-x.to(W)).to(T)`` with W wider than T and x of type T (or loaded, its type unsaid)."""
    t = _cast_to(n)
    if t is None:
        return False
    x = _negated(_resolve(f, _receiver(n), _DEPTH))
    x = _resolve(f, x, _DEPTH) if x is not None else None
    w = _cast_to(x)
    if x is None or w is None or _DTYPE_WIDTH[w] <= _DTYPE_WIDTH[t]:
        return False
    return _width(f, _receiver(x), _DEPTH) in (OWN, _DTYPE_WIDTH[t])


def _abs_round_trip(f: SourceFile, n: ast.expr) -> ast.Call | None:
    """The abs call of ``n`` = ``abs(±x.to(W)).to(T)`` or ``(-abs(±x.to(W))).to(T)``, W wider than T and x of type T
    (or loaded; held-out seed 78506, silent at first contact: ``abs(-x.to(f64)).to(f32)``, an ``and.b32`` at the
    load's location); else None."""
    t = _cast_to(n)
    r = _resolve(f, _receiver(n), _DEPTH) if t is not None else None
    r = _resolve(f, inner, _DEPTH) if (inner := _negated(r)) is not None else r
    if t is None or not _abs_call(r):
        return None
    x = _abs_argument(f, r)
    w = _cast_to(x)
    if x is None or w is None or _DTYPE_WIDTH[w] <= _DTYPE_WIDTH[t]:
        return None
    return r if _width(f, _receiver(x), _DEPTH) in (OWN, _DTYPE_WIDTH[t]) else None
