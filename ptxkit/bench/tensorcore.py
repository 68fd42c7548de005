"""Bench for sanitized tensor-core code (issue 10): for every PTX file in ``../shared/corpora/ptx`` with a
float ``mma.sync``, ``wmma.mma`` or ``wgmma.mma_async``, ptxas time on the sanitized file ÷ ptxas time on
the original (goal ≤ 3) and sanitize time ÷ ptxas time on the original (goal ≤ 1), all CPU times. ptxas runs with
``-arch`` from the file's ``.target`` (sm_75 at least; ``.version`` above the local ptxas' 9.0 is
relabelled), one at a time; a file the local ptxas rejects unsanitized is a note, not a ratio.

Run alone: ``python -m ptxkit.bench.tensorcore [--mma MODE] [--repeats N] [FILE…]`` prints one row per file."""

from __future__ import annotations

import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from ptxkit.bench.common import Row
from ptxkit.bench.common import shared_corpora as _corpora
from ptxkit.fpsan_ptx import sanitize_text

SHARED = _corpora() / "ptx"
TENSOR = re.compile(r"^\s*(?:@!?%?\w+\s+)?(?:mma\.sync|wmma\.mma|wgmma\.mma_async)\S*\.(?:f16|bf16|tf32|f64|f32)\b",
                    re.M)
PTXAS_LIMIT = 900.0  # seconds; a ptxas run cut there reports "> limit"


def tensor_core_files(root: Path = SHARED) -> list[Path]:
    """Every .ptx under ``root`` with a float tensor-core instruction."""
    if not root.is_dir():
        return []
    return sorted(p for p in root.rglob("*.ptx") if TENSOR.search(p.read_text(errors="replace")))


def prep(text: str) -> tuple[str, str]:
    """(text with ``.version`` ≤ 9.0, ptxas -arch from ``.target``, at least sm_75)."""
    text = re.sub(r"^(\s*\.version\s+)(\d+)\.(\d+)",
                  lambda m: m.group(1) + ("9.0" if (int(m.group(2)), int(m.group(3))) > (9, 0)
                                          else f"{m.group(2)}.{m.group(3)}"), text, count=1, flags=re.M)
    m = re.search(r"^\s*\.target\s+(\w+)", text, re.M)
    arch = m.group(1) if m else "sm_75"
    n = re.match(r"sm_(\d+)", arch)
    if n and int(n.group(1)) < 75:
        arch = "sm_75"
    return text, arch


def ptxas_seconds(text: str, arch: str, limit: float = PTXAS_LIMIT) -> tuple[float | None, str]:
    """(CPU seconds, "") when ptxas accepts ``text``, else (None, the reason). CPU time (user + system of
    the child) rather than wall time: on a shared machine the wall time of a short ptxas run varies by
    2× with the load, its CPU time far less."""
    if shutil.which("ptxas") is None:
        return None, "ptxas not on PATH"
    with tempfile.TemporaryDirectory() as d:
        f = Path(d) / "k.ptx"
        f.write_text(text)
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        try:
            r = subprocess.run(["ptxas", f"-arch={arch}", str(f), "-o", str(Path(d) / "k.cubin")],
                               capture_output=True, text=True, timeout=limit)
        except subprocess.TimeoutExpired:
            return None, f"ptxas > {limit:.0f} s"
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        dt = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        if r.returncode != 0:
            return None, "ptxas rejects it: " + (r.stderr.strip().splitlines() or ["?"])[0][:160]
        return dt, ""


def measure(path: Path, mma: str = "int8", repeats: int = 1) -> Row:
    """One row: ptxas(orig), sanitize, ptxas(sanitized) and the two ratios; each time the least of
    ``repeats`` runs, ptxas on the original and on the sanitized file alternating (the machine's load
    moves both alike)."""
    rel = str(path.relative_to(SHARED)) if path.is_relative_to(SHARED) else str(path)
    text, arch = prep(path.read_text())
    san = float("inf")
    for _ in range(max(2, repeats)):  # at least two: the first call of a process also pays one-time set-up
        t = time.process_time()  # CPU time, like ptxas'
        res = sanitize_text(text, path.name, mma=mma)
        san = min(san, time.process_time() - t)
    orig, why = ptxas_seconds(text, arch)
    new, why2 = (None, "") if orig is None else ptxas_seconds(res.text, arch)
    for _ in range(repeats - 1):
        if orig is None or new is None:
            break
        orig = min(orig, ptxas_seconds(text, arch)[0] or orig)
        new = min(new, ptxas_seconds(res.text, arch)[0] or new)
    row: Row = dict(figure=f"ptxas(sanitized)/ptxas ({rel})", goal="<= 3", file=rel, arch=arch,
                    ptxas_orig=orig, sanitize=round(san, 3), lines=text.count("\n"),
                    lines_sanitized=res.text.count("\n"), reported=len(res.report.errors))
    if orig is None:
        return row | dict(value=None, note=f"original: {why}; sanitize {san:.2f} s")
    row |= dict(ptxas_sanitized=new, ratio=None if new is None else round(new / orig, 2),
                sanitize_ratio=round(san / orig, 2))
    row["value"] = row["ratio"]
    after = f"{new:.2f} s" if new is not None else why2
    row["note"] = (f"ptxas {orig:.2f} s → {after}; sanitize {san:.2f} s "
                   f"({san / orig:.2f}× ptxas, goal <= 1); {row['lines']} → {row['lines_sanitized']} lines; "
                   f"{row['reported']} reported")
    return row


def run(repeats: int = 1, mma: str = "int8") -> list[Row]:
    """One row per tensor-core file (each time the least of ``repeats`` runs), then the worst of each
    ratio."""
    rows = [measure(p, mma, repeats) for p in tensor_core_files()]
    ok = [r for r in rows if r.get("ratio") is not None]
    if ok:
        worst = max(ok, key=lambda r: r["ratio"])
        worst_s = max(ok, key=lambda r: r["sanitize_ratio"])
        rows.append(dict(figure="worst ptxas(sanitized)/ptxas", value=worst["ratio"], goal="<= 3",
                         note=worst["file"]))
        rows.append(dict(figure="worst sanitize/ptxas", value=worst_s["sanitize_ratio"], goal="<= 1",
                         note=worst_s["file"]))
    failed = [r["file"] for r in rows if "file" in r and r.get("ptxas_orig") is not None and r.get("ratio") is None]
    if failed:
        rows.append(dict(figure="sanitized files ptxas rejects or times out on", value=len(failed), goal="0",
                         note=", ".join(failed)))
    return rows


if __name__ == "__main__":
    args = sys.argv[1:]
    mode, reps = "int8", 1
    while args[:1] in (["--mma"], ["--repeats"]):
        if args[0] == "--mma":
            mode = args[1]
        else:
            reps = int(args[1])
        args = args[2:]
    for p in [Path(a) for a in args] or tensor_core_files():
        r = measure(p, mode, reps)
        print(r["file"], r.get("arch"), r.get("ptxas_orig"), r.get("ptxas_sanitized"), r.get("ratio"),
              r.get("sanitize"), r.get("sanitize_ratio"), r.get("note"), flush=True)
