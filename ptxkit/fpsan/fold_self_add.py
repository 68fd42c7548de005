"""Fold K, ``add.fT t, x, x`` (issue 10; docs/fpsan.md §3 "Folds"): LLVM canonicalises ``x * 2.0`` into
``x + x``, so one instruction stands for ring φ(x)·φ(2) or 2φ(x). Where the source writes both forms on
one operand, LLVM's CSE makes them one instruction (held-out seeds 12159: ``where(x + x < floor(x), .., 2.0 * x)``,
13187, 13296: ``fma(t, 2.0 * x, x + x)``), and the location of the add names only one of them. The readers
still say which: each carries the location of the expression that reads the form (the ``.loc`` debugging
directive in force at it, PTX ISA "Debugging Directives"), whose operands name it.

:func:`plan` maps every reader of ``t`` to a form (per operand) from the source; one form for all gives the
add that form, two forms split it: ``t`` keeps one, a fresh register gets the other, and the readers of the
other read that register (:attr:`Plan.readers`, applied by :mod:`ptxkit.fpsan.rewrite`). A reader the source
does not place (a merged location, a body's native line when the forms differ) leaves the fold undecided.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass, field

from ptxkit import ir
from ptxkit.fpsan import ring as R
from ptxkit.fpsan.casts import _cast_payload as cast_payload
from ptxkit.fpsan.ctx import BITS_KIND, RewriteContext, float_to_bits, hexc
from ptxkit.fpsan.fold_flow import Flow, FoldResult, float_cast, fold_verdict, narrowing_def
from ptxkit.fpsan.irview import name_of
from ptxkit.fpsan.ops import LANE_TYPE, TABLE, OpInfo, as_reg, elementwise
from ptxkit.fpsan.options import Options
from ptxkit.fpsan.report import NOTE, Verdict
from ptxkit.fpsan.source_ast import (
    _DEPTH,
    _DTYPE_WIDTH,
    _PTX_DTYPE,
    OWN,
    Decision,
    SourceFile,
    _as_op,
    _is_two,
    _resolve,
    _same,
    _width,
)
from ptxkit.fpsan.source_hints import SourceHints
from ptxkit.fpsan.source_self_add import _self_add_forms

SELF_ADD = "add x, x: LLVM folds x*2.0 into x+x, so the source was x*2.0 (ring φ(x)·φ(2)) or x+x (ring 2φ(x))"
_CMP = {ast.Eq: "eq", ast.NotEq: "neu", ast.Lt: "lt", ast.LtE: "le", ast.Gt: "gt", ast.GtE: "ge"}
# ``A op B`` of one value: LLVM folds fcmp oeq/ole/oge t, t into ord (setp.num), une into uno (setp.nan)
_SELF_CMP = {"eq": "num", "le": "num", "ge": "num", "neu": "nan"}


@dataclass
class Plan:
    """The forms of one self-add: ``form`` for ``t``; with ``other``, a second register holding that form,
    which the operands in ``readers`` (id of a reader → its mods and operands, ``Reg("")`` for that register) read
    instead."""

    form: str
    where: str
    other: str | None = None
    readers: dict[int, tuple[tuple[str, ...], tuple[ir.Operand, ...]]] = field(default_factory=dict)


_BINOPS: dict[str, type[ast.operator]] = {"mul": ast.Mult, "sub": ast.Sub, "div": ast.Div}


def _form_of(f: SourceFile, e: ast.expr, x: str) -> str | None:
    """``add`` for ``x + x``, ``mul2`` for ``2 * x`` / ``x * 2`` of the operand ``x`` (an ``ast.dump``), through
    one-assignment names."""
    r = _resolve(f, e, _DEPTH)
    if not isinstance(r, ast.BinOp):
        return None
    op, left, right = _as_op(r)
    if op is ast.Add and ast.dump(_same(left)) == ast.dump(_same(right)) == x:  # (x + where(c, x, x): 136085)
        return "add"
    if isinstance(r.op, ast.Mult) and (_is_two(r.left) or _is_two(r.right)):
        return "mul2" if ast.dump(_same(r.right if _is_two(r.left) else r.left)) == x else None
    return None


def _operands(n: ast.expr) -> list[ast.expr]:
    """The sub-expressions an expression's own instruction reads: a call's arguments (and its receiver, ``E`` of
    ``E.to(T)``), an operator's operands."""
    if isinstance(n, ast.Call):
        own = [n.func.value] if isinstance(n.func, ast.Attribute) and not isinstance(n.func.value, ast.Name) else []
        return own + list(n.args) + [k.value for k in n.keywords]
    if isinstance(n, ast.BinOp):
        return [n.left, n.right]
    if isinstance(n, ast.Compare):
        return [n.left, *n.comparators]
    if isinstance(n, ast.UnaryOp):
        return [n.operand]
    return []


