"""Memory for the execution core: flat little-endian byte arrays per state space (PTX ISA §5.1).

Every load/store/atomic of the simulator goes through a :class:`Memory` (``load``/``store``/``atomic``
taking address lanes and an active mask), so a scheduler can swap in another implementation (the
explorer's oracle-backed memory). :class:`FlatMemory` is the sequentially consistent one used by
``ptxkit run``:

* **global** — one backing array; buffers get device addresses ``GLOBAL_BASE + offset`` (256-byte
  aligned, with guard gaps between them so an overrun is caught, as compute-sanitizer does);
* **shared** — one window of ``shared_size`` bytes per CTA of the running batch (addresses are offsets
  in the window, as on the hardware); **local** and **param** — one window per thread;
* **const** — module-level ``.const`` data;
* **generic** addresses (ISA §6.4.1.1): global addresses are identity-mapped; shared and local windows
  sit at :data:`SHARED_WINDOW` / :data:`LOCAL_WINDOW` / :data:`CONST_WINDOW`, kernel parameters at
  :data:`PARAM_WINDOW` (``cvta`` adds/removes those bases; a tensor map passed by value is read
  through such an address by ``cp.async.bulk.tensor``).
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from ptxkit.exec_sim.atomics import apply_atomic
from ptxkit.io import check_allocation

GLOBAL_BASE = 0x7F00_0000_0000
SHARED_WINDOW = 0x1000_0000_0000
LOCAL_WINDOW = 0x2000_0000_0000
CONST_WINDOW = 0x3000_0000_0000
PARAM_WINDOW = 0x4000_0000_0000  # kernel parameters seen through generic addresses (cvta.param, ISA §5.1.6.1)
WINDOW_SIZE = 0x0100_0000_0000
_GAP = 256
CLUSTER_SHIFT = 24  # .shared::cluster addresses: (rank + 1) << 24 | offset (see cluster_address)

UINT = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}
_SHIFT = {1: 0, 2: 1, 4: 2, 8: 3, 16: 4}


class MemoryFault(Exception):
    """An invalid access; the scheduler turns it into a located :class:`PtxkitError`."""

    def __init__(self, kind: str, space: str, lane: int, addr: int, size: int, detail: str = ""):
        self.kind, self.space, self.lane, self.addr, self.size, self.detail = kind, space, lane, addr, size, detail
        super().__init__(f"{kind} {space} access of {size} bytes at 0x{addr:x}")


class Memory(Protocol):
    """What a scheduler needs from memory. ``addr`` is a uint64 lane array, ``mask`` a bool lane array
    (None = every lane), ``ctx`` the machine state (gives each lane's CTA/thread for per-CTA/per-thread
    spaces). Values are unsigned arrays of ``size`` bytes per element."""

    def load(self, space: str, addr: np.ndarray, size: int, mask, ctx) -> np.ndarray: ...

    def store(self, space: str, addr: np.ndarray, size: int, value: np.ndarray, mask, ctx) -> None: ...

    def atomic(self, space: str, op: str, typ: str, addr: np.ndarray, size: int, a: np.ndarray,
               b: np.ndarray | None, mask, ctx) -> np.ndarray: ...


def cluster_address(rank: np.ndarray, offset: np.ndarray) -> np.ndarray:
    """The ``.shared::cluster`` address of byte ``offset`` of the shared window of the cluster's CTA
    ``rank`` (what ``mapa`` returns; ISA §5.1.5.1). The simulator's encoding: (rank + 1) << 24 | offset —
    an address below 2^24 is one of the executing CTA's own (a ``.shared::cta`` address is a valid
    ``.shared::cluster`` address of the executing CTA, ISA §6.4.1)."""
    return ((rank.astype(np.uint64) + np.uint64(1)) << np.uint64(CLUSTER_SHIFT)) | \
        (offset.astype(np.uint64) & np.uint64((1 << CLUSTER_SHIFT) - 1))


def cluster_slots(st, lanes: np.ndarray, off: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(batch CTA slot, offset in its window) of the shared offsets or ``.shared::cluster`` addresses
    ``off`` used by ``lanes`` of the machine state ``st``."""
    slots = np.asarray(st.cta_of_lane)[lanes].astype(np.int64)
    off = off.astype(np.uint64)
    remote = off >= np.uint64(1 << CLUSTER_SHIFT)
    if remote.any():
        base = getattr(st, "cluster_base", None)
        if base is not None:
            rank = (off >> np.uint64(CLUSTER_SHIFT)).astype(np.int64) - 1
            slots = np.where(remote, np.asarray(base)[lanes] + rank, slots)
        off = off & np.uint64((1 << CLUSTER_SHIFT) - 1)
    return slots, off


