"""LLVM's folds that hide, in the plain PTX, the operation Triton's FPSan instrumented (issue 10 K F G
J L M; docs/fpsan.md §3 "Folds", §4). Each is recognised on the plain PTX and sanitized as Triton's FPSan
of the source form that produces it; where two plausible source forms give the same PTX, the default
form is sanitized and the instruction is reported as an **error** (``--strict`` fails) unless the user
states the source form with ``--fold NAME=FORM`` (:data:`FOLD_FORMS`), which makes it a note.

* K ``add.fT d, x, x`` — ``x*2.0`` (LLVM canonicalises ``fmul x, 2.0`` into ``fadd x, x``) or a source
  ``x + x``: ring φ(x)·φ(2) against 2φ(x). Default ``self-add=add`` (the PTX as written).
* F ``xor.bN d, x, signmask`` — LLVM's ``-x`` on bits (ring negation ``0 − φ(x)``, which differs from
  the xor only at ±0) or integer code. Decided by the dataflow (:class:`Flow`): a float or integer type
  on any instruction that defines or reads the value (through bit moves) decides; without one it is
  sanitized as a negation and reported (``sign-xor=neg`` or ``=bits`` states it).
* J the sign xor of a float↔float ``cvt`` result — ``(-x).to(T)`` (LLVM sinks ``fneg`` below
  ``fptrunc``/``fpext``) or ``-(x.to(T))``: the ring cast of −φ(x) against −(the ring cast of φ(x)).
  Default ``neg-cast=after`` (what the PTX says), ``before`` for the other.
* G ``mul.fT d, x, -0.0`` — ``0.0*(-x)`` or ``-(0.0*x)`` (InstCombine moves the negation into the
  constant): ring 0. A source multiplying by a literal −0.0 would give φ(x)·2^(w−1); assumed not (note).
* L ``selp.fT t, -0.0, y, p`` read only by float adds — LLVM's ``p ? x : x + y`` → ``x + (p ? -0.0 : y)``
  (cumsum's combine), −0.0 being IEEE's additive identity but not the ring's (φ(−0.0) = 2^(w−1)):
  the select takes +0.0 (payload 0) instead, which is Triton's ``p ? φ(x) : φ(x) + φ(y)`` (note).
* H ``add/sub/mul.f16`` (bf16, packed) and ``setp.f16`` — half arithmetic, or f32/f64 arithmetic on
  widened halves whose result is narrowed back (``(x.to(f32) * y.to(f32)).to(f16)``; InstCombine
  narrows it, and a comparison of two widened halves): Triton 3.9 gives the same instructions for both
  (only the debug ``.loc`` and the schedule differ), while the ring differs (a 16-bit ring op against
  the narrowing fold of the 32/64-bit one). Default ``half=native``; ``f32``/``f64`` sanitize the
  widened form (sign-extended payloads, the op at that width, Triton's narrowing fold; for
  ``setp`` a comparison of the widened floats φ⁻¹(sext φ(x))).
* M ``selp.fT d, NaN, m, p`` with ``m = max/min.fT a, b`` and ``p = setp.nan.fT a, b`` — LLVM's expansion of
  ``llvm.maximum/minimum`` (``propagate_nan=ALL``) where no ``.NaN`` instruction exists (f64): Triton's
  ring max/min decides NaN inputs too, so ``d`` takes ``m`` (note).
"""

from __future__ import annotations

import dataclasses
import struct
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field

from ptxkit import ir
from ptxkit.fpsan import ring as R
from ptxkit.fpsan.casts import _cast_payload as cast_payload
from ptxkit.fpsan.ctx import BITS_KIND, RewriteContext, guard_text, hexc
from ptxkit.fpsan.dispatch import rewrite_instruction
from ptxkit.fpsan.irview import NO_DEST, name_of, regs
from ptxkit.fpsan.ops import (
    LANE_TYPE,
    TABLE,
    OpInfo,
    as_reg,
    elementwise,
    float_type_of,
    lane_nonzero_signs,
    rewrite_sign_xor,
    sign_mask_lanes,
    sign_xor_width,
)
from ptxkit.fpsan.options import FOLD_FORMS, Options
from ptxkit.fpsan.report import ERROR, NOTE, Verdict
from ptxkit.fpsan.source_hints import Decision, SourceHints
from ptxkit.ptx.types import FLOAT_TYPES, SIGNED_TYPES, UNSIGNED_TYPES, is_float, is_type

_MOVES = ("mov", "selp", "shfl")  # bit moves that carry a value unchanged (integer or untyped forms)
# untyped bit arithmetic: a value it computes is integer code, not a float's bits
_BIT_OPS = frozenset({"shl", "shr", "bfe", "bfi", "prmt", "and", "or", "xor", "not", "add", "sub", "mul", "mad"})


@dataclass
class FoldResult:
    """A recognised fold: ``done`` (the instruction was replaced by ``ctx.lines``) and its report entry."""

    done: bool
    verdict: Verdict | None = None
    moves: bool = False  # the replacement is a bit move: its reads and writes are native ones


@dataclass
class Flow:
    """Flow-insensitive definitions and reads of one function's registers (instruction positions in
    textual order; ``labels`` the positions of labels, which may start a join)."""

    order: list[ir.Instruction] = field(default_factory=list)
    pos: dict[int, int] = field(default_factory=dict)
    defs: dict[str, list[ir.Instruction]] = field(default_factory=dict)
    uses: dict[str, list[ir.Instruction]] = field(default_factory=dict)
    labels: list[int] = field(default_factory=list)
    types: dict[str, str] = field(default_factory=dict)  # declared register types (.reg .f32 %f<9>)
    hints: SourceHints = field(default_factory=SourceHints)  # the Python source at each .loc (source_hints)

    @classmethod
    def of(cls, fn: ir.Function, types: dict[str, str] | None = None, hints: SourceHints | None = None) -> Flow:
        f = cls(types=types or {}, hints=hints or SourceHints())
        for s in fn.statements():
            if isinstance(s, ir.Label):
                f.labels.append(len(f.order))
            elif isinstance(s, ir.Instruction):
                f.pos[id(s)] = len(f.order)
                f.order.append(s)
                dest, srcs = _roles(s)
                for r in dest:
                    f.defs.setdefault(r, []).append(s)
                for r in srcs:
                    f.uses.setdefault(r, []).append(s)
        return f

    def only_def(self, reg: str) -> ir.Instruction | None:
        d = self.defs.get(reg, [])
        return d[0] if len(d) == 1 else None

    def unchanged_between(self, reg: str, first: ir.Instruction, last: ir.Instruction) -> bool:
        """``reg`` holds the same value at ``last`` as at ``first``: no write of it and no label between."""
        a, b = self.pos[id(first)], self.pos[id(last)]
        if not a < b or any(a < p <= b for p in self.labels):
            return False
        return not any(a < self.pos[id(d)] < b for d in self.defs.get(reg, []))

    def value_kind(self, seeds: Iterable[str]) -> str:
        """``float``, ``int`` or ``unknown``: the types of the instructions that define or read the
        registers connected to ``seeds`` by bit moves (mov/selp/shfl without a float type, sign xors)."""
        todo, seen = list(seeds), set()
        kinds: set[str] = set()
        while todo:
            r = todo.pop()
            if r in seen:
                continue
            seen.add(r)
            k = _type_kind(self.types.get(r))  # nvcc declares float registers .f32/.f64 (Triton: .b32)
            if k:
                kinds.add(k)
            for instr in self.defs.get(r, []) + self.uses.get(r, []):
                carried = _carried(instr)
                if carried:
                    todo += carried
                    continue
                k = _kind_of(instr, r in _roles(instr)[0])
                if k:
                    kinds.add(k)
        return kinds.pop() if len(kinds) == 1 else "unknown"


