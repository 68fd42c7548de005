"""The f32 ops LLVM narrowed from f64 arithmetic on widened values (``(x.to(f64) * y.to(f64)).to(f32)`` as
``mul.f32``; ``ptxkit.fpsan.source_hints.SourceHints.narrowed_f32`` decides the form) whose Triton ring
computation is not modelled: the report's reason for each, the op sanitized as written; and the pieces of the H fold's
replay at the wide width (docs/fpsan.md §3): a half constant's value, a comparison of widened operands."""

from __future__ import annotations

import struct

from ptxkit import ir
from ptxkit.fpsan import ring as R
from ptxkit.fpsan.casts import _cast_payload as cast_payload
from ptxkit.fpsan.ctx import BITS_KIND, RewriteContext, _convert_float_bits, float_to_bits, guard_text, hexc
from ptxkit.fpsan.fold_flow import Flow, FoldResult
from ptxkit.fpsan.ops import as_reg, float_type_of, sign_xor_lanes
from ptxkit.fpsan.report import NOTE, Verdict
from ptxkit.fpsan.source_ast import Decision


def narrowed_f32_unmodelled(op: str, decided: Decision) -> str | None:
    """The reason an f32 ``op`` of form ``decided`` is left as written and reported; None when it is modelled
    (``f64``: the ring op in f64, narrowed)."""
    if decided.form == "both":  # (held-out seed 9335: silent, the f32 op was taken for the narrowed one)
        return (f"f32 {op} at a location (or column 0 of a line) whose source has both an f32 {op} and f64 "
                f"arithmetic on widened values narrowed back ({decided.where}): which one this is the location does "
                "not say; sanitized as the f32 op")
    if decided.form == "cse":  # (held-out seed 172374: silent at first contact)
        return (f"f32 {op} where the source ({decided.where}) computes both this op on f32 values and the same op on "
                "them widened to f64, narrowed back: LLVM shrinks the second to the first and makes them one "
                "instruction, whose readers Triton's ring gives two values (not modelled); sanitized as the f32 op")
    if decided.form == "int":  # (held-out seed 17257: silent at first contact)
        return (f"f32 {op} LLVM narrowed from f64 arithmetic on an integer converted to f64 ({decided.where}): "
                "Triton's operand is the native i → f64 conversion, which the PTX's i → f32 one widened in the ring "
                "is not (not modelled); sanitized as the f32 op")
    if decided.form == "restructured":  # (held-out seed 54683: silent at first contact)
        return (f"f32 {op} at a narrowing of f64 arithmetic ({decided.where}) that has no {op}: LLVM shrank the f64 "
                "ops to f32 and folded them into this one (a negation into a subtraction's order, say); Triton's ring "
                "computes the source's ops in f64 and narrows (not modelled); sanitized as the f32 op")
    if decided.form == "neg":  # (held-out seed 32469: silent at first contact)
        return (f"f32 {op} LLVM narrowed from f64 arithmetic on widened values that the source at {decided.where} "
                "negates after the narrowing, -(x.to(f64) * y.to(f64)).to(f32): LLVM moved the negation onto an "
                "operand; Triton's ring computes in f64, narrows, then negates (not modelled); sanitized as the f32 op")
    return None


def negated_product(instr: ir.Instruction, ctx: RewriteContext, flow: Flow, decided: Decision) -> FoldResult | None:
    """``mul.f32 d, a, n`` with ``n = neg.f32 b`` (or LLVM's sign-bit ``xor`` of a loaded b) where the source has
    ``-(P.to(f64))`` or ``P.to(f64) * -1.0`` narrowed to f32, P = a·b (``SourceHints.narrowed_f32``'s
    ``neg-product``): Triton's ring computes P in f32, sign-extends it, negates (or multiplies by φ_f64(−1.0)) in f64
    and narrows; the PTX's ring product is −P, which that narrowing gives back except at P = −2^31. None where no
    operand is such a negation (then the caller reports)."""
    ops = instr.operands
    negs = [o for o in ops[1:3] if isinstance(o, ir.Reg) and (w := flow.only_def(o.name)) is not None
            and w.guard is None and ((w.opcode == "neg" and float_type_of(w) == "f32")
                                     or sign_xor_lanes(w) == (32, 32))]
    if len(ops) != 3 or not isinstance(ops[0], ir.Reg) or len(negs) != 1:
        return None
    a, b = (as_reg(ctx, ctx.embed(o, "f32"), 32) for o in ops[1:3])
    q, p, x, n = ctx.fresh("b32"), ctx.fresh("b32"), ctx.fresh("b64"), ctx.fresh("b64")
    ctx.emit(f"mul.lo.s32 {q}, {a}, {b}")
    ctx.emit(f"neg.s32 {p}, {q}")  # P: the product before the negation LLVM moved onto an operand
    ctx.emit(f"cvt.s64.s32 {x}, {p}")
    if decided.form.endswith(":neg"):
        ctx.emit(f"neg.s64 {n}, {x}")
    else:
        ctx.emit(f"mul.lo.s64 {n}, {x}, {hexc(R.embed_int(float_to_bits(-1.0, 'f64'), 'f64'), 64)}")
    ctx.define(ops[0], cast_payload(ctx, n, "f64", "f32"), "f32", instr.guard)
    return FoldResult(True, Verdict(
        f"f32 mul LLVM shrank from the negation of its product widened to f64, narrowed back (decided by the source "
        f"at {decided.where}), the negation moved onto an operand: Triton's f32 ring product, sign-extended, negated "
        "in the f64 ring and narrowed", NOTE, native=False))


