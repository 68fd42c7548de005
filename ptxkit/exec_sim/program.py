"""A decoded kernel: the flat code array of pre-bound operations, the register file layout and the
static placement of memory symbols (PTX ISA §5.1 state spaces, §5.4.4 initialisers, §10-11)."""

from __future__ import annotations

import struct
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from ptxkit import ir
from ptxkit.exec_sim.values import decl_size, elem_size, float_const

# op kinds
NORMAL, BRA, EXIT, RET, BAR, CALL = range(6)

SPECIAL = ("%tid", "%ntid", "%ctaid", "%nctaid", "%laneid", "%warpid", "%nwarpid", "%smid", "%nsmid",
           "%gridid", "%clock", "%clock64", "%lanemask_eq", "%lanemask_le", "%lanemask_lt",
           "%lanemask_ge", "%lanemask_gt", "%globaltimer", "%globaltimer_lo", "%globaltimer_hi",
           "%dynamic_smem_size", "%total_smem_size", "%envreg", "%clusterid", "%nclusterid",
           "%cluster_ctaid", "%cluster_nctaid", "%cluster_ctarank", "%cluster_nctarank",
           "%is_explicit_cluster", "%aggr_smem_size", "%reserved_smem_offset")


@dataclass
class Op:
    kind: int
    fn: Callable | None
    instr: ir.Instruction | None
    func: str
    guard: tuple[int, bool] | None = None
    target: int = -1
    label: str | None = None
    extra: object = None  # BAR: (barrier-id reader, count reader, wait?) ; CALL: CallInfo


@dataclass
class SymInfo:
    space: str  # global | shared | local | param | const | func
    addr: int
    size: int
    decl: ir.VarDecl | None = None


@dataclass
class CallInfo:
    callee: str
    entry: int = -1
    copy_in: Callable | None = None
    copy_out: Callable | None = None
    builtin: str | None = None


def align(x: int, a: int) -> int:
    return (x + a - 1) // a * a


def encode_init(decl: ir.VarDecl, module_syms: dict[str, SymInfo] | None = None) -> bytes:
    """Bytes of a variable's initialiser (ISA §5.4.4), zero-padded to its size."""
    esize = elem_size(decl.type)
    total = decl_size(decl)
    if decl.init is None:
        return bytes(total)
    flat: list = []

    def walk(x):
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

    def vector(self, name: str) -> list[str] | None:
        s = self
        while s is not None:
            if name in s.vectors:
                return s.vectors[name]
            s = s.parent
        return None

    def reg(self, name: str) -> int | None:
        s = self
        while s is not None:
            if name in s.regs:
                return s.regs[name]
            s = s.parent
        return None

    def sym(self, name: str) -> SymInfo | None:
        s = self
        while s is not None:
            if name in s.syms:
                return s.syms[name]
            s = s.parent
        return None


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
