"""The modelled ``mma.sync`` forms and the two emitters the expansions write through (PTX ISA
§9.7.14.5.14, fragment layouts §9.7.14.5.8); the expansions are in ``mma_shuffle``/``mma_limbs`` and
the entry points in ``ptxkit.fpsan.mma``.

:func:`plan` checks an instruction against the modelled set (raising :class:`MmaNotModelled` with the
reason) before anything is emitted. :class:`CtxEmitter` emits through the sanitizer's
:class:`ptxkit.fpsan.ctx.RewriteContext` (its fresh registers, φ code and payload cache);
:class:`BlockEmitter` emits a standalone ``{ … }`` block with block-scoped registers (ISA §5.1.1), its
φ code from :mod:`ptxkit.fpsan.phi` on 32-bit registers holding w-bit patterns.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ptxkit.fpsan.ctx import RewriteContext
from ptxkit.fpsan.phi import embed_low, unembed_low
from ptxkit.fpsan.ring import FloatRing, embed_int, ring_for_type, unembed_int
from ptxkit.ir import Instruction, Reg, Sym, Vec

# --------------------------------------------------------------------------- φ constants (fpsan.md §1)


def _ring(ftype: str) -> FloatRing:
    """The φ constants of ``ftype`` (tf32 operands live in f32 registers: embedded as f32)."""
    return ring_for_type("f32" if ftype == "tf32" else ftype)


def phi(u: int, ftype: str) -> int:
    """φ on Python ints (the oracle the emitted PTX must agree with)."""
    return embed_int(u, _ring(ftype).name)


def phi_inv(v: int, ftype: str) -> int:
    """φ⁻¹ on Python ints."""
    return unembed_int(v, _ring(ftype).name)


# --------------------------------------------------------------------------- fragment layouts (§9.7.14.5.8)
# For a source lane with threadID_in_group j, register i and 16-bit half h (0 for 32-bit elements):
#   A: (R, k) — the element is A[g + 8R][k] where g is the groupID shared by the whole lane group;
#   B: k      — the element is B[k][groupID of the source lane];
# C/D register i (half h) of lane (g, t) is element [g + 8R][2t + e] with (R, e) from C_LAYOUT.


@dataclass(frozen=True)
class Shape:
    k: int
    a_regs: int
    b_regs: int
    halves: int  # 2 for packed 16-bit A/B elements, 1 for tf32
    a_elem: Callable[[int, int, int], tuple[int, int]]
    b_elem: Callable[[int, int, int], int]


SHAPES: dict[tuple[str, str], Shape] = {
    # "Matrix fragments for mma.m16n8k16 with floating point type": a0..a7 in 4 regs
    ("m16n8k16", "16"): Shape(16, 4, 2, 2, lambda j, i, h: (i & 1, 2 * j + h + 8 * (i >> 1)),
                              lambda j, i, h: 2 * j + h + 8 * i),
    # "Matrix fragments for mma.m16n8k8" (.f16/.bf16): a0..a3 in 2 regs, b0,b1 in 1
    ("m16n8k8", "16"): Shape(8, 2, 1, 2, lambda j, i, h: (i, 2 * j + h), lambda j, i, h: 2 * j + h),
    # m16n8k8 .tf32: a0 (g, t), a1 (g+8, t), a2 (g, t+4), a3 (g+8, t+4); b0 (t), b1 (t+4)
    ("m16n8k8", "tf32"): Shape(8, 4, 2, 1, lambda j, i, h: (i & 1, j + 4 * (i >> 1)), lambda j, i, h: j + 4 * i),
    # m16n8k4 .tf32: a0 (g, t), a1 (g+8, t); b0 (t)
    ("m16n8k4", "tf32"): Shape(4, 2, 1, 1, lambda j, i, h: (i, j), lambda j, i, h: j),
}
C_F32 = [(0, 0), (0, 1), (1, 0), (1, 1)]  # c0..c3, one f32 each
C_F16 = [[(0, 0), (0, 1)], [(1, 0), (1, 1)]]  # two f16x2 registers


def source_lanes(reg: Callable[[], str], op: Callable[[str], None]) -> tuple[list[str], list[str]]:
    """The lanes a lane (g, t) gathers from (§9.7.14.5.8 fragment layouts): A row g from the four lanes
    4g + j of its group, B columns 2t, 2t+1 from the lanes 8t + j (j < 8), as fresh ``reg()``s."""
    lane, g, t = reg(), reg(), reg()
    op(f"mov.u32 {lane}, %laneid")
    op(f"and.b32 {g}, {lane}, 0x1c")
    op(f"and.b32 {t}, {lane}, 3")
    op(f"shl.b32 {t}, {t}, 3")
    a_src, b_src = [], []
    for j in range(4):
        a_src.append(reg())
        op(f"add.u32 {a_src[-1]}, {g}, {j}")
    for j in range(8):
        b_src.append(reg())
        op(f"add.u32 {b_src[-1]}, {t}, {j}")
    return a_src, b_src


def accumulate(p: MmaPlan, em: Any, element: Callable[[int, int, str], str],
               c_pays: list[list[str]] | None = None) -> None:
    """D from its elements: ``element(r, e, c_pay)`` is the payload register of the element at row
    g + 8r, column 2t + e with E(C) ``c_pay`` (the C payloads, per C register and half, or ``c_pays``);
    f16 accumulators are taken mod 2^16; the results go to ``em.finish`` grouped like the C/D registers."""
    acc16 = p.acc16
    positions = C_F16 if acc16 else [[q] for q in C_F32]
    results: list[list[str]] = []
    for ci, c in enumerate(p.c_regs):
        halves = []
        for h, (r, e) in enumerate(positions[ci]):
            if c_pays is not None:
                c_pay = c_pays[ci][h]
            else:
                c_pay = em.embed_half(c, "f16", h) if acc16 else em.embed_word(c, "f32")
            acc = element(r, e, c_pay)
            if acc16:
                em.op(f"and.b32 {acc}, {acc}, 0xffff")  # mod 2^16
            halves.append(acc)
        results.append(halves)
    em.finish(p.d_regs, results, "f16" if acc16 else "f32")


class MmaNotModelled(Exception):
    """This mma form is outside the modelled set; ``reason`` goes to the sanitizer's report."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True)
