"""One float → integer ``cvt`` for two source conversions of one value through different widenings (issue 10 E;
held-out seed 10869, silent: ``x.to(f32).to(int64)`` and ``x.to(f64).to(int64)`` of one half; and of an f32 x,
``x.to(int32)`` beside ``x.to(f64).to(int32)``, silent in custom kernels). The widenings are exact, so LLVM folds
each pair into ``cvt.rzi.sN`` of x and merges the two; the merged cvt keeps one location. Triton's FPSan widens x's
payload in the ring (a sign extension) before ``fptosi``, to f32 in one and f64 in the other, which give different
integers: no one conversion matches both readers (docs/fpsan.md §2 widening cast; PTX ISA "cvt")."""

from __future__ import annotations

import ast

from ptxkit import ir
from ptxkit.fpsan.fold_flow import Flow
from ptxkit.fpsan.irview import name_of
from ptxkit.fpsan.source_ast import (
    _INT_DTYPES,
    Decision,
    SourceFile,
    _cast_to,
    _int_width,
    _one_value,
    _receiver,
    _same,
    _to_dtype,
)
from ptxkit.ptx.types import SIGNED_TYPES, UNSIGNED_TYPES

_SOURCES = ("f16", "bf16", "f32")


def merged_int_conversion(cvt: ir.Instruction, flow: Flow) -> tuple[Decision, Decision] | None:
    """(the cvt's own source conversion, a reader's through another widening of the same value) for
    ``cvt.rzi.{s,u}N.{f16,bf16,f32}`` whose readers sit at other locations; else None."""
    ints = [m for m in cvt.mods if m in SIGNED_TYPES or m in UNSIGNED_TYPES]
    if (cvt.opcode != "cvt" or len(ints) != 1 or not set(_SOURCES) & set(cvt.mods) or "rzi" not in cvt.mods
            or cvt.guard is not None or len(cvt.operands) != 2):
        return None
    width = max(16, int(ints[0][1:]))
    half = bool({"f16", "bf16"} & set(cvt.mods))

    def classify(f: SourceFile, n: ast.expr) -> tuple[str, ast.expr] | None:
        t = _to_dtype(n)
        if t not in _INT_DTYPES or max(16, _int_width(t)) != width:
            return None
        recv = _one_value(f, _receiver(n))
        if recv is None:
            return None
        via = _cast_to(recv)
        if via in ("float32", "float64"):
            recv, inner = _one_value(f, _receiver(recv)), via
        else:
            inner = "float32"  # x.to(int) converts x's own float: no widening to f64
        if inner == "float32" and half and recv is not None and _cast_to(recv) == "float64":
            # h.to(f64).to(f32) of a half h: the ring's narrowing of a sign-extended payload is the payload widened
            # to f32, h.to(f32) (held-out seed 94129: beside h.to(f64).to(int32), silent)
            recv = _one_value(f, _receiver(recv))
        return (f"{inner}|{ast.dump(_same(recv))}", n) if recv is not None else None

    own = flow.hints.decide(cvt, classify)
    if own is None:
        return None
    at = flow.hints.loc.get(id(cvt))
    readers = list(flow.uses.get(name_of(cvt.operands[0]), []))
    for u in readers:
        if flow.hints.loc.get(id(u)) == at:
            if u.opcode == "cvt" and len(u.operands) == 2 and len(readers) < 16:
                # the integer's conversion back, merged too (held-out seed 82680: x.to(int64).to(f64) and
                # x.to(f64).to(int64).to(f64)): its readers tell
                readers += [r for r in flow.uses.get(name_of(u.operands[0]), []) if r not in readers]
            continue
        other = flow.hints.decide_within(u, classify)
        if other is not None and _other_widening(other.form, own.form):
            return _named(own), _named(other)
    # no reader elsewhere tells (LLVM folded x.to(int32) + x.to(f64).to(int32) into a shift of the one cvt): the
    # file converting the value through the other widening, where nothing else in the PTX converts x, does
    x = cvt.operands[1]
    found = flow.hints.nodes(cvt)
    if found is None or not isinstance(x, ir.Reg) or _converted_apart(flow, x.name, cvt):
        return None
    f = found[0]
    for n in ast.walk(f.tree):
        got = classify(f, n) if isinstance(n, ast.expr) else None
        if got is not None and _other_widening(got[0], own.form):
            return _named(own), _named(Decision(got[0], f.where(got[1])))
    return None


def _converted_apart(flow: Flow, x: str, cvt: ir.Instruction) -> bool:
    """Another ``cvt`` converts ``x`` to an integer, or to a float (a widening the other conversion may start from;
    a float's own widening to f64 that a select or a sum reads is no such start, held-out seed 94129)."""
    for u in flow.uses.get(x, []):
        if u is cvt or u.opcode != "cvt":
            continue
        if [m for m in u.mods if m in SIGNED_TYPES or m in UNSIGNED_TYPES]:
            return True
        d = u.operands[0]
        if not isinstance(d, ir.Reg) or any(r.opcode == "cvt" for r in flow.uses.get(d.name, [])):
            return True
    return False


def _other_widening(a: str, b: str) -> bool:
    """Forms ``VIA|VALUE``: the same value through another widening."""
    (va, _, xa), (vb, _, xb) = a.partition("|"), b.partition("|")
    return xa == xb and va != vb


def _named(d: Decision) -> Decision:
    """``d`` with its form the widening's type alone (``f64``)."""
    return Decision({"float32": "f32", "float64": "f64"}[d.form.partition("|")[0]], d.where)
