"""Per-opcode FPSan rewrites: a dispatch table opcode → function(instr, ctx, info) -> bool.

Each function emits integer PTX through :class:`ptxkit.fpsan.ctx.RewriteContext` computing
``φ⁻¹(F(φ(a), …))`` with F the ring operation of docs/fpsan.md §2. Rounding and ``.ftz`` modifiers are
irrelevant in the ring. Design decisions for PTX-only modifiers (fpsan.md §3):

* ``.sat`` (clamp to [0, 1]) is the signed clamp of the payload to [φ(0), φ(1)] = [0, 1];
* ``.relu`` (clamp below at +0) is the signed max of the payload with φ(+0) = 0;
* ``min``/``max`` ``.xorsign.abs`` (ISA §9.7.3.10/11: min/max of |a|, |b| with sign(a) XOR sign(b))
  is the ring min/max of the payloads' :func:`ptxkit.fpsan.ring.abs_payload`, then the sign set as the
  float sign bit would set it (:func:`ptxkit.fpsan.ring.xorsign_minmax`): exactly what the native bit
  ops ``abs`` and sign-bit xor (left native by Triton) give around a ring min/max;
* ``tanh.approx`` (f32/f16/bf16, packed too) has no Triton tag: it is the "other pure math call"
  ``E(x) XOR FNV-1a-64("__nv_tanhf")`` (low w bits), what Triton 3.9 gives for libdevice ``tanh``;
* same-type ``cvt`` with integer rounding (rewritten in ``ptxkit.fpsan.casts`` with these emitters):
  ``.rmi`` = floor and ``.rpi`` = ceil (tagged Floor/Ceil);
  ``.rni`` = rint and ``.rzi`` = trunc have no tag, so they are libdevice calls hashed the same way
  with ``__nv_rintf``/``__nv_truncf`` (``__nv_rint``/``__nv_trunc`` for f64; 16-bit lanes use the
  float symbols truncated to 16 bits) — deterministic, and equal to Triton's FPSan of
  ``libdevice.rint``/``libdevice.trunc`` on f32/f64.
"""

from __future__ import annotations

from dataclasses import dataclass

from ptxkit import ir
from ptxkit.fpsan import ring as R
from ptxkit.fpsan.ctx import BITS_KIND, LANE_TYPE, RewriteContext, guard_text, hexc
from ptxkit.fpsan.irview import name_of

SCALAR_FLOATS = ("f16", "bf16", "f32", "f64")
ALL_FLOATS = SCALAR_FLOATS + tuple(LANE_TYPE)


@dataclass
class OpInfo:
    """What the dispatcher found: the float type mod and whether it is packed."""

    ftype: str  # lane type: f16 / bf16 / f32 / f64
    packed: str | None  # f16x2 / bf16x2 / f32x2 or None


def float_type_of(instr: ir.Instruction) -> str | None:
    for m in reversed(instr.mods):
        if m in ALL_FLOATS:
            return m
    return None


def _is_imm(p: str) -> bool:
    return p.startswith("0x") or p.lstrip("-").isdigit()


def as_reg(ctx: RewriteContext, p: str, w: int) -> str:
    """A payload as a register (immediates are moved: typed ops want a register as first source)."""
    if not _is_imm(p):
        return p
    t = ctx.fresh(BITS_KIND[w])
    ctx.emit(f"mov.b{w} {t}, {p}")
    return t


# ------------------------------------------------------------------------------ ring computations
# compute(ctx, payloads, w, instr) -> payload register

def _emit_to_fresh(ctx: RewriteContext, w: int, op: str, *srcs: str) -> str:
    """``op o, srcs…`` into a fresh w-bit register ``o``; returns ``o``."""
    o = ctx.fresh(BITS_KIND[w])
    ctx.emit(f"{op} {o}, {', '.join(srcs)}")
    return o


def _binary(op: str):
    def compute(ctx, ps, w, instr):
        return _emit_to_fresh(ctx, w, op.format(w=w), as_reg(ctx, ps[0], w), ps[1])
    return compute


def _fma(ctx, ps, w, instr):
    return _emit_to_fresh(ctx, w, f"mad.lo.s{w}", as_reg(ctx, ps[0], w), ps[1], ps[2])


