"""libdevice bodies no matcher saw (issue 10): a branch-free body may leave its ``%__nv_NAME.exit`` marker at the
function's entry block (``%bb.0``), before the body, or none at all, and only a few are known by their constants
(:mod:`ptxkit.fpsan.libdevice_unmarked`). The source still names the call: where no recognised body covers any
instruction at the location of a ``libdevice.NAME(..)`` call of a function Triton's FPSan replaces (a model kernel's
``libdevice.hypot(x, 1.5)``, silent in 480/512 elements), its float instructions there were sanitized one by one:
an error. (A recognised body beside the user's own arithmetic at the call's column covers some of them: no error; a
call LLVM lowers to one instruction, ``rsqrt.approx.f32`` of ``libdevice.rsqrt``, is no body.)"""

from __future__ import annotations

import ast
from collections import defaultdict

from ptxkit import ir
from ptxkit.fpsan.dispatch import is_float_arith
from ptxkit.fpsan.fold_powi import CHAIN, _pow_of_int_literal
from ptxkit.fpsan.libdevice_flow import LibRange
from ptxkit.fpsan.libdevice_match import LIBDEVICE_OPS
from ptxkit.fpsan.report import ERROR, ReportItem, SanitizeReport
from ptxkit.fpsan.source_ast import _module_call
from ptxkit.fpsan.source_report import source_scan

_BODY_OPCODES = 3  # distinct float opcodes at the call's location that make an inlined body, not one instruction


def report_unseen_bodies(module: ir.Module, fn: ir.Function, report: SanitizeReport, root: str | None,
                         bodies: list[LibRange]) -> None:
    """An error at the first float instruction of each ``libdevice`` call no recognised body covers (module
    docstring)."""
    scan = source_scan(module, fn, root)
    if scan is None:
        return
    at: dict[tuple[str, int, int], list[ir.Instruction]] = defaultdict(list)
    for s in fn.instructions():
        loc = scan.hints.loc.get(id(s))
        if loc is not None and s.span is not None:
            at[loc].append(s)
    for key, f, lines in scan.files():
        for n in ast.walk(f.tree):
            name = _libdevice_call(n)
            if name is None or not isinstance(n, ast.Call) or n.lineno not in lines:
                continue
            here = at.get((key, n.lineno, n.col_offset + 1), [])
            if any(s.span is not None and b.covers(s.span.line) for s in here for b in bodies):
                continue
            if name == "pow" and _pow_of_int_literal(f, n) is not None:
                _report_unchained_powi(fn, report, f.where(n), here)
                continue
            work = [s for s in here if is_float_arith(s) and s.span is not None]
            if len({s.opcode for s in work}) < _BODY_OPCODES:
                continue  # (one instruction per element, rsqrt.approx of libdevice.rsqrt: the op rules' own; none:
                # folded_calls' case, or LLVM's CSE of two equal calls)
            first = work[0]
            assert first.span is not None
            if any(i.function == fn.name and i.opcode.startswith("libdevice:") and i.severity == ERROR
                   and i.line <= first.span.line <= (i.end_line or i.line) for i in report.items):
                continue  # (a marked body's range reported already)
            report.items.append(ReportItem(
                first.span.line, first.span.col, f"libdevice:{name}",
                f"libdevice.{name} at {f.where(n)}: its inlined body was not recognised (no exit marker after it), so "
                "its float instructions are sanitized one by one, not as Triton's single FPSan op (the call's hash)",
                fn.name, severity=ERROR, native=False))


def _report_unchained_powi(fn: ir.Function, report: SanitizeReport, where: str, here: list[ir.Instruction]) -> None:
    """An error where ``libdevice.pow(x, N)`` (an integer literal N) left no chain :mod:`fold_powi` took for Triton's
    hash: LLVM folded x^0 to 1.0 and x^1 to x (f64 ``pow(x, 1) * 2.0`` is ``add x, x``), so the call is gone."""
    lines = {s.span.line for s in here if s.span is not None}
    if any(i.function == fn.name and i.line in lines and CHAIN in i.reason for i in report.items):
        return
    first = next((s for s in here if s.span is not None), None)
    line, col = (first.span.line, first.span.col) if first is not None and first.span is not None else (0, 0)
    report.items.append(ReportItem(
        line, col, "libdevice:__nv_powi", f"libdevice.pow(x, N) of an integer N at {where}: Triton's FPSan hashes the "
        "call (__nv_powif/__nv_powi), but LLVM left no multiply chain computing x^N here (x^0 and x^1 fold away), so "
        "the hash cannot be placed; not modelled", fn.name, severity=ERROR, native=False))


def _libdevice_call(n: ast.AST) -> str | None:
    """NAME of a ``libdevice.NAME(..)`` call of a function Triton's FPSan replaces by one op."""
    name = _module_call(n, "libdevice")
    return name if name is not None and (name in LIBDEVICE_OPS or name + "f" in LIBDEVICE_OPS) else None
