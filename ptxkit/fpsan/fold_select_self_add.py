"""``add d, selp(c, x, y), x``: LLVM's ``where(c, 2.0 * x, y + x)`` with the common addend x taken out of the select
(after canonicalising ``2.0 * x`` to ``x + x``; issue 10, held-out seed 47599, silent at first contact:
``where(.., 2.0 * x, x + abs(x))``). In the ring the select of two sums is the sum of the select only where the
doubled arm is ``x + x`` (2φ(x)); the source's ``2.0 * x`` is φ(x)·φ(2), which no add gives. The ``tl.where`` at the
select's location says which: ``mul2`` is computed as Triton's select of φ(x)·φ(2) and φ(y) + φ(x), ``add`` is the PTX
as written (PTX ISA §9.7.8.1 selp, §9.7.4.1 add)."""

from __future__ import annotations

import ast

from ptxkit import ir
from ptxkit.fpsan import ring as R
from ptxkit.fpsan.ctx import BITS_KIND, RewriteContext, float_to_bits, hexc
from ptxkit.fpsan.fold_flow import Flow, FoldResult
from ptxkit.fpsan.report import NOTE, Verdict
from ptxkit.fpsan.source_ast import (
    _DEPTH,
    _DTYPE_WIDTH,
    OWN,
    Decision,
    SourceFile,
    _as_op,
    _cast_to,
    _is_two,
    _method_call,
    _negated,
    _receiver,
    _resolve,
    _same,
    _width,
)


def hoisted_self_add(instr: ir.Instruction, flow: Flow, ft: str) -> tuple[int, int, str, str] | None:
    """(the add's operand index of s, the select's operand index of x's arm, the form of the source's arm there,
    where) for ``add d, s, x`` (either
    order) of ``s = selp a, b, p`` with exactly one arm x, unchanged between, and a ``tl.where`` at the select's
    location with one arm a self-add form of a value the other arm adds; else None."""
    ops = instr.operands
    if instr.opcode != "add" or len(ops) != 3 or instr.guard is not None or ft not in ("f32", "f64", "f16", "bf16"):
        return None
    half = ft in ("f16", "bf16")  # (held-out seed 203572, silent: where(c, h + g, h * 2.0) of halves, add.f16)
    for k in (1, 2):
        s, x = ops[k], ops[3 - k]
        sel = flow.only_def(s.name) if isinstance(s, ir.Reg) and isinstance(x, ir.Reg) else None
        if sel is None or sel.opcode != "selp" or sel.guard is not None or len(sel.operands) != 4:
            continue
        arms = [i for i in (1, 2) if sel.operands[i] == x]
        if len(arms) != 1 or not isinstance(x, ir.Reg) or not flow.same_value(x.name, sel, instr):
            continue
        found = flow.hints.nodes(sel)
        forms = {(form, f.where(n)) for f, nodes in ([found] if found else []) for n in nodes
                 if (form := _doubled_arm(f, n, 16 if half else None)) is not None}
        if len(forms) == 1:
            form, where = forms.pop()
            return k, arms[0], form, where
    return None


def _doubled_arm(f: SourceFile, n: ast.expr, width: int | None = None) -> str | None:
    """``mul2``/``add`` of ``tl.where(c, A, B)`` whose one arm is ``2.0 * X`` / ``X + X`` and the other a sum with
    an operand X (with ``width``, both arms ops at that width: a half op, not f32 arithmetic LLVM narrowed); else
    None."""
    if not _method_call(n, "where", 3):
        return None
    found: list[str] = []
    for a, b in ((n.args[1], n.args[2]), (n.args[2], n.args[1])):
        rb = _resolve(f, b, _DEPTH)
        doubled = _self_form(f, a)
        if doubled is None or not isinstance(rb, ast.BinOp):
            continue
        form, x = doubled
        ra = _resolve(f, a, _DEPTH)
        widths = {_width(f, ra, _DEPTH), _width(f, rb, _DEPTH)} if ra is not None else {None}
        if width is not None and not widths <= {width, OWN}:
            continue  # (OWN: loaded values, of the op's type)
        if _widened_key(f, x) in (_widened_key(f, t) for t in _addends(rb)):
            found.append(form)
    return found[0] if len(found) == 1 else None


def _widened_key(f: SourceFile, e: ast.expr) -> str:
    """``e`` (:func:`_same`) with its chain of exact widenings as one: ``h.to(f32).to(f64)`` is ``h.to(f64)`` in the
    ring too (sign extensions compose; held-out seed 50569, where LLVM made both one ``cvt.f64.f16``)."""
    e = _same(e)
    outer = _cast_to(e)
    while outer is not None and isinstance(e, ast.Call) and (inner := _cast_to(r := _receiver(e))) is not None \
            and _DTYPE_WIDTH[inner] < _DTYPE_WIDTH[outer] and isinstance(r, ast.Call) \
            and (w := _width(f, _receiver(r), _DEPTH)) is not None and w <= _DTYPE_WIDTH[inner]:
        to = ast.Attribute(value=_receiver(r), attr="to", ctx=ast.Load())
        e = ast.Call(func=to, args=e.args, keywords=e.keywords)
    return ast.dump(e)


