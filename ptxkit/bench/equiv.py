"""Benchmarks of `ptxkit equiv` and the mma.sync FPSan expansion (docs/performance.md: ratios measured
side by side in one run, min/median of ``repeats``).

* mma cost: dynamic warp-instruction count of Triton's dot16 kernel (mma.sync m16n8k16) sanitized by
  ptxkit vs Triton 3.9's own fpsan.ptx, on the simulator (goal ≤ 1.0×; both checked bit-exact first).
* equiv overhead: wall time of one `equiv` trial (sanitize + run both kernels) on sum_seq vs sum_tree,
  against running the two plain kernels on the simulator (no goal: how much FPSan costs here).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ptxkit.bench.common import ROOT, Row, min_median, shared_corpora, timed
from ptxkit.equiv import EquivOptions, check_files
from ptxkit.exec_sim import parse_arg_specs, run_kernel
from ptxkit.fpsan_ptx import sanitize_text
from ptxkit.ptx.parser import parse

NAME = "equiv"
DOT16 = shared_corpora() / "ptx" / "triton_fpsan" / "dot16"
PAIRS = ROOT / "corpora" / "pairs"


def _dot16_counts() -> dict[str, int | str] | None:
    if not DOT16.is_dir():
        return None
    v = DOT16 / "vectors"
    specs = [f"0=f16[256]:{v / 'a.bin'}", f"1=f16[256]:{v / 'b.bin'}", "2=f32[256]:zeros",
             "3=u8[4096]:zeros", "4=u8[4096]:zeros"]
    want = np.fromfile(v / "expected_fpsan_c.bin", dtype=np.uint32)
    counts: dict[str, int | str] = {}
    for name, text in (("ours", sanitize_text((DOT16 / "plain.ptx").read_text(), "plain.ptx").text),
                       ("triton", (DOT16 / "fpsan.ptx").read_text())):
        m = parse(text, name)
        fn = m.entries()[0]
        r = run_kernel(m, fn.name, parse_arg_specs(specs, fn, 0), (1, 1, 1), (128, 1, 1), 1024)
        if not np.array_equal(np.asarray(r.buffers["2"]).view(np.uint32), want):
            return {"error": f"{name}: output differs from expected_fpsan_c.bin"}
        counts[name] = r.instructions
    return counts


def _time(fn: Callable[[], object], repeats: int) -> tuple[float, float]:
    return min_median([timed(fn) for _ in range(max(repeats, 1))])


def run(repeats: int) -> list[Row]:
    rows: list[Row] = []
    c = _dot16_counts()
    if c is None:
        rows.append({"figure": "mma.sync FPSan instructions (dot16) vs Triton", "value": "skipped",
                     "goal": "≤ 1.0", "note": "../shared absent"})
    elif "error" in c:
        rows.append({"figure": "mma.sync FPSan instructions (dot16) vs Triton", "value": "wrong",
                     "goal": "≤ 1.0", "note": c["error"]})
    else:
        ours, triton = int(c["ours"]), int(c["triton"])
        rows.append({"figure": "mma.sync FPSan instructions (dot16) vs Triton", "ours": ours,
                     "reference": triton, "ratio": round(ours / triton, 3),
                     "value": f"{ours / triton:.3f}× ({ours} vs {triton} warp-instr)",
                     "goal": "≤ 1.0", "note": "both bit-exact vs expected_fpsan_c.bin"})

    specs = ["0=f32[256]:rand", "1=f32[1]:zeros", "2=s32:256"]
    a, b = PAIRS / "sum_seq.ptx", PAIRS / "sum_tree.ptx"
    opts = EquivOptions(block=(64, 1, 1), trials=1)

    def equiv_once() -> None:
        assert check_files(a, b, specs, opts=opts).verdict == "EQUIVALENT"

    mods = [parse(p.read_text(), str(p)) for p in (a, b)]

    def plain_once() -> None:
        for m in mods:
            fn = m.entries()[0]
            run_kernel(m, fn.name, parse_arg_specs(specs, fn, 0), (1, 1, 1), (64, 1, 1), 0)

    e_min, e_med = _time(equiv_once, repeats)
    p_min, p_med = _time(plain_once, repeats)
    rows.append({"figure": "equiv trial (sum_seq vs sum_tree) / plain simulator runs", "ours": e_med,
                 "reference": p_med, "ratio": round(e_med / p_med, 2),
                 "value": f"{e_min / p_min:.2f}× min, {e_med / p_med:.2f}× median ({e_med * 1000:.0f} ms)",
                 "goal": "—", "note": "sanitize + parse + run both, vs running both unsanitized"})
    return rows
