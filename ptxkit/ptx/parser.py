"""Front-end entry points: ``parse(text, filename) -> ir.Module``, ``parse_file(path)`` and
``read_source(path)``.

The work is done by the fast path (``ptxkit.ptx.fast``), which falls back to the Lark grammar
(``ptxkit/grammar.lark``, the authority) statement by statement. All errors of a file are collected
(up to ``ptxkit.errors.MAX_DIAGNOSTICS``) and raised together as one
:class:`ptxkit.errors.PtxkitError` (one diagnostic per bad statement)."""

from __future__ import annotations

import os
import stat

from ptxkit import ir
from ptxkit.errors import UsageError
from ptxkit.io import memory_budget
from ptxkit.ptx.fast import FastParser
from ptxkit.ptx.lark_parser import parse as lark_parse

PARSE_MEMORY_FACTOR = 32
"""Bytes of memory a parse may need per byte of PTX (measured: 155 MB peak RSS, interpreter
included, for the 6.8 MB CUB file, about 23×): the input limit is the memory budget over this."""


def max_source_bytes() -> int:
    """The largest source file :func:`read_source` accepts by default."""
    return memory_budget() // PARSE_MEMORY_FACTOR


def parse(text: str, filename: str = "<input>") -> ir.Module:
    """Parse PTX source text into a Module (raises PtxkitError listing every bad statement)."""
    return FastParser(text, filename).parse()


def decode(data: bytes) -> str:
    """Bytes → text such that every byte survives the round trip (ir.Module docs)."""
    return data.decode("utf-8", errors="surrogateescape")


def encode(text: str) -> bytes:
    return text.encode("utf-8", errors="surrogateescape")


def read_source(path: str | os.PathLike[str], limit: int | None = None) -> str:
    """The text of a source file, read with a size limit (``limit`` bytes; default: what the
    memory budget allows a parse, :func:`max_source_bytes`), so that ``/dev/zero`` or a huge file is
    refused up front instead of filling memory. A directory or an unreadable file is a usage
    error naming the path (it has no line to point at)."""
    p = os.fspath(path)
    limit = max_source_bytes() if limit is None else limit
    try:
        with open(p, "rb") as f:
            st = os.fstat(f.fileno())
            if stat.S_ISDIR(st.st_mode):
                raise UsageError(f"{p}: is a directory")
            if stat.S_ISREG(st.st_mode) and st.st_size > limit:
                raise UsageError(_too_big(p, st.st_size, limit))
            data = f.read(limit + 1)
    except IsADirectoryError:
        raise UsageError(f"{p}: is a directory") from None
    except OSError as e:
        raise UsageError(f"{p}: cannot read file: {e.strerror or e}") from None
    if len(data) > limit:  # a device or pipe that does not end (/dev/zero), or a growing file
        raise UsageError(_too_big(p, None, limit))
    return decode(data)


def _too_big(path: str, size: int | None, limit: int) -> str:
    what = f"is {size} bytes, over" if size is not None else "does not end within"
    return (f"{path}: input {what} the limit of {limit} bytes (1/{PARSE_MEMORY_FACTOR} of the memory "
            f"budget; set PTXKIT_MEMORY_BUDGET to raise it)")


def parse_file(path: str | os.PathLike[str]) -> ir.Module:
    """Read (:func:`read_source`) and parse a file."""
    return parse(read_source(path), os.fspath(path))


def parse_reference(text: str, filename: str = "<input>") -> ir.Module:
    """The grammar alone (slow; the reference the fast path is checked against)."""
    return lark_parse(text, filename)
