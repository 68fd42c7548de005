"""A select of literals cast after it, with the cast folded into the constants (issue 10; custom kernels probing
held-out seed 49895, silent: ``tl.where(c, 1.0, 2.0)`` stored as bf16 is ``selp.b16 d, 0x3F80, 0x4000, p``; 68925's:
promoted to f64, ``selp.b64 d, 1.0, 2.0``). The where of two Python floats is an f32 tensor (of one, the other arm's
type), so Triton's FPSan casts φ_f32(2.0) in the ring, which is neither φ_bf16(2.0) nor φ_f64(2.0); each such
constant becomes the float of that ring cast, computed here (docs/fpsan.md §2 casts; PTX ISA "Comparison and
Selection Instructions: selp")."""

from __future__ import annotations

import ast
import itertools

import numpy as np

from ptxkit import ir
from ptxkit.fpsan import ring as R
from ptxkit.fpsan.ctx import RewriteContext, float_to_bits, guard_text, hexc
from ptxkit.fpsan.fold_flow import Flow, FoldResult, float_cast, float_cvt_chain
from ptxkit.fpsan.report import NOTE, Verdict
from ptxkit.fpsan.source_ast import (
    _DEPTH,
    _PTX_DTYPE,
    OWN,
    PTX_OF_DTYPE,
    Decision,
    SourceFile,
    _cast_to,
    _method_call,
    _narrowed_to,
    _receiver,
    _resolve,
    _width,
)
from ptxkit.fpsan.source_inline import parameter_use
from ptxkit.fpsan.source_mlir_fold import rounded
from ptxkit.fpsan.source_numbers import arm_number, constexpr_param

_NARROW = {16: ("f16", "bf16"), 32: ("f32",)}


