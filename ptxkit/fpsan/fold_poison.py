"""Float → integer conversions of a value Triton's FPSan build computes from constants alone (issue 10; held-out
seed 14009, silent at first contact: ``tl.rsqrt(x0 - x0).to(tl.int32)``).

In the ring ``x − x`` is 0 whatever x is, so in Triton's instrumented LLVM IR the whole chain is integer arithmetic
on constants, which LLVM folds at compile time — down to ``fptosi`` of the float φ⁻¹ gives. Where that float is NaN
or out of the integer's range, ``fptosi`` is poison (LLVM LangRef) and Triton's kernel stores an undefined register;
the plain build converts at run time, where PTX ``cvt.rzi`` saturates (ISA §9.7.9.21). No sanitized kernel can give
Triton's bits there: such a conversion is reported (an error). In range, the fold and the run-time conversion agree.
"""

from __future__ import annotations

import math
import struct
from collections.abc import Callable

import numpy as np

from ptxkit import ir
from ptxkit.fpsan import ring as R
from ptxkit.fpsan.fold_flow import Flow, float_cast
from ptxkit.fpsan.libdevice_flow import LibRange
from ptxkit.fpsan.ops import float_type_of
from ptxkit.fpsan.report import ERROR, Verdict
from ptxkit.ptx.types import SIGNED_TYPES, UNSIGNED_TYPES

_FLOATS = ("f16", "bf16", "f32", "f64")
_DEPTH = 16
_ROUND: dict[str, Callable[[float], int]] = {"rzi": math.trunc, "rni": round, "rmi": math.floor, "rpi": math.ceil}


def _payload(flow: Flow, o: ir.Operand, ft: str, depth: int) -> int | None:
    """φ of ``o`` when Triton's FPSan build knows it at compile time (an immediate, or ring arithmetic on such:
    ``x − x`` is 0), else None."""
    w = R.ring(ft).w
    if isinstance(o, ir.FloatImm):
        bits = o.bits if (o.width == 64) == (ft == "f64") and ft in ("f32", "f64") else None
        return None if bits is None else R.embed_int(bits, ft)
    if not isinstance(o, ir.Reg) or depth <= 0:
        return None
    if o.name in flow.bodies:
        return _body_payload(flow, flow.bodies[o.name], ft, depth)
    d = flow.only_def(o.name)
    if d is not None and d.opcode == "cvt" and d.guard is None and (types := float_cast(d)) is not None \
            and types[0] == ft:  # (26725's erf(x − x).to(f16): Triton's ring narrowing of the constant)
        p = _payload(flow, d.operands[1], types[1], depth - 1)
        return None if p is None else R.embed_int(int(R.float_cast(np.array([R.unembed_int(p, types[1])], np.uint64),
                                                                   types[1], ft)[0]), ft)
    if (d is None or d.guard is not None or float_type_of(d) != ft or len(d.operands) < 2
            or (d.span is not None and d.span.line in flow.native) or d.operands[0] != o):
        return None
    ops = d.operands[1:]
    if d.opcode == "sub" and len(ops) == 2 and ops[0] == ops[1] and isinstance(ops[0], ir.Reg):
        return 0
    if d.opcode == "mov" and len(ops) == 1:
        return _payload(flow, ops[0], ft, depth - 1)
    xs = [_payload(flow, a, ft, depth - 1) for a in ops]
    if d.opcode == "mul" and len(ops) == 2 and 0 in xs:
        return 0  # φ(x)·0
    if (d.opcode, len(ops), xs[-1]) in (("div", 2, 0), ("rcp", 1, 0)):
        return 0  # φ(x)·inv(0), inv(0) = 0 (docs/fpsan.md: the Newton inverse of 0 | 1, its low bit cleared; held-out
        # seed 134379: erf(x / (x - x)).to(f16).to(int32))
    if None in xs:
        return None
    a = [np.array([x], dtype=np.uint64) for x in xs if x is not None]
    if d.opcode == "cvt" and len(ops) == 1 and (tag := {"rmi": "floor", "rpi": "ceil"}.get(
            next((m for m in d.mods if m in _ROUND), ""))) is not None:
        return int(R.tagged(a[0], tag, w)[0])  # floor/ceil: Triton's tags (held-out seed 19112: floor(0.0 * x))
    fn = {("add", 2): lambda: R.add(a[0], a[1], w), ("sub", 2): lambda: R.sub(a[0], a[1], w),
          ("mul", 2): lambda: R.mul(a[0], a[1], w), ("neg", 1): lambda: R.neg(a[0], w),
          ("fma", 3): lambda: R.fma(a[0], a[1], a[2], w),
          ("rsqrt", 1): lambda: R.tagged(a[0], "rsqrt", w), ("lg2", 1): lambda: R.tagged(a[0], "log2", w),
          ("sqrt", 1): lambda: R.tagged(a[0], "sqrt" if "approx" in d.mods or w == 64 else "precise_sqrt", w),
          ("ex2", 1): lambda: R.exp2(a[0], w)}.get((d.opcode, len(ops)))
    return None if fn is None else int(fn()[0])


