"""Float conversions (``cvt``, ISA §9.7.9.21) in the ring (docs/fpsan.md §2): widening sign-extends
the payload, narrowing is Triton 3.9's fold (or truncation with ``--homomorphic-casts``), f16 ↔ bf16
keep the payload, same-type integer rounding is floor/ceil (tagged) or rint/trunc (libdevice calls),
8-bit float pairs (e4m3x2/e5m2x2) go through the low-byte φ. int ↔ float ``cvt`` are left native, as
Triton leaves them (the report lists them, ``ptxkit.fpsan.report``), except f16/bf16 → int, LLVM's fold
of a conversion through f32 (or f64): the ring widening is reproduced (:func:`_half_to_int`); and
``cvt.rna.tf32.f32``, Triton's inline asm splitting tf32x3 dot operands, is its call hash."""

from __future__ import annotations

from ptxkit import ir
from ptxkit.fpsan import ring as R
from ptxkit.fpsan.cast_calls import (
    MIN_SITES,
    call_narrow_fp8_pair,
    call_pack_halves,
    call_widen_fp8_pair,
    narrow,
    narrow_fp8_pair,
    widen_fp8_pair,
)
from ptxkit.fpsan.ctx import BITS_KIND, LANE_TYPE, RewriteContext, guard_text, hexc
from ptxkit.fpsan.irview import name_of
from ptxkit.fpsan.ops import ALL_FLOATS, as_reg, emit_libcall, emit_tagged, post_modifiers, sign_xor_width
from ptxkit.fpsan.report import ERROR, NOTE, Verdict
from ptxkit.fpsan.source_ast import Decision
from ptxkit.ptx.types import is_float, is_type


