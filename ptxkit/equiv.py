"""`ptxkit equiv`: are two kernels the same computation? (docs/cli.md, docs/fpsan.md)

Both kernels are sanitized (FPSan: floats become elements of Z/2^w, where the algebraic identities
of {+, −, ×, exp, sin, cos} hold exactly), then run on the same N random input sets; every buffer
argument is compared bit for bit after each run. Any difference → DIFFERENT (with the first one),
none → EQUIVALENT. Without sanitization (``sanitize=False``) this is plain bit-exact testing.

A verdict of EQUIVALENT is evidence over N trials, not a proof; DIFFERENT is a witness.
"""

from __future__ import annotations

import dataclasses
import math
import re
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

from ptxkit import gpu
from ptxkit.errors import BoundExceeded, Diagnostic, UsageError
from ptxkit.exec_sim.args import check_launch, parse_arg_specs
from ptxkit.exec_sim.decode import decode
from ptxkit.exec_sim.launch import DEFAULT_MAX_STEPS, run_kernel
from ptxkit.fpsan_ptx import ReportItem, at_user_lines, sanitize_text
from ptxkit.ir import Function, Module
from ptxkit.ptx.parser import parse, read_source

VERDICT_EQ = "EQUIVALENT"
VERDICT_NE = "DIFFERENT"


@dataclass
class EquivOptions:
    """Everything besides the two kernels and their arguments (cli.md `equiv` flags)."""

    grid: tuple[int, int, int] = (1, 1, 1)
    block: tuple[int, int, int] = (1, 1, 1)
    shared: int = 0
    trials: int = 3
    seed: int = 0
    device: str = "cpu"
    sanitize: bool = True
    homomorphic_casts: bool = False
    atomics: str = "native"
    max_steps: int = DEFAULT_MAX_STEPS  # warp-instructions of the whole check (cpu): BoundExceeded past it


@dataclass
class Difference:
    """The first bit difference found: buffer NAME (as given in --arg), flat element index."""

    trial: int
    seed: int
    buffer: str
    index: int
    dtype: str
    a_bits: int
    b_bits: int
    a_value: float | int
    b_value: float | int
    differing: int  # how many elements of this buffer differ in this trial

    def describe(self) -> str:
        width = np.dtype(self.dtype).itemsize * 2
        return (f"trial {self.trial} (seed {self.seed}): buffer {self.buffer}[{self.index}] ({self.dtype}): "
                f"A = {self.a_value!r} (0x{self.a_bits:0{width}x}), B = {self.b_value!r} (0x{self.b_bits:0{width}x})"
                f"; {self.differing} element(s) of {self.buffer} differ")


@dataclass
class Side:
    """One of the two kernels: where it came from and what the sanitizer could not model."""

    file: str
    kernel: str
    sanitized: bool
    unmodelled: list[dict] = field(default_factory=list)


@dataclass
class EquivResult:
    verdict: str
    trials: int
    buffers: list[str]
    elements_compared: int
    a: Side
    b: Side
    difference: Difference | None = None

    def to_json(self) -> dict[str, Any]:
        d: dict[str, Any] = {
            "verdict": self.verdict,
            "trials": self.trials,
            "buffers": self.buffers,
            "elements_compared": self.elements_compared,
            "a": self.a.__dict__,
            "b": self.b.__dict__,
        }
        if self.difference is not None:
            diff = dict(self.difference.__dict__)
            for k in ("a_value", "b_value"):  # NaN/inf are not JSON: spell them
                v = diff[k]
                if isinstance(v, float) and not math.isfinite(v):
                    diff[k] = str(v)
            d["difference"] = diff
        return d


# Random input sets per check: each is two launches; more than this is a run of hours, not a check.
MAX_TRIALS = 1000


# --------------------------------------------------------------------------- preparation


def _parse(text: str, filename: str) -> Module:
    return parse(text, filename)


def _sanitize(text: str, filename: str, opts: EquivOptions) -> tuple[str, list[dict]]:
    """FPSan-rewrite ``text``; returns the new text and the report as plain dicts."""
    res = sanitize_text(text, filename, homomorphic_casts=opts.homomorphic_casts,
                        atomics=opts.atomics, strict=False)
    return res.text, [_report_entry(e) for e in res.report.items]


