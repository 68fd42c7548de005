"""Speed of the memory-model checker (``ptxkit.consistency``): time per candidate execution with the
bitset backend, and its speed-up over the networkx/pair-set reference backend, on the co choices of
classic shapes (IRIW+fence.sc, SB+fence.sc, MP+rel/acq, 2+2W)."""

from __future__ import annotations

import statistics
import time

from ptxkit.bench.common import Row
from ptxkit.consistency.enumerate import co_choices
from ptxkit.consistency.events import Execution, ExecutionBuilder
from ptxkit.consistency.models import check

NAME = "consistency"


def _shapes() -> list[Execution]:
    out: list[Execution] = []
    b = ExecutionBuilder("IRIW+fence.sc")
    wx = b.write(0, "x", 1, sem="relaxed", scope="gpu")
    wy = b.write(1, "y", 1, sem="relaxed", scope="gpu")
    b.read(2, "x", sem="relaxed", scope="gpu", rf=wx)
    b.fence(2, "sc", "gpu")
    b.read(2, "y", sem="relaxed", scope="gpu", rf="init")
    b.read(3, "y", sem="relaxed", scope="gpu", rf=wy)
    b.fence(3, "sc", "gpu")
    b.read(3, "x", sem="relaxed", scope="gpu", rf="init")
    out.append(b.build())
    b = ExecutionBuilder("SB+fence.sc")
    for t, (mine, other) in enumerate((("x", "y"), ("y", "x"))):
        b.write(t, mine, 1)
        b.fence(t, "sc", "gpu")
        b.read(t, other, rf="init")
    out.append(b.build())
    b = ExecutionBuilder("MP+rel-acq")
    b.write(0, "x", 1)
    f = b.write(0, "y", 1, sem="release", scope="gpu")
    b.read(1, "y", sem="acquire", scope="gpu", rf=f)
    b.read(1, "x", rf="init")
    out.append(b.build())
    b = ExecutionBuilder("2+2W")
    b.write(0, "x", 1)
    b.write(0, "y", 2)
    b.write(1, "y", 1)
    b.write(1, "x", 2)
    out.append(b.build())
    return [c for ex in out for c in co_choices(ex)]


def _time(cands: list[Execution], backend: str, repeats: int) -> float:
    runs = []
    for _ in range(max(repeats, 1)):
        t = time.perf_counter()
        for c in cands:
            check(c, backend=backend)
        runs.append((time.perf_counter() - t) / len(cands))
    return statistics.median(runs)


def run(repeats: int) -> list[Row]:
    cands = _shapes()
    bits = _time(cands, "bits", repeats)
    pairs = _time(cands, "pairs", max(1, repeats // 2))
    return [
        {"figure": f"check() per candidate, bitset backend ({len(cands)} candidates)",
         "value": f"{bits * 1e6:.0f} us", "goal": "<= 1000 us", "note": "median of repeats"},
        {"figure": "bitset vs networkx/pair-set backend", "value": f"{pairs / bits:.1f}x faster",
         "goal": ">= 5x", "note": "same verdicts (tests/test_consistency_backends.py)"},
    ]
