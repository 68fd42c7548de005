"""The FPSan op that replaces a recognised libdevice body (docs/fpsan.md §2): the tagged op, the
closed-form ``exp``/``exp2``, the ring ``sin``/``cos``, or the call hash of ``__nv_NAME``; the copy of an
input the body updates in place; the report note."""

from __future__ import annotations

from ptxkit import ir
from ptxkit.fpsan import ring as R
from ptxkit.fpsan.casts import _cast_payload as cast_payload
from ptxkit.fpsan.ctx import BITS_KIND, RewriteContext, Unembed, hexc
from ptxkit.fpsan.libdevice_flow import INT_TYPES, LibRange, chain_types
from ptxkit.fpsan.ops import TABLE, as_reg, emit_exp2, emit_sincos, emit_tagged


def save_input(ctx: RewriteContext, r: LibRange) -> list[str | Unembed]:
    """The copy of an input the body updates in place, inserted before the body (``r.save``); with ``r.clear_sign``,
    the input's sign cleared after it."""
    w = R.ring(r.ftype).w
    r.saved = ctx.fresh(BITS_KIND[w])
    # no comment on these lines: the body may start inside a one-line { } block
    lines: list[str | Unembed] = [f"mov.b{w} {r.saved}, {r.input};"]
    if r.clear_sign:  # (the native body's copy of a sin/cos input LLVM knows non-negative)
        lines.append(f"and.b{w} {r.input}, {r.input}, {hexc((1 << (w - 1)) - 1, w)};")
    return lines


# libdevice bodies whose call hash was checked bit for bit against Triton 3.9's FPSan build (model-kernel probes of
# every libdevice function, the held-out kernels); another recognised body may carry work of its own past the exit
# that the matcher does not know (``__nv_erfinvf``, f64 ``__nv_sinh``: silent in up to 480/512; log10's ·1/ln 10 after
# the exit, silent too, is now libdevice_match's known tail), so
# its hash is reported as unverified
VERIFIED_CALLS = frozenset({
    "powf", "pow", "atan2f", "atan2", "tanhf", "tanh",
    "exp", "exp2", "log", "log2", "sin", "cos", "erf", "rsqrt",  # f64, called directly (libdevice._direct_calls)
    "sinhf", "acoshf", "acosh", "atanf", "lgammaf", "tgammaf", "log1pf", "log1p", "cbrt", "exp10", "asin", "acos",
    "tan", "erfc", "expm1", "erfcinv", "log10f", "log10"})


def note_text(r: LibRange) -> str:
    """The report note of a recognised body."""
    head = f"inlined libdevice body of __nv_{r.name} runs natively; its result is replaced by "
    if r.op == "call":
        return head + f"the call hash of __nv_{r.name} (Triton's FPSan op for a libdevice call)"
    return head + (f"the ring {r.op} (Triton's FPSan op for math.{r.op}; libdevice.{r.name.rstrip('f')} called "
                   "directly inlines the same body but is hashed as a call)")


def emit_lib_op(ctx: RewriteContext, r: LibRange) -> list[str | Unembed]:
    """The lines that write ``r.output = φ⁻¹(op(φ(r.inputs…)))`` (the caller has set ``ctx.lines`` empty and
    the current definition)."""
    w = R.ring(r.ftype).w
    args = (r.saved,) if r.saved else r.inputs or (r.input,)
    if not r.saved and r.copy_of is not None and r.copy_of.saved:  # (empty: the copy is not made yet)
        args = tuple(r.copy_of.saved if x == r.copy_of.input else x for x in args)
    ps = [_argument(ctx, r, x) for x in args] if r.doubled is None else _doubled(ctx, r, *r.doubled)
    if r.op in ("sin", "cos"):
        o = emit_sincos(ctx, ps[0], w, r.op)
    elif r.op == "exp2":
        o = emit_exp2(ctx, ps[0], w)
    elif r.op == "exp":  # exp2(E(x) · φ_f32(1/ln2)), the constant zero-extended for f64 (docs/fpsan.md §2)
        t = ctx.fresh(BITS_KIND[w])
        ctx.emit(f"mul.lo.s{w} {t}, {as_reg(ctx, ps[0], w)}, {hexc(0x26A29A75, w)}")
        o = emit_exp2(ctx, t, w)
    elif r.op == "call":
        o = emit_call(ctx, ps, f"__nv_{r.name}", w)
    else:
        o = emit_tagged(ctx, ps[0], r.op, w)
    ctx.define(ir.Reg(r.output), o, r.ftype, None)
    lines, ctx.lines = ctx.lines, []
    what = f"ring {r.op}" if r.op != "call" else "call hash"
    head: list[str | Unembed] = [f"// fpsan: {what} of {', '.join(r.inputs or (r.input,))} replaces the result of "
                                 f"the inlined __nv_{r.name}"]
    return head + lines


