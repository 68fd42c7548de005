"""Vector clocks for the happens-before order of one observed execution (PTX ISA §8.9.5 causality).

Every thread ``t`` has an own epoch ``ep[t]`` and a clock row ``S[sid[t]]`` (the components of the
other threads). Rows are shared: after a barrier every participant points at the same row, so a
256-thread CTA that passes 20 barriers holds ~20 rows, not 256 × 20. An access of ``t`` is recorded as
``(t, sid[t], ep[t])``; access ``a`` happens before access ``b`` of another thread iff
``S[sid_b][t_a] >= ep_a``. A release (barrier arrival, release operation, fence) materialises the
thread's clock as a row (own component = the current epoch) and then bumps the epoch, so later accesses
of the releasing thread are not covered by what it released.
"""

from __future__ import annotations

import numpy as np

from ptxkit.errors import BoundExceeded

# the bookkeeping budget: rows × threads × 4 bytes (past it the verdict is inconclusive)
MAX_CLOCK_BYTES = 1 << 30


class Clocks:
    """The clock rows ``S``, each thread's row ``sid`` and own epoch ``ep`` (see module docstring)."""

    def __init__(self, nthreads: int) -> None:
        self.n = nthreads
        self.rows = np.zeros((16, nthreads), np.int32)
        self.nrows = 1  # row 0: the empty clock
        self.sid = np.zeros(nthreads, np.int64)
        self.ep = np.ones(nthreads, np.int32)
        # per thread, the epochs of its fence.proxy.async (ISA §8.6: generic → async proxy ordering)
        self.proxy_fences: dict[int, list[int]] = {}

    def add_agents(self, k: int) -> int:
        """Add ``k`` agents (pseudo-threads, e.g. an asynchronous copy engine); return the first index."""
        first = self.n
        self.rows = np.pad(self.rows, ((0, 0), (0, k)))
        self.sid = np.concatenate([self.sid, np.zeros(k, np.int64)])
        self.ep = np.concatenate([self.ep, np.ones(k, np.int32)])
        self.n += k
        return first

    def _append(self, row: np.ndarray) -> int:
        if self.nrows == len(self.rows):
            if 2 * self.rows.nbytes > MAX_CLOCK_BYTES:
                raise BoundExceeded(f"happens-before bookkeeping exceeds {MAX_CLOCK_BYTES >> 20} MiB "
                                    f"({self.nrows} clock rows of {self.n} threads)")
            self.rows = np.concatenate([self.rows, np.zeros_like(self.rows)])
        self.rows[self.nrows] = row
        self.nrows += 1
        return self.nrows - 1

    def clock_of(self, t: int) -> np.ndarray:
        """Thread ``t``'s full clock (a copy)."""
        row: np.ndarray = self.rows[self.sid[t]].copy()
        row[t] = self.ep[t]
        return row

    def release(self, threads: np.ndarray) -> np.ndarray:
        """Materialise each thread's clock as a row, bump its epoch; return the row ids (per thread)."""
        out = np.empty(len(threads), np.int64)
        for i, t in enumerate(threads.tolist()):
            out[i] = self._append(self.clock_of(t))
        self.ep[threads] += 1
        return out

    def joined(self, threads: np.ndarray) -> np.ndarray:
        """The join (component-wise max) of the clocks of ``threads``, as a vector."""
        sids = np.unique(self.sid[threads])
        vec = self.rows[sids].max(axis=0) if len(sids) else np.zeros(self.n, np.int32)
        np.maximum.at(vec, threads, self.ep[threads])
        return vec

    def new_row(self, vec: np.ndarray) -> int:
        return self._append(vec)

    def join_rows(self, a: int, b: int) -> int:
        """A row for the join of rows ``a`` and ``b`` (one of them when it already covers the other)."""
        if a == b or b <= 0:
            return a
        if a <= 0:
            return b
        ra, rb = self.rows[a], self.rows[b]
        if (ra >= rb).all():
            return a
        if (rb >= ra).all():
            return b
        return self._append(np.maximum(ra, rb))

    def acquire(self, threads: np.ndarray, row: int | np.ndarray) -> None:
        """Each thread's clock := its clock ⊔ ``row`` (one row id for all, or one per thread)."""
        rows = np.broadcast_to(np.asarray(row, np.int64), (len(threads),))
        for t, r in zip(threads.tolist(), rows.tolist()):
            self.sid[t] = self.join_rows(int(self.sid[t]), int(r))

    def set_row(self, threads: np.ndarray, row: int) -> None:
        """The threads' clocks become ``row`` (a barrier's join, which covers each of them)."""
        self.sid[threads] = row

    def proxy_fence(self, threads: np.ndarray) -> None:
        """The threads execute a proxy fence: note the epoch (what came before it) and start a new one."""
        for t in threads.tolist():
            self.proxy_fences.setdefault(t, []).append(int(self.ep[t]))
        self.ep[threads] += 1

    def fenced(self, t_a: np.ndarray, ep_a: np.ndarray, sid_b: np.ndarray) -> np.ndarray:
        """Vectorised: is there a proxy fence of thread ``t_a`` after access ``(t_a, ep_a)`` that
        happens before the access whose clock row is ``sid_b``?"""
        out = np.zeros(len(t_a), bool)
        cover = self.rows[sid_b, t_a]
        for t in np.unique(t_a).tolist():
            f = np.asarray(self.proxy_fences.get(t, []), np.int64)
            if len(f) == 0:
                continue
            sel = t_a == t
            k = np.searchsorted(f, ep_a[sel])  # the first fence at or after the access's epoch
            ok = k < len(f)
            first = f[np.minimum(k, len(f) - 1)]
            out[sel] = ok & (first <= cover[sel])
        return out

    def ordered(self, t_a: np.ndarray, ep_a: np.ndarray, sid_b: np.ndarray) -> np.ndarray:
        """Vectorised: does access ``(t_a, ep_a)`` happen before an access whose clock row is ``sid_b``?"""
        out: np.ndarray = self.rows[sid_b, t_a] >= ep_a
        return out