def _neg(ctx, ps, w, instr):
    o = ctx.fresh(BITS_KIND[w])
    ctx.emit(f"neg.s{w} {o}, {as_reg(ctx, ps[0], w)}")
    return o


def emit_inverse(ctx: RewriteContext, u: str, w: int) -> str:
    """inv(u): Newton on a = u|1 in the form x ← x + x·e, e ← e² (x₀ = a is 3 bits exact, so 3/4/5
    steps give 24/48/96 ≥ w bits), then bit 0 replaced by u's (fpsan.md §2, div/rcp). Memoised per
    payload in the straight-line run (``ctx.memo``): Triton divides whole rows by one sum."""
    key = ("inverse", u, w)
    if key in ctx.memo:
        return str(ctx.memo[key])
    ctx.memo[key] = o = _inverse(ctx, u, w)
    return o


def _inverse(ctx: RewriteContext, u: str, w: int) -> str:
    k = BITS_KIND[w]
    u = as_reg(ctx, u, w)
    a, t, e, x = ctx.fresh(k), ctx.fresh(k), ctx.fresh(k), ctx.fresh(k)
    ctx.emit(f"or.b{w} {a}, {u}, 1")
    ctx.emit(f"mul.lo.s{w} {t}, {a}, {a}")
    ctx.emit(f"sub.s{w} {e}, 1, {t}")
    ctx.emit(f"mad.lo.s{w} {x}, {a}, {e}, {a}")
    for _ in range(R.newton_steps(w) - 1):
        e2, x2 = ctx.fresh(k), ctx.fresh(k)
        ctx.emit(f"mul.lo.s{w} {e2}, {e}, {e}")
        ctx.emit(f"mad.lo.s{w} {x2}, {x}, {e2}, {x}")
        e, x = e2, x2
    o = ctx.fresh(k)
    if w == 16:
        t1, t2 = ctx.fresh(k), ctx.fresh(k)
        ctx.emit(f"and.b16 {t1}, {x}, 0xFFFE")
        ctx.emit(f"and.b16 {t2}, {u}, 1")
        ctx.emit(f"or.b16 {o}, {t1}, {t2}")
    else:
        ctx.emit(f"bfi.b{w} {o}, {u}, {x}, 0, 1")
    return o


def _rcp(ctx, ps, w, instr):
    return emit_inverse(ctx, ps[0], w)


def _div(ctx, ps, w, instr):
    return _emit_to_fresh(ctx, w, f"mul.lo.s{w}", emit_inverse(ctx, ps[1], w), ps[0])


def _rem(ctx, ps, w, instr):
    k = BITS_KIND[w]
    b, o = ctx.fresh(k), ctx.fresh(k)
    ctx.emit(f"or.b{w} {b}, {as_reg(ctx, ps[1], w)}, 1")
    ctx.emit(f"rem.s{w} {o}, {as_reg(ctx, ps[0], w)}, {b}")
    return o


def emit_exp2(ctx: RewriteContext, x: str, w: int) -> str:
    """(1+2^k)^x = 1 + x·2^k + C(x,2)·2^2k + C(x,3)·2^3k. x(x−1) is even, so C(x,2)·2^2k =
    x(x−1)·2^(2k−1) mod 2^w; x(x−1)(x−2)/3 is even and exact mod 2^w via 3⁻¹, so C(x,3)·2^3k =
    x(x−1)(x−2)·(3⁻¹·2^(3k−1)) mod 2^w — seven instructions, no masks."""
    k_ = R.exp2_k(w)
    m = (1 << w) - 1
    k3 = (R.inverse_mod(3, w) << (3 * k_ - 1)) & m
    kind = BITS_KIND[w]
    x = as_reg(ctx, x, w)
    t1, p2, t2, p3, r1, r2, o = (ctx.fresh(kind) for _ in range(7))
    ctx.emit(f"add.s{w} {t1}, {x}, -1")
    ctx.emit(f"mul.lo.s{w} {p2}, {x}, {t1}")
    ctx.emit(f"add.s{w} {t2}, {x}, -2")
    ctx.emit(f"mul.lo.s{w} {p3}, {p2}, {t2}")
    ctx.emit(f"mad.lo.s{w} {r1}, {p3}, {hexc(k3, w)}, 1")
    ctx.emit(f"mad.lo.s{w} {r2}, {p2}, {hexc(1 << (2 * k_ - 1), w)}, {r1}")
    ctx.emit(f"mad.lo.s{w} {o}, {x}, {hexc(1 << k_, w)}, {r2}")
    return o


