"""Parse benchmark (docs/performance.md): parse the 204,557-line CUB file to the full IR, side by
side with ``ptxas -arch=sm_90`` on the same file, interleaved, ``repeats`` times each. Reported:
the ratio of medians and of minima of wall time, and of CPU time (less sensitive to a loaded
machine). Goal ≤ 0.5× ptxas."""

from __future__ import annotations

import os
import resource
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from ptxkit.bench.common import Row, shared_corpora
from ptxkit.ptx.lark_parser import lark
from ptxkit.ptx.parser import parse_file

NAME = "parse"
BIG = shared_corpora() / "ptx" / "nvcc" / "thrust_big_sm90.ptx"


def _ptxas(path: Path) -> tuple[float, float]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    with tempfile.TemporaryDirectory() as d:
        subprocess.run(["ptxas", "-arch=sm_90", str(path), "-o", os.path.join(d, "x.cubin")],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def _ours(path: Path) -> tuple[float, float, int]:
    t, c = time.perf_counter(), time.process_time()
    m = parse_file(path)
    wall, cpu = time.perf_counter() - t, time.process_time() - c
    n = sum(1 for f in m.functions() for _ in f.instructions())
    return wall, cpu, n


def run(repeats: int = 3) -> list[Row]:
    if not BIG.is_file():
        return [{"figure": "parse thrust_big_sm90.ptx", "value": "skipped",
                 "note": f"{BIG} absent"}]
    lark()  # grammar construction is a one-off per process, not part of a parse
    have_ptxas = shutil.which("ptxas") is not None
    ours_w: list[float] = []
    ours_c: list[float] = []
    px_w: list[float] = []
    px_c: list[float] = []
    n = 0
    for _ in range(max(1, repeats)):
        if have_ptxas:
            w, c = _ptxas(BIG)
            px_w.append(w)
            px_c.append(c)
        w, c, n = _ours(BIG)
        ours_w.append(w)
        ours_c.append(c)
    rows: list[Row] = [{"figure": "parse thrust_big_sm90.ptx: ptxkit wall s (median/min)",
             "value": f"{statistics.median(ours_w):.2f}/{min(ours_w):.2f}",
             "note": f"{n} instructions, full IR"}]
    if have_ptxas:
        rows.append({"figure": "ptxas -arch=sm_90 wall s (median/min)",
                     "value": f"{statistics.median(px_w):.2f}/{min(px_w):.2f}"})
        rows.append({"figure": "parse / ptxas, wall (median)",
                     "value": round(statistics.median(ours_w) / statistics.median(px_w), 3),
                     "goal": "<= 0.5", "note": f"min/min {min(ours_w) / min(px_w):.3f}"})
        rows.append({"figure": "parse / ptxas, CPU time (median)",
                     "value": round(statistics.median(ours_c) / statistics.median(px_c), 3),
                     "goal": "<= 0.5", "note": f"ours {statistics.median(ours_c):.2f} s, "
                                               f"ptxas {statistics.median(px_c):.2f} s"})
    else:
        rows.append({"figure": "parse / ptxas", "value": "skipped", "note": "ptxas not on PATH"})
    return rows
