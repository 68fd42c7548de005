"""Dataflow of a function for recognising inlined libdevice bodies (issue 10 A/B/C): the registers each
instruction reads and writes (:class:`Flow`, with calls of pure ``.func`` as dataflow through their
parameters), the ``.loc`` of each instruction, constants, and the forward taint of a body's inputs.
:class:`LibRange` is what every matcher returns (``libdevice_match``, ``libdevice_sincos``,
``libdevice_unmarked``)."""

from __future__ import annotations

from dataclasses import dataclass, field

import networkx as nx

from ptxkit import ir
from ptxkit.fpsan.bit_fields import bit_copies
from ptxkit.fpsan.irview import NO_DEST, regs, writes
from ptxkit.ptx.types import FLOAT_TYPES, SIGNED_TYPES, UNSIGNED_TYPES, type_bits


@dataclass
class LibRange:
    """An inlined libdevice body recognised as one FPSan op: lines [start_line, end_line) run natively
    and ``output = φ⁻¹(op(φ(inputs…)))`` is inserted at ``anchor`` (after it when it is the exit label,
    before it otherwise)."""

    name: str
    op: str
    start_line: int
    end_line: int
    input: str
    output: str
    anchor: ir.Statement
    inputs: tuple[str, ...] = field(default=())
    ftype: str = "f32"
    # the body updates its input in place (``mul.f64 x, x, 2^54``: __nv_log's subnormal scaling): x is
    # copied into ``saved`` before ``save`` (the body's first instruction) and the op reads the copy
    save: ir.Instruction | None = None
    saved: str = ""
    # an input the caller's one op computes inside the range (libdevice_match._recomputable): input → that op, whose
    # ring value is computed again at the exit
    remat: dict[str, ir.Instruction] = field(default_factory=dict)
    # out-of-line blocks of the body (LLVM lays __nv_powf's main path out after the ret): [lo, hi) line ranges
    extra: tuple[tuple[int, int], ...] = ()
    one_call: bool = False  # every float instruction from the start to the exit carries the same call .loc
    # the body's own lines in [start_line, end_line) (empty: all of them); other code LLVM scheduled in
    # between (the next copy's input conversion) is sanitized as usual
    lines: frozenset[int] = frozenset()
    # an input LLVM converts inside the body (the caller's ``abs(h).to(f32)`` of a half h sunk past the
    # body's ``y == 0`` exit, which tests h itself): input → the body's instructions that compute the
    # argument from it, replayed in the ring at the exit (held-out seeds 770, 802)
    sunk: dict[str, tuple[ir.Instruction, ...]] = field(default_factory=dict)
    # a sunk chain's abs that a float cvt reads: the order the source computes them in, told by the source
    # (``abs(x.to(T))``, which LLVM moved above the cast: ``inside``; ``abs(x).to(T)``: ``outside``; ``via-W``:
    # the abs at W; ``""``: undecided, replayed as written and reported). Keyed by the abs's id.
    abs_order: dict[int, str] = field(default_factory=dict)
    # a sunk chain's leading neg of a narrowing cvt's result (outside the chain): (the order the source says,
    # ``before`` for ``(-E).to(T)``, ``after`` for ``-(E.to(T))``, ``""`` undecided; the cvt). Keyed by the neg's id.
    neg_order: dict[int, tuple[str, ir.Instruction]] = field(default_factory=dict)
    # two inputs that are one ``add r, x, x`` where the source's call doubles x in two ways (``pow(x * 2.0, x + x)``):
    # (x, the form of each argument, ``mul2`` or ``add``), replayed as Triton's two ring values
    doubled: tuple[str, tuple[str, str]] | None = None
    # the body's special-case selects LLVM sank past user code (``selp d, 1.0, v, x == 0`` after pow(x, x)'s
    # caller): (select, v) — each is rewritten to ``d = v``, the general case Triton's single op computes
    bypass: tuple[tuple[ir.Instruction, str], ...] = ()
    # the lines after the exit of the selects and tests LLVM sank past it that still compute the body's result
    # (absorbed: ``setp.eq.f16 p, h, 0; selp.f64 r, 1.0, r, p`` of pow's y == 0): native like the body
    absorbed: frozenset[int] = frozenset()
    # another body that updates this one's input in place and copies it first: the op reads that copy (seed 12655)
    copy_of: LibRange | None = None
    # the saved input's sign is cleared for the native body, which LLVM compiled for a non-negative one
    # (ptxkit.fpsan.libdevice._sign_cleared_inputs)
    clear_sign: bool = False
    # a two-argument call other than pow whose argument order the source did not decide (reported)
    order_undecided: bool = False
    # a two-argument call whose inputs the source's call contradicts (an input defined in the other argument)
    inputs_disputed: bool = False

    def covers(self, line: int) -> bool:
        """``line`` runs natively as part of the body (the lines rewrite.py skips)."""
        if line in self.absorbed or any(a <= line < b for a, b in self.extra):
            return True
        return self.start_line <= line < self.end_line and (not self.lines or line in self.lines)