def _roles(instr: ir.Instruction) -> tuple[list[str], list[str]]:
    """(registers written, registers read as data); address bases and guards are not data."""
    ops = instr.operands
    data = [o for o in ops if not isinstance(o, ir.Addr)]
    if instr.opcode in NO_DEST or not ops:
        return [], [r for o in data for r in regs(o)]
    return list(regs(ops[0])), [r for o in ops[1:] if not isinstance(o, ir.Addr) for r in regs(o)]


def _carried(instr: ir.Instruction) -> list[str]:
    """The registers of a bit move that carries a value unchanged and says nothing about its type (a
    mov/selp/shfl without a float type, a sign-bit xor): destination and moved sources; else []."""
    ops = instr.operands
    if not (sign_xor_width(instr) or (instr.opcode in _MOVES and not any(m in FLOAT_TYPES for m in instr.mods))):
        return []
    if len(ops) < 2 or not isinstance(ops[0], (ir.Reg, ir.Sym, ir.Pipe)) or isinstance(ops[1], ir.Vec):
        return []  # a vector pack/unpack (mov.b64 d, {a, b}) is not the same value
    dest = list(regs(ops[0].a) if isinstance(ops[0], ir.Pipe) else regs(ops[0]))
    moved = ops[1:3] if instr.opcode in ("selp", "xor") else ops[1:2]
    return dest + [r for o in moved if isinstance(o, (ir.Reg, ir.Sym)) for r in regs(o)]


def _kind_of(instr: ir.Instruction, written: bool) -> str | None:
    """What ``instr`` says about the type of a register it writes (``written``) or reads."""
    if instr.opcode == "mov" and any(isinstance(o, ir.Vec) for o in instr.operands):
        return None  # a vector pack/unpack: its parts need not share the vector's type
    types = [m for m in instr.mods if is_type(m)]
    if not types:
        return None
    t = types[0] if written and instr.opcode in ("cvt", "set") else types[-1]
    return _type_kind(t)  # typed loads/stores count: LLVM types them as the IR value (Triton's are .bN)


def _type_kind(t: str | None) -> str | None:
    if t is None:
        return None
    if is_float(t):
        return "float"
    if t in SIGNED_TYPES or t in UNSIGNED_TYPES:
        return "int"
    return None


# ------------------------------------------------------------------------------ the folds

def rewrite_fold(instr: ir.Instruction, ctx: RewriteContext, opts: Options, flow: Flow) -> FoldResult | None:
    """The fold ``instr`` belongs to, rewritten (None: not a fold; the ordinary dispatch applies)."""
    op = instr.opcode
    if sign_xor_width(instr):
        return _sign_xor(instr, ctx, opts, flow)
    if op in ("or", "and") and (lanes := sign_mask_lanes(instr)) is not None:
        return _sign_mask(instr, ctx, flow, lanes)
    ft = float_type_of(instr)
    if ft is None:
        return None
    ops = instr.operands
    if (op == "neg" and len(ops) == 2 and isinstance(ops[1], ir.Reg) and ft in ("f32", "f64")
            and (m := flow.only_def(ops[1].name)) is not None and m.opcode in ("max", "min")
            and _reaches(flow, name_of(ops[0]), _opcode_is({"max": "min", "min": "max"}[m.opcode]))):
        return _neg_extremum(instr, ctx, flow, ft)
    if op == "cvt" and (ab := _abs_inside_cast(flow, instr)) is not None:
        return _cast_of_abs(instr, ab, ctx)
    if (op == "neg" and len(ops) == 2 and isinstance(ops[1], ir.Reg) and (cvt := flow.only_def(ops[1].name))
            is not None and cvt.opcode == "cvt" and _float_cast(cvt, packed=True) is not None):
        return _neg_of_cast(instr, cvt, ctx, opts, flow, ft)
    if op == "abs" and len(ops) == 2 and isinstance(ops[1], ir.Reg):
        cvt = flow.only_def(ops[1].name)
        if cvt is not None and cvt.opcode == "cvt" and _float_cast(cvt, packed=True) is not None:
            return _abs_after_cast(instr, cvt, ctx, flow)
        if _reaches(flow, name_of(ops[0]), _float_cast_reader, through=("min", "max")):
            if all(_abs_inside_cast(flow, u) is instr for u in flow.uses.get(name_of(ops[0]), [])):
                return FoldResult(False, Verdict(f"{_ABS_CAST.split('; ')[0]}: the source has abs(x.to(T)), "
                                                 "computed so at the conversion", NOTE))
            return FoldResult(False, _abs_verdict(flow, instr, "outside", _ABS_CAST,
                                                  _cast_dest(flow, name_of(ops[0]))))
        return None
    if op == "copysign" and len(ops) == 3 and ft in ("f32", "f64") and _zero_value(flow, ops[2]):
        return _zero_sign(instr, ctx, opts, ft, _decide(opts, "zero-sign", flow.hints.zero_sign, instr))
    if (op in ("add", "sub") and ft in ("f32", "f64") and len(ops) == 3
            and (wide := [i for i in (1, 2) if _widened(flow, ops[i], ft)])
            and (decided := flow.hints.narrow_negation(instr, R.ring(ft).w)) is not None):
        return _narrow_negation(instr, ctx, flow, ft, wide, decided)
    if op in ("fma", "mad") and len(ops) == 4 and (c := _product_of(flow, instr)) is not None:
        # x·2.0 of a product p = a·b, as p + p contracted into fma(a, b, p) (held-out seeds 960, 1087)
        lane = LANE_TYPE.get(ft, ft)
        added = dataclasses.replace(instr, opcode="add", mods=(ft,), operands=(ops[0], c, c))
        return _self_add(added, ctx, opts, ft, _decide(opts, "self-add", lambda i: flow.hints.self_add(i, lane), instr))
    if op == "add" and len(ops) == 3 and isinstance(ops[1], ir.Reg) and ops[1] == ops[2]:
        lane = LANE_TYPE.get(ft, ft)
        return _self_add(instr, ctx, opts, ft, _decide(opts, "self-add", lambda i: flow.hints.self_add(i, lane), instr))
    if (op, len(ops)) in (("mul", 3), ("fma", 4), ("mad", 4)) and (_neg_zero(ops[1], ft) or _neg_zero(ops[2], ft)):
        return _mul_neg_zero(instr, ctx, ft)  # ring 0 whatever the width (before H: narrow(0) = 0)
    if (op, len(ops)) in (("mul", 3), ("fma", 4)) and ft in LANE_TYPE and any(
            _packed_neg_zero(flow, o, ft) for o in ops[1:3]):
        return _mul_neg_zero(instr, ctx, ft, flow)  # seed 783: -(0.0 * h) as mul.f16x2 h, {-0.0, -0.0}
    if (op == "setp" and len(ops) == 3 and ft in ("f32", "f64") and isinstance(ops[0], ir.Reg)
            and isinstance(ops[1], ir.Reg) and ops[1] == ops[2] and {"num", "nan"} & set(instr.mods)):
        return _self_compare(instr, ctx, opts, ft, _decide(opts, "self-compare",
                                                            lambda i: flow.hints.self_compare(i, ft), instr))
    if op == "sub" and ft == "bf16x2" and _int8_to_bf16(instr, flow):
        return FoldResult(False, Verdict(_INT8_BF16, NOTE))
    if op in ("add", "sub", "mul", "setp") and LANE_TYPE.get(ft, ft) in ("f16", "bf16"):
        return _half(instr, ctx, opts, ft, _decide(opts, "half", flow.hints.half, instr))
    if op == "selp" and len(ops) == 4 and ft in ("f32", "f64"):
        return _select_fold(instr, ctx, flow, ft)
    return None


