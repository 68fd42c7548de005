"""Instructions with no data effect on the simulated state, or that stop it: ``membar``/``fence``
(§9.7.13.4, ordering is trivially respected by a sequential schedule), ``prefetch``, ``nanosleep``,
``createpolicy`` (§9.7.9.18) and ``trap`` (§9.7.12.10)."""

from __future__ import annotations

import numpy as np

from ptxkit import ir
from ptxkit.exec_sim.semantics.common import Decoding, LaneOp, Mask, State


def b_nop(ins: ir.Instruction, dec: Decoding) -> LaneOp:
    return lambda st, m: None


def b_createpolicy(ins: ir.Instruction, dec: Decoding) -> LaneOp:
    w = dec.dst(ins.operands[0], "b64")
    return lambda st, m: w(st, np.uint64(0), m)


def b_trap(ins: ir.Instruction, dec: Decoding) -> LaneOp:
    err = dec.error("trap executed")

    def op(st: State, m: Mask) -> None:
        raise err
    return op