def native_lines(bodies: list[LibRange]) -> set[int]:
    """The lines that run natively as parts of recognised bodies (:meth:`LibRange.covers`)."""
    return {ln for r in bodies for a, b in ((r.start_line, r.end_line), *r.extra) for ln in range(a, b)
            if r.covers(ln)} | {ln for r in bodies for ln in r.absorbed}


def _raw_reads(s: ir.Instruction) -> set[str]:
    ops = () if s.opcode in ("bra", "brx") else s.operands if s.opcode in NO_DEST else s.operands[1:]
    out = {r for o in ops for r in regs(o)}
    if s.guard is not None:
        out.add(s.guard.pred)
    return out


def _raw_writes(s: ir.Instruction) -> set[str]:
    return set() if s.opcode in NO_DEST else set(writes(s))


_IMPURE = {"atom", "red", "bar", "barrier", "membar", "fence", "mbarrier", "cp", "multimem", "trap", "exit", "vote",
           "shfl", "match", "redux", "activemask", "wgmma", "tcgen05", "griddepcontrol", "prefetch", "suld", "sust",
           "tex", "tld4", "txq", "suq", "istypep", "nanosleep", "pmevent", "brkpt"}


def pure_functions(module: ir.Module) -> set[str]:
    """Functions with a body whose result is a function of their parameters: they write only local and
    param memory, read only those and constant memory (``ld.global.nc``/``ld.const`` of libdevice's
    tables), talk to no other thread and call only such functions (libdevice's ``__internal_accurate_pow``,
    ``__internal_trig_reduction_slowpathd``)."""
    calls: dict[str, set[str]] = {}
    for f in module.functions():
        if f.body is None or f.kind == "entry":
            continue
        ok, callees = True, set()
        for s in f.instructions():
            space = next((m for m in s.mods if m in ("global", "shared", "local", "param", "const", "generic")), "")
            if s.opcode in _IMPURE or (s.opcode == "st" and space not in ("local", "param")) or (
                    s.opcode == "ld" and space not in ("local", "param", "const") and "nc" not in s.mods):
                ok = False
                break
            if s.opcode == "call":
                callee = _callee(s)
                if callee is None:
                    ok = False
                    break
                callees.add(callee)
        if ok:
            calls[f.name] = callees
    while True:  # a function calling a function not known pure is not pure
        drop = {name for name, cs in calls.items() if not cs <= calls.keys()}
        if not drop:
            return set(calls)
        for name in drop:
            del calls[name]


def _callee(s: ir.Instruction) -> str | None:
    """The called function of ``call [(ret…),] f[, (params…)]`` (None: an indirect call)."""
    return next((o.name for o in s.operands if isinstance(o, ir.Sym)), None)


def _param_lists(s: ir.Instruction) -> tuple[list[str], list[str]]:
    """(return parameters, arguments) of a ``call``: the lists before and after the callee."""
    at = next(i for i, o in enumerate(s.operands) if isinstance(o, ir.Sym))
    lists = [(i, o) for i, o in enumerate(s.operands) if isinstance(o, ir.ParamList)]
    rets = [r for i, o in lists if i < at for r in regs(o)]
    args = [r for i, o in lists if i > at for r in regs(o)]
    return rets, args