def narrowed_load(flow: Flow, x: ir.Operand, ft: str) -> str | None:
    """The float type W of a loaded value that ``add x, x``'s operand narrows (``cvt.rn.FT.W`` of a register only
    a load and a masked load's default move write): the source's uncast operand is of that type, not the add's."""
    found = narrowing_def(flow, x, ft)
    if found is None or not isinstance(found[0].operands[1], ir.Reg):
        return None
    src = [d.opcode for d in flow.defs.get(found[0].operands[1].name, [])]
    return found[2] if {"ld", "ldu"} & set(src) and set(src) <= {"ld", "ldu", "mov"} else None


def converted(flow: Flow, x: ir.Operand) -> str | None:
    """``narrowing`` or ``widening`` where ``add x, x``'s operand is written only by float conversions (``cvt.f32.bf16
    x, h``: an input's cast, never an inlined math body's result), all narrowing or not; else None."""
    ds = flow.defs.get(x.name, []) if isinstance(x, ir.Reg) else []
    casts = [float_cast(d) if d.opcode == "cvt" else None for d in ds]
    if not casts or None in casts:
        return None
    narrowing = all(c is not None and R.ring(c[0]).w < R.ring(c[1]).w for c in casts)
    return "narrowing" if narrowing else "widening"


def operand_load(flow: Flow, x: ir.Operand) -> str | None:
    """The name the source assigns the load that alone writes ``add x, x``'s operand, where the load and its
    masked default move all carry that ``tl.load``'s location, else None (LLVM may give a load of one tensor the
    location of the next load: held-out seed 108359)."""
    ds = flow.defs.get(x.name, []) if isinstance(x, ir.Reg) else []
    if not any(d.opcode in ("ld", "ldu") for d in ds) or any(d.opcode not in ("ld", "ldu", "mov") for d in ds):
        return None
    names = {flow.hints.loaded_name(d) for d in ds}
    return names.pop() if len(names) == 1 else None


def both_operand(hints: SourceHints, instr: ir.Instruction, lane: str) -> str | None:
    """The operand (an ``ast.dump``) of the self-add at ``instr``'s location when the file writes both forms
    on it and it is of the add's type; None otherwise."""
    found = hints.nodes(instr)
    loc = hints.loc.get(id(instr))
    if found is None or loc is None or loc[2] == 0:
        return None
    f, nodes = found
    xs: dict[str, ast.expr] = {}
    for n in nodes:
        if not isinstance(n, ast.BinOp):
            continue
        op, left, right = _as_op(n)
        x = left if op is ast.Add and ast.dump(left) == ast.dump(right) else (
            n.right if _is_two(n.left) else n.left) if isinstance(n.op, ast.Mult) and (
            _is_two(n.left) or _is_two(n.right)) else None
        if x is not None and _self_add_forms(f, ast.dump(_same(x))) == {"add", "mul2"}:
            xs[ast.dump(_same(x))] = x
    if len(xs) != 1:
        return None
    (dump, x), = xs.items()
    try:
        w = _width(f, x, _DEPTH)
    except (KeyError, IndexError, AttributeError, TypeError, ValueError, RecursionError):
        return None
    return dump if w in (OWN, _DTYPE_WIDTH.get(_PTX_DTYPE.get(lane, ""))) else None


