"""What the simulator tells an observer while it runs (PTX ISA §8 memory model events).

``ptxkit verify`` checks race freedom and synchronisation by watching one execution: every memory
access, barrier, fence and asynchronous operation is reported as a :class:`SimEvent` to the
``observer`` of the lane state (``None`` when nobody watches, the default: then nothing is built).
The names follow the ISA (§8.2 operation types, §8.5 scopes, §8.6 proxies); the simulator does not
import ``consistency`` (see docs/architecture.md), so semantics, scopes and proxies are plain strings
with the ISA's spelling: ``sem`` in {"weak", "relaxed", "acquire", "release", "acq_rel", "sc",
"volatile", "mmio"}, ``scope`` in {"", "cta", "cluster", "gpu", "sys"}, ``proxy`` in {"generic",
"async", "tensormap", …}.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

import numpy as np


class EvKind(str, Enum):
    """The kinds of reported events."""

    LD = "ld"  # a read (ld, ldu, ldmatrix, the read half of a copy)
    ST = "st"  # a write (st, stmatrix, the write half of a copy)
    RMW = "rmw"  # atom (red is an RMW whose read is discarded)
    FENCE = "fence"  # fence.{sc,acq_rel}, membar; fence.proxy.* has proxy set to the proxy kind
    BAR_ARRIVE = "bar_arrive"  # a thread arrives at a CTA barrier (bar.sync/bar.arrive/bar.red)
    BAR_RELEASE = "bar_release"  # a barrier phase completes: detail["arrived"] = global thread ids
    MBAR = "mbarrier"  # detail["action"]: init|arrive|expect_tx|complete_tx|test_wait|try_wait|inval
    ASYNC_ISSUE = "async_issue"  # cp.async / cp.async.bulk(.tensor) / wgmma issued: detail describes it
    ASYNC_COMMIT = "async_commit"  # cp.async.commit_group, wgmma.commit_group
    ASYNC_WAIT = "async_wait"  # cp.async.wait_group/wait_all, wgmma.wait_group: detail["n"] = groups left
    EXIT = "exit"  # threads exit


@dataclass
class SimEvent:
    """One instruction's effect on the memory model, for the lanes in ``lanes``.

    ``lanes`` are global thread indices of the launch (CTA-major: ctaid linear · threads per CTA +
    tid linear); ``addr`` holds one address per entry of ``lanes`` (generic addresses resolved to
    their state space ``space``: "global" | "shared" | "local" | "const" | "param")."""

    kind: EvKind
    line: int  # source line of the instruction (0 when none)
    opcode: str  # the instruction's full opcode, e.g. "ld.global.acquire.gpu.u32"
    lanes: np.ndarray
    space: str = ""
    addr: np.ndarray | None = None
    size: int = 0
    sem: str = "weak"
    scope: str = ""
    proxy: str = "generic"
    detail: dict[str, Any] = field(default_factory=dict)


Observer = Callable[[SimEvent], None]
