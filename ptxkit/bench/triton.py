"""Bench for issue 10's goal: seeded random Triton 3.9 kernels (``ptxkit.corpus.triton_kernels``), each
compiled plain and with Triton's FPSan; ``ptxkit sanitize`` of the plain PTX must give the same bits as
Triton's FPSan PTX on the simulator (≥ 98 % of the kernels), and every mismatch must fail ``--strict``.
Needs Triton 3.9 (``pip install -e '.[triton]'``; no GPU). ``$PTXKIT_TRITON_GEN_N`` kernels (default 200)."""

from __future__ import annotations

import os

from ptxkit.bench.common import Row
from ptxkit.corpus.triton_check import check, summarize, triton_available
from ptxkit.corpus.triton_kernels import generate

NAME = "triton"


def run(repeats: int) -> list[Row]:
    if not triton_available():
        return [{"figure": "random Triton kernels bit-exact with Triton's FPSan", "value": "skipped",
                 "goal": ">= 98 %", "note": "Triton 3.9 is not installed (pip install -e '.[triton]')"}]
    n = int(os.environ.get("PTXKIT_TRITON_GEN_N", "200"))
    s = summarize([check(generate(seed)) for seed in range(n)])
    return [
        {"figure": f"random Triton kernels bit-exact with Triton's FPSan (seeds 0..{n - 1})",
         "value": f"{s['exact']}/{n} ({100 * s['exact'] / n:.1f} %)", "goal": ">= 98 %",
         "ours": s["exact"], "reference": n, "ratio": s["exact"] / n},
        {"figure": "mismatches not reported (pass --strict)", "value": s["mismatch_unreported"], "goal": "0",
         "note": f"{s['mismatch_reported']} reported; {s['exact_but_strict_fails']} exact kernels fail --strict"},
        {"figure": "kernels whose Triton FPSan PTX the simulator cannot run", "value": s["ref_sim_error"],
         "goal": "0"},
    ]
