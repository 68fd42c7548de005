"""A real ``.ptx`` kernel as a :class:`ConcurrentProgram` for `ptxkit explore --threads N`.

Every thread runs the entry's body; roles come from the special registers the kernel reads
(``%tid``, ``%ntid``, ``%ctaid``, ``%nctaid``, ``%laneid``, ``%warpid``; ISA §10). Buffers from
``--arg NAME=TYPE[N]:SOURCE`` become memory locations ``NAME[i]`` (one per element, the access
granularity of the kernel must be the element size; a ``.v2/.v4`` access touches consecutive
elements, one event each); a buffer parameter holds the pointer ``('ptr', NAME, 0)``. ``.shared``
arrays get one copy per CTA (``NAME@ctaC[i]``). Without ``--grid/--block`` the N threads form one
CTA; otherwise grid × block must equal N and threads are numbered x fastest, CTAs in grid order.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from ptxkit.errors import UsageError
from ptxkit.exec_sim.args import KernelArg, check_launch, parse_arg_specs, parse_dim
from ptxkit.exec_sim.limits import MAX_THREADS_PER_CTA, NWARPID
from ptxkit.explore.program import ConcurrentProgram, Location, ThreadProgram
from ptxkit.explore.trace import Ptr
from ptxkit.io import check_allocation
from ptxkit.ir import Function, Instruction, Label, Module, RegDecl, Statement, VarDecl
from ptxkit.ptx.parser import parse_file
from ptxkit.ptx.types import element_bytes


def program_from_ptx(file: str | Path, args: argparse.Namespace) -> ConcurrentProgram:
    path = Path(file)
    module = parse_file(path)
    entries = module.entries()
    name = getattr(args, "kernel", None)
    if name is not None:
        entries = [e for e in entries if e.name == name]
        if not entries:
            raise UsageError(f"{path}: no .entry named '{name}'")
    if len(entries) != 1:
        raise UsageError(f"{path}: {len(entries)} entries; choose one with --kernel NAME")
    fn = entries[0]
    n = args.threads
    if n is None or n < 1:
        raise UsageError("--threads must be at least 1")
    grid, block = parse_dim(getattr(args, "grid", "1"), "--grid"), parse_dim(getattr(args, "block", "1"), "--block")
    if grid == (1, 1, 1) and block == (1, 1, 1):
        if n > MAX_THREADS_PER_CTA:  # the hardware limit run applies (ptxkit.exec_sim.limits)
            raise UsageError(f"--threads {n}: one CTA holds at most {MAX_THREADS_PER_CTA} threads "
                             "(give --grid and --block for several CTAs)")
        block = (n, 1, 1)
    check_launch(grid, block)
    per_cta = block[0] * block[1] * block[2]
    if grid[0] * grid[1] * grid[2] * per_cta != n:
        raise UsageError(f"--threads {n} does not match --grid {args.grid} × --block {args.block}")
    kargs = parse_arg_specs(list(getattr(args, "arg", []) or []), fn, getattr(args, "seed", 0))
    _check_budget(n, kargs, module, fn, grid)
    locations: dict[str, Location] = {}
    params: dict[str, int | Ptr] = {}
    buffers: dict[str, tuple[str, int, int]] = {}
    for a in kargs:
        if a.kind == "buffer":
            data = a.data
            assert data is not None  # a buffer argument always has contents
            esize = data.dtype.itemsize
            raw = data.view(f"u{esize}") if data.dtype.kind == "f" else data
            buffers[a.param] = (a.type, len(data), esize)
            for i, v in enumerate(raw.tolist()):
                locations[f"{a.param}[{i}]"] = Location(f"{a.param}[{i}]", int(v))
            params[a.param] = ("ptr", a.param, 0)
        elif a.kind == "null":
            params[a.param] = 0
        elif a.kind == "tmap":
            raise UsageError(f"--arg {a.name}: explore does not model tensor maps (cp.async.bulk.tensor)")
        else:
            params[a.param] = int(a.value)
    # .shared variables (module or kernel scope): one copy per CTA, locations 'NAME@ctaC[i]'
    # (ISA §5.1.5: shared memory is per CTA); zero-initialised, not part of the outcome
    shared: dict[str, tuple[str, int, int]] = {}
    decls = [d for d in module.globals() if d.space == "shared"] + \
        [d for d in fn.statements() if isinstance(d, VarDecl) and d.space == "shared"]
    n_ctas = grid[0] * grid[1] * grid[2]
    for d in decls:
        if any(x is None for x in d.dims):
            raise UsageError(f"{path}: dynamic shared memory ({d.name}[]) is not supported by explore")
        esize = element_bytes(d)
        count = d.count if d.dims else 1
        shared[d.name] = (d.type, count, esize)
        for c in range(n_ctas):
            buffers[f"{d.name}@cta{c}"] = (d.type, count, esize)
            for i in range(count):
                locations[f"{d.name}@cta{c}[{i}]"] = Location(f"{d.name}@cta{c}[{i}]", 0, space="shared")
    # the .reg declarations stay in the body: the explorer evaluates instructions with the
    # simulator's semantics on registers of their declared types (ISA §5.1.1)
    body: list[Statement] = [s for s in fn.statements() if isinstance(s, (Instruction, Label, RegDecl))]
    threads = []
    for t in range(n):
        cta, local = divmod(t, per_cta)
        tx, rest = local % block[0], local // block[0]
        ty, tz = rest % block[1], rest // block[1]
        cx, crest = cta % grid[0], cta // grid[0]
        cy, cz = crest % grid[1], crest // grid[1]
        regs: dict[str, int | str] = {"%tid.x": tx, "%tid.y": ty, "%tid.z": tz,
                "%ntid.x": block[0], "%ntid.y": block[1], "%ntid.z": block[2],
                "%ctaid.x": cx, "%ctaid.y": cy, "%ctaid.z": cz,
                "%nctaid.x": grid[0], "%nctaid.y": grid[1], "%nctaid.z": grid[2],
                "%laneid": local % 32, "%warpid": local // 32, "%nwarpid": NWARPID,
                "%clusterid.x": 0, "%cluster_ctarank": 0}
        threads.append(ThreadProgram(index=t, body=body, cta=cta, gpu=0, init_regs=regs))
    return ConcurrentProgram(name=fn.name, threads=threads, locations=locations, condition=None,
                             filename=str(path), source=module.source, semantics="ptx",
                             params=params, buffers=buffers, shared=shared)


# Memory explore needs, estimated up front (PTXKIT_MEMORY_BUDGET, ptxkit.io): every buffer element
# and .shared element is a location with an initial write event, and the model's relations over a
# candidate's events are bit matrices (~RELATIONS of them, n × n bits; ptxkit.consistency.rel).
BYTES_PER_EVENT = 1024
RELATIONS = 32


def _check_budget(n_threads: int, kargs: list[KernelArg], module: Module, fn: Function,
                  grid: tuple[int, int, int]) -> None:
    """Refuse (UsageError) an exploration whose events alone exceed the memory budget: one init
    write per buffer or .shared element, at least one event per thread."""
    n_ctas = grid[0] * grid[1] * grid[2]
    locs = sum(len(a.data) for a in kargs if a.kind == "buffer" and a.data is not None)
    decls = [d for d in module.globals() if d.space == "shared"] + \
        [d for d in fn.statements() if isinstance(d, VarDecl) and d.space == "shared"]
    locs += n_ctas * sum((d.count if d.dims else 1) for d in decls)
    events = locs + n_threads
    need = BYTES_PER_EVENT * events + RELATIONS * events * events // 8
    check_allocation(need, f"{locs} memory locations (one per buffer and .shared element) and "
                           f"{n_threads} threads, with the model's relations over them,")
