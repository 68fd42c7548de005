"""Source hints for float casts LLVM shortened (issue 10; docs/fpsan.md §3 "Folds"): a narrowing ``cvt`` whose
source value the Python expression at its ``.loc`` computes at a wider type. ``fptrunc(fpext x)`` is
``fptrunc x`` in IEEE (the widening is exact), but Triton's FPSan narrows the 64-bit ring value, mixing in the
bits the widening's sign extension set (docs/fpsan.md, narrowing cast). :class:`CastHints` is a part of
:class:`~ptxkit.fpsan.source_hints.SourceHints`."""

from __future__ import annotations

import ast

from ptxkit import ir
from ptxkit.fpsan.source_ast import (
    _DEPTH,
    _DTYPE_WIDTH,
    _PTX_DTYPE,
    Decision,
    SourceFile,
    _cast_to,
    _negated,
    _receiver,
    _resolve,
    _scan_of,
    _width,
)
from ptxkit.fpsan.source_locations import HintsBase


class CastHints(HintsBase):
    """Casts the source computes through a type the PTX no longer has."""

    def narrowed_from_wider(self, cvt: ir.Instruction, dest: str, source: str) -> Decision | None:
        """A ``cvt.rn.{dest}.{source}`` at a ``.to(dest)`` call whose receiver the source computes explicitly wider
        than ``source`` with exact work LLVM dropped along with the widening — a negation squared away, a scan's
        first element (``s.to(bf16)`` of ``s = tl.cumsum(-x.to(f64))``, an f32 x: held-out seed 18885, silent at first
        contact), which Triton's ring narrows from f64: form ``wider``. The bare ``x.to(f64).to(bf16)`` Triton's own
        pipeline folds before FPSan (held-out seed 3218), and an abs or max/min of widenings has folds of its own
        (folds_sign): None."""
        sw = _DTYPE_WIDTH.get(_PTX_DTYPE.get(source, ""))

        def classify(f: SourceFile, n: ast.expr) -> tuple[str, ast.expr] | None:
            if _cast_to(n) != _PTX_DTYPE.get(dest) or sw is None:
                return None
            recv = _resolve(f, _receiver(n), _DEPTH)
            w = _width(f, recv, _DEPTH) if recv is not None else None
            if recv is None or w is None or w not in (32, 64) or w <= sw:
                return None
            return ("wider", n) if _negated(recv) is not None or _scan_of(recv) is not None else None
        return self.decide(cvt, classify)