class MmaForm:
    shape: str
    dtype: str
    atype: str
    btype: str
    ctype: str


def classify(instr: Instruction) -> MmaForm:
    """Read shape and types off ``mma.sync.aligned.SHAPE.row.col[.satfinite].D.A.B.C``."""
    if instr.opcode == "wgmma" or instr.opcode.startswith("wgmma"):
        raise MmaNotModelled("wgmma is not modelled (operands come from shared-memory descriptors)")
    if instr.opcode != "mma":
        raise MmaNotModelled(f"{instr.opcode} is not an mma instruction")
    mods = list(instr.mods)
    if "sync" not in mods or "aligned" not in mods:
        raise MmaNotModelled("only mma.sync.aligned is modelled")
    if instr.guard is not None:
        raise MmaNotModelled("a guarded mma.sync is not modelled")
    shape = next((m for m in mods if m.startswith("m") and "n" in m and "k" in m), None)
    types = [m for m in mods if m in ("f16", "bf16", "tf32", "f32", "f64", "e4m3", "e5m2", "s8", "u8",
                                       "s4", "u4", "b1", "s32", "e2m1", "e3m2", "e2m3")]
    extra = [m for m in mods if m not in ("sync", "aligned", "row", "col", shape) and m not in types]
    if extra:
        raise MmaNotModelled(f"mma modifier(s) {', '.join('.' + m for m in extra)} not modelled")
    if shape is None or len(types) != 4:
        raise MmaNotModelled("cannot read the mma shape/types")
    if "row" not in mods or "col" not in mods or mods.index("row") > mods.index("col"):
        raise MmaNotModelled("only the .row.col layout is modelled")
    return MmaForm(shape, *types)


# --------------------------------------------------------------------------- PTX emission


# BlockEmitter's register kinds: the name letter after the prefix, and the declared type
_BLOCK_KINDS = {"r": "b32", "h": "b16", "p": "pred", "d": "b64"}


