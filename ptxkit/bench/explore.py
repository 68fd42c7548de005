"""`ptxkit bench explore`: the explorer over Dat3M's PTX v7.5 corpus (every row of
PTXv7_5-expected.csv) — total and slowest-test time (goals ≤ 20 s total, ≤ 2 s each on 2 cores,
against Dartagnan's ~10 s per test), agreement with the CSV, candidate/consistent counts."""

from __future__ import annotations

import csv
import statistics
import time
from pathlib import Path

from ptxkit.bench.common import Row, shared_corpora
from ptxkit.explore.engine import explore
from ptxkit.explore.result import ExploreResult
from ptxkit.litmus.parser import parse_litmus_file

NAME = "explore"


def _corpus() -> Path | None:
    base = shared_corpora() / "litmus" / "dat3m"
    return base if (base / "PTXv7_5-expected.csv").is_file() else None


def _agrees(res: ExploreResult, expected: str) -> bool:
    """A row agrees when the verdict is its Ok/No; a program with no execution at all
    (``NoExecution``, e.g. Barrier/quorum*-hang) agrees with the row's vacuous value."""
    if res.verdict == "NoExecution" and res.condition is not None:
        return expected == ("0" if res.condition.quantifier == "exists" else "1")
    return bool(res.verdict == {"1": "Ok", "0": "No"}[expected])


def run(repeats: int = 3) -> list[Row]:
    base = _corpus()
    if base is None:
        return [{"figure": "explore v7.5 corpus", "value": "skipped", "goal": "",
                 "note": "../shared/corpora/litmus/dat3m absent"}]
    rows = list(csv.reader((base / "PTXv7_5-expected.csv").open()))
    totals: list[float] = []
    cpus: list[float] = []
    slowest: list[float] = []
    name = ""
    cands = cons = agree = 0
    for _ in range(max(1, repeats)):
        total, worst, worst_name = 0.0, 0.0, ""
        c1 = c2 = ok = 0
        cpu0 = time.process_time()
        for rel, expected in rows:
            t = time.perf_counter()
            res = explore(parse_litmus_file(base / rel))
            dt = time.perf_counter() - t
            total += dt
            if dt > worst:
                worst, worst_name = dt, rel
            c1 += res.candidates
            c2 += res.consistent
            ok += _agrees(res, expected)
        totals.append(total)
        cpus.append(time.process_time() - cpu0)
        slowest.append(worst)
        name, cands, cons, agree = worst_name, c1, c2, ok
    med = statistics.median_high
    return [
        {"figure": "v7.5 corpus total (s)", "value": f"{med(totals):.2f} (min {min(totals):.2f})",
         "goal": "<= 20", "note": f"{len(rows)} tests; Dartagnan ~10 s per test"},
        {"figure": "v7.5 corpus CPU time (s)", "value": f"{med(cpus):.2f}", "goal": "<= 20",
         "note": "process time: wall time above includes waiting for a shared CPU"},
        {"figure": "slowest test (s)", "value": f"{med(slowest):.3f}", "goal": "<= 2",
         "note": Path(name).name},
        {"figure": "agreement with Dat3M CSV", "value": f"{agree}/{len(rows)}", "goal": f"{len(rows)}/{len(rows)}",
         "note": "PTXv7_5-expected.csv, default model"},
        {"figure": "candidates / consistent", "value": f"{cands} / {cons}", "goal": "",
         "note": "summed over the corpus"},
    ]
