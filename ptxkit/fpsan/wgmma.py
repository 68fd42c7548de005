"""FPSan for the warpgroup ``wgmma.mma_async`` (PTX ISA §9.7.15): the ring dot
D = Σ_k sext(E(A))·sext(E(B)) + E(C) mod 2^32 (docs/fpsan.md §2) computed synchronously at the issue.

Warp w of the warpgroup owns rows 16w..16w+15 of the m64nNkK result, and its D fragment is that of N/8
``mma.m16n8kK`` tiles side by side: register 4j+i of lane (g, t) is element (16w + g + 8(i>>1),
8j + 2t + (i&1)) — the C layout of tile j (§9.7.15.5.1.1, "Register Fragments"; an A operand in
registers has the m16n8kK A layout of the warp's rows). So the expansion

1. decodes the matrix descriptors at run time (§9.7.15.5.1.2: start address bits 0-13, leading-dimension
   byte offset 16-29, stride-dimension byte offset 32-45, in 16-byte units; swizzle mode 62-63),
2. loads the warp's A rows and each pair of B tiles with ``ldmatrix.x4`` (``.trans`` for an MN-major
   operand, imm-trans = 1), one 16-byte row address per lane in the canonical layouts: K-major —
   8-row groups SBO apart, rows W bytes apart inside a group (W = 128/64/32 for the swizzle modes), the
   16-byte k-chunks 16 bytes apart (LBO apart without swizzle, W = 16); MN-major — rows of W bytes along
   MN, the eight k of a group W apart, the next eight SBO further, the next W/2 MN elements LBO further;
   the swizzle XORs address bits 4.. with bits 7.. (the same layouts as the simulator's
   ``ptxkit.exec_sim.semantics.tensor``),
3. runs every n8 tile through the integer-limb expansion of ``mma_int`` (integer tensor cores, exact);
   fp8 inputs need no limbs: one ``mma.m16n8k32.s8.s8`` on the embedded bytes (:func:`_fp8_tiles`).

A's payloads (once per wgmma), then each pair of n8 tiles (B's ldmatrix and both tiles' ring mma), is a
call of a helper function (``ptxkit.fpsan.mma_calls``), one per form however many wgmma call it. ptxas
inlines such helpers at every call site, so what it compiles grows with the number of pairs: where the
accumulators are ring resident (``ptxkit.fpsan.resident``: payloads in and out), one call per wgmma
runs its pairs in a loop over a ``.local`` copy of D (:meth:`_Tiles.looped`) — fa_ws_pingpong_sm90a's 64
m64n128 wgmma: ptxas(sanitized)/ptxas 2.6 → 2.2, fastcu_k12's m64n256: 2.6 → 1.5.

The fence/commit_group/wait_group instructions stay: with every ``mma_async`` done at its issue they
order nothing, and the operands are read where the ISA requires them valid (the program may not write
the shared-memory tiles or the accumulators until the wait). scale-d false (immediate 0 or a false
predicate) zeroes the C payloads. Not modelled (reported): imm-scale −1, integer/b1 inputs, .f16
accumulators, guarded wgmma.
"""

from __future__ import annotations

from typing import Any

from ptxkit.fpsan.ctx import NATIVE_COPY, Shadow
from ptxkit.fpsan.mma_calls import call, helper
from ptxkit.fpsan.mma_int import generate_int
from ptxkit.fpsan.mma_plan import SHAPES, MmaForm, MmaNotModelled, MmaPlan, operand_regs
from ptxkit.ir import Imm, Instruction, Reg, Sym, Vec

# ptxas pays per call site (~2 ms each) and, superlinearly, per helper body: one call per pair of n8 tiles,
# unless the function would have this many such calls — then one call per wgmma (fa_ws_pingpong_sm90a:
# 64 m64n128 wgmma = 512 pair calls; ptxas 5.2 s → 3.4 s; with ~250 pair calls, fastcu_k12_sm90a's
# 16 m64n256, one 16-pair body cost more than it saved)
WHOLE_CALL_PAIRS = 384