class Flow:
    """Registers each instruction of a function reads (guard included) and writes, computed once.

    A call of a function of ``pure`` (:func:`pure_functions`) is dataflow too: ``st.param [p], r`` writes
    ``p#k`` (k: the call it prepares), the k-th ``call`` reads its arguments' ``p#k`` and writes its
    return parameters' ``q#k``, and ``ld.param r, [q]`` after it reads ``q#k`` (the callseq block of an
    inlined body that calls a ``.func``, e.g. ``__nv_pow`` → ``__internal_accurate_pow``)."""

    def __init__(self, fn: ir.Function, pure: set[str] | frozenset[str] = frozenset()):
        self.rw = {id(s): (_raw_reads(s), _raw_writes(s)) for s in fn.instructions()}
        self.top = {id(s) for s in fn.body or []}  # statements not nested in a { } block
        if pure:
            self._calls(fn, pure)
        self.loc: dict[int, tuple[str, ...]] = {}  # the ``.loc`` (file, line, col) in force at each instruction
        cur: tuple[str, ...] | None = None
        for s in fn.statements():
            if isinstance(s, ir.Directive) and s.name == "loc":
                # (an inlined body's ``.loc 1 8 17, function_name …, inlined_at …``: its column without the comma,
                # as the line-0 fix-up's ``.loc 1 0 17`` writes it; statement seed 3844, logf in a helper)
                cur = tuple(t.rstrip(",") for t in s.args.split()[:3])
            elif isinstance(s, ir.Instruction) and cur is not None:
                self.loc[id(s)] = cur
        self.imm = {s.operands[0].name: s.operands[1].bits for s in fn.instructions()
                    if s.opcode == "mov" and len(s.operands) == 2 and isinstance(s.operands[0], ir.Reg)
                    and isinstance(s.operands[1], ir.FloatImm)}
        # registers written once, by a float -> float ``cvt`` or a float ``neg`` of a register: LLVM may test
        # the source where the body tests the value (seed 171: ``x.to(f32) < 0`` as ``setp.geu.f64 p, x_f64,
        # -2^-150``; seed 181: ``-(x.to(f32)) == 1`` as ``setp.eq.f16 p, x, 0xBC00``)
        writers: dict[str, list[ir.Instruction]] = {}
        for s in fn.instructions():
            for r in self.rw[id(s)][1]:
                writers.setdefault(r, []).append(s)
        self.writers = writers
        self.readers: dict[str, list[ir.Instruction]] = {}
        for s in fn.instructions():
            for r in self.rw[id(s)][0]:
                self.readers.setdefault(r, []).append(s)
        self.pos = {id(s): i for i, s in enumerate(fn.statements())}
        self.order = list(fn.instructions())
        self._logic: list[ir.Instruction] | None = None
        self._copies: dict[str, str] | None = None
        labels = {s.name: self.pos[id(s)] for s in fn.statements() if isinstance(s, ir.Label)}
        # the earliest label a backward branch goes to that is on a cycle (a loop head): values may flow back past
        # it; a branch back from an out-of-line block the body jumps to after the label is no loop (held-out
        # seed 4267: powf's blocks after the ret, which hid tanhf's 1.0 register)
        back = [(labels[o.name], self.pos[id(s)]) for s in fn.instructions() if s.opcode in ("bra", "brx")
                for o in s.operands if isinstance(o, (ir.Sym, ir.Reg)) and o.name in labels
                and labels[o.name] <= self.pos[id(s)]]
        if back and not any(s.opcode == "brx" for s in fn.instructions()):
            g = cfg(list(fn.statements()))
            back = [(p, q) for p, q in back if nx.has_path(g, p, q)]
        self.loop_head = min((p for p, _ in back), default=None)
        self.targets = {o.name for s in fn.instructions() if s.opcode in ("bra", "brx") for o in s.operands
                        if isinstance(o, (ir.Sym, ir.Reg)) and o.name in labels}  # labels a branch goes to
        self.src = {r: a for r, w in writers.items() if len(w) == 1 and (a := _source_of(w[0])) is not None}
        # x + 0.0 (Triton's zero-initialised dot accumulator added to the mma result): the ring's x as well (φ(0) is
        # the ring's 0), and LLVM tests x itself for x + 0.0 < 0 (held-out seed 2739: powf's base test on the mma
        # register)
        for r, ws in writers.items():
            ops = ws[0].operands
            if (len(ws) == 1 and ws[0].opcode == "add" and ws[0].guard is None and len(ops) == 3
                    and any(m in FLOAT_TYPES for m in ws[0].mods) and r not in self.src):
                regs_ = [o for o in ops[1:] if isinstance(o, ir.Reg)]
                zeros = [o for o in ops[1:] if isinstance(o, ir.FloatImm) and o.bits == 0]
                if len(regs_) == 1 and len(zeros) == 1:
                    self.src[r] = regs_[0].name
        # a word unpacked from a packing of words is the packed word (held-out seed 2963: ``mov.b32 %r8,
        # {%rs1, %rs3}; mov.b32 {%rs18, %rs19}, %r8``, and __nv_exp's x < 0 test of x = %rs18 reads %rs1)
        for unpack in fn.instructions():
            if not (unpack.opcode == "mov" and unpack.guard is None and len(unpack.operands) == 2
                    and isinstance(unpack.operands[0], ir.Vec) and isinstance(unpack.operands[1], ir.Reg)):
                continue
            pack = writers.get(unpack.operands[1].name, [])
            if not (len(pack) == 1 and pack[0].opcode == "mov" and pack[0].guard is None
                    and isinstance(pack[0].operands[1], ir.Vec)
                    and len(pack[0].operands[1].items) == len(unpack.operands[0].items)):
                continue
            for d, w in zip(unpack.operands[0].items, pack[0].operands[1].items, strict=True):
                if isinstance(d, ir.Reg) and isinstance(w, ir.Reg) and len(writers.get(d.name, [])) == 1:
                    self.src.setdefault(d.name, w.name)

    def bit_twins(self, values: set[str]) -> set[str]:
        """Registers holding exactly the bits of one of ``values`` (or of a register they copy), moved there by
        integer data movement alone (:mod:`ptxkit.fpsan.bit_fields`; held-out seed 99907)."""
        if self._copies is None:  # (the original written before the copy only, outside loops: one value since)
            self._copies = {c: a for c, a in bit_copies(self.writers).items() if self.loop_head is None and all(
                self.pos[id(w)] < self.pos[id(self.writers[c][0])] for w in self.writers.get(a, []))}
        roots = {self._copies.get(v, v) for v in values}
        return {r for r, a in self._copies.items() if a in roots} | {a for v in values if (a := self._copies.get(v))}

    def sources(self, r: str) -> set[str]:
        """The registers ``r`` is computed from by float conversions, negations, abs, + 0.0 and word (un)packing alone
        (``src``; seed 862: powf of −|h| tests h == 0 on the half and computes 2x as −|h| − |h|)."""
        out: set[str] = set()
        while r in self.src and self.src[r] not in out:
            r = self.src[r]
            out.add(r)
        return out

    def sources_within(self, r: str, lo: int, hi: int) -> set[str]:
        """:meth:`sources` of ``r`` as it is between positions ``lo`` and ``hi``, where ``r`` has other writes only
        after ``hi`` (held-out seed 11450: ``exp(x.to(f64))`` tests the f32 x, and a later log2 body of the same
        value scales it in place), in a function without backward branches; else :meth:`sources`."""
        ws = self.writers.get(r, [])
        before = [w for w in ws if self.pos[id(w)] < lo]
        if (len(ws) < 2 or len(before) != 1 or self.loop_head is not None
                or any(lo <= self.pos[id(w)] <= hi for w in ws) or (a := _source_of(before[0])) is None):
            return self.sources(r)
        return {a} | self.sources(a)

    def _calls(self, fn: ir.Function, pure: set[str] | frozenset[str]) -> None:
        k, rets = 0, set()
        for s in fn.instructions():
            rd, wr = self.rw[id(s)]
            addr = s.operands[0 if s.opcode == "st" else 1] if len(s.operands) == 2 else None
            p = addr.base.name if isinstance(addr, ir.Addr) and isinstance(addr.base, ir.Sym) else None
            if s.opcode == "st" and "param" in s.mods and p is not None:
                self.rw[id(s)] = (rd, wr | {f"{p}#{k}"})
            elif s.opcode == "call":
                if _callee(s) in pure:
                    out, args = _param_lists(s)
                    guard = {s.guard.pred} if s.guard is not None else set()
                    self.rw[id(s)] = ({f"{a}#{k}" for a in args} | guard, {f"{r}#{k}" for r in out})
                    rets = set(out)
                else:
                    rets = set()
                k += 1
            elif s.opcode == "ld" and "param" in s.mods and p in rets:
                self.rw[id(s)] = (rd | {f"{p}#{k - 1}"}, wr)

    def logic(self) -> list[ir.Instruction]:
        """The unguarded integer/predicate logic and comparisons that read registers and write one register written
        nowhere else, in textual order (what a body's tests of its inputs can be; computed once per function)."""
        if self._logic is None:
            self._logic = [s for s in self.order if s.guard is None and self.reads(s) and len(self.writes(s)) == 1
                           and (s.opcode in ("setp", "testp") or not FLOAT_TYPES & set(s.mods))
                           and all(len(self.writers.get(r, ())) == 1 for r in self.writes(s))]
        return self._logic

    def same_call(self, s: ir.Instruction, t: ir.Instruction, merged: bool = False) -> bool:
        """``s`` carries the source location of ``t`` (line 0: compiler-made code of the same column):
        how an instruction LLVM sank past the exit shows it still belongs to the inlined call. ``merged``:
        column 0 of the same line too, where LLVM merged the columns of code it scheduled together (the
        tails of eight f64 sin copies, held-out seed 872), and line 0 column 0 (no location at all); not
        for a body's start, where the caller's argument conversion can carry such a location (seed 708)."""
        a, b = self.loc.get(id(s)), self.loc.get(id(t))
        if a is None or b is None or len(a) < 3 or len(b) < 3 or a[0] != b[0]:
            return False
        if merged and ("0", "0") in (a[1:3], b[1:3]):
            return True  # line 0, column 0: no location at all (held-out seed 1677: powf's y conversion, sunk)
        if a[1] == b[1]:
            return a[2] == b[2] or (merged and "0" in (a[2], b[2]))
        return a[2] == b[2] and "0" in (a[1], b[1])

    def float_imms(self, s: ir.Instruction) -> set[int]:
        """The float constants ``s`` reads, as immediates or through registers that hold one."""
        out = {o.bits for o in s.operands[1:] if isinstance(o, ir.FloatImm)}
        return out | {self.imm[o.name] for o in s.operands[1:] if isinstance(o, ir.Reg) and o.name in self.imm}

    def reads(self, s: ir.Instruction) -> set[str]:
        return self.rw[id(s)][0]

    def writes(self, s: ir.Instruction) -> set[str]:
        return self.rw[id(s)][1]


