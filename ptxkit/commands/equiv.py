"""`ptxkit equiv A.ptx B.ptx --arg … [--kernel] [--kernel-b] [--trials N] [--no-sanitize] …` (docs/cli.md).

Exit 0 = EQUIVALENT, 1 = DIFFERENT, 2 = bad input."""

from __future__ import annotations

import argparse
import json

from ptxkit.commands.common import add_kernel_arguments, parse_dim, positive_int
from ptxkit.equiv import EquivOptions, check_files
from ptxkit.exec_sim.launch import DEFAULT_MAX_STEPS

HELP = "are two kernels the same computation? (FPSan both, run on the same random inputs, compare bits)"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("a", metavar="A.ptx")
    p.add_argument("b", metavar="B.ptx")
    add_kernel_arguments(p, kernel_b=True)
    p.add_argument("--trials", type=positive_int, default=3, metavar="N",
                   help="random input sets (default 3, at most 1000)")
    p.add_argument("--device", choices=["cpu", "gpu"], default="cpu",
                   help="cpu = the ptxkit simulator (default), gpu = CuPy")
    p.add_argument("--no-sanitize", action="store_true", help="compare the kernels as they are")
    p.add_argument("--homomorphic-casts", action="store_true", help="narrowing casts truncate payloads")
    p.add_argument("--atomics", choices=["native", "ring"], default="native",
                   help="float atomics: native (Triton's behaviour) or ring additions")
    p.add_argument("--max-steps", type=positive_int, default=DEFAULT_MAX_STEPS, metavar="N",
                   help="stop (exit 3) past N warp-instructions over both kernels and every trial "
                        f"(default {DEFAULT_MAX_STEPS:,})")
    p.add_argument("--json", action="store_true", help="one JSON object on stdout")


def run(args: argparse.Namespace) -> int:
    opts = EquivOptions(grid=parse_dim(args.grid, "--grid"), block=parse_dim(args.block, "--block"),
                        shared=args.shared, trials=args.trials, seed=args.seed, device=args.device,
                        sanitize=not args.no_sanitize, homomorphic_casts=args.homomorphic_casts,
                        atomics=args.atomics, max_steps=args.max_steps)
    res = check_files(args.a, args.b, list(args.arg), kernel_a=args.kernel, kernel_b=args.kernel_b, opts=opts)
    if args.json:
        print(json.dumps(res.to_json(), default=str))
    else:
        print(res.verdict)
        if res.difference is not None:
            print(f"  first difference: {res.difference.describe()}")
        else:
            print(f"  {res.trials} trial(s), {res.elements_compared} elements in {len(res.buffers)} buffer(s) "
                  f"identical{' after FPSan' if opts.sanitize else ''}")
        for side, label in ((res.a, "A"), (res.b, "B")):
            for e in side.unmodelled:
                where = e.get("line", "?")
                print(f"  note: {label} {side.file}:{where}: {e.get('opcode', '')} not sanitized: "
                      f"{e.get('reason', e.get('message', ''))}")
    return 0 if res.verdict == "EQUIVALENT" else 1
