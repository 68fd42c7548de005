"""`ptxkit run FILE.ptx --arg … [--grid] [--block] [--out DIR] [--device cpu|gpu] [--sanitize] [--json]`
(docs/cli.md): run a kernel on the simulator (cpu) or with CuPy (gpu); every buffer argument is written
to ``DIR/NAME.bin`` (raw little-endian, NAME as given in --arg) after the run."""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path

from ptxkit import gpu
from ptxkit.commands.common import add_kernel_arguments, parse_dim, positive_int
from ptxkit.errors import UsageError
from ptxkit.exec_sim.args import check_launch, parse_arg_specs
from ptxkit.exec_sim.decode import decode
from ptxkit.exec_sim.launch import DEFAULT_MAX_STEPS, RunResult, run_kernel, select_entry
from ptxkit.fpsan_ptx import at_user_lines, sanitize_text
from ptxkit.io import atomic_write
from ptxkit.ir import Function, Module
from ptxkit.ptx.parser import parse, read_source
from ptxkit.verify.replay import Replay
from ptxkit.verify.replay import load as replay_load

HELP = "run a kernel on the ptxkit simulator (or on a GPU with --device gpu)"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", metavar="FILE.ptx", nargs="?", default=None,
                   help="the PTX file (default with --schedule: the schedule's)")
    add_kernel_arguments(p, cluster=True)
    p.add_argument("--out", metavar="DIR", default=None,
                   help="write every buffer argument to DIR/NAME.bin after the run")
    p.add_argument("--device", choices=["cpu", "gpu"], default="cpu",
                   help="cpu = the ptxkit simulator (default), gpu = CuPy on an NVIDIA GPU")
    p.add_argument("--sanitize", action="store_true", help="run the FPSan-sanitized version")
    p.add_argument("--max-steps", type=positive_int, default=DEFAULT_MAX_STEPS, metavar="N",
                   help="stop (exit 3) after N warp-instructions over the whole launch "
                        f"(default {DEFAULT_MAX_STEPS:,})")
    p.add_argument("--schedule", metavar="WITNESS", default=None,
                   help="replay a witness schedule of `ptxkit verify --schedule` (its launch replaces "
                        "--arg/--grid/--block/--kernel/--shared/--seed/--cluster)")
    p.add_argument("--json", action="store_true", help="one JSON object on stdout")


def load_module(path: str, kernel: str | None, sanitize: bool,
                simulate: bool) -> tuple[Module, Function, AbstractContextManager[None]]:
    """The module to run (sanitized with ``ptxkit.fpsan_ptx`` if asked) and its entry. With
    ``sanitize`` and the simulator, the user's kernel is decoded first, so what the simulator refuses
    (an unknown symbol, an unsupported instruction) is reported at the user's line, not at a line of
    the sanitized text. The third value wraps the run: what it finds is located at the user's line."""
    text = read_source(path)
    module = parse(text, path)
    entry = select_entry(module, kernel)
    if not sanitize:
        return module, entry, nullcontext()
    if simulate:
        decode(module, entry)
    stext = sanitize_text(text, path).text
    module = parse(stext, path)
    return module, select_entry(module, entry.name), at_user_lines(text, stext, path)


def run(args: argparse.Namespace) -> int:
    replay = None
    cta_order: list[int] | None = None
    if args.schedule is not None:
        sched = replay_load(args.schedule)
        args.file = args.file or sched["file"]
        args.arg, args.kernel = list(sched["arg"]), sched.get("kernel")
        args.grid, args.block = ",".join(map(str, sched["grid"])), ",".join(map(str, sched["block"]))
        args.cluster = ",".join(map(str, sched.get("cluster", [1])))
        args.shared, args.seed = int(sched.get("shared", 0)), int(sched.get("seed", 0))
        if args.device != "cpu":
            raise UsageError("--schedule: a schedule replays on the simulator (--device cpu)")
        replay = Replay(sched)
        cta_order = sched.get("cta_order")  # the CTA order of an explored RMW order (verify.schedules)
        if cta_order is not None and not (isinstance(cta_order, list)
                                          and all(type(c) is int for c in cta_order)):
            raise UsageError(f"--schedule: 'cta_order' of '{args.schedule}' is not a list of CTA numbers")
    if args.file is None:
        raise UsageError("the following arguments are required: FILE.ptx")
    grid = parse_dim(args.grid, "--grid")
    block = parse_dim(args.block, "--block")
    check_launch(grid, block, args.shared)
    module, entry, located = load_module(args.file, args.kernel, args.sanitize, args.device == "cpu")
    kargs = parse_arg_specs(args.arg, entry, args.seed)
    result: gpu.GpuResult | RunResult
    cluster = parse_dim(args.cluster, "--cluster")
    if args.device == "gpu":
        if cluster != (1, 1, 1):
            raise UsageError("--cluster: clusters run on the simulator only (--device cpu)")
        result = gpu.run_kernel(module, entry.name, kargs, grid, block, args.shared)
    else:
        with located:
            result = run_kernel(module, entry.name, kargs, grid, block, args.shared, max_steps=args.max_steps,
                                cluster=cluster, observer=replay.observer if replay else None,
                                cta_order=cta_order)
    out_dir = Path(args.out) if args.out else None
    if out_dir is not None:
        try:
            out_dir.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise UsageError(f"cannot create --out directory '{out_dir}': {e.strerror or e}") from None
    buffers = []
    for a in kargs:
        if a.kind != "buffer" and not (a.kind == "tmap" and a.ref is None):  # a tmap's own tensor is an output too
            continue
        data = result.buffers[a.name]
        path = None
        if out_dir is not None:
            path = out_dir / f"{a.name}.bin"
            atomic_write(path, data.tobytes())
        buffers.append({"name": a.name, "param": a.param, "type": a.type, "count": int(data.size),
                        "path": str(path) if path else None,
                        "sha256": hashlib.sha256(data.tobytes()).hexdigest()})
    info = {"file": args.file, "kernel": entry.name, "device": args.device, "sanitized": bool(args.sanitize),
            "grid": list(grid), "block": list(block), "shared": args.shared, "buffers": buffers,
            "instructions": result.instructions, "lane_instructions": result.lane_instructions,
            "stdout": list(result.stdout)}
    replayed = replay.lines(args.file) if replay is not None else []
    if replay is not None:
        info["witness"] = replayed
    if args.json:
        json.dump(info, sys.stdout, indent=1)
        print()
    else:
        for line in result.stdout:
            print(line, end="" if line.endswith("\n") else "\n")
        for b in buffers:
            where = f" -> {b['path']}" if b["path"] else ""
            print(f"{b['name']}: {b['type']}[{b['count']}]{where}")
        if result.instructions is not None:
            print(f"executed {result.instructions} warp-instructions "
                  f"({result.lane_instructions} thread-instructions) on {args.device}")
        for line in replayed:
            print(line)
    return 0
