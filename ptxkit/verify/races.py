"""Data races of the observed execution (PTX ISA §8: two conflicting accesses, unordered by causality
order, not morally strong), found per location with numpy instead of pairwise.

Accesses are split into cells of the smallest access size and sorted by (cell, observation order).
Happens-before is consistent with the observation order, so a pair is checked in one direction only.

* **Weak pairs** (neither access strong): it is enough to check every access against the previous
  write of its cell, and every read against the next write. If some weak pair (a, b) races, take the
  one whose b comes first; let w be the last write before b. If a is a write before w, (a, w) is an
  earlier pair, so it is ordered, and a→w→b would order (a, b) unless (w, b) races. If a is a read
  before w, the same holds for (a, w). If a comes after w, a is a read and b the next write after it.
  So a race exists iff one of these O(n) pairs races (the argument only uses weak-weak pairs).
* **Pairs with a strong access** are checked exhaustively within their cell (atomics, flags, locks:
  few locations), up to :data:`MAX_PAIRS` (past it: inconclusive). Morally strong pairs (§8.7: both
  strong, each scope includes the other thread, same proxy, complete overlap) are never races.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ptxkit.errors import BoundExceeded
from ptxkit.verify.clocks import Clocks
from ptxkit.verify.context import Accesses, cluster_of

MAX_PAIRS = 20_000_000
CHUNK = 1 << 20  # rows of the weak-pair analysis at a time


@dataclass
class Table:
    """All recorded accesses as flat arrays (one row per access element)."""

    thread: np.ndarray
    sid: np.ndarray
    ep: np.ndarray
    ev: np.ndarray
    pos: np.ndarray
    key: np.ndarray
    size: np.ndarray
    write: np.ndarray
    strong: np.ndarray
    scope: np.ndarray
    proxy: np.ndarray
    phase: np.ndarray
    value: np.ndarray

    @staticmethod
    def of(acc: Accesses) -> Table:
        def cat(xs: list[np.ndarray], dt: type) -> np.ndarray:
            return np.concatenate(xs) if xs else np.zeros(0, dt)
        return Table(cat(acc.thread, np.int32), cat(acc.sid, np.int32), cat(acc.ep, np.int32),
                     cat(acc.ev, np.int32), cat(acc.pos, np.int32), cat(acc.key, np.int64),
                     cat(acc.size, np.int8), cat(acc.write, np.bool_), cat(acc.strong, np.bool_),
                     cat(acc.scope, np.int8), cat(acc.proxy, np.int8), cat(acc.phase, np.int32),
                     cat(acc.value, np.int64))


@dataclass
class Race:
    """Two accesses (rows of the :class:`Table`) that race; ``a`` was observed first."""

    a: int
    b: int


def find_races(tab: Table, clocks: Clocks, cta_threads: int, clusters: np.ndarray,
               limit: int = 1) -> list[Race]:
    """Up to ``limit`` racing pairs (the earliest by the later access first)."""
    if len(tab.key) == 0:
        return []
    # only accesses in an 8-byte block somebody writes can conflict (accesses are at most 8 bytes and
    # aligned to their size): read-only data (a GEMM's inputs) leaves here, before the sort
    block = tab.key >> 3
    cand = np.flatnonzero(np.isin(block, np.unique(block[tab.write])))
    if len(cand) == 0:
        return []
    g = int(tab.size[cand].min())
    shift = g.bit_length() - 1
    rep = (tab.size[cand].astype(np.int64) // g)
    row = np.repeat(cand, rep)
    off = np.arange(len(row)) - np.repeat(np.cumsum(rep) - rep, rep)
    cell = (tab.key[row] + off * g) >> shift
    # keep the cells with a write and two threads
    order = np.lexsort((tab.pos[row], tab.ev[row], cell))
    cell, row = cell[order], row[order]
    starts = np.flatnonzero(np.r_[True, cell[1:] != cell[:-1]])
    ends = np.r_[starts[1:], len(cell)]
    w = tab.write[row]
    th = tab.thread[row]
    any_w = np.maximum.reduceat(w.astype(np.int8), starts) > 0
    multi = np.minimum.reduceat(th, starts) != np.maximum.reduceat(th, starts)
    keep_cell = any_w & multi
    if not keep_cell.any():
        return []
    cell_id = np.repeat(np.arange(len(starts)), ends - starts)
    keep = keep_cell[cell_id]
    cell, row, cell_id = cell[keep], row[keep], cell_id[keep]
    strong_cell = np.zeros(len(starts), bool)
    np.logical_or.at(strong_cell, cell_id, tab.strong[row])
    # the weak pairs chunk by chunk of whole cells (cells are independent): bounded temporaries
    races: list[Race] = []
    bounds = np.flatnonzero(np.r_[True, cell[1:] != cell[:-1]])
    at = 0
    while at < len(cell):
        k = int(np.searchsorted(bounds, at + CHUNK, side="right")) - 1
        if bounds[k] > at:
            stop = int(bounds[k])  # whole cells up to about CHUNK rows
        else:  # one cell of more than CHUNK rows: alone
            nxt = int(np.searchsorted(bounds, at, side="right"))
            stop = int(bounds[nxt]) if nxt < len(bounds) else len(cell)
        races += _weak_pairs(tab, clocks, cell[at:stop], row[at:stop])
        at = stop
    sc = strong_cell[cell_id]
    if sc.any():
        races += _strong_pairs(tab, clocks, cell[sc], row[sc], cta_threads, clusters)
    races.sort(key=lambda r: (int(tab.ev[r.b]), int(tab.pos[r.b]), int(tab.ev[r.a])))
    return races[:limit]


def _weak_pairs(tab: Table, clocks: Clocks, cell: np.ndarray, row: np.ndarray) -> list[Race]:
    """The O(n) pairs of the module docstring, with one refinement: the weak writes of one instruction
    (one event) to a cell that all store the same value form a *group* — e.g. every lane of a warp
    storing the warp's partial sum to one shared word, as Triton's reductions do. The ISA calls the
    unordered writes of a group a race, but every order of them leaves the same value, so they are
    not reported; the group counts as one write whose every member must be ordered with the access
    before or after it (so a read that misses one lane's write is still a race)."""
    weak = ~tab.strong[row]
    cell, row = cell[weak], row[weak]
    m = len(row)
    if m == 0:
        return []
    idx = np.arange(m)
    start = np.flatnonzero(np.r_[True, cell[1:] != cell[:-1]])
    first = np.repeat(start, np.diff(np.r_[start, m]))
    last = np.repeat(np.r_[start[1:], m], np.diff(np.r_[start, m]))
    w = tab.write[row]
    ev = tab.ev[row]
    # groups: runs of writes with the same (cell, event); a run whose values differ is split up
    brk = np.r_[True, (cell[1:] != cell[:-1]) | (ev[1:] != ev[:-1]) | ~w[1:] | ~w[:-1]]
    gid = np.cumsum(brk) - 1
    val = tab.value[row]
    gmin = np.minimum.reduceat(val, np.flatnonzero(brk))
    gmax = np.maximum.reduceat(val, np.flatnonzero(brk))
    same = (gmin == gmax)[gid]
    gstart = np.where(same, np.flatnonzero(brk)[gid], idx)
    gend = np.where(same, np.r_[np.flatnonzero(brk)[1:], m][gid], idx + 1)
    prev_incl = np.maximum.accumulate(np.where(w, idx, -1))
    prev = np.r_[-1, prev_incl[:-1]]
    prev = np.where(prev >= first, prev, -1)
    nxt_incl = np.minimum.accumulate(np.where(w, idx, m)[::-1])[::-1]
    nxt = np.r_[nxt_incl[1:], m]
    nxt = np.where(nxt < last, nxt, -1)
    # (every member of the previous write's group, i); a member of a group takes the group's previous
    # write (its own group is not a race)
    prev = np.where(w & same, prev[gstart], prev)
    has = prev >= 0
    b1 = idx[has]
    lo1, hi1 = gstart[prev[has]], gend[prev[has]]
    a1 = _ranges(lo1, hi1)
    b1 = np.repeat(b1, hi1 - lo1)
    # (i, every member of the next write's group) for reads i
    rd = (~w) & (nxt >= 0)
    lo2, hi2 = gstart[nxt[rd]], gend[nxt[rd]]
    b2 = _ranges(lo2, hi2)
    a2 = np.repeat(idx[rd], hi2 - lo2)
    a = row[np.r_[a1, a2]]
    b = row[np.r_[b1, b2]]
    return _unordered(tab, clocks, a, b)


def _ranges(lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """The concatenation of range(lo[i], hi[i])."""
    n = hi - lo
    if len(n) == 0 or n.sum() == 0:
        return np.zeros(0, np.int64)
    off = np.arange(int(n.sum())) - np.repeat(np.cumsum(n) - n, n)
    out: np.ndarray = np.repeat(lo, n) + off
    return out


def _unordered(tab: Table, clocks: Clocks, a: np.ndarray, b: np.ndarray) -> list[Race]:
    """Of the pairs (a observed before b), those by different threads that are not ordered."""
    diff = tab.thread[a] != tab.thread[b]
    a, b = a[diff], b[diff]
    if len(a) == 0:
        return []
    ordered = clocks.ordered(tab.thread[a], tab.ep[a], tab.sid[b])
    # a generic-proxy write before an async-proxy access (a TMA store or wgmma reading what a thread
    # wrote) is ordered only through a fence.proxy.async of the writer in between (ISA §8.6, the
    # proxy-preserved base causality order of §8.9.5); the async proxy's writes reach generic readers
    # through their completion mechanism (mbarrier, wait_group), which the clocks already carry
    cross = ordered & tab.write[a] & (tab.proxy[a] == 0) & (tab.proxy[b] != 0)
    if cross.any():
        i = np.flatnonzero(cross)
        ordered[i] = clocks.fenced(tab.thread[a[i]], tab.ep[a[i]], tab.sid[b[i]])
    bad = np.flatnonzero(~ordered)
    return [Race(int(a[i]), int(b[i])) for i in bad[:64]]


def _strong_pairs(tab: Table, clocks: Clocks, cell: np.ndarray, row: np.ndarray, cta_threads: int,
                  clusters: np.ndarray) -> list[Race]:
    """Every conflicting pair of a cell with a strong access, minus the morally strong ones."""
    out: list[Race] = []
    start = np.flatnonzero(np.r_[True, cell[1:] != cell[:-1]])
    end = np.r_[start[1:], len(cell)]
    total = int(((end - start) ** 2).sum() // 2)
    if total > MAX_PAIRS:
        raise BoundExceeded(f"{total} access pairs at atomically accessed locations exceed the bound "
                            f"of {MAX_PAIRS}")
    for s, e in zip(start.tolist(), end.tolist()):
        r = row[s:e]
        i, j = np.triu_indices(len(r), 1)
        a, b = r[i], r[j]  # a observed before b
        conflict = (tab.write[a] | tab.write[b]) & (tab.strong[a] | tab.strong[b])
        a, b = a[conflict], b[conflict]
        moral = tab.strong[a] & tab.strong[b] & (tab.key[a] == tab.key[b]) & (tab.size[a] == tab.size[b]) \
            & (tab.proxy[a] == tab.proxy[b]) \
            & _includes(tab.scope[a], tab.thread[a], tab.thread[b], cta_threads, clusters) \
            & _includes(tab.scope[b], tab.thread[b], tab.thread[a], cta_threads, clusters)
        out += _unordered(tab, clocks, a[~moral], b[~moral])
        if out:
            break
    return out


def _includes(scope: np.ndarray, t: np.ndarray, u: np.ndarray, cta_threads: int,
              clusters: np.ndarray) -> np.ndarray:
    """ISA §8.5 scope inclusion, vectorised over scope codes (1 cta, 2 cluster, 3 gpu, 4 sys)."""
    same_cluster = cluster_of(clusters, t, cta_threads) == cluster_of(clusters, u, cta_threads)
    same_cta = t // cta_threads == u // cta_threads
    out: np.ndarray = (scope >= 3) | ((scope == 2) & same_cluster) | ((scope == 1) & same_cta)
    return out
