"""Kernel-argument specs of docs/cli.md: ``TYPE:VALUE``, ``TYPE[N]:zeros|rand|FILE``, ``null``."""

from __future__ import annotations

import re
import struct
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ptxkit import ir
from ptxkit.errors import UsageError
from ptxkit.ptx.types import type_bytes

BUFFER_TYPES = {"u8": np.uint8, "u16": np.uint16, "u32": np.uint32, "u64": np.uint64,
                "s8": np.int8, "s16": np.int16, "s32": np.int32, "s64": np.int64,
                "f16": np.float16, "bf16": np.uint16, "f32": np.float32, "f64": np.float64}
SCALAR_TYPES = dict(BUFFER_TYPES, b8=np.uint8, b16=np.uint16, b32=np.uint32, b64=np.uint64)

_BUF = re.compile(r"^(\w+)\[(\d+)\]:(.+)$", re.S)
_SCALAR = re.compile(r"^(\w+):(.+)$", re.S)


@dataclass
class KernelArg:
    """One kernel parameter's value. ``name`` is as the user gave it (param name or position)."""

    name: str
    index: int
    param: str
    kind: str  # 'scalar' | 'buffer' | 'null'
    type: str
    value: int = 0  # scalar: raw little-endian bits of the parameter
    data: np.ndarray | None = None  # buffer contents

    @property
    def nbytes(self) -> int:
        return 0 if self.data is None else self.data.nbytes


def _param_size(p: ir.VarDecl) -> int:
    from ptxkit.exec_sim.values import decl_size

    return decl_size(p)


def _scalar_bits(typ: str, text: str, where: str) -> int:
    bits = type_bytes(typ) * 8
    t = text.strip()
    try:
        if typ in ("f16", "bf16", "f32", "f64"):
            if re.fullmatch(r"0[xX][0-9a-fA-F]+", t):
                return int(t, 16) & ((1 << bits) - 1)
            v = float(t)
            if typ == "f64":
                return struct.unpack("<Q", struct.pack("<d", v))[0]
            if typ == "f32":
                return struct.unpack("<I", struct.pack("<f", v))[0]
            if typ == "f16":
                return int(np.array([v], np.float16).view(np.uint16)[0])
            from ptxkit.exec_sim.floats import bf16_round
            return int(bf16_round(np.array([v], np.float64))[0])
        v = int(t, 0)
    except (ValueError, OverflowError):
        raise UsageError(f"{where}: '{text}' is not a valid {typ} value") from None
    lo = -(1 << (bits - 1)) if typ[0] == "s" else 0
    hi = (1 << bits) - 1 if typ[0] != "s" else (1 << (bits - 1)) - 1
    if not (min(lo, -(1 << (bits - 1))) <= v <= hi):
        raise UsageError(f"{where}: {v} does not fit in {typ}")
    return v & ((1 << bits) - 1)


def _load_file(path: str, typ: str, n: int, where: str) -> np.ndarray:
    p = Path(path)
    if not p.is_file():
        raise UsageError(f"{where}: no such file '{path}' (SOURCE must be zeros, rand or a .bin/.npy file)")
    dt = BUFFER_TYPES[typ]
    if p.suffix == ".npy":
        arr = np.load(p, allow_pickle=False)
        raw = np.ascontiguousarray(arr).tobytes()
    else:
        raw = p.read_bytes()
    need = n * np.dtype(dt).itemsize
    if len(raw) < need:
        raise UsageError(f"{where}: '{path}' holds {len(raw)} bytes, {typ}[{n}] needs {need}")
    return np.frombuffer(raw[:need], dt).copy()


def _rand(typ: str, n: int, rng: np.random.Generator) -> np.ndarray:
    dt = BUFFER_TYPES[typ]
    if typ in ("f16", "f32", "f64"):
        return rng.uniform(-4.0, 4.0, n).astype(dt)
    if typ == "bf16":
        from ptxkit.exec_sim.floats import bf16_round
        return bf16_round(rng.uniform(-4.0, 4.0, n))
    info = np.iinfo(dt)
    return rng.integers(info.min, int(info.max) + 1, n, dtype=dt)


