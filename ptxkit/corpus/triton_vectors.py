"""Argument specs for the Triton FPSan corpus (``corpora/ptx/triton_fpsan/<kernel>/``), read from its
``signature.json`` (grid, block, dynamic shared bytes, parameter types) and ``vectors/vectors.json``
(``params_in_order``: input files, the output buffer, scalars, scratch sizes — the dot kernels take
FPSan scratch memory through the LAST parameter, ``profile_scratch``). Shared by the tests, the
benchmark and the GPU check so all three run the kernels the same way."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

ELEM = {"*fp32": "u32", "*fp16": "u16", "*bf16": "u16", "*fp64": "u64", "*i32": "u32"}


@dataclass
class TritonCase:
    kernel: str
    build_file: str
    path: Path
    specs: list[str]
    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    shared: int
    output: str  # the --arg NAME of the output buffer
    output_type: str  # u32 | u16 (raw bits)
    expected: Path


def kernels(root: Path) -> list[str]:
    return sorted(p.name for p in root.iterdir() if (p / "vectors" / "vectors.json").is_file()) if root.is_dir() else []


def case(root: Path, kern: str, build_file: str = "fpsan.ptx") -> TritonCase:
    d = root / kern
    sig = json.loads((d / "signature.json").read_text())
    vj = json.loads((d / "vectors" / "vectors.json").read_text())
    build = next(b for b in sig["builds"].values() if b["file"] == build_file)
    expected = sorted((d / "vectors").glob("expected_fpsan_*.bin"))[0]
    grid = tuple((list(sig["grid"]) + [1, 1])[:3])
    ncta = grid[0] * grid[1] * grid[2]
    specs: list[str] = []
    out = out_t = None
    for i, s in enumerate(vj["params_in_order"]):
        pname = s.split()[0]
        if "->" in s:
            rhs = s.split("->", 1)[1].strip()
            if rhs.startswith("output"):
                et = ELEM[sig["signature"][pname]]
                n = expected.stat().st_size // (int(et[1:]) // 8)
                specs.append(f"{i}={et}[{n}]:zeros")
                out, out_t = str(i), et
            elif rhs.split()[0].endswith(".bin"):
                fn = d / "vectors" / rhs.split()[0]
                et = ELEM[sig["signature"][pname]]
                specs.append(f"{i}={et}[{fn.stat().st_size // (int(et[1:]) // 8)}]:{fn}")
            else:  # scratch memory: '>= N bytes per CTA'
                nbytes = int(re.search(r"(\d+) bytes", rhs).group(1)) * ncta
                specs.append(f"{i}=u8[{nbytes}]:zeros")
        else:
            v = int(s.split("=")[1].split()[0])
            specs.append(f"{i}=null" if pname in ("global_scratch", "profile_scratch") else f"{i}=u32:{v}")
    return TritonCase(kern, build_file, d / build_file, specs, grid, tuple((list(build["block_dim"]) + [1, 1])[:3]),
                      int(build["shared_bytes"]), out, out_t, expected)
