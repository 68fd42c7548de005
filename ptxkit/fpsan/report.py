"""The sanitizer's report: every floating-point instruction it leaves native or does not make
Triton-exact, with its reason (docs/fpsan.md §4 "What the report lists", docs/cli.md ``--report``).

Two severities. An **error** is a place where the output may differ from what Triton 3.9's FPSan
computes (no ring model, a libm body rewritten op by op, …): ``--strict`` fails on it. A **note** is a
float instruction left native on purpose, where that choice is Triton's own (comparisons, ``abs``,
``copysign``, int↔float ``cvt``, native float atomics) or where the rewrite cannot tell (a sign-bit
``xor``): the output is what Triton's FPSan computes, so ``--strict`` lets it pass.

Each item also says what happened to the instruction: ``native`` (left as it was) or rewritten
(``native = False``: sanitized op by op, but not as the single FPSan op Triton would emit).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from ptxkit import ir
from ptxkit.ptx.types import FLOAT_TYPES, is_float, is_type

ERROR = "error"
NOTE = "note"


@dataclass
class ReportItem:
    """A floating-point instruction (or line range) left native or not Triton-exact."""

    line: int
    col: int
    opcode: str
    reason: str
    function: str = ""
    end_line: int | None = None
    severity: str = ERROR  # NOTE: reported for information, not an error under --strict
    native: bool = True  # False: the instruction was rewritten (op by op), not left native


@dataclass(frozen=True)
class Verdict:
    """What a rewrite says about an instruction it leaves to the report (``native``: left as it was)."""

    reason: str
    severity: str = ERROR
    native: bool = True
    # the source expressions (file name, line, column offset) whose value the rewrite computes as Triton's FPSan
    # does, which the reports of what LLVM folded away then leave alone (fold_named_literal's MLIR constants)
    covers: frozenset[tuple[str, int, int]] = frozenset()


@dataclass
class SanitizeReport:
    filename: str = "<input>"
    items: list[ReportItem] = field(default_factory=list)
    rewritten: int = 0
    functions: int = 0
    already_sanitized: bool = False
    atomics: str = "native"
    homomorphic_casts: bool = False
    covered: set[tuple[str, int, int]] = field(default_factory=set)  # the folds' Verdict.covers

    @property
    def errors(self) -> list[ReportItem]:
        return [i for i in self.items if i.severity == ERROR]

    @property
    def notes(self) -> list[ReportItem]:
        return [i for i in self.items if i.severity == NOTE]

    def to_json(self) -> dict[str, Any]:
        return {"file": self.filename, "rewritten": self.rewritten, "functions": self.functions,
                "already_sanitized": self.already_sanitized, "atomics": self.atomics,
                "homomorphic_casts": self.homomorphic_casts, "errors": len(self.errors), "notes": len(self.notes),
                "unsanitized": [asdict(i) for i in self.items]}

    def render(self) -> str:
        if self.already_sanitized:
            return f"{self.filename}: already sanitized by ptxkit (left unchanged)"
        out = [f"{self.filename}: {self.rewritten} floating-point instruction(s) sanitized; "
               f"{len(self.errors)} error(s) (may differ from Triton's FPSan), "
               f"{len(self.notes)} note(s) (left native as Triton's FPSan does, or for information)"]
        for i in self.items:
            rng = f"-{i.end_line}" if i.end_line else ""
            out.append(f"  {self.filename}:{i.line}{rng}:{i.col}: {i.severity}: {i.opcode}: "
                       f"{'left native' if i.native else 'rewritten op by op'}: {i.reason}")
        return "\n".join(out)


# ------------------------------------------------------------------------------ native float instructions

COMPARE = Verdict("float comparison left native, as Triton's FPSan leaves comparisons: it compares the float "
                  "bits φ⁻¹ wrote, exactly what Triton's instrumented code compares", NOTE)
_ABS = Verdict("abs (clears the sign bit) left native, as Triton's FPSan leaves math.absf", NOTE)
_COPYSIGN = Verdict("copysign (a sign-bit move) left native, as Triton's FPSan leaves math.copysign", NOTE)
_INT_CVT = Verdict("int↔float conversion left native, as Triton's FPSan leaves sitofp/uitofp/fptosi/fptoui: "
                   "it converts the float bits φ⁻¹ wrote, exactly what Triton's instrumented code converts", NOTE)
_HALF_TO_INT = Verdict("f16/bf16 → int conversion left native: Triton converts through f32 (a ring widening, then "
                       "fptosi) and LLVM folds that into this one cvt, so Triton's FPSan result may differ "
                       "(issue 10 E, not modelled)")
_TESTP = Verdict("float classification (testp) left native: it tests the float bits φ⁻¹ wrote, like a comparison",
                 NOTE)
_TEXTURE = Verdict("texture fetch left native: with filtering the hardware interpolates in float, which FPSan "
                   "does not model (Triton never emits textures)")
_MULTIMEM = Verdict("multimem reduction on floats left native: no FPSan model")


def native_verdict(instr: ir.Instruction) -> Verdict | None:
    """The report entry for a float instruction the rewrite leaves native on purpose (None: a bit move —
    ld/st/mov/selp/shfl/prmt/… carry float bits unchanged and are exact, so they are not listed)."""
    op = instr.opcode
    if op in ("setp", "set"):
        return COMPARE
    if op == "slct":  # slct.dtype.f32 d, a, b, c selects on c >= 0: a float comparison (ISA §9.7.8.2)
        return COMPARE if instr.mods and instr.mods[-1] in FLOAT_TYPES else None
    if op == "abs":
        return _ABS
    if op == "copysign":
        return _COPYSIGN
    if op == "testp":
        return _TESTP
    if op in ("tex", "tld4"):
        return _TEXTURE
    if op == "multimem" and any(m in ("ld_reduce", "red") for m in instr.mods):
        return _MULTIMEM
    if op == "cvt":
        types = [m for m in instr.mods if is_type(m)]
        if len(types) == 2 and is_float(types[0]) != is_float(types[1]):
            return _HALF_TO_INT if types[1] in ("f16", "bf16") else _INT_CVT
    return None
