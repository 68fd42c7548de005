"""Random Triton 3.9 kernels against Triton's own FPSan (issue 10):

    python -m ptxkit.corpus.triton_gen --n 200 --seed 0 [--json OUT.json] [--matrix]
    python -m ptxkit.corpus.triton_gen --only 106,k_tanh_f32      # one kernel each: source + outcome
    python -m ptxkit.corpus.triton_gen --n 0 --models             # the model kernels (softmax, layernorm, …)
    python -m ptxkit.corpus.triton_gen --statements --n 200       # statement-level kernels (names, helpers, …)

Kernels ``seed .. seed+n-1`` of :func:`ptxkit.corpus.triton_kernels.generate` are compiled plain and
with ``instrumentation_mode="fpsan"``; Triton's FPSan PTX on the simulator is the reference, ``ptxkit
sanitize`` of the plain PTX on the simulator the candidate (:mod:`ptxkit.corpus.triton_check`). Prints
one line per kernel (stderr) and the counts (stdout, JSON). ``--matrix`` also runs the single-op
kernels (one per op × dtype, reduction, dot), attributes each random mismatch to the single-op
features that fail on their own, and runs the hand-written idiom kernels (LLVM rewrites of issue
10). ``--models`` also runs the model kernels (:mod:`ptxkit.corpus.triton_models`). ``--statements`` sweeps the
statement-level generator (:mod:`ptxkit.corpus.triton_statements`) instead of the expression one. Needs
``pip install 'ptxkit[triton]'``; exit 2 without Triton.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict

from ptxkit.corpus.triton_check import TRITON_VERSION, Outcome, check, progress, summarize, triton_available
from ptxkit.corpus.triton_kernels import KernelSpec, generate, idiom_kernels, single_op_matrix
from ptxkit.corpus.triton_models import model_kernels
from ptxkit.corpus.triton_statements import generate_statements
from ptxkit.io import atomic_write

_NOT_KEY = ("num_warps=", "mask", "dot_acc")


def key_features(o: Outcome) -> frozenset[str]:
    """The features that name what a single-op kernel tests (launch facts dropped)."""
    return frozenset(f for f in o.features if not f.startswith(_NOT_KEY))


def attribute(random_out: list[Outcome], matrix_out: list[Outcome]) -> dict[str, list[str]]:
    """For each random kernel that is not exact: the failing single-op kernels whose features it uses."""
    failing = [(m.name, key_features(m)) for m in matrix_out if m.status != "exact"]
    return {o.name: [n for n, ks in failing if ks <= set(o.features)]
            for o in random_out if o.status != "exact"}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m ptxkit.corpus.triton_gen", description=__doc__.split("\n")[0])
    p.add_argument("--n", type=int, default=200, help="number of random kernels")
    p.add_argument("--seed", type=int, default=0, help="first seed")
    p.add_argument("--json", metavar="FILE", help="write every outcome and the summary as JSON")
    p.add_argument("--matrix", action="store_true", help="also run the single-op matrix and attribute mismatches")
    p.add_argument("--models", action="store_true", help="also run the model kernels (softmax, layernorm, GELU, …)")
    p.add_argument("--statements", action="store_true", help="sweep the statement-level generator (names, helpers, "
                   "loops, constexprs) instead of the expression one")
    p.add_argument("--quiet", action="store_true", help="no per-kernel lines")
    p.add_argument("--only", metavar="KEYS", help="comma-separated seeds and single-op/idiom kernel names: print each "
                   "kernel's source and full outcome instead of a sweep")
    a = p.parse_args(argv)
    version = triton_available()
    if version is None:
        print("triton_gen: error: Triton is not installed (pip install 'ptxkit[triton]')", file=sys.stderr)
        return 2
    if version != TRITON_VERSION:
        print(f"triton_gen: warning: Triton {version} installed; the FPSan semantics are pinned to "
              f"{TRITON_VERSION}", file=sys.stderr)
    if a.only:
        return _only(a.only.split(","), a.statements)
    make = generate_statements if a.statements else generate
    outcomes = []
    for seed in range(a.seed, a.seed + a.n):
        outcomes.append(check(make(seed)))
        if not a.quiet:
            progress(outcomes[-1])
    result: dict = {"triton": version, "generator": "statements" if a.statements else "expressions",
                    "first_seed": a.seed, "summary": summarize(outcomes)}
    matrix: list[Outcome] = []
    if a.matrix:
        matrix = _checked(single_op_matrix(), a.quiet)
        result["matrix_summary"] = summarize(matrix)
        result["matrix_failing"] = _failing(matrix)
        result["attribution"] = attribute(outcomes, matrix)
        idioms = [check(spec) for spec in idiom_kernels()]
        for o in idioms if not a.quiet else []:
            progress(o)
        result["idioms"] = {o.name: o.status + (" (reported)" if o.strict_fails else "") for o in idioms}
    models: list[Outcome] = []
    if a.models:
        models = _checked(model_kernels(), a.quiet)
        result["models_summary"] = summarize(models)
        result["models_failing"] = _failing(models)
    print(json.dumps({k: v for k, v in result.items() if k != "attribution"}, indent=1))
    if a.json:
        result["outcomes"] = [asdict(o) for o in outcomes]
        result["matrix"] = [asdict(o) for o in matrix]
        result["models"] = [asdict(o) for o in models]
        atomic_write(a.json, json.dumps(result, indent=1))
    return 0


def _checked(specs: list[KernelSpec], quiet: bool) -> list[Outcome]:
    """The outcome of each kernel, a progress line each unless ``quiet``."""
    out = []
    for spec in specs:
        out.append(check(spec))
        if not quiet:
            progress(out[-1])
    return out


def _failing(outcomes: list[Outcome]) -> dict[str, str]:
    """Each kernel that is not exact: its status, "(reported)" where ``--strict`` fails."""
    return {m.name: m.status + (" (reported)" if m.strict_fails else "") for m in outcomes if m.status != "exact"}


def _only(keys: list[str], statements: bool = False) -> int:
    matrix = {k.name: k for k in single_op_matrix() + idiom_kernels() + model_kernels()}
    for key in (k.strip() for k in keys):
        if key.lstrip("-").isdigit():
            spec = generate_statements(int(key)) if statements else generate(int(key))
        elif key in matrix:
            spec = matrix[key]
        else:
            print(f"triton_gen: error: '{key}' is neither a seed nor a single-op, idiom or model kernel name",
                  file=sys.stderr)
            return 2
        print(spec.source)
        print(json.dumps(asdict(check(spec)), indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