def _doubled(ctx: RewriteContext, r: LibRange, x: str, forms: tuple[str, str]) -> list[str]:
    """The two arguments the source doubles x into: φ(x)·φ(2.0) (``mul2``), 2φ(x) (``add``)."""
    w = R.ring(r.ftype).w
    p = as_reg(ctx, ctx.embed(ir.Reg(x), r.ftype), w)
    out: list[str] = []
    for form in forms:
        o = ctx.fresh(BITS_KIND[w])
        if form == "mul2":
            two = R.embed_int(0x4000000000000000 if w == 64 else 0x40000000, r.ftype)
            ctx.emit(f"mul.lo.s{w} {o}, {p}, {hexc(two, w)}")
        else:
            ctx.emit(f"add.s{w} {o}, {p}, {p}")
        out.append(o)
    return out


def _argument(ctx: RewriteContext, r: LibRange, x: str) -> str:
    """φ of the argument: of the input register, or, for an input the body converts (``r.sunk``), the
    caller's conversions replayed as Triton's FPSan computes them (widening: sign extension; neg: ring
    negation; abs: native on the bits, in the source's order around a cast, ``r.abs_order``)."""
    chain = r.sunk.get(x)
    if (op := r.remat.get(x)) is not None:  # the caller's op LLVM sank into one arm of the body
        compute, _ = TABLE[op.opcode]
        return compute(ctx, [ctx.embed(o, r.ftype) for o in op.operands[1:]], R.ring(r.ftype).w, op)
    if not chain:
        return ctx.embed(ir.Reg(x), r.ftype)
    first = chain_types(chain[0])
    assert first is not None and isinstance(chain[0].operands[1], ir.Reg)
    x = chain[0].operands[1].name  # the chain's source: the input itself, or for pow(d, -d)'s -d, d
    order = r.neg_order.get(id(chain[0]))
    if order is not None and order[0] == "before":  # (-e).to(T): the negation at e's width, then the narrowing
        dt, st = chain_types(order[1]) or ("", "")
        e = order[1].operands[1]
        assert isinstance(e, ir.Reg)
        w = R.ring(st).w
        n = ctx.fresh(BITS_KIND[w])
        ctx.emit(f"neg.s{w} {n}, {as_reg(ctx, ctx.embed(e, st), w)}")
        p = cast_payload(ctx, n, st, dt)
        chain = chain[1:]
    else:
        p = "" if first[1] in INT_TYPES else ctx.embed(ir.Reg(x), first[1])
    moved: str | None = None  # the abs the source computes after (or within) the next cast: inside, via-W
    for s in chain:
        types = chain_types(s)
        assert types is not None
        dt, st = types
        if st in INT_TYPES:  # i.to(f32): native, as Triton's FPSan leaves sitofp
            p = _int_conversion(ctx, s, x, dt, st)
            continue
        if s.opcode == "abs" and r.abs_order.get(id(s), "") not in ("", "outside"):
            moved = r.abs_order[id(s)]
            continue
        if s.opcode == "cvt":
            if moved is not None and moved.startswith("via-"):
                wt = moved[4:]
                p = _abs_bits(ctx, cast_payload(ctx, p, st, wt), wt)
                p = cast_payload(ctx, p, wt, dt)
            else:
                p = cast_payload(ctx, p, st, dt)
                p = _abs_bits(ctx, p, dt) if moved is not None else p
            moved = None
        elif s.opcode == "neg":
            w = R.ring(st).w
            n = ctx.fresh(BITS_KIND[w])
            ctx.emit(f"neg.s{w} {n}, {as_reg(ctx, p, w)}")
            p = n
        else:  # abs: Triton leaves it native, on the float bits
            p = _abs_bits(ctx, p, st)
    return p


