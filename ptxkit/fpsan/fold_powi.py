"""``libdevice.pow(x, N)`` with an integer literal N (issue 10; docs/fpsan.md §2 "other pure math call"): Triton calls
``__nv_powif`` (f32; ``__nv_powi`` for f64) and its FPSan hashes the call, Σ rotl(E(arg_i), i) with the integer
argument as it is (Triton's FPSan PTX of ``pow(x, 3)``: ``E(x) + rotl(3, 1)``, then the symbol's FNV-1a). LLVM expands
the call into a square-and-multiply chain (``1.0·x``, ``x·x``, their product; ``1/x^|N|`` for N < 0) at the call's
location, which sanitized op by op was silent (user-style probe, 480/512 elements). The chain's last instruction,
the one that computes x^N (or x^N + c, an fma), becomes the hash; the others are dead or shared and stay as they are.
Where LLVM left no chain (x^0 folded to 1.0, x^1 to x), ``libdevice_unseen`` reports the call."""

from __future__ import annotations

import ast
from dataclasses import dataclass

from ptxkit import ir
from ptxkit.fpsan import ring as R
from ptxkit.fpsan.ctx import BITS_KIND, RewriteContext
from ptxkit.fpsan.fold_flow import Flow, FoldResult
from ptxkit.fpsan.fold_narrowed_extremum import _constant_bits
from ptxkit.fpsan.libdevice_emit import emit_call
from ptxkit.fpsan.ops import as_reg, float_type_of
from ptxkit.fpsan.report import NOTE, Verdict
from ptxkit.fpsan.source_ast import SourceFile, _module_call

_SYMBOL = {"f32": "__nv_powif", "f64": "__nv_powi"}
_ONE = {32: 0x3F800000, 64: 0x3FF0000000000000}


@dataclass(frozen=True)
class Powi:
    """The chain ``instr`` ends: x^n of the register ``x``, from the source's call at ``where``."""

    x: ir.Reg
    n: int
    ft: str
    where: str


def powi_tail(instr: ir.Instruction, flow: Flow) -> Powi | None:
    """The ``libdevice.pow(x, N)`` chain whose value x^N ``instr`` (a ``mul``/``div``/``rcp``) computes, else None."""
    ft = float_type_of(instr)
    if instr.opcode not in ("mul", "div", "rcp", "fma") or ft not in _SYMBOL \
            or not isinstance(instr.operands[0], ir.Reg):
        return None
    decided = flow.hints.decide(instr, _pow_of_int_literal)
    if decided is None:
        return None
    n = int(decided.form)
    got = _power(flow, instr, R.ring(ft).w, 12)
    if got is None or got[1] != n or got[0] is None:
        return None
    for u in flow.uses.get(instr.operands[0].name, []):  # an intermediate of a longer chain to x^N (· 1.0)
        if flow.hints.same_location(u, instr) and (more := _power(flow, u, R.ring(ft).w, 12)) is not None \
                and more[1] == n:
            return None
    return Powi(ir.Reg(got[0]), n, ft, decided.where)


def _power(flow: Flow, instr: ir.Instruction, w: int, depth: int) -> tuple[str | None, int] | None:
    """(the one register x, k) where ``instr`` computes x^k by muls, reciprocals and divisions of values at its
    location and 1.0 (x: None for a power of 1.0 alone); None for anything else."""
    if depth <= 0 or len(instr.operands) < 2:
        return None
    ops = instr.operands[1:]
    if instr.opcode == "fma" and len(ops) == 3:  # x^N + c contracted (pow(x, 2) + 1.0 of f64: fma x, x, 1.0)
        ops = ops[:2]
    if instr.opcode in ("mul", "fma") and len(ops) == 2:
        parts = [_operand(flow, instr, o, w, depth) for o in ops]
        sign: tuple[int, ...] = (1, 1)
    elif instr.opcode == "div" and len(ops) == 2:
        parts = [_operand(flow, instr, o, w, depth) for o in ops]
        sign = (1, -1)
    elif instr.opcode == "rcp" and len(ops) == 1:
        parts = [_operand(flow, instr, ops[0], w, depth)]
        sign = (-1,)
    else:
        return None
    if any(p is None for p in parts):
        return None
    xs = {p[0] for p in parts if p is not None and p[0] is not None}
    if len(xs) > 1:
        return None
    return (xs.pop() if xs else None), sum(s * p[1] for s, p in zip(sign, parts, strict=True) if p is not None)


def _operand(flow: Flow, at: ir.Instruction, o: ir.Operand, w: int, depth: int) -> tuple[str | None, int] | None:
    if (bits := _constant_bits(flow, o, w)) is not None:  # (an immediate, or a register a mov of one writes)
        return (None, 0) if bits == _ONE[w] else None
    if not isinstance(o, ir.Reg):
        return None
    d = flow.only_def(o.name)
    if d is not None and flow.hints.same_location(d, at) and d.opcode in ("mul", "div", "rcp") \
            and float_type_of(d) == float_type_of(at):
        return _power(flow, d, w, depth - 1)
    return o.name, 1  # x: computed elsewhere (or a load)


def _pow_of_int_literal(f: SourceFile, n: ast.expr) -> tuple[str, ast.expr] | None:
    """N of ``libdevice.pow(x, N)`` with an integer literal N (``-N`` too)."""
    if _module_call(n, "libdevice") != "pow" or not isinstance(n, ast.Call) or len(n.args) != 2:
        return None
    e = n.args[1]
    neg = isinstance(e, ast.UnaryOp) and isinstance(e.op, ast.USub)
    c = e.operand if isinstance(e, ast.UnaryOp) and neg else e
    if isinstance(c, ast.Constant) and type(c.value) is int:
        return str(-c.value if neg else c.value), n
    return None


def rewrite_powi(instr: ir.Instruction, ctx: RewriteContext, p: Powi) -> FoldResult:
    """x^N as Triton's hash of the call (an f64 one with N < 0, whose integer argument's widening to 64 bits is not
    checked, is reported)."""
    w = R.ring(p.ft).w
    symbol = _SYMBOL[p.ft]
    # (the integer sign-extended to w: f64 pow(x, -3) checked against Triton)
    o = emit_call(ctx, [ctx.embed(p.x, p.ft), str(p.n % (1 << w))], symbol, w)
    if instr.opcode == "fma":  # the addend LLVM contracted into the chain's last product, a ring add
        t = ctx.fresh(BITS_KIND[w])
        ctx.emit(f"add.s{w} {t}, {o}, {as_reg(ctx, ctx.embed(instr.operands[3], p.ft), w)}")
        o = t
    ctx.define(instr.operands[0], o, p.ft, instr.guard)
    return FoldResult(True, Verdict(
        f"{instr.opcode}.{p.ft} ending LLVM's {CHAIN} of the source's libdevice.pow(x, {p.n}) at {p.where}: Triton's "
        f"FPSan hashes the call ({symbol}) of x and the integer {p.n}", NOTE, native=False))


CHAIN = "square-and-multiply chain"
