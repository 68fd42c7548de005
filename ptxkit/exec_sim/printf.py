"""``vprintf`` of the CUDA device runtime: format string in global memory, arguments packed in a
local buffer, each aligned to its size (CUDA Programming Guide, "Formatted Output")."""

from __future__ import annotations

import re
from typing import Any

import numpy as np

_SPEC = re.compile(r"%([-+ #0]*)(\d+|\*)?(?:\.(\d+))?(hh|h|ll|l|z|j|t)?([diouxXeEfgGcsp%])")


def _read(st: Any, space_addr: int, size: int, lane: int) -> int:
    addr = np.full(st.n, space_addr, np.uint64)
    mask = np.zeros(st.n, bool)
    mask[lane] = True
    return int(st.mem.load("generic", addr, size, mask, st)[lane])


def _cstring(st: Any, addr: int, lane: int, limit: int = 4096) -> str:
    out = bytearray()
    while len(out) < limit:
        b = _read(st, addr + len(out), 1, lane)
        if b == 0:
            break
        out.append(b)
    return out.decode("utf-8", "replace")


def vprintf(st: Any, fmt_addr: int, buf_addr: int, lane: int) -> str:
    fmt = _cstring(st, fmt_addr, lane)
    pos = 0

    def take(size: int) -> int:
        nonlocal pos
        pos = (pos + size - 1) // size * size
        v = _read(st, buf_addr + pos, size, lane)
        pos += size
        return v

    def repl(m: re.Match) -> str:
        flags, width, prec, length, conv = m.groups()
        if conv == "%":
            return "%"
        spec = "%" + flags + (width or "") + (f".{prec}" if prec is not None else "")
        if conv in "eEfgG":
            v = np.uint64(take(8)).view(np.float64)
            return (spec + conv) % float(v)
        if conv == "s":
            return (spec + "s") % _cstring(st, take(8), lane)
        if conv == "p":
            return hex(take(8))
        size = 8 if length in ("ll", "l", "z", "j", "t") else 4
        v = take(size)
        if conv in "di" and v >> (size * 8 - 1):
            v -= 1 << (size * 8)
        if conv == "c":
            return chr(v & 0xFF)
        return (spec + conv.replace("u", "d").replace("i", "d")) % v

    return _SPEC.sub(repl, fmt)