def _reader_forms(hints: SourceHints, flow: Flow, u: ir.Instruction, t: str, x: str) -> list[str] | None:
    """The forms the reader ``u`` of ``t`` takes, in the order of its operands that are ``t``: the forms among the
    operands of the source expression at its location (the user's call for a body's native line), placed by
    position where there are both (a comparison of the two, an fma, a commutative op); None where the source
    does not say. A widening ``cvt`` takes its own readers' form too: where they read both, no one form is its
    (held-out seed 37743: ``(h + h) / 3.0 / (where(c, h, h) * 2.0)`` of bf16 h, one add widened once for both)."""
    own = _located_forms(hints, flow, u, t, x)
    types = float_cast(u) if u.opcode == "cvt" else None
    if types is None or R.ring(types[0]).w <= R.ring(types[1]).w or own is None:
        return own
    c = name_of(u.operands[0])
    through = {m for r in flow.uses.get(c, []) for m in (_located_forms(hints, flow, r, c, x) or [])}
    return own if through <= set(own) else None


def _located_forms(hints: SourceHints, flow: Flow, u: ir.Instruction, t: str, x: str) -> list[str] | None:
    """:func:`_reader_forms` at ``u``'s own location."""
    at = [i for i, o in enumerate(u.operands) if i > 0 and o == ir.Reg(t)]
    with hints.at_call_site(u):  # (a body's lines carry the user's call: inlined_at, or their own .loc)
        found, loc = hints.nodes(u), hints.loc.get(id(u))
        if found is None or loc is None or loc[2] == 0 or not at:
            return None
        f, nodes = found
        got: set[tuple[str, ...]] = set()
        for n, operands in _readings(flow, u, f, nodes):
            forms = [_form_of(f, e, x) for e in operands]
            kinds = {m for m in forms if m is not None}
            if len(kinds) == 1:
                got.add(tuple(kinds) * len(at))
            elif len(kinds) == 2 and (placed := _placed(u, at, n, forms)) is not None:
                got.add(placed)
    return list(got.pop()) if len(got) == 1 else None


def _readings(flow: Flow, u: ir.Instruction, f: SourceFile,
              nodes: list[ast.expr]) -> list[tuple[ast.expr, list[ast.expr]]]:
    """The expressions at a reader's location with the operands its instruction reads. An ``fma`` reader may
    also be LLVM's contraction of ``L + A * B`` (operands A, B, L); where the location holds both a ``tl.fma``
    call and such a sum, the addend tells them apart: an fma's result is the addend exactly where the source's
    addend is an fma or a contractible sum (held-out seed 43594: ``fma(|x|, x + x, x) + 2.0 * x * floor(x)``,
    two fmas at one location reading one add)."""
    out = [(n, _operands(n)) for n in nodes]
    if u.opcode == "neg":  # a - b * t contracted as fma(-t, b, a): the neg reads t as a factor of the subtrahend
        # (held-out seed 191166: (q - (x + x)) - c * (x * 2.0), one add for both forms)
        products: list[tuple[ast.expr, list[ast.expr]]] = [
            (n, [m.left, m.right]) for n in nodes if isinstance(n, ast.BinOp) and isinstance(n.op, ast.Sub)
            and isinstance(m := _resolve(f, n.right, _DEPTH), ast.BinOp) and isinstance(m.op, ast.Mult)]
        return products or out
    kind = _BINOPS.get(u.opcode)
    if kind is not None and any(isinstance(n, ast.BinOp) and isinstance(n.op, kind) for n in nodes):
        # the operator the reader is (held-out seed 43594's ``fma(x + x, y, x) * (2.0 * x)``: the mul, not the call)
        return [(n, ops) for n, ops in out if isinstance(n, ast.BinOp) and isinstance(n.op, kind)]
    if u.opcode not in ("fma", "mad") or len(u.operands) != 4:
        return out
    calls = [(n, ops) for n, ops in out if isinstance(n, ast.Call) and _contracted(f, n) and len(ops) == 3]
    contracted = [(n, m, other) for n in nodes if isinstance(n, ast.BinOp) and isinstance(n.op, ast.Add)
                  for m, other in ((n.right, n.left), (n.left, n.right))
                  if isinstance(m, ast.BinOp) and isinstance(m.op, ast.Mult)]
    sums: list[tuple[ast.expr, list[ast.expr]]] = [(n, [m.left, m.right, other]) for n, m, other in contracted]
    addend = u.operands[3]
    kinds = {d.opcode in ("fma", "mad") for d in flow.defs.get(addend.name, [])} if isinstance(
        addend, ir.Reg) else {False}  # (a masked load's register: the load and the default's mov)
    fit = [(n, ops) for n, ops in calls + sums if len(kinds) == 1 and _contracted(f, ops[2]) in kinds]
    # the fma is one of those: a call, or a contracted sum reading the product's operands (a product read
    # differently from the call leaves the reader unplaced)
    if not calls and not sums:
        return out
    return calls + sums if len(calls) + len(sums) < 2 or len(fit) != 1 else fit


