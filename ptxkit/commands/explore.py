"""`ptxkit explore` (docs/cli.md): every execution of a litmus test or a small PTX kernel under the
PTX memory model, herd-style. Exit 0 Ok, 1 No, 3 Inconclusive (a bound cut the search), 4 NoExecution
(the program deadlocks or never terminates in every schedule: no verdict over zero executions), 2 bad
input."""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

from rich.console import Console
from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

from ptxkit.commands.common import add_kernel_arguments
from ptxkit.consistency.registry import MODELS
from ptxkit.errors import UsageError
from ptxkit.explore.engine import Explorer
from ptxkit.explore.kernel import program_from_ptx
from ptxkit.explore.program import Condition
from ptxkit.export.claims import to_obligations
from ptxkit.export.dot import write_explore_dot
from ptxkit.export.lean import write_lean
from ptxkit.export.smt import write_smt
from ptxkit.litmus.parser import parse_formula, parse_litmus_file

HELP = "explore every execution of a litmus test / PTX kernel under the PTX memory model"

EXIT = {"Ok": 0, "No": 1, "Inconclusive": 3, "NoExecution": 4}


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", metavar="FILE", help="a Dat3M .litmus test or a .ptx kernel")
    p.add_argument("--threads", type=int, default=None, metavar="N",
                   help=".ptx: run N threads of the entry concurrently")
    p.add_argument("--model", default="ptx-7.5", choices=list(MODELS),
                   help="memory model of ptxkit.consistency (default ptx-7.5; ptx-7.5-alloy: the "
                        "ISCA'22 Alloy reading of Causality)")
    q = p.add_mutually_exclusive_group()
    q.add_argument("--exists", metavar="COND", default=None, help="check: some execution satisfies COND")
    q.add_argument("--not-exists", metavar="COND", default=None, help="check: no execution satisfies COND")
    q.add_argument("--forall", metavar="COND", default=None, help="check: every execution satisfies COND")
    p.add_argument("--max-executions", type=int, default=None, metavar="K",
                   help="stop after K candidate executions (verdict Inconclusive if cut)")
    p.add_argument("--timeout", type=float, default=None, metavar="S",
                   help="stop after S seconds (verdict Inconclusive if cut)")
    p.add_argument("--unroll", type=int, default=4, metavar="K",
                   help="unroll loops K times (default 4); spin iterations are pruned, not counted")
    p.add_argument("--dot", metavar="DIR", default=None, help="write witness graphs (DOT, PNG if graphviz)")
    p.add_argument("--lean", metavar="DIR", default=None, help="write Lean 4 proof obligations")
    p.add_argument("--smt", metavar="DIR", default=None, help="write SMT-LIB 2 proof obligations")
    p.add_argument("--jobs", type=int, default=1, metavar="N", help="worker processes (default 1)")
    p.add_argument("--json", action="store_true", help="one JSON object on stdout")
    add_kernel_arguments(p)


def _condition(args, nthreads: int, filename: str):
    for quant, text in (("exists", args.exists), ("not exists", args.not_exists), ("forall", args.forall)):
        if text is not None:
            return Condition(quant, parse_formula(text, "<condition>", nthreads))
    return None


def load_program(args):
    path = Path(args.file)
    if not path.exists():
        raise UsageError(f"no such file: {args.file}")
    if path.suffix == ".ptx":
        if args.threads is None:
            raise UsageError("a .ptx kernel needs --threads N")
        return program_from_ptx(path, args)
    if args.threads is not None:
        raise UsageError("--threads applies to .ptx kernels only")
    return parse_litmus_file(path)


def run(args: argparse.Namespace) -> int:
    started = _process_start()  # --timeout counts starting Python and loading the program too
    if args.jobs < 1:
        raise UsageError("--jobs must be at least 1")
    if args.unroll < 0:
        raise UsageError("--unroll must be non-negative")
    if args.max_executions is not None and args.max_executions < 1:
        raise UsageError("--max-executions must be at least 1")
    if args.timeout is not None and not args.timeout >= 0:  # also refuses nan
        raise UsageError("--timeout must be a non-negative number of seconds")
    prog = load_program(args)
    cond = _condition(args, len(prog.threads), prog.filename)
    progress, stop = _progress(args)
    try:
        # the proof writers need every candidate of a forbidden outcome, not a sample
        keep = None if (args.lean or args.smt) else 8
        ex = Explorer(prog, args.model, unroll=args.unroll, max_executions=args.max_executions,
                      timeout=args.timeout, condition=cond, progress=progress, keep_candidates=keep,
                      started=started)
        res = ex.run(jobs=args.jobs)
    finally:
        stop()
    written = _exports(args, res)
    if args.json:
        json.dump(to_json(res, written), sys.stdout, indent=1)
        print()
    else:
        print(render_text(res, written))
    return EXIT[res.verdict]