def _source_of(w: ir.Instruction) -> str | None:
    """x of ``w`` = a float conversion (not a rounding to an integer value: floor(x) is not x, seed 1266), an
    integer's conversion (log2f's x < 2^-126 test on x = i.to(f32) became i < 1, seed 1147), neg or abs of x."""
    if w.guard is not None or len(w.operands) != 2 or not isinstance(w.operands[1], ir.Reg):
        return None
    if ((w.opcode == "cvt" and sum(m in FLOAT_TYPES for m in w.mods) == 2
         and not {"rni", "rzi", "rmi", "rpi"} & set(w.mods))
            or (w.opcode == "cvt" and _int_to_float(w.mods))
            or (w.opcode in ("neg", "abs") and any(m in FLOAT_TYPES for m in w.mods))):
        return w.operands[1].name
    return None


def _int_to_float(mods: tuple[str, ...]) -> bool:
    """``cvt.rn.fT.{s,u}N``: an integer converted to a float."""
    fl = [i for i, m in enumerate(mods) if m in FLOAT_TYPES]
    it = [i for i, m in enumerate(mods) if m[:1] in ("s", "u") and m[1:].isdigit()]
    return len(fl) == 1 and len(it) == 1 and fl[0] < it[0] and not {"rni", "rzi", "rmi", "rpi"} & set(mods)


