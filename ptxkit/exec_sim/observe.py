"""Reporting memory-model events to an observer (PTX ISA §8; see ``exec_sim/events.py``).

Each memory instruction reads its semantics, scope and proxy from its modifiers once, at decode time
(:func:`access_info`); at run time :func:`report` is only called when ``st.observer`` is set, so a run
without an observer pays one attribute test per memory instruction. Generic addresses are resolved to
their state space (ISA §6.4.1.1: the shared, local and const windows of the generic space)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ptxkit import ir
from ptxkit.exec_sim.events import EvKind, SimEvent
from ptxkit.exec_sim.memory import (
    CLUSTER_SHIFT,
    CONST_WINDOW,
    LOCAL_WINDOW,
    SHARED_WINDOW,
    WINDOW_SIZE,
    cluster_slots,
    global_ctas,
)

_SEMS = ("weak", "relaxed", "acquire", "release", "acq_rel", "sc", "volatile", "mmio")
_SCOPES = ("cta", "cluster", "gpu", "sys")
_MEMBAR = {"cta": "cta", "gl": "gpu", "sys": "sys"}


@dataclass(frozen=True)
class AccessInfo:
    """What the memory model needs to know of one instruction (ISA §8.2 operation, §8.5 scope)."""

    opcode: str
    line: int
    col: int
    sem: str
    scope: str
    proxy: str = "generic"


def access_info(ins: ir.Instruction, kind: EvKind) -> AccessInfo:
    """Semantics and scope from the modifiers (ISA §9.7.9.8 ld, §9.7.9.9 st, §9.7.13.4 fence/membar,
    §9.7.13.5-6 atom/red). Defaults: ld/st ``.weak``; atom/red ``.relaxed`` at ``.gpu``;
    ``.volatile`` and ``.mmio`` accesses are relaxed at ``.sys`` (§8.2); ``fence`` without ``.sem`` is
    ``.acq_rel`` and ``membar.{cta,gl,sys}`` is ``fence.sc.{cta,gpu,sys}``."""
    mods = ins.mods
    sem = next((m for m in mods if m in _SEMS), "")
    scope = next((m for m in mods if m in _SCOPES), "")
    proxy = "generic"
    if kind == EvKind.FENCE:
        if ins.opcode == "membar":
            lvl = next((m for m in mods if m in _MEMBAR), "")
            sem, scope = ("sc", _MEMBAR[lvl]) if lvl else ("sc", "sys")
        if "proxy" in mods:
            # fence.proxy.<kind>[.<space>]: the proxy kind follows .proxy
            i = mods.index("proxy")
            proxy = ".".join(mods[i + 1:]) or "alias"
            sem = sem or "acq_rel"
        sem = sem or "acq_rel"
    elif kind == EvKind.RMW:
        sem = sem or "relaxed"
        scope = scope or "gpu"
    else:
        if sem in ("volatile", "mmio"):
            scope = "sys"
        sem = sem or "weak"
    sp = ins.span
    line, col = (sp.line, sp.col) if sp is not None else (0, 0)
    opcode = ".".join((ins.opcode, *mods))
    return AccessInfo(opcode, line, col, sem, scope, proxy)


def report(st: Any, kind: EvKind, info: AccessInfo, space: str, addr: Any, size: int,
           m: np.ndarray | None, detail: dict[str, Any] | None = None) -> None:
    """Tell ``st.observer`` that the lanes of ``m`` performed ``kind`` at ``addr`` (per lane)."""
    obs = st.observer
    lanes = np.arange(st.n) if m is None else np.flatnonzero(m)
    if len(lanes) == 0:
        return
    gt = st.gtid[lanes]
    if addr is None:  # fences, warp barriers: no memory location
        obs(SimEvent(kind, info.line, info.opcode, gt, "", None, 0, info.sem, info.scope, info.proxy,
                     {"col": info.col, **(detail or {})}))
        return
    a = np.broadcast_to(np.asarray(addr, dtype=np.uint64), (st.n,))[lanes]
    parts: list[tuple[str, np.ndarray, np.ndarray]] = []
    if space == "generic":
        rest = np.ones(len(a), bool)
        for sp, base in (("shared", SHARED_WINDOW), ("local", LOCAL_WINDOW), ("const", CONST_WINDOW)):
            sel = (a >= np.uint64(base)) & (a < np.uint64(base + WINDOW_SIZE))
            if sel.any():
                parts.append((sp, sel, a[sel] - np.uint64(base)))
                rest &= ~sel
        if rest.any():
            parts.append(("global", rest, a[rest]))
    else:
        parts.append((space, np.ones(len(a), bool), a))
    for sp, sel, aa in parts:
        d: dict[str, Any] = {"col": info.col}
        if sp == "shared" and (aa >= np.uint64(1 << CLUSTER_SHIFT)).any():
            # .shared::cluster addresses (mapa): the owning CTA of each byte, and its offset
            slots, aa = cluster_slots(st, lanes[sel], aa)
            d["cta"] = global_ctas(st, slots)
        if detail:
            d.update({k: (v[sel] if isinstance(v, np.ndarray) and v.shape == sel.shape else v)
                      for k, v in detail.items()})
        obs(SimEvent(kind, info.line, info.opcode, gt[sel], sp, aa, size, info.sem, info.scope,
                     info.proxy, d))
