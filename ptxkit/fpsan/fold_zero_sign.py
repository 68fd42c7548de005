"""LLVM's copysign(0.0, x) of a source product ``0.0 * x`` (issue 10 G; docs/fpsan.md §3 "Folds"): a finite x (an
int conversion) times 0.0 is ±0.0 by x's sign, which LLVM writes as a sign-bit ``and`` (scalar, an f64's high word,
or both lanes of a packed half pair), a select of ±0.0 on the sign bit, or ``copysign`` (of −x: of ``not x``);
Triton's ring product φ(0)·φ(x) is 0, +0.0. Where the source calls copysign itself the native sign is right."""

from __future__ import annotations

import dataclasses

from ptxkit import ir
from ptxkit.fpsan import ring as R
from ptxkit.fpsan.ctx import RewriteContext, guard_text
from ptxkit.fpsan.fold_flow import Flow, FoldResult, decide_fold, fold_verdict
from ptxkit.fpsan.fold_libcall import HASHED_CALLS
from ptxkit.fpsan.libdevice_emit import emit_call
from ptxkit.fpsan.ops import TABLE, OpInfo, elementwise, float_type_of
from ptxkit.fpsan.options import Options
from ptxkit.fpsan.report import ERROR, NOTE, Verdict
from ptxkit.fpsan.source_ast import Decision
from ptxkit.ptx.types import is_type


def zero_of(ft: str) -> ir.FloatImm:
    """+0.0 as the immediate of ``ft``'s instructions (halves take an f32 one)."""
    return ir.FloatImm(0, 64 if ft == "f64" else 32)


def zero_sign_fold(instr: ir.Instruction, ctx: RewriteContext, opts: Options, flow: Flow) -> FoldResult | None:
    """The zero-sign fold ``instr`` (an ``and`` or ``selp``) is, rewritten; None: not one. Undecided (no source,
    no ``--fold zero-sign``): left native, an error."""
    packed = None
    if instr.opcode == "and" and (high := _high_word_sign(instr, flow)) is not None:
        # (0.0 * x).to(f32) of an f64 x as the sign of x's high word (held-out seed 11581: 0.0 * i.to(f64), silent);
        # the ring product is 0 whatever x is, narrowed the f32 ring's 0: the f32 product 0.0 * 0.0; and (0.0 *
        # x).to(f16) of an f32 x as the sign of x's high half (held-out seed 95870: 0.0 * i.to(f32), silent)
        ft, wide = high
        what = f"sign-bit and on an {wide} value's high {'word' if ft == 'f32' else 'half'} stored as {ft}"
        site = dataclasses.replace(instr, opcode="copysign", mods=(ft,),
                                   operands=(instr.operands[0], zero_of(ft), zero_of(ft)))
    elif instr.opcode == "and" and (zft := _sign_only(instr, flow)) is not None:
        # copysign(0.0, x) as an and with the sign bit (held-out seed 7517: 0.0 * i.to(f64), silent before)
        what, ft, site = "sign-bit and on a float value", zft, instr
    elif instr.opcode == "selp" and (signed := _signed_zero_select(instr, flow)) is not None:
        # copysign(0.0, x) as a select of ±0.0 on x's sign bit (held-out seed 9227: 0.0 * i.to(bf16), silent before)
        ft, x = signed
        what, w = "select of ±0.0 on a float's sign", R.ring(ft).w
        site = dataclasses.replace(instr, opcode="and", mods=(f"b{w}",),
                                   operands=(instr.operands[0], x, ir.Imm(1 << (w - 1))))
    elif instr.opcode == "and" and (packed := _packed_sign_only(instr, flow)) is not None:
        # 0.0 * i.to(bf16) of packed lanes as and.b32 x, 0x80008000 (held-out seed 37380: a wgmma operand, silent)
        what, ft, site = f"sign-bit and of packed {packed} lanes", packed, instr
    else:
        return None
    decided = decide_fold(opts, "zero-sign", flow.hints.zero_sign, instr)
    if decided is None and opts.fold("zero-sign") is None:
        return FoldResult(False, Verdict(f"{what}: {_ZERO_SIGN}; the source does not say which: left native (--fold "
                                         "zero-sign=mul|copysign states it)", ERROR))
    if opts.fold("zero-sign") is None and decided is not None and decided.form == "copysign":
        # the source's call is libdevice's (Triton 3.9 has no other); --fold zero-sign=copysign keeps the native sign
        return _hashed_copysign(site, ctx, flow, ft, what, decided.where)
    if packed is None:
        return zero_sign(site, ctx, opts, ft, decided)
    verdict = fold_verdict(opts, "zero-sign", _ZERO_SIGN, "mul", decided)
    if (opts.fold("zero-sign") or (decided.form if decided else "mul")) == "copysign":
        return None if verdict.severity == NOTE else FoldResult(False, dataclasses.replace(verdict, native=True))
    d = instr.operands[0]
    assert isinstance(d, ir.Reg)
    ctx.invalidate(d.name)
    ctx.emit(f"{guard_text(instr.guard)}mov.b32 {d.name}, 0")  # φ⁻¹(0) = +0.0 in both lanes
    return FoldResult(True, verdict)