def _addends(n: ast.BinOp) -> tuple[ast.expr, ...]:
    """The two terms of a sum as LLVM emits it: ``Y + X``, and ``Y - (X * -1.0)``, which InstCombine folds into
    ``Y + X`` and Triton's ring agrees with (φ(-1.0) = −1; held-out seed 50569, silent at first contact); else ()."""
    op, left, right = _as_op(n)
    if op is ast.Add:
        return left, right
    return (left, x) if op is ast.Sub and (x := _negated(right)) is not None else ()


def select_of_forms(instr: ir.Instruction, ctx: RewriteContext, flow: Flow, ft: str, k: int, arm: int,
                    where: str) -> FoldResult:
    """``add d, s, x`` of ``s = selp a, b, p`` (operand ``k``; x the arm ``arm``) as Triton's
    ``where(p, φ(x)·φ(2), φ(y) + φ(x))``, the arms in the select's order."""
    ops = instr.operands
    sel = flow.only_def(ops[k].name)  # type: ignore[union-attr]
    assert sel is not None
    x, y, p = ops[3 - k], sel.operands[3 - arm], sel.operands[3]
    w = R.ring(ft).w
    px = ctx.embed(x, ft)
    # a half select's immediate is the half's bits (selp.b16 s, 0xBF00, x: held-out seed 207436, silent when embedded
    # as the integer 48896), not an integer to convert
    py = hexc(R.embed_int(y.value & 0xFFFF, ft), w) if ft in ("f16", "bf16") and isinstance(y, ir.Imm) else \
        ctx.embed(y, ft)
    m, s2, out = ctx.fresh(BITS_KIND[w]), ctx.fresh(BITS_KIND[w]), ctx.fresh(BITS_KIND[w])
    ctx.emit(f"mul.lo.s{w} {m}, {px}, {hexc(R.embed_int(float_to_bits(2.0, ft), ft), w)}")
    ctx.emit(f"add.s{w} {s2}, {py}, {px}")
    first, second = (m, s2) if arm == 1 else (s2, m)
    ctx.emit(f"selp.b{w} {out}, {first}, {second}, {ctx.text(p)}")
    ctx.define(instr.operands[0], out, ft, instr.guard)
    return FoldResult(True, Verdict(f"add of a select and x: LLVM's where(c, 2.0 * x, y + x) with x taken out of the "
                                    f"select (2.0 * x as x + x); the source at {where} doubles by 2.0: sanitized as "
                                    "Triton's select of φ(x)·φ(2) and φ(y) + φ(x)", NOTE, native=False))


def select_arms_form(instr: ir.Instruction, flow: Flow) -> Decision | None:
    """``add t, s, s`` of ``s = selp a, b, p``: LLVM's ``where(c, 2.0 * x, 2.0 * y)`` with the doubling taken out of the
    select; the form both arms of the ``tl.where`` at the select's location write (``mul2``/``add``), else None."""
    ops = instr.operands
    sel = flow.only_def(ops[1].name) if len(ops) == 3 and isinstance(ops[1], ir.Reg) and ops[1] == ops[2] else None
    found = flow.hints.nodes(sel) if sel is not None and sel.opcode == "selp" and sel.guard is None else None
    forms = {(form, f.where(n)) for f, nodes in ([found] if found else []) for n in nodes
             if (form := _arms_form(f, n)) is not None}
    if len(forms) != 1:
        return None
    form, where = forms.pop()
    return Decision(form, f"{where} (both arms of the select)")


def _arms_form(f: SourceFile, n: ast.expr) -> str | None:
    """The one self-add form both arms of ``tl.where(c, A, B)`` write, else None."""
    if not _method_call(n, "where", 3):
        return None
    forms = {got[0] if (got := _self_form(f, a)) is not None else None for a in n.args[1:]}
    return forms.pop() if len(forms) == 1 and None not in forms else None


def _self_form(f: SourceFile, a: ast.expr) -> tuple[str, ast.expr] | None:
    """(``mul2``, X) of ``2.0 * X`` / ``X * 2.0``, (``add``, X) of ``X + X`` (names followed), else None."""
    r = _resolve(f, a, _DEPTH)
    if not isinstance(r, ast.BinOp):
        return None
    op, left, right = _as_op(r)
    if op is ast.Add and ast.dump(left) == ast.dump(right):
        return "add", left
    if isinstance(r.op, ast.Mult) and (_is_two(r.left) or _is_two(r.right)):
        return "mul2", r.right if _is_two(r.left) else r.left
    return None
