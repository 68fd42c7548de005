"""The model against Dat3M's expected-outcome CSVs, independently of the explorer.

A deliberately small enumerator (straight-line litmus tests only: no branches, no barrier quorums or
register barrier names — the explorer handles those) builds every candidate execution of a test (all
rf choices, every *partial* coherence order; total co when the condition reads final memory) and asks
``ptxkit.consistency.check``. The verdict must equal the CSV row (0/1 as in
../shared/docs/memory-model.md: the specification holds). Uses the explorer helper's litmus parser;
skips without it or without ../shared.
"""

from __future__ import annotations

import csv
import importlib
import itertools
from dataclasses import dataclass, replace

import pytest
from conftest import LITMUS_CORPUS, needs_shared

from ptxkit.consistency.enumerate import co_choices
from ptxkit.consistency.events import ExecutionBuilder, resolve_location
from ptxkit.consistency.models import check
from ptxkit.explore import condition as cf
from ptxkit.explore.program import ConcurrentProgram
from ptxkit.ir import Addr, Imm, Label, Reg, Sym

SEMS = ("weak", "relaxed", "acquire", "release", "acq_rel", "sc")
SCOPES = ("cta", "cluster", "gpu", "sys")
RMW = {"add": lambda v, a: v + a, "sub": lambda v, a: v - a, "exch": lambda v, a: a,
       "and": lambda v, a: v & a, "or": lambda v, a: v | a, "xor": lambda v, a: v ^ a,
       "min": min, "max": max}
LOCAL = {"add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": lambda a, b: a * b,
         "div": lambda a, b: int(a / b) if b else 0}
CMP = {"==": lambda a, b: a == b, "=": lambda a, b: a == b, "!=": lambda a, b: a != b,
       "<": lambda a, b: a < b, ">": lambda a, b: a > b, "<=": lambda a, b: a <= b, ">=": lambda a, b: a >= b}


class Skip(Exception):
    """A construct this small enumerator leaves to the explorer."""


@dataclass
class Op:
    thread: object  # ThreadProgram
    kind: str  # R W A(tomic) F FP(proxy/alias fence) B L(ocal)
    ins: object
    loc: str | None = None
    vaddr: str | None = None
    proxy: str = "generic"
    sem: str = "weak"
    scope: str | None = None


def _mem(prog: ConcurrentProgram, t, ins, kind: str, operand) -> Op:
    if not isinstance(operand, Addr) or not isinstance(operand.base, Sym):
        raise Skip("pointer operand")
    phys, vaddr, proxy = resolve_location(prog.locations, operand.base.name)
    if "const" in ins.mods:
        proxy = "constant"
    sem = next((m for m in ins.mods if m in SEMS), "weak")
    scope = next((m for m in ins.mods if m in SCOPES), None)
    return Op(t, kind, ins, phys, vaddr, proxy, sem, scope)


def lower(prog: ConcurrentProgram) -> list[Op]:
    ops = []
    for t in prog.threads:
        for s in t.body:
            if isinstance(s, Label) or s.guard is not None:
                raise Skip("control flow")
            o = s.opcode
            if o in ("ld", "tld", "suld"):
                ops.append(_mem(prog, t, s, "R", s.operands[1]))
            elif o in ("st", "sust"):
                ops.append(_mem(prog, t, s, "W", s.operands[0]))
            elif o in ("atom", "red"):
                ops.append(_mem(prog, t, s, "A", s.operands[1 if o == "atom" else 0]))
            elif o == "fence":
                if s.mods[0] == "proxy":
                    ops.append(Op(t, "FP", s))
                else:
                    ops.append(Op(t, "F", s, sem=s.mods[0], scope=s.mods[1]))
            elif o == "bar":
                if len(s.operands) > 2 or any(isinstance(x, Reg) for x in s.operands):
                    raise Skip("barrier quorum / register name")
                ops.append(Op(t, "B", s))
            elif o in ("mov", *tuple(LOCAL)):
                ops.append(Op(t, "L", s))
            else:
                raise Skip(o)
    return ops


