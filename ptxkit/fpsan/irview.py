"""What the FPSan passes read off the IR: registers read and written, register types, labels that
are jump targets, the source text of a statement, fresh-name prefixes."""

from __future__ import annotations

import re

from ptxkit import ir
from ptxkit.ptx import isa

# opcodes whose operand 0 is not a destination (stores, branches, fences, …): the instruction table's
NO_DEST = isa.NO_DEST_OPCODES


def regs(op: object) -> tuple[str, ...]:
    """Register names in an operand (registers declared without '%' parse as Sym)."""
    if isinstance(op, ir.Reg):  # the common case first: the passes ask about every operand
        return (op.name,)
    if isinstance(op, ir.Sym):
        return (op.name,)
    if isinstance(op, ir.Addr):
        return (op.base.name,) if isinstance(op.base, ir.Reg) else ()
    if isinstance(op, (ir.Vec, ir.ParamList)):
        return tuple(r for i in op.items for r in regs(i))
    if isinstance(op, ir.Pipe):
        return regs(op.a) + regs(op.b)
    if isinstance(op, ir.Not):
        return regs(op.operand)
    return ()


def writes(instr: ir.Instruction) -> list[str]:
    """Registers an instruction may write (over-approximated: operand 0 whatever the opcode)."""
    if not instr.operands:
        return []
    if instr.opcode in ("wgmma", "tcgen05"):
        return [r for o in instr.operands for r in regs(o)]
    return list(regs(instr.operands[0]))


def name_of(op: object) -> str:
    """The name of a register operand (callers have checked that it is one)."""
    if not isinstance(op, (ir.Reg, ir.Sym)):
        raise TypeError(f"not a register operand: {op!r}")
    return op.name


def unique_prefix(source: str, base: str) -> str:
    """A name prefix that occurs nowhere in the file, so fresh names cannot clash."""
    n = 0
    cand = base
    while cand in source:
        n += 1
        cand = f"{base}{n}x"
    return cand


class RegTypes(dict[str, str]):
    """Register types, with parameterised ranges too large to expand resolved on demand."""

    def get(self, key: str, default: str | None = None) -> str | None:  # type: ignore[override]
        if key in self:
            return dict.get(self, key)
        m = re.match(r"^(.*?)(\d+)$", key)
        if m and (m.group(1) + "*") in self:
            return dict.get(self, m.group(1) + "*")
        return default


def reg_types(fn: ir.Function, module: ir.Module) -> RegTypes:
    """Types of the registers visible in ``fn``: module-level, parameters, declarations (ISA §5.1.1)."""
    types = RegTypes()
    for item in module.items:
        if isinstance(item, ir.VarDecl) and item.space == "reg":
            types[item.name] = item.type
    for p in list(fn.params) + list(fn.ret_params):
        if p.space == "reg":
            types[p.name] = p.type
    for s in fn.statements():
        if isinstance(s, ir.RegDecl):
            for name in s.expand() if all(c is None or c <= 4096 for _, c in s.names) else []:
                types[name] = s.type
            for name, count in s.names:
                if count is not None and count > 4096:
                    types[name + "*"] = s.type
    return types


_IDENT = re.compile(r"[$%\w.]+")


def referenced_labels(module: ir.Module, fn: ir.Function) -> set[str]:
    """Labels named anywhere in the function besides their definition (branches, ``.branchtargets``):
    only these can be reached other than by falling through. Unreferenced ones — ``$L__tmpN`` line-info
    labels that only the DWARF sections outside the function name — do not end a straight-line run."""
    labels = {s.name for s in fn.statements() if isinstance(s, ir.Label)}
    if not labels or fn.span is None:
        return labels
    counts: dict[str, int] = {}
    for tok in _IDENT.findall(module.source[fn.span.start:fn.span.end]):
        if tok in labels:
            counts[tok] = counts.get(tok, 0) + 1
    return {name for name in labels if counts.get(name, 0) != 1}


def alone_on_line(module: ir.Module, node: ir.Statement) -> bool:
    """Whether ``node`` is the only statement of its line (then a ``//`` comment line is safe)."""
    src, sp = module.source, node.span
    assert sp is not None
    ls = src.rfind("\n", 0, sp.start) + 1
    le = src.find("\n", sp.end)
    rest = src[sp.end:le if le >= 0 else len(src)].strip()
    return not src[ls:sp.start].strip() and (not rest or rest.startswith("//"))


def original(module: ir.Module, instr: ir.Instruction) -> str:
    """The instruction's source text on one line (for the ``// fpsan: …`` comment)."""
    if instr.span is None:
        return instr.opcode
    return " ".join(module.source[instr.span.start:instr.span.end].split())
