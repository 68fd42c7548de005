"""The dataflow and shared helpers of LLVM's folds (``ptxkit.fpsan.folds``): :class:`Flow` (definitions
and reads of a function's registers, the value kind of a bit move), the walk over a register's readers,
the float ``cvt`` shapes, and the report entry of a fold sanitized as a stated, decided or default form."""


from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import networkx as nx

from ptxkit import ir
from ptxkit.fpsan import ring as R
from ptxkit.fpsan.ctx import RewriteContext
from ptxkit.fpsan.irview import NO_DEST, regs, writes
from ptxkit.fpsan.libdevice_flow import LibRange, cfg
from ptxkit.fpsan.ops import (
    TABLE,
    OpInfo,
    elementwise,
    sign_xor_width,
)
from ptxkit.fpsan.options import FOLD_FORMS, Options
from ptxkit.fpsan.report import ERROR, NOTE, Verdict
from ptxkit.fpsan.source_ast import Decision
from ptxkit.fpsan.source_hints import SourceHints
from ptxkit.ptx.types import FLOAT_TYPES, SIGNED_TYPES, UNSIGNED_TYPES, is_float, is_type

MOVES = ("mov", "selp", "shfl")  # bit moves that carry a value unchanged (integer or untyped forms)


# untyped bit arithmetic: a value it computes is integer code, not a float's bits
BIT_OPS = frozenset({"shl", "shr", "bfe", "bfi", "prmt", "and", "or", "xor", "not", "add", "sub", "mul", "mad"})


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
    label_pos: dict[str, int] = field(default_factory=dict)
    types: dict[str, str] = field(default_factory=dict)  # declared register types (.reg .f32 %f<9>)
    hints: SourceHints = field(default_factory=SourceHints)  # the Python source at each .loc (source_hints)
    native: set[int] = field(default_factory=set)  # the lines recognised libdevice bodies run natively
    loops: set[int] = field(default_factory=set)  # those of bodies whose FPSan op is a loop (ring sin/cos)
    ranges: set[int] = field(default_factory=set)  # every line in a recognised body's range
    body_inputs: set[str] = field(default_factory=set)  # the registers recognised bodies' ring ops read
    doubled: set[str] = field(default_factory=set)  # body inputs replayed as two doublings (LibRange.doubled)
    bodies: dict[str, LibRange] = field(default_factory=dict)  # a recognised body's result register → its LibRange
    stmts: list[ir.Statement] = field(default_factory=list)  # the function's labels and instructions, in order
    bypassed: set[int] = field(default_factory=set)  # recognised bodies' special-case selects (LibRange.bypass)
    # readers to rewrite with other mods and operands (id → (mods, operands): ptxkit.fpsan.fold_self_add's split)
    rewired: dict[int, tuple[tuple[str, ...], tuple[ir.Operand, ...]]] = field(default_factory=dict)
    split: dict[str, str] = field(default_factory=dict)  # the fresh register of such a split → the add's own
    # registers a nested block declares (an inline asm's own ``.reg .f32 b<2>``, one per copy of the asm):
    # (block, name) → its writes there, and each instruction's (id) reads and writes of such names → their block
    local_defs: dict[tuple[int, str], list[ir.Instruction]] = field(default_factory=dict)
    local_scope: dict[int, dict[str, int]] = field(default_factory=dict)
    user_asm: dict[int, Any] | None = None  # the user's inline asm copies (ptxkit.fpsan.fold_user_asm), once computed

    @cached_property
    def graph(self) -> nx.DiGraph:
        """Control flow between positions in :attr:`stmts` (``libdevice_flow.cfg``), built once."""
        return cfg(self.stmts)

    @cached_property
    def dominators(self) -> dict[int, int]:
        """The immediate dominator of each statement position reachable from the function's start."""
        return nx.immediate_dominators(self.graph, 0) if self.stmts else {}

    @cached_property
    def stmt_pos(self) -> dict[int, int]:
        return {id(s): i for i, s in enumerate(self.stmts)}

    def read_by_bodies(self, reg: str, as_input: bool = False) -> bool:
        """Every reader of ``reg`` is a line of a body that runs natively, or a comparison inside a body's range (a
        test of a value it shares with another body, e.g. sinf's |x| < 105615 of the |x| tanhf computed: native, as
        every comparison): no ring value reads it — unless a body's ring op reads it as its argument (held-out seed
        44432: ``sin(abs(x.to(f64)).to(f32))``, the user's |x| hoisted to the load) — or, ``as_input``, where the
        ring op alone reads it, as an integer."""
        uses = self.uses.get(reg, [])
        return bool(uses) and (as_input or reg not in self.body_inputs) and all(
            u.span is not None and (u.span.line in self.native or (u.opcode == "setp" and u.span.line in self.ranges))
            for u in uses)

    def tests_bypassed(self, setp: ir.Instruction) -> FoldResult | None:
        """A comparison read only by recognised bodies' special-case selects, which keep their general arm whatever
        it says (held-out seed 29941: pow's x == 1 test on the bf16 x, sunk far from its body): no value reads it,
        so no fold of it matters; left native with a note (a report there hid a silent mismatch elsewhere)."""
        uses = [u for r in writes(setp) for u in self.uses.get(r, [])]
        if not uses or not all(id(u) in self.bypassed for u in uses):
            return None
        return FoldResult(False, Verdict("comparison read only by recognised libdevice bodies' special-case selects, "
                                         "which keep Triton's general case: left native", NOTE))

    @classmethod
    def of(cls, fn: ir.Function, types: dict[str, str] | None = None, hints: SourceHints | None = None) -> Flow:
        f = cls(types=types or {}, hints=hints or SourceHints())
        for s in fn.statements():
            f.stmts.append(s)
            if isinstance(s, ir.Label):
                f.labels.append(len(f.order))
                f.label_pos[s.name] = len(f.order)
            elif isinstance(s, ir.Instruction):
                f.pos[id(s)] = len(f.order)
                f.order.append(s)
                dest, srcs = roles(s)
                for r in dest:
                    f.defs.setdefault(r, []).append(s)
                for r in srcs:
                    f.uses.setdefault(r, []).append(s)
        f._scope_locals(fn.body or [])
        return f

    def _scope_locals(self, body: list[ir.Statement]) -> None:
        """Fill :attr:`local_defs` / :attr:`local_scope` for the registers nested blocks declare (iterative: blocks may
        nest deep)."""
        stack: list[tuple[dict[str, int], Iterator[ir.Statement]]] = [({}, iter(body))]
        while stack:
            names, it = stack[-1]
            for st in it:
                if isinstance(st, ir.Block):
                    inner = dict(names)
                    for d in st.body:
                        if isinstance(d, ir.RegDecl):
                            inner |= dict.fromkeys(d.expand(), id(st))
                    stack.append((inner, iter(st.body)))
                    break
                if isinstance(st, ir.Instruction) and names:
                    dest, srcs = roles(st)
                    seen = {r: names[r] for r in (*dest, *srcs) if r in names}
                    if seen:
                        self.local_scope[id(st)] = seen
                    for r in dest:
                        if r in names:
                            self.local_defs.setdefault((names[r], r), []).append(st)
            else:
                stack.pop()

    def only_def(self, reg: str, at: ir.Instruction | None = None) -> ir.Instruction | None:
        """``reg``'s one write; as ``at`` names it, where a nested block around ``at`` declares ``reg`` (ISA §10.1:
        the block's own register, so each copy of an inline asm has its own ``b0``)."""
        scope = self.local_scope.get(id(at), {}).get(reg) if at is not None else None
        d = self.defs.get(reg, []) if scope is None else self.local_defs.get((scope, reg), [])
        return d[0] if len(d) == 1 else None

    def unchanged_between(self, reg: str, first: ir.Instruction, last: ir.Instruction) -> bool:
        """``reg`` holds the same value at ``last`` as at ``first``: no write of it and no label between."""
        a, b = self.pos[id(first)], self.pos[id(last)]
        if not a < b or any(a < p <= b for p in self.labels):
            return False
        return not any(a < self.pos[id(d)] < b for d in self.defs.get(reg, []))

    def same_value(self, reg: str, first: ir.Instruction, last: ir.Instruction) -> bool:
        """:meth:`unchanged_between`, or, across labels, ``reg`` written only before ``first`` (a masked load's
        default and load too, held-out seed 24369), by instructions on no cycle of the control flow, which so run
        once (a body's cold block that jumps back to its join before them is no loop: held-out seed 62394, the later
        copies' fold missed silently)."""
        if self.unchanged_between(reg, first, last):
            return True
        ds = self.defs.get(reg, [])
        if not ds or not all(self.pos[id(d)] < self.pos[id(first)] < self.pos[id(last)] for d in ds):
            return False
        return not any(self.stmt_pos[id(d)] in self.cyclic for d in ds)

    @cached_property
    def cyclic(self) -> set[int]:
        """The statement positions on a cycle of :attr:`graph` (all of them where an indirect ``brx``, whose
        targets the graph lacks, may close one)."""
        if any(s.opcode == "brx" for s in self.order):
            return set(range(len(self.stmts)))
        g = self.graph
        return {n for c in nx.strongly_connected_components(g) for n in c if len(c) > 1 or g.has_edge(n, n)}

    def value_kind(self, seeds: Iterable[str], sign_tests: bool = True) -> str:
        """``float``, ``int`` or ``unknown``: the types of the instructions that define or read the
        registers connected to ``seeds`` by bit moves (mov/selp/shfl without a float type, sign xors).
        Without ``sign_tests``, a signed comparison with 0 (``setp.lt.s32 p, x, 0``: LLVM's signbit of a
        float as well as an integer's sign) tells nothing."""
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
                k = _kind_of(instr, r in roles(instr)[0])
                if k and (sign_tests or not is_sign_test(instr)):
                    kinds.add(k)
        return kinds.pop() if len(kinds) == 1 else "unknown"


