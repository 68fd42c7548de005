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


# Conditions (Dat3M / herd syntax): an AST of tuples.
#   ('and', a, b) | ('or', a, b) | ('not', a) | ('cmp', op, lhs, rhs) | ('true',)
#   operands: ('reg', thread_index, name) | ('loc', name) | ('elem', buffer, index) | ('int', value)
Formula = tuple


@dataclass
class Condition:
    """``exists`` / ``~exists`` / ``forall`` with an optional ``filter`` (herd habits)."""

    quantifier: str  # 'exists' | 'not exists' | 'forall'
    formula: Formula
    filter: Formula | None = None
    span: Span | None = None


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
    params: dict = field(default_factory=dict)
    buffers: dict = field(default_factory=dict)
    # .ptx kernels: .shared variables name -> (type, count, element bytes); CTA c's copy is the
    # buffer 'name@ctaC'
    shared: dict = field(default_factory=dict)
