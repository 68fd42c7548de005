"""A half's negation LLVM moved into a constant factor across a widening (issue 10 F/J; held-out seed 50762, silent at
first contact at x = −0.0: ``(-h) / 3.0`` as ``fma(-(1/3), h.to(f32), t)``; ``(-h).to(f32) * 3.0`` stored as f16 is
``mul.f16 h, -3.0``). Triton's FPSan negates the half's payload in the 16-bit ring and then sign-extends it; the PTX
sign-extends h's payload and negates the constant (or the product: 61112). The two agree except at the payload
−2^15 (φ(−0.0)), which the 16-bit negation leaves as it is and the wider one does not: the product's sign differs
there. Reported, sanitized as written (docs/fpsan.md §2 negation and widening; PTX ISA "Floating-Point
Instructions: mul, fma")."""

from __future__ import annotations

import ast
from collections.abc import Callable

from ptxkit import ir
from ptxkit.fpsan.ctx import RewriteContext
from ptxkit.fpsan.fold_flow import Flow, widening_def
from ptxkit.fpsan.ops import float_type_of
from ptxkit.fpsan.report import ERROR
from ptxkit.fpsan.source_ast import (
    _DEPTH,
    _DTYPE_WIDTH,
    _PTX_DTYPE,
    OWN,
    Decision,
    SourceFile,
    _cast_chain,
    _cast_to,
    _negated,
    _number,
    _receiver,
    _resolve,
    _scan_of,
    _width,
)
from ptxkit.fpsan.source_neg_steps import _negation_of

_CONSTANT_OPS = ("mov", "div", "rcp", "mul", "add", "sub", "neg")


def negation_in_constant(instr: ir.Instruction, flow: Flow) -> Decision | None:
    """The source product or quotient of a negated half that Triton widens by a number, at ``instr``'s location, for
    a ``mul``/``fma``/``div`` with a negative constant factor (an immediate, or ``neg`` of constants); else None."""
    ops = instr.operands
    if instr.opcode not in ("mul", "fma", "div") or len(ops) < 3 or instr.guard is not None \
            or not any(_negative_constant(flow, o) for o in ops[1:3]):
        return None
    # the value side as the PTX has it: widened by a cvt, or the op narrowed to a half by LLVM
    if not any(widening_def(flow, o) for o in ops[1:3]) and not {"f16", "bf16"} & set(instr.mods):
        return None
    return flow.hints.decide_within(instr, _classify)


def negation_cancelled_in_sum(instr: ir.Instruction, flow: Flow) -> Decision | None:
    """The source's ``a - (-x).to(T)`` (or ``(-x).to(T) + a``) of a widening, at an ``add`` (``sub``) reading a
    widening ``cvt``: LLVM cancelled the negation against the subtraction (folded it into one), where Triton negates
    in x's ring before sign-extending (held-out seed 50762's kin, silent at −0.0); else None."""
    ops = instr.operands
    # (an fma's addend too: ``p - (-x).to(T)`` of a product p as fma(a, b, x.to(T)), custom kernels after held-out
    # seed 61112, silent at −0.0)
    added = ops[1:] if instr.opcode in ("add", "sub") and len(ops) == 3 else ops[3:] if instr.opcode in (
        "fma", "mad") and len(ops) == 4 else ()
    if instr.guard is not None or not any(
            (d := widening_def(flow, o)) is not None and _plain(flow, d.operands[1]) for o in added):
        return None
    want = ast.Add if instr.opcode == "sub" else ast.Sub

    def classify(f: SourceFile, n: ast.expr) -> tuple[str, ast.expr] | None:
        if isinstance(n, ast.BinOp) and isinstance(n.op, ast.Sub) and want is ast.Add and any(
                _widened_negated(f, a, False) and (_widened_negated(f, b, False)
                                                   or _negation_of(f, _resolve(f, b, _DEPTH)) is not None)
                for a, b in ((n.left, n.right), (n.right, n.left))):
            # (-p).to(f64) - (-q).to(f64) as q.to(f64) - p.to(f64), both cancelled; also of a p negated at the sum's
            # type, (-p) - (-h).to(f32) as h.to(f32) - p (held-out seed 145518, silent at h = −0.0)
            return "cancelled", n
        if not (isinstance(n, ast.BinOp) and isinstance(n.op, want)):
            return None
        sides = (n.right,) if want is ast.Sub else (n.left, n.right)
        return ("cancelled", n) if any(_widened_negated(f, s, False) for s in sides) else None
    return flow.hints.decide_within(instr, classify)


