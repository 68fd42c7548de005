"""``run_kernel``: allocate buffers, lay out parameters, run the grid batch by batch (PTX ISA §5.1.6
kernel parameters, §2.2 grids of CTAs)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from ptxkit import ir
from ptxkit.errors import UsageError
from ptxkit.exec_sim.args import BUFFER_TYPES, KernelArg, check_cluster, check_launch
from ptxkit.exec_sim.decode import Program, decode, encode_init
from ptxkit.exec_sim.events import Observer
from ptxkit.exec_sim.machine import Counters, LaneState, run_batch
from ptxkit.exec_sim.memory import FlatMemory
from ptxkit.exec_sim.tensormap import SIZE as TMAP_SIZE
from ptxkit.exec_sim.values import decl_size

BATCH_LANES = 16384
REGISTER_BUDGET = 256 << 20  # bytes of register file per batch
# The work bound of one launch: warp-instructions issued, summed over every CTA of the grid (what
# `ptxkit run` reports as "executed N warp-instructions"). Past it the launch stops with BoundExceeded.
DEFAULT_MAX_STEPS = 50_000_000


@dataclass
class RunResult:
    """Outputs of a run: every buffer argument by the NAME given, and dynamic counts
    (``instructions`` = warp-instructions issued, ``lane_instructions`` = per-thread executions)."""

    buffers: dict[str, np.ndarray] = field(default_factory=dict)
    instructions: int = 0
    lane_instructions: int = 0
    stdout: list[str] = field(default_factory=list)
    addresses: dict[str, int] = field(default_factory=dict)




def select_entry(module: ir.Module, kernel: str | None) -> ir.Function:
    entries = module.entries()
    if kernel is not None:
        for f in entries:
            if f.name == kernel:
                return f
        raise UsageError(f"no .entry named '{kernel}' in {module.filename} "
                         f"(entries: {', '.join(f.name for f in entries) or 'none'})")
    if len(entries) != 1:
        raise UsageError(f"{module.filename} has {len(entries)} entries "
                         f"({', '.join(f.name for f in entries)}); pick one with --kernel")
    return entries[0]


def program_for(module: ir.Module, entry: ir.Function) -> Program:
    """The decoded kernel, cached on the module object itself (decode once per kernel)."""
    cache = module.__dict__.setdefault("_sim_programs", {})
    prog = cache.get(entry.name)
    if prog is None or prog.entry is not entry:
        prog = decode(module, entry)
        cache[entry.name] = prog
    return prog


def _dim3(x: int | tuple[int, ...] | list[int]) -> tuple[int, int, int]:
    t = [int(v) for v in (x if isinstance(x, (tuple, list)) else (x,))]
    t = [*t, 1, 1, 1][:3]
    return t[0], t[1], t[2]


def run_kernel(module: ir.Module, kernel: str | None, args: list[KernelArg],
               grid: int | tuple[int, ...] | list[int] = (1, 1, 1),
               block: int | tuple[int, ...] | list[int] = (1, 1, 1), shared_bytes: int = 0, *,
               max_steps: int = DEFAULT_MAX_STEPS, memory: FlatMemory | None = None,
               observer: Observer | None = None,
               cluster: int | tuple[int, ...] | list[int] = (1, 1, 1),
               cta_order: Sequence[int] | None = None) -> RunResult:
    """Run ``kernel`` of ``module`` on the simulator; see :class:`RunResult`. ``max_steps`` bounds the
    warp-instructions of the whole launch (BoundExceeded past it); launch shapes beyond the hardware
    limits (``ptxkit.exec_sim.limits``) and memory beyond the budget (``ptxkit.io``) are UsageErrors.
    ``observer`` receives every memory-model event of the run (``exec_sim.events``; lanes are global
    thread indices: linear ctaid · threads per CTA + linear tid). ``cluster`` is the thread-block cluster
    shape (ISA §2.2.2; it must tile the grid): the CTAs of a cluster run in one batch, rank after rank,
    so they see each other's shared memory (``mapa``, ``.shared::cluster``). ``cta_order`` (no clusters
    only) is a schedule knob: the linear ids of the CTAs in the order they take batch slots (default
    0, 1, …) — lanes of a batch apply atomics in slot order and batches run one after another, so it
    decides e.g. which CTA's ``atom`` comes first (``verify.schedules``)."""
    entry = select_entry(module, kernel)
    prog = program_for(module, entry)
    grid, block, cdim = _dim3(grid), _dim3(block), _dim3(cluster)
    check_launch(grid, block, shared_bytes)
    check_cluster(grid, cdim)
    ncta_all = grid[0] * grid[1] * grid[2]
    # no permutation array unless one is asked for: a launch of 10^8 CTAs must not allocate 800 MB
    perm = None if cta_order is None else np.asarray(cta_order, np.int64)
    if perm is not None and (cdim != (1, 1, 1) or sorted(perm.tolist()) != list(range(ncta_all))):
        raise UsageError("cta_order: expected a permutation of the CTAs of a launch without clusters")
    if max_steps < 1:
        raise UsageError(f"--max-steps {max_steps}: expected a positive number of warp-instructions")
    nthreads = block[0] * block[1] * block[2]
    mem = memory or FlatMemory()
    result = RunResult()
    # global buffers and module variables
    by_index = {a.index: a for a in args}
    param_image = bytearray(max(prog.param_size, 8))
    tmaps: list[tuple[KernelArg, int]] = []
    for d, off in prog.kernel_params:
        idx = entry.params.index(d)
        a = by_index.get(idx)
        if a is None:
            raise UsageError(f"missing argument for parameter '{d.name}' of kernel '{entry.name}'")
        size = decl_size(d)
        if a.kind == "buffer":
            addr = mem.alloc(a.name, a.buffer.nbytes, a.buffer)
            result.addresses[a.name] = addr
            val = addr
        elif a.kind == "null":
            val = 0
        elif a.kind == "tmap":
            tmaps.append((a, off))  # once every buffer has its address (a map may name another's)
            continue
        else:
            val = a.value
        param_image[off:off + size] = (val & ((1 << (8 * size)) - 1)).to_bytes(size, "little")
    for a, off in tmaps:
        assert a.tmap is not None
        if a.ref is None:
            addr = mem.alloc(a.name, a.buffer.nbytes, a.buffer, align=256)
            result.addresses[a.name] = addr
        else:
            addr = result.addresses[a.ref]
        param_image[off:off + TMAP_SIZE] = replace(a.tmap, address=addr).encode()
    global_sym: dict[str, int] = {}
    decls = [info.decl for info, _ in prog.globals_init]
    for g in decls:
        assert g is not None  # decode records a declaration for every module variable
        global_sym[g.name] = 0
    for g in decls:
        assert g is not None
        data = encode_init(g, {k: type("S", (), {"addr": v})() for k, v in global_sym.items()})
        global_sym[g.name] = mem.alloc(g.name, len(data), data, align=max(g.align or 8, 8))
    mem.const = np.frombuffer(bytes(prog.const_image).ljust(((len(prog.const_image) + 15) // 16) * 16 or 16, b"\0"),
                              np.uint8).copy()
    dyn_base = {name: prog.module_syms[name].addr for name in prog.dynamic_shared_syms}
    shared_total = prog.shared_static + shared_bytes
    # batches of CTAs, each padded to whole warps
    per_cta = (nthreads + 31) // 32 * 32
    ncta_total = grid[0] * grid[1] * grid[2]
    reg_bytes = sum(np.dtype(dt).itemsize for dt in prog.reg_dtypes) + 64  # + per-lane bookkeeping
    csize = cdim[0] * cdim[1] * cdim[2]
    per_batch = max(1, min(ncta_total, BATCH_LANES // per_cta, REGISTER_BUDGET // (reg_bytes * per_cta)))
    per_batch = max(csize, per_batch // csize * csize)  # whole clusters
    ncl = (grid[0] // cdim[0], grid[1] // cdim[1], grid[2] // cdim[2])
    counters = Counters()
    stdout: list[str] = []
    t_lin = np.arange(per_cta)
    tx = (t_lin % block[0]).astype(np.uint32)
    ty = ((t_lin // block[0]) % block[1]).astype(np.uint32)
    tz = (t_lin // (block[0] * block[1])).astype(np.uint32)
    valid = t_lin < nthreads
    for first in range(0, ncta_total, per_batch):
        k = min(per_batch, ncta_total - first)
        n = k * per_cta
        cta_local = np.repeat(np.arange(k), per_cta)
        # batch slot g holds rank g % csize of cluster g // csize (ISA §2.2.2: %cluster_ctarank is the
        # linear %cluster_ctaid); without clusters slot g is CTA g in linear order
        slot = perm[cta_local + first] if perm is not None else cta_local + first
        cl, rank = slot // csize, slot % csize
        cx = ((cl % ncl[0]) * cdim[0] + rank % cdim[0]).astype(np.uint32)
        cy = (((cl // ncl[0]) % ncl[1]) * cdim[1] + (rank // cdim[0]) % cdim[1]).astype(np.uint32)
        cz = ((cl // (ncl[0] * ncl[1])) * cdim[2] + rank // (cdim[0] * cdim[1])).astype(np.uint32)
        cta_lin = cx.astype(np.int64) + grid[0] * (cy.astype(np.int64) + grid[1] * cz.astype(np.int64))
        mem.setup_batch(k, n, shared_total, prog.local_size, prog.param_size)
        mem.param[:] = np.tile(np.frombuffer(bytes(param_image).ljust(mem.param_size, b"\0")[:mem.param_size],
                                             np.uint8), n)
        R = [np.zeros(n, dt) for dt in prog.reg_dtypes]
        st = LaneState(n=n, R=R, mem=mem, cta_of_lane=cta_local,
                       tid=(np.tile(tx, k), np.tile(ty, k), np.tile(tz, k)), ctaid=(cx, cy, cz),
                       ntid=block, nctaid=grid, exited=~np.tile(valid, k), global_sym=global_sym,
                       dyn_shared_base=dyn_base, shared_total=shared_total, dyn_shared=shared_bytes,
                       stdout=stdout, cc=np.zeros(n, bool))
        st.lanes_per_cta = per_cta
        st.lane_index = np.arange(n, dtype=np.int64)
        st.cluster = cdim
        st.cluster_base = cta_local - rank  # the batch slot of rank 0 of each lane's cluster
        if observer is not None:
            st.observer = observer
            st.gtid = cta_lin.astype(np.int64) * nthreads + np.tile(t_lin, k)
        with np.errstate(all="ignore"):
            run_batch(prog, st, counters, max_steps)
    for a in args:
        if a.kind == "buffer" or (a.kind == "tmap" and a.ref is None):
            raw = mem.read_global(result.addresses[a.name], a.buffer.nbytes)
            result.buffers[a.name] = np.frombuffer(raw, BUFFER_TYPES[a.type]).copy()
    result.instructions = counters.instructions
    result.lane_instructions = counters.lane_instructions
    result.stdout = stdout
    return result