class BlockEmitter:
    """Standalone emission: one ``{ … }`` block with block-scoped registers and its own φ code
    (used by :func:`expand_mma`, i.e. tests and tools that have no sanitizer context)."""

    def __init__(self, prefix: str):
        self.prefix = prefix
        self.count = dict.fromkeys(_BLOCK_KINDS, 0)  # registers of each kind so far
        self.decls: list[str] = []  # block-scoped variables (a helper's .local buffer)
        self.lines: list[str] = []
        self.memo: dict[Any, Any] = {}
        # result register -> register that also receives its f32 payload (wgmma helpers return the
        # accumulator payloads, so the caller's ring reads of D need no φ: ptxkit.fpsan.wgmma)
        self.payload_out: dict[str, str] = {}
        # the helper's f32 accumulators are payloads in and out (the caller's D registers are ring
        # resident, ptxkit.fpsan.resident): no φ of C, no φ⁻¹ of D
        self.payload_only = False

    def _next(self, letter: str) -> str:
        self.count[letter] += 1
        return f"{self.prefix}{letter}{self.count[letter] - 1}"

    def reg(self) -> str:
        return self._next("r")

    def reg16(self) -> str:
        return self._next("h")

    def pred(self) -> str:
        return self._next("p")

    def reg64(self) -> str:
        return self._next("d")

    def label(self, name: str) -> None:
        self.lines.append(f"{name}:")

    def op(self, text: str) -> None:
        self.lines.append("\t" + text + ";")

    def text(self) -> list[str]:
        decl = [f"\t.reg .{t} {self.prefix}{k}<{self.count[k]}>;" for k, t in _BLOCK_KINDS.items() if self.count[k]]
        return ["{", *decl, *("\t" + d for d in self.decls), *self.lines, "}"]

    # -- the ptxkit.fpsan.phi emitter interface, and φ / φ⁻¹ on a 32-bit register holding a w-bit pattern
    def fresh(self, kind: str) -> str:
        return self.pred() if kind == "pred" else self.reg16() if kind == "b16" else self.reg()

    def emit(self, text: str) -> None:
        self.op(text)

    def embed(self, u: str, ftype: str) -> str:
        return embed_low(self, u, _ring(ftype), 32)

    def unembed(self, v: str, ftype: str) -> str:
        return unembed_low(self, v, _ring(ftype), 32)

    def _raw(self, reg: str) -> str:
        raw = self.reg()
        self.op(f"mov.b32 {raw}, {reg}")  # float-typed registers are read through a bit move
        return raw

    def embed_word(self, reg: str, ftype: str) -> str:
        return self.embed(self._raw(reg), ftype)

    def embed_half(self, reg: str, ftype: str, h: int) -> str:
        part = self.reg()
        self.op(f"shr.u32 {part}, {self._raw(reg)}, {16 * h}")
        self.op(f"and.b32 {part}, {part}, 0xffff")
        return self.embed(part, ftype)

    def embed_pair(self, reg: str, ftype: str) -> str:
        lo, hi, out = self.embed_half(reg, ftype, 0), self.embed_half(reg, ftype, 1), self.reg()
        self.op(f"shl.b32 {out}, {hi}, 16")
        self.op(f"or.b32 {out}, {out}, {lo}")
        return out

    def finish(self, d_regs: list[str], results: list[list[str]], acc_type: str) -> None:
        if self.payload_only and acc_type == "f32":
            for d, (v,) in zip(d_regs, results):
                self.op(f"mov.b32 {d}, {v}")
            return
        outs, pays = [], []
        for halves in results:
            vals = [self.unembed(v, acc_type) for v in halves]
            if len(vals) == 2:
                out = self.reg()
                self.op(f"shl.b32 {out}, {vals[1]}, 16")
                self.op(f"or.b32 {out}, {out}, {vals[0]}")
                vals = [out]
            outs.append(vals[0])
            if acc_type == "f32" and len(halves) == 1:
                pays.append(halves[0])
        for d, v in zip(d_regs, outs):  # last: D may alias C
            self.op(f"mov.b32 {d}, {v}")
        for d, v in zip(d_regs, pays):
            if d in self.payload_out:
                self.op(f"mov.b32 {self.payload_out[d]}, {v}")


