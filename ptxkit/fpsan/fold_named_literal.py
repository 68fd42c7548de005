r"""A named float literal's casts that LLVM folded into a constant (issue 10; statement-level probe rp623, silent in
200/200): ``c = 0.79788; tl.store(p, c.to(tl.float16))``, ``eps = 1e-6; x + eps.to(tl.float16)``, ``tl.where(m, x,
lo.to(tl.float16))``, ``tl.full(s, eps, tl.float16)``. A name bound to a Python float is an fp32 scalar tensor (as is
``tl.full(s, v, tl.float32)``), so Triton casts it like a tensor. MLIR folds the casts of a constant that are exact
(every widening, a narrowing that loses nothing) and the arithmetic of such constants (in f32) before Triton's FPSan
pass; from the first inexact cast on, FPSan casts φ(c) in the ring (docs/fpsan.md §2 casts), which LLVM's folded
``mov.b16 r, 0x3A62`` of the IEEE casts does not give. The source at the store (or at the readers, or the where) says
which literal and which casts; where their IEEE result is the ``mov``'s (or the ``selp``'s) immediate — after the
``cvt``\ s LLVM left between the mov and a store, which are sanitized as the ring's casts — the immediate becomes the
float bits of the ring's casts up to its type."""

from __future__ import annotations

import ast
from dataclasses import replace

from ptxkit import ir
from ptxkit.fpsan import ring as R
from ptxkit.fpsan.ctx import RewriteContext, float_to_bits, guard_text, hexc
from ptxkit.fpsan.fold_flow import Flow, FoldResult, float_cast
from ptxkit.fpsan.fold_select_const import _ring_along, _rounded_along, rewrite_select_constants
from ptxkit.fpsan.report import NOTE, Verdict
from ptxkit.fpsan.source_ast import (
    _DEPTH,
    PTX_OF_DTYPE,
    SourceFile,
    _cast_to,
    _method_call,
    _number,
    _receiver,
    _resolve,
)
from ptxkit.fpsan.source_mlir_fold import folded_constant
from ptxkit.fpsan.source_numbers import scalar_value
from ptxkit.fpsan.source_walk import subexpressions

_BITS = {"f16": 16, "bf16": 16, "f32": 32, "f64": 64}
_CVTS = 3  # the conversions LLVM leaves between a folded constant and its store (Triton's f16 → bf16 asm: one)