# Triton 3.9's int8 -> bf16 conversion (its lowering, after the FPSan pass): the bytes under a 0x43 exponent,
# (b & 0x437F437F) - (b & 0x43804380) in bf16x2 is the signed byte exactly (2^7 + v - 2^7 - 128·sign)
_INT8_BF16_MASKS = (0x437F437F, 0x43804380)
_INT8_BF16 = ("sub.bf16x2 of bytes masked with 0x437F437F / 0x43804380: Triton's int8 → bf16 conversion (its "
              "lowering's bit trick, exact), left native as Triton's FPSan leaves sitofp")


def _int8_to_bf16(instr: ir.Instruction, flow: Flow) -> bool:
    """``sub.bf16x2 d, a, b`` with ``a = and.b32 x, 0x437F437F`` and ``b = and.b32 x, 0x43804380``."""
    masks = []
    for o in instr.operands[1:3]:
        d = flow.only_def(o.name) if isinstance(o, ir.Reg) else None
        if d is None or d.opcode != "and" or len(d.operands) != 3 or not isinstance(d.operands[2], ir.Imm):
            return False
        masks.append((d.operands[1], d.operands[2].value & 0xFFFFFFFF))
    return (masks[0][1], masks[1][1]) == _INT8_BF16_MASKS and masks[0][0] == masks[1][0]


def _state(opts: Options, name: str, reason: str, form: str, decided: Decision | None = None) -> Verdict:
    """The report entry of an ambiguous fold sanitized as ``form``: a note when the user stated it or
    the source decided it (``decided``, :mod:`ptxkit.fpsan.source_hints`)."""
    given = opts.fold(name)
    if given is None and decided is not None:
        return Verdict(f"{reason}; sanitized as {name}={decided.form}, decided by the source at {decided.where}",
                       NOTE, native=False)
    if given is None:
        return Verdict(f"{reason}; sanitized as the default source form ({name}={form}): --fold {name}="
                       f"{'|'.join(FOLD_FORMS[name])} states which the source meant", ERROR, native=False)
    return Verdict(f"{reason}; sanitized as the stated source form ({name}={given})", NOTE, native=False)


_SELF_ADD = "add x, x: LLVM folds x*2.0 into x+x, so the source was x*2.0 (ring φ(x)·φ(2)) or x+x (ring 2φ(x))"


def _decide(opts: Options, name: str, hint: Callable[[ir.Instruction], Decision | None],
            instr: ir.Instruction) -> Decision | None:
    """The source's decision of fold ``name`` at ``instr``, unless the user stated the form (it wins) or
    turned the source hints off."""
    return hint(instr) if opts.source_hints and opts.fold(name) is None else None


def _self_add(instr: ir.Instruction, ctx: RewriteContext, opts: Options, ft: str,
              decided: Decision | None) -> FoldResult:
    # undecided: the PTX as written (2φ(x)), so sanitize stays a ring homomorphism of the text, as equiv's
    # algebraic twins need; still an error, since Triton's x*2.0 gives φ(x)·φ(2)
    form = opts.fold("self-add") or (decided.form if decided else "add")
    info = OpInfo(LANE_TYPE.get(ft, ft), ft if ft in LANE_TYPE else None)
    if "-" in form:  # (2.0 * x.to(f64)).to(f32): the op on the sign-extended payload, then Triton's narrowing
        base, wt = form.split("-")
        ww = R.ring(wt).w

        def compute(c: RewriteContext, ps: list[str], w: int, _i: ir.Instruction) -> str:
            x, o = c.fresh(BITS_KIND[ww]), c.fresh(BITS_KIND[ww])
            c.emit(f"cvt.s{ww}.s{w} {x}, {as_reg(c, ps[0], w)}")
            if base == "add":
                c.emit(f"add.s{ww} {o}, {x}, {x}")
            else:
                c.emit(f"mul.lo.s{ww} {o}, {x}, {hexc(R.embed_int(_float_bits(2.0, wt), wt), ww)}")
            return cast_payload(c, o, wt, info.ftype)
        nsrc = 2
    elif form == "add":
        compute, nsrc = TABLE["add"]
    else:
        two = R.embed_int(_float_bits(2.0, info.ftype), info.ftype)

        def compute(c: RewriteContext, ps: list[str], w: int, _i: ir.Instruction) -> str:
            o = c.fresh(BITS_KIND[w])
            c.emit(f"mul.lo.s{w} {o}, {as_reg(c, ps[0], w)}, {hexc(two, w)}")
            return o
        nsrc = 2
    if not elementwise(instr, ctx, info, compute, nsrc):
        return FoldResult(False, Verdict("add: operand form not modelled"))
    return FoldResult(True, _state(opts, "self-add", _SELF_ADD, form, decided))


_HALF = ("16-bit float op: half arithmetic or, with the same PTX, f32/f64 arithmetic on widened halves that "
         "LLVM narrows because the result is narrowed back (x.to(f32)*y.to(f32)).to(f16), or a comparison of "
         "two widened halves), which Triton's FPSan computes at the wide width")


