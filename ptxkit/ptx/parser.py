"""Front-end entry points: ``parse(text, filename) -> ir.Module`` and ``parse_file(path)``.

The work is done by the fast path (``ptxkit.ptx.fast``), which falls back to the Lark grammar
(``ptxkit/grammar.lark``, the authority) statement by statement. All errors of a file are collected
and raised together as one :class:`ptxkit.errors.PtxkitError` (one diagnostic per bad statement)."""

from __future__ import annotations

import os

from ptxkit import ir
from ptxkit.errors import PtxkitError


def parse(text: str, filename: str = "<input>") -> ir.Module:
    """Parse PTX source text into a Module (raises PtxkitError listing every bad statement)."""
    from ptxkit.ptx.fast import FastParser

    return FastParser(text, filename).parse()


def decode(data: bytes) -> str:
    """Bytes → text such that every byte survives the round trip (ir.Module docs)."""
    return data.decode("utf-8", errors="surrogateescape")


def encode(text: str) -> bytes:
    return text.encode("utf-8", errors="surrogateescape")


def parse_file(path: str | os.PathLike) -> ir.Module:
    """Read and parse a file; an unreadable file is a PtxkitError too."""
    p = os.fspath(path)
    try:
        with open(p, "rb") as f:
            data = f.read()
    except OSError as e:
        raise PtxkitError(f"cannot read file: {e.strerror or e}", file=p) from None
    return parse(decode(data), p)


def parse_reference(text: str, filename: str = "<input>") -> ir.Module:
    """The grammar alone (slow; the reference the fast path is checked against)."""
    from ptxkit.ptx.lark_parser import parse as lark_parse

    return lark_parse(text, filename)
