"""What every instruction family shares: operand types and modifiers, the refusal signal, lane
helpers, float readers/writers (PTX ISA §9.7 "Instructions", §5.2 types)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

import numpy as np

from ptxkit import ir
from ptxkit.errors import PtxkitError
from ptxkit.exec_sim import floats as F
from ptxkit.exec_sim.program import LaneOp, Mask, Reader, State, Value, Writer
from ptxkit.exec_sim.values import UINT_BITS, np_type
from ptxkit.ptx.types import is_type, type_bits


class Decoding(Protocol):
    """What a builder asks of the decoder (``ptxkit.exec_sim.decode.Decoder``): bound operand readers
    and writers, memory addresses, and diagnostics positioned at the instruction being built."""

    def src(self, op: ir.Operand, typ: str) -> Reader: ...

    def dst(self, op: ir.Operand, typ: str) -> Writer: ...

    def addr(self, op: ir.Operand) -> tuple[Reader, str | None]: ...

    def error(self, msg: str, instr: ir.Instruction | None = None,
              cls: type[PtxkitError] = PtxkitError) -> PtxkitError: ...

    def unsupported(self, what: str | None = None) -> LaneOp: ...

    def spelling(self, ins: ir.Instruction) -> str: ...


Builder = Callable[[ir.Instruction, Decoding], LaneOp]


ROUNDING = ("rn", "rz", "rm", "rp", "rni", "rzi", "rmi", "rpi", "rna", "rs")


FLOATS = ("f16", "bf16", "f32", "f64", "f16x2", "bf16x2")


SPACES = ("global", "shared", "local", "param", "const")


def types_of(mods: tuple[str, ...]) -> list[str]:
    return [m for m in mods if is_type(m)]


def one_type(ins: ir.Instruction, dec: Decoding) -> str:
    ts = types_of(ins.mods)
    if not ts:
        raise dec.error(f"{dec.spelling(ins)} needs a type")
    return ts[-1]


def rounding_mode(mods: tuple[str, ...]) -> str | None:
    for m in mods:
        if m in ROUNDING:
            return m
    return None


class Unsupported(Exception):
    """A form of a known opcode the builders do not model: becomes an op that raises when executed."""


def operands(ins: ir.Instruction, n: int | None = None) -> tuple[ir.Operand, ...]:
    if n is not None and len(ins.operands) != n:
        raise Unsupported(f"{'.'.join((ins.opcode, *ins.mods))} with {len(ins.operands)} operands")
    return ins.operands


def first_mod(ins: ir.Instruction, choices: tuple[str, ...]) -> str:
    """The first modifier of ``ins`` among ``choices`` (the operation of shfl/vote/redux/atom …)."""
    found = next((x for x in ins.mods if x in choices), None)
    if found is None:
        raise Unsupported(f"{'.'.join((ins.opcode, *ins.mods))} without one of .{', .'.join(choices)}")
    return found


def items(op: ir.Operand) -> list[ir.Operand]:
    """The elements of a brace list ``{a, b, …}``, or the operand alone."""
    return list(op.items) if isinstance(op, ir.Vec) else [op]


def bits_of(typ: str) -> int:
    return type_bits(typ)


def uint_of(typ: str) -> type[np.unsignedinteger[Any]]:
    return UINT_BITS[bits_of(typ)]


def as_lanes(x: Value, n: int) -> np.ndarray:
    return x if np.ndim(x) else np.full(n, x)


def simple(ins: ir.Instruction, dec: Decoding, typ: str, fn: Callable[..., Value], nsrc: int) -> LaneOp:
    """d = fn(srcs...) for every lane."""
    ops = operands(ins, nsrc + 1)
    w = dec.dst(ops[0], typ)
    srcs = [dec.src(o, typ) for o in ops[1:]]
    if nsrc == 1:
        a, = srcs
        return lambda st, m: w(st, fn(a(st)), m)
    if nsrc == 2:
        a, b = srcs
        return lambda st, m: w(st, fn(a(st), b(st)), m)
    a, b, c = srcs
    return lambda st, m: w(st, fn(a(st), b(st), c(st)), m)


INT_LIMITS = {t: (np.iinfo(np_type(t)).min, np.iinfo(np_type(t)).max)
               for t in ("u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64")}


def read_float(dec: Decoding, op: ir.Operand, typ: str) -> Reader:
    if typ == "bf16":
        r = dec.src(op, "u16")
        return lambda st: F.bits_to_float(np.asarray(r(st)), "bf16")
    return dec.src(op, typ)


def write_float(dec: Decoding, op: ir.Operand, typ: str, mode: str | None) -> Writer:
    """Writer taking a wide float array, rounding it to ``typ`` with ``mode``."""
    if typ == "bf16":
        w = dec.dst(op, "u16")
        return lambda st, v, m: w(st, F.bf16_round(np.asarray(v), mode or "rn"), m)
    w = dec.dst(op, typ)
    dt = np_type(typ)

    def wr(st: State, v: Value, m: Mask) -> None:
        v = np.asarray(v)
        if v.dtype != dt:
            v = F.round_float(v, typ, mode or "rn")
        w(st, v, m)
    return wr


def space_of(ins: ir.Instruction, sym_space: str | None) -> str:
    for x in ins.mods:
        base = x.split("::")[0]
        if base in SPACES:
            return base
    return sym_space or "generic"


def vector_width(mods: tuple[str, ...]) -> int:
    for x in mods:
        if x in ("v2", "v4", "v8"):
            return int(x[1:])
    return 1
