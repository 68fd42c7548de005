"""Events and traces of one thread run under the oracle (``ptxkit.explore.oracle``)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from ptxkit.ir import Addr, FloatImm, Imm, Instruction, Operand, Reg, Sym, Vec

# A register value while a thread runs under the oracle: raw bits (int), or a symbolic address —
# a litmus location name (str) or ('ptr', buffer, byte offset) in a kernel.
Ptr = tuple[str, str, int]
Value = int | str | Ptr
# What a value depends on: a local read index, or ('shfl', k) — the value received at the thread's
# k-th shfl.sync (resolved to the source lane's reads once the combination of traces is known).
Dep = int | tuple[str, int]
# A barrier event: (ids, count, mode, warp); warp None for a Dat3M quorum (ISA §9.7.13.1)
Bar = tuple[tuple[int, ...], int | None, str, int | None]
# shfl.sync exchanges: offered (k, value, deps, instruction); received (k, source thread, value, instruction)
ShflOut = tuple[int, Value, frozenset[Dep], Instruction]
ShflIn = tuple[int, int, Value, Instruction]
# What the oracle is asked: a physical location, or ('shfl', cta, warp, k, lane) — the value lane
# offered at its k-th shfl.sync
OracleKey = str | tuple[object, ...]
Oracle = Callable[[OracleKey], Iterable[Value]]
Provide = Callable[[tuple[object, ...], Value], None]


@dataclass
class Ev:
    """One event of a thread trace (converted to ``ptxkit.consistency`` events by ``explore.to_events``)."""

    kind: str                      # 'R' | 'W' | 'F'
    tid: int
    cta: int = 0
    gpu: int = 0
    loc: str | None = None         # physical location
    vaddr: str | None = None       # the (alias) name used
    proxy: str = "GEN"
    sem: str | None = None
    scope: str | None = None
    fkind: str | None = None       # fences: sc acq_rel acquire release relaxed proxy alias bar
    value: Value | None = None
    init: bool = False
    rmw_read: int | None = None    # for the write half of an RMW: local index of its read
    bar: Bar | None = None         # (ids, count, mode, warp) for barriers; warp None: Dat3M quorum
    deps: frozenset[Dep] = frozenset()  # reads this event's address/value depends on
    ctrl: frozenset[Dep] = frozenset()  # reads that decided a branch before it
    instr: Instruction | None = None

    def describe(self) -> str:
        if self.init:
            return f"init {self.loc}={self.value}"
        text = fmt_instruction(self.instr) if self.instr is not None else self.kind
        if self.kind == "R":
            return f"R {self.vaddr}={self.value} ({text})"
        if self.kind == "W":
            return f"W {self.vaddr}={self.value} ({text})"
        return f"F {text}"


def fmt_instruction(ins: Instruction) -> str:
    def one(o: Operand) -> str:
        if isinstance(o, Reg):
            return o.name
        if isinstance(o, Imm):
            return str(o.value)
        if isinstance(o, Addr):
            if o.base is None:
                return f"[{o.offset}]"
            return f"[{o.base.name}{f'+{o.offset}' if o.offset else ''}]"
        if isinstance(o, Sym):
            return o.name
        if isinstance(o, Vec):
            return "{" + ", ".join(one(x) for x in o.items) + "}"
        if isinstance(o, FloatImm):
            return f"0{'f' if o.width == 32 else 'd'}{o.bits:0{o.width // 4}X}"
        return str(o)
    g = f"@{'!' if ins.guard.negated else ''}{ins.guard.pred} " if ins.guard else ""
    return f"{g}{'.'.join((ins.opcode, *ins.mods))} {', '.join(one(o) for o in ins.operands)}".strip()


@dataclass
class Trace:
    tid: int
    events: tuple[Ev, ...]
    regs: dict[str, Value]
    # shfl.sync exchanges (real kernels): what this thread offered at its k-th shfl.sync —
    # (k, value of a, reads it depends on, instruction) — and what it received — (k, source thread,
    # value, instruction); ``explore`` keeps only combinations where the two sides agree
    shfl_out: tuple[ShflOut, ...] = ()
    shfl_in: tuple[ShflIn, ...] = ()


@dataclass
class RunStats:
    cut: bool = False          # some path hit the unroll bound (or a size bound)
    cut_reason: str = ""
    spins_pruned: int = 0
    deadline: float | None = None  # time.monotonic() value after which runs stop (--timeout)
    spin_at: dict[int, str] = field(default_factory=dict)  # thread -> a loop where a spin was pruned

