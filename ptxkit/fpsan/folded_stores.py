"""Stores of float arithmetic that LLVM folded into a constant (issue 10; held-out seed 2690).

``((2.0 * (0.0 * x.to(f32))).to(int64).to(f64) - 0.5).to(f32)`` is −0.5 for every x LLVM assumes
finite, so the plain PTX stores ``mov.b32 r, 0xBF000000`` and no float instruction is left; Triton's
FPSan computes the same expression in the ring (φ(0) − φ(0.5), narrowed), whose bits LLVM folds too:
another constant. The PTX of a literal ``tl.store(p, -0.5)``, which Triton's FPSan stores unchanged,
is the same, so only the source can tell: a store whose value register holds an immediate (or a
conversion of one), where the stored expression at the store's ``.loc`` computes with floats, is
reported (an error): the folded IEEE value is left as it is. Without a source nothing is said (the PTX
has no float work to report).
"""

from __future__ import annotations

import ast

from ptxkit import ir
from ptxkit.fpsan.fold_named_literal import constant_scalar
from ptxkit.fpsan.irview import regs, writes
from ptxkit.fpsan.report import ERROR, ReportItem, SanitizeReport
from ptxkit.fpsan.source_ast import _DEPTH, SourceFile, _cast_to, _resolve
from ptxkit.fpsan.source_hints import SourceHints
from ptxkit.fpsan.source_inline import bindings
from ptxkit.fpsan.source_walk import subexpressions

_ARITH = (ast.Add, ast.Sub, ast.Mult, ast.Div)
_CHAIN = 4  # mov/cvt steps followed back from a store: LLVM's leftovers are one or two deep


def report_folded_stores(module: ir.Module, fn: ir.Function, report: SanitizeReport, root: str | None) -> None:
    """Report each ``st`` of an immediate-holding register whose source expression is float arithmetic."""
    movs: dict[str, list[ir.Instruction]] = {}
    for s in fn.instructions():
        for r in writes(s):
            movs.setdefault(r, []).append(s)
    stores = [s for s in fn.instructions() if s.opcode == "st" and s.span is not None
              and any(_constant(r, movs, _CHAIN) for o in s.operands[1:] for r in regs(o))]
    if not stores:
        return
    hints = SourceHints.of(module, fn, root)
    for s in stores:
        found = hints.nodes(s)
        if found is None:
            continue
        f, nodes = found
        value = next((n.args[1] for n in nodes if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
                      and n.func.attr == "store" and len(n.args) >= 2), None)
        try:  # (arithmetic of named literals and numbers alone MLIR folds before Triton's FPSan: IEEE, its casts
            # ring ones, fold_named_literal)
            computed = value is not None and _float_arithmetic(f, value) and not constant_scalar(f, value)
        except (KeyError, IndexError, AttributeError, TypeError, ValueError, RecursionError):
            computed = False  # a source shape the rule did not foresee says nothing
        if not computed or value is None or (f.name, value.lineno, value.col_offset) in report.covered:
            continue  # (or the rewrite computed it as Triton's FPSan does: fold_named_literal)
        assert s.span is not None
        report.items.append(ReportItem(
            s.span.line, s.span.col, ".".join((s.opcode, *s.mods)),
            f"stores a constant LLVM folded from float arithmetic the source computes ({f.where(value)}): "
            "Triton's FPSan computes that expression in the ring, and the PTX no longer has it; the folded "
            "IEEE value is stored as it is", fn.name, severity=ERROR, native=True))


def _constant(r: str, movs: dict[str, list[ir.Instruction]], depth: int) -> bool:
    """One unguarded instruction writes ``r`` from immediates only, directly or through such registers.

    Besides ``mov`` of an immediate, LLVM leaves some conversions of a folded constant in place
    (``cvt.rn.f16.bf16`` of a ``mov.b16 -32768``; held-out seed 148854): the store holds a constant all
    the same.
    """
    ws = movs.get(r, [])
    if len(ws) != 1 or ws[0].guard is not None or depth <= 0 or ws[0].opcode not in ("mov", "cvt"):
        return False
    sources = ws[0].operands[1:]
    return bool(sources) and all(
        isinstance(o, (ir.Imm, ir.FloatImm)) or (isinstance(o, ir.Reg) and _constant(o.name, movs, depth - 1))
        for o in sources)


def _float_arithmetic(f: SourceFile, e: ast.expr) -> bool:
    """``e`` (names followed) has a ``+ - * /`` and is a float: a float literal or a ``.to(tl.floatN)`` in it. A name
    the hints cannot follow (assigned in a loop or an ``if``: ``for _ in tl.static_range(3): v = v * 0.04 + v``,
    statement-level probe, silent) counts with every value assigned to it."""
    nodes = list(subexpressions(f, e))
    fn = f.function_of(e)
    binds = bindings(fn) if fn is not None else {}
    names = {m.id for n in [e, *nodes] for m in ast.walk(n) if isinstance(m, ast.Name)}
    todo = set(names)
    for _ in range(_DEPTH):  # (names in those values too: y = v0 of a v0 the loop reassigns)
        more = [sub for name in todo for a in binds.get(name, ([], 0))[0] if _resolve(f, a.targets[0], _DEPTH) is None
                for sub in ast.walk(a.value) if isinstance(sub, ast.expr)]
        nodes += more
        todo = {m.id for m in more if isinstance(m, ast.Name)} - names
        if not todo:
            break
        names |= todo
    arith = any(isinstance(n, ast.BinOp) and isinstance(n.op, _ARITH) for n in nodes)
    return arith and any((isinstance(n, ast.Constant) and isinstance(n.value, float))
                         or (_cast_to(n) or "").startswith(("float", "bfloat")) for n in nodes)
