"""`ptxkit litmus2ptx X.litmus -o X.ptx` (docs/cli.md): a Dat3M litmus test as a real PTX kernel."""

from __future__ import annotations

import argparse
import json
import struct
import sys
from pathlib import Path

from ptxkit.errors import UsageError

HELP = "turn a Dat3M .litmus test into a PTX kernel that ptxas accepts"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", help="the .litmus test")
    p.add_argument("-o", "--output", help="the .ptx to write (default: stdout)")
    p.add_argument("--kernel", help="entry name (default: litmus_<test name>)")
    p.add_argument("--json", action="store_true", help="print the launch layout as JSON")


def run(args: argparse.Namespace) -> int:
    from ptxkit.litmus.parser import parse_litmus
    from ptxkit.litmus.to_ptx import to_ptx

    path = Path(args.file)
    try:
        text = path.read_text()
    except OSError as e:
        raise UsageError(f"cannot read {args.file}: {e.strerror}") from None
    prog = parse_litmus(text, str(path))
    res = to_ptx(prog, args.kernel)
    mem_source = "zeros"
    if args.output:
        out = Path(args.output)
        out.write_text(res.text)
        if res.init:  # non-zero initial values: a raw little-endian u32 image of mem for --arg
            init = out.with_suffix(".mem.bin")
            values = [res.init.get(n, 0) & 0xFFFFFFFF for n in res.locations]
            init.write_bytes(struct.pack(f"<{len(values)}I", *values))
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