def _ex2(ctx, ps, w, instr):
    return emit_exp2(ctx, ps[0], w)


def emit_sincos(ctx: RewriteContext, x: str, w: int, want: str) -> str:
    """(a+bi)^x with the powers c_i = (a+bi)^(2^i) known at rewrite time: LSB-first, each set bit
    multiplies by a constant (7 instructions a bit, against square-and-multiply's ~17); the ring
    product is the same as the doc's MSB-first square-and-multiply."""
    kind = BITS_KIND[w]
    m = (1 << w) - 1
    a, b = R.sincos_base(w)
    pw = []
    c = (a, b)
    for _ in range(w):
        pw.append(c)
        sq_re, sq_im = R.cmul(c, c, w)
        c = (int(sq_re), int(sq_im))
    x = as_reg(ctx, x, w)
    re, im, t, p = ctx.fresh(kind), ctx.fresh(kind), ctx.fresh(kind), ctx.fresh("pred")
    ctx.emit(f"and.b{w} {t}, {x}, 1")
    ctx.emit(f"setp.ne.b{w} {p}, {t}, 0")
    ctx.emit(f"selp.b{w} {re}, {hexc(pw[0][0], w)}, 1, {p}")
    ctx.emit(f"selp.b{w} {im}, {hexc(pw[0][1], w)}, 0, {p}")
    for i in range(1, w):
        cr, ci = pw[i]
        t, q, t1, t2 = ctx.fresh(kind), ctx.fresh("pred"), ctx.fresh(kind), ctx.fresh(kind)
        t1b = ctx.fresh(kind)
        ctx.emit(f"and.b{w} {t}, {x}, {hexc(1 << i, w)}")
        ctx.emit(f"setp.ne.b{w} {q}, {t}, 0")
        ctx.emit(f"mul.lo.s{w} {t1}, {re}, {hexc(cr, w)}")
        ctx.emit(f"mad.lo.s{w} {t1b}, {im}, {hexc(-ci & m, w)}, {t1}")
        ctx.emit(f"mul.lo.s{w} {t2}, {re}, {hexc(ci, w)}")
        ctx.emit(f"@{q} mad.lo.s{w} {im}, {im}, {hexc(cr, w)}, {t2}")
        ctx.emit(f"@{q} mov.b{w} {re}, {t1b}")
    return im if want == "sin" else re


def _sin(ctx, ps, w, instr):
    return emit_sincos(ctx, ps[0], w, "sin")


def _cos(ctx, ps, w, instr):
    return emit_sincos(ctx, ps[0], w, "cos")


def emit_tagged(ctx: RewriteContext, x: str, op: str, w: int) -> str:
    kind = BITS_KIND[w]
    kk = hexc(R.TAG_K, w)
    t1, t2, o = ctx.fresh(kind), ctx.fresh(kind), ctx.fresh(kind)
    ctx.emit(f"mul.lo.s{w} {t1}, {as_reg(ctx, x, w)}, {kk}")
    ctx.emit(f"xor.b{w} {t2}, {t1}, {hexc(R.tag(op, w), w)}")
    ctx.emit(f"mul.lo.s{w} {o}, {t2}, {kk}")
    return o


def _tagged(op: str):
    def compute(ctx, ps, w, instr):
        return emit_tagged(ctx, ps[0], op, w)
    return compute