def rewrite_cvt(instr: ir.Instruction, ctx: RewriteContext) -> bool | str | Verdict:
    """Float ↔ float ``cvt`` (ISA §9.7.9.21): sign-extend up, Triton 3.9's fold down, f16↔bf16 keep
    the payload; ``cvt.rmi/.rpi.fX.fX`` are floor/ceil (tagged), ``.rni/.rzi`` rint/trunc (libcalls).
    Returns True, False (not a float↔float cvt: leave it) or a reason string (float, not modelled)."""
    types = [m for m in instr.mods if is_type(m)]
    if len(types) != 2:
        return False
    dt, st = types
    if not (is_float(dt) or is_float(st)):
        return False
    if st in ("f16", "bf16") and not is_float(dt) and len(instr.operands) == 2:
        return _half_to_int(instr, ctx, dt, st)
    if st == "f32" and not is_float(dt) and len(instr.operands) == 2 and (d := ctx.hints.f32_int(instr, dt)):
        if d.form == "mixed":
            return Verdict(f"f32 → {dt} conversion of a choice the source at {d.where} makes between f64 widenings and "
                           "a constant: LLVM chooses between the f32 values and drops the widening, where Triton "
                           "widens each arm in the ring and takes the constant's own f64 (not modelled); left native",
                           ERROR)
        return _via_f64(instr, ctx, dt, d.where)
    if dt in ("f16", "bf16") and not is_float(st) and len(instr.operands) == 2:
        return _int_to_half(instr, ctx, dt, st)
    if dt in ("f32", "f64") and st in _NARROW_INTS and len(instr.operands) == 2:
        return _int_to_wide(instr, ctx, dt, st)
    if dt in ("f32", "f64") and st in _WIDE_INTS and len(instr.operands) == 2:
        return _int_to_wide(instr, ctx, dt, st, only_decided=True)
    if not (is_float(dt) and is_float(st)):
        if is_float(st) and (i8 := ctx.hints.int8_conversion(instr)) is not None:
            return Verdict(_int8_reason(st, dt, i8), ERROR)  # (held-out seed 38353: f32, silent before)
        return False  # int <-> float: native, like Triton
    ops = instr.operands
    if dt in FP8_PAIRS or st in FP8_PAIRS:
        return _rewrite_cvt_fp8(instr, ctx, dt, st)
    if dt == "tf32" and st == "f32" and "rna" in instr.mods and len(ops) == 2 and isinstance(ops[0], (ir.Reg, ir.Sym)):
        # tf32x3 dots (issue 10 I): Triton splits each operand into big = cvt.rna.tf32(x) (an inline asm)
        # and small = x - big; its FPSan hashes the inline asm like any pure call (docs/fpsan.md §2:
        # E(x) XOR FNV-1a-64 of the asm string), and the three dots, the subtraction are ring ops
        o = ctx.fresh("b32")
        ctx.emit(f"xor.b32 {o}, {as_reg(ctx, ctx.embed(ops[1], 'f32'), 32)}, {hexc(_TF32_ASM_HASH, 32)}")
        ctx.define(ops[0], o, "f32", instr.guard)
        return True
    if dt not in ALL_FLOATS or st not in ALL_FLOATS:
        return f"cvt.{dt}.{st}: no FPSan embedding for this format"
    if dt in LANE_TYPE and st == "f32" and len(ops) == 3:
        # cvt.rn.f16x2.f32 d, a, b: a → upper half, b → lower half (ISA §9.7.9.21)
        lt = LANE_TYPE[dt]
        pays = [as_reg(ctx, ctx.embed(src, "f32"), 32) for src in (ops[2], ops[1])]
        ctx.invalidate(name_of(ops[0]))
        if "sat" in instr.mods or "relu" in instr.mods or not _helper_pays(ctx, instr):
            lanes = []
            for p in pays:
                p = post_modifiers(ctx, _cast_payload(ctx, p, "f32", lt), 16, instr)
                lanes.append(ctx.unembed_to_fresh(p, lt))
            ctx.emit(f"{guard_text(instr.guard)}mov.b32 {name_of(ops[0])}, {{{lanes[0]}, {lanes[1]}}}")
        else:
            ctx.emit(f"mov.b32 {name_of(ops[0])}, {call_pack_halves(ctx, pays[0], pays[1], lt)}")  # unguarded
        return True
    if dt in LANE_TYPE or st in LANE_TYPE or len(ops) != 2 or not isinstance(ops[0], (ir.Reg, ir.Sym)):
        return f"packed cvt.{dt}.{st} not modelled"
    if isinstance(ops[1], ir.Reg) and (kept := ctx.wide.get(ops[1].name)) is not None and kept[0] == dt:
        ctx.define(ops[0], kept[1], dt, instr.guard)  # (fold_narrowed_extremum: the wide ring's value, not sext)
        return True
    if dt == st:
        irnd = [m for m in instr.mods if m in ("rni", "rzi", "rmi", "rpi")]
        p = ctx.embed(ops[1], st)
        w = R.ring(st).w
        if irnd and irnd[0] in ("rmi", "rpi"):  # floor / ceil: Triton's tags, or libdevice's f64 calls (their hash;
            name = "floor" if irnd[0] == "rmi" else "ceil"  # its f32 ones are the tagged ops, checked on Triton 3.9)
            if st == "f64" and (call := ctx.hints.libdevice_call(instr, name)) is not None:
                p = emit_libcall(ctx, p, name, st, f"__nv_{name}")
                ctx.report(instr, f"cvt.{irnd[0]} as libdevice.{name}, decided by the source at {call.where}: "
                           f"Triton hashes the call (tl.{name} is its tagged op, the same PTX)", NOTE, False)
            else:
                p = emit_tagged(ctx, p, name, w)
        elif irnd and irnd[0] == "rzi" and _trunc_as_casts(instr, ctx, st):
            return True
        elif irnd:  # rint / trunc: libdevice calls (module docstring)
            p = emit_libcall(ctx, p, "rint" if irnd[0] == "rni" else "trunc", st)
            if irnd[0] == "rzi":
                _report_trunc(instr, ctx)
        p = post_modifiers(ctx, as_reg(ctx, p, w), w, instr)
        ctx.define(ops[0], p, dt, instr.guard)
        return True
    p = ctx.embed(ops[1], st)
    definer = ctx.only_def(ops[1].name) if isinstance(ops[1], ir.Reg) else None
    extremum = definer is not None and definer.opcode in ("max", "min")
    if st == "f32" and dt in ("f16", "bf16") and (wide := ctx.hints.narrowed_from_wider(instr, dt, st, extremum)) \
            is not None:
        kept = ctx.wide.get(ops[1].name) if isinstance(ops[1], ir.Reg) else None
        # Triton narrows the 64-bit ring value (LLVM dropped the fpext): the max/min LLVM shrank, kept at 64 bits
        # (fold_narrowed_extremum: the dropped work replayed, nothing to report), else the 32-bit one sign-extended
        replayed = kept[1] if kept is not None and kept[0] == "f64" else None
        p = replayed if replayed is not None else _cast_payload(ctx, p, st, "f64")
        st = "f64"
        if replayed is None:
            if wide.form == "reduced":
                ctx.report(instr, f"cvt.{dt}.f32 where the source at {wide.where} narrows the max/min of f32 values "
                           "widened to f64: LLVM reduced the f32 values (exact: the ring's sign extension keeps their "
                           "order) and dropped the widening; sanitized as Triton's narrowing of the 64-bit ring value",
                           NOTE, False)
            elif not _negated_at_readers(instr, ctx, dt):
                ctx.report(instr, f"cvt.{dt}.f32 where the source at {wide.where} narrows an f64: LLVM dropped the "
                           "exact widening and exact f64 work with it (a negation, a reduction's first element), which "
                           "the narrowing of the ring value does not commute with: sanitized through f64, the dropped "
                           "work not replayed", ERROR, False)
    p = _cast_payload(ctx, p, st, dt)
    p = post_modifiers(ctx, p, R.ring(dt).w, instr)
    ctx.define(ops[0], p, dt, instr.guard)
    return True


