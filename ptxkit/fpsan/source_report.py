"""What the source-level reports share (``folded_compares``, ``folded_int_arith``; issue 10): source the PTX's
``.file`` names, the locations the function reaches, and the instruction a report is anchored at (a store, else the
first located one). These report shapes LLVM left no instruction for, so they read the Python source alone."""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from ptxkit import ir
from ptxkit.fpsan.report import ERROR, ReportItem, SanitizeReport
from ptxkit.fpsan.source_ast import SourceFile, _cast_to
from ptxkit.fpsan.source_hints import SourceHints


@dataclass
class SourceScan:
    """The function's source files and where a report about them goes."""

    fn: ir.Function
    hints: SourceHints
    anchor: ir.Instruction

    def files(self) -> Iterator[tuple[str, SourceFile, set[int]]]:
        """(key, file, the lines the function's locations reach) of each source file found."""
        used = self.used()
        for key, f in self.hints.files.items():
            if f is not None:
                yield key, f, {line for k, line, _ in used if k == key}

    def used(self) -> set[tuple[str, int, int]]:
        """The (file key, line, column) locations the function's instructions and inlined calls carry."""
        return set(self.hints.loc.values()) | set(self.hints.call_site.values())

    def unlocated(self, pick: Callable[[SourceFile, ast.expr], str | None]) -> Iterator[str]:
        """The reasons ``pick`` gives for the expressions of the functions ``fn`` reaches that carry no location of
        ``fn`` (LLVM left no instruction for them); a source shape a rule did not foresee picks nothing."""
        used, conversions = self.used(), self.conversions_only()
        for key, f, lines in self.files():
            for d in functions_reaching(f, lines):
                for n in (e for e in ast.walk(d) if isinstance(e, ast.expr)):
                    at = (key, n.lineno, n.col_offset + 1)
                    if at in used and not (at in conversions and _compare_of_cast(n)):
                        continue
                    try:
                        why = pick(f, n)
                    except (KeyError, IndexError, AttributeError, TypeError, ValueError, RecursionError,
                            AssertionError):  # (an unforeseen shape: picks nothing, never stops the sanitizer)
                        why = None
                    if why:
                        yield why

    def conversions_only(self) -> set[tuple[str, int, int]]:
        """The locations whose instructions are all conversions and moves (PTX ISA §9.7.9.21 ``cvt``): a cast's,
        which a comparison whose left side the cast is shares (Triton locates both at the left operand's column)."""
        ops: dict[tuple[str, int, int], set[str]] = {}
        for i in self.fn.instructions():
            if (loc := self.hints.loc.get(id(i))) is not None:
                ops.setdefault(loc, set()).add(i.opcode)
        return {loc for loc, o in ops.items() if o <= {"cvt", "mov"}}

    def report(self, report: SanitizeReport, reason: str) -> None:
        """An error at the anchor (native: nothing there is rewritten for it)."""
        a = self.anchor
        assert a.span is not None
        report.items.append(ReportItem(a.span.line, a.span.col, ".".join((a.opcode, *a.mods)), reason, self.fn.name,
                                       severity=ERROR, native=True))


def _compare_of_cast(n: ast.expr) -> bool:
    """``x.to(T) > y``: a comparison that left a ``setp`` would share its location with the cast's ``cvt``, so one
    whose location holds conversions alone left none (statement seed 5511, silent: ``x0.to(f32) > x0`` of a half)."""
    return (isinstance(n, ast.Compare) and _cast_to(n.left) is not None
            and (n.left.lineno, n.left.col_offset) == (n.lineno, n.col_offset))


def report_unlocated(module: ir.Module, fn: ir.Function, report: SanitizeReport, root: str | None,
                     pick: Callable[[SourceFile, ast.expr], str | None]) -> None:
    """An error for each reason ``pick`` gives for an expression of ``fn``'s source that left no instruction."""
    scan = source_scan(module, fn, root)
    if scan is not None:
        for why in scan.unlocated(pick):
            scan.report(report, why)


def source_scan(module: ir.Module, fn: ir.Function, root: str | None) -> SourceScan | None:
    """The scan of ``fn``'s Python source, or None where the module names none (nvcc's output, a hand-written file)
    or it is not found, or the function has no located instruction."""
    if not any(isinstance(i, ir.Directive) and i.name == "file" and ".py" in i.args for i in module.items):
        return None
    hints = SourceHints.of(module, fn, root)
    if not any(f is not None for f in hints.files.values()):
        return None
    anchor = next((s for s in fn.instructions() if s.opcode == "st" and s.span is not None), None)
    anchor = anchor or next((s for s in fn.instructions() if s.span is not None), None)
    return SourceScan(fn, hints, anchor) if anchor is not None and anchor.span is not None else None


def functions_reaching(f: SourceFile, lines: set[int]) -> Iterator[ast.FunctionDef]:
    """The file's functions that hold one of ``lines`` (a kernel and the helpers it calls)."""
    for d in ast.walk(f.tree):
        if isinstance(d, ast.FunctionDef) and any(d.lineno <= ln <= (d.end_lineno or d.lineno) for ln in lines):
            yield d