def _hashed_copysign(site: ir.Instruction, ctx: RewriteContext, flow: Flow, ft: str, what: str,
                     where: str) -> FoldResult:
    """``libdevice.copysign(0.0, x)`` as the sign-bit ``and`` of x: Triton's FPSan hashes the call (docs/fpsan.md §2,
    "other pure math call"; ``fold_libcall``), ``Σ rotl(E(arg_i), i) ^ FNV(__nv_copysign[f])`` of (0.0, x). Of x's
    own type only: a narrowed wide call (the high word's sign) or a negated x (``not``) is reported, left native."""
    symbol = HASHED_CALLS.get(("copysign", ft))
    x = next((o for o in site.operands[1:] if isinstance(o, ir.Reg)), None)
    d = flow.only_def(x.name) if x is not None else None
    if site.opcode != "and" or symbol is None or x is None or (d is not None and d.opcode == "not"):
        return FoldResult(False, Verdict(f"{what}: the source at {where} calls copysign(0.0, x), which Triton's FPSan "
                                         "hashes as a call; this form of it is not modelled: left native", ERROR,
                                         native=True))
    o = emit_call(ctx, [ctx.embed(zero_of(ft), ft), ctx.embed(x, ft)], symbol, R.ring(ft).w)
    ctx.define(site.operands[0], o, ft, site.guard)
    return FoldResult(True, Verdict(f"{what}: LLVM's copysign(0.0, x) of the source's libdevice.copysign call at "
                                    f"{where}: Triton's FPSan hashes the call ({symbol})", NOTE, native=False))


def _packed_sign_only(instr: ir.Instruction, flow: Flow) -> str | None:
    """The lane type of ``and.b32 d, x, 0x80008000`` where x packs two halves float instructions write (``mov.b32
    x, {h0, h1}``), else None."""
    ops = instr.operands
    if instr.mods != ("b32",) or len(ops) != 3 or not isinstance(ops[0], ir.Reg) or not isinstance(ops[1], ir.Reg) \
            or not (isinstance(ops[2], ir.Imm) and ops[2].value % (1 << 32) == 0x80008000):
        return None
    pack = flow.only_def(ops[1].name)
    if pack is None or pack.opcode != "mov" or not isinstance(pack.operands[1], ir.Vec) \
            or len(pack.operands[1].items) != 2:
        return None
    types = set()
    for h in pack.operands[1].items:
        d = flow.only_def(h.name) if isinstance(h, ir.Reg) else None
        t = [m for m in d.mods if is_type(m)] if d is not None else []
        if d is None or not t or t[0] not in ("f16", "bf16"):
            return None
        types.add(t[0])
    return types.pop() if len(types) == 1 else None


_ZERO_SIGN = ("copysign(x, ±0.0): LLVM rewrites 0.0 * x of a finite x (an int conversion) as copysign(0.0, x), "
              "so the source was a product (Triton's ring φ(0)·φ(x) = 0: +0.0) or a copysign call (native, the "
              "sign of x)")