def _negated_at_readers(cvt: ir.Instruction, ctx: RewriteContext, dt: str) -> bool:
    """Every reader of ``cvt``'s result is a negation (``neg``, a sign ``xor``) where the source has the chain of
    casts and negation, which the sign rules replay from the cvt's source (``ptxkit.fpsan.neg_chain``; held-out
    seed 101546: ``(-x.to(f64)).to(f16)`` of an f32 x as ``neg.f16`` of ``cvt.rn.f16.f32``): the dropped work is
    theirs to replay or report."""
    readers = ctx.uses.get(name_of(cvt.operands[0]), [])
    return bool(readers) and all(
        (u.opcode == "neg" or (u.opcode == "xor" and sign_xor_width(u))) and (ch := ctx.hints.neg_chain(u, dt))
        is not None and "neg" in ch[0] for u in readers)


# ------------------------------------------------------------------------------ 8-bit floats
# PTX has no 8-bit arithmetic registers: 8-bit payloads live in the low byte of b16 registers
# (φ/φ⁻¹ by ptxkit.fpsan.phi.embed_low/unembed_low).

FP8_PAIRS = {"e4m3x2": "e4m3", "e5m2x2": "e5m2"}


def _rewrite_cvt_fp8(instr: ir.Instruction, ctx: RewriteContext, dt: str, st: str) -> bool | str:
    """``cvt.rn.f16x2.{e4m3x2,e5m2x2} d, a`` (each byte widened: sign-extended payload) and
    ``cvt.rn.satfinite.{e4m3x2,e5m2x2}.f32 d, a, b`` (a → upper byte; Triton's 32→8 fold, R =
    0xb7b7b7b7, or truncation with --homomorphic-casts) and ``….f16x2 d, a`` (16 → 8, R = 0xb7b7),
    ISA §9.7.9.21. ``.satfinite`` is irrelevant in the ring (no infinities); ``.relu`` on 8-bit results is not
    modelled."""
    ops = instr.operands
    if "relu" in instr.mods or instr.guard is not None:
        return f"cvt.{dt}.{st}: .relu / guarded 8-bit float conversions are not modelled"
    if not all(isinstance(o, (ir.Reg, ir.Sym)) for o in ops):
        return f"cvt.{dt}.{st}: operand form not modelled"
    if st in FP8_PAIRS and dt == "f16x2" and len(ops) == 2:
        ft = FP8_PAIRS[st]
        src = ctx.int_view(name_of(ops[1]), 16)
        ctx.read_bits(name_of(ops[1]))
        ctx.invalidate(name_of(ops[0]))
        if _helper_pays(ctx, instr):
            ctx.emit(f"mov.b32 {name_of(ops[0])}, {call_widen_fp8_pair(ctx, src, ft)}")
        else:
            lo, hi = widen_fp8_pair(ctx, src, ft)
            ctx.emit(f"mov.b32 {name_of(ops[0])}, {{{lo}, {hi}}}")
        return True
    if dt in FP8_PAIRS and st == "f32" and len(ops) == 3 and (halves := _widened_halves(ctx, instr, ops[2], ops[1])):
        # h.to(fp8) of a half h: Triton lowers it through the exact f32 widening (inline asm), its FPSan narrows the
        # half's payload 16 → 8 (a model kernel's bf16 x.to(float8e5), silent in 455/512 as 32 → 8 of the sext)
        lo, hi = (as_reg(ctx, ctx.embed(h, ht), 16) for h, ht in halves)
        ctx.invalidate(name_of(ops[0]))
        ctx.emit(f"mov.b16 {name_of(ops[0])}, "
                 f"{narrow_fp8_pair(ctx, lo, hi, FP8_PAIRS[dt], ctx.homomorphic_casts, width=16)}")
        return True
    if dt in FP8_PAIRS and st == "f16x2" and len(ops) == 2:
        # a half's .to(float8*) (Triton lowers f16 → fp8 to this one instruction): each lane's payload narrowed 16 → 8,
        # as Triton's FPSan does; the low lane → the low byte
        lo, hi = (as_reg(ctx, ctx.embed(ops[1], "f16", lane=k, packed="f16x2"), 16) for k in (0, 1))
        ctx.invalidate(name_of(ops[0]))
        ctx.emit(f"mov.b16 {name_of(ops[0])}, "
                 f"{narrow_fp8_pair(ctx, lo, hi, FP8_PAIRS[dt], ctx.homomorphic_casts, width=16)}")
        return True
    if dt in FP8_PAIRS and st == "f32" and len(ops) == 3:
        ft = FP8_PAIRS[dt]
        lo, hi = (as_reg(ctx, ctx.embed(src, "f32"), 32) for src in (ops[2], ops[1]))  # b → low byte, a → high
        ctx.invalidate(name_of(ops[0]))
        if _helper_pays(ctx, instr):
            ctx.emit(f"cvt.u16.u32 {name_of(ops[0])}, {call_narrow_fp8_pair(ctx, lo, hi, ft)}")
        else:
            ctx.emit(f"mov.b16 {name_of(ops[0])}, {narrow_fp8_pair(ctx, lo, hi, ft, ctx.homomorphic_casts)}")
        return True
    return f"cvt.{dt}.{st}: this 8-bit float conversion is not modelled"