def negated_narrowed_product(instr: ir.Instruction, ctx: RewriteContext, flow: Flow,
                             decided: Decision) -> FoldResult | None:
    """``mul.f32 d, x, -c`` (or ``mul.f32 d, x, n`` of ``n = neg.f32 y``) where the source at ``decided`` (form
    ``neg``) has ``-(c * x.to(f64)).to(f32)`` (``-(x.to(f64) * y.to(f64)).to(f32)``): LLVM shrank the f64 product and
    moved the negation into the constant (onto an operand). Triton's ring multiplies the sign extensions at f64,
    narrows, then negates at f32 (statement-level seed 2699's kin, reported before); None for another shape."""
    ops = instr.operands
    if instr.opcode != "mul" or len(ops) != 3 or not isinstance(ops[0], ir.Reg):
        return None
    k = [i for i in (1, 2) if isinstance(o := ops[i], ir.FloatImm) and o.width == 32]
    negs = [i for i in (1, 2) if isinstance(o := ops[i], ir.Reg) and (d := flow.only_def(o.name)) is not None
            and d.opcode == "neg" and d.guard is None and float_type_of(d) == "f32"
            and isinstance(d.operands[1], ir.Reg) and flow.unchanged_between(d.operands[1].name, d, instr)]
    if len(k) == 1 and isinstance(ops[3 - k[0]], ir.Reg):
        imm = ops[k[0]]
        assert isinstance(imm, ir.FloatImm)
        c = -struct.unpack("<f", struct.pack("<I", imm.bits))[0]
        other, factor = ops[3 - k[0]], hexc(R.embed_int(float_to_bits(c, "f64"), "f64"), 64)
    elif not k and len(negs) == 1:
        d = flow.only_def(ops[negs[0]].name)  # type: ignore[union-attr]
        assert d is not None
        other, factor = ops[3 - negs[0]], ctx.fresh("b64")
        ctx.emit(f"cvt.s64.s32 {factor}, {as_reg(ctx, ctx.embed(d.operands[1], 'f32'), 32)}")
    else:
        return None
    x, m, t = ctx.fresh("b64"), ctx.fresh("b64"), ctx.fresh("b32")
    ctx.emit(f"cvt.s64.s32 {x}, {as_reg(ctx, ctx.embed(other, 'f32'), 32)}")
    ctx.emit(f"mul.lo.s64 {m}, {x}, {factor}")
    n = as_reg(ctx, cast_payload(ctx, m, "f64", "f32"), 32)
    ctx.emit(f"neg.s32 {t}, {n}")
    ctx.define(ops[0], t, "f32", instr.guard)
    return FoldResult(True, Verdict(
        f"f32 mul LLVM shrank from the negation of an f64 product narrowed to f32 (decided by the source at "
        f"{decided.where}), the negation moved into a factor: Triton's f64 ring product, narrowed, then negated",
        NOTE, native=False))


