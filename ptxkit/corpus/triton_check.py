"""The FPSan differential check of one generated kernel (issue 10).

A :class:`~ptxkit.corpus.triton_kernels.KernelSpec` is compiled by Triton 3.9 for sm_90 twice, plain
and with ``instrumentation_mode="fpsan"``. The reference is Triton's FPSan PTX run on the simulator;
the candidate is ``ptxkit sanitize`` (default options) of the plain PTX run on the simulator, on the
same seeded inputs. :func:`check` classifies the pair:

- ``exact``: the output bits agree (``strict_fails`` says whether ``--strict`` would still refuse it);
- ``mismatch``: they differ — ``strict_fails`` true means the report has an error (``--report`` lists
  it, ``--strict`` fails); false is an *unreported* mismatch (``notes`` may still hold notes, e.g. the
  sign-bit ``xor`` one, but notes do not fail ``--strict``);
- ``ref_sim_error`` / ``cand_sim_error``: the simulator cannot run Triton's FPSan PTX / our output
  (``instruction`` is the opcode it stopped at);
- ``sanitize_error``: ``sanitize`` raised; ``compile_error``: Triton refused the kernel.

Triton is imported lazily (optional dependency ``ptxkit[triton]``). Compiled PTX is cached under
``$PTXKIT_TRITON_CACHE`` (default ``.triton_gen_cache/`` at the repository root, git-ignored), keyed
by the Triton version, the source, signature, constexprs, ``num_warps`` and the mode.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import sys
import time
import traceback
import warnings
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from ptxkit.corpus.triton_kernels import BITS, KernelSpec
from ptxkit.errors import NotImplementedInstruction, PtxkitError
from ptxkit.exec_sim.args import KernelArg
from ptxkit.exec_sim.frontend import parse_text
from ptxkit.exec_sim.launch import run_kernel
from ptxkit.fpsan_ptx import sanitize_text
from ptxkit.ir import Function

TRITON_VERSION = "3.9.0"
ARCH = 90
STATUSES = ("exact", "mismatch", "ref_sim_error", "cand_sim_error", "sanitize_error", "compile_error")
_TYPE = {np.uint8: "u8", np.uint16: "u16", np.uint32: "u32", np.uint64: "u64"}


def cache_dir() -> Path:
    env = os.environ.get("PTXKIT_TRITON_CACHE")
    return Path(env) if env else Path(__file__).resolve().parents[2] / ".triton_gen_cache"


def triton_available() -> str | None:
    """The installed Triton version, or None when Triton is not importable."""
    if importlib.util.find_spec("triton") is None:
        return None
    import triton  # optional dependency

    return str(triton.__version__)


@dataclass
class Compiled:
    """One Triton build: its PTX and the launch facts the metadata gives (bytes per CTA)."""

    ptx: str = ""
    shared: int = 0
    global_scratch: int = 0
    profile_scratch: int = 0
    error: str = ""  # the compile error's last line when Triton refused the kernel


def compile_ptx(spec: KernelSpec, mode: str) -> Compiled:
    """Compile ``spec`` with ``instrumentation_mode=mode`` ('' or 'fpsan'), through the cache."""
    key = hashlib.sha256(json.dumps([TRITON_VERSION, ARCH, spec.source, spec.name, spec.signature, spec.constexprs,
                                     spec.num_warps, mode]).encode()).hexdigest()[:24]
    path = cache_dir() / "ptx" / f"{key}.json"
    if path.is_file():
        return Compiled(**json.loads(path.read_text()))
    comp = _compile(spec, mode, key)
    if not comp.error or comp.error.startswith("CompilationError"):  # a front-end refusal is deterministic;
        _write(path, json.dumps(asdict(comp)))                       # a crash of a later stage may not be
    return comp


def _write(path: Path, text: str) -> None:
    """Temp file + rename: concurrent runs sharing the cache never see a partial file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    tmp.write_text(text)
    os.replace(tmp, path)