def _widened_halves(ctx: RewriteContext, at: ir.Instruction, *srcs: ir.Operand) -> list[tuple[ir.Operand, str]]:
    """(h, its type) of each source of ``at`` written once by ``cvt.f32.{f16,bf16} s, h`` (an inline asm block's own
    ``.reg`` within that copy of the block: Triton repeats the asm per pair), where all are; else []."""
    out: list[tuple[ir.Operand, str]] = []
    for o in srcs:
        d = ctx.only_def(o.name, at) if isinstance(o, (ir.Reg, ir.Sym)) else None
        types = [m for m in d.mods if is_type(m)] if d is not None and d.opcode == "cvt" else []
        if d is None or d.guard is not None or types[:1] != ["f32"] or types[1:] not in (["f16"], ["bf16"]) \
                or not isinstance(d.operands[1], (ir.Reg, ir.Sym)):
            return []
        out.append((d.operands[1], types[1]))
    return out


# the low 32 bits of FNV-1a-64 of Triton's inline asm for a tf32x3 operand split (0x1f768597, read off its FPSan PTX)
_TF32_ASM_HASH = R.fnv1a64("cvt.rna.tf32.f32 $0, $1;") & 0xFFFFFFFF


def _via_f64(instr: ir.Instruction, ctx: RewriteContext, dt: str, where: str) -> bool:
    """``cvt.rzi.sN.f32 d, x`` as Triton's ``x.to(f64).to(intN)``: the payload sign-extended to f64, φ⁻¹,
    then the conversion from f64 (LLVM dropped the fpext, which the ring does not commute with)."""
    bits = ctx.unembed_to_fresh(_cast_payload(ctx, ctx.embed(instr.operands[1], "f32"), "f32", "f64"), "f64")
    mods = ["f64" if m == "f32" else m for m in instr.mods if m != "ftz"]
    dst = name_of(instr.operands[0])
    ctx.invalidate(dst)
    ctx.emit(f"{guard_text(instr.guard)}cvt.{'.'.join(mods)} {dst}, {bits}")
    ctx.report(instr, f"f32 → {dt} conversion through f64 (decided by the source at {where}): the sign-extended "
               "payload, φ⁻¹, then the conversion, as Triton's FPSan computes it", NOTE, False)
    return True