def _half(instr: ir.Instruction, ctx: RewriteContext, opts: Options, ft: str, decided: Decision | None) -> FoldResult:
    form = opts.fold("half") or (decided.form if decided else "native")
    verdict = _state(opts, "half", _HALF, form, decided)
    if form == "native":
        if instr.opcode == "setp":
            return FoldResult(False, Verdict(verdict.reason, verdict.severity))  # a comparison: left native
        done = rewrite_instruction(instr, ctx, opts.atomics)
        if done is True:
            return FoldResult(True, verdict)
        return FoldResult(False, done if isinstance(done, Verdict) else Verdict(str(done or "not modelled")))
    ww = 32 if form == "f32" else 64
    if instr.opcode == "setp":
        return _widened_setp(instr, ctx, ft, form, verdict)
    op = {"add": "add.s{w}", "sub": "sub.s{w}", "mul": "mul.lo.s{w}"}[instr.opcode].format(w=ww)
    lane = LANE_TYPE.get(ft, ft)

    def compute(c: RewriteContext, ps: list[str], w: int, _i: ir.Instruction) -> str:
        wide = []
        for p in ps:
            x = c.fresh(BITS_KIND[ww])
            c.emit(f"cvt.s{ww}.s16 {x}, {as_reg(c, p, 16)}")
            wide.append(x)
        o = c.fresh(BITS_KIND[ww])
        c.emit(f"{op} {o}, {wide[0]}, {wide[1]}")
        return cast_payload(c, o, form, lane)
    if not elementwise(instr, ctx, OpInfo(lane, ft if ft in LANE_TYPE else None), compute, 2):
        return FoldResult(False, Verdict(f"{instr.opcode}: operand form not modelled"))
    return FoldResult(True, verdict)


def _widened_setp(instr: ir.Instruction, ctx: RewriteContext, ft: str, form: str, verdict: Verdict) -> FoldResult:
    """``setp.CMP.f16 p, a, b`` as Triton's comparison of the widened floats φ⁻¹_wide(sext φ(a)), …"""
    ops = instr.operands
    if ft not in ("f16", "bf16") or len(ops) != 3 or not isinstance(ops[0], ir.Reg) or len(instr.mods) != 2:
        return FoldResult(False, Verdict(f"setp.{ft}: this comparison form is not modelled for half={form}"))
    ww = R.ring(form).w
    wide = []
    for src in ops[1:]:
        x = ctx.fresh(BITS_KIND[ww])
        ctx.emit(f"cvt.s{ww}.s16 {x}, {as_reg(ctx, ctx.embed(src, ft), 16)}")
        wide.append(ctx.unembed_to_fresh(x, form))
    ctx.invalidate(ops[0].name)
    ctx.emit(f"{guard_text(instr.guard)}setp.{instr.mods[0]}.{form} {ops[0].name}, {wide[0]}, {wide[1]}")
    return FoldResult(True, verdict)


_XOR_FLOAT = ("sign-bit xor on a float value (the dataflow shows a float type): LLVM's folded -x, sanitized as "
              "Triton's ring negation 0 − φ(x)")
_XOR_UNKNOWN = ("sign-bit xor on a value no float or integer instruction defines or reads: LLVM's folded -x "
                "(ring negation 0 − φ(x)) or integer code (a bit flip)")
_XOR_CAST = ("sign-bit xor of a float conversion's result: LLVM moves the negation of (-x).to(T) below the cvt, "
             "so the source was (-x).to(T) (ring cast of −φ(x)) or -(x.to(T)) (ring negation after the cast)")


def _sign_xor(instr: ir.Instruction, ctx: RewriteContext, opts: Options, flow: Flow) -> FoldResult | None:
    src = next(o for o in instr.operands[1:] if isinstance(o, ir.Reg)).name
    kind = flow.value_kind([src, name_of(instr.operands[0])])
    if kind == "int" or (kind == "unknown" and opts.fold("sign-xor") == "bits"):
        if kind == "int":
            return None  # integer code: a bit move
        return FoldResult(False, Verdict(f"{_XOR_UNKNOWN}; left as a bit move (stated: sign-xor=bits)", NOTE))
    if kind == "unknown":
        rewrite_sign_xor(instr, ctx)
        return FoldResult(True, _state(opts, "sign-xor", _XOR_UNKNOWN, "neg"))
    cvt = flow.only_def(src)
    if cvt is not None and cvt.opcode == "cvt" and _float_cast(cvt) is not None:
        types = _float_cast(cvt)
        decided = _decide(opts, "neg-cast", lambda c: flow.hints.neg_cast(c, types[0], types[1]) if types else None,
                          cvt)
        form = opts.fold("neg-cast") or (decided.form if decided else "after")
        if form == "before" and _neg_before_cast(instr, cvt, ctx, flow):
            return FoldResult(True, _state(opts, "neg-cast", _XOR_CAST, form, decided))
        rewrite_sign_xor(instr, ctx)
        return FoldResult(True, _state(opts, "neg-cast", _XOR_CAST, "after", decided) if form == "after" else
                          Verdict(f"{_XOR_CAST}; the cvt's source may change before the xor, so sanitized as "
                                  "the negation after the cast", ERROR, native=False))
    rewrite_sign_xor(instr, ctx)
    return FoldResult(True, Verdict(_XOR_FLOAT, NOTE, native=False))


_NEG_ABS = ("sign-bit or on a float value: LLVM's −|x|, from -abs(x) (sanitized so: the ring negation of |x|, "
            "whose sign stays clear at 0) or from minimum(x, -x) and the like, whose ring result differs at ±0")
_ABS_AFTER_CAST = ("abs of a float conversion's result: LLVM moves abs below the cast (abs(x).to(T) becomes "
                   "abs(x.to(T))), and Triton's ring cast does not commute with abs; left as written")
_ABS_CAST = ("sign-bit clear (|x|) of a value a float conversion then reads: LLVM moves abs across the cast "
             "(abs(x.to(T)) becomes abs(x).to(T), also through a min/max narrowed below the cast), and Triton's "
             "ring cast does not commute with abs; left as written")


