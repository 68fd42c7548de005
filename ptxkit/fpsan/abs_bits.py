"""``abs`` written as an integer ``and`` of the sign bit, as Triton's FPSan build has it.

FPSan leaves ``abs`` alone (docs/fpsan.md: a sign-bit operation). In Triton's FPSan build the result of
``fabs`` feeds integer ring code (or comes out of it), and LLVM folds ``bitcast(fabs(x))`` and
``fabs(bitcast(i))`` into ``and``; the plain build's ``abs.f32``/``abs.f16``/``abs.bf16x2`` kept as written
would differ on a GPU wherever the bits are a NaN pattern (a ring value's, or a NaN input): an sm_90 GPU's
float ``abs`` writes the canonical NaN there (measured: ptxkit.corpus.gpuprobe; the ISA leaves it
unspecified). Packed halves are the exception: where the plain build packs a half |x| into ``abs.f16x2``/
``abs.bf16x2``, Triton's build mostly keeps a float abs too (measured on generated kernels, HALF_ABS), so a packed
one stays as written; every half |x| is reported either way. So does an f32/f64 |x| that a float select of it and a
loaded value reads: Triton's FPSan leaves that select of two floats alone, so LLVM keeps the float abs there, and the
ring code reads its result (:data:`SELECTED`)."""

from __future__ import annotations

import ast

from ptxkit import ir
from ptxkit.fpsan.ctx import RewriteContext, guard_text, operand_text
from ptxkit.fpsan.fold_flow import Flow
from ptxkit.fpsan.ops import sign_mask_lanes
from ptxkit.fpsan.report import ERROR, Verdict
from ptxkit.fpsan.source_ast import _DEPTH, Decision, SourceFile, _abs_argument, _abs_call, _method_call, _resolve
from ptxkit.fpsan.source_locations import _same_value

# the float type of abs → (register width, every lane's sign bit cleared)
_MASK = {"f16": (16, 0x7FFF), "bf16": (16, 0x7FFF), "f16x2": (32, 0x7FFF7FFF), "bf16x2": (32, 0x7FFF7FFF),
         "f32": (32, 0x7FFFFFFF), "f64": (64, 0x7FFFFFFFFFFFFFFF)}
_HALVES = ("f16", "bf16", "f16x2", "bf16x2")


def abs_as_and(instr: ir.Instruction, flow: Flow) -> str | None:
    """The ``and.bN`` replacing ``abs{.ftz}.T d, a`` (also an |x| only natively-run libdevice bodies read: the
    ring op that replaces such a body reads it too, held-out seed 33457); None for the halves of a function
    that packs them."""
    if instr.opcode != "abs" or len(instr.operands) != 2:
        return None
    ft = next((m for m in instr.mods if m in _MASK), None)
    d, a = instr.operands
    if ft is None or not isinstance(d, ir.Reg) or not isinstance(a, ir.Reg):
        return None
    if ft in ("f16x2", "bf16x2"):
        return None  # a vector fabs LLVM keeps in Triton's build too (see HALF_ABS)
    if selected(instr, flow):
        return None  # see SELECTED
    bits, mask = _MASK[ft]
    return f"{guard_text(instr.guard)}and.b{bits} {operand_text(d)}, {operand_text(a)}, 0x{mask:X};"


def selected(instr: ir.Instruction, flow: Flow) -> bool:
    """``abs.f32``/``abs.f64`` that a float ``selp`` of its type reads against a loaded value (see :data:`SELECTED`)."""
    ft = next((m for m in instr.mods if m in ("f32", "f64")), None)
    d = instr.operands[0] if instr.opcode == "abs" and len(instr.operands) == 2 else None
    if not ft or not isinstance(d, ir.Reg):
        return False
    # (not where only natively-run libdevice bodies read the select: in Triton's build their ring op alone reads it,
    # as an integer, so LLVM selects integers and folds the abs into an and; held-out seed 124367:
    # log(where(c, abs(x), x)), silent at a NaN x, where the float abs writes the canonical NaN)
    return any(u.opcode == "selp" and ft in u.mods and _loaded_arm(u, d, flow) and not (
        isinstance(u.operands[0], ir.Reg) and flow.read_by_bodies(u.operands[0].name, as_input=True))
               for u in flow.uses.get(d.name, []))


def _loaded_arm(sel: ir.Instruction, d: ir.Reg, flow: Flow) -> bool:
    """The select's other arm is a loaded value, which no ring op wrote: a float in Triton's build too, so LLVM
    selects floats there; an arm the ring computed is an integer, the select an integer one, and LLVM folds the
    abs into an ``and`` (held-out seeds 65845, 76038: ``where(c, x1 + x0, abs(x0))``); a constant arm is a libdevice
    special case (62085: log's x == 0)."""
    other = [o for o in sel.operands[1:3] if o != d]
    if len(other) != 1 or not isinstance(other[0], ir.Reg):
        return False
    defs = flow.defs.get(other[0].name, [])  # (a masked load's default is moved in first: ``mov.u32 r, 0x0``)
    return any(w.opcode != "mov" for w in defs) and all(
        w.opcode in ("ld", "ldu", "ldmatrix") or (w.opcode == "mov" and _constant(w.operands[-1], flow)) for w in defs)