_DATA_MOVES = frozenset({"ld", "ldu", "ldmatrix", "shfl"})


def data_move(s: ir.Instruction) -> bool:
    """A load, shuffle, or a word (un)packing ``mov.b32 {lo, hi}, r`` of one: the layout feeding a body, not work."""
    return s.opcode in _DATA_MOVES or (s.opcode == "mov" and any(isinstance(o, ir.Vec) for o in s.operands))


def sign_op_of(flow: Flow, r: str, op: str) -> str | None:
    """x when ``r`` is written once, by ``OP.fT r, x`` (``op``: abs or neg)."""
    w = flow.writers.get(r, [])
    x = w[0].operands[1] if len(w) == 1 and w[0].opcode == op and is_float(w[0]) else None
    return x.name if isinstance(x, ir.Reg) else None


def signs_of(flow: Flow, values: set[str], inside: set[int] | frozenset[int] = frozenset()) -> set[str]:
    """Registers written, unguarded, by a float ``abs``/``neg`` of one of ``values``: once, or first and then only by
    instructions in ``inside`` (a body's phi LLVM coalesced with it: erf's |x|-or-x², held-out seed 12199) or by
    copies of it (held-out seed 168861: pow(s, exp2(s))'s |s|, which LLVM put in both arms of exp2's branch)."""
    return {r for v in values for t in flow.readers.get(v, ()) if t.opcode in ("abs", "neg") and is_float(t)
            and t.guard is None for r in flow.writes(t)
            if (ws := flow.writers.get(r, [])) and ws[0] is t and all(
                id(w) in inside or (w.opcode, w.mods, w.operands, w.guard) == (t.opcode, t.mods, t.operands, None)
                for w in ws[1:])}



