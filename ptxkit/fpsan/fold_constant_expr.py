"""A constant LLVM folded from a source expression of constants that Triton's FPSan computes in part in the ring
(issue 10; statement seed 2147, silent: ``tl.minimum(c.to(tl.float16), c.to(tl.float32))`` of ``c = 0.79788`` is
``mov.b32 r, 0f3F4C4000``). MLIR folds constant arithmetic and exact casts, but not an inexact cast: from there on
Triton's FPSan computes the rest per element in the ring (the min of the sign-extended ring narrowing and φ(c)), which
the IEEE constant is not. The largest constant parts of the source at the mov's readers whose native value is the
immediate give the ring's bits (:mod:`source_ring_eval`; docs/fpsan.md §2).

Likewise a float immediate of an arithmetic instruction (statement seed 5461, silent: ``v0 = _h(..)``
returning ``0.25 * C`` of ``C = 1e-6``, then ``(x0 + x0) - (4.0 + v0.to(tl.float16))`` is ``add.f32 r, s,
0fC0800000``). MLIR folds the constant arithmetic and exact casts; the inexact ``v0.to(f16)`` it leaves, so Triton's
FPSan adds φ(4.0) to the ring narrowing, sign-extends the sum to f32 and subtracts it: LLVM's −4.0 is not that
value. The largest constant parts of the source at the instruction's location whose native value (at the
instruction's type, negated where LLVM made the subtraction an add) is the immediate give the ring's bits
(docs/fpsan.md §2: a widening sign-extends, a difference is E(a) − E(b)); the instruction is then the ring op on
them (PTX ISA §9.7.3)."""

from __future__ import annotations

import ast

import numpy as np

from ptxkit import ir
from ptxkit.fpsan import ring as R
from ptxkit.fpsan.ctx import RewriteContext, float_to_bits, guard_text, hexc
from ptxkit.fpsan.fold_flow import Flow, FoldResult
from ptxkit.fpsan.fold_fma_product import rewrite_as
from ptxkit.fpsan.fold_named_literal import _positions
from ptxkit.fpsan.fold_select_expr import LoadedTypes
from ptxkit.fpsan.ops import float_type_of
from ptxkit.fpsan.options import Options
from ptxkit.fpsan.report import ERROR, NOTE, Verdict
from ptxkit.fpsan.source_ast import SourceFile, _method_call
from ptxkit.fpsan.source_inline import current_sites
from ptxkit.fpsan.source_mlir_fold import rounded
from ptxkit.fpsan.source_ring_eval import Value, _typed, constant_parts


def constant_expression(instr: ir.Instruction, ctx: RewriteContext, flow: Flow) -> FoldResult | None:
    """``mov.bN r, imm`` whose every reader sits at source (a store: its value) with a largest constant part of
    width N, computed in part by the ring, whose native value is ``imm``, all of one ring value: the mov of those bits;
    None otherwise."""
    ops = instr.operands
    width = next((int(m[1:]) for m in instr.mods if m[0] == "b" and m[1:].isdigit()), 0)
    if (instr.opcode != "mov" or len(ops) != 2 or not isinstance(ops[0], ir.Reg) or instr.guard is not None
            or not isinstance(ops[1], (ir.Imm, ir.FloatImm)) or width not in (16, 32, 64)
            or flow.only_def(ops[0].name) is not instr):
        return None
    imm = ops[1].bits if isinstance(ops[1], ir.FloatImm) else ops[1].value % (1 << width)
    readers = flow.uses.get(ops[0].name, [])
    if any(r.span is not None and r.span.line in flow.ranges for r in [instr, *readers]):
        return None  # (a recognised libdevice body's own constant)
    found: set[int] = set()
    where = ""
    covers: set[tuple[str, int, int]] = set()
    memo: dict[int, Value | None] = {}  # (a lane's copies of one source expression: evaluated once)
    types = LoadedTypes(flow)
    for reader in readers:
        at = flow.hints.nodes(reader) if reader.opcode == "st" else flow.hints.nodes_or_line(reader)
        if at is None:
            return None
        f, nodes = at
        roots = [n.args[1] for n in nodes if _method_call(n, "store", 2)] if reader.opcode == "st" else nodes
        parts = [(e, v) for r in roots for e, v in constant_parts(f, r, memo=memo, types=types)
                 if v.ring and R.ring(v.t).w == width and float_to_bits(v.native, v.t) == imm]
        if not parts:
            return None  # (a reader of no such part: the constant may be another value's too)
        found |= {v.bits for _, v in parts}
        where = where or f.where(parts[0][0])
        if not flow.hints.helper_calls(reader):  # (a helper's copy: the others may not be this one's, 5389)
            covers |= _positions(f, [e for e, _ in parts])
    if len(found) != 1 or (bits := found.pop()) == imm:
        return None
    if (ft := ctx.resident.get(ops[0].name)) is not None:  # (a register that holds its payload: φ of the bits)
        if ft not in ("f16", "bf16", "f32", "f64") or R.ring(ft).w != width:
            return None
        bits = R.embed_int(bits, ft)
    ctx.emit(f"{guard_text(instr.guard)}mov.b{width} {ctx.text(ops[0])}, {hexc(bits, width)}")
    return FoldResult(True, Verdict(
        f"constant LLVM folded from the constant expression at {where}, which Triton's FPSan computes in the ring from "
        "its first inexact cast on (or from a where of literals); sanitized with the ring's bits", NOTE, native=False,
        covers=frozenset(covers)), moves=True)