def parse_arg_specs(specs: list[str], fn: ir.Function, seed: int = 0) -> list[KernelArg]:
    """Parse ``NAME=SPEC`` strings against ``fn``'s parameters (in parameter order in the result).
    Raises UsageError (one line) for bad specs, unknown names, duplicates and missing parameters."""
    params = fn.params
    by_name = {p.name: i for i, p in enumerate(params)}
    rng = np.random.default_rng(seed)
    out: dict[int, KernelArg] = {}
    for spec in specs:
        if "=" not in spec:
            raise UsageError(f"--arg '{spec}': expected NAME=SPEC")
        name, body = spec.split("=", 1)
        name = name.strip()
        if name in by_name:
            idx = by_name[name]
        elif name.isdigit() and int(name) < len(params):
            idx = int(name)
        else:
            raise UsageError(f"--arg '{spec}': kernel '{fn.name}' has no parameter '{name}' "
                             f"(parameters: {', '.join(p.name for p in params) or 'none'})")
        if idx in out:
            raise UsageError(f"--arg '{spec}': parameter '{params[idx].name}' given twice")
        p = params[idx]
        where = f"--arg {name}"
        psize = _param_size(p)
        body = body.strip()
        if body == "null":
            if psize != 8 and psize != 4:
                raise UsageError(f"{where}: parameter '{p.name}' (.{p.type}) cannot take a pointer")
            out[idx] = KernelArg(name, idx, p.name, "null", "u64")
            continue
        mb = _BUF.match(body)
        if mb:
            typ, count, src = mb.group(1), int(mb.group(2)), mb.group(3)
            if typ not in BUFFER_TYPES:
                raise UsageError(f"{where}: unknown buffer type '{typ}' (use one of {' '.join(BUFFER_TYPES)})")
            if psize != 8:
                raise UsageError(f"{where}: parameter '{p.name}' (.{p.type}) is not a 64-bit pointer")
            if src == "zeros":
                data = np.zeros(count, BUFFER_TYPES[typ])
            elif src == "rand":
                data = _rand(typ, count, rng)
            else:
                data = _load_file(src, typ, count, where)
            out[idx] = KernelArg(name, idx, p.name, "buffer", typ, data=data)
            continue
        ms = _SCALAR.match(body)
        if ms:
            typ, val = ms.group(1), ms.group(2)
            if typ not in SCALAR_TYPES:
                raise UsageError(f"{where}: unknown scalar type '{typ}'")
            if type_bytes(typ) != psize:
                raise UsageError(f"{where}: {typ} has {type_bytes(typ)} bytes but parameter '{p.name}' "
                                 f"(.{p.type}) has {psize}")
            out[idx] = KernelArg(name, idx, p.name, "scalar", typ, value=_scalar_bits(typ, val, where))
            continue
        raise UsageError(f"--arg '{spec}': expected TYPE:VALUE, TYPE[N]:zeros|rand|FILE or null")
    missing = [params[i].name for i in range(len(params)) if i not in out]
    if missing:
        raise UsageError(f"missing --arg for parameter{'s' if len(missing) > 1 else ''} {', '.join(missing)} "
                         f"of kernel '{fn.name}'")
    return [out[i] for i in range(len(params))]


def parse_dim(text: str, flag: str) -> tuple[int, int, int]:
    """A launch shape ``X[,Y[,Z]]`` (``--grid``/``--block``) → (x, y, z), each ≥ 1."""
    try:
        dims = [int(x) for x in str(text).split(",")]
    except ValueError:
        raise UsageError(f"{flag} '{text}': expected X[,Y[,Z]] with positive integers") from None
    if not 1 <= len(dims) <= 3 or any(d < 1 for d in dims):
        raise UsageError(f"{flag} '{text}': expected X[,Y[,Z]] with positive integers")
    return tuple(dims + [1] * (3 - len(dims)))  # type: ignore[return-value]
