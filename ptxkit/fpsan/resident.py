"""Ring-resident registers: float registers that hold the payload φ(x) itself instead of x's float bits.

The rewrite keeps float bits in every user register and converts at each rewritten instruction (φ of
each source, φ⁻¹ of the result), dropping a φ⁻¹ only when a shadow payload serves every read within
one straight-line run (``ptxkit.fpsan.edits``). Values carried around a loop or packed into a wider
register (Triton's attention: ``ex2`` results packed into ``b64``, unpacked in the next iteration and
narrowed by ``cvt.rn.f16x2.f32``) cross runs, so each crossing pays φ⁻¹ at the definition and φ at the
read — hundreds of sequences ptxas must compile.

A register can hold its payload instead when nothing ever needs its float bits: every definition is a
rewritten ring op (``ctx.define``), a constant, or a move from another such register, and every read
is a ring read (``ctx.embed``) or a move into another such register. Registers linked by moves
(``mov``, ``selp``, and the lanes of a ``mov.bN`` pack/unpack, ISA §9.7.9.1 ``mov``) form one
component; a component is resident when no member is read or written any other way, its members
agree on one float type, their declared widths fit it, and it has at least one definition. Then the
rewritten definitions write the payload (one ``mov``), ring reads use the register as it is, and
constants are written as φ(constant): φ is a bijection, so every float value the program observes —
through stores, comparisons, calls, all of which stay outside resident components — is unchanged.

:func:`predict` guesses the set from opcodes before the rewrite; the rewrite records what it really
did (:class:`Touches`) and :func:`resident_set` gives the set those records allow; the driver reruns a
function whose prediction was not allowed (``ptxkit.fpsan_ptx``).
"""

from __future__ import annotations

from collections.abc import Iterable

import networkx as nx

from ptxkit import ir
from ptxkit.fpsan.ctx import RewriteContext, guard_text, hexc, operand_text
from ptxkit.fpsan.irview import regs
from ptxkit.fpsan.mma_plan import MmaNotModelled, plan
from ptxkit.fpsan.ops import LANE_TYPE, TABLE, float_type_of
from ptxkit.fpsan.ring import embed_int, ring
from ptxkit.fpsan.touches import SCALAR, Touches, declared_width, move_shape, record_move
from ptxkit.fpsan.wgmma import WgmmaForm
from ptxkit.ptx.types import FLOAT_TYPES

_PACKED_CVT = ("f16x2", "bf16x2")


def ring_shape(instr: ir.Instruction) -> tuple[list[tuple[str, str]], list[tuple[str, str]], list[str]] | None:
    """(ring reads, ring definitions, raw registers) of an instruction the rewrite handles through
    ``embed``/``define`` alone: unpacked arithmetic of ``ptxkit.fpsan.ops``, float ``cvt`` between
    scalar types, and the packing ``cvt.rn.{f16,bf16}x2.f32`` (its destination raw); None otherwise."""
    ops = instr.operands
    guard = [instr.guard.pred] if instr.guard is not None else []
    ft = float_type_of(instr) if instr.opcode in TABLE else None
    if (ft is not None and ft not in LANE_TYPE and len(ops) == TABLE[instr.opcode][1] + 1
            and isinstance(ops[0], ir.Reg) and all(isinstance(o, (ir.Reg, ir.FloatImm, ir.Imm)) for o in ops[1:])):
        return [(o.name, ft) for o in ops[1:] if isinstance(o, ir.Reg)], [(ops[0].name, ft)], guard
    if instr.opcode == "wgmma" and "mma_async" in instr.mods:
        try:
            f = WgmmaForm(instr)
        except MmaNotModelled:
            return None
        # the accumulators are C and D (ptxkit.fpsan.wgmma takes and returns their payloads)
        others = [r for o in ops[1:] for r in regs(o)]
        return [(r, "f32") for r in f.d_regs], [(r, "f32") for r in f.d_regs], others + guard
    if instr.opcode == "mma" and instr.mods[:1] == ("sync",):
        try:
            p = plan(instr)
        except MmaNotModelled:
            return None
        if p.acc16 or p.form.atype == "f64":
            return None
        # f32 C and D (the tile helper of ptxkit.fpsan.mma_calls takes and returns their payloads)
        return ([(r, "f32") for r in p.c_regs], [(r, "f32") for r in p.d_regs],
                [*p.a_regs, *p.b_regs, *guard])
    if instr.opcode != "cvt" or not all(isinstance(o, ir.Reg) for o in ops):
        return None
    names = [o.name for o in ops if isinstance(o, ir.Reg)]
    fts = [m for m in instr.mods if m in FLOAT_TYPES or m in _PACKED_CVT]
    if len(fts) == 2 and fts[0] in SCALAR and fts[1] in SCALAR and len(names) == 2:
        return [(names[1], fts[1])], [(names[0], fts[0])], guard
    if len(fts) == 2 and fts[0] in _PACKED_CVT and fts[1] == "f32" and len(names) == 3:
        return [(names[1], "f32"), (names[2], "f32")], [], [names[0], *guard]
    return None