def _int8_reason(st: str, dt: str, i8: Decision) -> str:
    return (f"{st} → {dt} conversion at the source's .to({i8.form}) ({i8.where}): out of the 8-bit range fptosi is "
            "poison, and LLVM wraps the ring value's conversion to 8 bits in one build and keeps 16 in the other as it "
            "likes (held-out seeds 33573, 28003, 38353); sanitized as the PTX's conversion")


def _half_to_int(instr: ir.Instruction, ctx: RewriteContext, dt: str, st: str) -> bool:
    """``cvt.rzi.sN.f16 d, h`` (and bf16, any integer type): LLVM's fold of Triton's ``h.to(f32).to(int)``
    (issue 10 E). Triton's FPSan widens the payload (sign-extension) and converts φ⁻¹ of it natively
    (``fptosi``), which the half's bits determine: sext, φ⁻¹ into f32, then the same ``cvt`` from f32.
    ``h.to(f64).to(int)`` folds to the same PTX but widens to f64, which gives another integer for about
    half the payloads: the source form is a fold (``--fold half-int=f32|f64``); unstated, f32 is assumed
    and the conversion is reported as an error."""
    form = ctx.folds.get("half-int")
    decided = ctx.hints.half_int(instr, dt) if form is None else None
    via, _, chain = (form or (decided.form if decided else "f32")).partition(";")
    wide = _cast_payload(ctx, ctx.embed(instr.operands[1], st), st, via)
    bits = ctx.unembed_to_fresh(wide, via)
    mods = [via if m == st else m for m in instr.mods if not (via == "f64" and m == "ftz")]
    dst = name_of(instr.operands[0])
    ctx.invalidate(dst)
    if chain:  # the source's wider integer (LLVM narrowed the cvt): convert at its width, then truncate
        t = ctx.fresh(BITS_KIND[int(chain[1:])])
        ctx.emit(f"{guard_text(instr.guard)}cvt.{'.'.join(m if m != dt else chain for m in mods)} {t}, {bits}")
        mods, bits = [dt, chain], t
    ctx.emit(f"{guard_text(instr.guard)}cvt.{'.'.join(mods)} {dst}, {bits}")
    if (i8 := ctx.hints.int8_conversion(instr)) is not None:
        ctx.report(instr, _int8_reason(st, dt, i8), ERROR, False)
    if decided is not None:
        at = f" at {chain} (the source's integer; LLVM narrowed the cvt), truncated" if chain else ""
        ctx.report(instr, f"{st} → {dt} conversion through {via}{at} (decided by the source at {decided.where}): "
                   "the sign-extended payload, φ⁻¹, then the conversion, as Triton's FPSan computes it", NOTE, False)
    elif form is None:
        ctx.report(instr, f"{st} → {dt} conversion: LLVM folds {st}→f32→int and {st}→f64→int into this one cvt "
                   "(Triton's FPSan widens the payload to the intermediate type, so the two differ); sanitized as "
                   "through f32: --fold half-int=f32|f64 states which the source meant", ERROR, False)
    else:
        ctx.report(instr, f"{st} → {dt} conversion through {via} (stated: --fold half-int={via}): the sign-extended "
                   "payload, φ⁻¹, then the conversion, as Triton's FPSan computes it", NOTE, False)
    return True


