"""Bench for `ptxkit sanitize` (issue 4): (a) sanitize time / ptxas time on the 204k-line CUB file
(goal ≤ 0.5); (b) dynamic instruction count of our sanitized plain.ptx vs Triton's own fpsan.ptx on
the simulator, for every Triton pair (goal ≤ 1.0×)."""

from __future__ import annotations

import re
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from ptxkit.bench.common import Row, timed
from ptxkit.bench.common import shared_corpora as _corpora
from ptxkit.corpus.triton import load_case, run_case
from ptxkit.errors import PtxkitError
from ptxkit.fpsan_ptx import sanitize_text

SHARED = _corpora() / "ptx"
BIG = SHARED / "nvcc" / "thrust_big_sm90.ptx"
TF = SHARED / "triton_fpsan"


def _arch(text: str) -> str:
    m = re.search(r"^\s*\.target\s+(\w+)", text, re.M)
    return m.group(1) if m else "sm_90"


def _ptxas_seconds(path: Path, arch: str) -> float | None:
    if shutil.which("ptxas") is None:
        return None
    t = time.perf_counter()
    r = subprocess.run(["ptxas", f"-arch={arch}", str(path), "-o", "/dev/null"], capture_output=True)
    return time.perf_counter() - t if r.returncode == 0 else None


def bench_big(repeats: int) -> list[Row]:
    """Sanitize end to end (read, parse, rewrite, write) and ``ptxas`` on the same file, interleaved
    so both see the same machine load (docs/performance.md: ratios side by side, min and median)."""
    figure = "sanitize/ptxas time (thrust_big_sm90)"
    if not BIG.exists():
        return [dict(figure=figure, value=None, goal="<= 0.5", note=f"{BIG} absent")]
    text = BIG.read_text()
    arch = _arch(text)
    with tempfile.TemporaryDirectory() as d:
        out = Path(d) / "out.ptx"

        def end_to_end() -> object:
            r = sanitize_text(BIG.read_bytes().decode("utf-8", "surrogateescape"), BIG.name)
            out.write_bytes(r.text.encode("utf-8", "surrogateescape"))
            return r

        ours, theirs = [], []
        for _ in range(max(1, repeats)):
            ours.append(timed(end_to_end))
            pt = _ptxas_seconds(BIG, arch)
            if pt is None:
                return [dict(figure=figure, value=None, goal="<= 0.5", note="ptxas missing or rejects the file")]
            theirs.append(pt)
        res = sanitize_text(BIG.read_bytes().decode("utf-8", "surrogateescape"), BIG.name)
        out.write_bytes(res.text.encode("utf-8", "surrogateescape"))
        accepted = _ptxas_seconds(out, arch) is not None
    med = statistics.median(o / t for o, t in zip(ours, theirs))
    return [dict(figure=figure, value=round(med, 3), goal="<= 0.5",
                 note=f"median of {len(ours)} paired runs; min/min {min(ours) / min(theirs):.3f} "
                      f"(sanitize {min(ours):.2f}s, ptxas {min(theirs):.2f}s); {res.report.rewritten} "
                      f"rewritten; sanitized output accepted by ptxas: {accepted}")]


def bench_pairs() -> list[Row]:
    rows: list[Row] = []
    if not TF.is_dir():
        return rows
    for d in sorted(TF.iterdir()):
        try:
            plain = load_case(d, "plain")
            ours = sanitize_text((d / "plain.ptx").read_text(), f"{d.name}/plain.ptx",
                                 sign_xor_as_neg=d.name == "neg")
            out, r1 = run_case(plain, ours.text, d.name)
            fp = load_case(d, "fpsan")
            _, r2 = run_case(fp, (d / "fpsan.ptx").read_text(), f"{d.name}/fpsan.ptx")
        except PtxkitError as e:  # a kernel the simulator cannot run yet is a note, not a crash
            rows.append(dict(figure=f"dyn. instructions ours/Triton ({d.name})", value=None, goal="<= 1.0",
                             note=f"not run: {e}"))
            continue
        exact = bool((out == plain.expected).all())
        rows.append(dict(figure=f"dyn. instructions ours/Triton ({d.name})",
                         value=round(r1.instructions / r2.instructions, 3), goal="<= 1.0",
                         note=f"{r1.instructions} vs {r2.instructions} warp-instructions; "
                              f"bit-exact: {exact}; {len(ours.report.errors)} reported"))
    return rows


def run(repeats: int = 1) -> list[Row]:
    return bench_big(repeats) + bench_pairs()


if __name__ == "__main__":
    for row in run(1):
        print(row)