def _val(x, regs):
    if isinstance(x, Imm):
        return x.value
    if isinstance(x, Reg):
        return regs.get(x.name)
    raise Skip("operand")


def evaluate(prog, ops, rf):
    """Values of every read/write and the final registers, given rf (op index → writer index or None
    for init). Iterated to a fixpoint since a write's value may depend on a read of another thread."""
    wval: dict[int, int | None] = {}
    for _ in range(len(ops) + 2):
        regs = {t.index: {k: v for k, v in t.init_regs.items() if isinstance(v, int)} for t in prog.threads}
        rval = {}
        for k, op in enumerate(ops):
            tr, s = regs[op.thread.index], op.ins
            if op.kind in ("R", "A"):
                w = rf[k]
                v = prog.locations[op.loc].initial if w is None else wval.get(w)
                rval[k] = v
                if op.kind == "A":
                    rop = next(m for m in s.mods if m in RMW or m == "cas")
                    args = [_val(x, tr) for x in s.operands[(2 if s.opcode == "atom" else 1):]]
                    if v is None or None in args:
                        wval[k] = None
                    elif rop == "cas":
                        wval[k] = args[1] if v == args[0] else v
                    else:
                        wval[k] = RMW[rop](v, args[0])
                    if s.opcode == "atom":
                        tr[s.operands[0].name] = v
                else:
                    tr[s.operands[0].name] = v
            elif op.kind == "W":
                wval[k] = _val(s.operands[1], tr)
            elif op.kind == "L":
                if s.opcode == "mov":
                    tr[s.operands[0].name] = _val(s.operands[1], tr)
                else:
                    a, b = _val(s.operands[1], tr), _val(s.operands[2], tr)
                    tr[s.operands[0].name] = None if a is None or b is None else LOCAL[s.opcode](a, b)
    return rval, wval, regs


def build(prog, ops, rf, rval, wval):
    b = ExecutionBuilder(prog.name)
    for t in prog.threads:
        b.thread(t.index, cta=t.cta, gpu=t.gpu)
    for n, loc in prog.locations.items():
        if loc.alias_of is None:
            b.init(n, loc.initial)
    ids: dict[int, tuple[int, int]] = {}  # op index → (read id, write id)
    for k, op in enumerate(ops):
        i = op.thread.index
        kw = dict(sem=op.sem, scope=op.scope, proxy=op.proxy, vaddr=op.vaddr)
        if op.kind == "R":
            r = b.read(i, op.loc, rval[k], **kw)
            ids[k] = (r, r)
        elif op.kind == "W":
            w = b.write(i, op.loc, wval[k], **kw)
            ids[k] = (w, w)
        elif op.kind == "A":
            r, w = b.rmw(i, op.loc, rval[k], wval[k], sem=op.sem, scope=op.scope)
            for e in (r, w):
                b.events[e] = replace(b.events[e], proxy=op.proxy, vaddr=op.vaddr)
            ids[k] = (r, w)
        elif op.kind == "F":
            b.fence(i, op.sem, op.scope)
        elif op.kind == "FP":
            (b.alias_fence(i) if op.ins.mods[1] == "alias" else b.proxy_fence(i, op.ins.mods[1]))
        elif op.kind == "B":
            bid = tuple(x.value for x in op.ins.operands)
            b.barrier(i, bid[0] * 65536 + (bid[1] if len(bid) > 1 else 0),
                      op="arrive" if "arrive" in op.ins.mods else "sync")
    for k, w in rf.items():
        b.add_rf(b.init(ops[k].loc) if w is None else ids[w][1], ids[k][0])
    return b.build()