def has_ring_ops(fn: ir.Function) -> bool:
    """Whether ``fn`` has an instruction with a float type (else no register can be resident)."""
    return any(m in FLOAT_TYPES for i in fn.instructions() for m in i.mods)


def predict(fn: ir.Function, native: set[int]) -> Touches:
    """The touches the rewrite is expected to record, from opcodes alone (:func:`ring_shape`; moves
    link; the lines ``native`` (recognised libdevice bodies) and everything else are raw)."""
    t = Touches()
    for instr in fn.instructions():
        runs_native = instr.span is not None and instr.span.line in native
        if not runs_native and record_move(t, instr):
            continue
        shape = None if runs_native else ring_shape(instr)
        if shape is None:
            t.raw(r for o in instr.operands for r in regs(o))
            if instr.guard is not None:
                t.raw([instr.guard.pred])
            continue
        reads, defs, raws = shape
        for r, ft in reads:
            t.add(r, ("read", ft))
        for r, ft in defs:
            t.add(r, ("def", ft))
        t.raw(raws)
    return t


def resident_set(t: Touches, reg_types: dict[str, str], live_out: Iterable[str]) -> dict[str, str]:
    """The resident registers the touches allow, each with its float type: whole components (linked by
    moves and packs) with no raw touch, one float type, declared widths that fit it (a pack's register
    twice a lane's), and a definition."""
    bad = t.raws | set(live_out)
    holders = {packed for packed, _ in t.packs}
    g: nx.Graph = nx.Graph()
    g.add_edges_from(t.moves)
    g.add_edges_from((packed, ln) for packed, lanes in t.packs for ln in lanes)
    comps: list[set[str]] = list(nx.connected_components(g))
    comps += [{r} for r, k in t.kinds.items() if k and r not in bad and r not in g]
    out: dict[str, str] = {}
    for comp in comps:
        if comp & bad:
            continue
        ft = _float_type(comp, t, reg_types, holders)
        if ft is not None:
            out.update((r, ft) for r in comp)
    return out


def _float_type(comp: set[str], t: Touches, reg_types: dict[str, str], holders: set[str]) -> str | None:
    """The one float type of a component without raw touches, when the rest of the rule holds."""
    kinds = set().union(*(t.kinds.get(r, set()) for r in comp))
    fts = {k[1] for k in kinds if isinstance(k, tuple) and k[0] in ("read", "def")}
    if len(fts) != 1 or not any(isinstance(k, tuple) and k[0] in ("def", "const") for k in kinds):
        return None
    ft = next(iter(fts))
    w = ring(ft).w
    for r in comp:
        width = declared_width(reg_types.get(r))
        # a pack holder carries payload lanes only: never read or defined as a float itself
        if not (not t.kinds.get(r) and width == 2 * w if r in holders else width == w):
            return None
    return ft


def const_move(instr: ir.Instruction, ft: str, ctx: RewriteContext) -> str | None:
    """A ``mov``/``selp`` writing a constant into a resident register of float type ``ft``, with each
    constant replaced by its payload (a bit-typed constant is the float's bits, a float-typed one its
    value); None when ``instr`` writes no constant."""
    move = move_shape(instr)
    if move is None or not move.const:
        return None
    w = ring(ft).w
    float_typed = any(m in FLOAT_TYPES for m in instr.mods)

    def value(o: object) -> str:
        if isinstance(o, ir.Imm) and not float_typed:
            return hexc(embed_int(o.value & ((1 << w) - 1), ft), w)
        return operand_text(o) if isinstance(o, ir.Reg) else ctx.embed(o, ft)

    ops = instr.operands
    head = f"{guard_text(instr.guard)}{instr.opcode}.b{w} {operand_text(ops[0])}"
    pred = f", {operand_text(ops[3])}" if len(ops) == 4 else ""
    return f"{head}, {', '.join(value(o) for o in ops[1:3])}{pred};"


def live_out(module: ir.Module, fn: ir.Function) -> set[str]:
    """Registers visible outside ``fn``'s body: its ``.reg`` parameters and results, module-level ``.reg``s."""
    out = {p.name for p in list(fn.params) + list(fn.ret_params) if p.space == "reg"}
    return out | {i.name for i in module.items if isinstance(i, ir.VarDecl) and i.space == "reg"}
