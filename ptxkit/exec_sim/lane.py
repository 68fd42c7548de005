"""One non-memory instruction decoded once and evaluated one lane at a time: how single-thread
schedulers (the explorer's oracle-driven threads) share the simulator's instruction semantics (PTX ISA §9.7)."""

from __future__ import annotations

import numpy as np

from ptxkit import ir
from ptxkit.exec_sim import semantics
from ptxkit.exec_sim.decode import Decoder
from ptxkit.exec_sim.program import SPECIAL, Scope
from ptxkit.exec_sim.values import storage_bits
from ptxkit.ptx import isa


class _OneLane:
    """The state a semantics closure sees when a single-thread scheduler runs it (usually ``n == 1``)."""

    __slots__ = ("R", "cc", "n", "observer")

    def __init__(self, R: list, cc: np.ndarray, n: int = 1):
        self.n = n
        self.observer = None  # single-lane evaluation reports nothing (memory effects are the caller's)
        self.R = R
        self.cc = cc


class LaneEval:
    """One non-memory instruction decoded once, evaluated for one lane at a time.

    This is how single-thread schedulers (the explorer's oracle-driven threads,
    ``ptxkit.explore.oracle``) share the simulator's instruction semantics (ISA §9.7): the
    instruction (without its guard, which the caller decides) is bound by
    :func:`ptxkit.exec_sim.semantics.build` against a private register file holding just the
    registers it names, typed by ``reg_types`` (name → declared PTX type; ``default`` otherwise).
    Special registers (``%tid.x`` …) are ordinary 32-bit registers here: the caller supplies them.

    ``evaluate(values)`` takes the registers' raw bits as Python ints (``values[name]``; missing
    names read 0; bits above the register width are dropped) and returns the raw bits of every
    register the instruction writes (predicates as 0/1). The carry flag CC.CF (``add.cc``/``addc``,
    ISA §9.7.2) travels as the pseudo register ``"%cc"``.
    """

    CC = "%cc"

    def __init__(self, ins: ir.Instruction, reg_types: dict[str, str], module: ir.Module,
                 default: str = "b32"):
        dec = Decoder(module, ir.Function("entry", "<lane>", []))
        dec.scope = Scope(None)
        ins = ir.Instruction(ins.opcode, ins.mods, ins.operands, None, ins.span)
        names: list[str] = []
        for o in ins.operands:
            for r in isa.registers(o):
                if r not in names:
                    names.append(r)
        for r in names:
            typ = reg_types.get(r)
            if typ is None:
                typ = "u32" if r.split(".")[0] in SPECIAL else default
            dec.new_reg(r, typ)
        self.names = names
        self.slots = [dec.scope.regs[r] for r in names]
        written = [r for i in isa.defs(ins) for r in isa.registers(ins.operands[i])]
        self.defs = tuple(r for r in names if r in written)
        self.sets_cc = "cc" in ins.mods
        dec.instr = ins
        self.fn = semantics.build(ins, dec)
        # the register file may hold temporaries the builder allocated (e.g. carries)
        self.dtypes = list(dec.prog.reg_dtypes)
        self.masks = [1 if dt == np.bool_ else (1 << storage_bits(dt)) - 1 for dt in self.dtypes]

    def evaluate(self, values: dict[str, int]) -> dict[str, int]:
        st = self._run(values, 1)
        out = {name: int(st.R[idx][0]) for name, idx in zip(self.names, self.slots) if name in self.defs}
        if self.sets_cc:
            out[self.CC] = int(st.cc[0])
        return out

    def evaluate_lanes(self, values: dict, n: int) -> dict[str, np.ndarray]:
        """The same on ``n`` lanes (a value may be a per-lane array): the written registers' arrays.
        Lets a single-thread scheduler ask a warp-wide instruction what it does for a lane (e.g.
        which lane ``shfl.sync`` reads, with the lane numbers as the shuffled value)."""
        st = self._run(values, n)
        return {name: st.R[idx].copy() for name, idx in zip(self.names, self.slots) if name in self.defs}

    def _run(self, values: dict, n: int) -> _OneLane:
        R = [np.zeros(n, dt) for dt in self.dtypes]
        for name, idx in zip(self.names, self.slots):
            v = values.get(name, 0)
            dt = self.dtypes[idx]
            if isinstance(v, np.ndarray):
                R[idx] = (v != 0) if dt == np.bool_ else (v.astype(np.uint64) & np.uint64(self.masks[idx])).astype(dt)
            else:
                R[idx] = np.full(n, bool(v) if dt == np.bool_ else int(v) & self.masks[idx], dt)
        st = _OneLane(R, np.full(n, bool(values.get(self.CC, 0))), n)
        with np.errstate(all="ignore"):
            self.fn(st, None)
        return st
