"""An |x| LLVM dropped after a narrowing it knows is non-negative (issue 10; statement-level probe rp1389, silent in
185/200): ``tl.abs(tl.maximum(x, 10.0).to(tl.float32))`` of an f64 x is ``cvt.rn.f32.f64`` of ``max.f64`` and no
``abs``: the narrowing of a value ≥ 10 is ≥ 10. Triton's FPSan narrows the ring's max, whose float bits may have the
sign bit set, and takes math.absf of them (the sign bit cleared, docs/fpsan.md §2 abs). Where the source applies
``tl.abs`` to the narrowing at the ``cvt``'s location and nothing reading the ``cvt`` clears the sign bit, the cast is
sanitized and then its float bits' sign bit cleared."""

from __future__ import annotations

import ast

from ptxkit import ir
from ptxkit.fpsan import ring as R
from ptxkit.fpsan.abs_bits import HALF_ABS
from ptxkit.fpsan.ctx import BITS_KIND, RewriteContext
from ptxkit.fpsan.dispatch import rewrite_instruction
from ptxkit.fpsan.fold_flow import Flow, FoldResult, float_cast, readers_of
from ptxkit.fpsan.report import ERROR, NOTE, Verdict
from ptxkit.fpsan.source_ast import PTX_OF_DTYPE, SourceFile, _cast_to, _method_call

_SIGN_CLEAR = {16: 0x7FFF, 32: 0x7FFFFFFF, 64: 0x7FFFFFFFFFFFFFFF}


def dropped_abs(instr: ir.Instruction, ctx: RewriteContext, flow: Flow, atomics: str) -> FoldResult | None:
    """``cvt.rn.T.W d, x`` (a float narrowing) at the source's ``tl.abs(E.to(T))`` where no reader of
    d is an ``abs`` or a sign-clearing ``and``: the ring's narrowing, then its float bits' sign bit cleared."""
    cast = float_cast(instr) if instr.opcode == "cvt" else None
    d = instr.operands[0] if instr.operands else None
    if cast is None or cast[0] not in ("f16", "bf16", "f32", "f64") or R.ring(cast[0]).w >= R.ring(cast[1]).w \
            or not isinstance(d, ir.Reg) or instr.guard is not None or flow.only_def(d.name) is not instr:
        return None
    sign = ("abs", "and")  # (through moves and casts: LLVM may move the |x| below them, abs.f16x2 of a packed pair)
    if any(r.opcode in sign for r in readers_of(flow, d.name, lambda u: u.opcode in sign, ("cvt",))):
        return None
    found = flow.hints.nodes(instr)
    if found is None:
        return None
    f, nodes = found
    kinds: set[tuple[str, ast.expr, str]] = set()  # (all/some, the cast, the type the |x| is taken at)
    for n in nodes:
        if PTX_OF_DTYPE.get(_cast_to(n) or "") != cast[0]:
            continue
        up = _widened_on(f, n)
        if (k := _absed(f, up)) is not None:
            kinds.add((k, n, PTX_OF_DTYPE.get(_cast_to(up) or "", cast[0])))
    if not kinds:
        return None
    done = rewrite_instruction(instr, ctx, atomics)
    if done is not True:
        return FoldResult(False, done if isinstance(done, Verdict) else Verdict(str(done or "not modelled")))
    where = f.where(next(iter(kinds))[1])
    if {k for k, _, _ in kinds} != {"all"}:
        return FoldResult(True, Verdict(
            f"narrowing whose |x| the source at {where} takes for some reads and not others: LLVM dropped the abs "
            "(it knows the value is non-negative) and merged the reads, where Triton's FPSan clears the sign bit of "
            "the ring narrowing's float bits for the abs reads only (not modelled); sanitized as the cast", ERROR,
            native=False))
    w = R.ring(cast[0]).w
    bits = ctx.unembed_to_fresh(ctx.embed(d, cast[0]), cast[0])
    cleared = ctx.fresh(BITS_KIND[w])
    ctx.emit(f"and.b{w} {cleared}, {bits}, 0x{_SIGN_CLEAR[w]:X}")
    ctx.define(d, ctx.embed_value(cleared, cast[0]), cast[0], None)
    if {R.ring(t).w for _, _, t in kinds} == {16}:  # (Triton's build may write a half's |x| as a float abs,
        # which makes NaN patterns canonical; of its widening to f32 or f64, an integer and)
        return FoldResult(True, Verdict(f"narrowing whose |x| the source at {where} takes and LLVM dropped: {HALF_ABS}",
                                        ERROR, native=False))
    return FoldResult(True, Verdict(
        f"narrowing whose |x| the source at {where} takes and LLVM "
        "dropped (it knows the value is non-negative): Triton's FPSan clears the sign bit of the ring narrowing's "
        "float bits; sanitized so", NOTE, native=False))


def _widened_on(f: SourceFile, n: ast.expr) -> ast.expr:
    """The outermost of the (strictly) widening ``.to()`` calls applied to ``n`` (``E.to(f16).to(f32)``: a widening
    keeps the sign, so the |x| of it is the widening of the narrowing's |x|), else ``n``."""
    for _ in range(4):
        up = f.parent.get(id(n))
        up = f.parent.get(id(up)) if isinstance(up, ast.Attribute) and up.attr == "to" else None  # (E.to(T)'s .to)
        t = PTX_OF_DTYPE.get(_cast_to(up) or "") if isinstance(up, ast.Call) else None
        if t is None or not isinstance(up, ast.Call) or not isinstance(up.func, ast.Attribute) \
                or up.func.value is not n or R.ring(t).w <= R.ring(PTX_OF_DTYPE.get(_cast_to(n) or "", "f64")).w:
            return n
        n = up
    return n


def _absed(f: SourceFile, n: ast.expr) -> str | None:
    """``all`` where ``n``'s value reaches only ``tl.abs`` (its argument, or assigned once to a name every read of
    which is one), ``some`` where some reads of such a name are and others not, else None."""
    up = f.parent.get(id(n))
    if _method_call(up, "abs", 1):
        return "all"
    if not (isinstance(up, ast.Assign) and len(up.targets) == 1 and isinstance(t := up.targets[0], ast.Name)):
        return None
    fn = f.function_of(n)
    names = [m for m in ast.walk(fn) if isinstance(m, ast.Name) and m.id == t.id] if fn is not None else []
    reads = [m for m in names if isinstance(m.ctx, ast.Load)]
    absed = [m for m in reads if _method_call(f.parent.get(id(m)), "abs", 1)]
    if len(names) != len(reads) + 1 or not absed:
        return None
    return "all" if len(absed) == len(reads) else "some"