def _sign_mask(instr: ir.Instruction, ctx: RewriteContext, flow: Flow, lanes: tuple[int, int]) -> FoldResult | None:
    """``or.bN d, a, signs`` (−|a|) and ``and.bN d, a, ~signs`` (|a|) on float values (the dataflow's
    type; integer code is left alone): −|a| becomes |a| then the ring negation (:func:`_neg_abs`) and is
    reported; |a| stays native like Triton's abs, reported where a float ``cvt`` reads it."""
    src = next(o for o in instr.operands[1:] if isinstance(o, ir.Reg)).name
    dst = name_of(instr.operands[0])
    if flow.value_kind([src, dst]) == "int" or any(
            d.opcode in _BIT_OPS and not FLOAT_TYPES & set(d.mods) for d in flow.defs.get(src, [])):
        return None  # integer code (libdevice's trig reduction sets a mantissa's implicit bit: shl, or)
    if instr.opcode == "and":
        if _reaches(flow, dst, _float_cast_reader, through=("min", "max")):
            if all(_abs_inside_cast(flow, u) is instr for u in flow.uses.get(dst, [])):
                return FoldResult(False, Verdict(f"{_ABS_CAST.split('; ')[0]}: the source has abs(x.to(T)), "
                                                 "computed so at the conversion", NOTE))
            return FoldResult(False, _abs_verdict(flow, instr, "outside", _ABS_CAST,
                                                  _cast_dest(flow, dst)))
        cvt = flow.only_def(src)
        if cvt is not None and _float_cast_reader(cvt):  # seed 860: abs(x * y).to(f16) as |cvt(x * y)|
            return _abs_after_cast(instr, cvt, ctx, flow)
        return None
    _neg_abs(instr, ctx, src, dst, lanes)
    return FoldResult(True, Verdict(_NEG_ABS, ERROR, native=False), moves=True)


_NEG_CAST = ("negation of a float conversion's result: LLVM moves the negation of (-x).to(T) (also x * -1.0) "
             "below the cvt, so the source was (-x).to(T) (ring cast of −φ(x)) or -(x.to(T)) (ring negation after "
             "the cast); they differ for narrowing casts, and for widening ones at -0")


def _neg_of_cast(instr: ir.Instruction, cvt: ir.Instruction, ctx: RewriteContext, opts: Options, flow: Flow,
                 ft: str) -> FoldResult:
    """``neg d, c`` of ``c = cvt.T.S x`` (held-out seed 777: ``(x.to(f64) * -1.0).to(f16)`` as a packed
    ``cvt.rn.f16x2.f32`` then ``neg.f16x2``): the J fold with a ``neg`` in place of the sign xor."""
    types = _float_cast(cvt, packed=True)
    assert types is not None
    dest = types[0].removesuffix("x2")
    decided = (_decide(opts, "neg-cast", lambda c: flow.hints.neg_cast(c, dest, types[1]), cvt)
               or _decide(opts, "neg-cast", lambda n: flow.hints.negation_of_cast(n, dest), instr))
    form = opts.fold("neg-cast") or (decided.form if decided else "after")
    if form == "before" and _float_cast(cvt) is not None and _neg_before_cast(instr, cvt, ctx, flow):
        return FoldResult(True, _state(opts, "neg-cast", _NEG_CAST, form, decided))
    compute, nsrc = TABLE["neg"]
    if not elementwise(instr, ctx, OpInfo(LANE_TYPE.get(ft, ft), ft if ft in LANE_TYPE else None), compute, nsrc):
        return FoldResult(False, Verdict("neg: operand form not modelled"))
    if form == "after":
        return FoldResult(True, _state(opts, "neg-cast", _NEG_CAST, form, decided))
    return FoldResult(True, Verdict(f"{_NEG_CAST}; the cvt's source may change before the neg, so sanitized as the "
                                    "negation after the cast", ERROR, native=False))


_NEG_EXTREMUM = ("negation of a max/min: LLVM rewrites min(-a, -b) as -max(a, b) (and max/min swapped), which "
                 "the ring computes differently where a payload is φ(-0) = −2^(w−1) (its own negation); "
                 "sanitized as written")


def _uses(flow: Flow, reg: str, stop: Callable[[ir.Instruction], bool],
          through: tuple[str, ...] = ()) -> Iterator[ir.Instruction]:
    """The instructions reading ``reg``'s value, directly or through bit moves (a shuffle tree) and the
    ``through`` opcodes, not past those ``stop`` accepts."""
    todo, seen = [reg], set()
    while todo:
        r = todo.pop()
        if r in seen:
            continue
        seen.add(r)
        for u in flow.uses.get(r, []):
            yield u
            if not stop(u) and (u.opcode in _MOVES or u.opcode in through):
                todo += regs(u.operands[0])


def _reaches(flow: Flow, reg: str, reader: Callable[[ir.Instruction], bool], through: tuple[str, ...] = ()) -> bool:
    """Whether an instruction ``reader`` accepts reads ``reg``'s value (:func:`_uses`): −max(a, b) feeding a
    min is LLVM's min(−a, −b), feeding a sub or an fma just a negation; |x| reaching a cast through a
    min/max was abs(x.to(T)) before LLVM narrowed the min/max (min(ext a, ext b) → ext(min(a, b)))."""
    return any(reader(u) for u in _uses(flow, reg, reader, through))


def _opcode_is(opcode: str) -> Callable[[ir.Instruction], bool]:
    return lambda u: u.opcode == opcode


def _float_cast_reader(u: ir.Instruction) -> bool:
    return u.opcode == "cvt" and _float_cast(u) is not None


def _neg_extremum(instr: ir.Instruction, ctx: RewriteContext, flow: Flow, ft: str) -> FoldResult:
    """``neg`` of a ``max``/``min`` result that a ``min``/``max`` reads (held-out seed 883: ``tl.min(x *
    -1.0)`` as −max(x) into the shuffle tree's min): the ring negation as written, a note where the source
    negates a max/min call there, else an error."""
    compute, nsrc = TABLE["neg"]
    if not elementwise(instr, ctx, OpInfo(ft, None), compute, nsrc):
        return FoldResult(False, Verdict("neg: operand form not modelled"))
    decided = flow.hints.neg_extremum(instr)
    if decided is not None and decided.form == "written":
        return FoldResult(True, Verdict(f"{_NEG_EXTREMUM.split(', which')[0]}: the source at {decided.where} "
                                        "negates the max/min itself", NOTE, native=False))
    how = f"the source at {decided.where} negates the operands" if decided else "no source says which"
    return FoldResult(True, Verdict(f"{_NEG_EXTREMUM}; {how}", ERROR, native=False))


def _cast_dest(flow: Flow, reg: str) -> str | None:
    """The one destination type of the float casts that read ``reg`` (through moves and min/max), if one."""
    dests = {t[0] for u in _uses(flow, reg, _float_cast_reader, ("min", "max"))
             if _float_cast_reader(u) and (t := _float_cast(u)) is not None}
    return dests.pop() if len(dests) == 1 else None


def _abs_verdict(flow: Flow, instr: ir.Instruction, as_written: str, reason: str, dest: str | None = None,
                 decided: Decision | None = None) -> Verdict:
    """A note where the source's abs call shows the order the PTX has (``as_written``: the cast
    ``inside`` or ``outside`` the abs; ``dest``: the cast's type; ``decided``: already told), else an error
    (the other order, or no source)."""
    decided = decided or flow.hints.abs_cast(instr, dest)
    if decided is not None and decided.form == as_written:
        return Verdict(f"{reason.split('; ')[0]}: the source at {decided.where} has this order", NOTE, native=False)
    how = f"the source at {decided.where} has the other" if decided is not None else "no source says which"
    return Verdict(f"{reason}; {how}", ERROR)