def roles(instr: ir.Instruction) -> tuple[list[str], list[str]]:
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
    if not (sign_xor_width(instr) or (instr.opcode in MOVES and not any(m in FLOAT_TYPES for m in instr.mods))):
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


def fold_verdict(opts: Options, name: str, reason: str, form: str, decided: Decision | None = None) -> Verdict:
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


def doubled_input(instr: ir.Instruction, flow: Flow) -> Decision | None:
    """``add r, x, x`` whose r only the native lines of a recognised body read, which replays the source's two
    doublings of x as its arguments (``LibRange.doubled``, ``pow(x * 2.0, x + x)``): r's own form reaches nothing."""
    r = instr.operands[0]
    if not (isinstance(r, ir.Reg) and r.name in flow.doubled and all(
            u.span is not None and u.span.line in flow.native for u in flow.uses.get(r.name, []))):
        return None
    return Decision("add", "the call whose inlined body alone reads it; its arguments, x * 2.0 and x + x, are "
                           "replayed at the body's exit")


def decide_fold(opts: Options, name: str, hint: Callable[[ir.Instruction], Decision | None],
            instr: ir.Instruction) -> Decision | None:
    """The source's decision of fold ``name`` at ``instr``, unless the user stated the form (it wins) or
    turned the source hints off."""
    return hint(instr) if opts.source_hints and opts.fold(name) is None else None


