"""Litmus → PTX: turn a :class:`ConcurrentProgram` into one real ``.entry`` that ptxas accepts.

Layout (chosen so the kernel is also right on a GPU):

* each litmus thread ``Pn@cta c,gpu 0`` runs in **its own warp**, on lane 0: CTA ``c`` (renumbered
  0..G-1 in order) is ``%ctaid.x``, the k-th thread of that CTA has ``%tid.x == 32*k``; every other
  lane returns at once. One warp per role is what makes barriers faithful: PTX barriers count
  arrivals per warp (ISA §9.7.13.1 ``bar``: "executed on a per-warp basis … the arrival count is
  incremented by the warp size"), so a litmus quorum of ``q`` threads is ``bar.sync id, 32*q``;
* the locations are the u32 elements of the buffer parameter ``mem`` (in init-block order), the
  registers are copied, after the thread's code, to the u32 buffer parameter ``out`` (one slot per
  ``(thread, register)``), so a host or ``ptxkit run``/``explore`` sees the outcome;
* Dat3M barrier names ``bar.cta.sync a[, b][, q]`` (``(a, b)`` is the barrier, ``q`` the quorum)
  become PTX barrier resources 0..15 in order of appearance; without a quorum the roles of the CTA
  whose code uses that barrier take part (``32 * roles``) — Dat3M's reading, as in
  ``exec_sim.explore.barrier_schedules``: every thread of the CTA whose trace reaches the id. (All
  the CTA's roles would hang a GPU on tests where two pairs of threads use two barriers.)

Not expressible in a plain kernel (raised as ``PtxkitError`` at the instruction): proxy/virtual
aliases (``y @ surface aliases x`` needs surface/texture objects or a second virtual mapping from the
host), ``sust``/``suld``/``tld``/``ld.const``, ``fence.proxy.{surface,texture,constant}`` (PTX
has no such fence; only ``fence.proxy.alias``), threads on more than one GPU (one launch is one GPU),
barrier names held in registers, and RMW ops PTX lacks.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ptxkit.errors import Diagnostic, PtxkitError, UsageError
from ptxkit.explore import condition as cf
from ptxkit.explore.program import ConcurrentProgram, Condition, ThreadProgram
from ptxkit.ir import Addr, Imm, Instruction, Label, Reg, Sym

WARP = 32
# every location and register of a litmus test is 32 bits wide; a constant must have a 32-bit
# value, signed or unsigned (ISA §4.5.1: an integer constant is checked against the type it meets)
I32_MIN, U32_MAX = -(1 << 31), (1 << 32) - 1
# a PTX identifier (ISA §4.4 "Identifiers")
PTX_IDENT = re.compile(r"[a-zA-Z][a-zA-Z0-9_$]*|[_$%][a-zA-Z0-9_$]+")
ATOM_TYPES = {"add": "u32", "exch": "b32", "cas": "b32", "and": "b32", "or": "b32", "xor": "b32",
              "min": "u32", "max": "u32"}


@dataclass
class PtxLitmus:
    """The generated kernel and how to launch and read it."""

    text: str
    kernel: str
    grid: int
    block: int
    locations: list[str]  # mem[i] holds locations[i]
    slots: list[tuple[int, str]]  # out[k] holds register slots[k] = (thread, reg)
    init: dict[str, int] = field(default_factory=dict)  # non-zero initial values
    condition: str | None = None  # the litmus condition over mem[...] / out[...]

    @property
    def threads(self) -> int:
        return self.grid * self.block

    def launch_args(self, mem_source: str = "zeros") -> list[str]:
        return ["--grid", str(self.grid), "--block", str(self.block),
                "--arg", f"mem=u32[{len(self.locations)}]:{mem_source}",
                "--arg", f"out=u32[{max(len(self.slots), 1)}]:zeros"]


class _Unsupported(Exception):
    def __init__(self, message: str, node=None):
        super().__init__(message)
        self.node = node


def _fail(prog: ConcurrentProgram, message: str, node: object) -> PtxkitError:
    """A located refusal at ``node`` (a statement of the test)."""
    span = getattr(node, "span", None)
    if span is None:  # the parser gives every statement a span; say so if one is missing
        raise AssertionError(f"litmus statement without a source span: {node!r}")
    lines = (prog.source or "").split("\n")  # only \n ends a line, as the parser counts
    src = lines[span.line - 1] if 0 < span.line <= len(lines) else None
    return PtxkitError(Diagnostic(prog.filename, span.line, span.col, f"litmus2ptx: {message}", src))


def _locate(prog: ConcurrentProgram, pattern: str, from_line: int = 1) -> tuple[int, int, str] | None:
    """Line, column and text of the first match of ``pattern`` in the test's source at or after
    ``from_line`` (for facts the parsed program keeps without a span: initial values, names)."""
    lines = (prog.source or "").split("\n")  # only \n ends a line, as the parser counts
    for k in range(max(from_line, 1) - 1, len(lines)):
        m = re.search(pattern, lines[k])
        if m:
            return k + 1, m.start() + 1, lines[k]
    return None


def _fail_at(prog: ConcurrentProgram, message: str, pattern: str, from_line: int = 1) -> PtxkitError:
    where = _locate(prog, pattern, from_line)
    if where is None:  # no text to point at: the file, without a made-up line
        return UsageError(f"{prog.filename}: litmus2ptx: {message}")
    line, col, src = where
    return PtxkitError(Diagnostic(prog.filename, line, col, f"litmus2ptx: {message}", src))


def _name(op: object) -> str:
    """The name of a register or label operand (the litmus parser gives Reg, or Sym for labels)."""
    if isinstance(op, (Reg, Sym)):
        return op.name
    raise _Unsupported(f"operand {op!r} is not a register")


def _ident(name: str) -> str:
    return "".join(ch if ch.isalnum() or ch == "_" else "_" for ch in name)


class _Emitter:
    def __init__(self, prog: ConcurrentProgram):
        self.prog = prog
        # aliases declared but never used are harmless; a *used* alias is rejected in addr()
        self.locs = [n for n, loc in prog.locations.items() if loc.alias_of is None]
        self.loc_index = {n: i for i, n in enumerate(self.locs)}
        self.barriers: dict[tuple, int] = {}
        self.regs32: dict[int, set[str]] = {}
        self.regs64: dict[int, set[str]] = {}
        self.preds: dict[int, set[str]] = {}
        self.ctas: dict[tuple[int, int], list[ThreadProgram]] = {}

    # -- operands
    def reg(self, t: int, name: str) -> str:
        if name in self.regs64.get(t, ()):
            return f"%P{t}_{_ident(name)}"
        self.regs32.setdefault(t, set()).add(name)
        return f"%P{t}_{_ident(name)}"

    def val(self, t: int, op) -> str:
        if isinstance(op, Imm):
            if not I32_MIN <= op.value <= U32_MAX:
                raise _Unsupported(f"constant {op.value} is out of range for a 32-bit location or register")
            return str(op.value)
        if isinstance(op, Reg):
            return self.reg(t, op.name)
        raise _Unsupported(f"operand {op!r} is not a register or an integer")

    def addr(self, t: int, op) -> str:
        if not isinstance(op, Addr):
            raise _Unsupported("expected a memory operand")
        if isinstance(op.base, Sym):
            name = op.base.name
            loc = self.prog.locations.get(name)
            if loc is not None and loc.alias_of is not None:
                raise _Unsupported(f"location {name!r} is a {loc.proxy} alias of {loc.alias_of!r}: "
                                   "virtual/proxy aliases need host-side mappings a plain kernel lacks")
            if name not in self.loc_index:
                raise _Unsupported(f"unknown location {name!r}")
            off = 4 * self.loc_index[name] + op.offset
            return f"[%rd_mem+{off}]" if off else "[%rd_mem]"
        if isinstance(op.base, Reg):
            if op.base.name not in self.regs64.get(t, ()):
                raise _Unsupported(f"register {op.base.name} is used as an address but holds no '&location'")
            return f"[%P{t}_{_ident(op.base.name)}+{op.offset}]" if op.offset else f"[%P{t}_{_ident(op.base.name)}]"
        raise _Unsupported("absolute addresses are not supported")

    # -- instructions
    def instruction(self, t: ThreadProgram, ins: Instruction, users: dict[tuple, int]) -> list[str]:
        i = t.index
        op, mods, ops = ins.opcode, ins.mods, ins.operands
        guard = ""
        if ins.guard is not None:
            self.preds.setdefault(i, set()).add(ins.guard.pred)
            guard = f"@{'!' if ins.guard.negated else ''}%P{i}_{_ident(ins.guard.pred)} "
        sem = next((m for m in mods if m in ("weak", "relaxed", "acquire", "release", "acq_rel", "sc")), None)
        scope = next((m for m in mods if m in ("cta", "cluster", "gpu", "sys")), None)
        order = f".{sem}" + (f".{scope}" if scope and sem != "weak" else "") if sem else ""
        if op == "ld":
            if "const" in mods:
                raise _Unsupported("ld.const (constant proxy) reads a distinct state space: not expressible")
            if sem in ("release", "acq_rel", "sc"):
                raise _Unsupported(f"ld.{sem} does not exist in PTX")
            return [f"{guard}ld{order}.global.u32 {self.reg(i, _name(ops[0]))}, {self.addr(i, ops[1])};"]
        if op == "st":
            if sem in ("acquire", "acq_rel", "sc"):
                raise _Unsupported(f"st.{sem} does not exist in PTX")
            return [f"{guard}st{order}.global.u32 {self.addr(i, ops[0])}, {self.val(i, ops[1])};"]
        if op in ("sust", "suld", "tld", "suatom", "sured"):
            raise _Unsupported(f"{op} needs a surface/texture object from the host: not expressible")
        if op in ("atom", "red"):
            rop = next((m for m in mods if m in ("add", "sub", "exch", "cas", "and", "or", "xor",
                                                  "min", "max", "inc", "dec", "mul", "div")), None)
            if rop in ("inc", "dec", "mul", "div") or rop is None:
                raise _Unsupported(f"{op}.{rop}: PTX has no such atomic with Dat3M's meaning")
            lines = []
            if op == "atom":
                dst, a, args = self.reg(i, _name(ops[0])), ops[1], ops[2:]
            else:
                dst, a, args = None, ops[0], ops[1:]
            vals = [self.val(i, x) for x in args]
            typ = ATOM_TYPES.get(rop, "u32")
            if rop == "sub":  # PTX atom/red have no .sub: add the negation
                rop, typ = "add", "s32"
                if isinstance(args[0], Imm):
                    vals[0] = str(-args[0].value)
                else:
                    lines.append(f"{guard}neg.s32 %P{i}_tmp, {vals[0]};")
                    vals[0] = f"%P{i}_tmp"
            if dst is None and sem in ("acquire", "acq_rel", "sc"):
                dst = f"%P{i}_tmp"  # red has only .relaxed/.release: an atom with an unused result
            if dst is None:
                lines.append(f"{guard}red{order}.global.{rop}.{typ} {self.addr(i, a)}, {', '.join(vals)};")
            else:
                lines.append(f"{guard}atom{order}.global.{rop}.{typ} {dst}, {self.addr(i, a)}, {', '.join(vals)};")
            return lines
        if op == "fence":
            if mods and mods[0] == "proxy":
                if mods[1] == "alias":
                    return [f"{guard}fence.proxy.alias;"]
                raise _Unsupported(f"fence.proxy.{mods[1]} is not a PTX instruction (Dat3M/ISCA'22 only)")
            return [f"{guard}fence.{sem or 'sc'}.{scope or 'sys'};"]
        if op in ("bar", "barrier"):
            key = _barrier_name(ins)
            if key is None:
                raise _Unsupported("a barrier named by a register value is not expressible as a PTX "
                                   "barrier resource")
            if key not in self.barriers:
                if len(self.barriers) == 16:
                    raise _Unsupported("more than 16 distinct barriers")
                self.barriers[key] = len(self.barriers)
            quorum = ops[2].value if len(ops) > 2 and isinstance(ops[2], Imm) else users[key]
            kind = "arrive" if "arrive" in mods else ("red" if "red" in mods else "sync")
            if kind == "red":
                raise _Unsupported("bar.red is not supported")
            return [f"{guard}bar.{kind} {self.barriers[key]}, {WARP * quorum};"]
        if op == "mov":
            return [f"{guard}mov.b32 {self.reg(i, _name(ops[0]))}, {self.val(i, ops[1])};"]
        if op in ("add", "sub", "mul", "div", "and", "or", "xor"):
            typ = "b32" if op in ("and", "or", "xor") else "s32"
            lo = ".lo" if op == "mul" else ""
            dst = self.reg(i, _name(ops[0]))
            return [f"{guard}{op}{lo}.{typ} {dst}, {self.val(i, ops[1])}, {self.val(i, ops[2])};"]
        if op == "setp":
            self.preds.setdefault(i, set()).add(_name(ops[0]))
            lhs, rhs = self.val(i, ops[1]), self.val(i, ops[2])
            if not isinstance(ops[1], Reg):  # setp wants a register first operand
                lines = [f"mov.b32 %P{i}_tmp, {lhs};"]
                lhs = f"%P{i}_tmp"
            else:
                lines = []
            return [*lines, f"{guard}setp.{mods[0]}.s32 %P{i}_{_ident(_name(ops[0]))}, {lhs}, {rhs};"]
        if op == "bra":
            uni = ".uni" if "uni" in mods and not guard else ""
            return [f"{guard}bra{uni} P{i}_{_ident(_name(ops[0]))};"]
        raise _Unsupported(f"instruction {op}.{'.'.join(mods)} is not supported")


def _barrier_name(ins: Instruction) -> tuple | None:
    """Dat3M's barrier name ``(a[, b])`` of ``bar.cta.sync a[, b][, q]`` (None if held in a register)."""
    names = [o for k, o in enumerate(ins.operands) if k != 2]
    values = tuple(o.value for o in names if isinstance(o, Imm))
    return values if len(values) == len(names) else None