def _abs_inside_cast(flow: Flow, cvt: ir.Instruction) -> ir.Instruction | None:
    """The scalar |x| (``abs.fS`` or the sign-bit ``and``) a scalar float ``cvt`` reads, when the source's
    abs call takes the cast (``abs(x.to(T))``, LLVM's ``abs(x).to(T)``: held-out seed 736) and x is
    unchanged up to the cvt; else None."""
    types = _float_cast(cvt) if cvt.opcode == "cvt" else None
    src = cvt.operands[1] if types is not None else None
    ab = flow.only_def(src.name) if isinstance(src, ir.Reg) else None
    if (types is None or ab is None or ab.guard is not None or len(ab.operands) < 2
            or not isinstance(ab.operands[1], ir.Reg)):
        return None
    if ab.opcode == "abs":
        if float_type_of(ab) != types[1]:
            return None
    elif not (ab.opcode == "and" and (lanes := sign_mask_lanes(ab)) is not None and lanes[0] == lanes[1]
              == R.ring(types[1]).w):
        return None
    x = ab.operands[1].name
    if not flow.unchanged_between(x, ab, cvt):
        return None
    decided = flow.hints.abs_cast(ab, types[0]) or flow.hints.abs_at_cast(cvt, types[0], types[1])
    return ab if decided is not None and decided.form == "inside" else None


def _abs_after_cast(instr: ir.Instruction, cvt: ir.Instruction, ctx: RewriteContext, flow: Flow) -> FoldResult:
    """|c| of ``c = cvt.T.S x``: as written where the source's abs takes the cast; where it is
    ``abs(x).to(T)`` (LLVM moved the abs below the cast) and x is unchanged, Triton's ring cast of |x|;
    else left and reported (:func:`_abs_verdict`)."""
    types = _float_cast(cvt, packed=True)
    decided = flow.hints.abs_cast(instr, types[0].removesuffix("x2") if types else None,
                                  types[1] if types else None)
    if decided is None and types is not None:
        decided = flow.hints.abs_at_cast(cvt, types[0].removesuffix("x2"), types[1])
    xs = cvt.operands[1:][::-1]  # cvt.rn.bf16x2.f32 d, a, b: b the low lane (ISA §9.7.9.21)
    lanes = sign_mask_lanes(instr) if instr.opcode == "and" else None
    fits = types is not None and (float_type_of(instr) == types[0] if instr.opcode == "abs"
                                  else lanes is not None and lanes[0] == lanes[1] == R.ring(types[0]).w)
    if (decided is None or decided.form != "outside" or not fits or instr.guard is not None
            or not all(isinstance(x, ir.Reg) and flow.unchanged_between(x.name, cvt, instr) for x in xs)):
        return FoldResult(False, _abs_verdict(flow, instr, "inside", _ABS_AFTER_CAST, decided=decided))
    assert types is not None
    dt, st = types[0].removesuffix("x2"), types[1]
    ws = R.ring(st).w
    pays = []
    for x in xs:
        bits = ctx.unembed_to_fresh(as_reg(ctx, ctx.embed(x, st), ws), st)
        mag = ctx.fresh(BITS_KIND[ws])
        ctx.emit(f"and.b{ws} {mag}, {bits}, {hexc((1 << (ws - 1)) - 1, ws)}")
        pays.append(cast_payload(ctx, ctx.embed_value(mag, st), st, dt))
    if len(pays) == 1:
        ctx.define(instr.operands[0], pays[0], dt, None)
    else:
        lo, hi = (ctx.unembed_to_fresh(p, dt) for p in pays)
        d = name_of(instr.operands[0])
        ctx.invalidate(d)
        ctx.emit(f"mov.b32 {d}, {{{lo}, {hi}}}")
    return FoldResult(True, Verdict(f"{_ABS_AFTER_CAST.split(', and')[0]}: the source at {decided.where} has "
                                    f"abs(x).to({dt}), sanitized so (the ring cast of |x|)", NOTE, native=False))


def _cast_of_abs(cvt: ir.Instruction, ab: ir.Instruction, ctx: RewriteContext) -> FoldResult:
    """``cvt.T.S d, |x|`` as Triton's ``abs(x.to(T))``: the ring cast of φ(x), then abs of its float bits."""
    types = _float_cast(cvt)
    assert types is not None and isinstance(ab.operands[1], ir.Reg)
    dt, st = types
    w = R.ring(dt).w
    bits = ctx.unembed_to_fresh(cast_payload(ctx, ctx.embed(ab.operands[1], st), st, dt), dt)
    d = name_of(cvt.operands[0])
    ctx.invalidate(d)
    ctx.emit(f"{guard_text(cvt.guard)}and.b{w} {d}, {bits}, {hexc((1 << (w - 1)) - 1, w)}")
    return FoldResult(True, Verdict(f"cvt.{dt}.{st} of |x|: LLVM's abs(x).to({dt}) for the source's abs(x.to({dt})); "
                                    "sanitized as the ring cast of x, then abs", NOTE, native=False))


def _neg_abs(instr: ir.Instruction, ctx: RewriteContext, a: str, d: str, lanes: tuple[int, int]) -> None:
    """d = the ring negation of |a|, lane by lane: |a| with the sign set exactly where the magnitude is not
    zero."""
    w, lane = lanes
    m, t = lane_nonzero_signs(ctx, a, w, lane)
    ctx.invalidate(d)
    ctx.emit(f"{guard_text(instr.guard)}or.b{w} {d}, {m}, {t}")


def _float_cast(cvt: ir.Instruction, packed: bool = False) -> tuple[str, str] | None:
    """(destination, source) types of a scalar float → float ``cvt`` without integer rounding (``packed``:
    also ``cvt.rn.{f16,bf16}x2.f32`` of two sources)."""
    types = [m for m in cvt.mods if is_type(m)]
    floats = ("f16", "bf16", "f32", "f64") + (("f16x2", "bf16x2") if packed else ())
    n = 3 if packed and types[:1] in (["f16x2"], ["bf16x2"]) else 2
    if (len(types) != 2 or not all(t in floats for t in types) or types[0] == types[1]
            or len(cvt.operands) != n or cvt.guard is not None or "sat" in cvt.mods or "relu" in cvt.mods):
        return None
    return types[0], types[1]


def _neg_before_cast(instr: ir.Instruction, cvt: ir.Instruction, ctx: RewriteContext, flow: Flow) -> bool:
    """``d = xor(cvt.T.S(x))`` as Triton's FPSan of ``(-x).to(T)``: the ring cast of −φ_S(x)."""
    types = _float_cast(cvt)
    x = cvt.operands[1]
    if types is None or not isinstance(x, ir.Reg) or not flow.unchanged_between(x.name, cvt, instr):
        return False
    dt, st = types
    ws = R.ring(st).w
    n = ctx.fresh(BITS_KIND[ws])
    ctx.emit(f"neg.s{ws} {n}, {as_reg(ctx, ctx.embed(x, st), ws)}")
    ctx.define(instr.operands[0], cast_payload(ctx, n, st, dt), dt, instr.guard)
    return True


