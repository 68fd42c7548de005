"""Who reads a negation (issue 10 F/J, the neg-cast fold of :mod:`ptxkit.fpsan.folds_sign`): only factors of
products, or only addends of sums. Where the source writes ``a - b * c``, ``-(a * b)`` or ``a - c``, LLVM's negation of
a cast's result stands for the source's subtraction or negated product exactly when its readers use it so (PTX ISA
§9.7.4 mul, fma, add)."""

from __future__ import annotations

from ptxkit import ir
from ptxkit.fpsan.fold_flow import Flow
from ptxkit.fpsan.irview import name_of


def only_multiplicands(flow: Flow, neg: ir.Instruction, products: bool = False) -> bool:
    """Whether every reader of ``neg``'s result is an fma (or, with ``products``, a mul) that multiplies by it (not
    its addend)."""
    dst = name_of(neg.operands[0])
    readers = flow.uses.get(dst, [])

    def names(ops: tuple[ir.Operand, ...]) -> set[str]:
        return {o.name for o in ops if isinstance(o, ir.Reg)}  # (an fma's other operands may be immediates)
    kinds = ("fma", "mad", "mul") if products else ("fma", "mad")
    return bool(readers) and all(u.opcode in kinds and dst in names(u.operands[1:3])
                                 and dst not in names((u.operands[0], *u.operands[3:])) for u in readers)


def only_addends(flow: Flow, neg: ir.Instruction) -> bool:
    """Whether every reader of ``neg``'s result adds it: an fma's addend (not a factor) or an add's operand."""
    dst = name_of(neg.operands[0])
    readers = flow.uses.get(dst, [])

    def reads(o: ir.Operand) -> bool:
        return isinstance(o, ir.Reg) and o.name == dst
    return bool(readers) and all(
        (u.opcode in ("fma", "mad") and len(u.operands) == 4 and reads(u.operands[3])
         and not any(reads(o) for o in u.operands[1:3]))
        or (u.opcode == "add" and len(u.operands) == 3 and sum(reads(o) for o in u.operands[1:]) == 1)
        for u in readers)
