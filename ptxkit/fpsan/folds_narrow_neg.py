"""LLVM's folds of a negation across a widening (issue 10 F/J; docs/fpsan.md §3 "Folds"): ``a − (−h)`` as ``a + h``
with h narrower than the op, and ``(-h).to(T) * c`` as ``x * -c``: Triton's ring negates the narrow value before
widening it, which the wide ring's negation of the widened value is not (they differ at −0); and the converse,
``(-x.to(W)).to(T)`` as the narrow sign xor, where Triton negates the widening and narrows it; and the source's J
form at a cvt (:func:`_neg_cast_hint`). Split from
:mod:`ptxkit.fpsan.folds_sign`, which dispatches to them."""

from __future__ import annotations

import ast
import struct

from ptxkit import ir
from ptxkit.fpsan import ring as R
from ptxkit.fpsan.casts import _cast_payload as cast_payload
from ptxkit.fpsan.ctx import BITS_KIND, RewriteContext, hexc
from ptxkit.fpsan.fold_flow import Flow, FoldResult, float_cast
from ptxkit.fpsan.fold_self_add import operand_load
from ptxkit.fpsan.ops import OpInfo, as_reg, elementwise, float_type_of, sign_xor_lanes, sign_xor_width
from ptxkit.fpsan.report import ERROR, NOTE, Verdict
from ptxkit.fpsan.source_ast import Decision

_NARROW_NEG = ("a − (−h) as a + h (or a + (−h) as a − h) with h narrower than the op: LLVM folds the negation "
               "into the wide op; Triton negates in h's ring, then widens, which differs where h is -0")


def _widened(flow: Flow, o: ir.Operand, ft: str) -> int:
    """The width of the narrower float ``o`` was widened from by its one definition (a ``cvt.ft.S``), else 0."""
    d = flow.only_def(o.name) if isinstance(o, ir.Reg) else None
    types = float_cast(d) if d is not None and d.opcode == "cvt" else None
    if types is None or types[0] != ft:
        return 0
    w = R.ring(types[1]).w
    return w if w < R.ring(ft).w else 0


def _sext_of_narrow_negation(c: RewriteContext, q: str, w: int, narrow: int, negated: bool = False) -> str:
    """sext(−p) from q = sext(p) of an n-bit payload p: −q, except q at p = −2^(n−1) (φ(−0), its own narrow
    negation); ``negated``: its negation, q except −q there."""
    t, n = c.fresh(BITS_KIND[w]), c.fresh(BITS_KIND[w])
    p = c.fresh("pred")
    c.emit(f"neg.s{w} {t}, {q}")
    c.emit(f"setp.eq.s{w} {p}, {q}, {hexc((-(1 << (narrow - 1))) % (1 << w), w)}")
    c.emit(f"selp.b{w} {n}, {t if negated else q}, {q if negated else t}, {p}")
    return n


def _narrow_negation(instr: ir.Instruction, ctx: RewriteContext, flow: Flow, ft: str, wide: list[int],
                     decided: Decision) -> FoldResult | None:
    """``add d, a, cvt(h)`` where the source says ``a - (-h)`` (held-out seed 701: ``a - (h * -1.0)``, h
    bf16): Triton's ``φ(a) − sext(−φ_h(h))``. The widened payload q = sext(p) gives sext(−p) as −q, except
    at p = −2^(n−1) (φ(-0), its own narrow negation), where it is q. An ``fma d, a, b, cvt(h)`` is ``a * b - (-h)``
    contracted (held-out seed 81248: ``x / 3.0 - (-h)`` of a bf16 h, silent at h = −0.0)."""
    if decided.form == "beside" and len(wide) != 2:
        return None  # (a loaded value beside an explicit widening: of the op's type unless the PTX widens it too)
    if instr.opcode in ("fma", "mad"):
        return _narrow_negated_addend(instr, ctx, flow, ft, decided)
    if instr.opcode == "sub":
        if 2 not in wide:
            return None  # the fold puts the negated operand second
        i = 2
    elif len(wide) != 1:
        return None  # a + h of two widened halves: which one the source negated is not told apart
    else:
        i = wide[0]
    narrow = _widened(flow, instr.operands[i], ft)
    w = R.ring(ft).w
    add = instr.opcode == "add"

    def compute(c: RewriteContext, ps: list[str], _w: int, _i: ir.Instruction) -> str:
        n = _sext_of_narrow_negation(c, as_reg(c, ps[i - 1], w), w, narrow)
        o = c.fresh(BITS_KIND[w])
        other = as_reg(c, ps[2 - i], w)
        c.emit(f"{'sub' if add else 'add'}.s{w} {o}, {other}, {n}")  # a − sext(−p), a + sext(−p)
        return o
    if not elementwise(instr, ctx, OpInfo(ft, None), compute, 2):
        return None
    return FoldResult(True, Verdict(f"{_NARROW_NEG}; sanitized so, decided by the source at {decided.where}", NOTE,
                                    native=False))


