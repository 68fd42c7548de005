"""`ptxkit verify K.ptx --arg … [--grid] [--block] [--against R.ptx | --reference MODULE:FUNCTION]
[--json [FILE]] [--dot FILE] [--schedule FILE] [--smt DIR] [--max-schedules N] [--jobs N] [--ray ADDRESS]`
(docs/cli.md): race freedom, well-synchronization and equivalence of a kernel launch under the PTX memory
model. Exit 0 verified, 1 race / not-well-synchronized / different, 3 inconclusive, 2 bad input."""

from __future__ import annotations

import argparse
import json
import sys
from contextlib import ExitStack

from ptxkit.commands.common import add_kernel_arguments, parse_dim, positive_int
from ptxkit.errors import BoundExceeded
from ptxkit.exec_sim.args import check_launch, parse_arg_specs
from ptxkit.exec_sim.launch import DEFAULT_MAX_STEPS, select_entry
from ptxkit.io import atomic_write
from ptxkit.ptx.parser import parse, read_source
from ptxkit.verify.check import Launch, verify_launch
from ptxkit.verify.equivalence import compare, sanitized
from ptxkit.verify.reference import compare_reference, load_reference
from ptxkit.verify.report import schedule_file, to_dot, to_json, to_text, witness_graph
from ptxkit.verify.schedules import DEFAULT_MAX_SCHEDULES, explore
from ptxkit.verify.smt import write_smt

HELP = "check a kernel launch for data races, barrier misuse and equivalence (PTX memory model)"

EXIT = {"verified": 0, "race": 1, "not-well-synchronized": 1, "different": 1, "inconclusive": 3}


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", metavar="K.ptx", help="the PTX file")
    add_kernel_arguments(p, cluster=True)
    ref = p.add_mutually_exclusive_group()
    ref.add_argument("--against", metavar="R.ptx", default=None,
                     help="a reference kernel: both run FPSan-sanitized on the same inputs, outputs compared "
                          "bit for bit")
    ref.add_argument("--reference", metavar="MODULE:FUNCTION", default=None,
                     help="a Python/numpy reference FUNCTION(fp, **inputs) -> {buffer: array}, compared bit for "
                          "bit with the FPSan-sanitized kernel (fp: the FPSan ring operations)")
    p.add_argument("--max-steps", type=positive_int, default=DEFAULT_MAX_STEPS, metavar="N",
                   help=f"bound on warp-instructions of the launch (default {DEFAULT_MAX_STEPS:,}); "
                        "past it: inconclusive")
    p.add_argument("--max-schedules", type=positive_int, default=DEFAULT_MAX_SCHEDULES, metavar="N",
                   help="bound on the orders of atomic RMWs explored when their results steer the kernel "
                        f"(default {DEFAULT_MAX_SCHEDULES}); past it: inconclusive")
    p.add_argument("--jobs", type=positive_int, default=1, metavar="N",
                   help="run the explored schedules in N processes (multiprocessing)")
    p.add_argument("--ray", metavar="ADDRESS", default=None,
                   help="run the explored schedules on a Ray cluster (ray.init(address=ADDRESS); needs ray)")
    p.add_argument("--json", nargs="?", const="-", default=None, metavar="FILE",
                   help="the verdict as one JSON object (on stdout, or in FILE)")
    p.add_argument("--dot", metavar="FILE", default=None, help="the witness graph of a race (DOT)")
    p.add_argument("--schedule", metavar="FILE", default=None,
                   help="the witness schedule of a race (replay: ptxkit run --schedule FILE)")
    p.add_argument("--smt", metavar="DIR", default=None,
                   help="SMT-LIB 2 files of the race-freedom claim per barrier interval (or of the witness)")


def run(args: argparse.Namespace) -> int:
    grid = parse_dim(args.grid, "--grid")
    block = parse_dim(args.block, "--block")
    check_launch(grid, block, args.shared)
    module = parse(read_source(args.file), args.file)
    entry = select_entry(module, args.kernel)
    kargs = parse_arg_specs(args.arg, entry, args.seed)
    cluster = parse_dim(args.cluster, "--cluster")
    launch = Launch(module, entry.name, kargs, grid, block, args.shared, args.max_steps, cluster)
    # the reference is read and sanitized up front: a bad reference is bad input whatever the verdict
    ref = sanitized(read_source(args.against), args.against) if args.against is not None else None
    ref_entry = select_entry(ref.module, None).name if ref is not None else None
    ref_fn = load_reference(args.reference) if args.reference is not None else None
    outcome = explore(launch, verify_launch(launch), args.max_schedules, args.jobs, args.ray)
    if (ref is not None or ref_fn is not None) and outcome.verdict in ("verified", "inconclusive"):
        own = sanitized(read_source(args.file), args.file)
        mine = Launch(own.module, entry.name, kargs, grid, block, args.shared, args.max_steps)
        try:
            with ExitStack() as located:  # run-time errors of the sanitized kernels at the users' lines
                located.enter_context(own.located())
                if ref is not None:
                    located.enter_context(ref.located())
                diff = (compare(mine, Launch(ref.module, ref_entry, kargs, grid, block, args.shared, args.max_steps))
                        if ref is not None else compare_reference(mine, ref_fn, args.reference) if ref_fn else None)
        except BoundExceeded as e:
            diff, outcome.verdict, outcome.reason = None, "inconclusive", e.diagnostics[0].message
        if diff is not None:
            outcome.verdict = "different"
            outcome.reason = (f"{diff['buffer']}[{diff['index']}] differs after FPSan: {diff['kernel']} "
                              f"(K) vs {diff['reference']} ({args.against or args.reference}); "
                              f"{diff['count']} elements differ")
            outcome.stats["difference"] = diff
    d = to_json(outcome, launch, args.file)
    if args.dot and "race" in d:
        atomic_write(args.dot, to_dot(witness_graph(d)).encode())
    if args.schedule and "race" in d:
        launch_args = {"file": args.file, "kernel": entry.name, "arg": list(args.arg), "grid": list(grid),
                       "block": list(block), "cluster": list(cluster), "shared": args.shared,
                       "seed": args.seed}
        if "cta_order" in outcome.stats:  # a race found under an explored RMW order (verify.schedules)
            launch_args["cta_order"] = outcome.stats["cta_order"]
        atomic_write(args.schedule, schedule_file(d, launch_args).encode())
    if args.smt:
        d["smt"] = [str(p) for p in write_smt(outcome, launch, args.smt)]
    if args.json == "-":
        json.dump(d, sys.stdout, indent=1)
        print()
    else:
        if args.json:
            atomic_write(args.json, (json.dumps(d, indent=1) + "\n").encode())
        for line in to_text(d):
            print(line)
    return EXIT[outcome.verdict]