class CtxEmitter:
    """Emission through the sanitizer's :class:`ptxkit.fpsan.ctx.RewriteContext`: its fresh registers,
    its φ code and payload cache (so an A/B/C register already embedded costs nothing)."""

    def __init__(self, ctx: RewriteContext):
        self.ctx = ctx
        # gathered fragments live as long as the payload registers they were computed from: the
        # context clears this memo with its payload cache (labels, blocks), see RewriteContext.memo
        self.memo = ctx.memo

    def reg(self) -> str:
        return self.ctx.fresh("b32")

    def reg16(self) -> str:
        return self.ctx.fresh("b16")

    def pred(self) -> str:
        return self.ctx.fresh("pred")

    def op(self, text: str) -> None:
        self.ctx.emit(text)

    def embed_word(self, reg: str, ftype: str) -> str:
        return self.ctx.embed(Reg(reg), ftype)

    def _half16(self, reg: str, ftype: str, h: int) -> str:
        return self.ctx.embed(Reg(reg), ftype, lane=h, packed=ftype + "x2")  # a b16 payload

    def embed_half(self, reg: str, ftype: str, h: int) -> str:
        out = self.reg()
        self.op(f"cvt.u32.u16 {out}, {self._half16(reg, ftype, h)}")
        return out

    def embed_pair(self, reg: str, ftype: str) -> str:
        lo, hi = self._half16(reg, ftype, 0), self._half16(reg, ftype, 1)
        key = ("pair", lo, hi)
        if key not in self.memo:  # the same payloads packed once (an operand shared by several mma)
            out = self.reg()
            self.op(f"mov.b32 {out}, {{{lo}, {hi}}}")
            self.memo[key] = out
        return self.memo[key]

    def finish(self, d_regs: list[str], results: list[list[str]], acc_type: str) -> None:
        if acc_type == "f32":
            # define (not a bare φ⁻¹): D's payload stays a shadow, so the next mma accumulating on
            # it (C == D) reads the payload and the φ⁻¹/φ pair between them can go. All sums are
            # computed before the first define, so D aliasing A/B/C is harmless.
            for d, (v,) in zip(d_regs, results):
                self.ctx.define(Reg(d), v, "f32", None)
            return
        packed = []
        for halves in results:
            parts = []
            for v in halves:
                p16 = self.ctx.fresh("b16")
                self.op(f"cvt.u16.u32 {p16}, {v}")  # integer cvt to a narrower type chops: mod 2^16
                parts.append(self.ctx.unembed_to_fresh(p16, "f16"))
            out = self.reg()
            self.op(f"mov.b32 {out}, {{{parts[0]}, {parts[1]}}}")
            packed.append(out)
        for d, v in zip(d_regs, packed):  # last: D may alias C
            self.ctx.invalidate(d)
            self.op(f"mov.b32 {d}, {v}")


def operand_regs(op: object, n: int, what: str) -> list[str]:
    items = op.items if isinstance(op, Vec) else (op,)
    # registers declared without '%' parse as Sym (the sanitizer treats them alike)
    if len(items) != n or not all(isinstance(x, (Reg, Sym)) for x in items):
        raise MmaNotModelled(f"mma {what} operand is not a vector of {n} registers")
    return [x.name for x in items if isinstance(x, (Reg, Sym))]


@dataclass
class MmaPlan:
    form: MmaForm
    shape: Shape
    acc16: bool
    d_regs: list[str]
    a_regs: list[str]
    b_regs: list[str]
    c_regs: list[str]


def plan(instr: Instruction) -> MmaPlan:
    """Check that ``instr`` is a modelled mma form (raises :class:`MmaNotModelled`) — before anything
    is emitted, so a refusal leaves the sanitizer's state untouched."""
    f = classify(instr)
    if f.atype != f.btype:
        raise MmaNotModelled(f"mixed A/B types .{f.atype}/.{f.btype} not modelled")
    in_kind = "tf32" if f.atype == "tf32" else ("16" if f.atype in ("f16", "bf16") else None)
    shape = SHAPES.get((f.shape, in_kind)) if in_kind else None
    if shape is None:
        raise MmaNotModelled(f"mma.{f.shape} with .{f.atype} inputs is not modelled")
    if (f.dtype, f.ctype) not in (("f32", "f32"), ("f16", "f16")) or (in_kind == "tf32" and f.dtype != "f32"):
        raise MmaNotModelled(f"mma accumulators .{f.dtype}/.{f.ctype} not modelled")
    acc16 = f.dtype == "f16"
    n_c = 2 if acc16 else 4
    if len(instr.operands) != 4:
        raise MmaNotModelled("mma expects four operands")
    d_regs = operand_regs(instr.operands[0], n_c, "D")
    a_regs = operand_regs(instr.operands[1], shape.a_regs, "A")
    b_regs = operand_regs(instr.operands[2], shape.b_regs, "B")
    c_regs = operand_regs(instr.operands[3], n_c, "C")
    return MmaPlan(f, shape, acc16, d_regs, a_regs, b_regs, c_regs)
