"""Running PTX on an NVIDIA GPU with CuPy — the only module of ptxkit that imports cupy.

``run_kernel`` takes the same arguments as :func:`ptxkit.exec_sim.run_kernel` (a parsed module, the
entry name, :class:`KernelArg` list from ``parse_arg_specs``, grid, block, dynamic shared bytes) and
returns the same kind of result (``buffers`` by the NAME given). The PTX text is loaded with
``cupy.RawModule(path=…)`` (the driver JIT-compiles it); its ``.version`` is lowered to what the
installed driver accepts when it is newer (Triton 3.9 writes 9.4).
"""

from __future__ import annotations

import os
import re
import tempfile
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ptxkit import ir
from ptxkit.errors import UsageError
from ptxkit.exec_sim.args import BUFFER_TYPES, KernelArg
from ptxkit.ptx.emit import emit
from ptxkit.ptx.types import element_bytes

# CUDA driver version → highest PTX ISA version its JIT accepts (PTX ISA release notes)
_PTX_FOR_CUDA = {(11, 0): "7.0", (11, 1): "7.1", (11, 2): "7.2", (11, 3): "7.3", (11, 4): "7.4",
                 (11, 5): "7.5", (11, 6): "7.6", (11, 7): "7.7", (11, 8): "7.8", (12, 0): "8.0",
                 (12, 1): "8.1", (12, 2): "8.2", (12, 3): "8.3", (12, 4): "8.4", (12, 5): "8.5",
                 (12, 6): "8.5", (12, 8): "8.7", (12, 9): "8.8", (13, 0): "9.0", (13, 1): "9.1"}


@dataclass
class GpuResult:
    buffers: dict[str, np.ndarray] = field(default_factory=dict)
    instructions: int | None = None
    lane_instructions: int | None = None
    stdout: list[str] = field(default_factory=list)
    seconds: float = 0.0  # kernel time (CUDA events), median of the timed launches
    ptx_version: str | None = None


def _cupy() -> Any:
    try:
        import cupy  # type: ignore[import-not-found,unused-ignore]
    except Exception as e:  # an optional dependency: ImportError, or any failure loading CUDA's libraries
        raise UsageError(f"--device gpu needs CuPy and an NVIDIA GPU (cupy import failed: {e})") from None
    try:
        n = cupy.cuda.runtime.getDeviceCount()
    except cupy.cuda.runtime.CUDARuntimeError as e:
        raise UsageError(f"--device gpu: no usable CUDA device ({e})") from None
    if n < 1:
        raise UsageError("--device gpu: no CUDA device found")
    return cupy


def available() -> bool:
    try:
        _cupy()
        return True
    except UsageError:
        return False


def max_ptx_version(cupy: Any) -> str:
    v = cupy.cuda.runtime.driverGetVersion()  # e.g. 12040
    key = (v // 1000, (v % 1000) // 10)
    best = "7.0"
    for k, ver in _PTX_FOR_CUDA.items():
        if k <= key and tuple(map(int, ver.split("."))) > tuple(map(int, best.split("."))):
            best = ver
    return best


def relabel(text: str, max_version: str) -> tuple[str, str]:
    """Lower ``.version`` to ``max_version`` when the file asks for more (and ``sm_XXa`` stays)."""
    m = re.search(r"^\s*\.version\s+(\d+)\.(\d+)", text, re.M)
    if not m:
        return text, max_version
    have = (int(m.group(1)), int(m.group(2)))
    cap = tuple(map(int, max_version.split(".")))
    if have <= cap:
        return text, f"{have[0]}.{have[1]}"
    return text[:m.start(1)] + max_version + text[m.end(2):], max_version


def _text(module: ir.Module | str) -> str:
    if isinstance(module, str):
        return module
    if module.edits:
        return emit(module)
    return module.source


def _cuda_errors(cupy: Any) -> tuple[type[BaseException], ...]:
    """The exceptions by which CUDA reports a rejected module or a failed launch (bad input: the
    kernel's fault), as opposed to a bug in ptxkit."""
    return (cupy.cuda.driver.CUDADriverError, cupy.cuda.runtime.CUDARuntimeError)


def run_kernel(module: ir.Module | str, kernel: str, args: list[KernelArg],
               grid: tuple[int, ...] | list[int] | int = (1, 1, 1),
               block: tuple[int, ...] | list[int] | int = (1, 1, 1),
               shared_bytes: int = 0, *, repeats: int = 0) -> GpuResult:
    """Launch ``kernel`` once for the results (and ``repeats`` more times for timing)."""
    cupy = _cupy()
    text, version = relabel(_text(module), max_ptx_version(cupy))
    grid = tuple((list(grid) if isinstance(grid, (list, tuple)) else [grid]) + [1, 1])[:3]
    block = tuple((list(block) if isinstance(block, (list, tuple)) else [block]) + [1, 1])[:3]
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "kernel.ptx")
        with open(path, "w", encoding="utf-8", errors="surrogateescape") as f:
            f.write(text)
        try:
            mod = cupy.RawModule(path=path)
            fn = mod.get_function(kernel)
        except _cuda_errors(cupy) as e:
            raise UsageError(f"the CUDA driver rejected the PTX (as .version {version}): {e}") from None
    params = {}
    if not isinstance(module, str):
        entry = module.function(kernel)
        params = {p.name: p for p in (entry.params if entry else [])}
    dev, launch_args = {}, []
    for a in args:
        if a.kind == "tmap":
            raise UsageError(f"--arg {a.name}: tensor-map arguments run on the simulator only (--device cpu)")
        if a.kind == "buffer":
            d = cupy.asarray(a.buffer.view(np.uint8))
            dev[a.name] = d
            launch_args.append(d)
        elif a.kind == "null":
            launch_args.append(np.uint64(0))
        else:
            p = params.get(a.param)
            size = element_bytes(p) if p is not None else np.dtype(BUFFER_TYPES.get(a.type, np.uint32)).itemsize
            launch_args.append({1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[size](a.value))
    if shared_bytes > 48 * 1024:  # opt in to large dynamic shared memory (CUDA guide, Compute Capability 9.0)
        try:
            fn.max_dynamic_shared_size_bytes = shared_bytes
        except _cuda_errors(cupy) as e:
            raise UsageError(f"--shared {shared_bytes}: the GPU refuses that much dynamic shared memory "
                             f"({e})") from None
    initial = {k: v.copy() for k, v in dev.items()} if repeats else {}
    try:
        fn(grid, block, tuple(launch_args), shared_mem=shared_bytes)
        cupy.cuda.Device().synchronize()
    except _cuda_errors(cupy) as e:
        raise UsageError(f"the GPU launch of '{kernel}' failed: {e}") from None
    result = GpuResult(ptx_version=version)
    for a in args:
        if a.kind == "buffer":
            result.buffers[a.name] = cupy.asnumpy(dev[a.name]).view(BUFFER_TYPES[a.type]).copy()
    if repeats:
        times = []
        for _ in range(repeats):
            for k, v in initial.items():
                dev[k][...] = v
            start, stop = cupy.cuda.Event(), cupy.cuda.Event()
            start.record()
            fn(grid, block, tuple(launch_args), shared_mem=shared_bytes)
            stop.record()
            stop.synchronize()
            times.append(cupy.cuda.get_elapsed_time(start, stop) / 1000.0)
        result.seconds = float(np.median(times))
    return result
