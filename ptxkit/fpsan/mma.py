"""FPSan for warp-level ``mma.sync`` (PTX ISA §9.7.14.5.14 and the fragment layouts of §9.7.14.5.8).

The ring semantics (docs/fpsan.md §2 "dot / mma") is::

    D[r][c] = Σ_k sext(E(A[r][k])) · sext(E(B[k][c])) + E(C[r][c])   mod 2^(accumulator width)

Each lane only holds a few fragment elements, so the expansion works across the warp:

1. every lane embeds its own A/B fragment elements (φ of the input type, bit-packed back into
   32-bit registers so a 16-bit pair still travels in one shuffle);
2. ``shfl.sync.idx`` gathers, for the lane's outputs at rows ``g``/``g+8`` and columns ``2t``/``2t+1``
   (g = laneid>>2, t = laneid&3), the A fragments of the four lanes of its group (which hold rows g and
   g+8 entirely) and the B fragments of the lanes whose groupID is ``2t``/``2t+1`` (columns);
3. integer ``mad.lo`` accumulates the sign-extended products on top of E(C); φ⁻¹ writes D.

The rewrite is emitted as one ``{ … }`` block with block-scoped ``.reg`` declarations, so it needs
no fresh-register service and sibling blocks may reuse the names (ISA §5.1.1: registers declared in
a block are visible only there). D is written last because nvcc/Triton often pass D == C.

Modelled: ``m16n8k16`` and ``m16n8k8`` with ``.f16``/``.bf16`` A/B and ``.f32`` or ``.f16``
accumulators, ``m16n8k8``/``m16n8k4`` with ``.tf32`` A/B (embedded as f32 payloads) and ``.f32``
accumulators. Not modelled (reported by :class:`MmaNotModelled`): other shapes (``m8n8k4`` quad-pair
layouts), f64 and fp8 variants, guarded mma, ``wgmma`` (operands in shared-memory descriptors).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from ptxkit.fpsan.ring import FloatRing, embed_int, ring_for_type, unembed_int
from ptxkit.ir import Instruction, Reg, Vec

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


class _BlockEmitter:
    """Standalone emission: one ``{ … }`` block with block-scoped registers and its own φ code
    (used by :func:`expand_mma`, i.e. tests and tools that have no sanitizer context)."""

    def __init__(self, prefix: str):
        self.prefix = prefix
        self.n = 0
        self.np = 0
        self.lines: list[str] = []

    def reg(self) -> str:
        self.n += 1
        return f"{self.prefix}r{self.n - 1}"

    def pred(self) -> str:
        self.np += 1
        return f"{self.prefix}p{self.np - 1}"

    def op(self, text: str) -> None:
        self.lines.append("\t" + text + ";")

    def text(self) -> list[str]:
        decl = []
        if self.n:
            decl.append(f"\t.reg .b32 {self.prefix}r<{self.n}>;")
        if self.np:
            decl.append(f"\t.reg .pred {self.prefix}p<{self.np}>;")
        return ["{"] + decl + self.lines + ["}"]

    # -- φ / φ⁻¹ on a 32-bit register holding a w-bit pattern (high bits zero)
    def embed(self, u: str, ftype: str) -> str:
        e = _ring(ftype)
        neg, y, t, m, p = self.reg(), self.reg(), self.reg(), self.reg(), self.pred()
        self.op(f"and.b32 {neg}, {u}, {e.sign:#x}")
        self.op(f"mul.lo.u32 {y}, {u}, {e.mulA:#x}")
        self.op(f"and.b32 {y}, {y}, {e.mag:#x}")
        self.op(f"shr.u32 {t}, {y}, {e.shift}")
        self.op(f"xor.b32 {y}, {y}, {t}")
        self.op(f"setp.ne.u32 {p}, {neg}, 0")
        self.op(f"selp.b32 {m}, {e.mulBNeg:#x}, {e.mulBPos:#x}, {p}")
        self.op(f"mul.lo.u32 {y}, {y}, {m}")
        self.op(f"and.b32 {y}, {y}, {e.mag:#x}")
        self.op(f"or.b32 {y}, {y}, {neg}")
        return y

    def unembed(self, v: str, ftype: str) -> str:
        e = _ring(ftype)
        neg, z, t, m, p = self.reg(), self.reg(), self.reg(), self.reg(), self.pred()
        self.op(f"and.b32 {neg}, {v}, {e.sign:#x}")
        self.op(f"setp.ne.u32 {p}, {neg}, 0")
        self.op(f"selp.b32 {m}, {e.invBNeg:#x}, {e.invBPos:#x}, {p}")
        self.op(f"mul.lo.u32 {z}, {v}, {m}")
        self.op(f"and.b32 {z}, {z}, {e.mag:#x}")
        s = e.shift
        while s < e.w:  # undo the xorshift (fpsan.md §1)
            self.op(f"shr.u32 {t}, {z}, {s}")
            self.op(f"xor.b32 {z}, {z}, {t}")
            s *= 2
        self.op(f"mul.lo.u32 {z}, {z}, {e.invA:#x}")
        self.op(f"and.b32 {z}, {z}, {e.mag:#x}")
        self.op(f"or.b32 {z}, {z}, {neg}")
        return z

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
        outs = []
        for halves in results:
            vals = [self.unembed(v, acc_type) for v in halves]
            if len(vals) == 2:
                out = self.reg()
                self.op(f"shl.b32 {out}, {vals[1]}, 16")
                self.op(f"or.b32 {out}, {out}, {vals[0]}")
                vals = [out]
            outs.append(vals[0])
        for d, v in zip(d_regs, outs):  # last: D may alias C
            self.op(f"mov.b32 {d}, {v}")


class _CtxEmitter:
    """Emission through the sanitizer's :class:`ptxkit.fpsan.ctx.RewriteContext`: its fresh registers,
    its φ code and payload cache (so an A/B/C register already embedded costs nothing)."""

    def __init__(self, ctx):
        self.ctx = ctx

    def reg(self) -> str:
        return self.ctx.fresh("b32")

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
        lo, hi, out = self._half16(reg, ftype, 0), self._half16(reg, ftype, 1), self.reg()
        self.op(f"mov.b32 {out}, {{{lo}, {hi}}}")
        return out

    def finish(self, d_regs: list[str], results: list[list[str]], acc_type: str) -> None:
        if acc_type == "f32":
            for d, (v,) in zip(d_regs, results):
                self.ctx.invalidate(d)
                self.ctx.unembed(v, "f32", d)
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


def _regs(op, n: int, what: str) -> list[str]:
    items = op.items if isinstance(op, Vec) else (op,)
    if len(items) != n or not all(isinstance(x, Reg) for x in items):
        raise MmaNotModelled(f"mma {what} operand is not a vector of {n} registers")
    return [x.name for x in items]


@dataclass
class _Plan:
    form: MmaForm
    shape: Shape
    acc16: bool
    d_regs: list[str]
    a_regs: list[str]
    b_regs: list[str]
    c_regs: list[str]


def plan(instr: Instruction) -> _Plan:
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
    d_regs = _regs(instr.operands[0], n_c, "D")
    a_regs = _regs(instr.operands[1], shape.a_regs, "A")
    b_regs = _regs(instr.operands[2], shape.b_regs, "B")
    c_regs = _regs(instr.operands[3], n_c, "C")
    return _Plan(f, shape, acc16, d_regs, a_regs, b_regs, c_regs)


def _generate(p: _Plan, em) -> None:
    """Emit the ring semantics of the planned mma through ``em``."""
    f, shape, acc16 = p.form, p.shape, p.acc16
    in_kind = "tf32" if f.atype == "tf32" else "16"
    a_regs, b_regs, c_regs, d_regs = p.a_regs, p.b_regs, p.c_regs, p.d_regs
    et = "f32" if in_kind == "tf32" else f.atype
    if shape.halves == 1:
        a_pay = [em.embed_word(r, et) for r in a_regs]
        b_pay = [em.embed_word(r, et) for r in b_regs]
    else:  # both 16-bit payloads of a register travel together in one 32-bit shuffle
        a_pay = [em.embed_pair(r, et) for r in a_regs]
        b_pay = [em.embed_pair(r, et) for r in b_regs]

    lane, g, t, base, src = em.reg(), em.reg(), em.reg(), em.reg(), em.reg()
    em.op(f"mov.u32 {lane}, %laneid")
    em.op(f"shr.u32 {g}, {lane}, 2")
    em.op(f"and.b32 {t}, {lane}, 3")

    def element(packed: str, h: int) -> str:
        """The sign-extended payload of half ``h`` (or the whole 32-bit payload)."""
        if shape.halves == 1:
            return packed
        out = em.reg()
        em.op(f"shl.b32 {out}, {packed}, {16 - 16 * h}")  # move the half to the top, then
        em.op(f"shr.s32 {out}, {out}, 16")                 # arithmetic shift = sext 16 → 32
        return out

    # A rows g (R=0) and g+8 (R=1), indexed by k: lanes 4g+j of this lane's group hold them.
    a_row: list[list[str | None]] = [[None] * shape.k, [None] * shape.k]
    em.op(f"and.b32 {base}, {lane}, 0x1c")
    for j in range(4):
        em.op(f"add.u32 {src}, {base}, {j}")
        for i, pay in enumerate(a_pay):
            got = em.reg()
            em.op(f"shfl.sync.idx.b32 {got}, {pay}, {src}, 0x1f, 0xffffffff")
            for h in range(shape.halves):
                r, k = shape.a_elem(j, i, h)
                a_row[r][k] = element(got, h)
    # B columns 2t (e=0) and 2t+1 (e=1): held by the lanes with groupID 2t+e, i.e. lanes 8t+4e+j.
    b_col: list[list[str | None]] = [[None] * shape.k, [None] * shape.k]
    em.op(f"shl.b32 {base}, {t}, 3")
    for e in range(2):
        for j in range(4):
            em.op(f"add.u32 {src}, {base}, {4 * e + j}")
            for i, pay in enumerate(b_pay):
                got = em.reg()
                em.op(f"shfl.sync.idx.b32 {got}, {pay}, {src}, 0x1f, 0xffffffff")
                for h in range(shape.halves):
                    b_col[e][shape.b_elem(j, i, h)] = element(got, h)
    assert all(x is not None for row in a_row + b_col for x in row), "fragment layout incomplete"

    # Accumulate on top of E(C), per D element; outputs grouped like the C/D registers.
    acc_type = "f16" if acc16 else "f32"
    positions = C_F16 if acc16 else [[p] for p in C_F32]
    results: list[list[str]] = []
    for ci, c in enumerate(c_regs):
        halves = []
        for h, (r, e) in enumerate(positions[ci]):
            c_pay = em.embed_half(c, "f16", h) if acc16 else em.embed_word(c, "f32")
            acc = em.reg()
            em.op(f"mov.b32 {acc}, {c_pay}")  # a copy: the payload may be a cached shadow
            for k in range(shape.k):
                em.op(f"mad.lo.u32 {acc}, {a_row[r][k]}, {b_col[e][k]}, {acc}")
            if acc16:
                em.op(f"and.b32 {acc}, {acc}, 0xffff")  # mod 2^16
            halves.append(acc)
        results.append(halves)
    em.finish(d_regs, results, acc_type)


def expand_mma(instr: Instruction, prefix: str = "%fpsan_mma_") -> list[str]:
    """The standalone integer PTX block (lines) computing the ring semantics of ``instr``; raises
    :class:`MmaNotModelled` for forms outside the modelled set."""
    p = plan(instr)
    em = _BlockEmitter(prefix)
    _generate(p, em)
    return em.text()


def rewrite_mma(instr: Instruction, ctx) -> bool:
    """The sanitizer's hook (contract in ``ptxkit/fpsan/ctx.py``): emit the expansion of one
    ``mma``/``wgmma`` through ``ctx`` and return True, or return False (emitting nothing) when the form
    is not modelled — the caller reports it; :func:`why_not_modelled` gives the specific reason."""
    try:
        p = plan(instr)
    except MmaNotModelled:
        return False
    _generate(p, _CtxEmitter(ctx))
    return True


def why_not_modelled(instr: Instruction) -> str | None:
    """None when :func:`rewrite_mma` models ``instr``, else the reason (for the sanitizer's report)."""
    try:
        plan(instr)
    except MmaNotModelled as e:
        return e.reason
    return None