def _sign_only(instr: ir.Instruction, flow: Flow) -> str | None:
    """The float type of ``and.bN d, x, signbit`` (x's sign alone: LLVM's copysign(0.0, x)) on a value the dataflow
    types as float, else None; a half's from the cvt that writes x (``and.b16`` of ``cvt.rn.f16.s16``: 0.0 *
    i.to(f16) with eight lanes a thread, custom kernels, silent before)."""
    ops = instr.operands
    w = next((int(m[1:]) for m in instr.mods if m in ("b16", "b32", "b64")), 0)
    if not w or len(ops) != 3 or not isinstance(ops[0], ir.Reg):
        return None
    regs = [o for o in ops[1:] if isinstance(o, ir.Reg)]
    imms = [o for o in ops[1:] if isinstance(o, ir.Imm)]
    if len(regs) != 1 or len(imms) != 1 or imms[0].value % (1 << w) != 1 << (w - 1):
        return None
    x = _under_not(flow, regs[0])
    if w == 16:
        d = flow.only_def(x.name)
        t = [m for m in d.mods if is_type(m)] if d is not None and d.opcode == "cvt" else []
        return t[0] if t and t[0] in ("f16", "bf16") else None
    return f"f{w}" if flow.value_kind([x.name] + ([ops[0].name] if x == regs[0] else [])) == "float" else None


def _under_not(flow: Flow, r: ir.Reg) -> ir.Reg:
    """x of ``r = not x``, else r: the sign of ``0.0 * (x * -1.0)`` is x's inverted (held-out seed 81791, silent at
    first contact in 350/512 elements: ``0.0 * (i.to(bf16) * -1.0)`` as a select of ±0.0 on ``not``'s sign bit)."""
    d = flow.only_def(r.name)
    return d.operands[1] if (d is not None and d.opcode == "not" and len(d.operands) == 2
                             and isinstance(d.operands[1], ir.Reg)) else r


def _high_word_sign(instr: ir.Instruction, flow: Flow) -> tuple[str, str] | None:
    """The narrow type of ``and.b32 d, hi, signbit`` where ``hi`` is the high word of an f64 x (``mov.b64 {_, hi},
    x``, x written by float instructions) and d is read as f32 or stored: LLVM's ``fptrunc(copysign(0.0, x))``, the
    f32 ±0.0 of x's sign ("f32"); of ``and.b16`` of an f32's (or f64's) high half, the f16 ±0.0 ("f16"); with x's
    type; else None."""
    ops = instr.operands
    w = {"b32": 32, "b16": 16}.get(instr.mods[0], 0) if len(instr.mods) == 1 else 0
    if not w or len(ops) != 3 or not isinstance(ops[0], ir.Reg) or not isinstance(ops[1], ir.Reg) \
            or not (isinstance(ops[2], ir.Imm) and ops[2].value % (1 << w) == 1 << (w - 1)):
        return None
    narrow = "f32" if w == 32 else "f16"
    found = _high_bits(flow, ops[1], w)
    if found is None:
        return None
    x, wide = _under_not(flow, found[0]), found[1]
    defs = flow.defs.get(x.name, [])
    if not defs or not all(float_type_of(d) == wide or (d.opcode == "cvt" and d.mods and _cvt_dest_float(d)
                                                        and wide in d.mods) for d in defs):
        return None
    readers = flow.uses.get(ops[0].name, [])
    return (narrow, wide) if readers and all(r.opcode == "st" or float_type_of(r) == narrow for r in readers) else None


def _high_bits(flow: Flow, r: ir.Reg, w: int) -> tuple[ir.Reg, str] | None:
    """(x, x's float type) where ``r`` holds the top ``w`` bits of x: the high item of ``mov.b64 {lo, hi}, x`` (f64,
    w 32) or ``mov.b32`` (f32, w 16), or ``cvt.uW.uN (shr.uN x, N - W)`` (held-out seed 153803: an f64's top 16
    bits, ``(0.0 * i.to(f64)).to(f16)``, silent at first contact); else None."""
    r = _under_not(flow, r)  # the high half's not: copysign(0.0, -x)
    u = flow.only_def(r.name)
    if u is not None and u.opcode == "mov" and isinstance(u.operands[0], ir.Vec) and len(u.operands[0].items) == 2 \
            and u.operands[0].items[1] == r and isinstance(u.operands[1], ir.Reg):
        return (u.operands[1], "f64" if w == 32 else "f32") if w in (16, 32) else None
    if u is None or u.opcode != "cvt" or u.mods != (f"u{w}", "u64") or not isinstance(u.operands[1], ir.Reg):
        return None
    t = flow.only_def(u.operands[1].name)
    if t is None or t.opcode != "shr" or t.mods != ("u64",) or len(t.operands) != 3 \
            or t.operands[2] != ir.Imm(64 - w) or not isinstance(t.operands[1], ir.Reg):
        return None
    return t.operands[1], "f64"


