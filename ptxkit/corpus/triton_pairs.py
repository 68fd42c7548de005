"""The Triton 3.9 FPSan pairs (``corpora/ptx/triton_fpsan/<k>/``) as simulator runs: argument specs
built from ``vectors/`` + ``signature.json``, shared by the tests and ``ptxkit/bench/sanitize.py``."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

_ELEM = {"fp32": ("u32", 4), "fp16": ("u16", 2), "bf16": ("u16", 2), "f32": ("u32", 4)}


@dataclass
class Pair:
    name: str
    dir: Path
    specs: list[str]          # --arg specs for the six-ish PTX parameters
    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    output: str               # the spec NAME of the output buffer
    expected: np.ndarray
    shared: int = 0           # dynamic shared memory bytes (Triton's extern global_smem)


def load_pair(d: Path, build: str = "plain") -> Pair:
    sig = json.loads((d / "signature.json").read_text())
    vec = json.loads((d / "vectors" / "vectors.json").read_text())
    b = sig["builds"][build]
    ptx_params = b["ptx_params"]
    names = [p.split()[-1] for p in ptx_params]
    user = list(sig["signature"].items())
    user = [(k, v) for k, v in user if v != "constexpr"]
    exp_file = next(p for p in (d / "vectors").iterdir() if p.name.startswith("expected_fpsan_"))
    out_key = exp_file.name[len("expected_fpsan_"):-len(".bin")]
    specs, output = [], None
    for i, pname in enumerate(names):
        if i < len(user):
            uname, utype = user[i]
            if utype.startswith("*"):
                et = utype[1:]
                typ, size = _ELEM[et]
                f = d / "vectors" / f"{uname.removesuffix('_ptr')}.bin"
                if f.exists():
                    n = f.stat().st_size // size
                    specs.append(f"{pname}={typ}[{n}]:{f}")
                else:
                    n = exp_file.stat().st_size // size
                    specs.append(f"{pname}={typ}[{n}]:zeros")
                    output = pname
            else:
                val = sig["args"].get(uname)
                if val is None:
                    val = vec.get(uname)
                specs.append(f"{pname}=u32:{int(val)}")
        else:  # global_scratch / profile_scratch
            meaning = b.get("ptx_param_meaning", [""] * len(names))[i]
            # Triton's FPSan dot keeps its scratch in profile_scratch (>= 2048 bytes per CTA)
            ctas = int(np.prod(sig["grid"]))
            scratch = 4096 * ctas if meaning.startswith("profile_scratch") and "fpsan" in build else 0
            specs.append(f"{pname}=u8[{scratch}]:zeros" if scratch else f"{pname}=null")
    grid = tuple((sig["grid"] + [1, 1, 1])[:3])
    block = tuple((b["block_dim"] + [1, 1, 1])[:3])
    edt = np.uint16 if output and _ELEM[dict(user)[[u for u, _ in user if _out_match(u, out_key)][0]][1:]][1] == 2 else np.uint32
    expected = np.fromfile(exp_file, dtype=edt)
    return Pair(d.name, d, specs, grid, block, output or "", expected, int(b.get("shared_bytes") or 0))


def _out_match(uname: str, key: str) -> bool:
    return uname.removesuffix("_ptr") == key


def run_pair(pair: Pair, text: str, filename: str):
    """Run PTX ``text`` on the simulator with the pair's inputs → (output array, RunResult)."""
    from ptxkit.exec_sim import parse_arg_specs, run_kernel
    from ptxkit.exec_sim.frontend import parse_text

    m = parse_text(text, filename)
    fn = m.entries()[0]
    args = parse_arg_specs(pair.specs, fn)
    res = run_kernel(m, None, args, pair.grid, pair.block, shared_bytes=pair.shared)
    out = np.asarray(res.buffers[pair.output]).view(pair.expected.dtype)
    return out, res
