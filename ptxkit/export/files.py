"""Where the exporters write: output directories checked up front, files written atomically.

``--dot/--lean/--smt DIR`` name a directory. A path that exists but is not a directory, or one that
cannot be created (a missing parent on a read-only file system, no permission), is bad input: a usage
error naming the option and the path (exit 2), never a traceback. Files go through
``ptxkit.io.atomic_write`` (temporary file + rename: an interrupted export leaves no fragment).
"""

from __future__ import annotations

import os
from pathlib import Path

from ptxkit.errors import UsageError
from ptxkit.io import atomic_write

__all__ = ["atomic_write", "prepare_directory"]


def prepare_directory(directory: str | os.PathLike[str], option: str) -> Path:
    """``directory`` as a Path, created (with its parents) when missing; ``option`` (``--smt``) names
    the command-line option in the error message."""
    d = Path(directory)
    if d.exists() and not d.is_dir():
        raise UsageError(f"{option} '{d}': not a directory")
    try:
        d.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise UsageError(f"{option}: cannot create directory '{d}': {e.strerror or e}") from None
    return d
