"""Find silent mismatches hidden behind a report: a generator kernel that fails ``--strict`` for one instruction may
still have another instruction sanitized wrongly with nothing said (held-out seeds 29884, 29941 of issue 10).

    python scripts/hidden_mismatches.py SEED [SEED ...]      # or a file of seeds, one per line

For each kernel (``ptxkit.corpus.triton_kernels.generate``, compiled through the cache like ``triton_gen``), the
``--fold`` options its errors name are tried with every value (at most 24 combinations); a combination that leaves
no error but a mismatch against Triton's FPSan build is printed ``HIDDEN``. Not every hit is a defect: one global
fold value cannot serve two instructions that need different forms (two self-adds, a CSE-merged add); read each.
Needs Triton (``pip install 'ptxkit[triton]'``).
"""

from __future__ import annotations

import itertools
import re
import sys
from pathlib import Path

from ptxkit.corpus.triton_check import cache_dir, compile_ptx, run_ptx
from ptxkit.corpus.triton_kernels import generate
from ptxkit.fpsan_ptx import sanitize_text

_FOLD = re.compile(r"--fold ([a-z-]+)=([a-z0-9|-]+)")


def seeds(args: list[str]) -> list[int]:
    out: list[int] = []
    for a in args:
        out += [int(x) for x in Path(a).read_text().split()] if Path(a).is_file() else [int(a)]
    return out


def check(seed: int) -> list[str]:
    spec = generate(seed)
    plain, fpsan = compile_ptx(spec, ""), compile_ptx(spec, "fpsan")
    if plain.error or fpsan.error:
        return []
    root = str(cache_dir() / "src")
    res = sanitize_text(plain.ptx, f"{spec.name}.plain.ptx", source_root=root)
    forms = {m.group(1): m.group(2).split("|") for i in res.report.errors if (m := _FOLD.search(i.reason))}
    if not forms:
        return []
    ref = run_ptx(spec, fpsan, fpsan.ptx, f"{spec.name}.fpsan.ptx")
    names = sorted(forms)
    lines = []
    for combo in itertools.islice(itertools.product(*(forms[k] for k in names)), 24):
        folds = tuple(zip(names, combo))
        r = sanitize_text(plain.ptx, f"{spec.name}.plain.ptx", source_root=root, folds=folds)
        if r.report.errors:
            continue
        diff = int((ref != run_ptx(spec, plain, r.text, f"{spec.name}.sanitized.ptx")).sum())
        lines.append(f"{'HIDDEN' if diff else 'ok'} {seed} {folds} {diff}/{ref.size}")
    return lines


def main() -> int:
    for seed in seeds(sys.argv[1:]):
        for line in check(seed):
            print(line, flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
