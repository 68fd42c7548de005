"""Register storage and typed views (PTX ISA §5.2 types, §6.4 operand size rules).

A register is a numpy array with one element per lane holding the raw bits: uint8/16/32/64 by the
declared width, bool for ``.pred``. Instructions view those bits as their own type (``.s32`` →
int32, ``.f32`` → float32 …). When the instruction type and register width differ (allowed for
``ld``/``st``/``cvt`` and relaxed for others, ISA §6.4.3) sources are truncated or zero/sign-extended
and destinations extended by the instruction type's signedness.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ptxkit import ir
from ptxkit.exec_sim.floats import bf16_round
from ptxkit.ptx.types import type_bits, type_bytes

UINT_BITS = {8: np.uint8, 16: np.uint16, 32: np.uint32, 64: np.uint64}
SINT_BITS = {8: np.int8, 16: np.int16, 32: np.int32, 64: np.int64}


def np_type(typ: str) -> type[Any]:
    """The numpy dtype an instruction of type ``typ`` computes in."""
    if typ == "pred":
        return np.bool_
    if typ in ("f16",):
        return np.float16
    if typ == "f32":
        return np.float32
    if typ == "f64":
        return np.float64
    bits = type_bits(typ)
    if typ[0] == "s":
        return SINT_BITS[bits]
    return UINT_BITS[bits]


def raw_type(typ: str) -> type[Any]:
    """The storage dtype of a register declared ``typ``."""
    if typ == "pred":
        return np.bool_
    return UINT_BITS[min(max(type_bits(typ), 8), 64)]


def storage_bits(dtype: Any) -> int:
    return 1 if dtype == np.bool_ else np.dtype(dtype).itemsize * 8


def convert_raw(val: Any, from_bits: int, to_bits: int, signed: bool) -> Any:
    """Width-adjust raw unsigned bits (arrays or numpy scalars)."""
    if from_bits == to_bits:
        return val
    if to_bits < from_bits:
        return val.astype(UINT_BITS[to_bits])
    if signed:
        return val.view(SINT_BITS[from_bits]).astype(SINT_BITS[to_bits]).view(UINT_BITS[to_bits])
    return val.astype(UINT_BITS[to_bits])


def const_of(value: int, typ: str) -> Any:
    """An integer literal as a numpy scalar of ``typ`` (wrapped to its width; ISA §4.5.1)."""
    if typ == "pred":
        return np.bool_(value != 0)
    if typ in ("f16", "f32", "f64"):
        return np_type(typ)(value)
    bits = min(type_bits(typ), 64)
    raw = UINT_BITS[max(bits, 8)](value & ((1 << bits) - 1))
    return raw.view(np_type(typ)) if np_type(typ) != UINT_BITS[max(bits, 8)] else raw


def float_const(bits: int, width: int, typ: str) -> Any:
    """A ``0f``/``0d``/decimal literal for an instruction of type ``typ``."""
    if width == 32:
        f = np.uint32(bits).view(np.float32)
    else:
        f = np.uint64(bits).view(np.float64)
    if typ in ("f32", "f64", "f16"):
        with np.errstate(all="ignore"):
            return np_type(typ)(f)
    if typ == "bf16":
        return bf16_round(np.array([f], np.float64))[0]
    # a float literal used as bits (mov.b32 %r, 0f3F800000)
    tb = type_bits(typ)
    raw = UINT_BITS[tb](bits & ((1 << tb) - 1)) if tb in UINT_BITS else np.uint32(bits)
    return raw.view(np_type(typ)) if np_type(typ) is not type(raw) else raw


OPAQUE = {"texref": 8, "samplerref": 8, "surfref": 8}  # handles (ISA §5.3): 64-bit in the simulator


def elem_size(typ: str) -> int:
    """Bytes of one element of ``typ`` (opaque texture/sampler/surface handles count 8)."""
    if typ in OPAQUE:
        return OPAQUE[typ]
    return type_bytes(typ)


def decl_size(d: ir.VarDecl) -> int:
    """Bytes of a variable declaration (a ``[]`` dimension counts as 0 elements)."""
    n = 1
    for dim in d.dims:
        n *= dim if dim is not None else 0
    return elem_size(d.type) * (d.vector or 1) * n