def named_literal_constant(instr: ir.Instruction, ctx: RewriteContext, flow: Flow) -> FoldResult | None:
    """``mov.bN r, imm`` read only by stores (directly or through float ``cvt``\\ s) whose stored expression is
    ``NAME.to(T)…`` of a name bound to a float literal, or by arithmetic at whose location the source casts one, the
    IEEE casts giving ``imm``: the mov of the ring casts' bits instead; None otherwise."""
    ops = instr.operands
    width = next((int(m[1:]) for m in instr.mods if m[0] == "b" and m[1:].isdigit()), 0)
    if (instr.opcode != "mov" or len(ops) != 2 or not isinstance(ops[0], ir.Reg)
            or not isinstance(ops[1], (ir.Imm, ir.FloatImm)) or width not in (16, 32, 64)
            or flow.only_def(ops[0].name) is not instr):
        return None
    stores = _stores(flow, ops[0].name, _CVTS)
    imm = ops[1].bits if isinstance(ops[1], ir.FloatImm) else ops[1].value % (1 << width)
    found: set[tuple[int, str]] = set()
    covers: set[tuple[str, int, int]] = set()  # (the source the constant stands for: not folded away unseen)
    if not stores:  # read by arithmetic: the cast of a named literal written at the mov's location (eps = 1e-6;
        # x + eps.to(tl.float16) as add.f16 of mov.b16 0x0011; user-style probe, silent in every element)
        readers = flow.uses.get(ops[0].name, [])
        packed = width == 32 and imm >> 16 == imm & 0xFFFF and bool(readers) and all(
            any(m in ("f16x2", "bf16x2") for m in r.mods) for r in readers)  # ({eps, eps} of an add.f16x2)
        lane, lw = (imm & 0xFFFF, 16) if packed else (imm, width)
        for reader in readers:  # (LLVM hoists the mov: its readers' locations say)
            at = flow.hints.nodes_or_line(reader)
            if at is None:
                return None
            f, nodes = at
            casts = {(c, (bits << 16 | bits) if packed else bits) for n in nodes for c in subexpressions(f, n)
                     if (_cast_to(c) is not None or _method_call(c, "full", 3))
                     and (bits := _ring_bits(f, c, lane, lw, 0)) is not None}
            if not casts:
                return None  # (a reader without such a cast: the constant may be another value's too)
            found |= {(bits, f.where(c)) for c, bits in casts}
            covers |= _positions(f, [c for c, _ in casts])
        stores = []
    for st, after in stores:
        at = flow.hints.nodes(st)
        if at is None:
            return None
        f, nodes = at
        values = [n.args[1] for n in nodes if _method_call(n, "store", 2)]
        got = {bits for v in values if (bits := _ring_bits(f, v, imm, width, after)) is not None}
        if len(values) != 1 or len(got) != 1:
            return None
        found.add((got.pop(), f.where(values[0])))
        covers |= _positions(f, values)
    if len({b for b, _ in found}) != 1:
        return None
    bits, where = min(found)
    if bits == imm:
        return None
    if (ft := ctx.resident.get(ops[0].name)) is not None:  # (a register that holds its payload: φ of the bits)
        if ft not in ("f16", "bf16", "f32", "f64") or R.ring(ft).w != width:
            return None  # (a packed pair's payloads: not written here)
        bits = R.embed_int(bits, ft)
    ctx.emit(f"{guard_text(instr.guard)}mov.b{width} {ctx.text(ops[0])}, {hexc(bits, width)}")
    return FoldResult(True, Verdict(
        f"constant LLVM folded from the casts of a named float literal (or of constants MLIR folds) at {where}: the "
        "name is an fp32 scalar, whose casts Triton's FPSan takes in the ring from the first inexact one; sanitized "
        "with the ring casts' bits", NOTE, native=False, covers=frozenset(covers)), moves=True)


def _positions(f: SourceFile, roots: list[ast.expr]) -> set[tuple[str, int, int]]:
    """The positions of the expressions under ``roots`` (names followed)."""
    return {(f.name, n.lineno, n.col_offset) for r in roots for n in subexpressions(f, r)}


def _stores(flow: Flow, reg: str, depth: int) -> list[tuple[ir.Instruction, int]] | None:
    """Each store reading ``reg``, with the number of float ``cvt``\\ s between; None where another instruction reads
    it (or a cvt's result)."""
    readers = flow.uses.get(reg, [])
    if not readers or depth < 0:
        return None
    out: list[tuple[ir.Instruction, int]] = []
    for r in readers:
        if r.opcode == "st":
            out.append((r, 0))
            continue
        d = r.operands[0] if r.opcode == "cvt" and r.guard is None and float_cast(r) is not None else None
        more = _stores(flow, d.name, depth - 1) if isinstance(d, ir.Reg) and flow.only_def(d.name) is r else None
        if more is None:
            return None
        out += [(s, n + 1) for s, n in more]
    return out


