"""Parsing for the simulator through the project's front end (``ptxkit.ptx.parser``)."""

from __future__ import annotations

from pathlib import Path

from ptxkit import ir
from ptxkit.errors import UsageError
from ptxkit.ptx.parser import parse


def parse_text(text: str, filename: str = "<input>") -> ir.Module:
    return parse(text, filename)


def load_module(path: str | Path) -> ir.Module:
    p = Path(path)
    try:
        data = p.read_bytes()
    except OSError as e:
        raise UsageError(f"cannot read '{path}': {e.strerror}") from None
    return parse_text(data.decode("utf-8", "surrogateescape"), str(path))
