"""Tensor maps (``CUtensorMap``, PTX ISA §5.5.8 "Tensor-map" / §9.7.9.25.5 ``cp.async.bulk.tensor``):
the 128-byte object a TMA copy reads to find a tensor in global memory and its box in shared memory.

The object is opaque to a kernel (only the hardware and ``tensormap.*`` read it), so its byte layout is
the simulator's own; its *fields* are exactly the parameters of the CUDA driver's
``cuTensorMapEncodeTiled`` (tiled mode; interleave none; OOB fill zeros): data type, rank 1..5,
global address, globalDim[rank] (dim 0 innermost), globalStrides[rank-1] (bytes, of dims 1..),
boxDim[rank] (≤ 256), elementStrides[rank] (1..8), swizzle none/32B/64B/128B.

Layout (little-endian): 0 u64 address · 8 u32 magic · 12 u8 rank, dtype, interleave, swizzle ·
16 u8 l2promotion, oobFill, element bytes · 24 u64 dims[5] · 64 u64 strides[4] (dims 1..4) ·
96 u16 box[5] · 106 u8 elementStrides[5].

A box lies in shared memory densely, dim 0 fastest (``elementStrides`` > 1 take every E-th element,
``ceil(box/E)`` of them); with a swizzle the 16-byte chunks of each row are permuted by the hardware's
pattern on the shared address (the one wgmma's matrix descriptors use: ``semantics.tensor.swizzle``).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

import numpy as np

SIZE = 128
MAGIC = 0x504D_544B  # "KTMP": written by encode, checked by decode (an uninitialised map is refused)
SWIZZLE_BYTES = {0: 0, 1: 32, 2: 64, 3: 128}  # CU_TENSOR_MAP_SWIZZLE_{NONE,32B,64B,128B}
# CUtensorMapDataType codes of the buffer types
DTYPE_CODE = {"u8": 0, "s8": 0, "u16": 1, "s16": 1, "u32": 2, "s32": 3, "u64": 4, "s64": 5, "f16": 6,
              "f32": 7, "f64": 8, "bf16": 9}
_HEAD = struct.Struct("<QIBBBBBBB")


class TensorMapError(ValueError):
    """Parameters cuTensorMapEncodeTiled would refuse, or bytes that are not a tensor map."""


@dataclass(frozen=True)
class TensorMap:
    """The fields of a tiled tensor map (cuTensorMapEncodeTiled's parameters, dim 0 innermost)."""

    address: int
    dtype: int  # CUtensorMapDataType
    esize: int  # bytes per element
    dims: tuple[int, ...]
    strides: tuple[int, ...]  # bytes, dims 1..rank-1
    box: tuple[int, ...]
    estrides: tuple[int, ...]
    swizzle: int = 0  # CU_TENSOR_MAP_SWIZZLE_*: 0 none, 1 32B, 2 64B, 3 128B

    @property
    def rank(self) -> int:
        return len(self.dims)

    @property
    def swizzle_bytes(self) -> int:
        return SWIZZLE_BYTES[self.swizzle]

    @property
    def box_counts(self) -> tuple[int, ...]:
        """Elements the box holds along each dimension: ceil(boxDim / elementStride)."""
        return tuple(-(-b // e) for b, e in zip(self.box, self.estrides))

    @property
    def box_bytes(self) -> int:
        """The bytes one copy moves (and signals with complete_tx), out-of-bounds elements included."""
        return int(np.prod(self.box_counts)) * self.esize

    def check(self) -> None:
        """cuTensorMapEncodeTiled's requirements that matter to the copy (CUDA driver API reference)."""
        r = self.rank
        if not 1 <= r <= 5 or len(self.box) != r or len(self.estrides) != r or len(self.strides) != r - 1:
            raise TensorMapError(f"rank {r}: dims, box and element strides need 1..5 entries each, "
                                 f"strides one fewer")
        if self.address % 16:
            raise TensorMapError(f"global address 0x{self.address:x} is not 16-byte aligned")
        for i, d in enumerate(self.dims):
            if not 1 <= d <= 1 << 32:
                raise TensorMapError(f"dims[{i}] = {d} is outside 1 .. 2^32")
        for i, s in enumerate(self.strides, 1):
            if s % 16 or not 0 < s < 1 << 40:
                raise TensorMapError(f"strides[{i}] = {s} bytes: must be a positive multiple of 16 below 2^40")
        for i, b in enumerate(self.box):
            if not 1 <= b <= 256:
                raise TensorMapError(f"box[{i}] = {b} is outside 1 .. 256")
        for i, e in enumerate(self.estrides):
            if not 1 <= e <= 8:
                raise TensorMapError(f"element stride [{i}] = {e} is outside 1 .. 8")
        inner = self.box[0] * self.esize
        if inner % 16:
            raise TensorMapError(f"the box's inner dimension is {inner} bytes: must be a multiple of 16")
        w = self.swizzle_bytes
        if w and inner != w:
            # cuTensorMapEncodeTiled accepts inner <= w; how the hardware pads a narrower row is not
            # documented, so the simulator refuses it rather than guess.
            raise TensorMapError(f"swizzle {w}B with a {inner}-byte inner box dimension: the simulator "
                                 f"models a swizzled box whose rows are exactly the swizzle span")

    def encode(self) -> bytes:
        self.check()
        r = self.rank
        out = bytearray(SIZE)
        _HEAD.pack_into(out, 0, self.address, MAGIC, r, self.dtype, 0, self.swizzle, 0, 0, self.esize)
        struct.pack_into("<5Q", out, 24, *self.dims, *([0] * (5 - r)))
        struct.pack_into("<4Q", out, 64, *self.strides, *([0] * (4 - len(self.strides))))
        struct.pack_into("<5H", out, 96, *self.box, *([0] * (5 - r)))
        struct.pack_into("<5B", out, 106, *self.estrides, *([0] * (5 - r)))
        return bytes(out)

    @staticmethod
    def decode(raw: bytes) -> TensorMap:
        if len(raw) != SIZE:
            raise TensorMapError(f"a tensor map has {SIZE} bytes, got {len(raw)}")
        addr, magic, r, dtype, _il, swz, _l2, _oob, esize = _HEAD.unpack_from(raw, 0)
        if magic != MAGIC or not 1 <= r <= 5 or swz not in SWIZZLE_BYTES or esize not in (1, 2, 4, 8):
            raise TensorMapError("the operand does not hold a tensor map (pass one with --arg NAME=tmap:…)")
        tm = TensorMap(addr, dtype, esize, struct.unpack_from("<5Q", raw, 24)[:r],
                       struct.unpack_from("<4Q", raw, 64)[:r - 1], struct.unpack_from("<5H", raw, 96)[:r],
                       struct.unpack_from("<5B", raw, 106)[:r], swz)
        tm.check()
        return tm

    def box_elements(self, coords: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """For a box at tensor coordinates ``coords`` (dim 0 first, signed): per box element in
        shared-memory order, (global byte address, in bounds?, byte offset in the box before swizzle)."""
        counts = self.box_counts
        idx = np.indices(counts[::-1]).reshape(len(counts), -1)[::-1]  # idx[i]: element index along dim i
        addr = np.full(idx.shape[1], self.address, np.int64)
        ok = np.ones(idx.shape[1], bool)
        for i in range(self.rank):
            c = int(coords[i]) + idx[i].astype(np.int64) * self.estrides[i]
            ok &= (c >= 0) & (c < self.dims[i])
            addr += c * (self.esize if i == 0 else self.strides[i - 1])
        offset = np.arange(idx.shape[1], dtype=np.int64) * self.esize
        return addr, ok, offset


def dense_strides(dims: tuple[int, ...], esize: int) -> tuple[int, ...]:
    """The byte strides of dims 1.. of a dense tensor (dim 0 innermost)."""
    out, s = [], esize
    for d in dims[:-1]:
        s *= d
        out.append(s)
    return tuple(out)


def extent(tm: TensorMap) -> int:
    """Bytes from the tensor's address to one past its last element."""
    return tm.esize * tm.dims[0] + sum((d - 1) * s for d, s in zip(tm.dims[1:], tm.strides))