def _ring_bits(f: SourceFile, e: ast.expr, imm: int, width: int, after: int) -> int | None:
    """The float bits of the ring casts of the named literal under ``e``'s float casts, all but the last ``after``
    (LLVM's ``cvt``\\ s left after the mov), where their IEEE value is ``imm``; else None."""
    path: list[str] = []
    for _ in range(_DEPTH):
        r = _resolve(f, e, _DEPTH)
        t = _cast_to(r) if r is not None else None
        if t is None or t not in PTX_OF_DTYPE:
            break
        assert r is not None
        path.append(PTX_OF_DTYPE[t])
        e = _receiver(r)
    full = _resolve(f, e, _DEPTH)
    if _method_call(full, "full", 3) and isinstance(dt := full.args[2], ast.Attribute) and dt.attr in PTX_OF_DTYPE \
            and _number(full.args[1]) is None:  # tl.full(shape, eps, tl.float16) of a named eps: the fp32 scalar
        path.append(PTX_OF_DTYPE[dt.attr])  # cast to the dtype (user-style probe, silent in every element)
        e = full.args[1]
    start, c = _base(f, e)
    if not path or start is None or c is None or after >= len(path):
        return None
    path = [start, *path[::-1]][:len(path) + 1 - after]
    if _BITS[path[-1]] != width or float_to_bits(_rounded_along(c, path), path[-1]) != imm:
        return None
    # MLIR folds a cast of a constant where it is exact, before Triton's FPSan: the ring's casts start at the first
    # inexact one
    v = _rounded_along(c, path[:1])
    for i in range(1, len(path)):
        if _rounded_along(v, path[i:i + 1]) != v:
            return _ring_along(v, path[i - 1:])
        v = _rounded_along(v, path[i:i + 1])
    return imm


def _base(f: SourceFile, e: ast.expr) -> tuple[str | None, float | None]:
    """The type and value of a constant tensor: an fp32 scalar (``scalar_value``), or ``tl.full(shape, v, tl.T)``;
    else (None, None)."""
    r = _resolve(f, e, _DEPTH)
    if (_method_call(r, "full", 3) and isinstance(r.args[2], ast.Attribute) and r.args[2].attr in PTX_OF_DTYPE
            and (v := _number(r.args[1])) is not None):
        return PTX_OF_DTYPE[r.args[2].attr], v
    got = scalar_value(f, e, _DEPTH)
    if got is not None and got[1]:
        return "f32", got[0]
    folded = folded_constant(f, e)  # (arithmetic and math of constants MLIR folds: statement seeds 3640, 3732)
    return folded if folded is not None else (None, None)


def constant_scalar(f: SourceFile, e: ast.expr) -> bool:
    """``e`` is an fp32 scalar constant MLIR folds (``scalar_value``), under float casts."""
    for _ in range(_DEPTH):
        r = _resolve(f, e, _DEPTH)
        if r is None or _cast_to(r) is None:
            break
        e = _receiver(r)
    got = scalar_value(f, e, _DEPTH)
    return got is not None and got[1]


def selected_named_literal(instr: ir.Instruction, ctx: RewriteContext, flow: Flow) -> FoldResult | None:
    """``selp.bN d, a, imm, p`` (either arm) at a ``tl.where`` whose arm is the cast of a named float literal, the
    IEEE casts giving ``imm`` (``lo = 0.1; tl.where(x > 0, x, lo.to(tl.float16))``: LLVM's selp.b16 of 0x2E66;
    user-style probe, silent): the select with the ring casts' bits; None otherwise."""
    ops = instr.operands
    width = next((int(m[1:]) for m in instr.mods if m[1:].isdigit()), 0)
    if instr.opcode != "selp" or len(ops) != 4 or width not in (16, 32, 64):
        return None
    imms = {i: (o.bits if isinstance(o, ir.FloatImm) else o.value % (1 << width)) for i in (1, 2)
            if isinstance(o := ops[i], (ir.Imm, ir.FloatImm))}
    at = flow.hints.nodes_or_line(instr) if imms else None
    if at is None:
        return None
    f, nodes = at
    wheres = {id(w): w for n in nodes for w in subexpressions(f, n) if _method_call(w, "where", 3)}.values()
    new: dict[int, int] = {}
    where = ""
    for i, imm in imms.items():
        got = {bits for w in wheres for a in w.args[1:3] if (bits := _ring_bits(f, a, imm, width, 0)) is not None}
        if len(got) != 1:
            return None
        new[i] = got.pop()
        where = f.where(next(iter(wheres)))
    if all(new[i] == imms[i] for i in new):
        return None
    sel = rewrite_select_constants(instr, ctx, new, {16: "f16", 64: "f64"}.get(width, "f32"), where)
    return replace(sel, verdict=Verdict(
        f"select of the cast of a named float literal at {where}: the name is an fp32 scalar, whose cast Triton's "
        "FPSan takes in the ring; sanitized with the ring cast's bits", NOTE, native=False))