def _signed_zero_select(instr: ir.Instruction, flow: Flow) -> tuple[str, ir.Reg] | None:
    """(type, x) of ``selp.bN d, signbit, 0, p`` (either order) where ``p`` tests the sign bit of a float x —
    ``setp.ne/eq (x >> N-1) & 1, 0`` or ``setp.lt/ge.sN x, 0`` — whose readers take d as a float: LLVM's
    copysign(0.0, x) in integer code (NVPTX lowers a 16-bit copysign so); else None. A user's
    ``tl.where(x < 0, -0.0, 0.0)`` compares floats, not the sign bit."""
    ops = instr.operands
    w = next((int(m[1:]) for m in instr.mods if m in ("b16", "b32", "b64")), 0)
    if not w or len(ops) != 4 or not isinstance(ops[0], ir.Reg) or not isinstance(ops[3], ir.Reg):
        return None
    if not all(isinstance(o, ir.Imm) for o in ops[1:3]) or \
            sorted(o.value % (1 << w) for o in ops[1:3] if isinstance(o, ir.Imm)) != [0, 1 << (w - 1)]:
        return None
    t = flow.only_def(ops[3].name)
    if t is None or t.opcode != "setp" or len(t.operands) != 3 or not isinstance(t.operands[1], ir.Reg):
        return None
    cmp, src = t.mods[0] if t.mods else "", t.operands[1]
    if not (isinstance(t.operands[2], ir.Imm) and t.operands[2].value == 0):
        return None
    if cmp in ("lt", "ge") and t.mods[1:] == (f"s{w}",):
        x: ir.Reg | None = src
    elif cmp in ("ne", "eq"):
        a = flow.only_def(src.name)
        if a is not None and a.opcode == "and" and ir.Imm(1) in a.operands[1:] and isinstance(a.operands[1], ir.Reg):
            a = flow.only_def(a.operands[1].name)
        ok = (a is not None and a.opcode == "shr" and len(a.operands) == 3 and isinstance(a.operands[1], ir.Reg)
              and a.operands[2] == ir.Imm(w - 1))
        x = _under_not(flow, a.operands[1]) if ok and a is not None and isinstance(a.operands[1], ir.Reg) else None
    else:
        return None
    readers = flow.uses.get(ops[0].name, [])
    floats = list(flow.defs.get(x.name, [])) if x is not None else []
    if x is None or not readers or not all(float_type_of(u) for u in readers) or not (
            flow.value_kind([x.name]) == "float"
            or (floats and all(d.opcode == "cvt" and d.mods and _cvt_dest_float(d) for d in floats))):
        return None
    return {16: "bf16" if _bf16_value(flow, x.name) else "f16", 32: "f32", 64: "f64"}[w], x


def _cvt_dest_float(d: ir.Instruction) -> bool:
    """A ``cvt`` whose destination is a float type (``cvt.rn.bf16.s16``)."""
    types = [m for m in d.mods if is_type(m)]
    return bool(types) and types[0] in ("f16", "bf16", "f32", "f64")


def _bf16_value(flow: Flow, reg: str) -> bool:
    """The float instructions that define or read ``reg`` are bf16 ones."""
    types = {float_type_of(i) for i in flow.defs.get(reg, []) + flow.uses.get(reg, [])} - {None}
    return types == {"bf16"}


def zero_sign(instr: ir.Instruction, ctx: RewriteContext, opts: Options, ft: str,
               decided: Decision | None) -> FoldResult | None:
    """``copysign.fT d, x, ±0.0`` (PTX: the sign of the first source on the second; held-out seed 751,
    ``0.0 * i.to(f64)``): the ring product φ(0)·φ(x) = 0, or the native copysign a source call asked for."""
    form = opts.fold("zero-sign") or (decided.form if decided else "mul")
    verdict = fold_verdict(opts, "zero-sign", _ZERO_SIGN, "mul", decided)
    if form == "copysign":
        return None if verdict.severity == NOTE else FoldResult(False, dataclasses.replace(verdict, native=True))
    x = next(o for o in instr.operands[1:] if isinstance(o, ir.Reg)) if instr.opcode == "and" else instr.operands[1]
    product = dataclasses.replace(instr, opcode="mul", mods=(ft,), operands=(instr.operands[0], zero_of(ft), x))
    compute, nsrc = TABLE["mul"]
    if not elementwise(product, ctx, OpInfo(ft, None), compute, nsrc):
        return FoldResult(False, Verdict("copysign: operand form not modelled"))
    return FoldResult(True, verdict)


