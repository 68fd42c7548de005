"""What every benchmark shares: where the shared corpora are, the row type, timing helpers."""

from __future__ import annotations

import os
import statistics
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]

Row = dict[str, Any]
"""One printed figure: ``figure``, ``value``, ``goal``, ``note`` and optionally ``ours``,
``reference``, ``ratio`` (docs/performance.md)."""


def shared_corpora() -> Path:
    """``$PTXKIT_SHARED/corpora`` (default ``../shared/corpora`` beside the checkout), like the tests."""
    return Path(os.environ.get("PTXKIT_SHARED", ROOT.parent / "shared")) / "corpora"


def timed(fn: Callable[[], object]) -> float:
    """Wall seconds of one call."""
    t = time.perf_counter()
    fn()
    return time.perf_counter() - t


def min_median(xs: Sequence[float]) -> tuple[float, float]:
    return min(xs), statistics.median(xs)