def _report_entry(e: ReportItem) -> dict[str, Any]:
    return dataclasses.asdict(e)


def pick_entry(module: Module, name: str | None, flag: str = "--kernel") -> Function:
    """The named ``.entry`` or, without a name, the only one (cli.md "Kernel arguments")."""
    entries = module.entries()
    if name is not None:
        for f in entries:
            if f.name == name:
                return f
        have = ", ".join(f.name for f in entries) or "none"
        raise UsageError(f"{module.filename}: no .entry named '{name}' ({flag}); entries: {have}")
    if len(entries) != 1:
        have = ", ".join(f.name for f in entries) or "none"
        raise UsageError(f"{module.filename}: {len(entries)} .entry functions ({have}): choose one with {flag}")
    return entries[0]


_SPEC = re.compile(r"^([^=]+)=(.*)$", re.S)


def specs_for_b(specs: list[str], fn_a: Function, fn_b: Function) -> list[str]:
    """Re-address ``--arg`` specs written for kernel A to kernel B: a parameter name of A becomes its
    position (the two kernels' parameter names usually differ: ``k_param_0``); positions stay."""
    names_a = [p.name for p in fn_a.params]
    names_b = {p.name for p in fn_b.params}
    out = []
    for s in specs:
        m = _SPEC.match(s)
        if not m:
            out.append(s)  # the argument parser reports the bad spec
            continue
        name, rest = m.group(1).strip(), m.group(2)
        if name in names_a and name not in names_b:
            name = str(names_a.index(name))
        out.append(f"{name}={rest}")
    if len(fn_a.params) != len(fn_b.params):
        raise UsageError(f"kernels take different numbers of parameters: {fn_a.name} {len(fn_a.params)}, "
                         f"{fn_b.name} {len(fn_b.params)}")
    return out


def spec_names(specs: list[str]) -> list[str]:
    """The NAMEs of ``--arg NAME=SPEC`` as given (buffer names in results)."""
    names = []
    for s in specs:
        m = _SPEC.match(s)
        if not m:
            raise UsageError(f"--arg '{s}': expected NAME=SPEC")
        names.append(m.group(1).strip())
    return names


# --------------------------------------------------------------------------- running


@dataclass
class _Budget:
    """``--max-steps`` for the whole check: warp-instructions over both kernels and every trial."""

    limit: int
    used: int = 0


def _run(module: Module, fn: Function, specs: list[str], seed: int, opts: EquivOptions,
         budget: _Budget) -> dict[str, np.ndarray]:
    """Run one kernel on one input set; returns every buffer argument by its --arg NAME."""
    args = parse_arg_specs(specs, fn, seed)
    if opts.device == "gpu":
        return dict(gpu.run_kernel(module, fn.name, args, opts.grid, opts.block, opts.shared).buffers)
    left = budget.limit - budget.used
    try:
        if left < 1:
            raise BoundExceeded("no warp-instructions left", file=module.filename, line=0, col=0)
        res = run_kernel(module, fn.name, args, opts.grid, opts.block, opts.shared, max_steps=left)
    except BoundExceeded as e:
        d = e.first
        msg = (f"step limit of {budget.limit} warp-instructions exceeded (--max-steps, counted over both "
               f"kernels and every trial of the check; {budget.used} before this launch of {fn.name})")
        raise BoundExceeded(Diagnostic(d.file, d.line, d.col, msg, d.source_line)) from None
    budget.used += res.instructions
    return dict(res.buffers)