def _contracted(f: SourceFile, e: ast.expr) -> bool:
    """``e`` is a ``tl.fma`` call or a sum with a product operand, which LLVM writes as one fma."""
    r = _resolve(f, e, _DEPTH)
    if isinstance(r, ast.Call):
        return isinstance(r.func, ast.Attribute) and r.func.attr == "fma"
    return isinstance(r, ast.BinOp) and isinstance(r.op, ast.Add) and any(
        isinstance(m, ast.BinOp) and isinstance(m.op, ast.Mult) for m in (r.left, r.right))


def written_doubling_sum(flow: Flow, instr: ir.Instruction) -> bool:
    """The source at ``fma d, x, 2.0, p``'s location is a sum with a ``2.0 * y`` operand of a y that is no doubling
    itself: the fma is that product contracted with its addend, ring φ(x)·φ(2) + φ(p), not LLVM's ``p + p`` of
    p = x * 2.0 (held-out seed 60500: ``2.0 * x + (x + x)``, the add read as p; seed 4209's ``2.0 * (x * 2.0)``
    is a product at the fma's location)."""
    found = flow.hints.nodes(instr)
    if found is None:
        return False
    f, nodes = found

    def doubling(e: ast.expr | None) -> bool:
        r = _resolve(f, e, _DEPTH) if e is not None else None
        if not isinstance(r, ast.BinOp):
            return False
        op, left, right = _as_op(r)
        return (op is ast.Mult and (_is_two(left) or _is_two(right))) or (
            op is ast.Add and ast.dump(_same(left)) == ast.dump(_same(right)))
    for n in nodes:
        if isinstance(n, ast.BinOp) and isinstance(n.op, ast.Add):
            for m in (n.left, n.right):
                r = _resolve(f, m, _DEPTH)
                if isinstance(r, ast.BinOp) and doubling(r) and _as_op(r)[0] is ast.Mult:
                    y = r.right if _is_two(r.left) else r.left
                    if not doubling(y):
                        return True
    return False