def words(flow: Flow, r: str) -> set[str]:
    """The registers an unguarded ``mov.b64 {lo, hi}, r`` writes (each written once)."""
    return {w for s in flow.readers.get(r, ()) if s.opcode == "mov" and s.guard is None and len(s.operands) == 2
            and isinstance(s.operands[0], ir.Vec) and s.operands[1] == ir.Reg(r)
            for w in flow.writes(s) if len(flow.writers.get(w, ())) == 1}


def is_float(s: ir.Instruction) -> bool:
    return s.opcode == "xor" or any(m in FLOAT_TYPES for m in s.mods)


def constants(fn: ir.Function) -> set[str]:
    """Registers every definition of which moves an immediate, or a vector of immediates and such
    registers (libdevice's coefficients, hoisted and shared between copies; ``mov.b64 d, {lo, hi}``)."""
    defs: dict[str, list[ir.Operand | None]] = {}
    for s in fn.instructions():
        for r in _raw_writes(s):
            plain = s.opcode == "mov" and s.guard is None and len(s.operands) == 2
            defs.setdefault(r, []).append(s.operands[1] if plain else None)

    def const(o: ir.Operand | None, known: set[str]) -> bool:
        if isinstance(o, (ir.Imm, ir.FloatImm)):
            return True
        if isinstance(o, ir.Reg):
            return o.name in known
        return isinstance(o, ir.Vec) and all(const(i, known) for i in o.items)

    known: set[str] = set()
    while True:
        more = {r for r, srcs in defs.items() if r not in known and all(const(o, known) for o in srcs)}
        if not more:
            return known
        known |= more


def forward_taint(flow: Flow, body: list[ir.Instruction], taint: set[str]) -> set[str]:
    """Everything ``body`` computes from ``taint``: forward passes to a fixpoint (the body has loops)."""
    rw = [flow.rw[id(s)] for s in body]
    while True:
        n = len(taint)
        for reads, writes_ in rw:
            if reads & taint:
                taint |= writes_
        if len(taint) == n:
            return taint


def taint_with_memory(flow: Flow, body: list[ir.Instruction], taint: set[str]) -> set[str]:
    """:func:`forward_taint`, and through the body's local memory: once a ``st.local`` stores a tainted value
    (or at a tainted address) every ``ld.local`` of the body reads taint (sinf's reduction buffer)."""
    taint = set(taint)
    while True:
        n = len(taint)
        taint = forward_taint(flow, body, taint)
        if any(s.opcode == "st" and "local" in s.mods and flow.reads(s) & taint for s in body):
            taint |= {r for s in body if s.opcode == "ld" and "local" in s.mods for r in flow.writes(s)}
        if len(taint) == n:
            return taint


def line(s: ir.Statement) -> int:
    assert s.span is not None
    return s.span.line


