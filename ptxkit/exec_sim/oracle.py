"""Oracle-driven thread execution for `explore` (litmus subset of PTX, lowered by ptxkit.litmus).

A thread runs alone; every load / atomic read asks the *oracle* for its value, and the runner forks
once per value the oracle offers (the values some write to that physical location can produce,
initial value included — ``ptxkit.exec_sim.explore`` grows these sets to a fixpoint). Each complete
run is a :class:`Trace`: the thread's events in program order with their values, dependencies and
final registers.

Loops (ISA §9.7.12 ``bra``): a back edge whose iteration did nothing but read memory (no write, RMW or
barrier) and left every register live at the loop head unchanged is a *spin* iteration: any execution
through it has the same outcome as one without it, and dropping reads only removes edges from the
model's relations (all axioms are acyclicity/emptiness constraints), so the path is pruned soundly.
Any other back edge counts towards ``unroll``; exceeding it cuts the path and marks the exploration
incomplete (verdict Inconclusive).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable, Iterable

from ptxkit.errors import Diagnostic, PtxkitError
from ptxkit.exec_sim.program import ConcurrentProgram, ThreadProgram
from ptxkit.ir import Addr, Imm, Instruction, Label, Reg, Sym

MASK = (1 << 32) - 1
PROXY_OF = {"ld": "GEN", "st": "GEN", "atom": "GEN", "red": "GEN", "tld": "TEX", "suld": "SUR",
            "sust": "SUR", "suatom": "SUR", "sured": "SUR"}
DEF_OPS = {"mov", "add", "sub", "mul", "div", "rem", "and", "or", "xor", "shl", "shr", "min", "max", "not",
           "neg", "mad", "selp", "cvt", "cvta", "setp", "ld", "tld", "suld", "atom", "suatom"}
SEMS = ("weak", "relaxed", "acquire", "release", "acq_rel", "sc")
SCOPES = ("cta", "cluster", "gpu", "sys")


@dataclass
class Ev:
    """One event of a thread trace (converted to ``ptxkit.consistency`` events by ``explore.to_events``)."""

    kind: str                      # 'R' | 'W' | 'F'
    tid: int
    cta: int = 0
    gpu: int = 0
    loc: str | None = None         # physical location
    vaddr: str | None = None       # the (alias) name used
    proxy: str = "GEN"
    sem: str | None = None
    scope: str | None = None
    fkind: str | None = None       # fences: sc acq_rel acquire release relaxed proxy alias bar
    value: int | None = None
    init: bool = False
    rmw_read: int | None = None    # for the write half of an RMW: local index of its read
    bar: tuple | None = None       # (ids, count, mode) for barriers
    deps: frozenset = frozenset()  # local indices of reads this event's address/value depends on
    ctrl: frozenset = frozenset()  # local indices of reads that decided a branch before it
    instr: Instruction | None = None

    def describe(self) -> str:
        if self.init:
            return f"init {self.loc}={self.value}"
        text = _fmt(self.instr) if self.instr is not None else self.kind
        if self.kind == "R":
            return f"R {self.vaddr}={self.value} ({text})"
        if self.kind == "W":
            return f"W {self.vaddr}={self.value} ({text})"
        return f"F {text}"


def _fmt(ins: Instruction) -> str:
    ops = []
    for o in ins.operands:
        if isinstance(o, Reg):
            ops.append(o.name)
        elif isinstance(o, Imm):
            ops.append(str(o.value))
        elif isinstance(o, Addr):
            ops.append(f"[{o.base.name}]" if o.base is not None else f"[{o.offset}]")
        elif isinstance(o, Sym):
            ops.append(o.name)
        else:
            ops.append(str(o))
    g = f"@{'!' if ins.guard.negated else ''}{ins.guard.pred} " if ins.guard else ""
    return f"{g}{'.'.join((ins.opcode, *ins.mods))} {', '.join(ops)}".strip()


@dataclass
class Trace:
    tid: int
    events: tuple[Ev, ...]
    regs: dict[str, int | str]


@dataclass
class RunStats:
    cut: bool = False          # some path hit the unroll bound (or a size bound)
    cut_reason: str = ""
    spins_pruned: int = 0
    deadline: float | None = None  # time.monotonic() value after which runs stop (--timeout)


@dataclass
class _State:
    pc: int
    regs: dict
    taint: dict
    ctrl: frozenset
    events: list
    hdr: dict = field(default_factory=dict)      # label index -> (n_events, live regs tuple)
    back: dict = field(default_factory=dict)     # label index -> back-edge count

    def fork(self) -> "_State":
        return _State(self.pc, dict(self.regs), dict(self.taint), self.ctrl, list(self.events),
                      dict(self.hdr), dict(self.back))


class ThreadRunner:
    """Runs one litmus thread against an oracle (``values(loc) -> iterable of ints``)."""

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
        self.live_in = self._liveness(live_out)

    # ------------------------------------------------------------------ static analysis
    def _err(self, ins, msg):
        sp = ins.span
        src = None
        if sp is not None and self.prog.source:
            lines = self.prog.source.splitlines()
            src = lines[sp.line - 1] if 0 < sp.line <= len(lines) else None
        raise PtxkitError(Diagnostic(self.prog.filename, sp.line if sp else 0, sp.col if sp else 0,
                                     msg, src))

    @staticmethod
    def _uses_defs(s) -> tuple[set[str], set[str]]:
        if isinstance(s, Label):
            return set(), set()
        uses, defs = set(), set()
        ops = list(s.operands)
        if s.opcode in DEF_OPS and ops and isinstance(ops[0], Reg):
            defs.add(ops[0].name)
            ops = ops[1:]
        for o in ops:
            if isinstance(o, Reg):
                uses.add(o.name)
            elif isinstance(o, Addr) and isinstance(o.base, Reg):
                uses.add(o.base.name)
        if s.guard is not None:
            uses.add(s.guard.pred)
        return uses, defs

    def _succ(self, i: int) -> list[int]:
        s = self.body[i]
        nxt = [i + 1] if i + 1 < len(self.body) else [-1]
        if isinstance(s, Instruction) and s.opcode == "bra":
            tgt = self.labels[s.operands[0].name]
            return [tgt] if s.guard is None else [tgt] + nxt
        return nxt

    def _liveness(self, live_out: set[str]) -> list[frozenset]:
        n = len(self.body)
        ud = [self._uses_defs(s) for s in self.body]
        live = [set() for _ in range(n)]
        changed = True
        while changed:
            changed = False
            for i in range(n - 1, -1, -1):
                out = set()
                for j in self._succ(i):
                    out |= live_out if j == -1 else live[j]
                uses, defs = ud[i]
                new = uses | (out - defs)
                if new != live[i]:
                    live[i] = new
                    changed = True
        return [frozenset(x) for x in live]

    # ------------------------------------------------------------------ execution
    def run(self, values: Callable[[str], Iterable[int]], stats: RunStats) -> list[Trace]:
        init = {k: v for k, v in self.th.init_regs.items()}
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
                # an instruction form outside the explorer's subset: report it where it is
                ins = self.body[s.pc] if s.pc < len(self.body) else None
                if isinstance(ins, Instruction):
                    self._err(ins, f"explore: unsupported form of '{'.'.join((ins.opcode, *ins.mods))}'"
                                   f" ({type(e).__name__}: {e})")
                raise
        # identical runs (same events, values, dependencies and registers) give identical
        # candidates: keep one (a sound deduplication)
        uniq: dict = {}
        for tr in out:
            key = (tuple((e.kind, e.loc, e.vaddr, e.value, e.sem, e.scope, e.fkind, e.bar, e.rmw_read,
                          e.deps, e.ctrl, id(e.instr)) for e in tr.events),
                   tuple(sorted((k, repr(v)) for k, v in tr.regs.items())))
            uniq.setdefault(key, tr)
        return list(uniq.values())

    def _val(self, s: _State, o) -> tuple[int | str, frozenset]:
        if isinstance(o, Imm):
            return o.value, frozenset()
        if isinstance(o, Reg):
            return s.regs.get(o.name, 0), s.taint.get(o.name, frozenset())
        if isinstance(o, Sym) and self.ptx and o.name in self.prog.shared:  # mov %r, sharedvar
            return self._shared_ptr(o.name), frozenset()
        raise TypeError(f"operand {o} is not a register or an integer")

    def _addr(self, s: _State, ins: Instruction, o) -> tuple[str, str, frozenset]:
        if not isinstance(o, Addr):
            self._err(ins, "expected a memory operand")
        if isinstance(o.base, Sym):
            name, dep = o.base.name, frozenset()
            if self.ptx:
                if name in self.prog.shared:
                    return self._element(ins, self._shared_ptr(name), o.offset) + (dep,)
                self._err(ins, f"{name!r}: only buffers passed with --arg and .shared arrays can be accessed")
        elif isinstance(o.base, Reg):
            name, dep = self._val(s, o.base)
            if isinstance(name, tuple):  # ('ptr', buffer, byte offset) in a real kernel
                return self._element(ins, name, o.offset) + (dep,)
            if not isinstance(name, str):
                self._err(ins, f"register {o.base.name} does not hold an address (value {name})")
        else:
            self._err(ins, "absolute addresses are not supported")
        if o.offset:
            self._err(ins, "address offsets are not supported in litmus tests")
        locs = self.prog.locations
        if name not in locs:
            self._err(ins, f"unknown location {name!r}")
        root, vaddr = resolve(locs, name)
        return root, vaddr, dep

    def _shared_ptr(self, name: str) -> tuple:
        return ("ptr", f"{name}@cta{self.th.cta}", 0)

    def _element(self, ins: Instruction, ptr: tuple, offset: int) -> tuple[str, str]:
        _, buf, off = ptr
        ty, count, esize = self.prog.buffers[buf]
        off += offset
        size = _access_bytes(ins.mods)
        if size is not None and size != esize:
            self._err(ins, f"{size}-byte access to {buf}, a buffer of {esize}-byte {ty} elements")
        if off % esize or not 0 <= off // esize < count:
            self._err(ins, f"access to {buf} at byte offset {off}: outside {ty}[{count}] or misaligned")
        name = f"{buf}[{off // esize}]"
        return name, name

    def _ev(self, s: _State, kind: str, ins: Instruction, **kw) -> Ev:
        th = self.th
        return Ev(kind=kind, tid=th.index, cta=th.cta, gpu=th.gpu, ctrl=s.ctrl, instr=ins, **kw)

    def _step(self, s: _State, values, stats: RunStats, work: list, out: list) -> None:
        body = self.body
        while s.pc < len(body):
            ins = body[s.pc]
            if isinstance(ins, Label):
                s.hdr[s.pc] = (len(s.events), tuple(s.regs.get(r, 0) for r in sorted(self.live_in[s.pc])))
                s.pc += 1
                continue
            op, mods = ins.opcode, ins.mods
            if ins.guard is not None and op != "bra":
                pv, pt = s.regs.get(ins.guard.pred, 0), s.taint.get(ins.guard.pred, frozenset())
                s.ctrl = s.ctrl | pt  # later events depend on the predicate's reads
                if bool(pv) == ins.guard.negated:
                    s.pc += 1
                    continue
            if op in ("ret", "exit", "trap"):
                break
            if op == "bra":
                take = True
                if ins.guard is not None:
                    pv, pt = s.regs.get(ins.guard.pred, 0), s.taint.get(ins.guard.pred, frozenset())
                    s.ctrl = s.ctrl | pt
                    take = bool(pv) != ins.guard.negated
                if not take:
                    s.pc += 1
                    continue
                tgt = self.labels[ins.operands[0].name]
                if tgt <= s.pc:  # back edge
                    prev = s.hdr.get(tgt)
                    if prev is not None:
                        it = s.events[prev[0]:]
                        pure = all(e.kind == "R" or (e.kind == "F" and e.fkind != "bar") for e in it) \
                            and not any(e.rmw_read is not None for e in it)
                        now = tuple(s.regs.get(r, 0) for r in sorted(self.live_in[tgt]))
                        if pure and now == prev[1]:
                            stats.spins_pruned += 1
                            return
                    n = s.back.get(tgt, 0) + 1
                    if n > self.unroll:
                        stats.cut = True
                        stats.cut_reason = f"P{self.th.index}: loop at {ins.operands[0].name} unrolled {self.unroll} times"
                        return
                    s.back[tgt] = n
                s.pc = tgt
                continue
            if op in ("mov", "cvta", "cvt"):
                v, t = self._val(s, ins.operands[1])
                if op == "cvt" and isinstance(v, int) and self.ptx:
                    v = self._wrap(v, mods[-2] if len(mods) >= 2 else "u64")  # cvt.dst.src
                self._set(s, ins.operands[0], self._wrap(v, _type_of(mods)), t)
            elif op in ("add", "sub", "mul", "div", "rem", "and", "or", "xor", "shl", "shr", "min", "max"):
                a, ta = self._val(s, ins.operands[1])
                b, tb = self._val(s, ins.operands[2])
                ty = _type_of(mods)
                if self.ptx and op == "mul" and "wide" in mods:
                    ty = ty[0] + str(2 * int(ty[1:]))
                v = self._arith(ins, op, self._signed(a, ty), self._signed(b, ty))
                self._set(s, ins.operands[0], self._wrap(v, ty), ta | tb)
            elif op == "mad":
                (a, ta), (b, tb), (c, tc) = (self._val(s, o) for o in ins.operands[1:4])
                ty = _type_of(mods)
                if "wide" in mods:
                    ty = ty[0] + str(2 * int(ty[1:]))
                v = self._arith(ins, "add", self._arith(ins, "mul", a, b), c)
                self._set(s, ins.operands[0], self._wrap(v, ty), ta | tb | tc)
            elif op in ("not", "neg"):
                a, ta = self._val(s, ins.operands[1])
                if isinstance(a, (str, tuple)):
                    self._err(ins, f"{op} of an address")
                self._set(s, ins.operands[0], self._wrap(~a if op == "not" else -a, _type_of(mods)), ta)
            elif op == "selp":
                (a, ta), (b, tb), (c, tc) = (self._val(s, o) for o in ins.operands[1:4])
                self._set(s, ins.operands[0], a if c else b, ta | tb | tc)
            elif op == "setp":
                a, ta = self._val(s, ins.operands[1])
                b, tb = self._val(s, ins.operands[2])
                ty = _type_of(mods)
                res = _cmp(mods[0], self._signed(a, ty), self._signed(b, ty))
                dst = ins.operands[0]
                if not isinstance(dst, Reg):  # setp p|q: q = !p
                    from ptxkit.ir import Pipe
                    if isinstance(dst, Pipe):
                        self._set(s, dst.b, int(not res), ta | tb)
                        dst = dst.a
                self._set(s, dst, int(res), ta | tb)
            elif op == "ld" and "param" in mods:
                o = ins.operands[1]
                name = o.base.name if isinstance(o, Addr) and isinstance(o.base, Sym) else None
                if name not in self.prog.params:
                    self._err(ins, f"unknown parameter {name!r} (give it with --arg)")
                v = self.prog.params[name]
                if o.offset:
                    self._err(ins, "parameter offsets are not supported")
                self._set(s, ins.operands[0], v, frozenset())
            elif op in ("ld", "tld", "suld"):
                loc, vaddr, adep = self._addr(s, ins, ins.operands[1])
                sem, scope = _sem_scope(mods)
                proxy = "CON" if "const" in mods else PROXY_OF[op]
                choices = list(values(loc))
                if not choices:
                    return
                for v in choices[1:]:
                    f = s.fork()
                    self._read(f, ins, loc, vaddr, proxy, sem, scope, adep, v)
                    f.pc += 1
                    work.append(f)
                self._read(s, ins, loc, vaddr, proxy, sem, scope, adep, choices[0])
            elif op in ("st", "sust"):
                loc, vaddr, adep = self._addr(s, ins, ins.operands[0])
                v, t = self._val(s, ins.operands[1])
                v = self._wrap(v, _type_of(mods))
                sem, scope = _sem_scope(mods)
                s.events.append(self._ev(s, "W", ins, loc=loc, vaddr=vaddr, proxy=PROXY_OF[op], sem=sem,
                                         scope=scope, value=v, deps=adep | t))
            elif op in ("atom", "suatom", "red", "sured"):
                is_red = op in ("red", "sured")
                a_op = ins.operands[0] if is_red else ins.operands[1]
                loc, vaddr, adep = self._addr(s, ins, a_op)
                rest = ins.operands[1:] if is_red else ins.operands[2:]
                choices = list(values(loc))
                if not choices:
                    return
                for v in choices[1:]:
                    f = s.fork()
                    self._rmw(f, ins, is_red, loc, vaddr, adep, rest, v)
                    f.pc += 1
                    work.append(f)
                self._rmw(s, ins, is_red, loc, vaddr, adep, rest, choices[0])
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
                vals = []
                for o in ins.operands:
                    v, t = self._val(s, o)
                    vals.append(v)
                if self.ptx:  # bar{.cta}.sync a{, b}: barrier a, b threads (ISA §9.7.13.1)
                    ids, count = (vals[0],) if vals else (0,), (vals[1] if len(vals) > 1 else None)
                    mods = tuple(m for m in mods if m != "aligned") or ("sync",)
                else:  # Dat3M: bar.cta.sync a[, b[, c]] — id (a, b), quorum c
                    count = vals[2] if len(vals) == 3 else None
                    ids = tuple(vals[:2])
                s.events.append(self._ev(s, "F", ins, fkind="bar", scope="cta",
                                         bar=(ids, count, mods[-1])))
            else:
                self._err(ins, f"explore: unsupported instruction {op!r}")
            s.pc += 1
        out.append(Trace(self.th.index, tuple(s.events), dict(s.regs)))

    def _wrap(self, v, ty: str | None):
        """Fixed-width results for real kernels (litmus tests use unbounded integers, as Dat3M)."""
        if not self.ptx or not isinstance(v, int) or ty is None or ty == "pred":
            return v
        bits = int(ty[1:]) if ty[1:].isdigit() else 64
        v &= (1 << bits) - 1
        return v

    def _signed(self, v, ty: str | None):
        if not self.ptx or not isinstance(v, int) or ty is None or not ty.startswith("s"):
            return v
        bits = int(ty[1:])
        v &= (1 << bits) - 1
        return v - (1 << bits) if v >> (bits - 1) else v

    def _set(self, s: _State, dst, v, taint: frozenset) -> None:
        s.regs[dst.name] = v
        s.taint[dst.name] = taint

    def _arith(self, ins, op, a, b):
        if isinstance(a, tuple) and op in ("add", "sub") and isinstance(b, int):
            return (a[0], a[1], a[2] + (b if op == "add" else -b))  # pointer ± offset
        if isinstance(b, tuple) and op == "add" and isinstance(a, int):
            return (b[0], b[1], b[2] + a)
        if isinstance(a, (str, tuple)) or isinstance(b, (str, tuple)):
            self._err(ins, "arithmetic on an address is not supported")
        if op == "shl":
            return a << b
        if op == "shr":
            return a >> b
        if op == "min":
            return min(a, b)
        if op == "max":
            return max(a, b)
        if op == "rem":
            return 0 if b == 0 else a - int(a / b) * b
        if op == "add":
            return a + b
        if op == "sub":
            return a - b
        if op == "mul":
            return a * b
        if op == "div":
            return 0 if b == 0 else int(a / b)  # C-style truncation, as s32 division (ISA §9.7.1.6)
        if op == "and":
            return a & b
        if op == "or":
            return a | b
        return a ^ b

    def _read(self, s, ins, loc, vaddr, proxy, sem, scope, adep, v) -> None:
        idx = len(s.events)
        s.events.append(self._ev(s, "R", ins, loc=loc, vaddr=vaddr, proxy=proxy, sem=sem, scope=scope,
                                 value=v, deps=adep))
        self._set(s, ins.operands[0], v, frozenset({idx}))

    def _rmw(self, s, ins, is_red, loc, vaddr, adep, rest, v) -> None:
        mods = ins.mods
        sem, scope = _sem_scope(mods, rmw=True)
        rop = next(m for m in mods if m in ("add", "sub", "mul", "div", "and", "or", "xor", "exch",
                                            "cas", "min", "max", "inc", "dec"))
        proxy = PROXY_OF[ins.opcode]
        # ISA §9.7.13.5 atom: the read half acquires, the write half releases
        rsem = {"acq_rel": "acquire", "acquire": "acquire", "release": "relaxed", "sc": "acquire"}.get(sem, sem)
        wsem = {"acq_rel": "release", "release": "release", "acquire": "relaxed", "sc": "release"}.get(sem, sem)
        idx = len(s.events)
        s.events.append(self._ev(s, "R", ins, loc=loc, vaddr=vaddr, proxy=proxy, sem=rsem, scope=scope,
                                 value=v, deps=adep))
        vals = [self._val(s, o) for o in rest]
        dep = adep.union(*[t for _, t in vals]) if vals else adep
        b = vals[0][0] if vals else 0
        if rop == "cas":
            cmpv, newv = vals[0][0], vals[1][0]
            write = v == cmpv
            new = newv
        else:
            write = True
            new = {"add": lambda: v + b, "sub": lambda: v - b, "mul": lambda: v * b,
                   "div": lambda: 0 if b == 0 else int(v / b), "and": lambda: v & b,
                   "or": lambda: v | b, "xor": lambda: v ^ b, "exch": lambda: b,
                   "min": lambda: min(v, b), "max": lambda: max(v, b),
                   "inc": lambda: 0 if v >= b else v + 1,
                   "dec": lambda: b if (v == 0 or v > b) else v - 1}[rop]()
            if rop not in ("exch",):
                dep = dep | {idx}
        new = self._wrap(new, _type_of(mods))
        if write:
            # a failed cas performs no write (Dat3M; ISA §9.7.13.5 "stores ... if equal")
            s.events.append(self._ev(s, "W", ins, loc=loc, vaddr=vaddr, proxy=proxy, sem=wsem, scope=scope,
                                     value=new, rmw_read=idx, deps=dep))
        if not is_red:
            self._set(s, ins.operands[0], v, frozenset({idx}))


def resolve(locations: dict, name: str) -> tuple[str, str]:
    """(physical location, virtual address) of a litmus location name (ISA §8.6). A generic alias
    ``y @ generic aliases x`` is another virtual address of x; a surface/texture/constant alias
    ``s @ surface aliases y`` reaches y's virtual address through that proxy."""
    from ptxkit.consistency.events import resolve_location  # the model's one resolver

    phys, vaddr, _ = resolve_location(locations, name)
    return phys, vaddr