def _process_start() -> float:
    """``time.monotonic()`` at this process's start (Linux ``/proc/self/stat`` field 22, clock ticks
    since boot), so that ``--timeout S`` bounds the whole command; now when that is unavailable or
    implausible (another clock base)."""
    now = time.monotonic()
    try:
        fields = Path("/proc/self/stat").read_text().rsplit(")", 1)[1].split()
        start = int(fields[19]) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return now
    return start if 0 <= now - start <= 30 else now


def _progress(args):
    """A rich progress line on stderr when it is a terminal (long explorations)."""
    if args.json or not sys.stderr.isatty():
        return None, lambda: None
    prog = Progress(SpinnerColumn(), TextColumn("{task.description}"), TimeElapsedColumn(),
                    transient=True, console=Console(stderr=True))
    task = prog.add_task("exploring", total=None)
    prog.start()

    def update(cands: int, cons: int) -> None:
        prog.update(task, description=f"exploring: {cands} candidates, {cons} consistent")

    return update, prog.stop


def _exports(args, res) -> dict:
    written: dict[str, list[str]] = {}
    if args.dot:
        written["dot"] = [str(p) for p in write_explore_dot(res, args.dot)]
    if args.lean or args.smt:
        t = to_obligations(res)  # once for both writers
        for opt, writer in (("lean", write_lean), ("smt", write_smt)):
            directory = getattr(args, opt)
            if directory:
                out = writer(t, directory)
                written[opt] = [str(p) for p in (out if isinstance(out, (list, tuple)) else [out])]
        if t.unproven:  # a claim the verdict needs could not be written: say so
            written["unproven"] = [t.unproven]
    return written


def condition_text(cond: Condition | None) -> str:
    return "" if cond is None else cond.text()


def render_text(res, written: dict | None = None) -> str:
    prog = res.program
    lines = [f"Test {prog.name or Path(prog.filename).stem} (model {res.model})"]
    outs = res.outcome_dicts()
    lines.append(f"States {len(outs)}")
    for o in outs:
        vals = " ".join(f"{k}={v};" for k, v in o["values"].items())
        mark = "" if o["satisfies"] is None else (" *" if o["satisfies"] else "")
        lines.append(f"{o['count']:>6} :> {vals}{mark}")
    lines.append(f"Candidates {res.candidates}  Consistent {res.consistent}")
    if res.condition is not None:
        lines.append(f"Condition {condition_text(res.condition)}")
        lines.append(f"Witnesses Positive: {res.satisfied} Negative: {res.consistent_filtered - res.satisfied}")
    if not res.complete:
        lines.append(f"Incomplete: {res.reason}")
    if res.stuck:
        lines.append(f"No executions: {res.stuck}")
    for kind, paths in (written or {}).items():
        lines.append(f"Obligations incomplete: {paths[0]}" if kind == "unproven" else
                     f"Wrote {kind}: {', '.join(paths)}")
    lines.append(f"Time {res.elapsed:.3f}s")
    lines.append(res.verdict)
    return "\n".join(lines)


def to_json(res, written: dict | None = None) -> dict:
    prog = res.program
    return {
        "test": prog.name or Path(prog.filename).stem,
        "file": prog.filename,
        "model": res.model,
        "verdict": res.verdict,
        "outcomes": res.outcome_dicts(),
        "candidates": res.candidates,
        "consistent": res.consistent,
        "complete": res.complete,
        "reason": res.reason or None,
        "stuck": res.stuck or None,
        "condition": condition_text(res.condition) or None,
        "positive": res.satisfied,
        "negative": res.consistent_filtered - res.satisfied,
        "spins_pruned": res.spins_pruned,
        "elapsed_s": round(res.elapsed, 6),
        "written": written or {},
    }
