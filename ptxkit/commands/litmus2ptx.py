"""`ptxkit litmus2ptx X.litmus -o X.ptx` (docs/cli.md): a Dat3M litmus test as a real PTX kernel.

Outputs (the kernel, and ``X.mem.bin`` when locations start non-zero) are written atomically and
never over the input test."""

from __future__ import annotations

import argparse
import json
import struct
import sys
from pathlib import Path

from ptxkit.errors import UsageError
from ptxkit.io import atomic_write, same_file
from ptxkit.litmus.parser import parse_litmus_file
from ptxkit.litmus.to_ptx import to_ptx

HELP = "turn a Dat3M .litmus test into a PTX kernel that ptxas accepts"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", help="the .litmus test")
    p.add_argument("-o", "--output", help="the .ptx to write (default: stdout)")
    p.add_argument("--kernel", help="entry name (default: litmus_<test name>)")
    p.add_argument("--json", action="store_true", help="print the launch layout as JSON")


def _refuse_overwriting_input(src: str, out: Path, what: str) -> None:
    if same_file(src, out):
        raise UsageError(f"{what} '{out}' is the input test '{src}': refusing to overwrite it")


def run(args: argparse.Namespace) -> int:
    prog = parse_litmus_file(args.file)
    res = to_ptx(prog, args.kernel)
    mem_source = "zeros"
    if args.output:
        out = Path(args.output)
        if not out.name or out.is_dir():
            raise UsageError(f"cannot write '{out}': it is a directory")
        _refuse_overwriting_input(args.file, out, "-o")
        init = out.with_suffix(".mem.bin") if res.init else None
        if init is not None:  # non-zero initial values: a raw little-endian u32 image of mem for --arg
            if out.exists() and not out.is_file():
                raise UsageError(f"-o '{out}' is not a regular file, so the initial-memory image "
                                 f"'{init}' has no place beside it: give -o a file name")
            _refuse_overwriting_input(args.file, init, "the initial-memory image")
            if init.exists() and not out.exists():  # not the image of an earlier run of this -o
                raise UsageError(f"the initial-memory image '{init}' exists but '{out}' does not: refusing to "
                                 "overwrite a file litmus2ptx did not write (remove it or choose another -o)")
            if same_file(out, init):
                raise UsageError(f"-o '{out}' would be overwritten by the initial-memory image: "
                                 "give -o a name ending in .ptx")
        atomic_write(out, res.text)
        if init is not None:
            values = [res.init.get(n, 0) & 0xFFFFFFFF for n in res.locations]
            atomic_write(init, struct.pack(f"<{len(values)}I", *values))
            mem_source = str(init)
    elif not args.json:
        sys.stdout.write(res.text)
    info = {"kernel": res.kernel, "grid": res.grid, "block": res.block, "threads": res.threads,
            "mem": res.locations, "out": [f"P{t}:{r}" for t, r in res.slots],
            "condition": res.condition, "args": res.launch_args(mem_source),
            "output": args.output}
    if args.json:
        print(json.dumps(info, indent=2))
    elif args.output:
        print(f"wrote {args.output}: kernel {res.kernel}, launch {' '.join(res.launch_args(mem_source))}",
              file=sys.stderr)
    return 0