def narrowed_select_constants(instr: ir.Instruction, flow: Flow) -> tuple[dict[int, int], str, str, bool] | None:
    """({operand index: the ring constant's bits}, the narrow type, where, whether a ``tl.constexpr`` arm's value was
    taken to be its immediate's) for ``selp.bN d, a, b, p`` with immediate arms at a ``tl.where`` of a wider dtype
    whose literal arms, narrowed natively, are those immediates; else None."""
    ops = instr.operands
    if instr.opcode != "selp" or len(ops) != 4 or instr.guard is not None:
        return None
    width = next((int(m[1:]) for m in instr.mods if m[1:].isdigit()), 0)
    imms = {i: b for i in (1, 2) if (b := _imm_bits(ops[i], width)) is not None}
    found = flow.hints.nodes(instr) if imms and (width in _NARROW or width == 64) else None
    if found is None:
        return None
    f, nodes = found
    got: set[tuple[tuple[tuple[int, int], ...], str, str, bool]] = set()
    for n in _wheres(f, nodes):
        assert isinstance(n, ast.Call)
        arms = n.args[1:]
        # (a name bound to a number is an fp32 scalar: its f32 value, as a literal's; user-style probe, silent)
        lits = [c for a in arms if (c := arm_number(f, a, {})) is not None]
        # (a tl.constexpr parameter is a literal the launch gives: its value is taken to be the immediate's, which
        # the casts LLVM folded into it may have rounded; reported)
        params = [a for a in arms if arm_number(f, a, {}) is None and constexpr_param(f, a)]
        others = [a for a in arms if arm_number(f, a, {}) is None and not any(a is b for b in params)]
        if params and width in (32, 64) and len(params) + len(lits) == 2 - len(others) \
                and len(imms) in (len(params), len(params) + len(lits)):
            # (where(p, S, 1.5) of both arms immediate: S is the immediate no literal gives, statement seed 5915)
            lits += [_bits_value(b, f"f{width}") for b in imms.values()]
        try:
            wide = 32 if not others else _width(f, others[0], _DEPTH)
        except (KeyError, IndexError, AttributeError, TypeError, ValueError, RecursionError):
            continue
        conv = _converted_arm(instr, flow)
        casts = _casts_after(f, n)
        stated = wide in (32, 64)  # (the source's type, over the PTX conversion's source: LLVM merges z.to(f32).to(f64)
        # of a half into one cvt.f64.f16; user-style probe, silent)
        own = PTX_OF_DTYPE.get(_cast_to(_resolve(f, others[0], _DEPTH) or others[0]) or "") if others else None
        if wide in (OWN, 16, None, 64) and own not in casts[:1] \
                and (origin := _sunk_casts_origin(instr, flow, casts, width)) is not None:
            # where(c, 2.0, x).to(f16).to(f32) of an f32 x: LLVM sank the casts into x's arm (and shares them with
            # a comparison), so the arm's conversion is the where's casts, not x's type (statement-level seed 425,
            # silent); the literal goes from the where's type through them (an f64 where narrowed to f16, stored as
            # f32: seed 1049, silent)
            dst = f"f{width}"
            path = [f"f{origin}", *casts, *([dst] if casts[-1] != dst else [])]
            if all(any(float_to_bits(_rounded_along(c, path), dst) == b for c in lits) for b in imms.values()):
                new = {i: _ring_along(next(c for c in lits if float_to_bits(_rounded_along(c, path), dst) == b), path)
                       for i, b in imms.items()}
                got.add((tuple(sorted(new.items())), dst, f.where(n), bool(params)))
            continue
        if wide == OWN and width == 16 and any(arm_number(f, a, {}, names=False) is None for a in arms
                                                 if arm_number(f, a, {}) is not None):
            # a name bound to a number is an fp32 scalar: the where of a loaded half is f32, narrowed after it
            # (c = 1.5; c += 0.1; tl.where(x > 0, x, c) stored as bf16; statement-level probe, silent)
            wide = 32
        elif wide == OWN:  # a loaded arm: the PTX's conversion of it says its type (where(c, x, 2.0) of an f32 x
            wide = R.ring(conv[1]).w if conv else None  # stored as f64 or bf16; custom kernels after held-out 68925)
        # (a register arm no cvt widens is of the select's own width: a narrower source width is the hints' guess
        # for a loaded operand, tl.minimum(x.to(f32), y) of an f64 y; seed 1049, silent)
        unwidened = conv is None and any(isinstance(o, ir.Reg) for o in instr.operands[1:3])
        if wide is not None and ((0 < wide < width and not unwidened)
                                 or (wide == width and _narrows(casts, width)
                                     and not _cast_after_select(instr, flow))) \
                and width in (32, 64):
            # widened after the select (where(c, 1.0, 2.0).to(f64), or promoted): LLVM folds fpext into the literals;
            # Triton's ring sign-extends φ_S(c) (held-out seed 68925's kin, silent)
            src, dst = (conv[1] if conv else "f32" if wide == 32 else ""), "f64" if width == 64 else "f32"
            # (through the casts the source applies to the where on the way: .to(f16).to(f32) of an f32 where, stored
            # as f64, narrows the literal in the ring first; user-style probe, silent in 241/512)
            if (casts or stated) and wide in (32, 64):  # (the PTX's conversion is the last cast's, not the where's)
                src = "f32" if wide == 32 else "f64"
            path = [src, *casts, dst] if src else []
            # (widenings alone: the immediate is a constexpr's fp32 value exactly, nothing assumed; 5915)
            widened = all(R.ring(a).w < R.ring(b).w for a, b in itertools.pairwise(path))
            if path and all(any(float_to_bits(_rounded_along(c, path), dst) == b for c in lits) for b in imms.values()):
                new = {i: _ring_along(next(c for c in lits if float_to_bits(_rounded_along(c, path), dst) == b), path)
                       for i, b in imms.items()}
                got.add((tuple(sorted(new.items())), dst, f.where(n), bool(params) and not widened))
            continue
        if wide not in (32, 64) or wide <= width:
            continue
        src = "f32" if wide == 32 else "f64"
        types = (conv[0],) if conv and conv[0] in _NARROW[width] else _NARROW[width]  # (f16 or bf16: its cvt's)
        if len(types) == 2:  # (2.0 is 0x4000 in both: the source's narrowing of the where says which; user-style)
            types = tuple(t for t in types if _narrowed_to(f, n, _PTX_DTYPE[t])) or types
        for t in types:
            if all(any(float_to_bits(c, t) == b for c in lits) for b in imms.values()):
                new = {i: _ring_cast(next(c for c in lits if float_to_bits(c, t) == b), src, t)
                       for i, b in imms.items()}
                got.add((tuple(sorted(new.items())), t, f.where(n), bool(params)))
    if len(got) != 1:
        return None
    pairs, t, where, assumed = got.pop()
    new = dict(pairs)
    return (new, t, where, assumed) if any(new[i] != imms[i] for i in imms) else None


