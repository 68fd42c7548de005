"""The f32 ops LLVM narrowed from f64 arithmetic on widened values (``(x.to(f64) * y.to(f64)).to(f32)`` as
``mul.f32``; ``ptxkit.fpsan.source_hints.SourceHints.narrowed_f32`` decides the form) whose Triton ring
computation is not modelled: the report's reason for each, the op sanitized as written."""

from __future__ import annotations

from ptxkit.fpsan.source_ast import Decision


def narrowed_f32_unmodelled(op: str, decided: Decision) -> str | None:
    """The reason an f32 ``op`` of form ``decided`` is left as written and reported; None when it is modelled
    (``f64``: the ring op in f64, narrowed)."""
    if decided.form == "both":  # (held-out seed 9335: silent, the f32 op was taken for the narrowed one)
        return (f"f32 {op} at column 0 of a line whose source has both an f32 {op} and f64 arithmetic on widened "
                f"f32 narrowed back ({decided.where}): which one this is the location does not say; sanitized as the "
                "f32 op")
    if decided.form == "int":  # (held-out seed 17257: silent at first contact)
        return (f"f32 {op} LLVM narrowed from f64 arithmetic on an integer converted to f64 ({decided.where}): "
                "Triton's operand is the native i → f64 conversion, which the PTX's i → f32 one widened in the ring "
                "is not (not modelled); sanitized as the f32 op")
    if decided.form == "restructured":  # (held-out seed 54683: silent at first contact)
        return (f"f32 {op} at a narrowing of f64 arithmetic ({decided.where}) that has no {op}: LLVM shrank the f64 "
                "ops to f32 and folded them into this one (a negation into a subtraction's order, say); Triton's ring "
                "computes the source's ops in f64 and narrows (not modelled); sanitized as the f32 op")
    if decided.form == "neg":  # (held-out seed 32469: silent at first contact)
        return (f"f32 {op} LLVM narrowed from f64 arithmetic on widened values that the source at {decided.where} "
                "negates after the narrowing, -(x.to(f64) * y.to(f64)).to(f32): LLVM moved the negation onto an "
                "operand; Triton's ring computes in f64, narrows, then negates (not modelled); sanitized as the f32 op")
    return None