def global_ctas(st, slots: np.ndarray) -> np.ndarray:
    """Launch-wide linear CTA ids of batch slots of the machine state ``st``."""
    first = slots * st.lanes_per_cta
    gx, gy, _ = st.nctaid
    return (st.ctaid[0][first].astype(np.int64) + gx * (st.ctaid[1][first].astype(np.int64)
                                                        + gy * st.ctaid[2][first].astype(np.int64)))


def _cluster_target(ctx, a: np.ndarray, lanes: np.ndarray, owner: np.ndarray, remote: np.ndarray,
                    size: int) -> tuple[np.ndarray, np.ndarray]:
    """Offsets and owning batch CTAs of ``.shared::cluster`` addresses (see :func:`cluster_address`)."""
    rank = (a >> np.uint64(CLUSTER_SHIFT)).astype(np.int64) - 1
    c = getattr(ctx, "cluster", (1, 1, 1))
    base = getattr(ctx, "cluster_base", None)
    bad = remote & ((rank >= c[0] * c[1] * c[2]) | (base is None and rank > 0))
    if bad.any():
        i = int(np.argmax(bad))
        raise MemoryFault("out-of-bounds", "shared::cluster", int(lanes[i]), int(a[i]), size)
    if base is not None:
        owner = np.where(remote, base[lanes] + rank, owner)
    return a & np.uint64((1 << CLUSTER_SHIFT) - 1), owner


@dataclass
class Allocation:
    name: str
    addr: int
    size: int


@dataclass
class Region:
    """A backing byte array with its element views (for aligned gathers)."""

    data: np.ndarray  # uint8

    def views(self) -> dict[int, np.ndarray]:
        d = self.data
        return {1: d, 2: d.view(np.uint16), 4: d.view(np.uint32), 8: d.view(np.uint64)}


def _pad8(n: int) -> int:
    return (n + 15) & ~15