def _bits_value(b: int, t: str) -> float:
    """The value of the ``t`` bits ``b``."""
    if t == "bf16":
        return float(np.array([b << 16], np.uint32).view(np.float32)[0])
    view = {"f16": (np.uint16, np.float16), "f32": (np.uint32, np.float32), "f64": (np.uint64, np.float64)}[t]
    return float(np.array([b], view[0]).view(view[1])[0])


def _wheres(f: SourceFile, nodes: list[ast.expr]) -> list[ast.expr]:
    """The ``tl.where`` calls among ``nodes``, those a cast among them converts (``y.to(f16)`` of ``y = tl.where(..)``:
    LLVM sinks the narrowing into the arms, the select at the cast's location), and the wheres in their arms (a
    clamp ``where(x < -0.5, -0.5, where(x > 0.5, 0.5, x))``: the inner select at the cast's location too; found on a
    threshold kernel of halves, silent before)."""
    todo = [r for n in nodes if (r := _resolve(f, _receiver(n), _DEPTH) if _cast_to(n) else n) is not None]
    out: list[ast.expr] = []
    for _ in range(_DEPTH):
        todo = [n for n in todo if _method_call(n, "where", 3) and all(n is not o for o in out)]
        if not todo:
            break
        out += todo
        todo = [r for n in todo if isinstance(n, ast.Call) for a in n.args[1:] if (r := _resolve(f, a, _DEPTH))
                is not None]
    return out


def _converted_arm(instr: ir.Instruction, flow: Flow) -> tuple[str, str] | None:
    """(destination, source) types of the float ``cvt`` that defines the select's register arm, else None."""
    regs = [o for o in instr.operands[1:3] if isinstance(o, ir.Reg)]
    d = flow.only_def(regs[0].name) if len(regs) == 1 else None
    return float_cast(d) if d is not None and d.opcode == "cvt" else None


def _sunk_casts_origin(instr: ir.Instruction, flow: Flow, casts: list[str], width: int) -> int | None:
    """The width of the value under the select's register arm when the float ``cvt`` chain that defines the arm is
    exactly the where's ``.to()`` casts (with a narrowing), then the widening to the select's ``width`` where the
    last cast is narrower (``where(c, b, -0.5).to(bf16)`` stored as f32; statement-level seed 2432), else None."""
    dst = f"f{width}"
    full = [*casts, dst] if casts and casts[-1] != dst else list(casts)
    if not _narrows(casts, width) or len(full) < 2:
        return None
    regs = [o for o in instr.operands[1:3] if isinstance(o, ir.Reg)]
    if len(regs) != 1:
        return None
    types = float_cvt_chain(flow, regs[0], len(full))[1]
    if types[1:] != full or types[0] not in ("f32", "f64") or types[0] == full[0]:
        return None
    return R.ring(types[0]).w


def _cast_after_select(instr: ir.Instruction, flow: Flow) -> bool:
    """A float ``cvt`` reads the select's result: the where's casts are still the PTX's, not folded into its
    literals (``where(c, m, 0.5).to(f16)`` of an f64 m: ``selp.f64`` then ``cvt.rn.f16.f64``; seed 1049, silent)."""
    d = instr.operands[0]
    return isinstance(d, ir.Reg) and any(r.opcode == "cvt" and float_cast(r) is not None
                                         for r in flow.uses.get(d.name, []))


def _narrows(casts: list[str], width: int) -> bool:
    """A cast among ``casts`` is narrower than ``width`` bits."""
    return any(R.ring(t).w < width for t in casts)


def _imm_bits(o: ir.Operand, width: int) -> int | None:
    if isinstance(o, ir.FloatImm) and o.width == width:
        return o.bits
    return o.value % (1 << width) if isinstance(o, ir.Imm) and width in (16, 32, 64) else None


def _ring_cast(c: float, src: str, t: str) -> int:
    """The float bits Triton's FPSan gives ``c`` of type ``src`` cast to ``t``: φ_t⁻¹ of the ring cast."""
    return int(R.float_cast(np.array([float_to_bits(c, src)], np.uint64), src, t)[0])