def _int_to_half(instr: ir.Instruction, ctx: RewriteContext, dt: str, st: str) -> bool | Verdict:
    """``cvt.rn.{f16,bf16}.sN/uN d, i``: Triton's ``i.to(f16)`` (one ``sitofp``, left native by its FPSan) —
    or LLVM's fold of ``fptrunc(sitofp i → f32)`` when the integer is known to be exact in f32 (seed 51:
    ``(-(h.to(i64).to(f32) * -1.0)).to(bf16)``: the arithmetic cancels only after Triton's FPSan, whose
    code converts to f32 natively and narrows the payload in the ring). The two differ; an adjacent
    ``.to(f32).to(bf16)`` is folded before the FPSan pass (checked on Triton 3.9), so it is native too.
    ``--fold int-half=native|f32``; unstated, native is assumed and the conversion is reported."""
    form = ctx.folds.get("int-half")
    decided = ctx.hints.int_half(instr, dt) if form is None else None
    if decided is not None and decided.form == "round-trip":
        return Verdict(f"{st} → {dt} conversion left native; the source at {decided.where} then converts the half "
                       "to an integer and back, which LLVM dropped as exact, where Triton's FPSan converts a half "
                       "to an integer through its ring widening to f32: the value differs", ERROR)
    if decided is not None and decided.form == "native":
        return Verdict(f"{st} → {dt} conversion left native (decided by the source at {decided.where}: "
                       f"i.to({dt})), as Triton's FPSan leaves sitofp/uitofp", NOTE)
    if decided is not None:
        form = "f32"
    if form != "f32":
        if form is None:
            return Verdict(f"{st} → {dt} conversion left native (Triton's i.to({dt})); LLVM also folds a conversion "
                           f"through f32 whose float arithmetic cancelled into this one cvt, which Triton's FPSan "
                           f"narrows in the ring, so the two differ: --fold int-half=native|f32 states which the "
                           f"source meant", ERROR)
        return Verdict(f"{st} → {dt} conversion left native (stated: --fold int-half=native), as Triton's FPSan "
                       "leaves sitofp/uitofp", NOTE)
    src = instr.operands[1]
    f = ctx.fresh("b32")
    ctx.emit(f"cvt.rn.f32.{st} {f}, {src.name if isinstance(src, (ir.Reg, ir.Sym)) else src}")
    q = ctx.embed_value(f, "f32")
    ops = [o for o in decided.form.partition(";")[2].split(",") if o] if decided is not None else []
    for op in ops:  # the f32 arithmetic LLVM cancelled, in the ring (source_hints._ring_chain)
        name, _, c = op.partition(":")
        o, a = ctx.fresh("b32"), as_reg(ctx, q, 32)
        k = hexc(R.embed_int(int(c, 16), "f32"), 32) if c else ""
        ctx.emit({"neg": f"sub.s32 {o}, 0, {a}", "add": f"add.s32 {o}, {a}, {k}", "sub": f"sub.s32 {o}, {a}, {k}",
                  "rsub": f"sub.s32 {o}, {k}, {a}", "mul": f"mul.lo.s32 {o}, {a}, {k}"}[name])
        q = o
    p = _cast_payload(ctx, q, "f32", dt)
    p = post_modifiers(ctx, p, R.ring(dt).w, instr)
    ctx.define(instr.operands[0], p, dt, instr.guard)
    how = f"decided by the source at {decided.where}" if decided is not None else "stated: --fold int-half=f32"
    ctx.report(instr, f"{st} → {dt} conversion through f32 ({how}): converted to f32 natively, then Triton's ring "
               f"{'arithmetic and ' if ops else ''}narrowing of its payload", NOTE, False)
    return True


_NARROW_INTS = ("s8", "u8", "s16", "u16")
_WIDE_INTS = ("s32", "u32", "s64", "u64")
_INT_WIDE = ("{st} → {dt} conversion, left native: LLVM folds i.to(f16|bf16).to({dt}) into this one conversion "
             "(exact when i fits the half's mantissa), where Triton's FPSan widens the half's payload (a ring "
             "sign extension), so both sources give this PTX")
_TRUNC = ("cvt.rzi.{t}.{t} sanitized as libdevice's trunc (its call hash): LLVM also folds x.to(intN).to({t}) "
          "into it, which Triton's FPSan converts natively (and which saturates out of the integer's range)")