def outcomes(prog: ConcurrentProgram, model: str):
    """(registers, final memory) of every consistent execution."""
    ops = lower(prog)
    reads = [k for k, op in enumerate(ops) if op.kind in ("R", "A")]
    writers: dict[str, list[int]] = {}
    for k, op in enumerate(ops):
        if op.kind in ("W", "A"):
            writers.setdefault(op.loc, []).append(k)
    uses_mem = any(isinstance(o, cf.Loc) for o in cf.operands(prog.condition.formula))
    out = []
    for choice in itertools.product(*[[None, *writers.get(ops[r].loc, [])] for r in reads]):
        rf = dict(zip(reads, choice))
        rval, wval, regs = evaluate(prog, ops, rf)
        if any(v is None for v in wval.values()):
            continue  # a value from thin air: no such candidate
        ex = build(prog, ops, rf, rval, wval)
        for cand in co_choices(ex, total=uses_mem):
            if not check(cand, model, first_only=True).consistent:
                continue
            final = {}
            for e in cand.events:
                if e.kind == "W" and not any((e.id, f) in cand.co for f in range(len(cand.events))):
                    final[e.location] = e.value
            out.append((regs, final))
    return out


def holds(f, regs, final) -> bool:
    """The condition on one outcome — written here, by recursion on the formula, independently of
    ``ptxkit.explore.condition.evaluate``."""
    if isinstance(f, (cf.And, cf.Or)):
        vals = [holds(a, regs, final) for a in f.args]
        return all(vals) if isinstance(f, cf.And) else any(vals)
    if isinstance(f, cf.Not):
        return not holds(f.arg, regs, final)
    if isinstance(f, cf.Atom):
        return f.value

    def operand(x):
        if isinstance(x, cf.Int):
            return x.value
        if isinstance(x, cf.Reg):
            return regs.get(x.thread, {}).get(x.name, 0)
        if x.index is None:
            return final.get(x.name, 0)
        raise Skip(f"operand {x}")

    return CMP[f.op](operand(f.lhs), operand(f.rhs))


def verdict(prog: ConcurrentProgram, model: str) -> tuple[int, int]:
    """(1 if the condition as a specification holds else 0, number of consistent executions)."""
    c = prog.condition
    outs = [o for o in outcomes(prog, model) if c.filter is None or holds(c.filter, *o)]
    sat = [holds(c.formula, *o) for o in outs]
    if c.quantifier == "exists":
        return int(any(sat)), len(outs)
    if c.quantifier == "not exists":
        return int(not any(sat)), len(outs)
    return int(all(sat)), len(outs)


def _rows(csvname: str) -> list[tuple[str, int]]:
    f = LITMUS_CORPUS / csvname
    if not f.is_file():
        return []
    return [(r[0], int(r[1])) for r in csv.reader(f.open()) if r and r[0].endswith(".litmus")]


@needs_shared
@pytest.mark.parametrize("csvname,model", [("PTXv7_5-expected.csv", "ptx-7.5"),
                                           ("PTXv6_0-expected.csv", "ptx-6.0")])
def test_model_agrees_with_dat3m(csvname, model):
    parser = importlib.import_module("ptxkit.litmus.parser")
    rows = _rows(csvname)
    good, skipped, bad = 0, {}, []
    for rel, expected in rows:
        path = LITMUS_CORPUS / rel
        try:
            got, _ = verdict(parser.parse_litmus_file(path), model)
        except Skip as e:
            skipped[rel] = str(e)
            continue
        if got == expected:
            good += 1
        else:
            bad.append(f"{rel}: expected {expected}, got {got}")
    assert not bad, "\n".join(bad)
    # Left to the explorer, for a named reason only: 27 rows of each CSV (branches, barriers with a
    # thread count or register id, setp) — the other 170 / 70 rows are decided here.
    assert set(skipped.values()) <= {"control flow", "barrier quorum / register name", "setp"}, skipped
    assert len(skipped) <= 27 and good == len(rows) - len(skipped), (good, sorted(skipped))
    assert len(rows) == (97 if model == "ptx-6.0" else 197)