def _casts_after(f: SourceFile, n: ast.expr) -> list[str]:
    """The float types of the ``.to()`` casts applied to ``n`` in turn (``where(..).to(tl.float16).to(tl.float32)``)."""
    out: list[str] = []
    for _ in range(_DEPTH):
        if (use := parameter_use(f, n)) is not None:
            n = use  # (an argument of a helper that casts its parameter: where(..) passed to _g(b) of b.to(f16))
        a: ast.AST | None = f.parent.get(id(n))
        call = f.parent.get(id(a)) if isinstance(a, ast.Attribute) and a.attr == "to" else None
        t = _cast_to(call) if isinstance(call, ast.Call) else None
        if t is None or call is None:
            break
        out.append(PTX_OF_DTYPE[t])
        n = call  # type: ignore[assignment]
    return out


def _rounded_along(c: float, path: list[str]) -> float:
    for t in path:
        c = rounded(c, t)
    return c


def _ring_along(c: float, path: list[str]) -> int:
    """``c`` of type ``path[0]`` through Triton's ring casts to each type of ``path`` in turn: the last one's bits."""
    bits = np.array([float_to_bits(c, path[0])], np.uint64)
    for a, b in itertools.pairwise(path):
        if a != b:
            bits = R.float_cast(bits, a, b)
    return int(bits[0])


def rewrite_select_constants(instr: ir.Instruction, ctx: RewriteContext, new: dict[int, int], t: str,
                             where: str, assumed: bool = False) -> FoldResult:
    """The select as written, its constant arms replaced by the ring narrowings' bits."""
    ops = instr.operands
    w = R.ring(t).w
    args = [hexc(new[i], w) if i in new else ctx.text(ops[i]) for i in (1, 2)]
    ctx.emit(f"{guard_text(instr.guard)}selp.b{w} {ctx.text(ops[0])}, {args[0]}, {args[1]}, {ctx.text(ops[3])}")
    if assumed:
        ctx.report(instr, f"select of a tl.constexpr parameter of the where at {where} cast after it: LLVM folded the "
                   "casts into its value, which the PTX no longer carries; sanitized as Triton's ring casts of the "
                   "immediate (exact only when the parameter's value is the immediate's)")
    return FoldResult(True, Verdict(f"select of constants cast to {t}: LLVM folds the cast into the literals of the "
                                    f"where at {where}, whose dtype is {'narrower' if w == 64 else 'wider'}; sanitized "
                                    "with Triton's ring casts of them", NOTE, native=False), moves=True)


def select_of_shared_narrowing(instr: ir.Instruction, flow: Flow) -> Decision | None:
    """``selp.b16 d, a, b, p`` reading a narrowing ``cvt.rn.{f16,bf16}.f32`` that other code reads too, where the
    source's ``tl.where`` there has an arm widened to f64 from no 16- or 64-bit value (``where(c, x.to(f64), ..)``
    stored as bf16 beside an ``x.to(bf16)``): LLVM narrows the select's arms, drops the exact widening and shares the
    narrowing with the other conversion of x; Triton narrows the 64-bit ring value of the select, which the 32-bit
    narrowing is not (held-out seed 135626, silent); else None."""
    ops = instr.operands
    if instr.opcode != "selp" or len(ops) != 4 or "b16" not in instr.mods or instr.guard is not None:
        return None
    if not any(isinstance(o, ir.Reg) and (d := flow.only_def(o.name)) is not None
               and (t := float_cast(d)) is not None and t[0] in ("f16", "bf16") and t[1] == "f32"
               and len(flow.uses.get(o.name, [])) > 1 for o in ops[1:3]):
        return None

    def classify(f: SourceFile, n: ast.expr) -> tuple[str, ast.expr] | None:
        if not _method_call(n, "where", 3):
            return None
        assert isinstance(n, ast.Call)
        arms = [_resolve(f, a, _DEPTH) for a in n.args[1:]]
        return ("wider", n) if any(_cast_to(a) == "float64" and _width(f, _receiver(a), _DEPTH) not in (16, 64)
                                   for a in arms if a is not None) else None
    return flow.hints.decide(instr, classify)
