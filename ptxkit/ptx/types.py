"""PTX fundamental types (ISA §5.2.1): widths and kinds."""

from __future__ import annotations

from ptxkit import ir

_BITS = {
    "b8": 8, "b16": 16, "b32": 32, "b64": 64, "b128": 128,
    "u8": 8, "u16": 16, "u32": 32, "u64": 64,
    "s8": 8, "s16": 16, "s32": 32, "s64": 64,
    "f16": 16, "f16x2": 32, "bf16": 16, "bf16x2": 32, "f32": 32, "f64": 64, "f32x2": 64,
    "tf32": 32, "e4m3": 8, "e5m2": 8, "e4m3x2": 16, "e5m2x2": 16, "e2m3x2": 16, "e3m2x2": 16,
    "e2m1x2": 8, "pred": 1,
    # opaque handles (ISA §5.3): 64-bit references to texture/sampler/surface state
    "texref": 64, "samplerref": 64, "surfref": 64,
}

FLOAT_TYPES = frozenset({"f16", "f16x2", "bf16", "bf16x2", "f32", "f64", "f32x2", "tf32",
                         "e4m3", "e5m2", "e4m3x2", "e5m2x2"})
SIGNED_TYPES = frozenset({"s8", "s16", "s32", "s64"})
UNSIGNED_TYPES = frozenset({"u8", "u16", "u32", "u64"})
BIT_TYPES = frozenset({"b8", "b16", "b32", "b64", "b128"})
INT_TYPES = SIGNED_TYPES | UNSIGNED_TYPES | BIT_TYPES
ALL_TYPES = frozenset(_BITS)


def is_type(name: str) -> bool:
    return name in _BITS


def type_bits(name: str) -> int:
    """Width in bits (``pred`` counts as 1)."""
    return _BITS[name]


def type_bytes(name: str) -> int:
    """Storage size in bytes (``pred`` → 1)."""
    return max(_BITS[name] // 8, 1)


def is_float(name: str) -> bool:
    return name in FLOAT_TYPES


def is_signed(name: str) -> bool:
    return name in SIGNED_TYPES


def element_bytes(decl: ir.VarDecl) -> int:
    """Bytes of one element of a declared variable: type size × vector width (ISA §5.4.2)."""
    return type_bytes(decl.type) * (decl.vector or 1)