def _first_difference(trial: int, seed: int, name: str, a: np.ndarray, b: np.ndarray) -> Difference | None:
    """Bit-for-bit comparison of two buffers of the same spec (so the same dtype and length)."""
    a = np.ascontiguousarray(a).reshape(-1)
    b = np.ascontiguousarray(b).reshape(-1)
    # one --arg spec gives both runs the same dtype and length: anything else is a bug in ptxkit
    assert a.dtype == b.dtype and a.shape == b.shape, (name, a.dtype, a.shape, b.dtype, b.shape)
    size = a.dtype.itemsize
    view = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[size]
    ab, bb = a.view(view), b.view(view)
    diff = np.nonzero(ab != bb)[0]
    if diff.size == 0:
        return None
    i = int(diff[0])
    return Difference(trial, seed, name, i, str(a.dtype), int(ab[i]), int(bb[i]),
                      a[i].item(), b[i].item(), int(diff.size))


def check(text_a: str, file_a: str, text_b: str, file_b: str, specs: list[str], *,
          kernel_a: str | None = None, kernel_b: str | None = None,
          opts: EquivOptions | None = None) -> EquivResult:
    """Sanitize (unless ``opts.sanitize`` is off), run both kernels on ``opts.trials`` input sets
    (trial t uses seed ``opts.seed + t`` for every rand buffer of both sides) and compare."""
    opts = opts or EquivOptions()
    if not 1 <= opts.trials <= MAX_TRIALS:
        raise UsageError(f"--trials {opts.trials}: expected 1 .. {MAX_TRIALS}")
    if opts.atomics not in ("native", "ring"):
        raise UsageError("--atomics must be native or ring")
    if opts.seed < 0:
        raise UsageError(f"--seed {opts.seed}: expected a non-negative integer")
    check_launch(opts.grid, opts.block, opts.shared)
    names = spec_names(specs)
    sides = []
    for text, fname, kname, flag in ((text_a, file_a, kernel_a, "--kernel"), (text_b, file_b, kernel_b, "--kernel-b")):
        module = _parse(text, fname)
        if kname is None and flag == "--kernel-b" and kernel_a is not None and \
                any(f.name == kernel_a for f in module.entries()):
            kname = kernel_a  # one --kernel naming an entry both files have
        fn = pick_entry(module, kname, flag)
        report: list[dict] = []
        located: Callable[[], AbstractContextManager[None]] = nullcontext
        if opts.sanitize:
            if opts.device == "cpu":  # the simulator's refusals at the user's line, not the sanitized text's
                decode(module, fn)
            stext, report = _sanitize(text, fname, opts)
            module = _parse(stext, fname)
            fn = pick_entry(module, fn.name, flag)
            located = partial(at_user_lines, text, stext, fname)
        sides.append((module, fn, Side(fname, fn.name, opts.sanitize, report), located))
    (mod_a, fn_a, side_a, located_a), (mod_b, fn_b, side_b, located_b) = sides
    specs_b = specs_for_b(specs, fn_a, fn_b)
    name_b = dict(zip(names, spec_names(specs_b)))  # A's --arg NAME → the NAME B's run reports it under

    compared = 0
    buffers: list[str] = []
    budget = _Budget(opts.max_steps)
    for t in range(opts.trials):
        seed = opts.seed + t
        with located_a():  # a run-time error of a sanitized kernel at the user's line
            out_a = _run(mod_a, fn_a, specs, seed, opts, budget)
        with located_b():
            out_b = _run(mod_b, fn_b, specs_b, seed, opts, budget)
        buffers = [n for n in names if n in out_a]
        if not buffers:
            raise UsageError("no buffer arguments: nothing to compare (give outputs as TYPE[N]:zeros)")
        for n in buffers:
            if name_b[n] not in out_b:
                raise UsageError(f"buffer '{n}' missing from the run of {fn_b.name}")
            d = _first_difference(t, seed, n, out_a[n], out_b[name_b[n]])
            if d is not None:
                return EquivResult(VERDICT_NE, t + 1, buffers, compared, side_a, side_b, d)
            compared += int(np.asarray(out_a[n]).size)
    return EquivResult(VERDICT_EQ, opts.trials, buffers, compared, side_a, side_b)


def check_files(path_a: str | Path, path_b: str | Path, specs: list[str], **kw) -> EquivResult:
    """:func:`check` on two files (an unreadable path is a UsageError naming it)."""
    texts = [read_source(p) for p in (path_a, path_b)]
    return check(texts[0], str(path_a), texts[1], str(path_b), specs, **kw)
