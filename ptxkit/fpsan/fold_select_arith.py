"""Arithmetic with constants that LLVM pushed through a select of a literal (issue 10; custom kernels after held-out
seed 68925, silent: ``tl.where(c, x, 2.0) + 1.0`` is ``selp.b32 d, x + 1.0, 3.0, p``). InstCombine folds a binary
operation with a constant into both arms of a select whose other arm is a constant, so the literal arm becomes the
natively folded ``2.0 + 1.0``; Triton's FPSan adds φ(2.0) and φ(1.0) in the ring, which is not φ(3.0). The register
arm's chain of ``add``/``sub``/``mul`` by immediates shows the operations; where they take the where's literal to the
select's immediate natively, that immediate becomes the float of the ring's result (docs/fpsan.md §2; PTX ISA
"Comparison and Selection Instructions: selp")."""

from __future__ import annotations

import ast
from dataclasses import dataclass, replace

import numpy as np

from ptxkit import ir
from ptxkit.fpsan import ring as R
from ptxkit.fpsan.ctx import RewriteContext, float_to_bits, guard_text, hexc
from ptxkit.fpsan.fold_flow import Flow, FoldResult, float_cast
from ptxkit.fpsan.fold_select_const import _casts_after, _ring_along, _rounded_along
from ptxkit.fpsan.ops import float_type_of
from ptxkit.fpsan.report import ERROR, NOTE, Verdict
from ptxkit.fpsan.source_ast import (
    _DEPTH,
    _PTX_DTYPE,
    _UNARY_MATH,
    SourceFile,
    _cast_to,
    _method_call,
    _number,
    _resolve,
    _returned,
    _width,
)
from ptxkit.fpsan.source_numbers import arm_number, constexpr_param
from ptxkit.fpsan.source_walk import subexpressions