def nested_role(instr: ir.Instruction, flow: Flow, decided: Decision) -> Decision:
    """The form of an f32 op whose location holds both ``(a.to(f64) OP b.to(f64)).to(f32)`` and the f32 ``OP``
    reading it (``SourceHints.narrowed_f32``'s ``nested``; any other ``decided`` is returned as is), from the
    dataflow: the op whose result the other reads (same opcode and location) is the narrowed one, ``f64``; the
    reader is the f32 op, ``native``; else ``both``."""
    def twin(other: ir.Instruction | None) -> bool:
        return (other is not None and other is not instr and other.opcode == instr.opcode
                and other.mods == instr.mods and flow.hints.same_location(instr, other))
    if decided.form != "nested":
        return decided
    dest = instr.operands[0]
    read = isinstance(dest, ir.Reg) and any(twin(u) for u in flow.uses.get(dest.name, []))
    reads = any(twin(flow.only_def(o.name)) for o in instr.operands[1:] if isinstance(o, ir.Reg))
    if read != reads:
        return Decision("f64" if read else "native", decided.where)
    return Decision("both", decided.where)


def lane_constants(flow: Flow, o: ir.Operand, lane: str) -> tuple[float | None, float | None]:
    """The values of a packed half constant operand, low lane first (a 32-bit immediate, or a register whose one
    definition moves one in; held-out seed 15653: ``(x.to(f64) * 0.5).to(f16)`` as ``mul.f16x2`` by 0x38003800,
    whose lanes were widened as payloads, silent before)."""
    d = flow.only_def(o.name) if isinstance(o, ir.Reg) else None
    if d is not None and d.opcode == "mov" and len(d.operands) == 2 and d.guard is None:
        o = d.operands[1]
    if not isinstance(o, ir.Imm):
        return None, None
    v = o.value & 0xFFFFFFFF
    return half_constant(flow, ir.Imm(v & 0xFFFF), lane), half_constant(flow, ir.Imm(v >> 16), lane)


def half_constant(flow: Flow, o: ir.Operand, lane: str) -> float | None:
    """The value of a half constant operand (an immediate, or a register whose one definition moves one in)."""
    d = flow.only_def(o.name) if isinstance(o, ir.Reg) else None
    if d is not None and d.opcode == "mov" and len(d.operands) == 2 and d.guard is None:
        o = d.operands[1]
    if isinstance(o, ir.FloatImm):
        return struct.unpack("<d", struct.pack("<Q", o.bits))[0] if o.width == 64 else \
            struct.unpack("<f", struct.pack("<I", o.bits))[0]
    if isinstance(o, ir.Imm) and 0 <= o.value < 1 << 16:
        if lane == "bf16":
            return struct.unpack("<f", struct.pack("<I", o.value << 16))[0]
        return float(struct.unpack("<e", struct.pack("<H", o.value))[0])
    return None


def widened_setp(instr: ir.Instruction, ctx: RewriteContext, ft: str, form: str, verdict: Verdict,
                 flow: Flow | None = None) -> FoldResult:
    """``setp.CMP.f16 p, a, b`` (or ``.f32``) as Triton's comparison of the widened floats φ⁻¹_wide(sext φ(a)), …;
    a constant (also a register one ``mov`` defines) is the source's wide number, which LLVM narrowed because it is
    exact: compared as that float, not ring-widened (softplus's ``x.to(f32) > 20.0`` of a half x as ``setp.gt.f16``
    against ``mov.b16 0x4D00``, silent before)."""
    ops = instr.operands
    if ft not in ("f16", "bf16", "f32") or len(ops) != 3 or not isinstance(ops[0], ir.Reg) or len(instr.mods) != 2:
        return FoldResult(False, Verdict(f"setp.{ft}: this comparison form is not modelled for half={form}"))
    ww, w = R.ring(form).w, R.ring(ft).w
    wide = []
    for src in ops[1:]:
        if flow is not None and ft in ("f16", "bf16") and (k := half_constant(flow, src, ft)) is not None:
            wide.append(f"0d{float_to_bits(k, form):016X}" if ww == 64 else f"0f{float_to_bits(k, form):08X}")
            continue
        if isinstance(src, ir.FloatImm):  # a constant's exact widening, as Triton folds its cast (seed 18867's kin)
            wide.append(f"0d{_convert_float_bits(_convert_float_bits(src.bits, src.width, ft), w, form):016X}"
                        if ww == 64 else f"0f{_convert_float_bits(src.bits, src.width, form):08X}")
            continue
        x = ctx.fresh(BITS_KIND[ww])
        ctx.emit(f"cvt.s{ww}.s{w} {x}, {as_reg(ctx, ctx.embed(src, ft), w)}")
        wide.append(ctx.unembed_to_fresh(x, form))
    ctx.invalidate(ops[0].name)
    ctx.emit(f"{guard_text(instr.guard)}setp.{instr.mods[0]}.{form} {ops[0].name}, {wide[0]}, {wide[1]}")
    return FoldResult(True, verdict)