def constants_before(flow: Flow, body: list[ir.Instruction]) -> set[str]:
    """Registers the body reads that hold an immediate there: every write before the body's first
    instruction, and in the body, moves one (``%r328``: 1.0 for the user's 1/3, then the result of the next
    copy). Only in a function without backward branches before the body: no later write flows back."""
    p0 = flow.pos[id(body[0])]
    if flow.loop_head is not None and flow.loop_head <= p0:
        return set()
    ids = {id(s) for s in body}
    out: set[str] = set()
    for r in {r for s in body for r in flow.reads(s)}:
        ws = [w for w in flow.writers.get(r, []) if flow.pos[id(w)] < p0 or id(w) in ids]
        if ws and all(w.opcode == "mov" and w.guard is None and len(w.operands) == 2
                      and isinstance(w.operands[1], (ir.Imm, ir.FloatImm)) for w in ws):
            out.add(r)
    return out


def immediates_at(flow: Flow, s: ir.Instruction) -> set[str]:
    """Registers ``s`` reads that hold an immediate there: every write before ``s`` moves one (``%r573``:
    tanhf's 1.0, later reused for a pow result: held-out seed 718). Only without backward branches before
    ``s``: no later write flows back."""
    p = flow.pos[id(s)]
    if flow.loop_head is not None and flow.loop_head <= p:
        return set()
    out: set[str] = set()
    for r in flow.reads(s):
        ws = [w for w in flow.writers.get(r, []) if flow.pos[id(w)] < p]
        if ws and all(w.opcode == "mov" and w.guard is None and len(w.operands) == 2
                      and isinstance(w.operands[1], (ir.Imm, ir.FloatImm)) for w in ws):
            out.add(r)
    return out


def cfg(stmts: list[ir.Statement]) -> nx.DiGraph:
    """Control flow between statement positions (fall-through, branches to labels; ret/exit end a path)."""
    pos = {s.name: i for i, s in enumerate(stmts) if isinstance(s, ir.Label)}
    g = nx.DiGraph()
    g.add_nodes_from(range(len(stmts)))
    for j, s in enumerate(stmts):
        ends = isinstance(s, ir.Instruction) and (s.opcode in ("ret", "exit")
                                                  or (s.opcode == "bra" and s.guard is None))
        if not ends and j + 1 < len(stmts):
            g.add_edge(j, j + 1)
        if isinstance(s, ir.Instruction) and s.opcode == "bra":
            g.add_edges_from((j, pos[o.name]) for o in s.operands if isinstance(o, (ir.Sym, ir.Reg)) and o.name in pos)
    return g


INT_TYPES = SIGNED_TYPES | UNSIGNED_TYPES


def chain_types(s: ir.Instruction) -> tuple[str, str] | None:
    """(destination, source) types of a float → float ``cvt`` without integer rounding, of an integer → float
    ``cvt`` (native in Triton's FPSan), or of a float ``neg``/``abs`` (the same type twice); else None."""
    types = [m for m in s.mods if m in FLOAT_TYPES]
    if s.guard is not None or len(s.operands) != 2 or not isinstance(s.operands[1], ir.Reg):
        return None
    if s.opcode == "cvt" and len(types) == 2 and not {"rni", "rzi", "rmi", "rpi"} & set(s.mods):
        return types[0], types[1]
    ints = [m for m in s.mods if m in INT_TYPES]
    if s.opcode == "cvt" and len(types) == 1 and len(ints) == 1 and s.mods.index(types[0]) < s.mods.index(ints[0]):
        return types[0], ints[0]  # i.to(f32) of an integer (seed 1267: pow's exponent, sunk past y == 0)
    if s.opcode in ("neg", "abs") and len(types) == 1:
        return types[0], types[0]
    return None


def converted_into(flow: Flow, rng: list[ir.Instruction], r: str, ftype: str) -> bool:
    """Conversions of the range take ``r`` to a value of ``ftype``'s width that other float work there reads."""
    chain = [(s, t[0]) for s in rng if (t := chain_types(s)) is not None]
    vals = {r}
    for _ in range(3):
        vals |= {w for s, _ in chain if flow.reads(s) & vals for w in flow.writes(s)}
    wide = {w for s, dt in chain if flow.reads(s) & vals and type_bits(dt) == type_bits(ftype) for w in flow.writes(s)}
    return any(is_float(s) and not chain_types(s) and flow.reads(s) & wide for s in rng)


def self_add(s: ir.Instruction, ftype: str) -> bool:
    """``add.FTYPE d, x, x``."""
    return (s.opcode == "add" and ftype in s.mods and len(s.operands) == 3
            and isinstance(s.operands[1], ir.Reg) and s.operands[1] == s.operands[2])
