"""Generated Triton kernels on a real GPU (issue 10; the device check of docs/DEVELOPING.md):

    python -m ptxkit.corpus.gpubundle pack DIR [--seeds 0-199] [--matrix]   # needs Triton 3.9, no GPU
    python -m ptxkit.corpus.gpubundle check DIR [--json OUT] [--jobs 8]     # needs CuPy and a GPU

``pack`` writes, for each kernel of :mod:`ptxkit.corpus.triton_kernels`, its three builds (Triton's
plain PTX, Triton's FPSan PTX, ``ptxkit sanitize`` of the plain PTX), each build's launch (arguments
with the seeded input bytes, grid, block, shared bytes; Triton's FPSan build may need other scratch
sizes than the plain one) and each build's output on the simulator. ``check`` needs neither Triton
nor the simulator: it launches every build on the GPU with the packed arguments (``--jobs``
processes, so the driver's JIT runs in parallel), then once more, serially, for the kernel times.
The two FPSan builds are integer-only, so the GPU must give the simulator's bits exactly; the plain
build is compared too (its approximate instructions make a difference possible, so it is counted,
not required). Exit status 0 when every FPSan and sanitized build is bit-identical, 1 otherwise, 2
when no GPU is usable.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import statistics
import sys
import time
import traceback
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict
from multiprocessing import get_context
from pathlib import Path

import numpy as np

from ptxkit import gpu
from ptxkit.corpus.gpuprobe import save_npz
from ptxkit.corpus.triton_check import TRITON_VERSION, cache_dir, compile_ptx, launch_args, triton_available
from ptxkit.corpus.triton_kernels import KernelSpec, generate, idiom_kernels, single_op_matrix
from ptxkit.exec_sim.args import KernelArg
from ptxkit.exec_sim.frontend import parse_text
from ptxkit.exec_sim.launch import run_kernel
from ptxkit.fpsan_ptx import sanitize_text
from ptxkit.io import atomic_write

BUILDS = ("plain", "fpsan", "sanitized")
_EXACT = ("fpsan", "sanitized")  # the integer-only builds: GPU bits must equal the simulator's
_FLOAT = {"f16": np.float16, "f32": np.float32, "f64": np.float64}


# ------------------------------------------------------------------------------ pack (Triton, simulator)


def _seeds(text: str) -> list[int]:
    out: list[int] = []
    for part in text.split(","):
        lo, _, hi = part.partition("-")
        out.extend(range(int(lo), int(hi or lo) + 1))
    return out


def pack_one(spec: KernelSpec, root: Path) -> dict:
    """Compile (through the cache), sanitize, run each build on the simulator; write ``root/NAME/``."""
    plain, fpsan = compile_ptx(spec, ""), compile_ptx(spec, "fpsan")
    if plain.error or fpsan.error:
        return {"kernel": spec.name, "skipped": plain.error or fpsan.error}
    res = sanitize_text(plain.ptx, f"{spec.name}.plain.ptx", source_root=str(cache_dir() / "src"))
    d = root / spec.name
    d.mkdir(parents=True, exist_ok=True)
    case: dict = {"kernel": spec.name, "seed": spec.seed, "grid": list(spec.grid),
                  "block": [32 * spec.num_warps, 1, 1], "output": spec.output.name,
                  "output_dtype": spec.output.dtype, "strict_fails": bool(res.report.errors), "builds": {}}
    data: dict[str, np.ndarray] = {}
    cpu: dict[str, np.ndarray] = {}
    for build, comp, text in (("plain", plain, plain.ptx), ("fpsan", fpsan, fpsan.ptx),
                              ("sanitized", plain, res.text)):
        (d / f"{build}.ptx").write_text(text)
        fn = parse_text(text, f"{spec.name}.{build}.ptx").entries()[0]
        args = launch_args(spec, comp, fn)
        metas = []
        for a in args:
            m = {k: v for k, v in asdict(a).items() if k not in ("data", "tmap")}
            if a.data is not None:
                key = f"{build}.{a.index}"
                data[key] = a.data
                m["data"] = key
            metas.append(m)
        case["builds"][build] = {"entry": fn.name, "shared": comp.shared, "args": metas}
        t0 = time.perf_counter()
        try:
            r = run_kernel(parse_text(text, f"{spec.name}.{build}.ptx"), None, args, spec.grid,
                           tuple(case["block"]), shared_bytes=comp.shared)
            cpu[build] = np.asarray(r.buffers[spec.output.name])
            case["builds"][build]["cpu_seconds"] = round(time.perf_counter() - t0, 4)
        except Exception as e:  # the simulator's refusal: recorded, the GPU still runs the build
            case["builds"][build]["cpu_error"] = f"{type(e).__name__}: {e}"[:300]
    case["cpu_exact"] = ("fpsan" in cpu and "sanitized" in cpu
                         and bool(np.array_equal(cpu["fpsan"], cpu["sanitized"])))
    save_npz(d / "inputs.npz", data)
    save_npz(d / "cpu.npz", cpu)
    atomic_write(d / "case.json", json.dumps(case, indent=1))
    return {"kernel": spec.name, "cpu_exact": case["cpu_exact"]}


# ------------------------------------------------------------------------------ check (GPU)


def _args(meta: list[dict], data) -> list[KernelArg]:
    return [KernelArg(**{**m, "data": np.array(data[m["data"]]) if m.get("data") else None}) for m in meta]


def _launch(d: Path, case: dict, build: str, repeats: int):
    b = case["builds"][build]
    with np.load(d / "inputs.npz") as data:
        args = _args(b["args"], data)
    r = gpu.run_kernel((d / f"{build}.ptx").read_text(), b["entry"], args, case["grid"], case["block"],
                       b["shared"], repeats=repeats)
    return r.buffers[case["output"]], r.seconds


def check_one(d: Path, repeats: int = 0) -> dict:
    """Every build of one packed kernel on the GPU against its simulator output (``row["gpu_out"]``:
    the GPU's output of each build that differs, for ``--dump``)."""
    case = json.loads((d / "case.json").read_text())
    row: dict = {"kernel": case["kernel"], "cpu_exact": case["cpu_exact"], "strict_fails": case["strict_fails"]}
    outs = {}
    with np.load(d / "cpu.npz") as z:
        cpu = {k: z[k] for k in z.files}
    for build in BUILDS:
        try:
            got, sec = _launch(d, case, build, repeats)
        except Exception as e:  # recorded per build: the check covers every kernel
            row[f"{build}_error"] = f"{type(e).__name__}: {e}"[:300]
            row.setdefault("trace", traceback.format_exc(limit=3))
            continue
        outs[build] = got
        row[f"{build}_gpu_seconds"] = sec
        row[f"{build}_cpu_seconds"] = case["builds"][build].get("cpu_seconds")
        if build not in cpu:
            row[f"{build}_identical"] = None  # the simulator could not run it: nothing to compare
            continue
        want = cpu[build].view(got.dtype)
        row[f"{build}_identical"] = bool(np.array_equal(got, want))
        row[f"{build}_differing"] = int(np.sum(got != want))
        if not row[f"{build}_identical"]:
            row.setdefault("gpu_out", {})[build] = got
        if build == "plain" and case["output_dtype"] in _FLOAT:
            ft = _FLOAT[case["output_dtype"]]
            a, b = got.view(ft).astype(np.float64), want.view(ft).astype(np.float64)
            with np.errstate(all="ignore"):
                rel = np.where(np.isnan(a) & np.isnan(b), 0.0, np.abs(a - b) / np.maximum(np.abs(b), 1e-300))
            row["plain_max_rel"] = float(np.nanmax(rel)) if rel.size else 0.0
    if "fpsan" in outs and "sanitized" in outs:
        row["gpu_exact"] = bool(np.array_equal(outs["fpsan"], outs["sanitized"]))
    return row


def _timed(d: Path) -> dict:
    case = json.loads((d / "case.json").read_text())
    out = {}
    for build in BUILDS:
        with contextlib.suppress(Exception):  # the correctness pass already recorded the error
            out[f"{build}_gpu_seconds"] = _launch(d, case, build, 20)[1]
    return out


def summarize(rows: list[dict]) -> dict:
    ok = [r for r in rows if not any(k.endswith("_error") for k in r)]

    def n(key: str) -> int:
        return sum(1 for r in rows if r.get(key) is True)

    def ratios(num: str) -> list[float]:
        return [r[f"{num}_gpu_seconds"] / r["plain_gpu_seconds"] for r in ok
                if r.get(f"{num}_gpu_seconds") and r.get("plain_gpu_seconds")]

    s: dict = {"kernels": len(rows), "with_errors": len(rows) - len(ok),
               **{f"{b}_identical": n(f"{b}_identical") for b in BUILDS},
               "cpu_exact": n("cpu_exact"), "gpu_exact": n("gpu_exact"),
               "exactness_agrees": sum(1 for r in rows if "gpu_exact" in r and r["gpu_exact"] == r["cpu_exact"])}
    for b in _EXACT:
        rs = ratios(b)
        if rs:
            s[f"{b}_over_plain_gpu_time"] = {"median": round(statistics.median(rs), 3), "max": round(max(rs), 3)}
    sims = [r["sanitized_cpu_seconds"] / r["sanitized_gpu_seconds"] for r in ok
            if r.get("sanitized_cpu_seconds") and r.get("sanitized_gpu_seconds")]
    if sims:
        s["simulator_over_gpu_time_sanitized"] = {"median": round(statistics.median(sims)),
                                                   "max": round(max(sims))}
    return s


def check(root: Path, jobs: int, timing: bool, dump: str | None = None,
          only: list[str] | None = None) -> list[dict]:
    dirs = sorted(p.parent for p in root.glob("*/case.json") if only is None or p.parent.name in only)
    if jobs <= 1:
        rows = [check_one(d) for d in dirs]
    else:  # spawned, not forked: CUDA does not survive a fork
        with ProcessPoolExecutor(max_workers=jobs, mp_context=get_context("spawn")) as ex:
            rows = list(ex.map(check_one, dirs))
    for row in rows:
        bad = [b for b in BUILDS if row.get(f"{b}_identical") is False or f"{b}_error" in row]
        if bad or row.get("gpu_exact") != row["cpu_exact"]:
            print(f"{row['kernel']:24s} " + " ".join(
                f"{b}:{row.get(f'{b}_error') or row.get(f'{b}_differing')}" for b in bad)
                + f" cpu_exact={row['cpu_exact']} gpu_exact={row.get('gpu_exact')}", flush=True)
    outs = {f"{row['kernel']}.{b}": a for row in rows for b, a in row.pop("gpu_out", {}).items()}
    if dump:
        save_npz(dump, outs)
    if timing:  # serially, after the JIT cache is warm: kernel times by CUDA events, medians of 20
        for d, row in zip(dirs, rows):
            row.update(_timed(d))
    return rows


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m ptxkit.corpus.gpubundle", description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    pk = sub.add_parser("pack", help="compile, sanitize and simulate kernels into DIR (Triton, no GPU)")
    pk.add_argument("dir")
    pk.add_argument("--seeds", default="0-199", help="random-kernel seeds: 0-199,400,…")
    pk.add_argument("--matrix", action="store_true", help="also the single-op matrix and the idiom kernels")
    ck = sub.add_parser("check", help="run the packed builds on the GPU (CuPy)")
    ck.add_argument("dir")
    ck.add_argument("--json", metavar="FILE", help="also write every row and the summary as JSON")
    ck.add_argument("--jobs", type=int, default=8, help="processes launching in parallel")
    ck.add_argument("--no-timing", action="store_true", help="skip the serial timing pass")
    ck.add_argument("--dump", metavar="FILE.npz", help="write the GPU output of every build that differs")
    ck.add_argument("--only", metavar="NAMES", help="comma-separated kernel names (default: every packed one)")
    a = p.parse_args(argv)
    if a.cmd == "pack":
        if triton_available() != TRITON_VERSION:
            print(f"gpubundle: error: pack needs Triton {TRITON_VERSION} (pip install 'ptxkit[triton]')",
                  file=sys.stderr)
            return 2
        specs = [generate(s) for s in _seeds(a.seeds)]
        if a.matrix:
            specs += single_op_matrix() + idiom_kernels()
        done = [pack_one(s, Path(a.dir)) for s in specs]
        print(json.dumps({"packed": sum(1 for r in done if "skipped" not in r),
                          "skipped": sum(1 for r in done if "skipped" in r),
                          "cpu_exact": sum(1 for r in done if r.get("cpu_exact"))}))
        return 0
    if not gpu.available():
        print("gpubundle: no usable GPU (CuPy missing or no CUDA device)", file=sys.stderr)
        return 2
    rows = check(Path(a.dir), a.jobs, not a.no_timing, a.dump, a.only.split(",") if a.only else None)
    summary = summarize(rows)
    print(json.dumps(summary))
    if a.json:
        atomic_write(Path(a.json), json.dumps({"summary": summary, "rows": rows}, indent=1))
    ok = summary["with_errors"] == 0 and all(summary[f"{b}_identical"] == len(rows) for b in _EXACT)
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
