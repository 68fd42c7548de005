"""FPSan for warp-level ``mma.sync`` (PTX ISA §9.7.14.5.14 and the fragment layouts of §9.7.14.5.8).

The ring semantics (docs/fpsan.md §2 "dot / mma") is::

    D[r][c] = Σ_k sext(E(A[r][k])) · sext(E(B[k][c])) + E(C[r][c])   mod 2^(accumulator width)

Each lane only holds a few fragment elements, so the expansion works across the warp:

1. every lane embeds its own A/B fragment elements (φ of the input type, bit-packed back into
   32-bit registers so a 16-bit pair still travels in one shuffle);
2. ``shfl.sync.idx`` gathers, for the lane's outputs at rows ``g``/``g+8`` and columns ``2t``/``2t+1``
   (g = laneid>>2, t = laneid&3), the A fragments of the four lanes of its group (which hold rows g and
   g+8 entirely) and the B fragments of the lanes whose groupID is ``2t``/``2t+1`` (columns);
3. integer multiply-adds accumulate the sign-extended products on top of E(C): for 16-bit inputs
   ``mad.wide.s16`` on the 16-bit halves of the gathered words (its signed 16×16→32 product is
   ``sext(E(a))·sext(E(b))`` mod 2^32, so no shifts to extract and sign-extend), ``mad.lo`` for tf32;
   φ⁻¹ writes D (through the sanitizer's ``define``, so a following mma with C == D reads the payload).

Compactness (ptxas time grows quickly with the expansion's size): the source-lane indices and every
gathered operand are memoised per straight-line run on the payload registers they come from
(``RewriteContext.memo``), so consecutive mma sharing A (the usual ``for n: D[n] += A·B[n]`` tile
loop) shuffle A once. Per m16n8k16 f16 mma: 16 shuffles for B (+16 for A when not shared), 16 word
splits, 64 ``mad.wide.s16`` — about half the lines of the first version (shl/shr per element, A
gathered per mma, every D unembedded and re-embedded).

Two expansions:

* ``shuffle`` (above): integer code only;
* ``limbs``: no data exchange at all. A 16-bit payload is ``hi·2^8 + lo`` with 8-bit limbs that f16
  holds exactly; four ``mma.sync …f32.f16.f16.f32`` on the limb fragments (same layout as the
  operands) give exact integer sums (< 2^24), combined as ``HH·2^16 + (HL+LH)·2^8 + LL + E(C)``
  mod 2^32. A tf32 (32-bit) payload has four unsigned byte limbs and ten tf32 mma (byte pairs with
  i + j ≤ 3; higher ones vanish mod 2^32). The output then contains float mma, but only on exact
  small integers. Being per fragment element, it also models ``wmma.mma`` (:func:`rewrite_wmma`),
  whose fragment layouts the ISA leaves unspecified.

``ptxkit.fpsan_ptx`` picks per function (:func:`auto_mode`): ptxas time is superlinear in the number
of ``shfl.sync`` (sanitized ``triton_attn_fwd_sm80.ptx``, 128 mma: 52 s of ptxas with shuffles, 3 s
with limbs, 0.3 s unsanitized), so functions with many mma use limbs.

The standalone rewrite (:func:`expand_mma`) is emitted as one ``{ … }`` block with block-scoped
``.reg`` declarations, so it needs no fresh-register service and sibling blocks may reuse the names
(ISA §5.1.1: registers declared in a block are visible only there). D is written last because
nvcc/Triton often pass D == C.

Modelled: ``m16n8k16`` and ``m16n8k8`` with ``.f16``/``.bf16`` A/B and ``.f32`` or ``.f16``
accumulators, ``m16n8k8``/``m16n8k4`` with ``.tf32`` A/B (embedded as f32 payloads) and ``.f32``
accumulators; ``wmma.mma`` with f32 accumulators and f16 (k = 16) or tf32 (k = 8) inputs. Not
modelled (reported by :class:`MmaNotModelled`): other shapes (``m8n8k4`` quad-pair layouts), f64 and
fp8 variants, guarded mma, ``wgmma`` (operands in shared-memory descriptors).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

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
        self.nh = 0
        self.np = 0
        self.lines: list[str] = []
        self.memo: dict = {}

    def reg(self) -> str:
        self.n += 1
        return f"{self.prefix}r{self.n - 1}"

    def reg16(self) -> str:
        self.nh += 1
        return f"{self.prefix}h{self.nh - 1}"

    def pred(self) -> str:
        self.np += 1
        return f"{self.prefix}p{self.np - 1}"

    def op(self, text: str) -> None:
        self.lines.append("\t" + text + ";")

    def text(self) -> list[str]:
        decl = []
        if self.n:
            decl.append(f"\t.reg .b32 {self.prefix}r<{self.n}>;")
        if self.nh:
            decl.append(f"\t.reg .b16 {self.prefix}h<{self.nh}>;")
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


def _regs(op, n: int, what: str) -> list[str]:
    items = op.items if isinstance(op, Vec) else (op,)
    # registers declared without '%' parse as Sym (the sanitizer treats them alike)
    if len(items) != n or not all(isinstance(x, (Reg, Sym)) for x in items):
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


def _generate(p: _Plan, em, mode: str = "shuffle") -> None:
    """Emit the ring semantics of the planned mma through ``em`` (``mode``: see :func:`auto_mode`)."""
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

    if mode == "limbs":
        (_generate_limbs if shape.halves == 2 else _generate_limbs32)(p, em, a_pay, b_pay)
        return

    # tf32 (32-bit payloads): gather across the warp with shuffles.
    # Source lanes, once per straight-line run (memo): A rows g/g+8 are held by the four lanes 4g+j
    # of this lane's group; B columns 2t/2t+1 by the lanes with groupID 2t+e, i.e. lanes 8t+4e+j.
    if "lanes" not in em.memo:
        lane, g, t = em.reg(), em.reg(), em.reg()
        em.op(f"mov.u32 {lane}, %laneid")
        em.op(f"and.b32 {g}, {lane}, 0x1c")
        em.op(f"and.b32 {t}, {lane}, 3")
        em.op(f"shl.b32 {t}, {t}, 3")
        a_src, b_src = [], []
        for j in range(4):
            a_src.append(em.reg())
            em.op(f"add.u32 {a_src[-1]}, {g}, {j}")
        for j in range(8):
            b_src.append(em.reg())
            em.op(f"add.u32 {b_src[-1]}, {t}, {j}")
        em.memo["lanes"] = (a_src, b_src)
    a_src, b_src = em.memo["lanes"]

    def split(got: str) -> list[str]:
        """The fragment word's elements: 16-bit halves (lo, hi) as b16 registers for
        ``mad.wide.s16`` (whose signed 16×16→32 product is the sign-extended ring product), or the
        32-bit payload itself."""
        if shape.halves == 1:
            return [got]
        lo, hi = em.reg16(), em.reg16()
        em.op(f"mov.b32 {{{lo}, {hi}}}, {got}")
        return [lo, hi]

    def gather(pays: list[str], srcs: list[str], elem) -> list[list[str]]:
        """shfl every payload word from every source lane, placed by ``elem(j, i, h) -> (row, k)``.
        Memoised on the payload registers: consecutive mma sharing an operand gather it once."""
        key = ("gather", shape.k, shape.halves, elem is a_elem, tuple(pays))
        if key in em.memo:
            return em.memo[key]
        out: list[list[str | None]] = [[None] * shape.k, [None] * shape.k]
        for j, src in enumerate(srcs):
            for i, pay in enumerate(pays):
                got = em.reg()
                em.op(f"shfl.sync.idx.b32 {got}, {pay}, {src}, 0x1f, 0xffffffff")
                for h, part in enumerate(split(got)):
                    r, k = elem(j, i, h)
                    out[r][k] = part
        assert all(x is not None for row in out for x in row), "fragment layout incomplete"
        em.memo[key] = out
        return out

    def a_elem(j, i, h):
        return shape.a_elem(j, i, h)

    def b_elem(jj, i, h):  # source jj = 4e + j: column e
        return jj >> 2, shape.b_elem(jj & 3, i, h)

    a_row = gather(a_pay, a_src, a_elem)
    b_col = gather(b_pay, b_src, b_elem)
    mad = "mad.lo.u32" if shape.halves == 1 else "mad.wide.s16"

    # Accumulate on top of E(C), per D element; outputs grouped like the C/D registers.
    acc_type = "f16" if acc16 else "f32"
    positions = C_F16 if acc16 else [[p] for p in C_F32]
    results: list[list[str]] = []
    for ci, c in enumerate(c_regs):
        halves = []
        for h, (r, e) in enumerate(positions[ci]):
            c_pay = em.embed_half(c, "f16", h) if acc16 else em.embed_word(c, "f32")
            acc = em.reg()  # a fresh register: C's payload may be a cached shadow read again later
            for k in range(shape.k):
                em.op(f"{mad} {acc}, {a_row[r][k]}, {b_col[e][k]}, {c_pay if k == 0 else acc}")
            if acc16:
                em.op(f"and.b32 {acc}, {acc}, 0xffff")  # mod 2^16
            halves.append(acc)
        results.append(halves)
    em.finish(d_regs, results, acc_type)


# 16-bit payload p (sign-extended) = hi·2^8 + lo with lo = p & 0xff ∈ [0, 255] and hi = p >> 8 (arithmetic)
# ∈ [−128, 127]: both exact as f16, so four float mma on the limb matrices give exact integers
# (|Σ| ≤ 16·2·128·255 < 2^24, and integers below 2^24 are exact in the f32 accumulator whatever the
# summation order) and Σ sext(a)·sext(b) = HH·2^16 + (HL + LH)·2^8 + LL mod 2^32. The limbs keep the
# operands' fragment layout, so no data moves between lanes.
_LO_MAGIC = 0x64006400  # f16 1024.0 in both halves: bits(1024 + v) = 0x6400 | v for v < 1024
_HI_MAGIC = 0x64806480  # f16 1152.0: 1024 + (hi_u ^ 0x80) − 1152 = hi as a signed byte


def _limbs(em, pay: str) -> tuple[str, str]:
    """(lo, hi) limb registers (f16x2) of a word holding two 16-bit payloads; memoised per payload."""
    key = ("limbs", pay)
    if key in em.memo:
        return em.memo[key]
    consts = em.memo.get("limb_consts")
    if consts is None:
        consts = (em.reg(), em.reg(), em.reg())
        em.op(f"mov.b32 {consts[0]}, {_LO_MAGIC:#x}")
        em.op(f"mov.b32 {consts[1]}, {_HI_MAGIC:#x}")
        em.op(f"mov.b32 {consts[2]}, 0")
        em.memo["limb_consts"] = consts
    t1, t2, lo = em.reg(), em.reg(), em.reg()
    em.op(f"and.b32 {t1}, {pay}, 0xff00ff")
    em.op(f"or.b32 {t2}, {t1}, {_LO_MAGIC:#x}")
    em.op(f"sub.rn.f16x2 {lo}, {t2}, {consts[0]}")  # exact: 1024 + v − 1024
    t3, t4, t5, hi = em.reg(), em.reg(), em.reg(), em.reg()
    em.op(f"shr.u32 {t3}, {pay}, 8")
    em.op(f"and.b32 {t4}, {t3}, 0xff00ff")
    em.op(f"xor.b32 {t5}, {t4}, {_HI_MAGIC:#x}")  # 0x6400 | (hi_u ^ 0x80): the bits are disjoint
    em.op(f"sub.rn.f16x2 {hi}, {t5}, {consts[1]}")
    em.memo[key] = (lo, hi)
    return lo, hi


def _limb_matmuls(em, op: str, a_l: list, b_l: list, n_acc: int) -> tuple[list[str], list[str], list[str]]:
    """The three exact f16 matrix products of the limb expansion with opcode ``op``: low·low,
    high·low + low·high (one accumulation: |Σ| ≤ 2·16·128·255 < 2^24) and high·high; ``n_acc`` f32
    accumulator registers each."""
    zero = em.memo["limb_consts"][2]

    def run(ai: int, bi: int, c: list[str]) -> list[str]:
        d = [em.reg() for _ in range(n_acc)]
        em.op(f"{op} {{{', '.join(d)}}}, {{{', '.join(x[ai] for x in a_l)}}}, "
              f"{{{', '.join(x[bi] for x in b_l)}}}, {{{', '.join(c)}}}")
        return d

    return run(0, 0, [zero] * n_acc), run(0, 1, run(1, 0, [zero] * n_acc)), run(1, 1, [zero] * n_acc)


def _generate_limbs(p: _Plan, em, a_pay: list[str], b_pay: list[str]) -> None:
    """16-bit inputs: the ring products through four f16 ``mma`` on 8-bit limbs (see above)."""
    acc16 = p.acc16
    a_l = [_limbs(em, x) for x in a_pay]
    b_l = [_limbs(em, x) for x in b_pay]
    ll, mid, hh = _limb_matmuls(em, f"mma.sync.aligned.{p.form.shape}.row.col.f32.f16.f16.f32", a_l, b_l, 4)

    def as_int(f: str) -> str:
        o = em.reg()
        em.op(f"cvt.rni.s32.f32 {o}, {f}")  # an exact integer: the conversion is exact
        return o

    acc_type = "f16" if acc16 else "f32"
    positions = C_F16 if acc16 else [[q] for q in C_F32]
    results: list[list[str]] = []
    for ci, c in enumerate(p.c_regs):
        halves = []
        for h, (r, e) in enumerate(positions[ci]):
            i = 2 * r + e  # the f32 D register of element (row g + 8r, column 2t + e)
            c_pay = em.embed_half(c, "f16", h) if acc16 else em.embed_word(c, "f32")
            x, y, acc = em.reg(), em.reg(), em.reg()
            em.op(f"mad.lo.u32 {x}, {as_int(mid[i])}, 256, {as_int(ll[i])}")
            em.op(f"mad.lo.u32 {y}, {as_int(hh[i])}, 65536, {x}")
            em.op(f"add.u32 {acc}, {y}, {c_pay}")
            if acc16:
                em.op(f"and.b32 {acc}, {acc}, 0xffff")  # mod 2^16
            halves.append(acc)
        results.append(halves)
    em.finish(p.d_regs, results, acc_type)


# ptxas time grows superlinearly with the number of shfl.sync in a function: the sanitized
# triton_attn_fwd_sm80.ptx (128 mma, 2240 shuffles) takes ~50 s of ptxas against 0.3 s for the
# original, and 3 s with the limb expansion. A few mma (GEMM tiles, dot16) stay on the shuffles.
LIMBS_FROM = 16


def auto_mode(n_mma: int) -> str:
    """The expansion ``auto`` picks for a function with ``n_mma`` mma instructions: ``shuffle``
    (integer-only code) below :data:`LIMBS_FROM`, ``limbs`` from there on."""
    return "limbs" if n_mma >= LIMBS_FROM else "shuffle"


def _limbs32(em, pay: str) -> list[str]:
    """The four unsigned bytes of a 32-bit payload as f32 values (exact in tf32: integers ≤ 255);
    memoised per payload. Unsigned limbs are fine: the ring product is taken mod 2^32."""
    key = ("limbs32", pay)
    if key not in em.memo:
        out = []
        for i in range(4):
            t, f = em.reg(), em.reg()
            em.op(f"bfe.u32 {t}, {pay}, {8 * i}, 8")
            em.op(f"cvt.rn.f32.u32 {f}, {t}")
            out.append(f)
        em.memo[key] = out
    return em.memo[key]


def _zero(em) -> str:
    if "zero" not in em.memo:
        z = em.reg()
        em.op(f"mov.b32 {z}, 0")
        em.memo["zero"] = z
    return em.memo["zero"]


def limb_products32(em, a_pay: list[str], b_pay: list[str], n_out: int, run) -> list[list[str]]:
    """S_s = Σ_{i+j=s} A_i·B_j for s = 0..3 (bytes i, j; i + j > 3 vanish mod 2^32), each through
    ``run(a_limb_regs, b_limb_regs, c_regs) -> d_regs``: ≤ 4·k·255² < 2^24, so every sum is exact."""
    a_l = [_limbs32(em, x) for x in a_pay]
    b_l = [_limbs32(em, x) for x in b_pay]
    sums = []
    for s_ in range(4):
        acc = [_zero(em)] * n_out
        for i in range(s_ + 1):
            acc = run([x[i] for x in a_l], [x[s_ - i] for x in b_l], acc)
        sums.append(acc)
    return sums


def combine32(em, sums: list[list[str]], i: int, c_pay: str) -> str:
    """Σ_s S_s[i]·2^(8s) + E(C) mod 2^32 (the exact float sums converted to integers first)."""
    ints = []
    for part in sums:
        o = em.reg()
        em.op(f"cvt.rni.s32.f32 {o}, {part[i]}")
        ints.append(o)
    acc = ints[0]
    for s_ in range(1, 4):
        x = em.reg()
        em.op(f"mad.lo.u32 {x}, {ints[s_]}, {1 << (8 * s_)}, {acc}")
        acc = x
    out = em.reg()
    em.op(f"add.u32 {out}, {acc}, {c_pay}")
    return out


def _generate_limbs32(p: _Plan, em, a_pay: list[str], b_pay: list[str]) -> None:
    """tf32 inputs (32-bit payloads): ten tf32 ``mma`` on byte limbs (see :func:`limb_products32`)."""
    op = f"mma.sync.aligned.{p.form.shape}.row.col.f32.tf32.tf32.f32"

    def run(a: list[str], b: list[str], c: list[str]) -> list[str]:
        d = [em.reg() for _ in range(4)]
        em.op(f"{op} {{{', '.join(d)}}}, {{{', '.join(a)}}}, {{{', '.join(b)}}}, {{{', '.join(c)}}}")
        return d

    sums = limb_products32(em, a_pay, b_pay, 4, run)
    results = [[combine32(em, sums, i, em.embed_word(c, "f32"))] for i, c in enumerate(p.c_regs)]
    em.finish(p.d_regs, results, "f32")


def expand_mma(instr: Instruction, prefix: str = "%fpsan_mma_", mode: str = "shuffle") -> list[str]:
    """The standalone PTX block (lines) computing the ring semantics of ``instr``; raises
    :class:`MmaNotModelled` for forms outside the modelled set. ``mode``: ``shuffle`` or ``limbs``."""
    p = plan(instr)
    em = _BlockEmitter(prefix)
    _generate(p, em, mode)
    return em.text()


def rewrite_mma(instr: Instruction, ctx) -> bool:
    """The sanitizer's hook (contract in ``ptxkit/fpsan/ctx.py``): emit the expansion of one
    ``mma``/``wgmma`` through ``ctx`` and return True, or return False (emitting nothing) when the form
    is not modelled — the caller reports it; :func:`why_not_modelled` gives the specific reason."""
    try:
        p = plan(instr)
    except MmaNotModelled:
        return False
    _generate(p, _CtxEmitter(ctx), getattr(ctx, "mma_mode", "shuffle"))
    return True


def why_not_modelled(instr: Instruction) -> str | None:
    """None when :func:`rewrite_mma` models ``instr``, else the reason (for the sanitizer's report)."""
    try:
        plan(instr)
    except MmaNotModelled as e:
        return e.reason
    return None


# --------------------------------------------------------------------------- wmma.mma (ISA §9.7.14.4)
# shape -> (A registers, B registers) for f16 inputs (.f32.f32) and tf32 inputs (.f32.tf32.tf32.f32)
_WMMA_F16 = {"m16n16k16": (8, 8), "m32n8k16": (8, 8), "m8n32k16": (8, 8)}
_WMMA_TF32 = {"m16n16k8": (4, 4)}


def wmma_plan(instr: Instruction) -> tuple[str, str, str, bool, list[list[str]]]:
    """(alayout, blayout, shape, tf32?, [D, A, B, C] registers) of a modelled ``wmma.mma``: f16 inputs
    with k = 16 or tf32 inputs with k = 8, f32 accumulators, unguarded; else :class:`MmaNotModelled`."""
    mods = list(instr.mods)
    if instr.guard is not None:
        raise MmaNotModelled("a guarded wmma.mma is not modelled")
    layouts = [m for m in mods if m in ("row", "col")]
    shape = next((m for m in mods if m in _WMMA_F16 or m in _WMMA_TF32), None)
    types = [m for m in mods if m not in ("mma", "sync", "aligned", "row", "col", shape)]
    tf32 = types == ["f32", "tf32", "tf32", "f32"] and shape in _WMMA_TF32
    if shape is None or len(layouts) != 2 or not (tf32 or (types == ["f32", "f32"] and shape in _WMMA_F16)):
        raise MmaNotModelled("only wmma.mma with .f32 accumulators and .f16 (k = 16) or .tf32 (k = 8) inputs "
                             "is modelled (fragment layouts are unspecified, ISA §9.7.14.4: the expansion is "
                             "the layout-agnostic limb one)")
    if len(instr.operands) != 4:
        raise MmaNotModelled("wmma.mma expects four operands")
    na, nb = (_WMMA_TF32 if tf32 else _WMMA_F16)[shape]
    try:
        regs = [_regs(o, n, w) for o, n, w in zip(instr.operands, (8, na, nb, 8), ("D", "A", "B", "C"))]
    except MmaNotModelled as e:
        raise MmaNotModelled("w" + e.reason) from None  # "wmma D operand is not …"
    return layouts[0], layouts[1], shape, tf32, regs


def rewrite_wmma(instr: Instruction, ctx) -> bool | str:
    """``wmma.mma`` with f16 inputs and f32 accumulators through the limb expansion. Its fragment
    layouts are unspecified, but the limbs are computed per fragment element and the four limb
    products run through the same wmma with the same layouts, so element i of each D fragment is the
    exact integer sum for element i of C — whatever the layout. Returns True or the reason."""
    try:
        al, bl, shape, tf32, (d_regs, a_regs, b_regs, c_regs) = wmma_plan(instr)
    except MmaNotModelled as e:
        return e.reason
    em = _CtxEmitter(ctx)
    if tf32:  # 32-bit payloads: ten limb products (limb_products32), the same for any layout
        op32 = f"wmma.mma.sync.aligned.{al}.{bl}.{shape}.f32.tf32.tf32.f32"

        def run32(a: list[str], b: list[str], c: list[str]) -> list[str]:
            d = [em.reg() for _ in range(8)]
            em.op(f"{op32} {{{', '.join(d)}}}, {{{', '.join(a)}}}, {{{', '.join(b)}}}, {{{', '.join(c)}}}")
            return d

        sums = limb_products32(em, [em.embed_word(r, "f32") for r in a_regs],
                               [em.embed_word(r, "f32") for r in b_regs], 8, run32)
        em.finish(d_regs, [[combine32(em, sums, i, em.embed_word(c, "f32"))] for i, c in enumerate(c_regs)], "f32")
        return True
    a_l = [_limbs(em, em.embed_pair(r, "f16")) for r in a_regs]
    b_l = [_limbs(em, em.embed_pair(r, "f16")) for r in b_regs]
    ll, mid, hh = _limb_matmuls(em, f"wmma.mma.sync.aligned.{al}.{bl}.{shape}.f32.f32", a_l, b_l, 8)
    results = []
    for i, c in enumerate(c_regs):
        ints = []
        for f in (ll[i], mid[i], hh[i]):
            o = em.reg()
            em.op(f"cvt.rni.s32.f32 {o}, {f}")
            ints.append(o)
        x, y, acc = em.reg(), em.reg(), em.reg()
        em.op(f"mad.lo.u32 {x}, {ints[1]}, 256, {ints[0]}")
        em.op(f"mad.lo.u32 {y}, {ints[2]}, 65536, {x}")
        em.op(f"add.u32 {acc}, {y}, {em.embed_word(c, 'f32')}")
        results.append([acc])
    em.finish(d_regs, results, "f32")
    return True
