"""The concurrent-program form that `explore` runs: a few threads, each a PTX statement list.

Both inputs of `ptxkit explore` become this form: a Dat3M ``.litmus`` test (``ptxkit.litmus``
lowers each litmus instruction to PTX-spelled :class:`ptxkit.ir.Instruction`s) and a real ``.ptx``
kernel run with ``--threads N``. The explorer (``ptxkit.explore.engine``) executes each thread with
an oracle supplying every load/atomic result and checks the candidate executions against
``ptxkit.consistency``.

Conventions for litmus-derived threads (so litmus → PTX is direct):
* memory operands are ``Addr(Sym(location))`` or ``Addr(Reg(r))`` for a pointer register;
* registers keep their litmus names (``Reg('r1')``); ``Label`` statements mark branch targets;
* litmus branches ``beq r, v, L`` are lowered to ``setp`` + predicated ``bra``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ptxkit.explore.condition import (
    QUANTIFIERS,
    Formula,
    Names,
    failure,
    from_postfix,
    from_tuple,
    render,
    resolve,
    thread_registers,
    to_postfix,
)
from ptxkit.ir import Span, Statement


@dataclass
class ThreadProgram:
    """One thread ``Pn`` with its placement (ISA §8.5 scopes: threads with equal ``cta`` share a CTA,
    equal ``gpu`` share a GPU; ``cluster`` defaults to the CTA's own)."""

    index: int
    body: list[Statement]
    cta: int = 0
    gpu: int = 0
    cluster: int | None = None
    init_regs: dict[str, int | str] = field(default_factory=dict)  # int, or a location name for '&loc'


@dataclass
class Location:
    """A shared memory location with its initial value. ``alias_of``/``proxy`` describe Dat3M's
    ``y @ surface aliases x``: ``y`` names the same memory as ``x`` accessed through ``proxy``
    (ISA §8.6)."""

    name: str
    initial: int = 0
    alias_of: str | None = None
    proxy: str = "generic"
    space: str = "global"


@dataclass
class Condition:
    """``exists`` / ``~exists`` / ``forall`` with an optional ``filter`` (herd habits). The formulas
    are typed (:mod:`ptxkit.explore.condition`); the older tuple encoding is converted on
    construction."""

    quantifier: str  # 'exists' | 'not exists' | 'forall'
    formula: Formula
    filter: Formula | None = None
    span: Span | None = None

    def __post_init__(self) -> None:
        if self.quantifier not in QUANTIFIERS:
            raise ValueError(f"quantifier {self.quantifier!r} not in {QUANTIFIERS}")
        self.formula = from_tuple(self.formula)
        if self.filter is not None:
            self.filter = from_tuple(self.filter)

    def text(self) -> str:
        """herd syntax: ``~exists (P1:r0 == 1 /\\ x == 0)``, with ``filter F`` first when there is one."""
        q = {"exists": "exists", "not exists": "~exists", "forall": "forall"}[self.quantifier]
        text = f"{q} {render(self.formula)}"
        return text if self.filter is None else f"filter {render(self.filter)} {text}"

    # pickled flat (``--jobs`` workers send conditions back): a deep formula would exhaust pickle
    def __getstate__(self) -> dict[str, object]:
        return {"quantifier": self.quantifier, "formula": to_postfix(self.formula),
                "filter": None if self.filter is None else to_postfix(self.filter), "span": self.span}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.quantifier = state["quantifier"]
        self.formula = from_postfix(state["formula"])
        self.filter = None if state["filter"] is None else from_postfix(state["filter"])
        self.span = state["span"]


@dataclass
class ConcurrentProgram:
    """What `explore` runs."""

    name: str
    threads: list[ThreadProgram]
    locations: dict[str, Location] = field(default_factory=dict)
    condition: Condition | None = None
    filename: str = "<input>"
    source: str | None = None
    # 'litmus': Dat3M semantics (unbounded integers; ``bar.cta.sync a[, b[, c]]`` with id (a, b) and
    # quorum c). 'ptx': a real kernel (fixed-width integers; ``bar.sync a[, b]`` with id a, count b).
    semantics: str = "litmus"
    # .ptx kernels: parameter values (int, or ('ptr', buffer, byte offset)) and buffers
    # name -> (element type, element count, element bytes); element i is location 'name[i]'.
    params: dict[str, int | tuple[str, str, int]] = field(default_factory=dict)
    buffers: dict[str, tuple[str, int, int]] = field(default_factory=dict)
    # .ptx kernels: .shared variables name -> (type, count, element bytes); CTA c's copy is the
    # buffer 'name@ctaC'
    shared: dict[str, tuple[str, int, int]] = field(default_factory=dict)

    def resolve_condition(self, cond: Condition) -> Condition:
        """``cond`` with every name checked against this program — a thread, register or location
        that does not exist is bad input (``FILE:LINE:COL`` for a condition in the test file, a usage
        error for one on the command line), never a silent 0 — and kernel registers spelled as the
        kernel declares them (``P1:r1`` names ``%r1``)."""
        names = Names([thread_registers(th.body, th.init_regs) for th in self.threads],
                      frozenset(self.locations), {b: n for b, (_t, n, _s) in self.buffers.items()},
                      kernel=self.semantics == "ptx")
        fail = failure(self.filename, self.source, cond.span)
        formula = resolve(cond.formula, names, fail)
        filt = None if cond.filter is None else resolve(cond.filter, names, fail)
        return Condition(cond.quantifier, formula, filt, cond.span)
