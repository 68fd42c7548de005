"""Static analysis of one thread body for ``explore``: dataflow of each instruction, declared
register types, and register liveness (for the spin-loop pruning of ``ptxkit.explore.oracle``)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from ptxkit import ir
from ptxkit.exec_sim.lane import LaneEval
from ptxkit.exec_sim.program import SPECIAL
from ptxkit.ir import Instruction, Label, Reg, Statement, Sym
from ptxkit.ptx import isa

CC = LaneEval.CC
Flow = tuple[frozenset[str], frozenset[str]]  # (registers read, registers written)
Body = Sequence[Instruction | Label]


def _def_indices(ins: Instruction) -> list[int]:
    """Operands ``ins`` writes (``ptxkit.ptx.isa.defs``; the litmus-only proxy opcodes by hand)."""
    if ins.opcode in ("tld", "suld", "suatom"):
        return [0] if ins.operands and isinstance(ins.operands[0], Reg) else []
    if ins.opcode in ("sust", "sured"):
        return []
    return isa.defs(ins)


def dataflow(ins: Instruction) -> Flow:
    """(registers read, registers written) by ``ins`` — the guard not included; the carry flag
    CC.CF (ISA §9.7.2) as the pseudo register ``%cc``."""
    d = _def_indices(ins)
    defs = {r for i in d for r in isa.registers(ins.operands[i])}
    uses = {r for i, o in enumerate(ins.operands) if i not in d for r in isa.registers(o)}
    if ins.opcode in ("addc", "subc", "madc"):
        uses.add(CC)
    if "cc" in ins.mods:
        defs.add(CC)
    return frozenset(uses), frozenset(defs)


def register_types(th_body: Sequence[Statement], body: Body, ptx: bool, init_regs: Mapping[str, object],
                   err: Callable[[Instruction, str], None],
                   vector_err: Callable[[ir.RegDecl], None]) -> dict[str, str]:
    """Declared register types (``.reg`` statements a kernel's thread body keeps, ISA §5.1.1);
    litmus registers are 32-bit, predicates where a ``setp`` writes them or a guard reads them."""
    types: dict[str, str] = {}
    for s in th_body:
        if isinstance(s, ir.RegDecl):
            if s.vector:
                vector_err(s)
            for name in s.expand():
                types[name] = s.type
    if ptx:  # a kernel declares its registers (ISA §5.1.1); special registers are given
        for s in body:
            if not isinstance(s, Instruction):
                continue
            names = [r for o in s.operands for r in isa.registers(o)]
            names += [s.guard.pred] if s.guard is not None else []
            for r in names:
                if r not in types and r.split(".")[0] not in SPECIAL and r not in init_regs \
                        and r != "WARP_SZ":
                    err(s, f"unknown register '{r}' (not declared with .reg)")
        return types
    for s in body:
        if isinstance(s, Instruction):
            if s.guard is not None:
                types.setdefault(s.guard.pred, "pred")
            if s.opcode == "setp" and s.operands:
                for r in isa.registers(s.operands[0]):
                    types.setdefault(r, "pred")
    return types


def _uses_defs(s: Instruction | Label, flow: Flow) -> tuple[set[str], set[str]]:
    if isinstance(s, Label):
        return set(), set()
    uses, defs = set(flow[0]), flow[1]
    if s.guard is not None:
        uses.add(s.guard.pred)
        # a guarded write may not happen: the old value stays live through it
        return uses, set()
    return uses, set(defs)


def successors(body: Body, labels: dict[str, int], i: int) -> list[int]:
    """Control-flow successors of statement ``i`` (-1: the end of the thread)."""
    s = body[i]
    nxt = [i + 1] if i + 1 < len(body) else [-1]
    if isinstance(s, Instruction) and s.opcode == "bra":
        target = s.operands[0]
        assert isinstance(target, Sym)  # checked when the runner is built
        tgt = labels[target.name]
        return [tgt] if s.guard is None else [tgt, *nxt]
    return nxt


def liveness(body: Body, labels: dict[str, int], flow: list[Flow],
             live_out: set[str]) -> list[frozenset[str]]:
    """Registers live before each statement (``live_out``: those read after the thread ends)."""
    n = len(body)
    ud = [_uses_defs(body[i], flow[i]) for i in range(n)]
    live: list[set[str]] = [set() for _ in range(n)]
    changed = True
    while changed:
        changed = False
        for i in range(n - 1, -1, -1):
            out: set[str] = set()
            for j in successors(body, labels, i):
                out |= live_out if j == -1 else live[j]
            uses, defs = ud[i]
            new = uses | (out - defs)
            if new != live[i]:
                live[i] = new
                changed = True
    return [frozenset(x) for x in live]
