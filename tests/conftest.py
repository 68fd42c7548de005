"""Shared test fixtures: where ../shared is, whether ptxas is present."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("PTXKIT_SHARED", ROOT.parent / "shared"))
CORPORA = SHARED / "corpora"
PTX_CORPUS = CORPORA / "ptx"
LITMUS_CORPUS = CORPORA / "litmus" / "dat3m"

needs_shared = pytest.mark.skipif(not CORPORA.is_dir(), reason=f"{CORPORA} absent (a user's clone)")
needs_ptxas = pytest.mark.skipif(shutil.which("ptxas") is None, reason="ptxas not on PATH")


def shared_files(pattern: str, base: Path = PTX_CORPUS) -> list[Path]:
    """Sorted corpus files (empty when ../shared is absent, so parametrised tests collect nothing)."""
    return sorted(base.glob(pattern)) if base.is_dir() else []


@pytest.fixture(scope="session")
def shared() -> Path:
    if not CORPORA.is_dir():
        pytest.skip(f"{CORPORA} absent")
    return SHARED
