"""The rewrite context: fresh registers, emitted lines, φ/φ⁻¹ code generation and the shadow cache.

One :class:`RewriteContext` exists per function. Rewrite functions (``ptxkit.fpsan.ops`` and the
``mma``/``wgmma`` module ``ptxkit.fpsan.mma.rewrite_mma(instr, ctx) -> bool``) use only these methods:

``ctx.fresh(kind) -> str``
    A new register of kind ``'pred'``, ``'b16'``, ``'b32'`` or ``'b64'`` (declared for you).
``ctx.fresh_label() -> str``
    A new label name that cannot clash with the file's labels.
``ctx.emit(text)``
    Append one PTX statement (``"add.s32 %a, %b, %c;"``; the ``;`` is added when missing).
``ctx.embed(operand, ftype, lane=0) -> str``
    Text of a register (or integer immediate) holding φ(operand) for float type ``ftype``
    (``f16``/``bf16``/``f32``/``f64``). ``operand`` is an ``ir`` operand (Reg, FloatImm, Imm) or a
    register name; for packed registers (``f16x2`` …) pass ``lane`` 0 (low half) or 1 (high half).
    Payloads of registers are cached per straight-line run, so embedding twice is free.
``ctx.unembed(payload, ftype, dest, guard=None)``
    Write φ⁻¹(payload) into ``dest`` (an ``ir.Reg`` or register name), under ``guard`` (an ``ir.Guard``).
``ctx.unembed_to_fresh(payload, ftype) -> str``
    φ⁻¹ into a fresh integer register (for packing lanes yourself).
``ctx.report(instr, reason)``
    Record that ``instr`` is left unsanitized (it then stays native).
``ctx.reg_type(name) -> str | None``, ``ctx.text(operand) -> str``, ``ctx.homomorphic_casts``.
A rewrite function returns True when it replaced the instruction by the emitted lines.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ptxkit import ir
from ptxkit.fpsan import phi
from ptxkit.fpsan import ring as R
from ptxkit.fpsan.phi import BITS_KIND, hexc
from ptxkit.fpsan.source_hints import SourceHints
from ptxkit.fpsan.touches import RAW, Touches

__all__ = [
    "BITS_KIND",
    "FLOAT_REG_TYPES",
    "KIND_BITS",
    "LANE_TYPE",
    "NATIVE_COPY",
    "RewriteContext",
    "Shadow",
    "Unembed",
    "float_to_bits",
    "guard_text",
    "hexc",
    "operand_text",
]

KIND_BITS = {"pred": 1, "b16": 16, "b32": 32, "b64": 64}
LANE_TYPE = {"f16x2": "f16", "bf16x2": "bf16", "f32x2": "f32"}
FLOAT_REG_TYPES = {"f16", "f16x2", "bf16", "bf16x2", "f32", "f64", "f32x2"}


def operand_text(op: object) -> str:
    """Print an operand in PTX syntax (ISA §6.4)."""
    if isinstance(op, str):
        return op
    if isinstance(op, ir.Reg):
        return op.name
    if isinstance(op, ir.Imm):
        return str(op.value)
    if isinstance(op, ir.FloatImm):
        return f"0f{op.bits:08X}" if op.width == 32 else f"0d{op.bits:016X}"
    if isinstance(op, ir.Sym):
        return op.name
    if isinstance(op, ir.Addr):
        base = "" if op.base is None else operand_text(op.base)
        if op.base is None:
            return f"[{op.offset}]"
        return f"[{base}+{op.offset}]" if op.offset else f"[{base}]"
    if isinstance(op, ir.Vec):
        return "{" + ", ".join(operand_text(i) for i in op.items) + "}"
    if isinstance(op, ir.Sink):
        return "_"
    if isinstance(op, ir.Pipe):
        return f"{operand_text(op.a)}|{operand_text(op.b)}"
    if isinstance(op, ir.Not):
        return "!" + operand_text(op.operand)
    if isinstance(op, ir.ParamList):
        return "(" + ", ".join(operand_text(i) for i in op.items) + ")"
    if isinstance(op, ir.Expr):
        return op.text
    raise TypeError(op)


def guard_text(g: ir.Guard | None) -> str:
    return "" if g is None else f"@{'!' if g.negated else ''}{g.pred} "


_NEG16 = re.compile(r"^(@!?%[\w$.]+\s+)?neg\.s16\s+([%\w$.]+),\s*([%\w$.]+);$")
NATIVE_COPY = -1  # Shadow.def_id of a payload copied by a native mov (see copy_shadow)


@dataclass
class Unembed:
    """The φ⁻¹ tail of one rewritten definition; dropped when every read of ``reg`` uses the shadow."""

    reg: str
    def_id: int
    lines: list[str]


@dataclass
class Shadow:
    payload: str
    def_id: int | None  # the rewritten definition that produced it (None: an embed of a read;
    # NATIVE_COPY: copied by a native mov)
    origin: tuple | None = None  # ('lg2', payload of x) when this value is lg2(x): the log idiom


class ByRegister(dict[tuple[Any, ...], Any]):
    """A dict keyed by tuples whose first item is a register name, indexed by that register: dropping
    one register's entries costs its own entries, not a scan (straight-line runs of Triton's attention
    kernels cache thousands of payloads)."""

    def __init__(self) -> None:
        super().__init__()
        self.index: dict[str, set[tuple[Any, ...]]] = {}

    def __setitem__(self, key: tuple[Any, ...], value: Any) -> None:
        super().__setitem__(key, value)
        self.index.setdefault(key[0], set()).add(key)

    def drop(self, reg: str) -> None:
        for key in self.index.pop(reg, ()):
            super().pop(key, None)

    def of(self, reg: str) -> list[tuple[tuple[Any, ...], Any]]:
        return [(k, self[k]) for k in self.index.get(reg, ())]

    def clear(self) -> None:
        super().clear()
        self.index.clear()


def _no_definition(reg: str, at: ir.Instruction | None = None) -> ir.Instruction | None:
    return None


class RewriteContext:
    """Per-function rewrite state (see the module docstring for the public methods)."""

    def __init__(self, *, prefix: str, label_prefix: str, reg_types: dict[str, str],
                 homomorphic_casts: bool, report_fn: Callable[..., None], counter: dict[str, int]):
        self.prefix = prefix
        self.label_prefix = label_prefix
        self.reg_types = reg_types
        self.homomorphic_casts = homomorphic_casts
        self._report_fn = report_fn
        self.counter = counter  # kind -> next index (per function; declared with %prefix<kind><N>)
        self.lines: list[str | Unembed] = []
        self.cache: ByRegister = ByRegister()  # (reg, ftype, lane) -> Shadow
        self.splits: ByRegister = ByRegister()  # (packed register, bits) -> its lane registers
        self.current_def: int | None = None
        self.reads: list[tuple[str, int | None]] = []  # (reg, def_id serving it or None)
        # reads that need a register's float bits, with the definition reaching them when known in
        # this straight-line run (a def id, NATIVE_COPY for an unguarded native write) or None
        self.bit_reads: list[tuple[str, int | None]] = []
        self.last_write: dict[str, int] = {}
        # values derived only from payload registers (e.g. the mma expansion's gathered fragments),
        # keyed by those payload names: valid exactly as long as the payload cache, cleared with it
        self.memo: dict[Any, Any] = {}
        # registers a fold also keeps at a wider ring (their only definition: valid after any clear): reg -> (the
        # wide type, its payload register) — a max/min LLVM shrank to 16 bits (ptxkit.fpsan.fold_narrowed_extremum)
        self.wide: dict[str, tuple[str, str]] = {}
        self.mma_mode = "shuffle"  # the mma expansion for this function (ptxkit.fpsan.mma.auto_mode)
        # module-level helper functions this function calls (key -> (name, PTX lines)); the driver
        # inserts them before the function (ptxkit.fpsan.wgmma: one .func per wgmma form)
        self.helpers: dict[Any, tuple[Any, ...]] = {}  # key -> (name, lines, parameter types)
        self.calls_ok = True  # whether such helpers may be used (ptxkit.fpsan.mma_calls.calls_allowed)
        self.wgmma_sites = 0  # wgmma.mma_async in the function (ptxkit.fpsan.wgmma: calls per wgmma)
        self.cvt_sites: dict[str, int] = {}  # cvt modifiers → count in the function (ptxkit.fpsan.cast_calls)
        self.labels = 0
        self.folds: dict[str, str] = {}  # the stated source forms of LLVM's folds (--fold NAME=FORM)
        self.hints = SourceHints()  # the Python source at each .loc, where --source-hints reads it
        self.uses: dict[str, list[ir.Instruction]] = {}  # each register's readers (the fold flow's)
        # a register's one definition, as an instruction names it (flow's)
        self.only_def: Callable[..., ir.Instruction | None] = _no_definition
        # registers that hold their payload instead of float bits (ptxkit.fpsan.resident): reg -> ftype
        self.resident: dict[str, str] = {}
        self.touches = Touches()  # how the rewrite used each register (ptxkit.fpsan.resident)
        self.pending: list[tuple[str, object]] = []  # this instruction's touches, until the pass files them

    # ---------------------------------------------------------------- public helpers
    def fresh(self, kind: str) -> str:
        n = self.counter.get(kind, 0)
        self.counter[kind] = n + 1
        return f"{self.prefix}{kind}_{n}"

    def fresh_label(self) -> str:
        self.labels += 1
        return f"{self.label_prefix}{self.labels}"

    def emit(self, text: str) -> None:
        text = text.strip()
        if not text.endswith(";") and not text.endswith(":"):
            text += ";"
        if (m := _NEG16.match(text)) is not None:
            # ptxas (CUDA 13.0, sm_90) negates a .s16 in a 32-bit register without wrapping: -(-32768) reads back
            # as +32768 in a following setp/cvt.s32.s16 (measured on an H200); the two's complement by not and add
            # wraps as the ISA says on both (ring payloads of -0 are -2^15)
            guard, d, a = m.group(1) or "", m.group(2), m.group(3)
            self.lines += [f"{guard}not.b16 {d}, {a};", f"{guard}add.s16 {d}, {d}, 1;"]
            return
        self.lines.append(text)

    def report(self, instr: ir.Instruction, reason: str, *how: object) -> None:
        """A report item for ``instr`` (``how``: severity, native — the report's defaults: error, native)."""
        self._report_fn(instr, reason, *how)

    def reg_type(self, name: str) -> str | None:
        return self.reg_types.get(name)

    text = staticmethod(operand_text)

    # ---------------------------------------------------------------- reading integer views
    def int_view(self, reg: str, bits: int) -> str:
        """``reg`` as an integer register of ``bits``: float-typed registers are copied with mov.bN
        because typed integer instructions reject .f32/.f64/.f16 registers (ISA §6.4.3)."""
        t = self.reg_types.get(reg)
        if t in FLOAT_REG_TYPES and bits in BITS_KIND:
            tmp = self.fresh(BITS_KIND[bits])
            self.emit(f"mov.b{bits} {tmp}, {reg}")
            return tmp
        return reg

    def lane_view(self, reg: str, lane_type: str, lane: int, packed_bits: int) -> str:
        """One lane of a packed register (lane 0 = low half); one split serves both lanes."""
        key = (reg, packed_bits)
        if key not in self.splits:
            lb = packed_bits // 2
            lo, hi = self.fresh(BITS_KIND[lb]), self.fresh(BITS_KIND[lb])
            self.emit(f"mov.b{packed_bits} {{{lo}, {hi}}}, {reg}")
            self.splits[key] = (lo, hi)
        return self.splits[key][lane]

    # ---------------------------------------------------------------- φ
    def embed(self, operand: object, ftype: str, lane: int = 0, packed: str | None = None) -> str:
        r = R.ring(ftype)
        if isinstance(operand, ir.FloatImm):
            return hexc(R.embed_int(_convert_float_bits(operand.bits, operand.width, ftype), ftype), r.w)
        if isinstance(operand, ir.Imm):
            return hexc(R.embed_int(_int_as_float_bits(operand.value, ftype), ftype), r.w)
        # registers declared without '%' parse as Sym
        name = operand.name if isinstance(operand, (ir.Reg, ir.Sym)) else str(operand)
        plain = packed is None and lane == 0
        self.pending.append((name, ("read", ftype) if plain else RAW))
        key = (name, ftype, lane)
        hit = self.cache.get(key)
        if hit is not None:
            self.reads.append((name, hit.def_id))
            return hit.payload
        self.reads.append((name, None))
        if plain and self.resident.get(name) == ftype:  # the register holds its payload
            p = self.int_view(name, r.w)
            self.cache[key] = Shadow(p, NATIVE_COPY)
            return p
        self.bit_reads.append((name, self.last_write.get(name)))
        if packed is not None:
            src = self.lane_view(name, ftype, lane, R.ring(ftype).w * 2)
        else:
            src = self.int_view(name, r.w)
        p = self.embed_value(src, ftype)
        self.cache[key] = Shadow(p, None)
        return p

    def embed_value(self, u: str, ftype: str) -> str:
        """Emit φ(u) for an integer register u of the type's width; returns the payload register."""
        return phi.embed(self, u, R.ring(ftype))

    def unembed_lines(self, v: str, ftype: str, dest: str, guard: ir.Guard | None = None) -> list[str]:
        """The φ⁻¹ sequence writing ``dest`` (returned, not emitted)."""
        saved, self.lines = self.lines, []
        try:
            phi.unembed(self, v, R.ring(ftype), dest, self.reg_types.get(dest) in FLOAT_REG_TYPES, guard_text(guard))
            return [ln for ln in self.lines if isinstance(ln, str)]
        finally:
            self.lines = saved

    def unembed(self, payload: str, ftype: str, dest: object, guard: ir.Guard | None = None) -> None:
        dest = dest.name if isinstance(dest, ir.Reg) else str(dest)
        self.lines.extend(self.unembed_lines(payload, ftype, dest, guard))

    def unembed_to_fresh(self, payload: str, ftype: str) -> str:
        tmp = self.fresh(BITS_KIND[R.ring(ftype).w])
        self.lines.extend(self.unembed_lines(payload, ftype, tmp))
        return tmp

    def define(self, dest: object, payload: str, ftype: str, guard: ir.Guard | None) -> None:
        """The rewritten instruction's result: φ⁻¹ into ``dest`` (droppable when every read of dest
        is served by the shadow), and the shadow registered for later float reads."""
        name = dest.name if isinstance(dest, (ir.Reg, ir.Sym)) else str(dest)
        self.invalidate(name)
        self.pending.append((name, ("def", ftype)))
        if self.resident.get(name) == ftype:  # the register holds its payload: no φ⁻¹
            self.emit(f"{guard_text(guard)}mov.b{R.ring(ftype).w} {name}, {payload}")
            if guard is None:
                self.cache[(name, ftype, 0)] = Shadow(payload, NATIVE_COPY)
            return
        lines = self.unembed_lines(payload, ftype, name, guard)
        if guard is None and self.current_def is not None:
            self.lines.append(Unembed(name, self.current_def, lines))
            self.cache[(name, ftype, 0)] = Shadow(payload, self.current_def)
            self.last_write[name] = self.current_def
        else:
            self.lines.extend(lines)

    def read_bits(self, reg: str) -> None:
        """A rewrite reads ``reg``'s float bits directly (not through :meth:`embed`)."""
        self.bit_reads.append((reg, self.last_write.get(reg)))
        self.pending.append((reg, RAW))

    # ---------------------------------------------------------------- cache maintenance
    def invalidate(self, reg: str) -> None:
        """``reg`` is written: its payloads are stale and its reaching definition unknown (callers that
        know it — define, an unguarded native write — record it in ``last_write`` afterwards)."""
        self.last_write.pop(reg, None)
        self.cache.drop(reg)
        self.splits.drop(reg)

    def shadow(self, operand: object, ftype: str) -> Shadow | None:
        """The cached shadow of a register operand (None for immediates or a miss)."""
        name = operand.name if isinstance(operand, (ir.Reg, ir.Sym)) else None
        return self.cache.get((name, ftype, 0)) if name else None

    def copy_shadow(self, dst: str, src: str) -> None:
        """After a native ``mov dst, src``: dst's payload is src's. Reads it serves depend on the mov
        (a native write), not on the bits of any rewritten definition of dst: def_id NATIVE_COPY."""
        for (_, ft, lane), sh in self.cache.of(src):
            self.cache[(dst, ft, lane)] = Shadow(sh.payload, NATIVE_COPY)

    def clear(self) -> None:
        self.cache.clear()
        self.splits.clear()
        self.memo.clear()
        self.last_write.clear()


def _convert_float_bits(bits: int, width: int, ftype: str) -> int:
    """An immediate's bits converted to ``ftype`` (``0f`` in an f64 op widens, ``0d`` in f32 rounds)."""
    if width == 32:
        val = np.array([bits], dtype=np.uint32).view(np.float32)[0]
    else:
        val = np.array([bits], dtype=np.uint64).view(np.float64)[0]
    return float_to_bits(val, ftype)


def _int_as_float_bits(v: int, ftype: str) -> int:
    return float_to_bits(float(v), ftype)


def float_to_bits(val: Any, ftype: str) -> int:
    """The bits of the value ``val`` in ``ftype`` (rounded to nearest even)."""
    with np.errstate(over="ignore"):
        if ftype == "f32":
            return int(np.array([val], dtype=np.float32).view(np.uint32)[0])
        if ftype == "f64":
            return int(np.array([val], dtype=np.float64).view(np.uint64)[0])
        if ftype == "f16":
            return int(np.array([val], dtype=np.float16).view(np.uint16)[0])
        if ftype == "bf16":  # round-to-nearest-even from f32
            b = int(np.array([val], dtype=np.float32).view(np.uint32)[0])
            return ((b + 0x7FFF + ((b >> 16) & 1)) >> 16) & 0xFFFF
    raise KeyError(ftype)