def _placed(u: ir.Instruction, at: list[int], n: ast.expr, forms: list[str | None]) -> tuple[str, ...] | None:
    """Both forms among the operands of ``n``: a comparison ``A op B`` of the two (LLVM's ``setp.num/nan t, t``),
    ``fma(a, b, c)`` (the product's operands commute, the addend does not; all three may be the add), a sum or
    product of the two."""
    if isinstance(n, ast.Compare) and len(n.ops) == 1 and u.opcode == "setp" and at == [1, 2]:
        cmp = _CMP.get(type(n.ops[0]))
        a, b = forms[0], forms[1]
        return (a, b) if a is not None and b is not None and cmp is not None and _SELF_CMP.get(cmp) in u.mods else None
    if (((isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "fma" and len(n.args) == 3)
            or (isinstance(n, ast.BinOp) and isinstance(n.op, ast.Add)))  # (a contracted sum: A, B, L)
            and u.opcode in ("fma", "mad") and len(forms) == 3):
        product = {m for m in forms[:2] if m is not None}
        if len(at) == 2 and at[1] == 3 and forms[2] is not None and len(product) == 1 and forms[2] not in product:
            return (product.pop(), forms[2])
        if at == [1, 2, 3] and None not in forms:  # fma(x + x, 2.0 * x, x + x): one add read thrice (seed 35136)
            return tuple(m for m in forms if m is not None)
        return ("add", "mul2") if at == [1, 2] and forms[2] is None else None
    if (isinstance(n, ast.BinOp) and isinstance(n.op, (ast.Add, ast.Mult)) and u.opcode == ("add" if isinstance(
            n.op, ast.Add) else "mul") and at == [1, 2]):
        return ("add", "mul2")
    if (isinstance(n, ast.BinOp) and isinstance(n.op, (ast.Sub, ast.Div)) and u.opcode == (
            "sub" if isinstance(n.op, ast.Sub) else "div") and at == [1, 2] and None not in forms):
        return tuple(m for m in forms if m is not None)  # (x + x) / (2.0 * x): by position (held-out seed 168925,
        # one add divided by itself)
    if (isinstance(n, ast.BinOp) and isinstance(n.op, ast.Sub) and u.opcode in ("fma", "mad") and at == [3]
            and forms[0] is not None and isinstance(n.right, ast.BinOp) and isinstance(n.right.op, ast.Mult)):
        return (forms[0],)  # (x + x) - 2.0 * x contracted: fma(x, -2.0, t), t the minuend
    return None


def plan(instr: ir.Instruction, flow: Flow, lane: str) -> Plan | None:
    """The forms of ``add.fT t, x, x`` from its readers (the module docstring), where the file writes both
    forms on its operand; None where a reader is not placed."""
    t = instr.operands[0]
    if (instr.guard is not None or not isinstance(t, ir.Reg) or lane not in instr.mods
            or len(flow.defs.get(t.name, [])) != 1 or (x := both_operand(flow.hints, instr, lane)) is None):
        return None
    readers = flow.uses.get(t.name, [])
    if not readers or any(flow.pos[id(u)] <= flow.pos[id(instr)] for u in readers):
        return None
    placed: list[tuple[ir.Instruction, list[str]]] = []
    for u in readers:
        forms = _reader_forms(flow.hints, flow, u, t.name, x)
        if forms is None:
            return None
        placed.append((u, forms))
    kinds = {m for _, forms in placed for m in forms}
    where = flow.hints.nodes(instr)
    site = where[0].where(where[1][0]) if where is not None and where[1] else "its readers' locations"
    if len(kinds) == 1:
        return Plan(kinds.pop(), site)
    # a body's native lines read t's float bits, and its ring op t's payload: t keeps the one form they all read
    # (held-out seed 15755: fma(-(x + 1.0), 2.0 * x, cos(x + x)) of f64)
    native = {m for u, forms in placed if u.span is not None and u.span.line in flow.native for m in forms}
    if len(native) > 1:
        return None
    keep = native.pop() if native else "add"
    other = "mul2" if keep == "add" else "add"
    p = Plan(keep, site, other=other)
    for u, forms in placed:
        if other not in forms:
            continue
        it = iter(forms)
        ops = tuple(ir.Reg("") if i > 0 and o == t and next(it) == other else o for i, o in enumerate(u.operands))
        mods = u.mods
        if u.opcode == "setp" and ("num" in u.mods or "nan" in u.mods):
            n = _compare_at(flow.hints, u)
            if n is None:
                return None
            mods = tuple(_CMP[type(n.ops[0])] if m in ("num", "nan") else m for m in u.mods)
        p.readers[id(u)] = (mods, ops)
    return p


def _compare_at(hints: SourceHints, u: ir.Instruction) -> ast.Compare | None:
    found = hints.nodes(u)
    cmps = [n for n in found[1] if isinstance(n, ast.Compare)] if found is not None else []
    return cmps[0] if len(cmps) == 1 else None


