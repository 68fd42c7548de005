"""Reporting the async machinery's memory-model events (exec_sim/events.py: MBAR, ASYNC_*) to the
observer of the lane state, with a detail dictionary per event kind (exec_sim/observe.py reports the
plain accesses): nothing is built unless ``st.observer`` is set."""

from __future__ import annotations

from typing import Any

import numpy as np

from ptxkit import ir
from ptxkit.exec_sim.events import EvKind, SimEvent
from ptxkit.exec_sim.semantics.common import Mask, State


def observer(st: State) -> Any:
    """The observer of ``st`` (None when nobody watches, or for a one-lane evaluation state)."""
    return getattr(st, "observer", None)


def global_lanes(st: State, m: Mask) -> np.ndarray:
    """Launch-wide thread indices (``st.gtid``, set with the observer) of the lanes of ``m``."""
    return st.gtid[np.arange(st.n) if m is None else np.flatnonzero(m)]


def sem_scope(ins: ir.Instruction, default_sem: str = "weak") -> tuple[str, str]:
    """(semantics, scope) of an instruction's modifiers, with the ISA's spelling."""
    sem = next((x for x in ins.mods if x in ("relaxed", "acquire", "release", "acq_rel", "sc")), default_sem)
    scope = next((x for x in ins.mods if x in ("cta", "cluster", "gpu", "sys")), "")
    return sem, scope


def emit(st: State, ins: ir.Instruction, kind: EvKind, m: Mask, *, space: str = "",
         addr: np.ndarray | None = None, size: int = 0, sem: str = "weak", scope: str = "",
         proxy: str = "generic", lanes: np.ndarray | None = None, **detail: Any) -> None:
    """Report one event for the lanes of ``m`` (``addr``: one address per lane of ``m``)."""
    obs = observer(st)
    if obs is None:
        return
    line, col = (ins.span.line, ins.span.col) if ins.span is not None else (0, 0)
    obs(SimEvent(kind, line, ".".join((ins.opcode, *ins.mods)), global_lanes(st, m) if lanes is None else lanes,
                 space, addr, size, sem, scope, proxy, {"col": col, **detail}))