def negation_above_product(instr: ir.Instruction, flow: Flow) -> Decision | None:
    """The source product or quotient with a negated operand narrower than the product's type (``(-h) * y``,
    ``(-h) / 3.0``: Triton negates h in its own ring, then promotes it), at the location of the ``mul``/``div`` that a
    ``neg`` reads, one of whose factors is a plain widening ``cvt``: LLVM took the negation out of the product
    (held-out seed 61112, silent at first contact at h = −0.0: ``tl.sum((-h) / 3.0)``, whose sum ``(-a)·c + (-b)·c``
    it wrote as ``fma(c, -a, -(c·b))``; ``tl.sum((-h) * y)`` alike); else None."""
    ops = instr.operands
    p = flow.only_def(ops[1].name) if instr.opcode == "neg" and len(ops) == 2 and isinstance(ops[1], ir.Reg) else None
    d = ops[0] if isinstance(ops[0], ir.Reg) else None
    if p is None or d is None or instr.guard is not None or p.opcode not in ("mul", "div") \
            or not _widened_factor(flow, p) \
            or any(u.opcode in ("mul", "fma", "mad") and d in u.operands[1:3] for u in flow.uses.get(d.name, [])):
        return None  # (a factor of a product: LLVM's negation moved onto the other factor, folds_narrow_neg's 7005)
    width = _width_of(p)
    return flow.hints.decide_within(p, lambda f, n: ("negated half", n) if _negated_factor(f, n, width) else None)


def negation_cancelled_in_product_sum(instr: ir.Instruction, flow: Flow) -> Decision | None:
    """The source's ``a - (-h) * y`` (or ``a - (-h) / c``) of an h narrower than the product's type, at an ``fma``
    multiplying a plain widening ``cvt``: LLVM cancelled the negation against the subtraction (custom kernels after
    held-out seed 61112, silent at h = −0.0: ``fma(h.to(f32), y, a)``); else None."""
    return _cancelled_with_product(instr, flow, ("fma", "mad"), lambda n: n.right if isinstance(n, ast.BinOp)
                                   and isinstance(n.op, ast.Sub) else None)


def negation_cancelled_around_product(instr: ir.Instruction, flow: Flow) -> Decision | None:
    """The source's ``-((-h) * y)`` (or ``-((-h) / c)``) of an h narrower than the product's type, at the location of
    the outer negation of a ``mul``/``div`` with a plain widening factor: LLVM cancelled the two negations (held-out
    seed 72003, silent at first contact at h = −0.0: ``-((-x.to(f16)) / 3.0)`` as ``mul.f32 (1/3), h.to(f32)``),
    where Triton negates h in its own ring before sign-extending; also an ``fma`` the product went into (held-out seed
    133723, silent at −0.0: ``-((-h) / 3.0) + p`` as ``fma(1/3, h.to(f32), p)``); else None."""
    return _cancelled_with_product(instr, flow, ("mul", "div", "fma"), lambda n: n.operand if isinstance(
        n, ast.UnaryOp) and isinstance(n.op, ast.USub) else None)


def _cancelled_with_product(instr: ir.Instruction, flow: Flow, opcodes: tuple[str, ...],
                            product_of: Callable[[ast.expr], ast.expr | None]) -> Decision | None:
    """A node at ``instr``'s location whose ``product_of`` is a product or quotient with a negated operand narrower
    than ``instr``'s type, where ``instr`` (of ``opcodes``) has a plain widening factor."""
    if instr.opcode not in opcodes or instr.guard is not None or not _widened_factor(flow, instr):
        return None
    width = _width_of(instr)

    def classify(f: SourceFile, n: ast.expr) -> tuple[str, ast.expr] | None:
        p = product_of(n)
        return ("cancelled", n) if p is not None and _negated_factor(f, _resolve(f, p, _DEPTH), width) else None
    return flow.hints.decide_within(instr, classify)