def _int_conversion(ctx: RewriteContext, s: ir.Instruction, x: str, dt: str, st: str) -> str:
    """φ of a sunk chain's integer conversion: native, as Triton's FPSan leaves sitofp — but a conversion to a half
    the source makes through f32 (a scan's first row, held-out seed 75360: ``cumsum(i.to(f32)).to(bf16)``, silent at
    first contact) is f32 natively, then Triton's ring narrowing (where the source does not say, reported); and one to
    f32/f64 the source makes through a half (``i.to(bf16).to(f32)`` of an integer exact in it, LLVM's one cvt:
    held-out seed 99193, pow's y, silent) is the half natively, then Triton's ring widening (undecided: native)."""
    if dt in ("f16", "bf16"):
        via = ctx.folds.get("int-half")
        if via is None:
            decided = ctx.hints.int_half(s, dt)
            via = decided.form if decided is not None and decided.form in ("native", "f32") else None
        if via is None:
            ctx.report(s, f"{st} → {dt} conversion of a libdevice argument left native (Triton's i.to({dt})); LLVM "
                       f"also folds a conversion through f32 into this one cvt, which Triton's FPSan narrows in the "
                       f"ring: --fold int-half=native|f32 states which the source meant")
    else:
        via = ctx.folds.get("int-wide")
        if via is None and (wide := ctx.hints.int_wide(s, within=True)) is not None:
            via = wide.form
        via = via if via in ("f16", "bf16") or (via == "f32" and dt == "f64") else None
    ctx.read_bits(x)
    if via in ("f16", "bf16", "f32") and via != dt:
        t = ctx.fresh(BITS_KIND[R.ring(via).w])
        ctx.emit(f"cvt.rn.{via}.{st} {t}, {x}")
        return cast_payload(ctx, ctx.embed_value(t, via), via, dt)
    t = ctx.fresh(BITS_KIND[R.ring(dt).w])
    ctx.emit(f"cvt.{'.'.join(s.mods)} {t}, {x}")
    return ctx.embed_value(t, dt)


def _abs_bits(ctx: RewriteContext, p: str, t: str) -> str:
    """φ(|φ⁻¹(p)|) of a ``t`` payload: Triton's FPSan leaves abs native, on the float bits."""
    w = R.ring(t).w
    bits = ctx.unembed_to_fresh(as_reg(ctx, p, w), t)
    m = ctx.fresh(BITS_KIND[w])
    ctx.emit(f"and.b{w} {m}, {bits}, {hexc((1 << (w - 1)) - 1, w)}")
    return ctx.embed_value(m, t)


def emit_call(ctx: RewriteContext, ps: list[str], symbol: str, w: int) -> str:
    """``Σ rotl(E(arg_i), i) XOR FNV-1a-64(symbol)`` (low w bits), docs/fpsan.md §2."""
    kind = BITS_KIND[w]
    acc = as_reg(ctx, ps[0], w)
    for i, p in enumerate(ps[1:], start=1):
        p = as_reg(ctx, p, w)
        hi, lo_, rot, s = (ctx.fresh(kind) for _ in range(4))
        ctx.emit(f"shl.b{w} {hi}, {p}, {i}")
        ctx.emit(f"shr.b{w} {lo_}, {p}, {w - i}")
        ctx.emit(f"or.b{w} {rot}, {hi}, {lo_}")
        ctx.emit(f"add.s{w} {s}, {acc}, {rot}")
        acc = s
    o = ctx.fresh(kind)
    ctx.emit(f"xor.b{w} {o}, {acc}, {hexc(R.fnv1a64(symbol) & ((1 << w) - 1), w)}")
    return o