class WgmmaForm:
    """A modelled ``wgmma.mma_async.sync.aligned.m64nNkK.D.A.B`` with its operands."""

    def __init__(self, instr: Instruction):
        mods = list(instr.mods)
        if instr.guard is not None:
            raise MmaNotModelled("a guarded wgmma is not modelled")
        if mods[:3] != ["mma_async", "sync", "aligned"] or len(mods) != 7:
            raise MmaNotModelled("only wgmma.mma_async.sync.aligned.SHAPE.D.A.B is modelled")
        shape, self.dtype, self.atype, self.btype = mods[3:]
        fp8 = ("e4m3", "e5m2")
        if not ((self.atype == self.btype and self.atype in ("f16", "bf16", "tf32"))
                or (self.atype in fp8 and self.btype in fp8)):
            raise MmaNotModelled(f"wgmma with .{self.atype}/.{self.btype} inputs is not modelled")
        self.fp8 = self.atype in fp8
        if self.dtype != "f32":  # .f16 accumulators: not modelled (nor run by the simulator to check them)
            raise MmaNotModelled(f"wgmma with .{self.dtype} accumulators is not modelled")
        self.k = 8 if self.atype == "tf32" else 32 if self.fp8 else 16
        if not (shape.startswith("m64n") and shape.endswith(f"k{self.k}")):
            raise MmaNotModelled(f"wgmma shape .{shape} is not modelled")
        self.n = int(shape[4:-len(f"k{self.k}")])
        if self.n % 8 or not 8 <= self.n <= 256:
            raise MmaNotModelled(f"wgmma shape .{shape} is not modelled")
        ops = instr.operands
        self.a_in_regs = isinstance(ops[1], Vec) if len(ops) > 1 else False
        n_imm = 2 + (0 if self.atype == "tf32" or self.fp8 else 1 if self.a_in_regs else 2)
        if len(ops) != 4 + n_imm:
            raise MmaNotModelled("wgmma operands not as in ISA §9.7.15.5.2")
        imm = [o.value if isinstance(o, Imm) else None for o in ops[4:]]
        if None in imm:
            raise MmaNotModelled("wgmma imm-scale/imm-trans operands must be immediates")
        if imm[0] != 1 or imm[1] != 1:
            raise MmaNotModelled("wgmma with imm-scale-a/b = -1 is not modelled")
        self.trans_a = bool(imm[2]) if n_imm == 4 else False
        self.trans_b = bool(imm[-1]) if n_imm >= 3 else False
        self.d_regs = operand_regs(ops[0], self.n // 2, "wgmma D")
        self.a_regs = operand_regs(ops[1], 4, "wgmma A") if self.a_in_regs else []
        for what, o in (("A", ops[1]), ("B", ops[2])):
            if not (what == "A" and self.a_in_regs) and not isinstance(o, (Reg, Sym)):
                raise MmaNotModelled(f"wgmma {what} descriptor is not a register")
        self.a_desc = "" if self.a_in_regs else _name(ops[1])
        self.b_desc = _name(ops[2])
        sd = ops[3]
        if isinstance(sd, Imm):
            self.scale_d: str | bool = bool(sd.value)
        elif isinstance(sd, (Reg, Sym)):
            self.scale_d = sd.name
        else:
            raise MmaNotModelled("wgmma scale-d must be a predicate or an immediate")
        self.tile = SHAPES[("m16n8k8", "tf32") if self.atype == "tf32" else ("m16n8k16", "16")]  # fp8: unused


def _name(o: object) -> str:
    return o.name if isinstance(o, (Reg, Sym)) else str(o)


class _Desc:
    """The run-time fields of a matrix descriptor (32-bit registers)."""

    def __init__(self, em: Any, desc: str):
        lo, hi = em.reg(), em.reg()
        em.op(f"mov.b64 {{{lo}, {hi}}}, {desc}")
        self.start, self.lbo, self.sbo, mode, t = em.reg(), em.reg(), em.reg(), em.reg(), em.reg()
        em.op(f"and.b32 {self.start}, {lo}, 0x3fff")
        em.op(f"shl.b32 {self.start}, {self.start}, 4")
        em.op(f"bfe.u32 {self.lbo}, {lo}, 16, 14")
        em.op(f"shl.b32 {self.lbo}, {self.lbo}, 4")
        em.op(f"and.b32 {self.sbo}, {hi}, 0x3fff")
        em.op(f"shl.b32 {self.sbo}, {self.sbo}, 4")
        em.op(f"shr.u32 {mode}, {hi}, 30")
        none = em.pred()
        em.op(f"setp.eq.u32 {none}, {mode}, 0")
        self.width, self.mask, self.chunk = em.reg(), em.reg(), em.reg()
        em.op(f"mov.b32 {t}, 256")
        em.op(f"shr.u32 {self.width}, {t}, {mode}")  # modes 1, 2, 3: 128, 64, 32 bytes
        em.op(f"selp.b32 {self.width}, 16, {self.width}, {none}")  # no swizzle: 16-byte core-matrix rows
        em.op(f"shr.u32 {self.mask}, {self.width}, 4")
        em.op(f"sub.u32 {self.mask}, {self.mask}, 1")  # 16-byte chunks per swizzle row − 1 (0: none)
        em.op(f"selp.b32 {self.chunk}, {self.lbo}, 16, {none}")  # K-major: next 16-byte k-chunk
        self.em = em

    def swizzle(self, addr: str) -> str:
        em = self.em
        t, out = em.reg(), em.reg()
        em.op(f"shr.u32 {t}, {addr}, 7")
        em.op(f"and.b32 {t}, {t}, {self.mask}")
        em.op(f"shl.b32 {t}, {t}, 4")
        em.op(f"xor.b32 {out}, {addr}, {t}")
        return str(out)

    def kmajor_lane(self, rowgrp: str, row: str, chunk: str) -> str:
        """start + rowgrp·SBO + row·W + chunk·(16 or LBO), before the swizzle."""
        em = self.em
        a, b = em.reg(), em.reg()
        em.op(f"mad.lo.u32 {a}, {rowgrp}, {self.sbo}, {self.start}")
        em.op(f"mad.lo.u32 {a}, {row}, {self.width}, {a}")
        em.op(f"mad.lo.u32 {b}, {chunk}, {self.chunk}, {a}")
        return str(b)

    def mnmajor(self, mn0: str, kgrp: str, krow: str) -> str:
        """The row (k, mn0..mn0+7) of an MN-major operand of 16-bit elements, before the swizzle:
        start + (mn0 / (W/2))·LBO + kgrp·SBO + krow·W + (mn0 mod W/2)·2."""
        em = self.em
        lg, q, r, a = em.reg(), em.reg(), em.reg(), em.reg()
        em.op(f"clz.b32 {lg}, {self.width}")
        em.op(f"sub.u32 {lg}, 30, {lg}")  # log2(W/2)
        em.op(f"shr.u32 {q}, {mn0}, {lg}")
        em.op(f"shl.b32 {r}, {q}, {lg}")
        em.op(f"sub.u32 {r}, {mn0}, {r}")
        em.op(f"mad.lo.u32 {a}, {q}, {self.lbo}, {self.start}")
        em.op(f"mad.lo.u32 {a}, {kgrp}, {self.sbo}, {a}")
        em.op(f"mad.lo.u32 {a}, {krow}, {self.width}, {a}")
        em.op(f"mad.lo.u32 {a}, {r}, 2, {a}")
        return str(a)


def _lane_consts(em: Any) -> dict[str, str]:
    """Per-lane constants: i = lane & 7 (the row an ldmatrix address serves), mat = lane >> 3 split in
    its two bits, and the warp's rank w in the warpgroup (linear thread id / 32 mod 4)."""
    if "wg_lane" in em.memo:
        return dict(em.memo["wg_lane"])
    c = {k: em.reg() for k in ("lane", "i", "m0", "m1", "w", "tid", "t")}
    em.op(f"mov.u32 {c['lane']}, %laneid")
    em.op(f"and.b32 {c['i']}, {c['lane']}, 7")
    em.op(f"bfe.u32 {c['m0']}, {c['lane']}, 3, 1")
    em.op(f"bfe.u32 {c['m1']}, {c['lane']}, 4, 1")
    em.op(f"mov.u32 {c['tid']}, %tid.z")
    em.op(f"mov.u32 {c['t']}, %ntid.y")
    em.op(f"mov.u32 {c['w']}, %tid.y")
    em.op(f"mad.lo.u32 {c['tid']}, {c['tid']}, {c['t']}, {c['w']}")
    em.op(f"mov.u32 {c['t']}, %ntid.x")
    em.op(f"mov.u32 {c['w']}, %tid.x")
    em.op(f"mad.lo.u32 {c['tid']}, {c['tid']}, {c['t']}, {c['w']}")
    em.op(f"bfe.u32 {c['w']}, {c['tid']}, 5, 2")
    em.memo["wg_lane"] = c
    return c


def _ldmatrix(em: Any, addr: str, n: int, trans: bool) -> list[str]:
    regs = [em.reg() for _ in range(n)]
    em.op(f"ldmatrix.sync.aligned.m8n8.x{n}{'.trans' if trans else ''}.shared.b16 {{{', '.join(regs)}}}, [{addr}]")
    return regs


def _load_a(em: Any, trans: bool, desc: str) -> list[str]:
    """The warp's A fragment (4 registers, the m16n8kK A layout): matrices (rows 0-7 | 8-15) × (k-chunk 0 | 1)."""
    c = _lane_consts(em)
    d = _Desc(em, desc)
    if trans:  # matrix mat: mn0 = 16w + 8·m0, k-group m1, k row i
        mn0 = em.reg()
        em.op(f"shl.b32 {mn0}, {c['w']}, 1")
        em.op(f"add.u32 {mn0}, {mn0}, {c['m0']}")
        em.op(f"shl.b32 {mn0}, {mn0}, 3")
        return _ldmatrix(em, d.swizzle(d.mnmajor(mn0, c["m1"], c["i"])), 4, True)
    grp = em.reg()  # row group 2w + m0, row i, k-chunk m1
    em.op(f"mad.lo.u32 {grp}, {c['w']}, 2, {c['m0']}")
    return _ldmatrix(em, d.swizzle(d.kmajor_lane(grp, c["i"], c["m1"])), 4, False)


def _load_b(em: Any, trans: bool, desc: str | _Desc, j: str, num: int) -> list[str]:
    """The B fragments of tiles j and j+1 (``num`` = 4; 2 for a last odd tile j): one ldmatrix, matrices
    (tile j: k-chunk 0, 1; tile j+1: k-chunk 0, 1); 2 registers per tile. ``desc``: the descriptor's
    register, or its fields already decoded."""
    c = _lane_consts(em)
    d = desc if isinstance(desc, _Desc) else _Desc(em, desc)
    if trans:  # mn0 = 8j + 8·m1, k-group m0, k row i
        mn0 = em.reg()
        em.op(f"add.u32 {mn0}, {c['m1']}, {j}")
        em.op(f"shl.b32 {mn0}, {mn0}, 3")
        addr = d.mnmajor(mn0, c["m0"], c["i"])
    else:  # row group j + m1, row i, k-chunk m0
        grp = em.reg()
        em.op(f"add.u32 {grp}, {c['m1']}, {j}")
        addr = d.kmajor_lane(grp, c["i"], c["m0"])
    return _ldmatrix(em, d.swizzle(addr), num, trans)


def _embed_a(em: Any, f: WgmmaForm, regs: list[str]) -> list[str]:
    """φ of A's fragment registers: 8-bit floats byte by byte, tf32 as f32 words, 16-bit halves as pairs."""
    if f.fp8:
        return [_embed_bytes(em, r, f.atype) for r in regs]
    if f.atype == "tf32":
        return [em.embed_word(r, "f32") for r in regs]
    return [em.embed_pair(r, f.atype) for r in regs]


def _movs(em: Any, outs: list[str], regs: list[str]) -> None:
    for o, r in zip(outs, regs):
        em.op(f"mov.b32 {o}, {r}")


def _embed_bytes(em: Any, reg: str, ftype: str) -> str:
    """φ of the four 8-bit floats of ``reg``, packed back in their bytes."""
    out = em.reg()
    for i in range(4):
        t = em.reg()
        em.op(f"bfe.u32 {t}, {reg}, {8 * i}, 8")
        pay = em.embed(t, ftype)  # the payload in the low 8 bits, the rest zero
        if i == 0:
            em.op(f"mov.b32 {out}, {pay}")
        else:
            em.op(f"bfi.b32 {out}, {pay}, {out}, {8 * i}, 8")
    return str(out)


def _fp8_tiles(em: Any, f: WgmmaForm, ins: list[str], outs: list[str], a: list[str], b: list[str], num: int,
               c_pay: Any) -> None:
    """8-bit inputs (k = 32): the fragments of the warp's m16n8k32 tiles are those of the integer
    ``mma.m16n8k32`` (ldmatrix of 16-byte K-major rows: lane (g, t) gets bytes 4t..4t+3 of a row), so
    the ring products Σ sext(φA)·sext(φB) are one ``mma…s32.s8.s8.s32`` on the embedded bytes — what
    Triton's own FPSan dot emits for fp8 — plus E(C) where scale-d keeps it (``c_pay``: C's payload)."""
    a_pay = a  # already embedded (:func:`_embed_a`)
    kp = em.pred()
    em.op(f"setp.ne.u32 {kp}, %keep, 0")
    for t in range(num // 2):
        b_pay = [_embed_bytes(em, r, f.btype) for r in b[2 * t:2 * t + 2]]
        prod = [em.reg() for _ in range(4)]
        em.op(f"mov.b32 {prod[0]}, 0")
        em.op(f"mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {{{', '.join(prod)}}}, {{{', '.join(a_pay)}}}, "
              f"{{{', '.join(b_pay)}}}, {{{prod[0]}, {prod[0]}, {prod[0]}, {prod[0]}}}")
        results = []
        for i in range(4):
            c, s = em.reg(), em.reg()
            em.op(f"selp.b32 {c}, {c_pay(ins[4 * t + i])}, 0, {kp}")
            em.op(f"add.u32 {s}, {prod[i]}, {c}")
            results.append([s])
        em.finish(outs[4 * t:4 * t + 4], results, "f32")


class _Tiles:
    """The ring mma of n8 tile pairs inside a wgmma helper: A's payloads ``a_pay``, scale-d's predicate
    ``kp``, C as payloads (``resident``) or float bits."""

    def __init__(self, f: WgmmaForm, form: MmaForm, a_pay: list[str], kp: str, resident: bool):
        self.f, self.form, self.a_pay, self.kp, self.resident = f, form, a_pay, kp, resident

    def c_pay(self, em: Any, r: str) -> str:
        return r if self.resident else str(em.embed_word(r, "f32"))

    def pair(self, em: Any, desc: str | _Desc, jq: str, num: int, pin: list[str], pout: list[str]) -> None:
        """Tiles jq and jq + 1 (num = 4; jq alone for num = 2): C in ``pin``, D into ``pout``."""
        f = self.f
        b = _load_b(em, f.trans_b, desc, jq, num)
        if f.fp8:
            _fp8_tiles(em, f, pin, pout, self.a_pay, b, num, lambda r: self.c_pay(em, r))
            return
        et = "f32" if f.atype == "tf32" else f.atype
        embed = (lambda r: em.embed_word(r, et)) if f.atype == "tf32" else (lambda r: em.embed_pair(r, et))
        for t in range(num // 2):
            cs, ds = pin[4 * t:4 * (t + 1)], pout[4 * t:4 * (t + 1)]
            pays = []
            for r in cs:
                k = em.reg()
                em.op(f"selp.b32 {k}, {self.c_pay(em, r)}, 0, {self.kp}")
                pays.append([k])
            generate_int(MmaPlan(self.form, f.tile, False, ds, [], [], cs), em, self.a_pay,
                         [embed(r) for r in b[2 * t:2 * t + 2]], pays)

    def looped(self, em: Any, ins: list[str], outs: list[str], nums: tuple[int, ...]) -> None:
        """The full pairs in a loop over a .local copy of the accumulators (ptxas compiles one pair
        instead of n/16 inlined at every call site; ``.pragma "nounroll"``, ISA §12), a last odd tile
        after it. The accumulators are payloads (resident)."""
        full = nums.count(4)
        em.decls.append(f".local .align 16 .b8 fps_acc[{32 * full}];")
        for i in range(0, 8 * full, 4):
            em.op(f"st.local.v4.b32 [fps_acc+{4 * i}], {{{', '.join(ins[i:i + 4])}}}")
        desc = _Desc(em, "%db")
        _lane_consts(em)
        base, off, at = em.reg64(), em.reg64(), em.reg64()
        q, jq, more = em.reg(), em.reg(), em.pred()
        em.op(f"mov.u64 {base}, fps_acc")
        em.op(f"mov.u32 {q}, 0")
        em.label("$fps_pairs")
        em.lines.append('\t.pragma "nounroll";')
        em.op(f"mul.wide.u32 {off}, {q}, 32")
        em.op(f"add.s64 {at}, {base}, {off}")
        pin, pout = [em.reg() for _ in range(8)], [em.reg() for _ in range(8)]
        em.op(f"ld.local.v4.b32 {{{', '.join(pin[:4])}}}, [{at}]")
        em.op(f"ld.local.v4.b32 {{{', '.join(pin[4:])}}}, [{at}+16]")
        em.op(f"shl.b32 {jq}, {q}, 1")
        em.op(f"add.u32 {jq}, {jq}, %j")
        self.pair(em, desc, jq, 4, pin, pout)
        em.op(f"st.local.v4.b32 [{at}], {{{', '.join(pout[:4])}}}")
        em.op(f"st.local.v4.b32 [{at}+16], {{{', '.join(pout[4:])}}}")
        em.op(f"add.u32 {q}, {q}, 1")
        em.op(f"setp.lt.u32 {more}, {q}, {full}")
        em.op(f"@{more} bra $fps_pairs")
        if len(nums) > full:  # the last, odd tile
            tail = em.reg()
            em.op(f"add.u32 {tail}, %j, {2 * full}")
            self.pair(em, desc, tail, 2, ins[8 * full:8 * full + 4], outs[8 * full:8 * full + 4])
        for i in range(0, 8 * full, 4):
            em.op(f"ld.local.v4.b32 {{{', '.join(outs[i:i + 4])}}}, [fps_acc+{4 * i}]")


def rewrite_wgmma(instr: Instruction, ctx: Any) -> bool:
    """Replace ``instr`` by calls of helper functions (``ptxkit.fpsan.mma_calls``): A's fragment from
    its descriptor, then per pair of n8 tiles B's ldmatrix and the integer-limb ring mma of both tiles
    on their accumulator registers; raises :class:`MmaNotModelled` (before emitting anything) for forms outside
    the modelled set."""
    f = WgmmaForm(instr)
    if isinstance(f.scale_d, str):
        keep = ctx.fresh("b32")
        ctx.emit(f"selp.u32 {keep}, 1, 0, {f.scale_d}")
    else:
        keep = str(int(f.scale_d))
    # A's payloads, once per wgmma (every n8 tile pair reads the same fragment)
    a = [ctx.fresh("b32") for _ in range(4)]
    if f.a_in_regs:
        name = helper(ctx, ("wgmma_a_regs", f.atype), "wgmma_a", 4, [f"b32 %a{q}" for q in range(4)],
                      lambda em, o, p: _movs(em, o, _embed_a(em, f, p)))
        call(ctx, name, a, f.a_regs, f.a_regs)
    else:
        name = helper(ctx, ("wgmma_a", f.trans_a, f.atype), "wgmma_a", 4, ["b64 %da"],
                      lambda em, o, p: _movs(em, o, _embed_a(em, f, _load_a(em, f.trans_a, p[0]))))
        call(ctx, name, a, [f.a_desc], [f.a_desc])
    tiles = f.n // 8
    form = MmaForm("m16n8k8" if f.atype == "tf32" else "m16n8k16", f.dtype, f.atype, f.atype, f.dtype)
    pairs = [(j, 4 if j + 1 < tiles else 2) for j in range(0, tiles, 2)]
    per_call = len(pairs) if ctx.wgmma_sites * len(pairs) >= WHOLE_CALL_PAIRS else 1
    if all(ctx.resident.get(r) == "f32" for r in f.d_regs):
        per_call = len(pairs)  # one call, its pairs in a loop (_Tiles.looped)
    for c0 in range(0, len(pairs), per_call):
        chunk = pairs[c0:c0 + per_call]
        j0 = chunk[0][0]
        d = f.d_regs[4 * j0:4 * (chunk[-1][0] + chunk[-1][1] // 2)]
        params = [f"b32 %i{q}" for q in range(len(d))] + [f"b32 %a{q}" for q in range(4)]
        params += ["b64 %db", "b32 %j", "b32 %keep"]
        nums = tuple(num for _, num in chunk)

        # D ring resident in the caller (ptxkit.fpsan.resident): the helper takes and returns payloads
        resident = all(ctx.resident.get(r) == "f32" for r in d)

        def body(em: Any, o: list[str], p: list[str], nums: tuple[int, ...] = nums, nd: int = len(d),
                 resident: bool = resident) -> None:
            ins, fa = p[:nd], p[nd:nd + 4]
            em.payload_only = resident
            em.payload_out = {} if resident else dict(zip(o[:nd], o[nd:]))  # D's float bits, then payloads
            o = o[:nd]
            kp = em.pred()
            em.op(f"setp.ne.u32 {kp}, %keep, 0")
            tiles = _Tiles(f, form, fa, kp, resident)
            if resident and nums.count(4) >= 2:
                tiles.looped(em, ins, o, nums)
                return
            for q, num in enumerate(nums):  # pair q: tiles j + 2q, j + 2q + 1; its D registers from 8q
                jq = "%j"
                if q:
                    jq = em.reg()
                    em.op(f"add.u32 {jq}, %j, {2 * q}")
                tiles.pair(em, "%db", jq, num, ins[8 * q:8 * q + 2 * num], o[8 * q:8 * q + 2 * num])

        key = ("wgmma_tiles", form, f.btype, f.trans_b, nums, resident)
        if resident:
            name = helper(ctx, key, "wgmma", len(d), params, body)
            ctx.pending += [(r, ("read", "f32")) for r in d] + [(r, ("def", "f32")) for r in d]
            call(ctx, name, d, [*d, *a, f.b_desc, str(j0), keep], [*a, f.b_desc])
            continue
        name = helper(ctx, key, "wgmma", 2 * len(d), params, body)
        pays = [ctx.fresh("b32") for _ in d]
        call(ctx, name, [*d, *pays], [*d, *a, f.b_desc, str(j0), keep], [*d, *a, f.b_desc])
        for r, pay in zip(d, pays):  # φ(D) = the returned payload: later ring reads of D need no φ
            ctx.cache[(r, "f32", 0)] = Shadow(pay, NATIVE_COPY)
            ctx.last_write[r] = NATIVE_COPY
    return True


def why_not_modelled(instr: Instruction) -> str | None:
    try:
        WgmmaForm(instr)
    except MmaNotModelled as e:
        return e.reason
    return None