def _int_conversion(flow: Flow | None, add: ir.Instruction) -> ir.Instruction | None:
    """The unguarded ``cvt.rn.fT.{s,u}N x, i`` that alone writes the operand of ``add x, x`` (not packed)."""
    x = add.operands[1]
    d = flow.only_def(x.name) if flow is not None and isinstance(x, ir.Reg) and len(add.operands) == 3 else None
    ok = d is not None and d.opcode == "cvt" and d.guard is None and len(d.mods) == 3 and d.mods[0] == "rn"
    return d if ok and d is not None and d.mods[2][:1] in ("s", "u") and isinstance(d.operands[1], ir.Reg) else None


def _double(c: RewriteContext, base: str, o: str, x: str, wt: str) -> None:
    """``o`` = the ``wt`` ring's 2φ (``add``: x + x) or φ·φ(2.0) (``mul2``) of the payload ``x``."""
    w = R.ring(wt).w
    if base == "add":
        c.emit(f"add.s{w} {o}, {x}, {x}")
    else:
        c.emit(f"mul.lo.s{w} {o}, {x}, {hexc(R.embed_int(float_to_bits(2.0, wt), wt), w)}")


def _from_int(form: str, info: OpInfo, conversion: ir.Instruction) -> tuple[Callable[..., str], int]:
    """``OP-f64-int``: ``(2.0 * i.to(f64)).to(T)`` (or ``i.to(f64) + i.to(f64)``) that LLVM shrank to ``add.T x, x``
    of ``x = cvt.rn.T.sN i`` (the f64 exact): Triton's operand is the native i → f64 conversion, embedded, the op in
    the f64 ring, then its narrowing (held-out seed 169688, reported before)."""
    base = form.split("-")[0]

    def replay(c: RewriteContext, _ps: list[str], _w: int, _i: ir.Instruction) -> str:
        wide, o = c.fresh(BITS_KIND[64]), c.fresh(BITS_KIND[64])
        c.emit(f"cvt.rn.f64.{conversion.mods[2]} {wide}, {name_of(conversion.operands[1])}")
        _double(c, base, o, as_reg(c, c.embed(ir.Reg(wide), "f64"), 64), "f64")
        return cast_payload(c, o, "f64", info.ftype)
    return replay, 2


def _compute(form: str, info: OpInfo) -> tuple[Callable[..., str], int]:
    """The ring code of ``form`` on φ(x): ``add`` 2φ(x), ``mul2`` φ(x)·φ(2); ``OP-fW`` the op on the payload
    sign-extended to the wide type W, then Triton's narrowing ((2.0 * x.to(f64)).to(f32), seed 98)."""
    if "-" in form:
        base, wt, *via = form.split("-")  # (then a cast to via before the lane's: mul2-f32-f64, seed 47198)
        ww = R.ring(wt).w

        def widened(c: RewriteContext, ps: list[str], w: int, _i: ir.Instruction) -> str:
            x, o = c.fresh(BITS_KIND[ww]), c.fresh(BITS_KIND[ww])
            c.emit(f"cvt.s{ww}.s{w} {x}, {as_reg(c, ps[0], w)}")
            _double(c, base, o, x, wt)
            return cast_payload(c, cast_payload(c, o, wt, via[0]), via[0], info.ftype) if via else \
                cast_payload(c, o, wt, info.ftype)
        return widened, 2
    if form == "add":
        return TABLE["add"]
    two = R.embed_int(float_to_bits(2.0, info.ftype), info.ftype)

    def mul2(c: RewriteContext, ps: list[str], w: int, _i: ir.Instruction) -> str:
        o = c.fresh(BITS_KIND[w])
        c.emit(f"mul.lo.s{w} {o}, {as_reg(c, ps[0], w)}, {hexc(two, w)}")
        return o
    return mul2, 2


