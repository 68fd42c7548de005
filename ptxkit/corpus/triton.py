"""The Triton 3.9 FPSan corpus (``corpora/ptx/triton_fpsan/<kernel>/``) as simulator runs — one reader for
the tests, the benchmarks and the GPU check, so all of them run a kernel the same way.

A kernel directory holds the PTX builds (``plain.ptx``, ``fpsan.ptx``, ``*_sm80.ptx`` …),
``signature.json`` (grid, per-build block shape, dynamic shared bytes, the scratch sizes Triton's
compiler reported) and ``vectors/`` (``vectors.json``'s ``params_in_order``: which PTX parameter is
an input file, the output buffer or a scalar; the inputs; ``expected_fpsan_<out>.bin``).

Scratch memory: Triton passes ``global_scratch`` and ``profile_scratch`` as the last two parameters;
each gets ``<name>_size`` bytes per CTA × CTAs as the build's compile metadata reports it (the FPSan
dot keeps its emulation scratch in ``profile_scratch``, 2048 bytes per CTA), NULL when the size is 0.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ptxkit import ir
from ptxkit.exec_sim import RunResult, parse_arg_specs, parse_text, run_kernel

# Triton's pointer element types → the raw-bits spec type of the simulator's buffers
ELEM = {"*fp32": "u32", "*fp16": "u16", "*bf16": "u16", "*fp64": "u64", "*i32": "u32"}
SCRATCH = ("global_scratch", "profile_scratch")


@dataclass(frozen=True)
class TritonCase:
    """One build of one kernel, ready to run: ``--arg`` specs (by parameter index), launch shape, and
    the expected FPSan output (raw bits)."""

    kernel: str
    build: str                        # the signature.json build name: plain, fpsan, plain_sm80, …
    path: Path                        # the build's PTX file
    specs: tuple[str, ...]
    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    shared: int                       # dynamic shared memory bytes (Triton's extern global_smem)
    output: str                       # the spec NAME (parameter index) of the output buffer
    output_type: str                  # u16 | u32 | u64 (raw bits)
    expected_path: Path

    @property
    def expected(self) -> np.ndarray:
        """``expected_fpsan_*.bin`` as raw bits of the output's element width."""
        return np.fromfile(self.expected_path, np.dtype(self.output_type.replace("u", "uint")))


def kernels(root: Path) -> list[str]:
    """The kernel directories of the corpus root that carry test vectors."""
    if not root.is_dir():
        return []
    return sorted(p.name for p in root.iterdir() if (p / "vectors" / "vectors.json").is_file())


def _triple(xs: list[int]) -> tuple[int, int, int]:
    a, b, c = ([*xs, 1, 1, 1])[:3]
    return int(a), int(b), int(c)


def load_case(kernel_dir: Path, build: str = "fpsan") -> TritonCase:
    """The case of ``build`` (a signature.json build name like ``plain``, or its file like ``fpsan.ptx``)."""
    sig = json.loads((kernel_dir / "signature.json").read_text())
    vec = json.loads((kernel_dir / "vectors" / "vectors.json").read_text())
    name, b = next((k, v) for k, v in sig["builds"].items() if build in (k, v["file"]))
    expected = sorted((kernel_dir / "vectors").glob("expected_fpsan_*.bin"))[0]
    grid = _triple(sig["grid"])
    ctas = grid[0] * grid[1] * grid[2]
    specs: list[str] = []
    out = out_t = ""
    for i, entry in enumerate(vec["params_in_order"]):
        pname = entry.split()[0]
        if pname in SCRATCH:
            size = int(b.get(f"{pname}_size") or 0) * ctas
            specs.append(f"{i}=u8[{size}]:zeros" if size else f"{i}=null")
        elif "->" in entry:
            rhs = entry.split("->", 1)[1].split()[0]
            et = ELEM[sig["signature"][pname]]
            width = int(et[1:]) // 8
            if rhs == "output":
                specs.append(f"{i}={et}[{expected.stat().st_size // width}]:zeros")
                out, out_t = str(i), et
            else:
                f = kernel_dir / "vectors" / rhs
                specs.append(f"{i}={et}[{f.stat().st_size // width}]:{f}")
        else:  # a scalar: 'n = 256'
            specs.append(f"{i}=u32:{int(entry.split('=')[1].split()[0])}")
    return TritonCase(kernel_dir.name, name, kernel_dir / b["file"], tuple(specs), grid, _triple(b["block_dim"]),
                      int(b.get("shared_bytes") or 0), out, out_t, expected)


def run_case(case: TritonCase, text: str | None = None, filename: str | None = None) -> tuple[np.ndarray, RunResult]:
    """Run the build (or PTX ``text`` standing for it, e.g. its sanitized form) on the simulator with the
    case's inputs → (the output buffer as raw bits, the run result)."""
    if text is None:
        text = case.path.read_text()
    m: ir.Module = parse_text(text, filename or str(case.path))
    args = parse_arg_specs(list(case.specs), m.entries()[0], 0)
    res = run_kernel(m, None, args, case.grid, case.block, case.shared)
    return np.asarray(res.buffers[case.output]).view(case.expected.dtype), res
