"""Scalar read-modify-write semantics of ``atom``/``red`` (PTX ISA §9.7.13.5), on raw bit patterns."""

from __future__ import annotations

import numpy as np

from ptxkit.exec_sim.floats import bits_to_float, float_to_bits


def _signed(v: int, bits: int) -> int:
    return v - (1 << bits) if v >> (bits - 1) else v


def apply_atomic(op: str, typ: str, size: int, cur: int, a: int, b: int | None) -> int:
    """New memory value for one lane. ``cas``: ``a`` = compare, ``b`` = new value."""
    bits = size * 8
    mask = (1 << bits) - 1
    kind = typ[0]
    if op == "cas":
        if b is None:
            raise ValueError("atom.cas needs the new value b")
        return b if cur == a else cur
    if op == "exch":
        return a
    if op in ("and", "or", "xor"):
        return {"and": cur & a, "or": cur | a, "xor": cur ^ a}[op]
    if op == "inc":
        return 0 if cur >= a else (cur + 1) & mask
    if op == "dec":
        return a if (cur == 0 or cur > a) else (cur - 1) & mask
    if kind == "f" or typ.startswith("bf"):
        if typ in ("f16x2", "bf16x2"):
            half = typ[:-2]
            lo = apply_atomic(op, half, 2, cur & 0xFFFF, a & 0xFFFF, None)
            hi = apply_atomic(op, half, 2, cur >> 16, a >> 16, None)
            return lo | (hi << 16)
        x = bits_to_float(np.array([cur], dtype=f"u{size}"), typ)[0]
        y = bits_to_float(np.array([a], dtype=f"u{size}"), typ)[0]
        if op == "add":
            r = x + y
        elif op == "min":
            r = y if np.isnan(x) else x if np.isnan(y) else min(x, y)
        elif op == "max":
            r = y if np.isnan(x) else x if np.isnan(y) else max(x, y)
        else:
            raise ValueError(op)
        return int(float_to_bits(np.array([r], dtype=x.dtype), typ)[0])
    if op == "add":
        return (cur + a) & mask
    if op in ("min", "max"):
        if kind == "s":
            x, y = _signed(cur, bits), _signed(a, bits)
        else:
            x, y = cur, a
        return (min(x, y) if op == "min" else max(x, y)) & mask
    raise ValueError(op)