_MUL_NEG_ZERO = ("mul by -0.0 (also as an fma multiplicand): LLVM folds 0.0*(-x) and -(0.0*x) into x*(-0.0); "
                 "sanitized as Triton's ring φ(0)·(−φ(x)) = 0 (a source multiplying by a literal -0.0 would give "
                 "φ(x)·φ(-0.0))")


def _packed_neg_zero(flow: Flow, o: ir.Operand, ft: str) -> bool:
    """``o`` is −0.0 in both lanes of a packed ``ft``: an immediate, or a register whose one definition moves
    one in (``mov.b32 r, -2147450880``: 0x80008000)."""
    d = flow.only_def(o.name) if isinstance(o, ir.Reg) else None
    if d is not None and d.opcode == "mov" and len(d.operands) == 2 and d.guard is None:
        o = d.operands[1]
    return isinstance(o, ir.Imm) and o.value % (1 << 32) == 0x80008000 and ft in ("f16x2", "bf16x2")


def _mul_neg_zero(instr: ir.Instruction, ctx: RewriteContext, ft: str, flow: Flow | None = None) -> FoldResult:
    """``mul d, x, -0.0`` and ``fma d, x, -0.0, c`` (``c - 0.0*x`` contracted: the G fold inside an fma,
    issue 10 seed 108): the -0.0 multiplicand is the folded negation of a 0.0, so the ring product is 0
    and the fma gives φ(c), Triton's ``φ(c) − φ(0)·φ(x)``."""
    ops = list(instr.operands)
    if flow is not None:  # packed: the product is 0 in both lanes (+0.0), the fma its addend, bit for bit
        d = name_of(ops[0])
        if instr.opcode == "fma" and isinstance(ops[3], ir.Reg):
            ctx.read_bits(ops[3].name)
        ctx.invalidate(d)
        ctx.emit(f"{guard_text(instr.guard)}mov.b32 {d}, {ctx.text(ops[3]) if instr.opcode == 'fma' else 0}")
        return FoldResult(True, Verdict(_MUL_NEG_ZERO, NOTE, native=False))
    ops[1:3] = [_zero(ft) if _neg_zero(o, ft) else o for o in ops[1:3]]
    compute, nsrc = TABLE[instr.opcode]
    if not elementwise(dataclasses.replace(instr, operands=tuple(ops)), ctx, OpInfo(ft, None), compute, nsrc):
        return FoldResult(False, Verdict(f"{instr.opcode}: operand form not modelled"))
    return FoldResult(True, Verdict(_MUL_NEG_ZERO, NOTE, native=False))


_ZERO_SIGN = ("copysign(x, ±0.0): LLVM rewrites 0.0 * x of a finite x (an int conversion) as copysign(0.0, x), "
              "so the source was a product (Triton's ring φ(0)·φ(x) = 0: +0.0) or a copysign call (native, the "
              "sign of x)")


def _zero_value(flow: Flow, o: ir.Operand) -> bool:
    """``o`` is a float ±0.0: an immediate, or a register whose one definition moves one in."""
    d = flow.only_def(o.name) if isinstance(o, ir.Reg) else None
    if d is not None and d.opcode == "mov" and len(d.operands) == 2:
        o = d.operands[1]
    return isinstance(o, ir.FloatImm) and o.bits & ~(1 << (o.width - 1)) == 0


def _zero_sign(instr: ir.Instruction, ctx: RewriteContext, opts: Options, ft: str,
               decided: Decision | None) -> FoldResult | None:
    """``copysign.fT d, x, ±0.0`` (PTX: the sign of the first source on the second; held-out seed 751,
    ``0.0 * i.to(f64)``): the ring product φ(0)·φ(x) = 0, or the native copysign a source call asked for."""
    form = opts.fold("zero-sign") or (decided.form if decided else "mul")
    verdict = _state(opts, "zero-sign", _ZERO_SIGN, "mul", decided)
    if form == "copysign":
        return None if verdict.severity == NOTE else FoldResult(False, dataclasses.replace(verdict, native=True))
    product = dataclasses.replace(instr, opcode="mul", mods=(ft,), operands=(instr.operands[0], _zero(ft),
                                                                             instr.operands[1]))
    compute, nsrc = TABLE["mul"]
    if not elementwise(product, ctx, OpInfo(ft, None), compute, nsrc):
        return FoldResult(False, Verdict("copysign: operand form not modelled"))
    return FoldResult(True, verdict)


_NARROW_NEG = ("a − (−h) as a + h (or a + (−h) as a − h) with h narrower than the op: LLVM folds the negation "
               "into the wide op; Triton negates in h's ring, then widens, which differs where h is -0")


def _widened(flow: Flow, o: ir.Operand, ft: str) -> int:
    """The width of the narrower float ``o`` was widened from by its one definition (a ``cvt.ft.S``), else 0."""
    d = flow.only_def(o.name) if isinstance(o, ir.Reg) else None
    types = _float_cast(d) if d is not None and d.opcode == "cvt" else None
    if types is None or types[0] != ft:
        return 0
    w = R.ring(types[1]).w
    return w if w < R.ring(ft).w else 0


def _narrow_negation(instr: ir.Instruction, ctx: RewriteContext, flow: Flow, ft: str, wide: list[int],
                     decided: Decision) -> FoldResult | None:
    """``add d, a, cvt(h)`` where the source says ``a - (-h)`` (held-out seed 701: ``a - (h * -1.0)``, h
    bf16): Triton's ``φ(a) − sext(−φ_h(h))``. The widened payload q = sext(p) gives sext(−p) as −q, except
    at p = −2^(n−1) (φ(-0), its own narrow negation), where it is q."""
    if (instr.opcode == "sub" and wide != [2]) or len(wide) != 1:
        return None  # the negated operand is not told apart (both widened), or not where the fold puts it
    i = wide[0]
    narrow = _widened(flow, instr.operands[i], ft)
    w = R.ring(ft).w
    add = instr.opcode == "add"

    def compute(c: RewriteContext, ps: list[str], _w: int, _i: ir.Instruction) -> str:
        q = as_reg(c, ps[i - 1], w)
        t, n, o = c.fresh(BITS_KIND[w]), c.fresh(BITS_KIND[w]), c.fresh(BITS_KIND[w])
        p = c.fresh("pred")
        c.emit(f"neg.s{w} {t}, {q}")
        c.emit(f"setp.eq.s{w} {p}, {q}, {hexc((-(1 << (narrow - 1))) % (1 << w), w)}")
        c.emit(f"selp.b{w} {n}, {q}, {t}, {p}")  # sext(−p)
        other = as_reg(c, ps[2 - i], w)
        c.emit(f"{'sub' if add else 'add'}.s{w} {o}, {other}, {n}")  # a − sext(−p), a + sext(−p)
        return o
    if not elementwise(instr, ctx, OpInfo(ft, None), compute, 2):
        return None
    return FoldResult(True, Verdict(f"{_NARROW_NEG}; sanitized so, decided by the source at {decided.where}", NOTE,
                                    native=False))