def emit_libcall(ctx: RewriteContext, x: str, op: str, ftype: str, symbol: str | None = None) -> str:
    """A unary "other pure math call" (fpsan.md §2): ``rotl(E(x), 0) XOR FNV-1a-64(symbol)`` (``symbol``: the
    libdevice function, by default ``op``'s of :data:`ptxkit.fpsan.ring.LIBCALL_SYMBOLS`)."""
    w = R.ring(ftype).w
    o = ctx.fresh(BITS_KIND[w])
    h = R.fnv1a64(symbol or R.libcall_symbol(op, ftype))
    ctx.emit(f"xor.b{w} {o}, {as_reg(ctx, x, w)}, {hexc(h, w)}")
    return o


def _libcall(op: str):
    def compute(ctx, ps, w, instr):
        ft = float_type_of(instr) or ""
        return emit_libcall(ctx, ps[0], op, LANE_TYPE.get(ft, ft))
    return compute


def _minmax(op: str):
    """min/max; with ``.xorsign.abs`` the model of :func:`ptxkit.fpsan.ring.xorsign_minmax`."""
    plain = _binary(f"{op}.s{{w}}")

    def compute(ctx, ps, w, instr):
        if "xorsign" not in instr.mods:
            return plain(ctx, ps, w, instr)
        k = BITS_KIND[w]
        mag, sign = hexc((1 << (w - 1)) - 1, w), hexc(1 << (w - 1), w)
        a, b = as_reg(ctx, ps[0], w), as_reg(ctx, ps[1], w)
        absd = []
        for x in (a, b):
            t, u = ctx.fresh(k), ctx.fresh(k)
            ctx.emit(f"abs.s{w} {t}, {x}")
            ctx.emit(f"and.b{w} {u}, {t}, {mag}")  # abs(-0's payload 2^(w-1)) stays 2^(w-1): -> +0
            absd.append(u)
        m, x, n, n2, o, q = ctx.fresh(k), ctx.fresh(k), ctx.fresh(k), ctx.fresh(k), ctx.fresh(k), ctx.fresh("pred")
        ctx.emit(f"{op}.s{w} {m}, {absd[0]}, {absd[1]}")
        ctx.emit(f"xor.b{w} {x}, {a}, {b}")
        ctx.emit(f"setp.lt.s{w} {q}, {x}, 0")  # payload sign bit = float sign bit
        ctx.emit(f"neg.s{w} {n}, {m}")
        ctx.emit(f"or.b{w} {n2}, {n}, {sign}")  # +0 -> -0, else the negation
        ctx.emit(f"selp.b{w} {o}, {n2}, {m}, {q}")
        return o
    return compute


def _sqrt(ctx, ps, w, instr):
    # Triton: tl.sqrt → Sqrt, tl.sqrt_rn (IEEE, f32 only) → PreciseSqrt. f32 tl.sqrt lowers to sqrt.approx,
    # tl.sqrt_rn to sqrt.rn; f64 tl.sqrt lowers to sqrt.rn.f64 (no approx form; tl.sqrt_rn refuses f64)
    return emit_tagged(ctx, ps[0], "sqrt" if "approx" in instr.mods or w == 64 else "precise_sqrt", w)


# ------------------------------------------------------------------------------ the driver for one op

def post_modifiers(ctx: RewriteContext, o: str, w: int, instr: ir.Instruction) -> str:
    kind = BITS_KIND[w]
    if "sat" in instr.mods:
        a, b = ctx.fresh(kind), ctx.fresh(kind)
        ctx.emit(f"min.s{w} {a}, {o}, 1")
        ctx.emit(f"max.s{w} {b}, {a}, 0")
        o = b
    if "relu" in instr.mods:
        a = ctx.fresh(kind)
        ctx.emit(f"max.s{w} {a}, {o}, 0")
        o = a
    return o


