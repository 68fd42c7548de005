"""Await loops: side-effect-free spin loops on one strong read (``L: ld.acquire r, [f]; setp …; @p bra L``).

Why a spin loop need not be explored (the argument ``verify.schedule`` relies on): a loop whose body
is one basic block without stores, atomics, barriers, fences or calls has no effect but its reads and
registers the next iteration overwrites, so in every schedule it is equivalent to its last iteration.
If the read is strong, every write to its location is one morally strong write W of another thread,
and the loop does not exit on the location's initial value, then in every schedule the loop reads
the initial value (and goes on) until it reads W (and exits): the failed reads race with nothing
(morally strong, ISA §8.7), and the last read reads W's value and synchronizes exactly as observed.
"""

from __future__ import annotations

from dataclasses import dataclass

from ptxkit import ir
from ptxkit.exec_sim.lane import LaneEval
from ptxkit.ptx import isa

_PURE_STOP = {"st", "atom", "red", "bar", "barrier", "fence", "membar", "call", "cp", "mbarrier", "ret",
              "exit", "trap", "wgmma", "stmatrix", "tensormap", "cvta", "multimem", "sust", "sured", "ld"}


@dataclass
class AwaitLoop:
    load: ir.Instruction
    body: list[ir.Instruction]  # the instructions after the load, before the branch
    branch: ir.Instruction


def find(module: ir.Module, ins: ir.Instruction) -> AwaitLoop | None:
    """The await loop whose only load is ``ins``, or None."""
    for f in module.functions():
        stmts = [s for s in f.statements() if isinstance(s, (ir.Instruction, ir.Label))]
        at = next((i for i, s in enumerate(stmts) if s is ins), None)
        if at is None:
            continue
        start = at - 1
        while start >= 0 and isinstance(stmts[start], ir.Instruction):
            start -= 1
        if start < 0:
            return None
        label = stmts[start]
        assert isinstance(label, ir.Label)
        before = [s for s in stmts[start + 1:at] if isinstance(s, ir.Instruction)]
        end = at + 1
        while end < len(stmts):
            s_end = stmts[end]
            if not isinstance(s_end, ir.Instruction) or s_end.opcode == "bra":
                break
            end += 1
        if end >= len(stmts) or not isinstance(stmts[end], ir.Instruction):
            return None
        br = stmts[end]
        assert isinstance(br, ir.Instruction)
        target = br.operands[0] if br.operands else None
        if br.guard is None or not isinstance(target, ir.Sym) or target.name != label.name:
            return None
        body = [s for s in stmts[at + 1:end] if isinstance(s, ir.Instruction)]
        if before or any(s.opcode in _PURE_STOP or s.guard is not None for s in body) or ins.guard is not None:
            return None
        addr_regs = {r for i in isa.uses(ins) for r in isa.registers(ins.operands[i])}
        if any(r in addr_regs for s in body for i in isa.defs(s) for r in isa.registers(s.operands[i])):
            return None  # the address changes from one iteration to the next
        return AwaitLoop(ins, body, br)
    return None


def _reg_types(module: ir.Module) -> dict[str, str]:
    out: dict[str, str] = {}
    for f in module.functions():
        for s in f.statements():
            if isinstance(s, ir.RegDecl):
                for name, count in s.names:
                    if count is None:
                        out[name] = s.type
                    else:
                        out.update({f"{name}{i}": s.type for i in range(count)})
    return out


def exits_on(module: ir.Module, loop: AwaitLoop, value: int) -> bool | None:
    """Does the loop exit when its load returns ``value``? None when that needs registers set before
    the loop (then the loop is not recognised)."""
    types = _reg_types(module)
    dsts = [r for i in isa.defs(loop.load) for r in isa.registers(loop.load.operands[i])]
    if len(dsts) != 1:
        return None
    known: dict[str, int] = {dsts[0]: value}
    for ins in loop.body:
        needed = [r for i in isa.uses(ins) for r in isa.registers(ins.operands[i])]
        if any(r not in known for r in needed):
            return None
        known.update(LaneEval(ins, types, module).evaluate(known))
    g = loop.branch.guard
    assert g is not None
    if g.pred not in known:
        return None
    taken = bool(known[g.pred]) != g.negated
    return not taken
