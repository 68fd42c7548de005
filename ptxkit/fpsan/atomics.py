"""Float ``atom``/``red`` (ISA §9.7.13.5/6). ``add`` stays native by default, as Triton's FPSan leaves
it (a report note); with ``atomics='ring'`` it becomes a CAS loop on ring addition, so the sum no longer
depends on the order of the atomics (docs/fpsan.md §3). ``exch``/``cas`` move bits; other float
atomics are reported."""

from __future__ import annotations

from ptxkit import ir
from ptxkit.fpsan import ring as R
from ptxkit.fpsan.ctx import BITS_KIND, RewriteContext, operand_text
from ptxkit.fpsan.ops import float_type_of
from ptxkit.fpsan.report import NOTE, Verdict

SCOPE_MODS = {"global", "shared", "shared::cta", "shared::cluster", "gpu", "sys", "cta", "cluster",
              "relaxed", "acquire", "release", "acq_rel"}

_NATIVE_ATOMIC = Verdict("float atomic add left native, as Triton's FPSan leaves it (the float sum then depends on "
                         "the order of the atomics); --atomics ring makes it an order-independent ring sum", NOTE)


def rewrite_atomic(instr: ir.Instruction, ctx: RewriteContext, atomics: str) -> bool | str | Verdict:
    ft = float_type_of(instr)
    if ft is None:
        return False
    if "add" not in instr.mods:
        if "exch" in instr.mods or "cas" in instr.mods:
            return False  # bit moves
        return f"float {instr.opcode} other than add is not modelled"
    if atomics != "ring":
        return _NATIVE_ATOMIC
    if ft not in ("f16", "bf16", "f32", "f64") or any(m.startswith("v") and m[1:].isdigit() for m in instr.mods):
        return f"--atomics ring: {ft}/vector atomics not modelled"
    ops = instr.operands
    if instr.opcode == "atom":
        if len(ops) != 3:
            return "atom operand form not modelled"
        dest, addr, val = ops
    else:
        if len(ops) != 2:
            return "red operand form not modelled"
        dest, (addr, val) = None, ops
    if not isinstance(addr, ir.Addr):
        return "atomic address form not modelled"
    w = R.ring(ft).w
    k = BITS_KIND[w]
    keep = [m for m in instr.mods if m in SCOPE_MODS]
    cas = ".".join(["atom", *keep, "cas", f"b{w}"])
    space = next((m for m in instr.mods if m.startswith("global") or m.startswith("shared")), None)
    ld = ".".join(["ld"] + ([space] if space else []) + ["volatile", f"b{w}"]) if space else f"ld.volatile.b{w}"
    g = instr.guard
    skip = ctx.fresh_label() if g is not None else None
    if g is not None and skip:
        ctx.emit(f"@{'' if g.negated else '!'}{g.pred} bra.uni {skip}")
    pb = ctx.embed(val, ft)
    if pb.startswith("0x"):
        t = ctx.fresh(k)
        ctx.emit(f"mov.b{w} {t}, {pb}")
        pb = t
    old, prev, p = ctx.fresh(k), ctx.fresh(k), ctx.fresh("pred")
    a = operand_text(addr)
    loop = ctx.fresh_label()
    ctx.emit(f"{ld} {old}, {a}")
    ctx.emit(f"{loop}:")
    pa = ctx.embed_value(old, ft)  # not cached: old changes every iteration
    s = ctx.fresh(k)
    ctx.emit(f"add.s{w} {s}, {pa}, {pb}")
    new = ctx.unembed_to_fresh(s, ft)
    ctx.emit(f"{cas} {prev}, {a}, {old}, {new}")
    ctx.emit(f"setp.ne.b{w} {p}, {prev}, {old}")
    ctx.emit(f"mov.b{w} {old}, {prev}")
    ctx.emit(f"@{p} bra.uni {loop}")
    if dest is not None and isinstance(dest, (ir.Reg, ir.Sym)):
        ctx.invalidate(dest.name)
        ctx.emit(f"mov.b{w} {dest.name}, {old}")
    if skip:
        ctx.emit(f"{skip}:")
    return True