@dataclass
class FlatMemory:
    """The simulator's memory (see module docstring)."""

    allocations: list[Allocation] = field(default_factory=list)
    _global: np.ndarray = field(default_factory=lambda: np.zeros(0, np.uint8))
    const: np.ndarray = field(default_factory=lambda: np.zeros(16, np.uint8))
    shared: np.ndarray = field(default_factory=lambda: np.zeros(16, np.uint8))
    shared_size: int = 0
    local: np.ndarray = field(default_factory=lambda: np.zeros(16, np.uint8))
    local_size: int = 0
    param: np.ndarray = field(default_factory=lambda: np.zeros(16, np.uint8))
    param_size: int = 0
    _bounds: tuple[np.ndarray, np.ndarray] | None = None
    _starts: list[int] | None = None
    _ends: list[int] | None = None

    # ------------------------------------------------------------------ global allocation
    def alloc(self, name: str, nbytes: int, init: bytes | np.ndarray | None = None, align: int = 256) -> int:
        """Reserve ``nbytes`` of global memory, return its device address."""
        end = len(self._global)
        off = (end + _GAP + align - 1) // align * align if self.allocations else 0
        new_len = _pad8(off + max(nbytes, 1) + _GAP)
        check_allocation(new_len, f"global memory (with '{name}')")
        grown = np.zeros(new_len, np.uint8)
        grown[:end] = self._global
        if init is not None:
            raw = np.frombuffer(bytes(init) if not isinstance(init, np.ndarray) else init.tobytes(), np.uint8)
            grown[off:off + len(raw)] = raw[:nbytes]
        self._global = grown
        self.allocations.append(Allocation(name, GLOBAL_BASE + off, nbytes))
        self._bounds = None
        self._starts = None
        return GLOBAL_BASE + off

    def read_global(self, addr: int, nbytes: int) -> bytes:
        off = addr - GLOBAL_BASE
        return self._global[off:off + nbytes].tobytes()

    def write_global(self, addr: int, data: bytes) -> None:
        off = addr - GLOBAL_BASE
        self._global[off:off + len(data)] = np.frombuffer(data, np.uint8)

    def setup_batch(self, ncta: int, nlanes: int, shared_size: int, local_size: int, param_size: int) -> None:
        """Fresh per-CTA and per-thread windows for a batch of CTAs."""
        check_allocation(_pad8(max(shared_size, 1)) * ncta + (_pad8(max(local_size, 1)) + _pad8(max(param_size, 1)))
                         * nlanes, f"the shared, local and parameter memory of {ncta} CTA(s)")
        self.shared_size = shared_size
        self.shared = np.zeros(_pad8(max(shared_size, 1)) * ncta, np.uint8)
        self.local_size = _pad8(max(local_size, 1))
        self.local = np.zeros(self.local_size * nlanes, np.uint8)
        self.param_size = _pad8(max(param_size, 1))
        self.param = np.zeros(self.param_size * nlanes, np.uint8)

    # ------------------------------------------------------------------ address translation
    def _global_index(self, addr: np.ndarray, size: int, lanes: np.ndarray) -> np.ndarray:
        if self._bounds is None:
            lo = np.array([a.addr for a in self.allocations], np.uint64)
            hi = np.array([a.addr + a.size for a in self.allocations], np.uint64)
            order = np.argsort(lo)
            self._bounds = (lo[order], hi[order])
        lo, hi = self._bounds
        k = np.searchsorted(lo, addr, side="right").astype(np.int64) - 1
        ok = (k >= 0)
        kk = np.maximum(k, 0)
        ok &= (addr >= lo[kk]) & (addr + np.uint64(size) <= hi[kk]) if len(lo) else np.zeros_like(ok)
        if not ok.all():
            bad = int(np.argmin(ok))
            a = int(addr[bad])
            kind = "null-pointer" if a < 4096 else "out-of-bounds"
            raise MemoryFault(kind, "global", int(lanes[bad]), a, size)
        return (addr - np.uint64(GLOBAL_BASE)).astype(np.int64)

    def _resolve(self, space: str, addr: np.ndarray, size: int, mask, ctx):
        """Yield (backing array, byte index array, lane-mask-or-None) per concrete space touched."""
        lanes = np.arange(ctx.n) if mask is None else np.flatnonzero(mask)
        a = addr if mask is None else addr[lanes]
        if a.dtype != np.uint64:
            a = a.astype(np.uint64)
        if size > 1 and len(a) and (a & np.uint64(size - 1)).any():
            bad = int(np.argmax((a & np.uint64(size - 1)) != 0))
            raise MemoryFault("misaligned", space, int(lanes[bad]), int(a[bad]), size)
        if space == "generic":
            out = []
            for sp, base in (("shared", SHARED_WINDOW), ("local", LOCAL_WINDOW), ("const", CONST_WINDOW),
                             ("param", PARAM_WINDOW)):
                sel = (a >= np.uint64(base)) & (a < np.uint64(base + WINDOW_SIZE))
                if sel.any():
                    out.append((sp, a[sel] - np.uint64(base), lanes[sel]))
                    keep = ~sel
                    a, lanes = a[keep], lanes[keep]
            if len(a):
                out.append(("global", a, lanes))
            return [self._index(sp, aa, size, ll, ctx) for sp, aa, ll in out]
        return [self._index(space, a, size, lanes, ctx)]

    def _index(self, space: str, a: np.ndarray, size: int, lanes: np.ndarray, ctx):
        if space == "global":
            return self._global, self._global_index(a, size, lanes), lanes
        if space == "shared":
            owner = ctx.cta_of_lane[lanes]
            remote = a >= np.uint64(1 << CLUSTER_SHIFT)
            if remote.any():
                a, owner = _cluster_target(ctx, a, lanes, owner, remote, size)
            return self._windowed(self.shared, _pad8(max(self.shared_size, 1)), self.shared_size,
                                  a, size, lanes, owner, "shared")
        if space == "local":
            return self._windowed(self.local, self.local_size, self.local_size, a, size, lanes, lanes, "local")
        if space == "param":
            return self._windowed(self.param, self.param_size, self.param_size, a, size, lanes, lanes, "param")
        if space == "const":
            end = a + np.uint64(size)
            if len(a) and (end > np.uint64(len(self.const))).any():
                bad = int(np.argmax(end > np.uint64(len(self.const))))
                raise MemoryFault("out-of-bounds", "const", int(lanes[bad]), int(a[bad]), size)
            return self.const, a.astype(np.int64), lanes
        raise MemoryFault("unsupported", space, int(lanes[0]) if len(lanes) else 0, 0, size)

    @staticmethod
    def _windowed(back, stride, limit, a, size, lanes, owner, space):
        end = a + np.uint64(size)
        if len(a) and (end > np.uint64(limit)).any():
            bad = int(np.argmax(end > np.uint64(limit)))
            raise MemoryFault("out-of-bounds", space, int(lanes[bad]), int(a[bad]), size)
        return back, a.astype(np.int64) + owner.astype(np.int64) * stride, lanes

    # ------------------------------------------------------------------ Memory protocol
    def _fast(self, space: str, addr: np.ndarray, size: int, mask, ctx):
        """Element indices for every lane (inactive lanes get an active lane's address) when all
        active accesses are aligned and inside one allocation/window; None → take the checked path."""
        if mask is not None:
            if not mask.any():
                return None
            first = addr[int(np.argmax(mask))]
            a = np.where(mask, addr, first)
        else:
            a = addr
        if a.dtype != np.uint64:
            a = a.astype(np.uint64)
        if size > 1 and (a & np.uint64(size - 1)).any():
            return None
        lo, hi = int(a.min()), int(a.max()) + size
        shift = _SHIFT[size]
        if space == "generic":
            if lo < GLOBAL_BASE:
                return None
            space = "global"
        if space == "global":
            if self._starts is None:
                order = sorted(self.allocations, key=lambda x: x.addr)
                self._starts = [x.addr for x in order]
                self._ends = [x.addr + x.size for x in order]
            assert self._ends is not None
            k = bisect.bisect_right(self._starts, lo) - 1
            if k < 0 or hi > self._ends[k]:
                return None
            return self._global, ((a - np.uint64(GLOBAL_BASE)) >> np.uint64(shift)).astype(np.int64)
        if space == "shared":
            if hi > self.shared_size:
                return None
            stride = _pad8(max(self.shared_size, 1))
            return self.shared, (a.astype(np.int64) + ctx.cta_of_lane * stride) >> shift
        if space in ("local", "param"):
            limit = self.local_size if space == "local" else self.param_size
            if hi > limit:
                return None
            back = self.local if space == "local" else self.param
            return back, (a.astype(np.int64) + ctx.lane_index * limit) >> shift
        return None

    def load(self, space: str, addr: np.ndarray, size: int, mask, ctx) -> np.ndarray:
        if np.ndim(addr) == 0:
            addr = np.full(ctx.n, addr, np.uint64)
        fast = self._fast(space, addr, size, mask, ctx)
        if fast is not None:
            back, idx = fast
            return back.view(UINT[size])[idx] if size > 1 else back[idx]
        out = np.zeros(ctx.n, UINT[size])
        for back, idx, lanes in self._resolve(space, addr, size, mask, ctx):
            out[lanes] = back.view(UINT[size])[idx // size] if size > 1 else back[idx]
        return out

    def store(self, space: str, addr: np.ndarray, size: int, value: np.ndarray, mask, ctx) -> None:
        value = np.broadcast_to(np.asarray(value).astype(UINT[size], copy=False), (ctx.n,))
        if np.ndim(addr) == 0:
            addr = np.full(ctx.n, addr, np.uint64)
        fast = self._fast(space, addr, size, mask, ctx)
        if fast is not None:
            back, idx = fast
            view = back.view(UINT[size]) if size > 1 else back
            # repeated indices: numpy applies them in order, so the highest lane wins (one valid order)
            if mask is None:
                view[idx] = value
            else:
                view[idx[mask]] = value[mask]
            return
        for back, idx, lanes in self._resolve(space, addr, size, mask, ctx):
            back.view(UINT[size])[idx // size] = value[lanes]

    def atomic(self, space: str, op: str, typ: str, addr: np.ndarray, size: int, a: np.ndarray,
               b: np.ndarray | None, mask, ctx) -> np.ndarray:
        """Read-modify-write, lanes applied one after another in lane order (ISA §9.7.13.5)."""
        old = np.zeros(ctx.n, UINT[size])
        a = np.broadcast_to(np.asarray(a).astype(UINT[size], copy=False), (ctx.n,))
        if b is not None:
            b = np.broadcast_to(np.asarray(b).astype(UINT[size], copy=False), (ctx.n,))
        for back, idx, lanes in self._resolve(space, addr, size, mask, ctx):
            view = back.view(UINT[size])
            for i, lane in zip((idx // size).tolist(), lanes.tolist()):
                cur = int(view[i])
                old[lane] = cur
                view[i] = apply_atomic(op, typ, size, cur, int(a[lane]), None if b is None else int(b[lane]))
        return old