def _barrier_users(members: list[ThreadProgram]) -> dict[tuple, int]:
    """For each barrier name: how many of the CTA's roles have a barrier instruction with it."""
    users: dict[tuple, int] = {}
    for t in members:
        names = {_barrier_name(s) for s in t.body if isinstance(s, Instruction) and s.opcode in ("bar", "barrier")}
        for key in names:
            if key is not None:
                users[key] = users.get(key, 0) + 1
    return users


def _check_barrier_phases(prog: ConcurrentProgram, members: list[ThreadProgram], users: dict[tuple, int]) -> None:
    """Refuse a barrier whose arrivals do not fill whole phases. On a GPU a barrier completes when
    its count of warps has arrived, and a later arrival opens the next phase and waits for it (ISA
    §9.7.13.1 ``bar``); Dat3M lets a late arrival pass (explore's barrier_schedules). So three threads
    at ``bar.cta.sync 1, 1, 2`` give a litmus outcome that the kernel never reaches: it deadlocks.
    Only straight-line, unguarded barriers are counted (a branch makes the count a run-time fact)."""
    arrivals: dict[tuple, int] = {}
    first: dict[tuple, Instruction] = {}
    quorum: dict[tuple, int] = {}
    for t in members:
        body = [s for s in t.body if isinstance(s, Instruction)]
        if any(s.opcode == "bra" for s in body):
            return
        for s in body:
            key = _barrier_name(s) if s.opcode in ("bar", "barrier") else None
            if key is None:
                continue
            if s.guard is not None:
                return
            ops = s.operands
            q = ops[2].value if len(ops) > 2 and isinstance(ops[2], Imm) else users[key]
            if quorum.setdefault(key, q) != q:
                return
            arrivals[key] = arrivals.get(key, 0) + 1
            first.setdefault(key, s)
    for key, n in arrivals.items():
        q = quorum[key]
        if q > 0 and n % q:
            name = ", ".join(map(str, key))
            raise _fail(prog, f"barrier {name} counts {q} thread(s) per phase but {n} arrive: on a GPU the "
                              f"last {n % q} open(s) a phase that never completes and the kernel deadlocks "
                              "(ISA §9.7.13.1), where Dat3M lets them pass; this test cannot be preserved",
                        first[key])