def readers_of(flow: Flow, reg: str, stop: Callable[[ir.Instruction], bool],
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
            if not stop(u) and (u.opcode in MOVES or u.opcode in through):
                todo += regs(u.operands[0])


def reaches(flow: Flow, reg: str, reader: Callable[[ir.Instruction], bool], through: tuple[str, ...] = ()) -> bool:
    """Whether an instruction ``reader`` accepts reads ``reg``'s value (:func:`readers_of`): −max(a, b) feeding a
    min is LLVM's min(−a, −b), feeding a sub or an fma just a negation; |x| reaching a cast through a
    min/max was abs(x.to(T)) before LLVM narrowed the min/max (min(ext a, ext b) → ext(min(a, b)))."""
    return any(reader(u) for u in readers_of(flow, reg, reader, through))


def opcode_is(opcode: str) -> Callable[[ir.Instruction], bool]:
    return lambda u: u.opcode == opcode


def float_cast_reader(u: ir.Instruction) -> bool:
    return u.opcode == "cvt" and float_cast(u) is not None


def cast_dest(flow: Flow, reg: str) -> tuple[str | None, str | None]:
    """The one (destination, source) type pair of the float casts that read ``reg`` (through moves and
    min/max), if one; else (None, None)."""
    pairs = {t for u in readers_of(flow, reg, float_cast_reader, ("min", "max"))
             if float_cast_reader(u) and (t := float_cast(u)) is not None}
    return pairs.pop() if len(pairs) == 1 else (None, None)


def float_cast(cvt: ir.Instruction, packed: bool = False) -> tuple[str, str] | None:
    """(destination, source) types of a scalar float → float ``cvt`` without integer rounding (``packed``:
    also ``cvt.rn.{f16,bf16}x2.f32`` of two sources)."""
    types = [m for m in cvt.mods if is_type(m)]
    floats = ("f16", "bf16", "f32", "f64") + (("f16x2", "bf16x2") if packed else ())
    n = 3 if packed and types[:1] in (["f16x2"], ["bf16x2"]) else 2
    if (len(types) != 2 or not all(t in floats for t in types) or types[0] == types[1]
            or len(cvt.operands) != n or cvt.guard is not None or "sat" in cvt.mods or "relu" in cvt.mods):
        return None
    return types[0], types[1]


def cast_source(flow: Flow, cvt: ir.Instruction, at: ir.Instruction) -> tuple[str, str, ir.Reg] | None:
    """(destination, source type, source register) of a scalar float ``cvt`` whose source holds the same value at
    ``at`` (a fold that moves work from after the cast to before it reads the source there); else None."""
    types = float_cast(cvt)
    x = cvt.operands[1]
    if types is None or not isinstance(x, ir.Reg) or not flow.unchanged_between(x.name, cvt, at):
        return None
    return types[0], types[1], x


def float_cvt_chain(flow: Flow, o: ir.Operand, limit: int, at: ir.Instruction | None = None
                    ) -> tuple[ir.Operand, list[str]]:
    """The unguarded float ``cvt``\\ s (at most ``limit``) whose results define ``o`` in turn: (the value under them,
    its type then each cvt's destination type, innermost first); (o, []) where no cvt defines it. With ``at``, a
    source must hold the same value at ``at`` (its one definition, or no write between)."""
    types: list[str] = []
    while isinstance(o, ir.Reg) and len(types) < limit + 1:
        d = flow.only_def(o.name)
        t = float_cast(d) if d is not None and d.opcode == "cvt" and d.guard is None else None
        src = d.operands[1] if d is not None and t is not None else None
        if t is None or d is None or not isinstance(src, ir.Reg) or (at is not None and not (
                flow.only_def(src.name) is not None or flow.unchanged_between(src.name, d, at))):
            break
        types[:0] = [t[1]] if types else [t[1], t[0]]
        o = src
    return o, types


def widening_def(flow: Flow, o: ir.Operand) -> ir.Instruction | None:
    """The widening float ``cvt`` that alone defines ``o``; else None."""
    cvt = flow.only_def(o.name) if isinstance(o, ir.Reg) else None
    types = float_cast(cvt) if cvt is not None and cvt.opcode == "cvt" else None
    return cvt if types is not None and R.ring(types[0]).w > R.ring(types[1]).w else None


def narrowing_def(flow: Flow, o: ir.Operand, ft: str) -> tuple[ir.Instruction, str, str] | None:
    """The narrowing float ``cvt.FT.S`` that alone defines ``o``, with its types (FT, S); else None."""
    cvt = flow.only_def(o.name) if isinstance(o, ir.Reg) else None
    types = float_cast(cvt) if cvt is not None and cvt.opcode == "cvt" else None
    if cvt is None or types is None or types[0] != ft or R.ring(types[1]).w <= R.ring(ft).w:
        return None
    return cvt, types[0], types[1]


def is_sign_test(instr: ir.Instruction) -> bool:
    """``setp.{lt,ge}.sN p, x, 0``: the sign bit of x's bits (PTX ISA §9.7.3 setp), whatever x's type."""
    ops = instr.operands
    return (instr.opcode == "setp" and len(ops) == 3 and any(m in ("lt", "ge") for m in instr.mods)
            and any(m in ("s16", "s32", "s64") for m in instr.mods) and isinstance(ops[2], ir.Imm)
            and ops[2].value == 0)


def as_written_reported(instr: ir.Instruction, ctx: RewriteContext, ft: str, reason: str) -> FoldResult | None:
    """``instr`` as the ring op it is written as, with an error: the source says it may be another."""
    compute, nsrc = TABLE[instr.opcode]
    if not elementwise(instr, ctx, OpInfo(ft, None), compute, nsrc):
        return None
    return FoldResult(True, Verdict(reason, ERROR, native=False))
