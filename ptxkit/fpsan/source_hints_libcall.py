"""Source hints for direct ``libdevice`` calls (issue 10): Triton's FPSan hashes a ``libdevice.NAME(x)`` call where
the same PTX from ``tl.NAME`` is its math op. :class:`LibcallHints` is a part of
:class:`~ptxkit.fpsan.source_hints.SourceHints`."""

from __future__ import annotations

import ast

from ptxkit import ir
from ptxkit.fpsan.source_ast import (
    _DEPTH,
    _DTYPE_WIDTH,
    Decision,
    SourceFile,
    _abs_call,
    _cast_to,
    _module_call,
    _negated,
    _number,
    _one_value,
    _receiver,
    _width,
)
from ptxkit.fpsan.source_locations import HintsBase

_BINOP_OPCODE = {ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul", ast.Div: "div"}
_WIDE_TYPE = {32: "f32", 64: "f64"}


class LibcallHints(HintsBase):
    """Which library call the source makes at an instruction's location."""

    def libdevice_call(self, instr: ir.Instruction, name: str) -> Decision | None:
        """Where the source's expression at ``instr``'s location is ``libdevice.NAME(...)``: Triton hashes the call
        while the same PTX from ``tl.NAME`` is its math op (``cvt.rmi.f64.f64`` of ``libdevice.floor``; custom kernels
        were silent). Form ``call``, or ``call:W`` where every argument is a ``.to(W)`` widening of a narrower value
        (LLVM narrows ``copysign(x.to(f64), y.to(f64)).to(f32)`` to the f32 op; Triton hashes the f64 call)."""
        def classify(f: SourceFile, n: ast.expr) -> tuple[str, ast.expr] | None:
            if _module_call(n, "libdevice") != name or not isinstance(n, ast.Call):
                return None
            casts = {_cast_to(a) for a in n.args}
            wide = casts.pop() if len(casts) == 1 else None
            w = _DTYPE_WIDTH.get(wide or "", 0)
            narrower = w in (32, 64) and all(_width(f, _receiver(a), _DEPTH) not in (None, w) for a in n.args)
            return (f"call:{_WIDE_TYPE[w]}" if narrower else "call"), n
        return self.decide(instr, classify)

    def libdevice_call_name(self, instr: ir.Instruction) -> str | None:
        """NAME of the ``libdevice.NAME(...)`` call that is the source's expression at ``instr``'s location, unless an
        arithmetic operator of ``instr``'s own kind starts there too (``libdevice.f(x) * y``: the mul is the
        product's, at the same column)."""
        found = self.nodes(instr)
        if found is None:
            return None
        names = {name for n in found[1] if (name := _module_call(n, "libdevice")) is not None}
        own = any(isinstance(n, ast.BinOp) and _BINOP_OPCODE.get(type(n.op)) == instr.opcode for n in found[1])
        return names.pop() if len(names) == 1 and not own else None

    def cast_argument(self, instr: ir.Instruction) -> bool | None:
        """Whether the library call at ``instr``'s location (or the user's call it was inlined from) passes an
        argument that is a float cast, under negations and abs (``pow(x, h.to(f32))``, ``pow(x, abs(h).to(f32))``):
        the only arguments LLVM's conversion of a half sunk into the body can be. False where every argument
        is other work (held-out seed 73705: ``pow(tanh(..), (0.0 * y.to(f32)) + 1.0)``, whose ``fma(y, 0.0, 1.0)``
        LLVM sank with y's conversion past the body's ``x == 1`` exit, at a merged location); None: no such call."""
        def classify(f: SourceFile, n: ast.expr) -> tuple[str, ast.expr] | None:
            if _module_call(n, "libdevice") is None and _module_call(n, "tl") is None:
                return None
            assert isinstance(n, ast.Call)
            if not n.args or n.keywords:
                return None
            return ("cast" if any(_cast_shaped(f, a) for a in n.args) else "other", n)
        got = self.decide_here_or_at_call(instr, classify)
        return None if got is None else got.form == "cast"


    def doubled_arguments(self, instr: ir.Instruction) -> tuple[str, str] | None:
        """The forms (``mul2``: ``E * 2.0``/``2.0 * E``; ``add``: ``E + E``) of the two arguments of the library call at
        ``instr``'s location where they double one ``E`` in the two different ways (``pow(x * 2.0, x + x)``, held-out
        seeds 103190, 107913): LLVM's one ``add x, x`` for both, where Triton's ring has φ(x)·φ(2) and 2φ(x); else
        None."""
        def classify(f: SourceFile, n: ast.expr) -> tuple[str, ast.expr] | None:
            if _module_call(n, "libdevice") is None or not isinstance(n, ast.Call) or len(n.args) != 2 or n.keywords:
                return None
            forms = [_doubling(f, a) for a in n.args]
            if None in forms or forms[0] is None or forms[1] is None or forms[0][1] != forms[1][1] \
                    or forms[0][0] == forms[1][0]:
                return None
            return f"{forms[0][0]}:{forms[1][0]}", n
        got = self.decide_here_or_at_call(instr, classify)
        if got is None:
            return None
        a, b = got.form.split(":")
        return a, b


def _doubling(f: SourceFile, e: ast.expr) -> tuple[str, str] | None:
    """(``mul2``, E) of ``E * 2.0``/``2.0 * E``, (``add``, E) of ``E + E`` (names followed; E as its AST dump)."""
    v = _one_value(f, e)
    if not isinstance(v, ast.BinOp):
        return None
    if isinstance(v.op, ast.Mult):
        x = v.left if _number(v.right) == 2.0 else v.right if _number(v.left) == 2.0 else None
        r = _one_value(f, x) if x is not None else None
        return ("mul2", ast.dump(r)) if r is not None else None
    if isinstance(v.op, ast.Add):
        a, b = _one_value(f, v.left), _one_value(f, v.right)
        return ("add", ast.dump(a)) if a is not None and b is not None and ast.dump(a) == ast.dump(b) else None
    return None


def _cast_shaped(f: SourceFile, e: ast.expr) -> bool:
    """``e`` (names followed, choices of one value taken) is a float cast under negations and abs calls."""
    for _ in range(_DEPTH):
        v = _one_value(f, e)
        if v is None:
            return True  # unknown: it may be
        if _cast_to(v) is not None:
            return True
        if (inner := _negated(v)) is not None:
            e = inner
        elif _abs_call(v):
            e = v.args[0]
        else:
            return False
    return True