NEGATION_FOLDED = ("the source adds a narrow negation LLVM folded into this op (a + (-h) as a - h): negated in h's "
                   "ring, then sign-extended, as Triton's FPSan")


def widened_negated_operand(instr: ir.Instruction, ctx: RewriteContext, flow: Flow, ft: str,
                            wide: int) -> tuple[int, int] | None:
    """The H fold's ``add``/``sub`` of ``ft`` that Triton computes at ``wide`` bits, where the source's op adds a narrow
    negation LLVM folded into it (``((-h).to(f64) + y).to(f32)`` of a bf16 h as ``sub.f32 y, cvt(h)``; held-out-style
    kin of seed 116414, silent at h = −0.0): the operand (1 or 2) and the width of the payload Triton negates before
    sign-extending it (the cvt's source, or the operand's own); None where the source does not say so, or the PTX
    does not tell which operand it is (an add of two plain or two widened operands: reported)."""
    ops, negated = instr.operands, list[str]()
    if instr.opcode not in ("add", "sub") or len(ops) != 3 or (
            decided := flow.hints.narrow_negation(instr, wide, True, negated)) is None:
        return None
    loads = [operand_load(flow, o) for o in ops[1:]]  # (two loads: the one the source negates, by its name)
    if instr.opcode == "sub":
        i = 2
    elif len(one := [k for k in (1, 2) if _widened(flow, ops[k], ft)]) == 1:
        i = one[0]
    elif len(set(negated)) == 1 and negated[0] and loads.count(negated[0]) == 1:
        i = loads.index(negated[0]) + 1
    else:
        ctx.report(instr, f"{instr.opcode}.{ft} where the source at {decided.where} subtracts a narrow negation: LLVM "
                   "folded it into this add of two operands the PTX does not tell apart; Triton's FPSan negates in the "
                   "narrow ring before sign-extending, which differs at φ(−0) = −2^(w−1) (its own negation); "
                   "sanitized as written", ERROR, False)
        return None
    return i, _widened(flow, ops[i], ft) or R.ring(ft).w


def negated_operand_op(c: RewriteContext, o: str, wide: list[str], neg: tuple[int, int], w: int, op: str) -> str:
    """The ``w``-bit ring op (``add.sW``/``sub.sW``, the PTX's) into ``o`` of the widened operands ``wide`` where
    operand ``neg[0]`` is the sign extension of a ``neg[1]``-bit payload whose negation the source adds: the PTX's
    sub is Triton's a + sext(−p), its add Triton's a − sext(−p)."""
    i, narrow = neg
    n = _sext_of_narrow_negation(c, wide[i - 1], w, narrow)
    return f"{'add' if op.startswith('sub') else 'sub'}.s{w} {o}, {wide[2 - i]}, {n}"