_SELF_COMPARE = ("setp.num/nan x, x: LLVM folds c(x) <= c(x) (==, !=, ...) of a narrowing cast c into an ordered "
                 "test of x itself (fptrunc keeps NaN-ness, Triton's ring cast does not), so the source compared "
                 "x (native) or a narrowing cast of it")
_NAN_ABOVE = {"f16": 0x7C00, "bf16": 0x7F80, "f32": 0x7F800000}


def _product_of(flow: Flow, instr: ir.Instruction) -> ir.Reg | None:
    """The addend c of ``fma d, a, b, c`` when c's one definition is ``mul c, a, b`` (either order) and a, b
    are unchanged in between: LLVM's ``p + p`` (K: ``p * 2.0``) of the product, contracted."""
    ops = instr.operands
    c = ops[3]
    m = flow.only_def(c.name) if isinstance(c, ir.Reg) else None
    if m is None or m.opcode != "mul" or m.guard is not None or len(m.operands) != 3 or not isinstance(c, ir.Reg):
        return None
    if {m.operands[1], m.operands[2]} != {ops[1], ops[2]}:
        return None
    if not all(flow.unchanged_between(r.name, m, instr) for r in ops[1:3] if isinstance(r, ir.Reg)):
        return None
    return c


def _self_compare(instr: ir.Instruction, ctx: RewriteContext, opts: Options, ft: str,
                  decided: Decision | None) -> FoldResult | None:
    """``setp.num/nan.fT p, x, x``: native (x's own NaN-ness, what Triton compares for ``x == x``), or,
    for ``x.to(T) <= x.to(T)``, the NaN-ness of the float bits of Triton's ring cast of φ(x) to T
    (issue 10 seed 154): ``(b & ~sign) > inf`` on b = φ⁻¹(the cast's payload), the bits Triton compares."""
    form = opts.fold("self-compare") or (decided.form if decided else "native")
    verdict = _state(opts, "self-compare", _SELF_COMPARE, "native", decided)
    if form == "native":
        if verdict.severity == NOTE:
            return None  # the ordinary comparison (its own note)
        return FoldResult(False, dataclasses.replace(verdict, native=True))
    d, x = instr.operands[0], instr.operands[1]
    w = R.ring(form).w
    c = ctx.unembed_to_fresh(as_reg(ctx, cast_payload(ctx, ctx.embed(x, ft), ft, form), w), form)
    m = ctx.fresh(BITS_KIND[w])
    ctx.emit(f"and.b{w} {m}, {c}, {hexc((1 << (w - 1)) - 1, w)}")
    cmp = "gt" if "nan" in instr.mods else "le"
    ctx.emit(f"{guard_text(instr.guard)}setp.{cmp}.u{w} {ctx.text(d)}, {m}, {hexc(_NAN_ABOVE[form], w)}")
    return FoldResult(True, verdict)


_CUMSUM = ("select of -0.0 read only by adds: LLVM folds p ? x : x + y into x + (p ? -0.0 : y) (IEEE's additive "
           "identity is -0.0, the ring's is φ(+0.0) = 0); the select takes +0.0, which gives Triton's "
           "p ? φ(x) : φ(x) + φ(y)")
_NAN_SELECT = ("NaN select of LLVM's maximum/minimum expansion (setp.nan + selp of the canonical NaN, no .NaN "
               "instruction for this type): Triton's ring max/min decides NaN inputs too, so the result is the "
               "ring max/min")


def _select_fold(instr: ir.Instruction, ctx: RewriteContext, flow: Flow, ft: str) -> FoldResult | None:
    d, a, b, p = instr.operands
    if not isinstance(d, ir.Reg):
        return None
    if (_neg_zero(a, ft) or _neg_zero(b, ft)) and _read_only_by_adds(flow, d.name, ft):
        zero = _zero(ft)
        a, b = (zero if _neg_zero(a, ft) else a), (zero if _neg_zero(b, ft) else b)
        ctx.emit(f"{guard_text(instr.guard)}selp.{ft} {d.name}, {ctx.text(a)}, {ctx.text(b)}, {ctx.text(p)}")
        return FoldResult(True, Verdict(_CUMSUM, NOTE, native=False), moves=True)
    if isinstance(a, ir.FloatImm) and isinstance(b, ir.Reg) and isinstance(p, ir.Reg) and _is_nan(a, ft):
        m, nan = flow.only_def(b.name), flow.only_def(p.name)
        if (m is not None and nan is not None and m.opcode in ("max", "min") and "NaN" not in m.mods
                and nan.opcode == "setp" and "nan" in nan.mods and float_type_of(m) == ft == float_type_of(nan)
                and {str(o) for o in m.operands[1:]} == {str(o) for o in nan.operands[1:3]}
                and flow.unchanged_between(b.name, m, instr)):
            ctx.emit(f"{guard_text(instr.guard)}mov.b{R.ring(ft).w} {d.name}, {b.name}")
            return FoldResult(True, Verdict(_NAN_SELECT, NOTE, native=False), moves=True)
    return None


def _read_only_by_adds(flow: Flow, reg: str, ft: str) -> bool:
    uses = flow.uses.get(reg, [])
    return bool(uses) and all(u.opcode == "add" and float_type_of(u) == ft and u.guard is None
                              and reg in _roles(u)[1] and not (set(u.mods) & {"sat", "relu"}) for u in uses)


def _neg_zero(o: object, ft: str) -> bool:
    return isinstance(o, ir.FloatImm) and o.bits == 1 << (o.width - 1) and ft in ("f16", "bf16", "f32", "f64")


def _zero(ft: str) -> ir.FloatImm:
    return ir.FloatImm(0, 64 if ft == "f64" else 32)


def _is_nan(o: ir.FloatImm, ft: str) -> bool:
    exp = (0x7FF << 52) if o.width == 64 else (0xFF << 23)
    frac = (1 << 52) - 1 if o.width == 64 else (1 << 23) - 1
    return (o.bits & exp) == exp and (o.bits & frac) != 0 and R.ring(ft).w in (32, 64)


def _float_bits(v: float, ftype: str) -> int:
    """Bits of ``v`` in ``ftype`` (only exact values such as 2.0 are asked for)."""
    if ftype == "f64":
        return struct.unpack("<Q", struct.pack("<d", v))[0]
    b32 = struct.unpack("<I", struct.pack("<f", v))[0]
    if ftype == "f32":
        return b32
    if ftype == "bf16":
        return b32 >> 16
    return struct.unpack("<H", struct.pack("<e", v))[0]
