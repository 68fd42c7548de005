"""A decoded kernel: the flat code array of pre-bound operations, the register file layout and the
static placement of memory symbols (PTX ISA §5.1 state spaces, §5.4.4 initialisers, §10-11)."""

from __future__ import annotations

import struct
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np

from ptxkit import ir
from ptxkit.exec_sim.values import decl_size, elem_size, float_const

# op kinds
NORMAL, BRA, EXIT, RET, BAR, CALL, WAIT = range(7)  # WAIT: mbarrier.try_wait (fn returns the lanes it lets pass)

SPECIAL = ("%tid", "%ntid", "%ctaid", "%nctaid", "%laneid", "%warpid", "%nwarpid", "%smid", "%nsmid",
           "%gridid", "%clock", "%clock64", "%lanemask_eq", "%lanemask_le", "%lanemask_lt",
           "%lanemask_ge", "%lanemask_gt", "%globaltimer", "%globaltimer_lo", "%globaltimer_hi",
           "%dynamic_smem_size", "%total_smem_size", "%envreg", "%clusterid", "%nclusterid",
           "%cluster_ctaid", "%cluster_nctaid", "%cluster_ctarank", "%cluster_nctarank",
           "%is_explicit_cluster", "%aggr_smem_size", "%reserved_smem_offset")


# The closures a decoded instruction is bound to. A lane state is ``machine.LaneState`` (a batch of
# CTAs) or ``lane.LaneEval``'s one-lane state: closures read ``st.n``, ``st.R`` (the register file, one
# numpy array per register), ``st.cc``, ``st.mem``, ``st.exited``.
State = Any
Mask = Any  # a bool lane array, or None for every lane
Value = Any  # a lane array, or a numpy scalar standing for every lane
Reader = Callable[[State], Value]
Writer = Callable[[State, Value, Mask], None]
LaneOp = Callable[[State, Mask], None]
Guard = tuple[int, bool] | None  # (predicate register, negated?) of an instruction's @p / @!p


def scheduler_op(st: State, m: Mask) -> None:
    """The ``fn`` of a control op (bra, exit, ret, bar, call): the scheduler acts on it, never runs it."""
    raise AssertionError("a control op was run as a lane operation")


class Barrier(NamedTuple):
    """``bar``/``barrier`` operands (ISA §9.7.13.1): barrier id, thread count (None: all of the CTA),
    whether the op waits (``sync``/``red``) or only arrives, and the ``.red`` part (kind, predicate
    reader, destination writer) or None."""

    bid: Reader
    threads: Reader | None
    wait: bool
    red: tuple[str, Reader, Writer] | None


@dataclass
class CallInfo:
    callee: str
    entry: int = -1
    copy_in: LaneOp = scheduler_op  # copies the arguments in (a builtin: runs it)
    copy_out: LaneOp = scheduler_op  # copies the results back
    builtin: str | None = None


@dataclass
class Op:
    kind: int
    fn: LaneOp  # NORMAL ops: the instruction's closure; others: scheduler_op
    instr: ir.Instruction | None
    func: str
    guard: Guard = None
    target: int = -1
    label: str | None = None
    call: CallInfo | None = None  # CALL ops
    bar: Barrier | None = None  # BAR ops


@dataclass
class SymInfo:
    space: str  # global | shared | local | param | const | func
    addr: int
    size: int
    decl: ir.VarDecl | None = None


def align(x: int, a: int) -> int:
    return (x + a - 1) // a * a


def encode_init(decl: ir.VarDecl, module_syms: dict[str, SymInfo] | None = None) -> bytes:
    """Bytes of a variable's initialiser (ISA §5.4.4), zero-padded to its size."""
    esize = elem_size(decl.type)
    total = decl_size(decl)
    if decl.init is None:
        return bytes(total)
    flat: list = []

    def walk(x: object) -> None:
        if isinstance(x, list):
            for y in x:
                walk(y)
        else:
            flat.append(x)

    walk(decl.init)
    out = bytearray()
    for item in flat:
        if isinstance(item, ir.Imm):
            v = item.value
            if decl.type in ("f32", "f64"):
                out += struct.pack("<f" if esize == 4 else "<d", float(v))
            else:
                out += (v & ((1 << (8 * esize)) - 1)).to_bytes(esize, "little")
        elif isinstance(item, ir.FloatImm):
            arr = np.atleast_1d(float_const(item.bits, item.width, decl.type))
            out += arr.tobytes()[:esize].ljust(esize, b"\0")
        elif isinstance(item, (ir.Sym, ir.Expr)) and module_syms is not None:
            name = item.name if isinstance(item, ir.Sym) else item.text
            name = name.replace("generic(", "").rstrip(")")
            info = module_syms.get(name)
            out += ((info.addr if info else 0) & ((1 << (8 * esize)) - 1)).to_bytes(esize, "little")
        else:
            out += bytes(esize)
    return bytes(out[:total]).ljust(total, b"\0")


class Scope:
    """A block scope: registers and symbols declared in it (ISA §5.1, §10.1)."""

    def __init__(self, parent: Scope | None):
        self.parent = parent
        self.regs: dict[str, int] = {}
        self.syms: dict[str, SymInfo] = {}
        self.vectors: dict[str, list[str]] = {}

    def _chain(self) -> Iterator[Scope]:
        s: Scope | None = self
        while s is not None:
            yield s
            s = s.parent

    def vector(self, name: str) -> list[str] | None:
        return next((s.vectors[name] for s in self._chain() if name in s.vectors), None)

    def reg(self, name: str) -> int | None:
        return next((s.regs[name] for s in self._chain() if name in s.regs), None)

    def sym(self, name: str) -> SymInfo | None:
        return next((s.syms[name] for s in self._chain() if name in s.syms), None)


@dataclass
class Program:
    """A decoded kernel."""

    module: ir.Module
    entry: ir.Function
    code: list[Op] = field(default_factory=list)
    reg_dtypes: list = field(default_factory=list)
    reg_names: list[str] = field(default_factory=list)
    shared_static: int = 0
    dynamic_shared_syms: list[str] = field(default_factory=list)
    local_size: int = 0
    param_size: int = 0
    kernel_params: list[tuple[ir.VarDecl, int]] = field(default_factory=list)
    globals_init: list[tuple[SymInfo, bytes]] = field(default_factory=list)
    const_image: bytes = b""
    module_syms: dict[str, SymInfo] = field(default_factory=dict)