_OPS = ("add", "sub", "mul", "fma", "min", "max")
_SCALARS = ("f16", "bf16", "f32", "f64")


def constant_operand(instr: ir.Instruction, ctx: RewriteContext, opts: Options, flow: Flow) -> FoldResult | None:
    """``instr`` (an add/sub/mul/fma/min/max of a scalar float type with one float immediate) rewritten with the ring's
    bits of the constant the source computes there; None where no ring-computed part of the source at its location
    is the immediate, or the parts disagree."""
    ft = float_type_of(instr)
    ops = instr.operands
    imms = [i for i, o in enumerate(ops) if i and isinstance(o, ir.FloatImm)]
    if instr.opcode not in _OPS or ft not in _SCALARS or len(imms) != 1 or instr.guard is not None:
        return None
    k = imms[0]
    imm = ops[k]
    assert isinstance(imm, ir.FloatImm)
    w = R.ring(ft).w
    if imm.width != (64 if ft == "f64" else 32) and imm.width != w:
        return None
    at = flow.hints.nodes_or_line(instr)
    if at is None or (instr.span is not None and instr.span.line in flow.ranges):
        return None  # (no source; a recognised libdevice body's own constant)
    f, nodes = at
    # the immediate at the instruction's type (PTX writes an f16/bf16 immediate as the f32 of its value)
    value = _imm_value(imm, ft)
    if value is None:
        return None
    bare = {float_to_bits(value, ft)} | ({float_to_bits(-value, ft)} if instr.opcode in ("add", "sub") and k == 2
                                         else set())
    loaded = LoadedTypes(flow)
    found, parts, native = _ring_parts(f, nodes, ft, value, bare, loaded)
    if not found and not native and loaded.missed:
        # a load LLVM dropped (only a select it decided read it): each float type it may have had
        tries = [_ring_parts(f, nodes, ft, value, bare, loaded.assuming(t)) for t in ("f16", "bf16", "f32", "f64")]
        if any(n for _, _, n in tries):
            return None
        found = {b for fs, _, _ in tries for b in fs}
        parts = next((ps for _, ps, _ in tries if ps), [])
        if len(found) > 1:
            return rewrite_as(instr, instr.opcode, instr.mods, ops, ctx, opts, flow, lambda *_: None, Verdict(
                f"constant LLVM folded from the constant expression at {f.where(parts[0])}, which Triton's FPSan "
                "computes in the ring from its first inexact cast (or fma of constants) on, at the type of "
                f"{', '.join(sorted(loaded.missed))}, whose load LLVM dropped: the PTX does not give it; sanitized "
                "as written", ERROR, native=False))
    if native or len(found) != 1 or (bits := found.pop()) == float_to_bits(value, ft):
        return None
    if imm.width != w and np.isnan(_imm_value(ir.FloatImm(_as_wide(bits, ft), 32), ft) or 0.0):
        return None  # (a half's NaN payload through an f32 immediate: not kept by every reader of it)
    new = ir.FloatImm(bits, w) if imm.width == w else ir.FloatImm(_as_wide(bits, ft), imm.width)
    operands = tuple(new if i == k else o for i, o in enumerate(ops))
    note = Verdict(f"constant LLVM folded from the constant expression at {f.where(parts[0])}, which Triton's FPSan "
                   "computes in the ring from its first inexact cast (or fma of constants) on; sanitized with the "
                   "ring's bits", NOTE,
                   native=False, covers=frozenset(() if flow.hints.helper_calls(instr) else _positions(f, parts)))
    # (a helper inlined twice: its other copy may hold another constant, which the source's report still names:
    # statement seed 5389)
    return rewrite_as(instr, instr.opcode, instr.mods, operands, ctx, opts, flow, lambda *_: None, note)