def to_ptx(prog: ConcurrentProgram, kernel: str | None = None) -> PtxLitmus:
    """The PTX kernel for ``prog`` (see the module docstring for the layout and the limits)."""
    if kernel is not None and not PTX_IDENT.fullmatch(kernel):
        raise UsageError(f"--kernel '{kernel}' is not a PTX identifier "
                         "([a-zA-Z][a-zA-Z0-9_$]* or [_$%][a-zA-Z0-9_$]+, ISA §4.4)")
    em = _Emitter(prog)
    gpus = {t.gpu for t in prog.threads}
    if len(gpus) > 1:
        raise _fail_at(prog, f"threads on {len(gpus)} GPUs: one kernel launch runs on one GPU",
                       rf"P\d+\s*@[^|;]*gpu\s*0*{max(gpus)}\b")
    for t in prog.threads:
        em.ctas.setdefault((t.gpu, t.cta), []).append(t)
    cta_order = sorted(em.ctas)
    block = WARP * max(len(v) for v in em.ctas.values())
    # registers initialised with '&loc' are 64-bit pointers
    for t in prog.threads:
        for r, v in t.init_regs.items():
            if isinstance(v, str):
                em.regs64.setdefault(t.index, set()).add(r)

    bodies: dict[int, list[str]] = {}
    for n, loc in prog.locations.items():
        if not I32_MIN <= loc.initial <= U32_MAX:
            raise _fail_at(prog, f"initial value {loc.initial} of {n} is out of range for a 32-bit location",
                           rf"\b{re.escape(n)}\s*=\s*-?{abs(loc.initial)}")
    for t in prog.threads:
        for r, v in t.init_regs.items():
            if isinstance(v, int) and not I32_MIN <= v <= U32_MAX:
                raise _fail_at(prog, f"initial value {v} of P{t.index}:{r} is out of range for a 32-bit "
                                     "register", rf"\bP{t.index}\s*:\s*{re.escape(r)}\s*=")
    for (_g, _c), members in em.ctas.items():
        users = _barrier_users(members)
        _check_barrier_phases(prog, members, users)
        for t in members:
            lines: list[str] = []
            for r, v in sorted(t.init_regs.items()):
                if isinstance(v, str):
                    if v not in em.loc_index:
                        raise _fail_at(prog, f"P{t.index}:{r} = &{v}: unknown location",
                                       rf"\bP{t.index}\s*:\s*{re.escape(r)}\s*=")
                    lines.append(f"add.u64 %P{t.index}_{_ident(r)}, %rd_mem, {4 * em.loc_index[v]};")
                else:
                    lines.append(f"mov.b32 {em.reg(t.index, r)}, {v};")
            for s in t.body:
                if isinstance(s, Label):
                    lines.append(f"P{t.index}_{_ident(s.name)}:")
                    continue
                if not isinstance(s, Instruction):
                    raise _fail(prog, f"unexpected statement {s!r}", s)
                try:
                    lines.extend(em.instruction(t, s, users))
                except _Unsupported as e:
                    raise _fail(prog, str(e), s) from None
            bodies[t.index] = lines

    # output slots: every 32-bit register of every thread (sorted), so any condition can be read
    slots = [(t.index, r) for t in sorted(prog.threads, key=lambda t: t.index)
             for r in sorted(em.regs32.get(t.index, ()))]
    slot_of = {s: k for k, s in enumerate(slots)}
    name = kernel or "litmus_" + _ident(prog.name or "test")
    needs_cluster = any(".cluster" in ln for b in bodies.values() for ln in b)
    out = [f"// litmus2ptx: {prog.name} (from {prog.filename})",
           "// Each litmus thread runs on lane 0 of its own warp; see ptxkit/litmus/to_ptx.py.",
           f"// launch: --grid {len(cta_order)} --block {block}   (threads: {len(cta_order) * block})",
           f"// mem (u32[{len(em.locs)}]): " + ", ".join(f"[{i}] {n}" for i, n in enumerate(em.locs)),
           f"// out (u32[{max(len(slots), 1)}]): " + ", ".join(f"[{k}] P{t}:{r}" for k, (t, r) in enumerate(slots))]
    init = {n: prog.locations[n].initial for n in em.locs if prog.locations[n].initial}
    if init:
        out.append("// initial values (host writes them into mem): " +
                   ", ".join(f"{n}={v}" for n, v in init.items()))
    cond = _condition_text(prog, em.loc_index, slot_of)
    if cond:
        out.append(f"// condition: {cond}")
    out += [".version 8.0" if needs_cluster else ".version 7.8",
            f".target {'sm_90' if needs_cluster else 'sm_75'}", ".address_size 64", "",
            f".visible .entry {name}(", "    .param .u64 mem,", "    .param .u64 out", ")", "{",
            "    .reg .b32 %r_tid, %r_ctaid;", "    .reg .b64 %rd_mem, %rd_out;", "    .reg .pred %role;"]
    for t in sorted(prog.threads, key=lambda t: t.index):
        i = t.index
        names = sorted(em.regs32.get(i, set()) | {"tmp"})
        out.append(f"    .reg .b32 {', '.join(f'%P{i}_{_ident(r)}' for r in names)};")
        if em.regs64.get(i):
            out.append(f"    .reg .b64 {', '.join(f'%P{i}_{_ident(r)}' for r in sorted(em.regs64[i]))};")
        if em.preds.get(i):
            out.append(f"    .reg .pred {', '.join(f'%P{i}_{_ident(p)}' for p in sorted(em.preds[i]))};")
    out += ["    ld.param.u64 %rd_mem, [mem];", "    cvta.to.global.u64 %rd_mem, %rd_mem;",
            "    ld.param.u64 %rd_out, [out];", "    cvta.to.global.u64 %rd_out, %rd_out;",
            "    mov.u32 %r_tid, %tid.x;", "    mov.u32 %r_ctaid, %ctaid.x;"]
    for ci, key in enumerate(cta_order):
        out.append(f"    setp.eq.u32 %role, %r_ctaid, {ci};")
        out.append(f"    @!%role bra NOT_CTA{ci};")
        for k, t in enumerate(em.ctas[key]):
            out.append(f"    setp.eq.u32 %role, %r_tid, {WARP * k};")
            out.append(f"    @%role bra P{t.index}_ROLE;")
        out.append("    ret;")
        out.append(f"NOT_CTA{ci}:")
    out.append("    ret;")
    for t in sorted(prog.threads, key=lambda t: t.index):
        out.append(f"P{t.index}_ROLE:  // P{t.index}@cta {t.cta},gpu {t.gpu}")
        out += [ln if ln.endswith(":") else "    " + ln for ln in bodies[t.index]]
        for r in sorted(em.regs32.get(t.index, ())):
            out.append(f"    st.global.u32 [%rd_out+{4 * slot_of[(t.index, r)]}], %P{t.index}_{_ident(r)};")
        out.append("    ret;")
    out.append("}")
    return PtxLitmus("\n".join(out) + "\n", name, len(cta_order), block, em.locs, slots, init, cond)