def self_add(instr: ir.Instruction, ctx: RewriteContext, opts: Options, ft: str, decided: Decision | None,
             split: Plan | None = None, flow: Flow | None = None) -> FoldResult:
    """K: ``add.fT t, x, x`` as the decided form (undecided: the PTX as written, 2φ(x), so sanitize stays a ring
    homomorphism of the text, as equiv's algebraic twins need; still an error, since Triton's x*2.0 gives
    φ(x)·φ(2)); with a split :class:`Plan`, also the other form into a fresh register its readers read."""
    if split is not None:  # t's form (the readers' one, or the one a body's lines read)
        decided = Decision(split.form, f"{split.where} (both forms in the file; its readers' locations)")
    form = opts.fold("self-add") or (decided.form if decided else "add")
    info = OpInfo(LANE_TYPE.get(ft, ft), ft if ft in LANE_TYPE else None)
    conversion = _int_conversion(flow, instr) if form.endswith("-int") else None
    if form.endswith("-int") and conversion is None:
        form, decided = "add", None  # (the PTX's operand is no conversion of an integer: undecided after all)
    compute, nsrc = _from_int(form, info, conversion) if conversion is not None else _compute(form, info)
    if not elementwise(instr, ctx, info, compute, nsrc):
        return FoldResult(False, Verdict("add: operand form not modelled"))
    if split is None or split.other is None or flow is None or opts.fold("self-add") is not None:
        return FoldResult(True, fold_verdict(opts, "self-add", SELF_ADD, form, decided))
    w = R.ring(info.ftype).w
    other = ctx.fresh(BITS_KIND[w])
    compute2, n2 = _compute(split.other, info)  # add x, x: the ring add reads x twice (held-out seed 33679 crashed)
    pays = [ctx.embed(o, info.ftype) for o in instr.operands[1:1 + n2]]
    ctx.define(other, compute2(ctx, pays, w, instr), info.ftype, None)
    for key, (mods, ops) in split.readers.items():
        flow.rewired[key] = (mods, tuple(ir.Reg(other) if o == ir.Reg("") else o for o in ops))
    flow.split[other] = name_of(instr.operands[0])
    return FoldResult(True, Verdict(f"{SELF_ADD}; the source at {split.where} writes both on one operand, which "
                                    f"LLVM made one add: sanitized as both, each reader taking the form its own "
                                    f"location's expression reads ({len(split.readers)} read {split.other})",
                                    NOTE, native=False))


def copies_decision(instr: ir.Instruction, flow: Flow, decide: Callable[[ir.Instruction], Decision | None]
                    ) -> Decision | None:
    """The one decision of ``instr``'s copies, for a self-add at a merged location (column 0 or line 0): the other
    ``add x, x`` of its type whose operand an instruction of the same kind and location as ``instr``'s operand's
    writes — the same source expression on another element, which kept its own location (held-out seed 40079:
    ``2.0 * (x + x)`` on four elements, the fourth outer add at 12:0, silent-free but undecided)."""
    loc = flow.hints.loc.get(id(instr))
    ops = instr.operands
    if loc is None or (loc[1] and loc[2]) or len(ops) != 3 or not isinstance(ops[1], ir.Reg):
        return None
    src = flow.only_def(ops[1].name)
    src_at = flow.hints.loc.get(id(src)) if src is not None else None
    if src is None or src_at is None or not src_at[1]:
        return None
    merged = not src_at[2]  # the operand's writer at a merged location too (held-out seed 48281: the widening of
    # the half in (2.0 * h.to(f64)).to(f32) on the later elements at 14:0): its copies on the line, every one agreeing

    def same_kind(d: ir.Instruction) -> bool:
        at = flow.hints.loc.get(id(d))
        return (d.opcode, d.mods) == (src.opcode, src.mods) and at is not None and (
            at == src_at or (merged and at[:2] == src_at[:2]))
    got: dict[str, Decision] = {}
    for u in flow.order:
        uo = u.operands
        if (u is instr or u.opcode != instr.opcode or u.mods != instr.mods or len(uo) != 3 or uo[1] != uo[2]
                or not isinstance(uo[1], ir.Reg) or (d := flow.only_def(uo[1].name)) is None or not same_kind(d)):
            continue
        ul = flow.hints.loc.get(id(u))
        if ul is not None and ul[1] and not ul[2] and merged:
            continue  # another copy at the merged location, like instr
        if ul is None or not (ul[1] and ul[2]) or (dec := decide(u)) is None:
            return None  # a copy the source does not decide either: no answer
        got.setdefault(dec.form, Decision(dec.form, f"{dec.where} (its copies on other elements)"))
    return next(iter(got.values())) if len(got) == 1 else None