def _int_to_wide(instr: ir.Instruction, ctx: RewriteContext, dt: str, st: str,
                 only_decided: bool = False) -> bool | Verdict:
    """``cvt.rn.{f32,f64}.{s,u}{8,16}``: native like every int → float conversion (False) where it is
    ``i.to(T)``; Triton's ``i.to(h).to(T)`` (a half ``h`` LLVM dropped: stated ``--fold int-wide=h`` or
    decided by the source; also f32 of ``i.to(f32).to(f64)``, held-out seed 1244 — Triton folds
    ``i.to(f64).to(f32)`` itself) as the native conversion to ``h`` and the ring widening of its payload; else
    left native and reported. ``only_decided`` (32/64-bit integers, whose conversions are everywhere):
    only where the source shows the half (held-out seed 1268: ``x.to(f64).to(int64).to(bf16)``, stored
    as f32, an integer LLVM knows fits bf16); otherwise native and not reported."""
    stated = None if only_decided else ctx.folds.get("int-wide")
    decided = None if stated else ctx.hints.int_wide(instr)
    form = stated or (decided.form if decided is not None else None)
    if form is None and only_decided and (at := ctx.hints.half_of_int_on_line(instr)) is not None:
        return Verdict(f"{_INT_WIDE.format(st=st, dt=dt)}; the statement casts an integer to a half at {at}, and "
                       "the conversion's location does not say whether it is that cast", ERROR, native=True)
    if form == "wider":
        return Verdict(f"{st} → {dt} conversion where the source at {decided.where if decided else '?'} converts the "
                       f"integer to a wider float (then abs or a select) and narrows it: LLVM converts straight to "
                       f"{dt}, Triton's FPSan narrows the wide ring payload with its hash fold (not modelled); left "
                       "native", ERROR, native=True)
    if form == dt or form == "direct" or (only_decided and form not in ("f16", "bf16", "f32", "f64")):
        return False
    if form not in ("f16", "bf16", "f32", "f64"):  # (f64 of an f32: a scan's first row of i.to(f64), 24288)
        return Verdict(f"{_INT_WIDE.format(st=st, dt=dt)}; the source does not say which "
                       "(--fold int-wide=direct|f16|bf16|f32 states it)", ERROR, native=True)
    ops = instr.operands
    h = ctx.fresh(BITS_KIND[R.ring(form).w])
    ctx.emit(f"cvt.rn.{form}.{st} {h}, {name_of(ops[1])}")  # the conversion Triton leaves native
    ctx.read_bits(name_of(ops[1]))
    p = _cast_payload(ctx, ctx.embed_value(h, form), form, dt)
    ctx.define(ops[0], p, dt, instr.guard)
    how = f"decided by the source at {decided.where}" if decided is not None else f"stated: --fold int-wide={form}"
    ctx.report(instr, f"{st} → {dt} conversion as Triton's i.to({form}).to({dt}) ({how}): the native conversion "
               f"to {form}, then the ring {'narrowing' if form == 'f64' else 'widening'} of its payload", NOTE, False)
    return True


def _trunc_as_casts(instr: ir.Instruction, ctx: RewriteContext, t: str) -> bool:
    """``cvt.rzi.fT.fT`` where the source casts through an integer (``x.to(tl.int16).to(fT)``, held-out
    seeds 626, 765): Triton's FPSan converts natively, a half through f32 (its ``h.to(int)``), as LLVM
    lowers the pair (:func:`through_int`); f32/f64 read only by comparisons (``folds.rewrite_fold`` takes the
    rest): the trunc itself on the unembedded bits, as LLVM folds the pair in Triton's FPSan
    too. A trunc call, or a source that does not say: False."""
    decided = trunc_casts(instr, ctx)
    if decided is None:
        return False
    dtype = decided.form.split(":")[1]
    x = instr.operands[1]
    dst = name_of(instr.operands[0])
    if t in ("f32", "f64") and not decided.form.endswith(":f64"):
        # both conversions are native on the unembedded bits in Triton's FPSan, of the same types as here: LLVM
        # folds them into the same trunc there where a comparison reads it (held-out seed 3651: out of the
        # integer's range it is not the saturating round trip)
        bits = ctx.unembed_to_fresh(as_reg(ctx, ctx.embed(x, t), R.ring(t).w), t)
        ctx.invalidate(dst)
        ctx.emit(f"{guard_text(instr.guard)}{'.'.join(('cvt', *instr.mods))} {dst}, {bits}")  # (its .ftz, as written)
        ctx.report(instr, f"cvt.rzi.{t}.{t} as Triton's x.to({dtype}).to({t}) (decided by the source at "
                   f"{decided.where}), read only by comparisons: native, as LLVM folds the two native conversions "
                   "in Triton's FPSan too", NOTE, False)
        return True
    through_int(instr, ctx, t, decided)
    return True