def _body_payload(flow: Flow, r: LibRange, ft: str, depth: int) -> int | None:
    """The ring op of a recognised libdevice body (``ptxkit.fpsan.libdevice_emit``) on constant arguments (held-out
    seed 26725: ``tl.erf(x0 - x0).to(tl.int64)``, Triton's erf of ring 0, folded; silent at first contact)."""
    if r.ftype != ft or r.sunk or r.saved or r.copy_of is not None:
        return None
    ps = [_payload(flow, ir.Reg(x), ft, depth - 1) for x in (r.inputs or (r.input,))]
    if None in ps:
        return None
    w = R.ring(ft).w
    a = [np.array([p], dtype=np.uint64) for p in ps if p is not None]
    if r.op == "call":
        return int(R.call_hash(f"__nv_{r.name}", a, w)[0])
    ring_op = {"sin": R.sin, "cos": R.cos, "exp2": R.exp2, "exp": R.exp}.get(r.op)
    return int((ring_op(a[0], w) if ring_op is not None else R.tagged(a[0], r.op, w))[0])


def _value(bits: int, ft: str) -> float:
    if ft == "f64":
        return struct.unpack("<d", bits.to_bytes(8, "little"))[0]
    if ft == "f32":
        return struct.unpack("<f", bits.to_bytes(4, "little"))[0]
    if ft == "bf16":
        return struct.unpack("<f", (bits << 16).to_bytes(4, "little"))[0]
    return struct.unpack("<e", bits.to_bytes(2, "little"))[0]


def poison_conversion(instr: ir.Instruction, flow: Flow) -> Verdict | None:
    """The report of ``cvt.RND.{s,u}N.fT d, a`` where ``a`` is such a constant whose float the conversion cannot
    hold (NaN, infinite, out of range after rounding); None otherwise."""
    ops = instr.operands
    ints = [m for m in instr.mods if m in SIGNED_TYPES or m in UNSIGNED_TYPES]
    floats = [m for m in instr.mods if m in _FLOATS]
    rnd = [m for m in instr.mods if m in _ROUND]
    if instr.opcode != "cvt" or len(ops) != 2 or len(ints) != 1 or len(floats) != 1 or len(rnd) != 1:
        return None
    ft, it = floats[0], ints[0]
    p = _payload(flow, ops[1], ft, _DEPTH)
    if p is None:
        return None
    v = _value(R.unembed_int(p, ft), ft)
    n = int(it[1:])
    lo, hi = (-(1 << (n - 1)), (1 << (n - 1)) - 1) if it in SIGNED_TYPES else (0, (1 << n) - 1)
    if math.isfinite(v) and lo <= _ROUND[rnd[0]](v) <= hi:
        return None
    return Verdict(f"{ft} → {it} conversion of a value Triton's FPSan build computes from constants alone (ring "
                   f"x − x and 0·x are 0): LLVM folds it at compile time, and the float φ⁻¹ gives ({v!r}) is out of "
                   f"the {it}'s range, so Triton's conversion is poison and its kernel writes an undefined value; "
                   "left native (PTX saturates)", ERROR)