_TYPES = {32: ("f32", np.float32, np.uint32), 64: ("f64", np.float64, np.uint64)}
_NATIVE = {"f16": (np.float16, np.uint16), "f32": (np.float32, np.uint32), "f64": (np.float64, np.uint64)}
_STEPS = 4
_OPS = {ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul"}


@dataclass(frozen=True)
class _Step:
    """``x op c`` (``first``: ``c op x``) of one immediate ``c`` (its bits) and the register ``x``; ``widened``: x is a
    float conversion's result (the where's value was of another type: its literal went through the ring's cast)."""
    op: str
    c: int
    first: bool
    widened: bool
    double: bool = False  # x + x: the operand twice (c unused)


@dataclass(frozen=True)
class SelectArith:
    """The immediate arm (operand index) and its bits in Triton's ring, and the where it came from."""
    index: int  # 0: both arms (``bits`` and ``bits2``)
    bits: int
    ftype: str
    where: str
    bits2: int = 0
    changed: bool = True  # the ring's value differs from LLVM's constant (else nothing to rewrite)
    undecided: bool = False  # several types of the where fit, with ring values of their own


def select_arith_constant(instr: ir.Instruction, flow: Flow) -> SelectArith | None:
    """The ring value of the immediate arm of ``selp.bN d, a, K, p`` (or ``K, a``) at a ``tl.where`` with a literal
    arm K0, where ``a`` is the other arm put through ``add``/``sub``/``mul`` by immediates (and a float conversion
    after them, which LLVM pushed into the arms too) that take K0 to K natively (None also where the ring's value is
    K itself: ``where(c, x, 1.0) * 2.0``)."""
    found = _select_arith(instr, flow)
    return found if found is not None and found.changed else None


def _select_arith(instr: ir.Instruction, flow: Flow) -> SelectArith | None:
    ops = instr.operands
    width = next((int(m[1:]) for m in instr.mods if m[1:].isdigit()), 0)
    if instr.opcode != "selp" or len(ops) != 4 or instr.guard is not None or width not in (16, 32, 64):
        return None
    imm = [i for i in (1, 2) if isinstance(ops[i], (ir.Imm, ir.FloatImm))]
    if len(imm) == 2 and width == 32:  # (a where of two literals is an f32 tensor: at f64, promoted later)
        return _both_literals(instr, flow, [_bits(ops[i], width) for i in (1, 2)])
    if len(imm) != 1 or not isinstance(reg := ops[3 - imm[0]], ir.Reg):
        return None
    k = _bits(ops[imm[0]], width)
    cvt = flow.only_def(reg.name)
    cast = float_cast(cvt) if cvt is not None and cvt.opcode == "cvt" else None
    half = float_type_of(cvt) if cvt is not None and width == 16 else None
    if cast is not None and cvt is not None and isinstance(cvt.operands[1], ir.Reg):
        reg = cvt.operands[1]  # (where(c, x, 2.0) + 1.0).to(bf16): the cast pushed into the arms after the add
    elif width == 16 and (half not in ("f16", "bf16") or not _half_chain_native(flow, reg.name, half)):
        return None  # (a half op LLVM narrowed from wider arithmetic: its own H fold decides, and reports)
    ftype = cast[1] if cast is not None else half if width == 16 and half else _TYPES[width][0]
    if k is None or ftype not in (*_NATIVE, "bf16") or (cast is not None and R.ring(cast[0]).w != width):
        return None
    steps = _chain(flow, reg.name, ftype)
    found = flow.hints.nodes_or_line(instr) if steps else None
    if found is not None and not _wheres(found[1]):  # a library body's select (tl.sigmoid(where(c, x, 0.25)): its
        with flow.hints.at_call_site(instr) as inlined:  # exp's * -log2e pushed into the arms, held at standard.py)
            at = flow.hints.nodes(instr) if inlined else None
        if at is not None:  # (the user's call of a helper that calls it: what the helper returns)
            found = at[0], [r for n in at[1] for r in ([_resolve(at[0], n, _DEPTH)] if _returned(at[0], n) else [n])
                            if r is not None]
    if found is None:
        return None
    f, nodes = found
    dest = cast[0] if cast is not None else ftype
    wide = ftype == "f32" and cast is None and _narrowed_from_f64(flow, reg.name, len(steps))
    if wide:  # f64 arithmetic on the widened f32 where, narrowed back: the ring's steps are at f64
        steps = [replace(st, c=float_to_bits(float(np.array([st.c], np.uint32).view(np.float32)[0]), "f64"))
                 for st in steps]
        ftype = "f64"
    # (where the steps leave the literal as it is natively — -inf * 0.125, max(3.0, 2.0) — they may be the where's
    # own arm, where(m, x * 0.125, -inf) of a model kernel: only an operation the source applies to the where counts)
    got = {(bits, f.where(n)) for n in _wheres(nodes, f)
           if (path := ["f32", "f64"] if wide else _where_path(f, n, flow, instr, ftype)) is not None
           for lit in _literals(f, n, flow, instr, names=ftype in ("f32", "f64"))
           if (bits := _ring_of(lit, steps, ftype, dest, k, _cast_arm(n, ftype), path)) is not None
           and (float_to_bits(lit, dest) != k or _applied_to(f, _value_node(f, n, flow, instr), steps))}
    if len({b for b, _ in got}) != 1:
        return None
    bits, where = got.pop()
    return SelectArith(imm[0], bits, dest, where, changed=bits != k)


def _both_literals(instr: ir.Instruction, flow: Flow, ks: list[int | None]) -> SelectArith | None:
    """``selp.b32 d, K1, K2, p`` at ``tl.where(c, a, b) op n …`` of f32 literals a and b (``where(c, 1.0, 2.0) * 3.0``
    is ``selp 3.0, 6.0``): the source's operators with numbers around the where, applied in the ring."""
    found = flow.hints.nodes(instr)
    k1, k2 = ks
    if found is None or k1 is None or k2 is None:
        return None
    f, nodes = found
    got: set[tuple[tuple[int, int], str]] = set()
    for w in _wheres(nodes):
        lits = _literals(f, w, flow, instr)
        if len(lits) != 2:
            continue
        steps: list[_Step] = []
        cur: ast.expr = _value_node(f, w, flow, instr)
        while isinstance(p := f.parent.get(id(cur)), ast.BinOp) and type(p.op) in _OPS:
            first = p.right is cur
            n = _number(p.left if first else p.right)
            if n is None:
                break
            steps.append(_Step(_OPS[type(p.op)], float_to_bits(n, "f32"), first, False))
            cur = p
            for l1, l2 in (lits, lits[::-1]):  # (LLVM may invert the predicate and swap the arms)
                b1, b2 = _through(l1, steps, "f32", "f32", k1), _through(l2, steps, "f32", "f32", k2)
                if b1 is not None and b2 is not None:
                    got.add(((b1, b2), f.where(w)))
            if got:
                break
    if len(got) != 1:
        return None
    (n1, n2), where = got.pop()
    return SelectArith(0, n1, "f32", where, n2, changed=(n1, n2) != (k1, k2))


def rewrite_select_arith(instr: ir.Instruction, ctx: RewriteContext, found: SelectArith) -> FoldResult:
    """The select as written, its immediate arm replaced by the ring's value."""
    if found.undecided:
        return FoldResult(False, Verdict(
            f"select of a constant LLVM computed from the literal of the where at {found.where} and the arithmetic "
            "it pushed into the arms, which Triton's FPSan computes in the ring at the where's type: neither the "
            "source nor the PTX gives that type (several fit, with different ring values); left as written", ERROR))
    ops = instr.operands
    w = R.ring(found.ftype).w
    args = ([hexc(found.bits, w), hexc(found.bits2, w)] if found.index == 0 else
            [hexc(found.bits, w) if i == found.index else ctx.text(ops[i]) for i in (1, 2)])
    ctx.emit(f"{guard_text(instr.guard)}selp.b{w} {ctx.text(ops[0])}, {args[0]}, {args[1]}, {ctx.text(ops[3])}")
    return FoldResult(True, Verdict(f"select of a constant LLVM computed from the literal of the where at "
                                    f"{found.where} and the arithmetic with constants it pushed into both arms; "
                                    "sanitized with Triton's ring arithmetic on the literal", NOTE, native=False),
                      moves=True)


def _bits(o: ir.Operand, width: int) -> int | None:
    if isinstance(o, ir.FloatImm):
        return o.bits if o.width == width else None
    return o.value % (1 << width) if isinstance(o, ir.Imm) else None


def _chain(flow: Flow, r: str, ftype: str) -> list[_Step]:
    """The ``add``/``sub``/``mul`` (and contracted ``fma``) by immediates of type ``ftype`` that compute ``r``,
    innermost first (up to :data:`_STEPS`); an immediate may sit in a register a ``mov`` of it defines once."""
    steps: list[_Step] = []
    for _ in range(_STEPS):
        d = flow.only_def(r)
        if d is None or d.guard is not None or float_type_of(d) != ftype:
            break
        o = d.operands
        if d.opcode == "fma" and len(o) == 4 and isinstance(o[1], ir.Reg) \
                and (m := _imm(flow, o[2])) is not None and (c := _imm(flow, o[3])) is not None:
            # x * m + c, LLVM's contraction of the two steps (natively folded in the other arm one at a time)
            r = o[1].name
            steps += [_Step("add", c, False, False), _Step("mul", m, False, _widened(flow, r))]
            continue
        if d.opcode == "add" and len(o) == 3 and isinstance(o[1], ir.Reg) and o[1] == o[2]:
            # x + x: the source's x * 2.0 or x + x (fold_self_add), as the location says (where(c, x, 2.0) * 2.0)
            said = flow.hints.self_add(d, ftype)
            if said is None or said.form not in ("mul2", "add"):
                break
            r = o[1].name
            steps.append(_Step("mul", float_to_bits(2.0, ftype), False, _widened(flow, r)) if said.form == "mul2"
                         else _Step("add", 0, False, _widened(flow, r), double=True))
            continue
        if d.opcode not in ("add", "sub", "mul", "max", "min") or len(o) != 3 or "NaN" in d.mods:
            break
        if isinstance(o[1], ir.Reg) and (c := _imm(flow, o[2])) is not None:
            r, first = o[1].name, False
        elif isinstance(o[2], ir.Reg) and (c := _imm(flow, o[1])) is not None:
            r, first = o[2].name, True
        else:
            break
        steps.append(_Step(d.opcode, c, first, _widened(flow, r)))
    return steps[::-1]


def _narrowed_from_f64(flow: Flow, r: str, n: int) -> bool:
    """The ``n`` f32 steps computing ``r`` are f64 arithmetic LLVM narrowed (the source decides, ``narrowed_f32``):
    ``tl.where(x > 0, x, 1.0).to(tl.float64) + -4.0`` stored as f32 is ``selp(x + -4.0, -3.0)`` at f32, where
    Triton's ring adds at f64 and narrows (statement-level probe rp236, silent)."""
    for _ in range(n):
        d = flow.only_def(r)
        said = flow.hints.narrowed_f32(d) if d is not None and d.opcode in ("add", "sub", "mul") else None
        if d is None or said is None or said.form != "f64":
            return False
        r = next((o.name for o in d.operands[1:] if isinstance(o, ir.Reg)), "")
    return n > 0


def _half_chain_native(flow: Flow, r: str, ft: str) -> bool:
    """The 16-bit ops computing ``r`` (up to :data:`_STEPS`) are half arithmetic where the source decides (user-style
    probe: ``tl.where(x > 0, x, 3.0) * 2.0`` of an f16 x, the folded 6.0 silent in 241/512 elements)."""
    for _ in range(_STEPS):
        d = flow.only_def(r)
        if d is None or float_type_of(d) != ft:
            return True
        said = flow.hints.half(d)
        if said is not None and said.form != "native":
            return False
        r = next((o.name for o in d.operands[1:] if isinstance(o, ir.Reg)), "")
    return True


def _imm(flow: Flow, o: ir.Operand) -> int | None:
    """The bits of a float immediate operand, or of the one ``mov`` of an immediate into a register operand."""
    if isinstance(o, ir.FloatImm):
        return o.bits
    d = flow.only_def(o.name) if isinstance(o, ir.Reg) else None
    if d is None or d.opcode != "mov" or d.guard is not None or len(d.operands) != 2:
        return None
    v = d.operands[1]
    return v.bits if isinstance(v, ir.FloatImm) else v.value if isinstance(v, ir.Imm) and v.value >= 0 else None


def _widened(flow: Flow, r: str) -> bool:
    x = flow.only_def(r)
    return x is not None and x.opcode == "cvt" and float_cast(x) is not None


def _wheres(nodes: list[ast.expr], f: SourceFile | None = None) -> list[ast.Call]:
    """The ``tl.where`` calls among ``nodes`` and their sub-expressions (with ``f``, names followed: ``b = tl.where(c,
    z, 0.1); tl.abs(b) + 1.0``, statement-level probe, silent)."""
    subs = (m for n in nodes for m in (subexpressions(f, n) if f is not None else ast.walk(n)))
    return list({id(m): m for m in subs if isinstance(m, ast.Call) and _method_call(m, "where", 3)}.values())


def _literals(f: SourceFile, n: ast.Call, flow: Flow, instr: ir.Instruction, names: bool = True) -> list[float]:
    """The numbers among the where's arms (:func:`_arm_number`; ``names``: through names too)."""
    args = flow.hints.call_arguments(instr, f, n)[0]
    return [c for a in n.args[1:] if (c := arm_number(f, a, args, names)) is not None]


def _value_node(f: SourceFile, w: ast.Call, flow: Flow, instr: ir.Instruction) -> ast.expr:
    """The node whose readers take the where's value: the where, or the call of the helper that returns it."""
    if isinstance(f.parent.get(id(w)), ast.Return):
        call = flow.hints.call_arguments(instr, f, w)[1]
        if call is not None:
            return call
    return w


def _where_path(f: SourceFile, n: ast.Call, flow: Flow, instr: ir.Instruction, ftype: str) -> list[str] | None:
    """The ring casts a literal of the where takes before the steps: none for a where of the steps' type; for one of a
    wider type (its arms' widening: ``where(c, x.to(f64), 1e-3).to(f32) * 3.0``, LLVM's select of x * 3.0 and the
    folded constant; user-style probe, silent) the where's type and the casts the source narrows it by, ending at the
    steps' type; None where they do not (the steps are at the wide type: not modelled)."""
    widths = {w for a in n.args[1:3] if _number(a) is None and (w := _width(f, a, _DEPTH)) is not None}
    wide = max(widths) if widths else None
    if wide is None or wide <= R.ring(ftype).w or wide not in (32, 64):
        return []
    casts = _casts_after(f, _value_node(f, n, flow, instr))
    return [f"f{wide}", *casts] if casts and casts[-1] == ftype else None


def _ring_of(lit: float, steps: list[_Step], ftype: str, dest: str, k: int, cast_arm: bool = False,
             path: list[str] | tuple[str, ...] = ()) -> int | None:
    """The ring's value of ``lit`` through the trailing steps (at least one) and the cast to ``dest`` that take it to
    ``k`` natively. ``cast_arm``: the where's other arm is itself a cast to ``ftype`` (``where(m, x.to(f32), -inf)``
    of an f64 x), so a step on a conversion's result is the where's own value (user-style probe: its ``* log2e``
    for exp, pushed into the arms, silent in the masked lanes)."""
    for start in range(len(steps) - 1, -1, -1):
        if (not steps[start].widened or (cast_arm and start == 0)) \
                and (got := _through(lit, steps[start:], ftype, dest, k, path)) is not None:
            return got
    return None


def _constant_side(f: SourceFile, e: ast.expr, depth: int) -> bool:
    """A number, a ``tl.constexpr`` parameter, or a math call of such (``tl.floor(S) + where(..)``: LLVM pushes the
    folded floor into the arms; statement-level seed 2971, silent)."""
    if _number(e) is not None or arm_number(f, e, {}) is not None or constexpr_param(f, e):
        return True
    return depth > 0 and isinstance(e, ast.Call) and isinstance(e.func, ast.Attribute) \
        and isinstance(e.func.value, ast.Name) and e.func.value.id == "tl" and bool(e.args) \
        and e.func.attr in ("floor", "ceil", "abs", "sqrt", "exp", "exp2", "log", "log2") \
        and all(_constant_side(f, a, depth - 1) for a in e.args)


def _applied_to(f: SourceFile, w: ast.expr, steps: list[_Step]) -> bool:
    """The source applies the steps' operations (with numbers; exp's ``* log2e``) to the where's value: around the
    where, or around a reader of the name it is assigned to."""
    up = f.parent.get(id(w))
    uses: list[ast.AST] = [w]
    if isinstance(up, ast.Assign) and len(up.targets) == 1 and isinstance(up.targets[0], ast.Name):
        fn = f.function_of(w)
        uses = [n for n in ast.walk(fn) if isinstance(n, ast.Name) and n.id == up.targets[0].id
                and isinstance(n.ctx, ast.Load)] if fn is not None else []
    want = {"add" if st.op == "sub" else st.op for st in steps}
    for u in uses:
        kinds: set[str] = set()
        for _ in range(_STEPS):
            p = f.parent.get(id(u))
            if isinstance(p, ast.BinOp) and type(p.op) in _OUTSIDE and _constant_side(f, p.right if p.left is u
                                                                                   else p.left, _STEPS):
                kinds.add(_OUTSIDE[type(p.op)])
            elif isinstance(p, ast.UnaryOp) and isinstance(p.op, ast.USub):
                kinds.add("mul")
            elif isinstance(p, ast.Call) and (_method_call(p, "maximum", 2) or _method_call(p, "minimum", 2)):
                kinds.add("max" if _method_call(p, "maximum", 2) else "min")
            elif isinstance(p, ast.Call) and (_method_call(p, "exp", 1) or _method_call(p, "sigmoid", 1)):
                kinds.add("mul")  # (its ex2.approx of x * log2e; sigmoid's of x * -log2e)
            elif isinstance(p, ast.Call) and _method_call(p, "abs", 1):
                pass  # (|where(..)| + 2.0: the abs LLVM keeps on the register arm, a number's own is folded)
            else:
                break
            u = p
        if want <= kinds:
            return True
    return False


_OUTSIDE = {ast.Add: "add", ast.Sub: "add", ast.Mult: "mul", ast.Div: "mul"}


def _cast_arm(w: ast.Call, ftype: str) -> bool:
    return any(_cast_to(a) == _PTX_DTYPE.get(ftype) for a in w.args[1:3])


def _through(lit: float, steps: list[_Step], ftype: str, dest: str, k: int,
             path: list[str] | tuple[str, ...] = ()) -> int | None:
    """The ring's value of ``lit`` (cast along ``path`` first) through ``steps`` and the cast to ``dest``, where they
    take it to ``k`` natively."""
    v = _native(_rounded_along(lit, list(path)), steps, ftype)
    if v is None or float_to_bits(v, dest) != k:
        return None
    p = R.embed(np.array([_ring_along(lit, list(path)) if path else float_to_bits(lit, ftype)], np.uint64), ftype)
    w = R.ring(ftype).w
    for s in steps:
        c = p if s.double else R.embed(np.array([s.c], np.uint64), ftype)
        a, b = (c, p) if s.first else (p, c)
        if s.op in ("max", "min"):  # the ring's max/min: signed order of the payloads (docs/fpsan.md §2)
            sa, sb = (int(v[0]) - ((int(v[0]) >> (w - 1)) << w) for v in (a, b))
            p = a if (sa >= sb) == (s.op == "max") else b
        else:
            p = getattr(R, s.op)(a, b, w)
    out = R.unembed(p, ftype)
    return int((R.float_cast(out, ftype, dest) if dest != ftype else out)[0])


def _native(lit: float, steps: list[_Step], ftype: str) -> float | None:
    """``lit`` of ``ftype`` through ``steps`` in IEEE arithmetic of that type, rounded at each step (bf16: computed in
    f32 and rounded, which may round twice; a differing result only leaves the select undecided)."""
    flt, uint = _NATIVE.get(ftype, (np.float32, np.uint32))
    bf16 = ftype == "bf16"

    def rnd(x: float) -> float:
        return float(np.array([float_to_bits(x, "bf16") << 16], np.uint32).view(np.float32)[0]) if bf16 else x
    with np.errstate(all="ignore"):
        v = flt(rnd(lit))
        for s in steps:
            c = v if s.double else flt(rnd(float(np.array([s.c << 16], np.uint32).view(np.float32)[0]))) if bf16 \
                else np.array([s.c], uint).view(flt)[0]
            a, b = (c, v) if s.first else (v, c)
            v = flt(rnd(flt(a + b) if s.op == "add" else flt(a - b) if s.op == "sub" else flt(max(a, b))
                        if s.op == "max" else flt(min(a, b)) if s.op == "min" else flt(a * b)))
    return float(v)


def unexplained_select_constant(instr: ir.Instruction, flow: Flow) -> str | None:
    """Where ``selp d, a, K, p`` (a float select: not read as an integer) sits at a ``tl.where`` of float literals
    none of which is K (nor −K) in the select's types: LLVM computed K from a literal and work it pushed into the
    arms (``exp(where(c, x, 0.5))`` as ``selp exp(x), 1.6487…``) that :func:`select_arith_constant` does not replay;
    Triton's ring computes that work on φ(literal). The where, else None (user-style probes: exp, sqrt and products
    of two literal arms were silent)."""
    ops = instr.operands
    width = next((int(m[1:]) for m in instr.mods if m[1:].isdigit()), 0)
    if instr.opcode != "selp" or len(ops) != 4 or width not in (16, 32, 64) or not isinstance(ops[0], ir.Reg):
        return None
    ks = [b for i in (1, 2) if isinstance(ops[i], (ir.Imm, ir.FloatImm)) and (b := _bits(ops[i], width)) is not None]
    found = flow.hints.nodes(instr) if ks and _select_arith(instr, flow) is None else None
    if found is None or flow.value_kind([ops[0].name]) == "int":
        return None
    f, nodes = found
    types = ("f16", "bf16") if width == 16 else (_TYPES[width][0],)
    # (a name's number is an fp32 scalar, which makes a where of halves f32: no literal of a 16-bit select)
    lits = {id(w): _literals(f, w, flow, instr, names=width != 16) for w in _wheres(nodes)}
    wheres = [w for w in _wheres(nodes) if _literals(f, w, flow, instr) and not any(
              isinstance(a, ast.Constant) and type(a.value) is int for a in w.args[1:])]
    if not wheres:
        return _constexpr_arm_through_steps(instr, flow, f, nodes, width) or _computed_arm_through_steps(
            instr, flow, f, nodes, width)
    known = {float_to_bits(sign * lit, t) for w in wheres for lit in lits[id(w)] for sign in (1.0, -1.0)
             for t in types}
    return f.where(wheres[0]) if any(k not in known for k in ks) else None


def report_unexplained_select(instr: ir.Instruction, ctx: RewriteContext, where: str) -> None:
    """The report of :func:`unexplained_select_constant`'s select (left as written)."""
    ctx.report(instr, f"select of a constant no literal of the where at {where} is: LLVM computed it from a literal "
               "(or a tl.constexpr parameter, whose value the source does not give) and work it pushed into the arms, "
               "which Triton's FPSan computes in the ring on the literal (not modelled); left as written", ERROR, False)


def _constexpr_arm_through_steps(instr: ir.Instruction, flow: Flow, f: SourceFile, nodes: list[ast.expr],
                                 width: int) -> str | None:
    """The where at ``nodes`` whose arm is a ``tl.constexpr`` parameter (its value is the launch's, not the source's)
    and whose value the source puts through the arithmetic the select's register arm shows: LLVM folded that
    arithmetic into the constant natively, Triton's ring applies it to φ(value) (user-style probe, silent: ``where(x >
    0, x, S) * 3.0`` of ``S: tl.constexpr``); the where, else None."""
    reg = next((o for o in instr.operands[1:3] if isinstance(o, ir.Reg)), None)
    d = flow.only_def(reg.name) if reg is not None else None
    ftype = _TYPES[width][0] if width in _TYPES else (float_type_of(d) or "") if d is not None else ""
    steps = _chain(flow, reg.name, ftype) if reg is not None and ftype else []
    for w in _wheres(nodes):
        args = flow.hints.call_arguments(instr, f, w)[0]
        if steps and any(constexpr_param(f, a, args) for a in w.args[1:3]) \
                and _applied_to(f, _value_node(f, w, flow, instr), steps):
            return f.where(w)
    return None


def _computed_arm_through_steps(instr: ir.Instruction, flow: Flow, f: SourceFile, nodes: list[ast.expr],
                                width: int) -> str | None:
    """The where at ``nodes`` one of whose arms is a constant the source computes (``v = tl.sqrt(tl.abs(c))`` of a
    number c: MLIR folds it), where the select's register arm shows arithmetic LLVM pushed into both arms: its
    immediate is that arithmetic folded natively, Triton's ring applies it to φ(constant) (statement-level probe
    rp330, silent: ``v0 + where(p, x, v0)`` as ``selp(x + v0, 2·v0)``); the where, else None."""
    reg = next((o for o in instr.operands[1:3] if isinstance(o, ir.Reg)), None)
    ftype = _TYPES[width][0] if width in _TYPES else ""
    if reg is None or not ftype or not _chain(flow, reg.name, ftype):
        return None
    for w in _wheres(nodes):
        args = flow.hints.call_arguments(instr, f, w)[0]
        if any(arm_number(f, a, args) is None and _computed_constant(f, a, _DEPTH) for a in w.args[1:3]):
            return f.where(w)
    return None


def _computed_constant(f: SourceFile, e: ast.expr | None, depth: int) -> bool:
    """``e`` (names followed) is numbers put through operators and ``tl`` math calls only: a value LLVM knows."""
    if e is None or depth <= 0:
        return False
    if _number(e) is not None:
        return True
    if isinstance(e, ast.Name):
        r = _resolve(f, e, _DEPTH)
        return (r is not None and r is not e and _computed_constant(f, r, depth - 1)) \
            or arm_number(f, e, {}) is not None
    if isinstance(e, ast.UnaryOp) and isinstance(e.op, ast.USub):
        return _computed_constant(f, e.operand, depth - 1)
    if isinstance(e, ast.BinOp) and isinstance(e.op, (ast.Add, ast.Sub, ast.Mult, ast.Div)):
        return _computed_constant(f, e.left, depth - 1) and _computed_constant(f, e.right, depth - 1)
    return (isinstance(e, ast.Call) and isinstance(e.func, ast.Attribute) and isinstance(e.func.value, ast.Name)
            and e.func.value.id == "tl" and e.func.attr in _UNARY_MATH and len(e.args) == 1 and not e.keywords
            and _computed_constant(f, e.args[0], depth - 1))
