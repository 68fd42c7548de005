"""``python -m tests.fuzzing --ptx 2000 --litmus 500 --json out.json``: a fuzz campaign and its counts.

``--case ptx:17`` replays one case (prints its command, exit, findings, stderr head; ``--keep DIR``
leaves its files in DIR to reproduce by hand)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from .campaign import campaign, case_by_id, hostile_count, ids, prepare, run_case


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m tests.fuzzing", description=__doc__)
    p.add_argument("--ptx", type=int, default=2000, help="PTX mutants (default 2000)")
    p.add_argument("--litmus", type=int, default=500, help="litmus mutants (default 500)")
    p.add_argument("--no-hostile", action="store_true", help=f"skip the {hostile_count()} hostile invocations")
    p.add_argument("--start", type=int, default=0, help="first case number (to continue a campaign)")
    p.add_argument("--base", type=int, default=0, help="campaign seed (different seed, different mutants)")
    p.add_argument("--no-ptxas", action="store_true", help="skip the false-rejection check with ptxas")
    p.add_argument("--json", metavar="FILE", help="write the counts and failure classes as JSON")
    p.add_argument("--case", metavar="ID", action="append", help="replay these cases only (e.g. ptx:17)")
    p.add_argument("--keep", metavar="DIR", help="with --case: write the case's files into DIR")
    p.add_argument("-v", "--verbose", action="store_true", help="one line per failing input")
    a = p.parse_args(argv)

    if a.case:
        for cid in a.case:
            case = case_by_id(cid, a.base)
            if a.keep:
                d = Path(a.keep)
                d.mkdir(parents=True, exist_ok=True)
                prepare(case, d)
            r = run_case(case, check_ptxas=not a.no_ptxas)
            print(f"{cid}: seed={case.seed} ops={case.ops}\n  $ {case.command()}\n  exit {r.outcome.rc} "
                  f"in {r.outcome.wall:.2f}s, stderr {r.outcome.stderr_size} B, rss {r.outcome.maxrss_kb} kB")
            for f in r.findings:
                print(f"  FINDING {f.kind}: {f.detail}")
            if r.false_rejection:
                print("  FINDING false-rejection: ptxas accepts this mutant")
            print("  " + r.outcome.stderr_text[:1500].replace("\n", "\n  "))
        return 0

    def progress(r) -> None:
        if a.verbose and (r.findings or r.false_rejection):
            kinds = ",".join(f.kind for f in r.findings) + (",false-rejection" if r.false_rejection else "")
            print(f"{r.case.id:12} {kinds:30} {r.case.command()[:100]}", file=sys.stderr, flush=True)

    s = campaign(ids(a.ptx, a.litmus, not a.no_hostile, a.start), base=a.base, check_ptxas=not a.no_ptxas,
                 on_result=progress)
    for k, v in s.counts().items():
        print(f"{k:18} {v}")
    print(f"{'wall_s':18} {s.wall:.1f}")
    print(f"stderr max: {s.stderr_max_case}\nrss max: {s.rss_max_case}")
    print(f"exits: {dict(s.exits)}")
    print(f"classes ({len(s.classes)}):")
    for key, results in sorted(s.classes.items(), key=lambda kv: -len(kv[1])):
        ex = results[0].case
        print(f"  {len(results):5}  {key}\n         e.g. {ex.id} (seed {ex.seed}, ops {ex.ops}): {ex.command()[:150]}")
    if s.false_rejections:
        print("false rejections:")
        for r in s.false_rejections[:20]:
            print(f"  {r.case.id} (seed {r.case.seed}, ops {r.case.ops}): "
                  f"{r.outcome.stderr_text.splitlines()[0][:150] if r.outcome.stderr_text else ''}")
    if a.json:
        Path(a.json).write_text(json.dumps(s.to_json(), indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