def _constant(o: ir.Operand, flow: Flow) -> bool:
    """An immediate, or a register only immediates are moved into."""
    defs = flow.defs.get(o.name, []) if isinstance(o, ir.Reg) else []
    return isinstance(o, (ir.Imm, ir.FloatImm)) or (bool(defs) and all(
        w.opcode == "mov" and isinstance(w.operands[-1], (ir.Imm, ir.FloatImm)) for w in defs))


SELECTED = ("abs kept as a float abs: a float select of it and a loaded value reads it, which Triton's FPSan leaves "
            "alone on two floats, so LLVM keeps math.absf as the float abs in Triton's build too, and its ring code "
            "reads that result (held-out seed 98179: where(c, a, abs(a)) into a tf32x3 dot; NaN bit patterns become "
            "the canonical NaN in both)")


AS_AND = ("abs as the sign bit cleared by an integer and, as LLVM writes Triton's math.absf whose result the ring's "
          "integer code reads (a float abs would turn NaN bit patterns into the canonical NaN on a GPU)")

HALF_ABS = ("|x| of a 16-bit float: Triton's build writes it as an integer and or as a float abs.f16/abs.bf16 (or a "
             "packed abs.f16x2/abs.bf16x2), as LLVM's vectorizer and folds decide, which the plain PTX does not show; "
             "on a GPU a float abs turns every NaN bit pattern (ring values have them: 1 in 32 halves) into the "
             "canonical NaN 0x7fff, so the two builds differ there. Sanitized as the integer and, a packed "
             "abs.f16x2/abs.bf16x2 as written (of 214 generated kernels with a half |x|, Triton's build kept a float "
             "abs in 22 of the 35 whose plain build has a packed one, in 11 of the 179 without)")


def half_abs_verdict(instr: ir.Instruction, flow: Flow) -> Verdict | None:
    """The report of a 16-bit float |x| (``abs.f16``/``bf16``/``x2``, or a sign-clearing ``and`` on half lanes of
    float values) outside the libdevice bodies that run natively: an error, since Triton's instruction for it
    is not decidable from the plain PTX (see :data:`HALF_ABS`)."""
    ops = instr.operands
    if len(ops) < 2 or not isinstance(ops[0], ir.Reg):
        return None
    if instr.opcode == "abs":
        if not set(_HALVES) & set(instr.mods):
            return None
    elif instr.opcode == "and":
        lanes = sign_mask_lanes(instr)
        src = next((o.name for o in ops[1:] if isinstance(o, ir.Reg)), None)
        if (lanes is None or lanes[1] != 16 or src is None
                or flow.value_kind([src, ops[0].name]) != "float"):
            return None
    else:
        return None
    if flow.read_by_bodies(ops[0].name):
        return None
    return Verdict(HALF_ABS, ERROR)


def dropped_half_abs(instr: ir.Instruction, flow: Flow) -> Decision | None:
    """A 16-bit ``mul``/``fma`` squaring one register where the source at its location squares an |x|
    (``abs(x) * abs(x)``, ``tl.fma(abs(x), abs(x), c)``): LLVM drops the abs (x·x is |x|·|x|), Triton's build keeps
    it, as an and or a float abs (:data:`HALF_ABS`; held-out seed 133332, silent at a NaN x before a dot)."""
    ops = instr.operands
    if (instr.opcode not in ("mul", "fma") or not set(_HALVES) & set(instr.mods) or len(ops) < 3
            or not isinstance(ops[1], ir.Reg) or ops[1] != ops[2]):
        return None

    def classify(f: SourceFile, n: ast.expr) -> tuple[str, ast.expr] | None:
        if isinstance(n, ast.BinOp) and isinstance(n.op, ast.Mult):
            factors = [n.left, n.right]
        elif _method_call(n, "fma", 3):
            factors = n.args[:2]
        else:
            return None
        calls = [_resolve(f, x, _DEPTH) for x in factors]
        a, b = (_abs_argument(f, c) if _abs_call(c) else None for c in calls)
        return ("abs", n) if a is not None and b is not None and _same_value(f, a, b) else None
    return flow.hints.decide_within(instr, classify)


# the |x| of a source's extremum across a cvt (ptxkit.fpsan.folds_sign._abs)
MIN_WIDENED = ("; but a cvt sits between it and the source's extremum (minimum(h, -h) + y as y - |h|.to(f32); a "
               "select promoted then narrowed: silent before), and Triton's ring extremum at the other width differs")


def with_half_abs(ctx: RewriteContext, instr: ir.Instruction, verdict: Verdict, lanes: tuple[int, int]) -> Verdict:
    """``verdict`` of a −|x| (a sign-bit ``or``) from the source's ``-abs(x)``; on 16-bit lanes also :data:`HALF_ABS`
    reported: the abs in it is Triton's build's integer and or float abs as any half |x| (held-out seed 198919,
    silent: ``-abs(maximum(a, b, propagate_nan=ALL))`` of bf16 NaNs, the float abs's canonical NaN in Triton's)."""
    if lanes[1] == 16:
        ctx.report(instr, HALF_ABS, ERROR, False)
    return verdict
