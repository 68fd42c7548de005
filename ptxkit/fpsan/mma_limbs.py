"""The ``limbs`` expansion of float ``mma.sync`` and ``wmma.mma`` (``ptxkit.fpsan.mma``): the ring
products through float mma on small exact integers, no data exchange between lanes.

A 16-bit payload is ``hi·2^8 + lo`` with 8-bit limbs that f16 holds exactly; four f16 mma on the limb
fragments (same layout as the operands) give exact integer sums (< 2^24), combined as
``HH·2^16 + (HL+LH)·2^8 + LL + E(C)`` mod 2^32. A tf32 (32-bit) payload has four unsigned byte limbs
and ten tf32 mma (byte pairs with i + j ≤ 3; higher ones vanish mod 2^32). Being per fragment element,
it also models ``wmma.mma`` (ISA §9.7.14.4), whose fragment layouts the ISA leaves unspecified.
"""

from __future__ import annotations

from ptxkit.fpsan.mma_calls import call, helper
from ptxkit.fpsan.mma_plan import MmaNotModelled, MmaPlan, accumulate, operand_regs
from ptxkit.ir import Instruction

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


def generate_limbs(p: MmaPlan, em, a_pay: list[str], b_pay: list[str]) -> None:
    """16-bit inputs: the ring products through four f16 ``mma`` on 8-bit limbs (see above)."""
    a_l = [_limbs(em, x) for x in a_pay]
    b_l = [_limbs(em, x) for x in b_pay]
    ll, mid, hh = _limb_matmuls(em, f"mma.sync.aligned.{p.form.shape}.row.col.f32.f16.f16.f32", a_l, b_l, 4)

    def as_int(f: str) -> str:
        o = em.reg()
        em.op(f"cvt.rni.s32.f32 {o}, {f}")  # an exact integer: the conversion is exact
        return o

    def element(r: int, e: int, c_pay: str) -> str:
        i = 2 * r + e  # the f32 D register of element (row g + 8r, column 2t + e)
        x, y, acc = em.reg(), em.reg(), em.reg()
        em.op(f"mad.lo.u32 {x}, {as_int(mid[i])}, 256, {as_int(ll[i])}")
        em.op(f"mad.lo.u32 {y}, {as_int(hh[i])}, 65536, {x}")
        em.op(f"add.u32 {acc}, {y}, {c_pay}")
        return acc

    accumulate(p, em, element)


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


def generate_limbs32(p: MmaPlan, em, a_pay: list[str], b_pay: list[str]) -> None:
    """tf32 inputs (32-bit payloads): ten tf32 ``mma`` on byte limbs (see :func:`limb_products32`)."""
    op = f"mma.sync.aligned.{p.form.shape}.row.col.f32.tf32.tf32.f32"

    def run(a: list[str], b: list[str], c: list[str]) -> list[str]:
        d = [em.reg() for _ in range(4)]
        em.op(f"{op} {{{', '.join(d)}}}, {{{', '.join(a)}}}, {{{', '.join(b)}}}, {{{', '.join(c)}}}")
        return d

    sums = limb_products32(em, a_pay, b_pay, 4, run)
    results = [[combine32(em, sums, i, em.embed_word(c, "f32"))] for i, c in enumerate(p.c_regs)]
    em.finish(p.d_regs, results, "f32")


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
        regs = [operand_regs(o, n, w) for o, n, w in zip(instr.operands, (8, na, nb, 8), ("D", "A", "B", "C"))]
    except MmaNotModelled as e:
        raise MmaNotModelled("w" + e.reason) from None  # "wmma D operand is not …"
    return layouts[0], layouts[1], shape, tf32, regs


def _wmma_body(em, al: str, bl: str, shape: str, tf32: bool, d_regs: list[str], a_regs: list[str],
               b_regs: list[str], c_regs: list[str]) -> None:
    """The limb expansion of one ``wmma.mma`` through ``em`` (see :func:`rewrite_wmma`)."""
    if tf32:  # 32-bit payloads: ten limb products (limb_products32), the same for any layout
        op32 = f"wmma.mma.sync.aligned.{al}.{bl}.{shape}.f32.tf32.tf32.f32"

        def run32(a: list[str], b: list[str], c: list[str]) -> list[str]:
            d = [em.reg() for _ in range(8)]
            em.op(f"{op32} {{{', '.join(d)}}}, {{{', '.join(a)}}}, {{{', '.join(b)}}}, {{{', '.join(c)}}}")
            return d

        sums = limb_products32(em, [em.embed_word(r, "f32") for r in a_regs],
                               [em.embed_word(r, "f32") for r in b_regs], 8, run32)
        em.finish(d_regs, [[combine32(em, sums, i, em.embed_word(c, "f32"))] for i, c in enumerate(c_regs)], "f32")
        return
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


def rewrite_wmma(instr: Instruction, ctx) -> bool | str:
    """``wmma.mma`` with f16 inputs and f32 accumulators through the limb expansion. Its fragment
    layouts are unspecified, but the limbs are computed per fragment element and the four limb
    products run through the same wmma with the same layouts, so element i of each D fragment is the
    exact integer sum for element i of C — whatever the layout. Returns True or the reason.

    The expansion is a helper ``.func`` per wmma form (non-ABI ``.reg`` parameters), called at each
    wmma: ptxas compiles it once instead of once per call site (ptxas time grows faster than linearly
    with a function's size: matmul_wmma_v10, 64 wmma.mma, 9 s inlined)."""
    try:
        al, bl, shape, tf32, (d_regs, a_regs, b_regs, c_regs) = wmma_plan(instr)
    except MmaNotModelled as e:
        return e.reason
    params = [f"b32 %i{j}" for j in range(8)] + [f"b32 %a{j}" for j in range(len(a_regs))]
    params += [f"b32 %b{j}" for j in range(len(b_regs))]

    def body(em, o: list[str], p: list[str]) -> None:
        _wmma_body(em, al, bl, shape, tf32, o, p[8:8 + len(a_regs)], p[8 + len(a_regs):], p[:8])

    name = helper(ctx, ("wmma", al, bl, shape, tf32), "wmma", 8, params, body)
    call(ctx, name, d_regs, c_regs + a_regs + b_regs, [*a_regs, *b_regs, *c_regs])
    return True
