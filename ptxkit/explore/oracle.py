"""Oracle-driven thread execution for `explore` (litmus tests lowered by ptxkit.litmus, real kernels).

A thread runs alone; every load / atomic read asks the *oracle* for its value, and the runner forks
once per value the oracle offers (the values some write to that physical location can produce,
initial value included — ``ptxkit.explore.engine`` grows these sets to a fixpoint). Each complete
run is a :class:`Trace`: the thread's events in program order with their values, dependencies and
final registers.

One execution core (ISA §9.7): every instruction that neither touches memory nor transfers control
is evaluated by the simulator's own semantics (``ptxkit.exec_sim.semantics`` through
:class:`ptxkit.exec_sim.lane.LaneEval`, bound once per instruction) on a one-lane register file;
this module only schedules — memory accesses (through the oracle), fences, barriers and branches —
and tracks which reads each value depends on, from the instruction's uses and defs
(``ptxkit.ptx.isa``). Register values are the registers' raw bits; litmus registers (untyped, Dat3M)
are 32-bit and read back as signed integers. Addresses stay symbolic: a location name (litmus
``&x``) or ``('ptr', buffer, byte offset)`` (kernel buffers, ``.shared`` arrays); only moves,
``add``/``sub`` of an integer offset, ``selp`` and ``setp.eq/ne`` accept them.

Vector accesses ``ld/st.v2/.v4`` (ISA §8.2.2 "vector data types": a set of scalar accesses "executed
in an unspecified order") become one event per element, explored in every element order.
``shfl.sync`` (real kernels) gets its result from the oracle too: the value the source lane offered
at its matching (k-th) shfl.sync; ``explore`` keeps the combinations of thread traces whose
exchanges agree and turns the received value's dependencies into cross-thread ``dep`` edges.
Other warp-collective instructions (vote, match, redux, activemask, …), calls and async copies are
refused with a located error.

Loops (ISA §9.7.12 ``bra``): a back edge whose iteration did nothing but read memory (no write, RMW or
barrier) and left every register live at the loop head unchanged is a *spin* iteration: any execution
through it has the same outcome as one without it, and dropping reads only removes edges from the
model's relations (all axioms are acyclicity/emptiness constraints), so the path is pruned soundly.
Any other back edge counts towards ``unroll``; exceeding it cuts the path and marks the exploration
incomplete (verdict Inconclusive).
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from typing import Any, NoReturn, TypeVar, cast

import numpy as np

from ptxkit import ir
from ptxkit.consistency.vocab import rmw_split
from ptxkit.errors import Diagnostic, PtxkitError
from ptxkit.exec_sim.atomics import apply_atomic
from ptxkit.exec_sim.lane import LaneEval
from ptxkit.exec_sim.values import const_of, float_const
from ptxkit.explore.access import PROXY_OF, access_bytes, is_ptr, resolve, sem_scope, type_of
from ptxkit.explore.analysis import CC, Flow, dataflow, liveness, register_types
from ptxkit.explore.program import ConcurrentProgram, ThreadProgram
from ptxkit.explore.trace import Dep, Ev, Oracle, Provide, Ptr, RunStats, ShflIn, ShflOut, Trace, Value
from ptxkit.ir import Addr, FloatImm, Imm, Instruction, Label, Operand, Reg, Sym, Vec
from ptxkit.ptx.types import type_bits

_C = TypeVar("_C")

LOADS = ("ld", "ldu", "tld", "suld")
STORES = ("st", "sust")
RMWS = ("atom", "suatom", "red", "sured")
# instructions whose result comes from other lanes of the warp (shfl.sync excepted: oracle-supplied)
WARP_OPS = ("shfl", "vote", "match", "redux", "activemask", "elect", "ldmatrix", "mma", "wmma")
HINTS = ("prefetch", "prefetchu", "applypriority", "nanosleep", "pmevent")
LITMUS_BITS = 32          # litmus registers: 32-bit (the lowering types local arithmetic .s32)
_EMPTY: frozenset[Dep] = frozenset()
_NOFLOW: Flow = (frozenset(), frozenset())


@dataclass
class _State:
    pc: int
    regs: dict[str, Value]
    taint: dict[str, frozenset[Dep]]
    ctrl: frozenset[Dep]
    events: list[Ev]
    # label index -> (n_events, live regs, n_shfl)
    hdr: dict[int, tuple[int, tuple[Value, ...], int]] = field(default_factory=dict)
    back: dict[int, int] = field(default_factory=dict)     # label index -> back-edge count
    shfl_out: list[ShflOut] = field(default_factory=list)
    shfl_in: list[ShflIn] = field(default_factory=list)

    def fork(self) -> _State:
        return _State(self.pc, dict(self.regs), dict(self.taint), self.ctrl, list(self.events),
                      dict(self.hdr), dict(self.back), list(self.shfl_out), list(self.shfl_in))


def _branch(s: _State, work: list[_State], choices: Sequence[_C], take: Callable[[_State, _C], None]) -> None:
    """One state per choice: ``s`` takes the first; each other one is taken by a fork of ``s``, which
    moves past the instruction and waits in ``work``."""
    for c in choices[1:]:
        f = s.fork()
        take(f, c)
        f.pc += 1
        work.append(f)
    take(s, choices[0])


class ThreadRunner:
    """Runs one thread against an oracle (``values(loc) -> iterable of ints``)."""

    def __init__(self, prog: ConcurrentProgram, th: ThreadProgram, live_out: set[str], unroll: int):
        self.prog = prog
        self.ptx = prog.semantics == "ptx"
        self.th = th
        self.body = [s for s in th.body if isinstance(s, (Instruction, Label))]
        self.labels = {s.name: i for i, s in enumerate(self.body) if isinstance(s, Label)}
        for s in self.body:
            if isinstance(s, Instruction) and s.opcode == "bra":
                tgt = s.operands[0] if s.operands else None
                if not isinstance(tgt, Sym) or tgt.name not in self.labels:
                    self._err(s, f"branch to an unknown label {getattr(tgt, 'name', tgt)!r}")
        self.unroll = unroll
        self.flow = [dataflow(s) if isinstance(s, Instruction) else _NOFLOW for s in self.body]
        self.reg_types = register_types(th.body, self.body, self.ptx, th.init_regs, self._err, self._vector_err)
        self.module = ir.Module(prog.source or "", prog.filename, [])
        self._lanes: dict[object, LaneEval] = {}
        # shfl.sync partners: (CTA, warp, lane) -> thread index (ISA §10: %warpid, %laneid)
        self.lane_of = {(t.cta, t.init_regs.get("%warpid"), t.init_regs.get("%laneid")): t.index
                        for t in prog.threads if "%laneid" in t.init_regs}
        self.provide: Provide = lambda key, value: None
        self.live_in = liveness(self.body, self.labels, self.flow, live_out)

    # ------------------------------------------------------------------ static analysis

    def _err(self, ins: Instruction, msg: str) -> NoReturn:
        sp = ins.span
        src = None
        if sp is not None and self.prog.source:
            lines = self.prog.source.split("\n")  # only \n ends a line (splitlines also splits on \f, U+2028 …)
            src = lines[sp.line - 1] if 0 < sp.line <= len(lines) else None
        raise PtxkitError(Diagnostic(self.prog.filename, sp.line if sp else 0, sp.col if sp else 0,
                                     msg, src))

    def _vector_err(self, s: ir.RegDecl) -> None:
        raise PtxkitError(Diagnostic(self.prog.filename, s.span.line if s.span else 0,
                                     s.span.col if s.span else 0,
                                     "explore: vector registers are not supported", None))

    def _reg_bits(self, name: str) -> int:
        t = self.reg_types.get(name)
        if t is None:
            return LITMUS_BITS if not self.ptx else 32
        return 1 if t == "pred" else max(type_bits(t), 8)

    # ------------------------------------------------------------------ execution
    def run(self, values: Oracle, stats: RunStats, provide: Provide | None = None) -> list[Trace]:
        """Every run of the thread under the oracle ``values``. ``provide(key, value)`` is told the
        value each ``shfl.sync`` offers to the other lanes; ``values(key)`` for that key answers what
        a lane may receive (``key = ('shfl', cta, warp, k, lane)``: lane's k-th shfl.sync)."""
        if provide is not None:
            self.provide = provide
        init: dict[str, Value] = dict(self.th.init_regs)
        st = _State(0, init, {}, frozenset(), [])
        out: list[Trace] = []
        work = [st]
        while work:
            if stats.deadline is not None and time.monotonic() > stats.deadline:
                stats.cut, stats.cut_reason = True, "--timeout reached while running threads"
                break
            s = work.pop()
            try:
                self._step(s, values, stats, work, out)
            except PtxkitError:
                raise
            except (AssertionError, KeyError, TypeError, IndexError, ValueError, AttributeError) as e:
                # an instruction form outside what explore supports: report it where it is
                ins = self.body[s.pc] if s.pc < len(self.body) else None
                if isinstance(ins, Instruction):
                    self._err(ins, f"explore: unsupported form of '{'.'.join((ins.opcode, *ins.mods))}'"
                                   f" ({type(e).__name__}: {e})")
                raise
        # identical runs (same events, values, dependencies and registers) give identical
        # candidates: keep one (a sound deduplication)
        uniq: dict[Hashable, Trace] = {}
        for n, tr in enumerate(out):
            if n % 1024 == 0 and stats.deadline is not None and time.monotonic() > stats.deadline:
                stats.cut, stats.cut_reason = True, "--timeout reached while running threads"
                break  # the result is Inconclusive: what was kept does not matter
            key = (tuple((e.kind, e.loc, e.vaddr, e.value, e.sem, e.scope, e.fkind, e.bar, e.rmw_read,
                          e.deps, e.ctrl, id(e.instr)) for e in tr.events),
                   tuple(sorted((k, repr(v)) for k, v in tr.regs.items())),
                   tuple((k, repr(v), t) for k, v, t, _ in tr.shfl_out),
                   tuple((k, src, repr(v)) for k, src, v, _ in tr.shfl_in))
            uniq.setdefault(key, tr)
        return list(uniq.values())

    # ------------------------------------------------------------------ values
    def _val(self, s: _State, o: Operand, typ: str | None = None) -> tuple[Any, frozenset[Dep]]:
        """An operand's value (raw bits for registers of real kernels) and the reads it depends on."""
        if isinstance(o, Imm):
            return (self._imm_bits(o, typ) if self.ptx else o.value), _EMPTY
        if isinstance(o, FloatImm) and self.ptx and typ is not None:
            return self._imm_bits(o, typ), _EMPTY
        if isinstance(o, Reg):
            return s.regs.get(o.name, 0), s.taint.get(o.name, _EMPTY)
        if isinstance(o, Sym) and self.ptx and o.name in self.prog.shared:  # mov %r, sharedvar
            return self._shared_ptr(o.name), _EMPTY
        raise TypeError(f"operand {o} is not a register or a constant")

    @staticmethod
    def _imm_bits(o: Imm | FloatImm, typ: str | None) -> int:
        """A literal as the raw bits of ``typ`` (ISA §4.5: integer literals wrap, float literals
        are rounded to the type)."""
        if typ is None or typ == "pred":
            return o.value if isinstance(o, Imm) else o.bits
        c = const_of(o.value, typ) if isinstance(o, Imm) else float_const(o.bits, o.width, typ)
        a = np.asarray(c)
        return int(a.view(f"u{a.dtype.itemsize}")) if a.dtype != np.bool_ else int(a)

    def _from_raw(self, name: str, raw: int) -> int:
        """A result's raw bits as the runner keeps them: raw for kernels; signed for litmus registers
        (Dat3M's integers; predicates 0/1)."""
        if self.ptx or name == CC or self.reg_types.get(name) == "pred":
            return raw
        return raw - (1 << LITMUS_BITS) if raw >> (LITMUS_BITS - 1) else raw

    def _set(self, s: _State, dst: Operand, v: Value, taint: frozenset[Dep]) -> None:
        name = _reg(dst)
        s.regs[name] = v
        s.taint[name] = taint

    # ------------------------------------------------------------------ addresses
    def _addr(self, s: _State, ins: Instruction, o: Operand,
              n: int = 1) -> tuple[list[tuple[str, str]], frozenset[Dep]]:
        """The ``n`` element locations ``(physical, virtual)`` an access to ``o`` touches, and the
        reads its address depends on."""
        if not isinstance(o, Addr):
            self._err(ins, "expected a memory operand")
        if isinstance(o.base, Sym):
            name, dep = o.base.name, _EMPTY
            if self.ptx:
                if name in self.prog.shared:
                    return self._element(ins, self._shared_ptr(name), o.offset, n), dep
                self._err(ins, f"{name!r}: only buffers passed with --arg and .shared arrays can be accessed")
        elif isinstance(o.base, Reg):
            name, dep = self._val(s, o.base)
            if isinstance(name, tuple):  # ('ptr', buffer, byte offset) in a real kernel
                return self._element(ins, name, o.offset, n), dep
            if not isinstance(name, str):
                self._err(ins, f"register {o.base.name} does not hold an address (value {name})")
        else:
            self._err(ins, "absolute addresses are not supported")
        if o.offset:
            self._err(ins, "address offsets are not supported in litmus tests")
        if n != 1:
            self._err(ins, "vector accesses are not supported in litmus tests")
        locs = self.prog.locations
        if name not in locs:
            self._err(ins, f"unknown location {name!r}")
        return [resolve(locs, name)], dep

    def _shared_ptr(self, name: str) -> Ptr:
        return ("ptr", f"{name}@cta{self.th.cta}", 0)

    def _element(self, ins: Instruction, ptr: Ptr, offset: int, n: int) -> list[tuple[str, str]]:
        _, buf, off = ptr
        ty, count, esize = self.prog.buffers[buf]
        off += offset
        size = access_bytes(ins.mods)
        if size is not None and size != esize:
            self._err(ins, f"{size}-byte access to {buf}, a buffer of {esize}-byte {ty} elements")
        if off % (esize * n):  # a vector access is aligned to its whole size (ISA §5.4.5)
            self._err(ins, f"access to {buf} at byte offset {off}: misaligned")
        first = off // esize
        if not (first >= 0 and first + n <= count):
            self._err(ins, f"access to {buf} at byte offset {off}: outside {ty}[{count}]")
        return [(f"{buf}[{i}]", f"{buf}[{i}]") for i in range(first, first + n)]

    def _ev(self, s: _State, kind: str, ins: Instruction, **kw: Any) -> Ev:
        th = self.th
        return Ev(kind=kind, tid=th.index, cta=th.cta, gpu=th.gpu, ctrl=s.ctrl, instr=ins, **kw)

    # ------------------------------------------------------------------ the scheduler
    def _step(self, s: _State, values: Oracle, stats: RunStats, work: list[_State], out: list[Trace]) -> None:
        body = self.body
        while s.pc < len(body):
            ins = body[s.pc]
            if isinstance(ins, Label):
                s.hdr[s.pc] = (len(s.events), tuple(s.regs.get(r, 0) for r in sorted(self.live_in[s.pc])),
                               len(s.shfl_out))
                s.pc += 1
                continue
            op, mods = ins.opcode, ins.mods
            if ins.guard is not None and op != "bra":
                pv, pt = s.regs.get(ins.guard.pred, 0), s.taint.get(ins.guard.pred, _EMPTY)
                s.ctrl = s.ctrl | pt  # later events depend on the predicate's reads
                if bool(pv) == ins.guard.negated:
                    s.pc += 1
                    continue
            if op in ("ret", "exit", "trap"):
                break
            if op == "bra":
                take = True
                if ins.guard is not None:
                    pv, pt = s.regs.get(ins.guard.pred, 0), s.taint.get(ins.guard.pred, _EMPTY)
                    s.ctrl = s.ctrl | pt
                    take = bool(pv) != ins.guard.negated
                if not take:
                    s.pc += 1
                    continue
                tgt = self.labels[_target(ins)]
                if tgt <= s.pc:  # back edge
                    prev = s.hdr.get(tgt)
                    if prev is not None:
                        it = s.events[prev[0]:]
                        # (a shfl.sync exchange pairs with the other lanes' k-th one: never dropped)
                        pure = all(e.kind == "R" or (e.kind == "F" and e.fkind != "bar") for e in it) \
                            and not any(e.rmw_read is not None for e in it) and len(s.shfl_out) == prev[2]
                        now = tuple(s.regs.get(r, 0) for r in sorted(self.live_in[tgt]))
                        if pure and now == prev[1]:
                            stats.spins_pruned += 1
                            line = f" (line {ins.span.line})" if ins.span is not None else ""
                            stats.spin_at.setdefault(self.th.index, f"{_target(ins)}{line}")
                            return
                    n = s.back.get(tgt, 0) + 1
                    if n > self.unroll:
                        stats.cut = True
                        stats.cut_reason = (f"P{self.th.index}: loop at {_target(ins)} "
                                           f"unrolled {self.unroll} times")
                        return
                    s.back[tgt] = n
                s.pc = tgt
                continue
            if op == "ld" and "param" in mods:
                o = ins.operands[1]
                name = o.base.name if isinstance(o, Addr) and isinstance(o.base, Sym) else None
                if name is None or name not in self.prog.params:
                    self._err(ins, f"unknown parameter {name!r} (give it with --arg)")
                pv = self.prog.params[name]
                if isinstance(o, Addr) and o.offset:
                    self._err(ins, "parameter offsets are not supported")
                self._set(s, ins.operands[0], pv, _EMPTY)
            elif op in LOADS:
                if not self._load(s, ins, values, work):
                    return
            elif op in STORES:
                self._store(s, ins, work)
            elif op in RMWS:
                is_red = op in ("red", "sured")
                a_op = ins.operands[0] if is_red else ins.operands[1]
                [(loc, vaddr)], adep = self._addr(s, ins, a_op)
                rest = ins.operands[1:] if is_red else ins.operands[2:]
                choices = list(values(loc))
                if not choices:
                    return
                # the lambda runs inside _branch, before the loop moves on
                _branch(s, work, choices,
                        lambda t, v: self._rmw(t, ins, is_red, loc, vaddr, adep, rest, v))  # noqa: B023
            elif op == "membar":
                scope = {"cta": "cta", "gl": "gpu", "sys": "sys"}.get(mods[0] if mods else "gl", "gpu")
                s.events.append(self._ev(s, "F", ins, fkind="sc", sem="sc", scope=scope))
            elif op == "fence":
                if mods[0] == "proxy":
                    fk = "alias" if mods[1] == "alias" else "proxy"
                    proxy = {"generic": "GEN", "surface": "SUR", "texture": "TEX", "constant": "CON",
                             "alias": "GEN"}[mods[1]]
                    s.events.append(self._ev(s, "F", ins, fkind=fk, proxy=proxy))
                else:
                    sem = mods[0]
                    scope = mods[1] if len(mods) > 1 else "sys"
                    s.events.append(self._ev(s, "F", ins, fkind=sem, sem=sem, scope=scope))
            elif op in ("bar", "barrier"):
                vals = [self._val(s, o)[0] for o in ins.operands]
                warp = None
                if self.ptx:  # bar{.cta}.sync a{, b}: barrier a, b threads (ISA §9.7.13.1)
                    ids, count = (vals[0],) if vals else (0,), (vals[1] if len(vals) > 1 else None)
                    mods = tuple(m for m in mods if m != "aligned") or ("sync",)
                    # barriers are executed per warp: the arrival count grows by the warp size
                    # for each warp, whatever its number of active lanes (ISA §9.7.13.1), so
                    # explore.barrier_schedules counts the distinct warps of an instance
                    warp = self.th.init_regs.get("%warpid", 0)
                else:  # Dat3M: bar.cta.sync a[, b[, c]] — id (a, b), quorum c (in threads)
                    count = vals[2] if len(vals) == 3 else None
                    ids = tuple(vals[:2])
                s.events.append(self._ev(s, "F", ins, fkind="bar", scope="cta",
                                         bar=(ids, count, mods[-1], warp)))
            elif op == "shfl" and self.ptx:
                if not self._shfl(s, ins, values, work):
                    return
            elif op in HINTS:
                pass  # performance hints: no effect on values or on the memory model
            elif op in WARP_OPS or op in ("call", "brx", "cp", "discard", "mbarrier", "tensormap", "mapa",
                                          "getctarank"):
                self._err(ins, f"explore: '{'.'.join((op, *mods))}' is not supported (threads run alone "
                               "under an oracle; this instruction needs other lanes, memory copies or calls)")
            else:
                self._compute(s, ins)
            s.pc += 1
        out.append(Trace(self.th.index, tuple(s.events), dict(s.regs), tuple(s.shfl_out), tuple(s.shfl_in)))

    # ------------------------------------------------------------------ local computation
    def _lane(self, ins: Instruction) -> LaneEval:
        ev = self._lanes.get(id(ins))
        if ev is None:
            ev = self._lanes[id(ins)] = LaneEval(ins, self.reg_types, self.module,
                                                 default="b32")
        return ev

    def _compute(self, s: _State, ins: Instruction) -> None:
        """A non-memory instruction: the simulator's semantics on one lane; every register it
        writes depends on the reads its sources depend on (ISA §8.10.4 data dependencies)."""
        uses, _ = self.flow[s.pc]
        taint = _EMPTY
        for r in uses:
            t = s.taint.get(r)
            if t:
                taint = taint | t
        srcs = ins.operands[1:]
        if any(is_ptr(s.regs.get(o.name)) if isinstance(o, Reg) else
               (isinstance(o, Sym) and self.ptx and o.name in self.prog.shared) for o in srcs):
            self._pointer_op(s, ins, taint)
            return
        for r in uses:
            if is_ptr(s.regs.get(r)):
                self._err(ins, f"arithmetic on an address (register {r}) is not supported")
        # no register the instruction uses holds an address (checked above): raw bits only
        for name, raw in self._lane(ins).evaluate(cast(dict[str, int], s.regs)).items():
            s.regs[name] = self._from_raw(name, raw)
            s.taint[name] = taint

    def _pointer_op(self, s: _State, ins: Instruction, taint: frozenset[Dep]) -> None:
        """The few operations defined on a symbolic address: moves and conversions keep it
        (``cvta``/``cvt`` between generic and state-space addresses of one variable), ``add``/``sub``
        of an integer offset, ``selp``, and ``setp.eq/ne`` comparisons."""
        op, ops = ins.opcode, ins.operands
        typ = type_of(ins.mods)
        vals = [self._val(s, o, typ)[0] for o in ops[1:]]
        dst = ops[0]
        if op in ("mov", "cvta", "cvt") and len(vals) == 1 and isinstance(dst, Reg):
            self._set(s, dst, vals[0], taint)
            return
        if op in ("add", "sub") and len(vals) == 2 and isinstance(dst, Reg) and "cc" not in ins.mods:
            a, b = vals
            if isinstance(a, tuple) and isinstance(b, int):
                self._set(s, dst, (a[0], a[1], a[2] + (self._signed(b, typ) if op == "add"
                                                        else -self._signed(b, typ))), taint)
                return
            if op == "add" and isinstance(b, tuple) and isinstance(a, int):
                self._set(s, dst, (b[0], b[1], b[2] + self._signed(a, typ)), taint)
                return
        if op == "selp" and len(vals) == 3 and isinstance(dst, Reg) and not is_ptr(vals[2]):
            self._set(s, dst, vals[0] if vals[2] else vals[1], taint)
            return
        if op == "setp" and len(vals) == 2 and ins.mods and ins.mods[0] in ("eq", "ne"):
            res = (vals[0] == vals[1]) == (ins.mods[0] == "eq")
            if isinstance(dst, ir.Pipe):  # setp p|q: q = !p
                self._set(s, dst.b, int(not res), taint)
                dst = dst.a
            self._set(s, dst, int(res), taint)
            return
        self._err(ins, "arithmetic on an address is not supported")

    def _signed(self, v: int, typ: str | None) -> int:
        """An integer operand of a real kernel's instruction as a signed offset."""
        if not self.ptx or typ is None or typ == "pred":
            return v
        bits = type_bits(typ)
        v &= (1 << bits) - 1
        return v - (1 << bits) if v >> (bits - 1) else v

    def _wrap(self, v: Value, typ: str | None) -> Value:
        """A value stored by a real kernel: the raw bits of the access type (litmus tests keep
        Dat3M's integers)."""
        if not self.ptx or not isinstance(v, int) or typ is None or typ == "pred":
            return v
        return v & ((1 << type_bits(typ)) - 1)

    def _loaded(self, ins: Instruction, dst: str, v: Value) -> Value:
        """A loaded value in the destination register: zero- or (``.sN``) sign-extended from the
        access type to the register (ISA §6.4.3)."""
        if not self.ptx or not isinstance(v, int):
            return v
        typ = type_of(ins.mods)
        rb = self._reg_bits(dst)
        if typ is not None and typ != "pred":
            tb = type_bits(typ)
            v &= (1 << tb) - 1
            if typ[0] == "s" and tb < rb and v >> (tb - 1):
                v |= ((1 << rb) - 1) ^ ((1 << tb) - 1)
        return v & ((1 << rb) - 1)

    # ------------------------------------------------------------------ shuffles
    def _shfl(self, s: _State, ins: Instruction, values: Oracle, work: list[_State]) -> bool:
        """``shfl.sync.mode.b32 d[|p], a, b, c, membermask`` (ISA §9.7.8.6 of PTX 9.0, "shfl.sync").
        Which lane j this lane reads — and p — come from the simulator's own shfl semantics run
        with the lane numbers as the shuffled value. This thread's k-th shfl.sync offers ``a`` to
        the warp (``provide``); d is then the value lane j offered at ITS k-th shfl.sync, supplied
        by the oracle (one fork per value), and ``explore`` keeps only combinations of thread
        traces that agree. d depends on the reads lane j's ``a`` depended on (a cross-thread
        dependency, marked ``('shfl', k)`` until the combination is known)."""
        ops = ins.operands
        if "sync" not in ins.mods or len(ops) != 5:
            self._err(ins, "explore supports shfl.sync.{up,down,bfly,idx}.b32 d[|p], a, b, c, membermask")
        dst = ops[0]
        dd, pp = (dst.a, dst.b) if isinstance(dst, ir.Pipe) else (dst, None)
        me = self.th.init_regs
        lane, warp = me.get("%laneid", 0), me.get("%warpid", 0)
        a, ta = self._val(s, ops[1], "b32")
        if is_ptr(a):
            self._err(ins, "shuffling an address is not supported")
        sel = ops[2:]
        tsel = _EMPTY
        for o in sel:
            v, t = self._val(s, o, "b32")
            if is_ptr(v):
                self._err(ins, "arithmetic on an address is not supported")
            tsel = tsel | t
        ev = self._lanes.get((id(ins), "shfl"))
        if ev is None:
            probe = ir.Instruction("shfl", ins.mods, (ir.Pipe(Reg("<j>"), Reg("<ok>")), Reg("<lane>"), *sel),
                                   None, ins.span)
            types = dict(self.reg_types, **{"<j>": "b32", "<ok>": "pred", "<lane>": "b32"})
            ev = self._lanes[(id(ins), "shfl")] = LaneEval(probe, types, self.module)
        got = ev.evaluate_lanes(dict(s.regs, **{"<lane>": np.arange(32)}), 32)
        j, ok = int(got["<j>"][lane]), int(got["<ok>"][lane])
        mask = self._val(s, ops[4], "b32")[0]
        if not (mask >> lane) & 1 or not (mask >> j) & 1:
            self._err(ins, f"shfl.sync: lane {lane} or its source lane {j} is not in membermask "
                           f"{mask:#x} (undefined, ISA shfl.sync)")
        k = len(s.shfl_out)
        s.shfl_out.append((k, a, ta, ins))
        self.provide(("shfl", self.th.cta, warp, k, lane), a)
        if pp is not None:
            self._set(s, pp, ok, tsel)
        if j == lane:  # out of range: the lane keeps its own a
            if not isinstance(dd, ir.Sink):
                self._set(s, dd, a, ta | tsel)
            return True
        src = self.lane_of.get((self.th.cta, warp, j))
        if src is None:
            self._err(ins, f"shfl.sync reads lane {j}, which is not one of the explored threads "
                           "(give more --threads)")
        choices = list(values(("shfl", self.th.cta, warp, k, j)))
        if not choices:
            return False
        dep = tsel | {("shfl", k)}
        _branch(s, work, choices, lambda t, v: self._received(t, dd, k, src, v, dep, ins))
        return True

    def _received(self, s: _State, dd: Operand, k: int, src: int, v: Value, dep: frozenset[Dep],
                  ins: Instruction) -> None:
        s.shfl_in.append((k, src, v, ins))
        if not isinstance(dd, ir.Sink):
            self._set(s, dd, v, dep)

    # ------------------------------------------------------------------ memory
    @staticmethod
    def _elements(o: Operand) -> list[Operand]:
        return list(o.items) if isinstance(o, Vec) else [o]

    def _load(self, s: _State, ins: Instruction, values: Oracle, work: list[_State]) -> bool:
        """``ld``: one read event per element, forked per value the oracle offers (and, for a vector,
        per element order). False when some element has no possible value."""
        dsts = self._elements(ins.operands[0])
        locs, adep = self._addr(s, ins, ins.operands[1], len(dsts))
        sem, scope = sem_scope(ins.mods)
        proxy = "CON" if "const" in ins.mods else PROXY_OF.get(ins.opcode, "GEN")
        choices = [list(values(loc)) for loc, _ in locs]
        if any(not c for c in choices):
            return False
        orders = list(itertools.permutations(range(len(locs))))
        alts = [(order, vals) for order in orders for vals in itertools.product(*choices)]
        _branch(s, work, alts, lambda t, alt: self._reads(t, ins, locs, dsts, proxy, sem, scope, adep, *alt))
        return True

    def _reads(self, s: _State, ins: Instruction, locs: list[tuple[str, str]], dsts: list[Operand], proxy: str,
               sem: str, scope: str | None, adep: frozenset[Dep], order: tuple[int, ...],
               vals: tuple[Value, ...]) -> None:
        for k in order:
            loc, vaddr = locs[k]
            idx = len(s.events)
            s.events.append(self._ev(s, "R", ins, loc=loc, vaddr=vaddr, proxy=proxy, sem=sem, scope=scope,
                                     value=vals[k], deps=adep))
            dst = dsts[k]
            if isinstance(dst, Reg):
                self._set(s, dst, self._loaded(ins, dst.name, vals[k]), frozenset({idx}))

    def _store(self, s: _State, ins: Instruction, work: list[_State]) -> None:
        """``st``: one write event per element (a vector store in every element order)."""
        srcs = self._elements(ins.operands[1])
        locs, adep = self._addr(s, ins, ins.operands[0], len(srcs))
        typ = type_of(ins.mods)
        sem, scope = sem_scope(ins.mods)
        vals = []
        for o in srcs:
            v, t = self._val(s, o, typ)
            vals.append((self._wrap(v, typ), t))
        orders = list(itertools.permutations(range(len(locs))))
        _branch(s, work, orders, lambda t, order: self._writes(t, ins, locs, vals, adep, sem, scope, order))

    def _writes(self, s: _State, ins: Instruction, locs: list[tuple[str, str]],
                vals: list[tuple[Value, frozenset[Dep]]], adep: frozenset[Dep], sem: str, scope: str | None,
                order: tuple[int, ...]) -> None:
        for k in order:
            loc, vaddr = locs[k]
            v, t = vals[k]
            s.events.append(self._ev(s, "W", ins, loc=loc, vaddr=vaddr, proxy=PROXY_OF[ins.opcode], sem=sem,
                                     scope=scope, value=v, deps=adep | t))

    def _rmw(self, s: _State, ins: Instruction, is_red: bool, loc: str, vaddr: str, adep: frozenset[Dep],
             rest: tuple[Operand, ...], v: Value) -> None:
        mods = ins.mods
        sem, scope = sem_scope(mods, rmw=True)
        rop = next(m for m in mods if m in ("add", "sub", "mul", "div", "and", "or", "xor", "exch",
                                            "cas", "min", "max", "inc", "dec"))
        proxy = PROXY_OF[ins.opcode]
        # ISA §9.7.13.5 atom: the read half acquires, the write half releases (the one split)
        rsem, wsem = rmw_split(sem)
        idx = len(s.events)
        s.events.append(self._ev(s, "R", ins, loc=loc, vaddr=vaddr, proxy=proxy, sem=rsem, scope=scope,
                                 value=v, deps=adep))
        typ = type_of(mods) or "b32"
        vals = [self._val(s, o, typ) for o in rest]
        dep = adep.union(*[t for _, t in vals]) if vals else adep
        if rop == "cas":
            write = v == self._wrap(vals[0][0], typ)  # compared as bits (or as the same address)
            new = vals[1][0]
        elif rop == "exch":
            write, new = True, vals[0][0]
        else:
            write = True
            new = self._rmw_value(ins, rop, typ, v, vals[0][0])
            dep = dep | {idx}
        new = self._wrap(new, typ)
        if write:
            # a failed cas performs no write (Dat3M; ISA §9.7.13.5 "stores ... if equal")
            s.events.append(self._ev(s, "W", ins, loc=loc, vaddr=vaddr, proxy=proxy, sem=wsem, scope=scope,
                                     value=new, rmw_read=idx, deps=dep))
        if not is_red:
            dst = ins.operands[0]
            self._set(s, dst, self._loaded(ins, _reg(dst), v), frozenset({idx}))

    def _rmw_value(self, ins: Instruction, rop: str, typ: str, cur: Value, b: Value) -> int:
        """The value an atomic operation writes: the simulator's ``apply_atomic`` (ISA §9.7.13.5);
        Dat3M's ``atom.sub/mul/div`` (not PTX operations) as the ``sub/mul.lo/div`` instructions."""
        if not isinstance(cur, int) or not isinstance(b, int):
            self._err(ins, "arithmetic on an address is not supported")
        bits = type_bits(typ) if self.ptx else LITMUS_BITS
        mask = (1 << bits) - 1
        if rop in ("sub", "mul", "div"):
            t = typ if self.ptx else f"u{bits}"
            alu = ir.Instruction(rop, ("lo", t) if rop == "mul" else (t,),
                                 (Reg("d"), Reg("a"), Reg("b")), None, ins.span)
            lane = self._lanes.get((id(ins), rop))
            if lane is None:
                lane = self._lanes[(id(ins), rop)] = LaneEval(alu, {"d": t, "a": t, "b": t}, self.module)
            raw = lane.evaluate({"a": cur & mask, "b": b & mask})["d"]
        else:
            raw = apply_atomic(rop, typ, bits // 8, cur & mask, b & mask, None)
        if self.ptx:
            return raw
        return raw - (1 << bits) if raw >> (bits - 1) else raw



def _reg(o: Operand) -> str:
    """The register an instruction writes (a TypeError, reported as an unsupported form, if not)."""
    if not isinstance(o, Reg):
        raise TypeError(f"operand {o} is not a register")
    return o.name


def _target(ins: Instruction) -> str:
    """The label a ``bra`` jumps to (checked when the runner is built)."""
    tgt = ins.operands[0]
    assert isinstance(tgt, Sym)
    return tgt.name
