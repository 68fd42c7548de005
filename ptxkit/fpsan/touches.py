"""How one function's rewrite used each register — the records ``ptxkit.fpsan.resident`` decides
ring residency from: ring reads and definitions (``RewriteContext.embed``/``define``), bit moves that
link registers (``mov``, ``selp``, packs and unpacks, ISA §9.7.9.1, §9.7.8.x) and raw touches (anything
that needs or writes a register's float bits)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from ptxkit import ir
from ptxkit.fpsan.irview import regs
from ptxkit.fpsan.ring import ring

RAW = "raw"  # a touch that needs the float bits (or writes them)
SCALAR = ("f16", "bf16", "f32", "f64")
_WIDTH = {"pred": 1, "b8": 8, "u8": 8, "s8": 8}


def declared_width(t: str | None) -> int | None:
    """Bits of a register declared with type ``t`` (``b32``, ``f16x2`` …); None when unknown."""
    if t is None:
        return None
    if t in _WIDTH:
        return _WIDTH[t]
    if t.endswith("x2"):
        base = t[:-2]
        return 2 * (ring(base).w if base in SCALAR else int(base[1:]))
    try:
        return int(t[1:])
    except ValueError:
        return None


@dataclass
class Touches:
    """How one function's registers are used: ``kinds[reg]`` holds ``("read", ftype)``, ``("def",
    ftype)`` or ``("const",)`` (an empty set: only moved); ``raws`` the registers touched :data:`RAW`;
    ``moves`` links registers whose bits a move copies; ``packs`` maps a packed register to the lane
    registers a pack or unpack moves."""

    kinds: dict[str, set[object]] = field(default_factory=dict)
    raws: set[str] = field(default_factory=set)
    moves: list[tuple[str, str]] = field(default_factory=list)
    packs: list[tuple[str, tuple[str, ...]]] = field(default_factory=list)

    def add(self, reg: str, kind: object) -> None:
        if kind == RAW:
            self.raws.add(reg)
        else:
            self.kinds.setdefault(reg, set()).add(kind)

    def raw(self, names: Iterable[str]) -> None:
        self.raws.update(names)


@dataclass(frozen=True)
class Move:
    """A bit move: the register pairs whose bits it copies (``dst``, ``src``), a pack or unpack (packed
    register, lane registers), whether it writes a constant, and the registers it reads otherwise
    (predicates, lane indices: raw)."""

    pairs: tuple[tuple[str, str], ...] = ()
    pack: tuple[str, tuple[str, ...]] | None = None
    const: bool = False
    raw: tuple[str, ...] = ()


def move_shape(instr: ir.Instruction) -> Move | None:
    """The bit move ``instr`` is — ``mov`` (ISA §9.7.9.1, packs and unpacks of two lanes included),
    ``selp`` (§9.7.8.x) and ``shfl`` (§9.7.9.6: the value of another lane, bits unchanged) — or None."""
    ops = instr.operands
    if instr.opcode == "mov" and len(ops) == 2:
        d, s = ops
        if isinstance(d, ir.Reg) and isinstance(s, ir.Reg):
            return Move(pairs=((d.name, s.name),))
        if isinstance(d, ir.Reg) and isinstance(s, (ir.Imm, ir.FloatImm)):
            return Move(const=True)
        if (isinstance(d, ir.Reg) and isinstance(s, ir.Vec) and len(s.items) == 2
                and all(isinstance(i, ir.Reg) for i in s.items)):
            return Move(pack=(d.name, tuple(i.name for i in s.items if isinstance(i, ir.Reg))))
        if (isinstance(d, ir.Vec) and isinstance(s, ir.Reg) and len(d.items) == 2
                and all(isinstance(i, (ir.Reg, ir.Sink)) for i in d.items)):
            return Move(pack=(s.name, tuple(i.name for i in d.items if isinstance(i, ir.Reg))))
        return None
    if instr.opcode == "selp" and len(ops) == 4 and isinstance(ops[0], ir.Reg):
        vals = ops[1:3]
        if not all(isinstance(v, (ir.Reg, ir.Imm, ir.FloatImm)) for v in vals):
            return None
        return Move(pairs=tuple((ops[0].name, v.name) for v in vals if isinstance(v, ir.Reg)),
                    const=any(not isinstance(v, ir.Reg) for v in vals), raw=regs(ops[3]))
    if instr.opcode == "shfl" and len(ops) >= 4 and isinstance(ops[1], ir.Reg):
        d, p = (ops[0].a, ops[0].b) if isinstance(ops[0], ir.Pipe) else (ops[0], None)
        if isinstance(d, ir.Reg):
            return Move(pairs=((d.name, ops[1].name),),
                        raw=tuple(r for o in (p, *ops[2:]) if o is not None for r in regs(o)))
    return None


def record_move(t: Touches, instr: ir.Instruction) -> bool:
    """Record a bit move's links and its raw reads; False when ``instr`` is no move."""
    move = move_shape(instr)
    if move is None:
        return False
    t.moves.extend(move.pairs)
    for a, b in move.pairs:
        t.kinds.setdefault(a, set())
        t.kinds.setdefault(b, set())
    if move.pack is not None:
        t.packs.append(move.pack)
        for r in (move.pack[0], *move.pack[1]):
            t.kinds.setdefault(r, set())
    if move.const:
        t.add(regs(instr.operands[0])[0], ("const",))
    t.raw(move.raw)
    if instr.guard is not None:
        t.raw([instr.guard.pred])
    return True