def _compile(spec: KernelSpec, mode: str, key: str) -> Compiled:
    import triton  # optional dependency
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource

    src = cache_dir() / "src" / key / "kernel.py"  # PTX debug info names the file: same as the shared pairs
    _write(src, spec.source)
    mod_spec = importlib.util.spec_from_file_location(f"_ptxkit_tg_{key}", src)
    assert mod_spec is not None and mod_spec.loader is not None
    module = importlib.util.module_from_spec(mod_spec)
    mod_spec.loader.exec_module(module)
    try:
        with warnings.catch_warnings():  # the FP-fusion default warning: the option is given explicitly
            warnings.simplefilter("ignore", UserWarning)
            k = triton.compile(ASTSource(getattr(module, spec.name), spec.signature, spec.constexprs),
                               target=GPUTarget("cuda", ARCH, 32),
                               options={"num_warps": spec.num_warps, "num_stages": 3, "enable_fp_fusion": True,
                                        "instrumentation_mode": mode})
    except Exception as e:  # Triton's own refusal (CompilationError, MLIR/ptxas failures): a class to count
        lines = [ln for ln in str(e).strip().splitlines() if ln.strip()]
        return Compiled(error=f"{type(e).__name__}: {lines[-1] if lines else ''}"[:300])
    md = k.metadata
    return Compiled(k.asm["ptx"], int(md.shared), int(md.global_scratch_size), int(md.profile_scratch_size))


@dataclass
class Outcome:
    """The classification of one kernel (see the module docstring)."""

    name: str
    seed: int
    kind: str
    status: str
    features: list[str] = field(default_factory=list)
    strict_fails: bool = False          # the sanitize report has errors: --strict exits 2
    reported: list[str] = field(default_factory=list)  # 'opcode: reason' of each error item (deduplicated)
    notes: list[str] = field(default_factory=list)     # 'opcode: reason' of each note
    elements: int = 0
    differing: int = 0
    first_diff: int = -1
    instruction: str = ""               # sim errors: the opcode the simulator stopped at
    detail: str = ""                    # error message
    seconds: float = 0.0


def launch_args(spec: KernelSpec, comp: Compiled, fn: Function) -> list[KernelArg]:
    """The arguments of a build of ``spec`` (entry ``fn``) with the seeded inputs: the non-constexpr
    arguments in order, then Triton's global_scratch and profile_scratch pointers (``comp``'s per-CTA
    sizes times the CTA count; NULL when 0)."""
    user = [k for k, v in spec.signature.items() if v != "constexpr"]
    arrays = spec.input_arrays()
    ncta = spec.grid[0] * spec.grid[1] * spec.grid[2]
    scratch = [comp.global_scratch * ncta, comp.profile_scratch * ncta]
    args = []
    for i, p in enumerate(fn.params):
        if i < len(user):
            nm = user[i]
            if nm in arrays:
                a = arrays[nm]
                args.append(KernelArg(nm, i, p.name, "buffer", _TYPE[a.dtype.type], data=a.copy()))
            elif nm == spec.output.name:
                dt = BITS[spec.output.dtype]
                args.append(KernelArg(nm, i, p.name, "buffer", _TYPE[dt], data=np.zeros(spec.output.n, dt)))
            else:
                args.append(KernelArg(nm, i, p.name, "scalar", "u32", value=spec.scalars[nm] & 0xFFFFFFFF))
        elif i - len(user) < 2 and scratch[i - len(user)]:
            args.append(KernelArg(p.name, i, p.name, "buffer", "u8", data=np.zeros(scratch[i - len(user)], np.uint8)))
        else:
            args.append(KernelArg(p.name, i, p.name, "null", "u64"))
    return args


def run_ptx(spec: KernelSpec, comp: Compiled, text: str, filename: str) -> np.ndarray:
    """Run ``text`` (a build of ``spec``) on the simulator with the seeded inputs → the output's bits."""
    module = parse_text(text, filename)
    fn = module.entries()[0]
    res = run_kernel(module, None, launch_args(spec, comp, fn), spec.grid, (32 * spec.num_warps, 1, 1),
                     shared_bytes=comp.shared)
    return np.asarray(res.buffers[spec.output.name])


