"""`ptxkit bench`: side-by-side ratios (docs/performance.md). Each area has a module in
``ptxkit/bench/`` exposing ``NAME`` and ``run(repeats: int) -> list[dict]``; rows have ``figure``,
``ours``, ``reference``, ``ratio``/``value``, ``goal`` and optional ``note``."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable

from rich.console import Console
from rich.table import Table

from ptxkit.bench import consistency, equiv, explore, parse, sanitize, sim, tensorcore, triton, verify
from ptxkit.bench.common import Row

HELP = "run the benchmarks and print side-by-side ratios"

BENCHES: dict[str, Callable[[int], list[Row]]] = {
    "parse": parse.run, "sanitize": sanitize.run, "sim": sim.run, "equiv": equiv.run,
    "explore": explore.run, "consistency": consistency.run, "tensorcore": tensorcore.run, "verify": verify.run,
    "triton": triton.run,
}
AREAS = list(BENCHES)


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("areas", nargs="*", choices=[*AREAS, []], metavar="AREA",
                   help=f"which to run (default all): {', '.join(AREAS)}")
    p.add_argument("--repeats", type=int, default=3, help="runs per figure (median and min reported)")
    p.add_argument("--json", action="store_true")


def run(args: argparse.Namespace) -> int:
    rows: list[Row] = []
    for area in args.areas or AREAS:
        for row in BENCHES[area](args.repeats):
            rows.append({"area": area, **row})
    if args.json:
        json.dump({"rows": rows}, sys.stdout, indent=1)
        print()
        return 0
    table = Table(title="ptxkit bench")
    for col in ("area", "figure", "value", "goal", "note"):
        table.add_column(col)
    for r in rows:
        table.add_row(r["area"], str(r.get("figure", "")), str(r.get("value", "")),
                      str(r.get("goal", "")), str(r.get("note", "")))
    Console().print(table)
    return 0