def _ring_parts(f: SourceFile, nodes: list[ast.expr], ft: str, value: float, bare: set[int],
                types: LoadedTypes) -> tuple[set[int], list[ast.expr], bool]:
    """(the ring's bits, the parts giving them, whether a native part or a literal is the immediate too) of the
    largest constant parts of ``nodes`` whose native value at ``ft`` is the immediate (``bare``: its bits, and its
    negation's where LLVM made a subtraction an add)."""
    found: set[int] = set()
    parts: list[ast.expr] = []
    w = R.ring(ft).w
    native = False
    for root in nodes:
        for e, v in _parts_of(f, root, types):
            if not v.t or R.ring(v.t).w > w:
                continue
            with np.errstate(all="ignore"):
                typed = _typed(v, ft)
            if float_to_bits(typed.native, ft) not in bare:
                continue
            if not v.ring:
                native = True
            elif float_to_bits(typed.native, ft) == float_to_bits(value, ft):
                found.add(typed.bits)
                parts.append(e)
            else:  # x - c written by LLVM as x + (-c): E(x) − E(c) is the ring add of φ⁻¹(−E(c))
                found.add(int(R.unembed(R.neg(R.embed(np.array([typed.bits], np.uint64), ft), w), ft)[0]))
                parts.append(e)
    inside = {id(n) for p in parts for n in ast.walk(p)}
    literals = [float(c) for root in nodes for n in ast.walk(root)
                if isinstance(n, ast.Constant) and isinstance(c := n.value, (int, float)) and id(n) not in inside]
    return found, parts, native or any(float_to_bits(rounded(c, ft), ft) in bare for c in literals)


_PARTS: dict[int, tuple[LoadedTypes, dict[tuple, tuple[list[tuple[ast.expr, Value]], frozenset[str]]]]] = {}


def _parts_of(f: SourceFile, root: ast.expr, types: LoadedTypes) -> list[tuple[ast.expr, Value]]:
    """:func:`constant_parts` of ``root``, once per function rewrite (its lanes' copies share a location), helper call
    and type assumed of a dropped load (the names it asked ``types`` for and missed, recorded there)."""
    entry = _PARTS.get(id(types.flow))
    if entry is None or entry[0].flow is not types.flow:
        _PARTS.clear()  # (one function's at a time: the rewrite visits a function's instructions together)
        entry = _PARTS[id(types.flow)] = (types, {})
    key = (id(root), types.default, tuple(sorted((k, id(c)) for k, c in (current_sites() or {}).items())))
    if key not in entry[1]:
        before = set(types.missed)
        entry[1][key] = (constant_parts(f, root, types=types), frozenset(types.missed - before))
    got, missed = entry[1][key]
    types.missed |= missed
    return got


def _imm_value(imm: ir.FloatImm, ft: str) -> float | None:
    if imm.width == 64:
        return float(np.array([imm.bits], np.uint64).view(np.float64)[0])
    if imm.width == 32:
        return float(np.array([imm.bits], np.uint32).view(np.float32)[0])
    return None


def _as_wide(bits: int, ft: str) -> int:
    """The f32 immediate of a half's bits (its value widened exactly, NaN payloads kept by the shift)."""
    h = np.array([bits], np.uint16)
    x = h.view(np.float16) if ft == "f16" else None
    if x is not None:
        return int(x.astype(np.float32).view(np.uint32)[0])
    return bits << 16  # bf16: the high half of an f32