def _condition_text(prog: ConcurrentProgram, loc_index: dict[str, int],
                    slot_of: dict[tuple[int, str], int]) -> str | None:
    """The litmus condition rewritten over ``mem[i]``/``out[k]`` (``ptxkit explore`` COND syntax)."""
    c = prog.condition
    if c is None:
        return None

    def operand(x: cf.Operand) -> cf.Operand:
        line = c.span.line if c.span is not None else 1
        if isinstance(x, cf.Int):
            if not I32_MIN <= x.value <= U32_MAX:
                raise _fail_at(prog, f"constant {x.value} in the condition is out of range for a 32-bit value",
                               re.escape(str(abs(x.value))), line)
            return x
        if isinstance(x, cf.Reg):
            k = slot_of.get((x.thread, x.name))
            return cf.Loc("out", k) if k is not None else cf.Int(0)  # a register never written stays 0
        if x.index is None:
            if x.name not in loc_index:
                raise _fail_at(prog, f"the condition names {x.name!r}, which is not a location of the test "
                                     f"(locations: {', '.join(loc_index) or 'none'})",
                               rf"(?<![\w:]){re.escape(x.name)}\b", line)
            return cf.Loc("mem", loc_index[x.name])
        return x

    filt = None if c.filter is None else cf.map_operands(c.filter, operand)
    return Condition(c.quantifier, cf.map_operands(c.formula, operand), filt).text()