_TYPES = {f"{k}{b}" for k in "usbf" for b in (8, 16, 32, 64)} | {"pred"}


def _type_of(mods: tuple[str, ...]) -> str | None:
    return next((m for m in reversed(mods) if m in _TYPES), None)


def _access_bytes(mods: tuple[str, ...]) -> int | None:
    ty = _type_of(mods)
    if ty is None or ty == "pred":
        return None
    n = int(ty[1:]) // 8
    for m in mods:
        if m in ("v2", "v4"):
            return None  # vector accesses are not element accesses: refused by the caller's size check
    return n


def _sem_scope(mods: tuple[str, ...], rmw: bool = False) -> tuple[str, str | None]:
    if "volatile" in mods:  # ISA §8.4: ld/st.volatile behave as .relaxed.sys
        return "relaxed", "sys"
    sem = next((m for m in mods if m in SEMS), "relaxed" if rmw else "weak")
    scope = next((m for m in mods if m in SCOPES), "gpu" if rmw else None)
    if sem == "weak":
        scope = None
    elif scope is None:
        scope = "sys"
    return sem, scope


def _cmp(op: str, a, b) -> bool:
    if op == "eq":
        return a == b
    if op == "ne":
        return a != b
    if isinstance(a, str) or isinstance(b, str):
        raise TypeError("ordered comparison of addresses")
    return {"lt": a < b, "gt": a > b, "le": a <= b, "ge": a >= b}[op]