def elementwise(instr: ir.Instruction, ctx: RewriteContext, info: OpInfo, compute, nsrc: int) -> bool:
    """``instr`` as its ring op, lane by lane where packed (a packed type given as ``ftype`` is read as such: held-out
    seed 172555, ``neg.f16x2`` of a min crashed the sign folds)."""
    if info.packed is None and info.ftype in LANE_TYPE:
        info = OpInfo(LANE_TYPE[info.ftype], info.ftype)
    ops = instr.operands
    if len(ops) != nsrc + 1 or not isinstance(ops[0], (ir.Reg, ir.Sym)):
        return False
    srcs = ops[1:]
    if not all(isinstance(s, (ir.Reg, ir.Sym, ir.FloatImm, ir.Imm)) for s in srcs):
        return False
    ft, w = info.ftype, R.ring(info.ftype).w
    if info.packed is None:
        log_of = _log_idiom(instr, ctx, ft)
        ps = [ctx.embed(s, ft) for s in srcs]
        if log_of is not None:
            o = emit_tagged(ctx, log_of, "log", w)
        else:
            o = compute(ctx, ps, w, instr)
        o = post_modifiers(ctx, o, w, instr)
        ctx.define(ops[0], o, ft, instr.guard)
        if instr.opcode == "lg2" and instr.guard is None and not ({"sat", "relu"} & set(instr.mods)):
            sh = ctx.shadow(ops[0], ft)
            if sh is not None:
                sh.origin = ("lg2", ps[0])
        return True
    if any(not isinstance(s, (ir.Reg, ir.Sym)) for s in srcs):
        return False
    lanes = []
    for lane in (0, 1):
        ps = [ctx.embed(s, ft, lane, packed=info.packed) for s in srcs]
        o = post_modifiers(ctx, compute(ctx, ps, w, instr), w, instr)
        lanes.append(ctx.unembed_to_fresh(o, ft))
    ctx.invalidate(ops[0].name)
    ctx.emit(f"{guard_text(instr.guard)}mov.b{2 * w} {ops[0].name}, {{{lanes[0]}, {lanes[1]}}}")
    return True


LN2_F32 = ir.FloatImm(0x3F317218, 32)


def _log_idiom(instr: ir.Instruction, ctx: RewriteContext, ft: str) -> str | None:
    """``lg2.approx.f32 t, x; mul.f32 y, t, 0f3F317218`` is how Triton lowers ``tl.log`` (log2(x)·ln2);
    its FPSan maps ``math.log`` to the tagged Log op, so the pair becomes ``tagged(E(x), log)``.
    Returns E(x) when ``instr`` is the mul of that idiom (t's shadow still from the lg2)."""
    if instr.opcode != "mul" or ft != "f32" or len(instr.operands) != 3:
        return None
    a, b = instr.operands[1], instr.operands[2]
    if b != LN2_F32:
        a, b = b, a
    if b != LN2_F32:
        return None
    sh = ctx.shadow(a, ft)
    if sh is None or sh.origin is None or sh.origin[0] != "lg2":
        return None
    return sh.origin[1]


TABLE: dict[str, tuple] = {
    # opcode: (compute, number of sources)
    "add": (_binary("add.s{w}"), 2),
    "sub": (_binary("sub.s{w}"), 2),
    "mul": (_binary("mul.lo.s{w}"), 2),
    "min": (_minmax("min"), 2),
    "max": (_minmax("max"), 2),
    "fma": (_fma, 3),
    "mad": (_fma, 3),
    "neg": (_neg, 1),
    "div": (_div, 2),
    "rcp": (_rcp, 1),
    "rem": (_rem, 2),
    "ex2": (_ex2, 1),
    "sin": (_sin, 1),
    "cos": (_cos, 1),
    "sqrt": (_sqrt, 1),
    "rsqrt": (_tagged("rsqrt"), 1),
    "lg2": (_tagged("log2"), 1),
    "tanh": (_libcall("tanh"), 1),
}

# Float instructions that are not arithmetic: left native, as Triton leaves them (fpsan.md §2).
NATIVE = {"ld", "ldu", "st", "mov", "selp", "slct", "setp", "set", "abs", "copysign", "testp", "shfl",
          "prmt", "tex", "tld4", "suld", "sust", "ldmatrix", "stmatrix", "cp", "cvta", "multimem",
          "match", "vote", "movmatrix"}


# ------------------------------------------------------------------------------ sign-bit xor

