"""CPU-vs-GPU check for the Triton FPSan corpus, meant to run unattended on a machine with CuPy and a GPU:

    python -m ptxkit.corpus.gpucheck /path/to/shared [--json OUT.json] [--repeats 20]

For every ``corpora/ptx/triton_fpsan/<kernel>/`` it runs ``fpsan.ptx`` and ``fpsan_sm80.ptx`` on the
simulator and on the GPU with the ``vectors/`` inputs, and reports whether the two outputs are
bit-identical to each other and to ``expected_fpsan_*.bin``, with timings (simulator wall time, GPU
kernel time by CUDA events). ``plain.ptx`` is run too and compared within float tolerance (its
approximate instructions are not bit-specified). Exit status 0 when every fpsan build is
bit-identical on both devices, 1 otherwise, 2 when no GPU is usable.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import traceback
from pathlib import Path

import numpy as np

from ptxkit import gpu
from ptxkit.corpus.triton import TritonCase, kernels, load_case
from ptxkit.exec_sim import load_module, parse_arg_specs, run_kernel


def _run_case(c: TritonCase, device: str, repeats: int) -> tuple[np.ndarray, float, str | None]:
    m = load_module(c.path)
    args = parse_arg_specs(list(c.specs), m.entries()[0], 0)
    if device == "gpu":
        g = gpu.run_kernel(m, m.entries()[0].name, args, c.grid, c.block, c.shared, repeats=repeats)
        return g.buffers[c.output], g.seconds, g.ptx_version
    t = time.perf_counter()
    r = run_kernel(m, None, args, c.grid, c.block, c.shared)
    return r.buffers[c.output], time.perf_counter() - t, None


def check(shared: Path, repeats: int = 20) -> list[dict]:
    root = shared / "corpora" / "ptx" / "triton_fpsan"
    rows = []
    for kern in kernels(root):
        for build in ("fpsan.ptx", "fpsan_sm80.ptx", "plain.ptx"):
            row: dict = {"kernel": kern, "build": build}
            try:
                c = load_case(root / kern, build)
                cpu, t_cpu, _ = _run_case(c, "cpu", 0)
                gpu_out, t_gpu, ver = _run_case(c, "gpu", repeats)
                want = c.expected.view(cpu.dtype)
                row.update(cpu_seconds=t_cpu, gpu_seconds=t_gpu, ptx_version=ver,
                           elements=int(cpu.size))
                if build == "plain.ptx":
                    ft = np.float16 if c.output_type == "u16" else np.float32
                    a, b = cpu.view(ft).astype(np.float64), gpu_out.view(ft).astype(np.float64)
                    with np.errstate(all="ignore"):
                        rel = np.abs(a - b) / np.maximum(np.abs(b), 1e-30)
                    rel = np.where(np.isnan(a) & np.isnan(b), 0, rel)
                    row.update(bit_identical_cpu_gpu=bool(np.array_equal(cpu, gpu_out)),
                               max_rel_diff=float(np.nanmax(rel)) if rel.size else 0.0,
                               differing=int(np.sum(cpu != gpu_out)))
                else:
                    row.update(bit_identical_cpu_gpu=bool(np.array_equal(cpu, gpu_out)),
                               cpu_matches_expected=bool(np.array_equal(cpu, want)),
                               gpu_matches_expected=bool(np.array_equal(gpu_out, want)),
                               differing=int(np.sum(cpu != gpu_out)))
            except Exception as e:  # keep going: the report must cover every kernel
                row.update(error=f"{type(e).__name__}: {e}", trace=traceback.format_exc(limit=3))
            rows.append(row)
            _print_row(row)
    return rows


def _print_row(r: dict) -> None:
    if "error" in r:
        print(f"{r['kernel']:10s} {r['build']:15s} ERROR {r['error']}", flush=True)
        return
    extra = (f"max_rel={r['max_rel_diff']:.2e}" if "max_rel_diff" in r else
             f"cpu==exp {r['cpu_matches_expected']!s:5s} gpu==exp {r['gpu_matches_expected']!s:5s}")
    print(f"{r['kernel']:10s} {r['build']:15s} cpu==gpu {r['bit_identical_cpu_gpu']!s:5s} {extra}  "
          f"cpu {r['cpu_seconds'] * 1e3:8.2f} ms  gpu {r['gpu_seconds'] * 1e6:8.1f} us", flush=True)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m ptxkit.corpus.gpucheck", description=__doc__.split("\n")[0])
    p.add_argument("shared", nargs="?", default=str(Path(__file__).resolve().parents[3] / "shared"),
                   help="the shared/ directory (holding corpora/ptx/triton_fpsan)")
    p.add_argument("--json", metavar="FILE", help="also write the rows as JSON")
    p.add_argument("--repeats", type=int, default=20, help="timed GPU launches per kernel")
    a = p.parse_args(argv)
    if not gpu.available():
        print("gpucheck: no usable GPU (CuPy missing or no CUDA device)", file=sys.stderr)
        return 2
    rows = check(Path(a.shared), a.repeats)
    summary = {
        "fpsan_builds": sum(1 for r in rows if r["build"] != "plain.ptx"),
        "fpsan_cpu_gpu_identical": sum(1 for r in rows
                                       if r["build"] != "plain.ptx" and r.get("bit_identical_cpu_gpu")),
        "fpsan_gpu_matches_expected": sum(1 for r in rows
                                          if r["build"] != "plain.ptx" and r.get("gpu_matches_expected")),
        "errors": sum(1 for r in rows if "error" in r),
    }
    print(json.dumps(summary))
    if a.json:
        Path(a.json).write_text(json.dumps({"summary": summary, "rows": rows}, indent=1))
    ok = summary["fpsan_cpu_gpu_identical"] == summary["fpsan_builds"] and not summary["errors"]
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
