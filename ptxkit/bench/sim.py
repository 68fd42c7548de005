"""Simulator throughput (docs/performance.md): lane-instructions per second on sanitized Triton kernels
(``fpsan.ptx`` of rowsum, dot16, sum_loop from the shared corpus) next to the plain build of the same
kernel on the same simulator, measured side by side in one run (min/median of ``repeats``)."""

from __future__ import annotations

import statistics
import time
from pathlib import Path

from ptxkit.bench.common import Row, shared_corpora
from ptxkit.corpus.triton import load_case
from ptxkit.exec_sim import load_module, parse_arg_specs, run_kernel

NAME = "sim"
GOAL = 20e6
KERNELS = ("rowsum", "dot16", "sum_loop")


def _shared_root() -> Path | None:
    root = shared_corpora() / "ptx" / "triton_fpsan"
    return root if root.is_dir() else None


def measure(root: Path, kern: str, build: str, repeats: int) -> tuple[list[float], int]:
    c = load_case(root / kern, build)
    m = load_module(c.path)
    fn = m.entries()[0]
    args = parse_arg_specs(list(c.specs), fn, 0)
    run_kernel(m, None, args, c.grid, c.block, c.shared)  # warm: decode once, numpy caches
    rates: list[float] = []
    lanes = 0
    for _ in range(repeats):
        args = parse_arg_specs(list(c.specs), fn, 0)
        t = time.perf_counter()
        r = run_kernel(m, None, args, c.grid, c.block, c.shared)
        dt = time.perf_counter() - t
        lanes = r.lane_instructions
        rates.append(lanes / dt)
    return rates, lanes


def run(repeats: int = 3) -> list[Row]:
    root = _shared_root()
    if root is None:
        return [{"figure": "simulator lane-instructions/s", "value": None, "goal": ">= 20 M/s",
                 "note": "skipped: ../shared corpus absent"}]
    out = []
    for kern in KERNELS:
        san, n_san = measure(root, kern, "fpsan.ptx", repeats)
        plain, n_plain = measure(root, kern, "plain.ptx", repeats)
        best, med = max(san), statistics.median(san)
        out.append({
            "figure": f"simulator throughput, Triton fpsan.ptx {kern} (lane-instr/s)",
            "value": round(med / 1e6, 2),
            "ours": round(med / 1e6, 2),
            "reference": round(statistics.median(plain) / 1e6, 2),
            "ratio": round(med / statistics.median(plain), 2),
            "goal": f">= {GOAL / 1e6:.0f} M/s",
            "note": (f"best {best / 1e6:.1f} M/s, median {med / 1e6:.1f} M/s over {repeats} runs, {n_san} lane-instr; "
                     f"plain.ptx same run: median {statistics.median(plain) / 1e6:.1f} M/s ({n_plain} lane-instr); "
                     f"ratio sanitized/plain speed {med / statistics.median(plain):.2f}"),
        })
    return out


if __name__ == "__main__":
    for row in run(3):
        print(row)