def _sign_lanes(instr: ir.Instruction) -> tuple[int, int] | None:
    """(register width, lane width) of ``xor.bN``/``or.bN d, a, signs`` or ``and.bN d, a, ~signs`` (either
    operand order) where ``signs`` is the sign bit of every lane: scalar (0x80000000) or packed
    halves/f32 pairs (0x80008000, 0x8000000080000000), else None."""
    if instr.opcode not in ("xor", "or", "and") or len(instr.mods) != 1 or instr.mods[0] not in ("b16", "b32", "b64"):
        return None
    w = int(instr.mods[0][1:])
    ops = instr.operands
    if len(ops) != 3 or not isinstance(ops[0], ir.Reg):
        return None
    imms = [o for o in ops[1:] if isinstance(o, ir.Imm)]
    if len(imms) != 1 or sum(isinstance(o, ir.Reg) for o in ops[1:]) != 1:
        return None
    mask = imms[0].value % (1 << w)
    for lane in (w, w // 2):
        signs = sum(1 << (k + lane - 1) for k in range(0, w, lane))
        if lane >= 16 and mask == (signs ^ ((1 << w) - 1) if instr.opcode == "and" else signs):
            return w, lane
    return None


def sign_xor_lanes(instr: ir.Instruction) -> tuple[int, int] | None:
    """:func:`_sign_lanes` of a sign-bit ``xor`` (LLVM's ``-x`` on float bits, packed lanes too)."""
    return _sign_lanes(instr) if instr.opcode == "xor" else None


def sign_mask_lanes(instr: ir.Instruction) -> tuple[int, int] | None:
    """:func:`_sign_lanes` of a sign-bit ``or`` (−|x|) or magnitude ``and`` (|x|)."""
    return _sign_lanes(instr) if instr.opcode in ("or", "and") else None


def lane_nonzero_signs(ctx: RewriteContext, a: str, w: int, lane: int) -> tuple[str, str]:
    """(|a| lane by lane, the sign bits of the lanes whose magnitude is not zero), without predicates: a
    lane's magnitude m ≤ 2^(l−1)−1 plus 2^(l−1)−1 reaches the lane's sign bit exactly when m ≠ 0."""
    k = BITS_KIND[w]
    mag = sum(((1 << (lane - 1)) - 1) << j for j in range(0, w, lane))
    m, s, t = ctx.fresh(k), ctx.fresh(k), ctx.fresh(k)
    ctx.emit(f"and.b{w} {m}, {a}, {hex(mag)}")
    ctx.emit(f"add.s{w} {s}, {m}, {hex(mag)}")
    ctx.emit(f"and.b{w} {t}, {s}, {hex(mag ^ ((1 << w) - 1))}")
    return m, t


def sign_xor_width(instr: ir.Instruction) -> int:
    """Width of ``xor.bN d, a, signmask`` (scalar or packed lanes, :func:`sign_xor_lanes`), else 0."""
    lanes = sign_xor_lanes(instr)
    return lanes[0] if lanes else 0


def rewrite_sign_xor(instr: ir.Instruction, ctx: RewriteContext) -> bool:
    """Ring negation of whatever float type: a ^ sign, except ±0 which stay (type-independent: φ(−x) =
    −φ(x) for x ≠ ±0, and 0 − φ(±0) = φ(±0)). Packed: lane by lane (:func:`lane_nonzero_signs`)."""
    lanes = sign_xor_lanes(instr)
    assert lanes is not None
    w, lane = lanes
    k = BITS_KIND[w]
    a = next(o for o in instr.operands[1:] if isinstance(o, ir.Reg)).name
    d = name_of(instr.operands[0])
    ctx.reads.append((a, None))
    ctx.read_bits(a)
    if lane != w:
        _, t = lane_nonzero_signs(ctx, a, w, lane)
        ctx.invalidate(d)
        ctx.emit(f"{guard_text(instr.guard)}xor.b{w} {d}, {a}, {t}")
        return True
    t, x, p = ctx.fresh(k), ctx.fresh(k), ctx.fresh("pred")
    ctx.emit(f"and.b{w} {t}, {a}, {hex((1 << (w - 1)) - 1)}")
    ctx.emit(f"setp.eq.b{w} {p}, {t}, 0")
    ctx.emit(f"xor.b{w} {x}, {a}, {hex(1 << (w - 1))}")
    ctx.invalidate(d)
    ctx.emit(f"{guard_text(instr.guard)}selp.b{w} {d}, {a}, {x}, {p}")
    return True