def negation_of_widened_negation(instr: ir.Instruction, flow: Flow) -> Decision | None:
    """An operand ``-((-h).to(T))`` of the source's call or operator at the location of an arithmetic instruction
    reading a plain widening ``cvt`` (h narrower than T, or loaded): LLVM cancelled the two negations, where Triton
    negates h in its own ring before sign-extending (held-out seed 73560, silent at first contact at h = −0.0:
    ``fma(a, -(-h).to(f64), c)`` reading the widening CSE'd with another ``h.to(f64)``); else None."""
    if instr.guard is not None or not any((d := widening_def(flow, o)) is not None and _plain(flow, d.operands[1])
                                          for o in instr.operands[1:]) \
            or not all(_plain(flow, o) for o in instr.operands[1:]):
        return None  # (an operand the PTX still negates: the negations are there, no cancellation)

    def classify(f: SourceFile, n: ast.expr) -> tuple[str, ast.expr] | None:
        args = [n.left, n.right] if isinstance(n, ast.BinOp) else list(n.args) if isinstance(n, ast.Call) else []
        for a in args:
            inner = _negated(_resolve(f, a, _DEPTH))
            if inner is not None and _widened_negated(f, inner, False):
                return "cancelled", n
        return None
    return flow.hints.decide(instr, classify)


def _widened_factor(flow: Flow, p: ir.Instruction) -> bool:
    """A factor of the ``mul``/``div``/``fma`` ``p`` is a plain widening ``cvt``."""
    return p.guard is None and len(p.operands) >= 3 and any(
        (d := widening_def(flow, o)) is not None and _plain(flow, d.operands[1]) for o in p.operands[1:3])


def _width_of(instr: ir.Instruction) -> int:
    return _DTYPE_WIDTH.get(_PTX_DTYPE.get(float_type_of(instr) or "", ""), 0)


def _negated_factor(f: SourceFile, n: ast.expr | None, width: int) -> bool:
    """``n`` is a product or quotient with an operand that negates a value narrower than ``width`` bits (or a
    loaded one, whose type the PTX's widening says), under casts or none."""
    if not (isinstance(n, ast.BinOp) and isinstance(n.op, (ast.Mult, ast.Div))):
        return False
    for side, other in ((n.left, n.right), (n.right, n.left)):
        x = _negated(_cast_chain(f, side)[1])
        w = _width(f, x, _DEPTH) if x is not None else None
        wide = [m for m in ast.walk(other) if isinstance(m, ast.expr) and _cast_to(m) in ("float32", "float64")]
        if w == OWN and x is not None and wide and not any(
                _resolve(f, _receiver(m), _DEPTH) is _resolve(f, x, _DEPTH) for m in wide):
            continue  # a loaded y beside another's widening (-y * ceil(x.to(f64))): the PTX's widening is that one's
        if w is not None and (w == OWN or 0 < w < width):
            return True
    return False


def _plain(flow: Flow, o: ir.Operand) -> bool:
    """``o`` is no negation the PTX still has (a ``neg`` or sign-bit ``xor`` before the widening keeps it)."""
    d = flow.only_def(o.name) if isinstance(o, ir.Reg) else None
    return d is None or d.opcode not in ("neg", "xor")


def negated_constant_product_in_sum(instr: ir.Instruction, flow: Flow) -> Decision | None:
    """An ``add`` of a widened half product by a negative constant (``mul.bf16x2 p, h, -c`` unpacked, then
    ``cvt.f64.bf16``) where the source subtracts the product by a positive number (``a - (c * h).to(f64)``): LLVM
    moved the subtraction's negation into the half constant; Triton sign-extends the product and then subtracts,
    which differs where the 16-bit product is −2^15 (h = −0.0; statement-level seed 1740, silent); else None."""
    ops = instr.operands
    if instr.opcode != "add" or len(ops) != 3 or instr.guard is not None:
        return None
    for o in ops[1:3]:
        cvt = widening_def(flow, o)
        src = cvt.operands[1] if cvt is not None else None
        d = flow.only_def(src.name) if isinstance(src, ir.Reg) else None
        if d is not None and d.opcode == "mov" and isinstance(d.operands[0], ir.Vec) and isinstance(
                d.operands[1], ir.Reg):  # (a lane of a packed product)
            d = flow.only_def(d.operands[1].name)
        if d is not None and d.opcode in ("mul", "fma") and d.guard is None \
                and {"f16", "bf16", "f16x2", "bf16x2"} & set(d.mods) \
                and any(_negative_constant(flow, c) for c in d.operands[1:3]):
            return flow.hints.decide_within(instr, _subtracted_product)
    return None


