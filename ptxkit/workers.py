"""One local worker pool for ``explore --jobs`` and ``verify --jobs`` (multiprocessing, fork).

The workers are forked, so they see the parent's objects without pickling them (set a module global
before calling :func:`fork_map`). Ctrl-C and SIGTERM are the parent's to report (one line,
``ptxkit.cli``): a worker ignores SIGINT and drops the CLI's SIGTERM handler it inherited, so when
the pool is terminated it just stops, with no traceback per worker.
"""

from __future__ import annotations

import multiprocessing
import signal
from collections.abc import Callable, Iterable
from typing import TypeVar

T = TypeVar("T")
R = TypeVar("R")


def _quiet() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def fork_map(fn: Callable[[T], R], items: Iterable[T], jobs: int) -> list[R]:
    """``[fn(x) for x in items]`` on ``jobs`` forked processes, in order."""
    pool = multiprocessing.get_context("fork").Pool(jobs, initializer=_quiet)
    try:
        out = pool.map(fn, items)
        pool.close()
    except BaseException:
        pool.terminate()  # Ctrl-C: the workers ignore SIGINT; the parent reports it once
        raise
    finally:
        pool.join()
    return out