def _narrow_negated_addend(instr: ir.Instruction, ctx: RewriteContext, flow: Flow, ft: str,
                           decided: Decision) -> FoldResult | None:
    """``fma d, a, b, cvt(h)`` of the source's ``a * b - (-h)``: the ring product less sext(−φ_h(h))."""
    narrow = _widened(flow, instr.operands[3], ft)
    w = R.ring(ft).w

    def compute(c: RewriteContext, ps: list[str], _w: int, _i: ir.Instruction) -> str:
        n = _sext_of_narrow_negation(c, as_reg(c, ps[2], w), w, narrow)
        p, o = c.fresh(BITS_KIND[w]), c.fresh(BITS_KIND[w])
        c.emit(f"mul.lo.s{w} {p}, {as_reg(c, ps[0], w)}, {as_reg(c, ps[1], w)}")
        c.emit(f"sub.s{w} {o}, {p}, {n}")
        return o
    if not elementwise(instr, ctx, OpInfo(ft, None), compute, 3):
        return None
    return FoldResult(True, Verdict(f"{_NARROW_NEG}; an fma's addend, sanitized so, decided by the source at "
                                    f"{decided.where}", NOTE, native=False))


def _float_value(o: ir.Operand) -> float:
    assert isinstance(o, ir.FloatImm)
    return float(struct.unpack("<f" if o.width == 32 else "<d", o.bits.to_bytes(o.width // 8, "little"))[0])


def _widened_times_negative(flow: Flow, ops: tuple[ir.Operand, ...], ft: str) -> int | None:
    """The operand index (1 or 2) of a multiplicand widened from a narrower float whose other multiplicand is a
    negative immediate or a negation, else None."""
    for k in (1, 2):
        c = ops[3 - k]
        if not _widened(flow, ops[k], ft) and _nested_widened(flow, ops[k], ft) is None:
            continue
        if isinstance(c, ir.FloatImm) and c.bits >> (c.width - 1) and _float_value(c) < 0:
            return k
        if isinstance(c, ir.Reg) and (n := flow.only_def(c.name)) is not None and n.opcode == "neg":
            return k
    return None


def _nested_widened(flow: Flow, o: ir.Operand, ft: str) -> tuple[ir.Instruction, int, int] | None:
    """(the ``mul``, the index of its widened operand, the narrow width) where ``o``'s one definition is a product
    of a value widened from a narrower float (``h.to(f32) * (1/3)`` of the source's ``(-h) / 3.0``)."""
    m = flow.only_def(o.name) if isinstance(o, ir.Reg) else None
    if m is None or m.opcode != "mul" or m.guard is not None or len(m.operands) != 3 or float_type_of(m) != ft:
        return None
    j = next((j for j in (1, 2) if _widened(flow, m.operands[j], ft)), None)
    return (m, j, _widened(flow, m.operands[j], ft)) if j is not None else None


def _narrow_negation_times(c: RewriteContext, prod: ir.Instruction, j: int, narrow: int, ft: str,
                           negated: bool = False) -> str:
    """sext(−φ_h(h))·φ(c') of ``prod = mul q, c'`` with q (operand ``j``) widened from a ``narrow``-bit h (``negated``:
    the negation of that product, :func:`_sext_of_narrow_negation`)."""
    w = R.ring(ft).w
    q = as_reg(c, c.embed(prod.operands[j], ft), w)
    o = c.fresh(BITS_KIND[w])
    c.emit(f"mul.lo.s{w} {o}, {_sext_of_narrow_negation(c, q, w, narrow, negated=negated)}, "
           f"{as_reg(c, c.embed(prod.operands[3 - j], ft), w)}")
    return o


def _negated_factor_source(instr: ir.Instruction, flow: Flow, ft: str, other: ir.Operand) -> Decision | None:
    """The source's ``(-h).to(T) * c`` (or ``(-h) * y``, h narrower) at the product's location, or at the location
    of the negation LLVM moved onto the other factor; ``(-h) / c`` at the location of the product LLVM made of the
    factor (:func:`_nested_widened`: held-out seed 194845's kin, ``exp(y) * ((-h) / 3.0) + y`` as fma(-exp(y), m, y),
    silent at h = −0)."""
    factor = instr.operands[2] if instr.operands[1] is other else instr.operands[1]
    if not _widened(flow, factor, ft) and (nested := _nested_widened(flow, factor, ft)) is not None:
        m, _, narrow = nested
        ok = all(flow.unchanged_between(o.name, m, instr) for o in m.operands[1:] if isinstance(o, ir.Reg))
        return flow.hints.negated_narrow_operand(m, narrow) if ok else None
    w = R.ring(ft).w
    if isinstance(other, ir.FloatImm):
        return flow.hints.negated_factor(instr, w, -_float_value(other))
    neg = flow.only_def(other.name) if isinstance(other, ir.Reg) else None
    own = flow.hints.negated_factor(instr, w, None)
    if own is not None or neg is None or _a_product_here(flow, instr):
        # a product of the source at the mul's own location that negates no narrow factor is the mul's (the
        # negation LLVM put on a factor came from around it, -(h.to(f64) * y)): the neg's location names another
        # product LLVM shared the neg with (held-out seed 68925 at x = −0: (-y) * ceil(..), whose -y is a load's)
        return own
    return flow.hints.negated_factor(neg, w, None)


def _a_product_here(flow: Flow, instr: ir.Instruction) -> bool:
    """A multiplication, or its negation (``-(a * b)``, whose location LLVM gives the product it negates a factor
    of), starts at ``instr``'s own location (a column, not LLVM's merged line)."""
    found = flow.hints.nodes(instr)
    loc = flow.hints.loc.get(id(instr))
    unnegated = (n.operand if isinstance(n, ast.UnaryOp) and isinstance(n.op, ast.USub) else n
                 for n in (found[1] if found is not None else []))
    return loc is not None and loc[2] != 0 and any(isinstance(m, ast.BinOp) and isinstance(m.op, ast.Mult)
                                                   for m in unnegated)


_NEG_FACTOR = ("x * -c (or x * -y) with x widened from a narrower h: LLVM's (-h).to(T) * c (or (-h) * y), the "
               "negation moved onto the other factor; Triton negates in h's ring, then widens, which differs where h "
               "is -0")


def _negated_factor(instr: ir.Instruction, ctx: RewriteContext, flow: Flow, ft: str, k: int,
                    decided: Decision) -> FoldResult | None:
    """``mul d, q, -c`` (or ``fma d, q, -c, a``) of q = cvt(h) where the source says ``(-h).to(T) * c`` (held-out
    seed 6041: a cumsum of ``(-x).to(f64) * 0.5`` of a half x, as fma(x, -0.5, acc)): Triton's sext(−φ_h(h))·φ(c).
    With φ(−c) = −φ(c) that is q'·φ(−c), where q' = q except at φ_h(−0) = −2^(n−1), its own narrow negation, where
    q' = −q. The same where LLVM negated the other factor instead (7005: ``(-h) * y + 1.0`` as fma(-y, h, 1.0))."""
    nested = None if _widened(flow, instr.operands[k], ft) else _nested_widened(flow, instr.operands[k], ft)
    narrow = nested[2] if nested is not None else _widened(flow, instr.operands[k], ft)
    w = R.ring(ft).w
    nsrc = len(instr.operands) - 1

    def compute(c: RewriteContext, ps: list[str], _w: int, _i: ir.Instruction) -> str:
        if nested is not None:  # the factor's product q·c' with q's narrow negation: −sext(−p)·φ(c')
            n = _narrow_negation_times(c, nested[0], nested[1], narrow, ft, negated=True)
        else:
            n = _sext_of_narrow_negation(c, as_reg(c, ps[k - 1], w), w, narrow, negated=True)
        o = c.fresh(BITS_KIND[w])
        m = as_reg(c, ps[2 - k], w)
        if nsrc == 3:
            c.emit(f"mad.lo.s{w} {o}, {n}, {m}, {as_reg(c, ps[2], w)}")
        else:
            c.emit(f"mul.lo.s{w} {o}, {n}, {m}")
        return o
    if not elementwise(instr, ctx, OpInfo(ft, None), compute, nsrc):
        return None
    return FoldResult(True, Verdict(f"{_NEG_FACTOR}; sanitized so, decided by the source at {decided.where}", NOTE,
                                    native=False))


def _read_as_other(flow: Flow, instr: ir.Instruction, narrow: str) -> bool:
    """A float conversion reads ``instr``'s result as another type of ``narrow``'s width: the source's narrowing
    the location names is a later cast (``r.to(bf16)`` of ``r = (-h.to(f64)).to(f16)``, held-out seed 33794:
    silent at −0), not the one this value went through."""
    d = instr.operands[0]
    return isinstance(d, ir.Reg) and any(
        (t := float_cast(u)) is not None and t[1] != narrow for u in flow.uses.get(d.name, []))


def _negated_widening_narrowed(instr: ir.Instruction, ctx: RewriteContext, flow: Flow, src: str,
                               decided: Decision) -> FoldResult | None:
    """The sign ``xor`` of x where the source narrows ``-x.to(W)`` (through a select of widened arms, form
    ``widened:W:T``; held-out seed 21794): Triton's ring narrowing of −sext(φ(x)), which is the narrow ring's
    negation except at x = −0 (φ = −2^(n−1), whose wide negation is no sign extension). None where the xor is
    packed or guarded, or x (a select's arm) is a conversion's result other than a float widening (whose ring
    sign extension composes with the source's), which the source form does not account for."""
    _, wide, narrow = decided.form.split(":")[:3]
    n = R.ring(narrow).w
    d = flow.only_def(src)
    arms = list(d.operands[1:3]) if d is not None and d.opcode == "selp" else [ir.Reg(src)]
    if (sign_xor_lanes(instr) != (n, n) or instr.guard is not None
            or not all(isinstance(a, ir.Reg) for a in arms)
            or not all(_exact_arm(flow, a) for a in arms if isinstance(a, ir.Reg))
            or _read_as_other(flow, instr, narrow)):
        return None
    w = R.ring(wide).w
    q = as_reg(ctx, cast_payload(ctx, ctx.embed(ir.Reg(src), narrow), narrow, wide), w)
    neg = ctx.fresh(BITS_KIND[w])
    ctx.emit(f"neg.s{w} {neg}, {q}")
    ctx.define(instr.operands[0], cast_payload(ctx, neg, wide, narrow), narrow, None)
    return FoldResult(True, Verdict(f"sign-bit xor of a value the source at {decided.where} widens to {wide}, "
                                    f"negates and narrows back to {narrow}: LLVM's narrow negation; sanitized as "
                                    "Triton's ring narrowing of the wide negation (it differs at −0)", NOTE,
                                    native=False))


def _exact_arm(flow: Flow, a: ir.Reg) -> bool:
    """``a`` is no conversion's result, or a float widening's (held-out seed 21794: an f16 arm widened to f32)."""
    x = flow.only_def(a.name)
    if x is None or x.opcode != "cvt":
        return True
    types = float_cast(x)
    return types is not None and R.ring(types[0]).w > R.ring(types[1]).w


def triton_cast_folds(st: str, steps: tuple[str, ...]) -> tuple[str, ...]:
    """``steps`` (float types and ``neg``, from an ``st`` value) less each widening that a narrowing below it reads:
    Triton's pipeline folds ``truncf(extf(a))`` to ``truncf(a)`` (or to a) before FPSan sees it (held-out seeds
    3218, 21785, 22248: ``(-log(x)).to(f64).to(bf16)`` narrows the f32 ring value). Where a is narrower than the
    narrowing's type both give the sign extension, so the fold is taken whatever the widths."""
    out: list[str] = []
    cur = st
    for i, step in enumerate(steps):
        nxt = steps[i + 1] if i + 1 < len(steps) else "neg"
        if (step != "neg" and nxt != "neg" and R.ring(step).w > R.ring(cur).w
                and R.ring(step).w > R.ring(nxt).w):
            continue
        out.append(step)
        cur = step if step != "neg" else cur
    return tuple(out)


def _fused(cvt: ir.Instruction, flow: Flow) -> bool:
    """The cvt's operand is written once, by an unguarded ``fma`` of the cvt's source type."""
    types = float_cast(cvt, packed=True)
    src = cvt.operands[1] if len(cvt.operands) == 2 else None
    d = flow.only_def(src.name) if isinstance(src, ir.Reg) else None
    return (types is not None and d is not None and d.opcode == "fma" and d.guard is None
            and types[1] in d.mods)


def _neg_cast_hint(flow: Flow, cvt: ir.Instruction, dest: str, source: str) -> Decision | None:
    """The source's J form at ``cvt``; its ``(-x).to(T)`` is ``after`` where the cvt converts a negation the PTX still
    has (held-out seed 24259, silent at −0: ``-(-x).to(f64)``, whose inner negation is the xor before the cvt and the
    outer one the xor after it)."""
    decided = flow.hints.neg_cast(cvt, dest, source, _fused(cvt, flow))
    x = cvt.operands[1] if len(cvt.operands) == 2 else None
    d = flow.only_def(x.name) if isinstance(x, ir.Reg) else None
    if decided is not None and decided.form == "before" and d is not None and x is not None and (
            sign_xor_width(d) or (d.opcode == "neg" and float_type_of(d) is not None)
            or (negation_upstream(flow, x) and flow.hints.cast_of_reduction(cvt, dest))):
        # (also a reduction's negated elements before its tree: held-out seed 199925, -(s.to(bf16)) of s = tl.min(-x))
        return Decision("after", f"{decided.where} (its negation is the one before the cvt)")
    if decided is not None and decided.form == "after" and isinstance(cvt.operands[0], ir.Reg):
        at = flow.hints.loc.get(id(cvt))
        negs = [u for u in flow.uses.get(cvt.operands[0].name, []) if u.opcode in ("neg", "xor")]
        if any(flow.hints.loc.get(id(r)) != at and flow.hints.reads_negated_cast(r, dest)
               for u in negs if isinstance(u.operands[0], ir.Reg) for r in flow.uses.get(u.operands[0].name, [])):
            return None  # one negation LLVM shares between both forms (held-out seed 137153, silent): undecided
    return decided


def extremum_of_negation_narrowed(instr: ir.Instruction, cvt: ir.Instruction, ctx: RewriteContext, flow: Flow,
                                  lanes: tuple[int, int]) -> FoldResult | None:
    """−|c| (a sign-bit ``or``) or |c| (``and``) of ``c = cvt.T.S x`` where the source narrows ``minimum(x, -x)``
    or ``maximum(x, -x)`` of an x of S (held-out seeds 24129: of an f64 x stored as bf16, LLVM sets the sign after
    the narrowing; 27966, silent: ``maximum(-x, x)`` of an f32 x stored as f16): Triton's ring min/max of φ(x) and
    −φ(x) at S (±0 stay themselves), then the ring narrowing. None where the source does not say so — also where
    its extremum takes values already narrowed (``minimum(-x.to(f16), x.to(f16))``: the ring op at T, after the
    cast, was silent here before)."""
    types = float_cast(cvt)
    x = cvt.operands[1] if len(cvt.operands) == 2 else None
    if types is None or lanes[0] != lanes[1] or not isinstance(x, ir.Reg) or instr.guard is not None:
        return None
    dt, st = types
    w = R.ring(st).w
    if R.ring(dt).w >= w or not flow.unchanged_between(x.name, cvt, instr):
        return None
    d = instr.operands[0]
    op, decided = ("min", flow.hints.neg_abs(instr, w)) if instr.opcode == "or" else ("max", flow.hints.abs_of_max(
        instr, w, flow.uses.get(d.name, []) if isinstance(d, ir.Reg) else []))
    if decided is None or decided.form != op:
        return None
    p = as_reg(ctx, ctx.embed(x, st), w)
    n, m = ctx.fresh(BITS_KIND[w]), ctx.fresh(BITS_KIND[w])
    ctx.emit(f"neg.s{w} {n}, {p}")
    ctx.emit(f"{op}.s{w} {m}, {p}, {n}")
    ctx.define(instr.operands[0], cast_payload(ctx, m, st, dt), dt, None)
    bit = "or" if op == "min" else "and"
    return FoldResult(True, Verdict(f"sign-bit {bit} of a {dt} conversion where the source at {decided.where} narrows "
                                    f"a {op}imum of x and -x of {st}: LLVM {'sets' if op == 'min' else 'clears'} the "
                                    f"sign after narrowing; sanitized as Triton's ring {op} at {st}, then the ring "
                                    "narrowing", NOTE, native=False))


def negated_widened_product(instr: ir.Instruction, ctx: RewriteContext, flow: Flow, ft: str) -> FoldResult | None:
    """``neg d, m`` of ``m = mul q, c`` with q widened from a narrow h, where the source at the mul is ``(-h) / c``
    or ``(-h) * c`` (held-out seed 194845, silent at h = −0: ``(-x0) / 3.0`` of an f16 x0 as ``x0.to(f32) * (1/3)``,
    negated after): Triton's sext(−φ_h(h))·φ(c), the product of the narrow negation (:func:`_sext_of_narrow_negation`)
    and the other factor's payload."""
    nested = _nested_widened(flow, instr.operands[1], ft) if len(instr.operands) == 2 and instr.guard is None \
        and ft in ("f32", "f64") else None
    if nested is None:
        return None
    m, k, narrow = nested
    if not all(flow.unchanged_between(o.name, m, instr) for o in m.operands[1:] if isinstance(o, ir.Reg)):
        return None
    decided = flow.hints.negated_narrow_operand(m, narrow)
    if decided is None:
        return None
    ctx.define(instr.operands[0], _narrow_negation_times(ctx, m, k, narrow, ft), ft, None)
    return FoldResult(True, Verdict(f"negation of a product of a value widened from {narrow} bits, where the source at "
                                    f"{decided.where} negates the narrow value: LLVM moved the negation past the "
                                    "widening and the product; sanitized as Triton's narrow negation, widened, times "
                                    "the other factor", NOTE, native=False))


# what a scan's or reduction's tree combines its elements with (and moves between lanes, or widens them)
_TREE_OPS = ("mov", "selp", "shfl", "add", "mul", "max", "min", "cvt")


def negation_upstream(flow: Flow, x: ir.Operand) -> bool:
    """A ``neg`` or sign ``xor`` reaches ``x`` through a scan's or reduction's tree: the cvt narrows the combination of
    the negations, which stay in the PTX (held-out seed 187076's kin, silent: ``y - tl.cumsum(-x).to(f16)``, the
    rows after the first a ``sub`` of a cvt of the scan of the negated elements). A shared-memory load reaches every
    value the function stores there (held-out seed 157179: ``tl.max(-x.to(f64))`` across warps, the negation before
    the exchange)."""
    todo: list[ir.Operand] = [x]
    seen: set[str] = set()
    stored = False  # the shared-memory stores' values, followed once
    while todo and len(seen) < 256:
        o = todo.pop()
        if not isinstance(o, ir.Reg) or o.name in seen:
            continue
        seen.add(o.name)
        for d in flow.defs.get(o.name, []):
            if d.opcode == "neg" or sign_xor_width(d):
                return True
            if d.opcode in _TREE_OPS:
                todo.extend(d.operands[1:])
            elif d.opcode == "ld" and "shared" in d.mods and not stored:
                stored = True
                todo.extend(v for st in flow.order if st.opcode == "st" and "shared" in st.mods
                            for a in st.operands[1:] for v in (a.items if isinstance(a, ir.Vec) else (a,)))
    return False