def _subtracted_product(f: SourceFile, n: ast.expr) -> tuple[str, ast.expr] | None:
    if not (isinstance(n, ast.BinOp) and isinstance(n.op, ast.Sub)):
        return None
    r = _cast_chain(f, n.right)[1]  # (under the casts: (c * h).to(f64))
    if isinstance(r, ast.BinOp) and isinstance(r.op, ast.Mult) and any(
            (c := _number(a)) is not None and c > 0 for a in (r.left, r.right)):
        return "subtracted product", n
    return None


def _negative_constant(flow: Flow, o: ir.Operand) -> bool:
    if isinstance(o, ir.FloatImm):
        return bool(o.bits >> (o.width - 1) & 1)
    d = flow.only_def(o.name) if isinstance(o, ir.Reg) else None
    if d is None or d.guard is not None or len(d.operands) != 2:
        return False
    if d.opcode == "mov":  # a half's constant: mov.b16 r, 0xC200 (-3.0)
        width = next((int(m[1:]) for m in d.mods if m[1:].isdigit()), 0)
        src = d.operands[1]
        return (isinstance(src, ir.FloatImm) and _negative_constant(flow, src)) or (
            isinstance(src, ir.Imm) and width > 0 and bool(src.value >> (width - 1) & 1))
    return d.opcode == "neg" and _constant(flow, d.operands[1], _DEPTH)


def _constant(flow: Flow, o: ir.Operand, depth: int) -> bool:
    if isinstance(o, (ir.FloatImm, ir.Imm)):
        return True
    d = flow.only_def(o.name) if isinstance(o, ir.Reg) and depth > 0 else None
    return (d is not None and d.opcode in _CONSTANT_OPS and d.guard is None
            and all(_constant(flow, s, depth - 1) for s in d.operands[1:]))


def _classify(f: SourceFile, n: ast.expr) -> tuple[str, ast.expr] | None:
    if _cast_to(n) is not None:  # the store's r.to(f16), which LLVM gives the product it narrowed (names followed)
        r = _resolve(f, _receiver(n), _DEPTH)
        n = r if isinstance(r, ast.BinOp) else n
    if not (isinstance(n, ast.BinOp) and isinstance(n.op, (ast.Mult, ast.Div))):
        return None
    for side, other in ((n.left, n.right), (n.right, n.left)):
        if _number(other) is not None and _widened_negated(f, side, isinstance(n.op, ast.Div)):
            return "negated half", n
    return None


def _widened_negated(f: SourceFile, e: ast.expr, promoted: bool) -> bool:
    """``e`` is ``-x`` under casts to a type wider than x (or none, where the division promotes a half to f32; a loaded
    x, whose type the source does not say, the PTX's widening decides)."""
    chain, r = _cast_chain(f, e)
    if r is not None and (scanned := _scan_of(r)) is not None:  # a scan's first row is its operand's own (held-out
        inner, r = _cast_chain(f, scanned)  # seed 72601: s.to(f32) + 1.0 of s = cumsum(-h), silent at h = −0.0)
        chain = [*chain, *inner]
    widest = max([32 if promoted else 0, *(_DTYPE_WIDTH[t] for t, _ in chain)])
    x = _negation_of(f, r)  # (also (-a) * b: −(a·b) in the ring)
    w = _width(f, x, _DEPTH) if x is not None else None
    return widest > 0 and w is not None and (w == OWN or 0 < w < widest)


def report_cancelled_negation(instr: ir.Instruction, ctx: RewriteContext, flow: Flow) -> None:
    """Report an fma of :func:`negation_cancelled_in_product_sum` or :func:`negation_cancelled_in_sum` (sanitized as
    written)."""
    if (cancelled := negation_cancelled_in_product_sum(instr, flow) or negation_cancelled_in_sum(instr, flow)) \
            is not None:
        ctx.report(instr, f"fma of a widened value where the source at {cancelled.where} subtracts a negation it "
                   "widens (or a product of one): LLVM cancelled the two; Triton's FPSan negates in the narrow ring "
                   "before sign-extending, which differs at φ(−0.0) = −2^(w−1) (its own negation there); sanitized "
                   "as written", ERROR, False)