def _sim_error(e: BaseException) -> tuple[str, str]:
    """(opcode, message) of a simulator failure."""
    if isinstance(e, PtxkitError):
        d = e.first
        line = (d.source_line or "").strip()
        if line.startswith("@"):
            line = line.split(None, 1)[1] if " " in line else ""
        op = line.split()[0].rstrip(";") if line else ""
        if isinstance(e, NotImplementedInstruction) or op:
            return op or "(unknown)", d.message
        return "(runtime)", d.message
    return f"(crash {type(e).__name__})", "".join(traceback.format_exception_only(type(e), e)).strip()


def check(spec: KernelSpec) -> Outcome:
    """Compile, run the reference and the candidate, classify."""
    t0 = time.perf_counter()
    out = Outcome(spec.name, spec.seed, spec.kind, "exact", list(spec.features))
    try:
        _check(spec, out)
    finally:
        out.seconds = round(time.perf_counter() - t0, 3)
    return out


def _check(spec: KernelSpec, out: Outcome) -> None:
    plain, fpsan = compile_ptx(spec, ""), compile_ptx(spec, "fpsan")
    if plain.error or fpsan.error:
        out.status, out.detail = "compile_error", plain.error or fpsan.error
        return
    try:  # first, so that the report is known even when the simulator cannot run the reference
        res = sanitize_text(plain.ptx, f"{spec.name}.plain.ptx", source_root=str(cache_dir() / "src"))
    except Exception as e:  # a PtxkitError on Triton's own PTX or a crash: both are sanitizer defects
        out.status, out.detail = "sanitize_error", "".join(traceback.format_exception_only(type(e), e)).strip()
        return
    items = res.report.items
    out.strict_fails = bool(res.report.errors)
    out.reported = sorted({f"{i.opcode}: {i.reason}" for i in items if i.severity == "error"})
    out.notes = sorted({f"{i.opcode}: {i.reason}" for i in items if i.severity != "error"})
    runs = []  # the reference (Triton's FPSan PTX), then the candidate (ours)
    for status, comp, text, suffix in (("ref_sim_error", fpsan, fpsan.ptx, "fpsan"),
                                       ("cand_sim_error", plain, res.text, "sanitized")):
        try:
            runs.append(run_ptx(spec, comp, text, f"{spec.name}.{suffix}.ptx"))
        except Exception as e:  # the simulator's refusal or crash: counted by instruction
            out.status = status
            out.instruction, out.detail = _sim_error(e)
            return
    ref, cand = runs
    diff = np.flatnonzero(ref != cand)
    out.elements, out.differing = int(ref.size), int(diff.size)
    if diff.size:
        out.status, out.first_diff = "mismatch", int(diff[0])


def summarize(outcomes: list[Outcome]) -> dict:
    """Counts by status, mismatches split into reported (fail --strict) / unreported, sim failures by instruction."""
    by = {s: sum(1 for o in outcomes if o.status == s) for s in STATUSES}
    mism = [o for o in outcomes if o.status == "mismatch"]
    sims: dict[str, int] = {}
    for o in outcomes:
        if o.status.endswith("sim_error"):
            k = f"{o.status[:-10]}: {o.instruction}"
            sims[k] = sims.get(k, 0) + 1
    return {"kernels": len(outcomes), **by,
            "exact_but_strict_fails": sum(1 for o in outcomes if o.status == "exact" and o.strict_fails),
            "mismatch_reported": sum(1 for o in mism if o.strict_fails),
            "mismatch_unreported": sum(1 for o in mism if not o.strict_fails),
            "sim_errors_by_instruction": dict(sorted(sims.items(), key=lambda kv: -kv[1]))}


def progress(o: Outcome) -> None:
    tag = o.status + ("" if o.status != "mismatch" else " (reported)" if o.strict_fails else " (UNREPORTED)")
    extra = (f" {o.differing}/{o.elements} differ" if o.status == "mismatch" else
             f" {o.instruction}: {o.detail[:100]}" if o.instruction else f" {o.detail[:120]}" if o.detail else "")
    print(f"{o.name:24s} {o.kind:11s} {tag}{extra}  [{o.seconds:.1f}s]", file=sys.stderr, flush=True)
