"""The seed files of the fuzzer: PTX from ../shared/corpora/ptx and corpora/, litmus tests from
../shared/corpora/litmus/dat3m and corpora/litmus/*.ptx, and how to launch the runnable ones."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SHARED = Path(os.environ.get("PTXKIT_SHARED", ROOT.parent / "shared"))
SHARED_PTX = SHARED / "corpora" / "ptx"
SHARED_LITMUS = SHARED / "corpora" / "litmus" / "dat3m"
BUNDLED = ROOT / "corpora"

#: Seeds larger than this are left out (a mutant is parsed many times; size finds no more bugs).
MAX_SEED_BYTES = 120_000


@dataclass(frozen=True)
class Seed:
    path: Path
    kind: str  # "ptx" | "litmus" | "litmus-ptx"
    #: extra CLI arguments that make the seed runnable (run: --arg/--grid/--block; explore: --threads …)
    launch: tuple[str, ...] = field(default=())
    verb: str | None = None  # "run" / "explore" when launch is set

    @property
    def name(self) -> str:
        try:
            return str(self.path.relative_to(SHARED))
        except ValueError:
            return str(self.path.relative_to(ROOT))


def _small(paths: list[Path]) -> list[Path]:
    return [p for p in sorted(paths) if p.is_file() and p.stat().st_size <= MAX_SEED_BYTES]


def _pair_launches() -> dict[str, tuple[str, ...]]:
    """corpora/pairs/manifest.json: the launch of each kernel file (its first pair)."""
    out: dict[str, tuple[str, ...]] = {}
    manifest = BUNDLED / "pairs" / "manifest.json"
    if not manifest.is_file():
        return out
    for pair in json.loads(manifest.read_text())["pairs"]:
        common = [a for arg in pair["args"] for a in ("--arg", arg)] + ["--grid", pair["grid"],
                                                                       "--block", pair["block"]]
        for f, k in ((pair["a"], pair.get("kernel")), (pair["b"], pair.get("kernel_b"))):
            out.setdefault(f, tuple(common + (["--kernel", k] if k else [])))
    return out


def _explore_launch(path: Path) -> tuple[str, ...] | None:
    m = re.search(r"^// explore: (.*)$", path.read_text(errors="replace"), re.M)
    if not m:
        return None
    words = shlex.split(m[1])
    # the condition is the fuzzer's to choose half the time; keep the header's shape and buffers
    return tuple(words)


@cache
def ptx_seeds() -> list[Seed]:
    seeds: list[Seed] = []
    launches = _pair_launches()
    for p in _small(list(SHARED_PTX.rglob("*.ptx")) if SHARED_PTX.is_dir() else []):
        seeds.append(Seed(p, "ptx"))
    for p in _small(list((BUNDLED / "examples").glob("*.ptx"))):
        seeds.append(Seed(p, "ptx", ("--arg", "0=f32[64]:rand", "--arg", "1=f32[64]:rand", "--arg",
                                     "2=f32[64]:zeros", "--arg", "3=s32:64", "--block", "64"), "run"))
    for p in _small(list((BUNDLED / "pairs").glob("*.ptx"))):
        launch = launches.get(p.name)
        seeds.append(Seed(p, "ptx", launch or (), "run" if launch else None))
    for p in _small(list((BUNDLED / "verify").glob("*.ptx"))):
        launch = _verify_launch(p)
        seeds.append(Seed(p, "ptx", launch or (), "run" if launch else None))
    return seeds


def _verify_launch(path: Path) -> tuple[str, ...] | None:
    """The launch arguments of a corpora/verify kernel's ``// launch: ptxkit verify FILE ARGS`` line."""
    m = re.search(r"^// launch: ptxkit verify \S+ (.*)$", path.read_text(errors="replace"), re.M)
    return tuple(shlex.split(m[1])) if m else None


@cache
def litmus_seeds() -> list[Seed]:
    seeds = [Seed(p, "litmus") for p in _small(list(SHARED_LITMUS.rglob("*.litmus")) if SHARED_LITMUS.is_dir()
                                               else [])]
    for p in _small(list((BUNDLED / "litmus").glob("*.ptx"))):
        launch = _explore_launch(p)
        if launch:
            seeds.append(Seed(p, "litmus-ptx", launch, "explore"))
    return seeds


# ---- ptxas (the judge of false rejections) ---------------------------------------------------

TARGET = re.compile(rb"^\s*\.target\s+(sm_\d+[af]?)", re.M)


def ptxas_path() -> str | None:
    return shutil.which("ptxas")


def ptxas_accepts(data: bytes) -> bool | None:
    """Does ptxas accept this module for its own ``.target``? None: no ptxas, or no target to ask."""
    exe = ptxas_path()
    m = TARGET.search(data)
    if exe is None or m is None:
        return None
    with tempfile.TemporaryDirectory() as d:
        src = Path(d) / "m.ptx"
        src.write_bytes(data)
        try:
            r = subprocess.run([exe, f"-arch={m[1].decode()}", str(src), "-o", str(Path(d) / "m.cubin")],
                               capture_output=True, timeout=60)
        except subprocess.TimeoutExpired:
            return None
        return r.returncode == 0


@cache
def seed_accepted_by_ptxas(path: Path) -> bool | None:
    return ptxas_accepts(path.read_bytes())