def trunc_casts(instr: ir.Instruction, ctx: RewriteContext) -> Decision | None:
    """The source's ``casts:DTYPE`` decision of a ``cvt.rzi.fT.fT`` (unless ``--fold trunc=call``), else None."""
    if ctx.folds.get("trunc") == "call":
        return None
    decided = ctx.hints.trunc(instr)
    return decided if decided is not None and decided.form.startswith("casts:") else None


def through_int(instr: ir.Instruction, ctx: RewriteContext, t: str, decided: Decision) -> None:
    """``cvt.rzi.fT.fT`` as Triton's native pair of ``x.to(intN).to(fT)``: ``cvt.rzi`` to the integer held in at
    least 16 bits (no wrap to 8: an out-of-range fptosi is poison), then ``cvt.rn`` back to fT; a half from
    its ring widening to f32 (Triton's ``h.to(int)``), or to f64 where the source converts from an f64 cast."""
    _, dtype, *wide = decided.form.split(":")
    it = f"{'u' if dtype.startswith('u') else 's'}{max(16, int(dtype.lstrip('uint')))}"
    x = instr.operands[1]
    g = guard_text(instr.guard)
    dst = name_of(instr.operands[0])
    if t in ("f16", "bf16") or wide:
        via = wide[0] if wide else "f32"
        bits = ctx.unembed_to_fresh(_cast_payload(ctx, ctx.embed(x, t), t, via), via)
    else:
        via = t
        bits = ctx.unembed_to_fresh(as_reg(ctx, ctx.embed(x, t), R.ring(t).w), t)
    i = ctx.fresh(BITS_KIND[int(it[1:])])
    ctx.emit(f"{g}cvt.rzi.{it}.{via} {i}, {bits}")
    ctx.invalidate(dst)
    ctx.emit(f"{g}cvt.rn.{t}.{it} {dst}, {i}")
    ctx.report(instr, f"cvt.rzi.{t}.{t} as Triton's x.to({dtype}).to({t}) (decided by the source at {decided.where}): "
               f"native conversions through {it}{' from the widened payload' if via != t else ''}", NOTE, False)


def _report_trunc(instr: ir.Instruction, ctx: RewriteContext) -> None:
    """``cvt.rzi.fT.fT``: a note where the source calls trunc, else an error (see :data:`_TRUNC`)."""
    t = next(m for m in instr.mods if is_float(m))
    if ctx.folds.get("trunc") == "call":
        return
    decided = ctx.hints.trunc(instr)
    if decided is not None and decided.form == "call":
        return
    how = (f"the source at {decided.where} casts" if decided is not None
           else "the source does not say which (--fold trunc=call states the call)")
    ctx.report(instr, f"{_TRUNC.format(t=t)}; {how}", ERROR, False)


def _cast_payload(ctx: RewriteContext, p: str, st: str, dt: str) -> str:
    s, d = R.ring(st).w, R.ring(dt).w
    p = as_reg(ctx, p, s)
    if s == d:
        return p
    if d > s:
        o = ctx.fresh(BITS_KIND[d])
        ctx.emit(f"cvt.s{d}.s{s} {o}, {p}")
        return o
    return narrow(ctx, p, s, d, ctx.homomorphic_casts)


def _helper_pays(ctx: RewriteContext, instr: ir.Instruction) -> bool:
    """Whether this packed cast goes through a helper .func: its form (the modifiers) occurs at least
    MIN_SITES times in the function (ptxkit.fpsan.cast_calls), unguarded."""
    return instr.guard is None and ctx.cvt_sites.get(".".join(instr.mods), 0) >= MIN_SITES
