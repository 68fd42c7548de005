"""Kernel-argument specs of docs/cli.md: ``TYPE:VALUE``, ``TYPE[N]:zeros|rand|FILE``, ``null``."""

from __future__ import annotations

import math
import re
import struct
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ptxkit import ir
from ptxkit.errors import UsageError
from ptxkit.exec_sim.floats import bf16_round
from ptxkit.exec_sim.limits import MAX_BLOCK, MAX_CLUSTER_CTAS, MAX_DYNAMIC_SHARED, MAX_GRID, MAX_THREADS_PER_CTA
from ptxkit.exec_sim.tensormap import DTYPE_CODE, TensorMap, TensorMapError, dense_strides, extent
from ptxkit.exec_sim.values import decl_size
from ptxkit.io import check_allocation
from ptxkit.ptx.types import type_bytes

BUFFER_TYPES: dict[str, type[np.generic]] = {"u8": np.uint8, "u16": np.uint16, "u32": np.uint32, "u64": np.uint64,
                "s8": np.int8, "s16": np.int16, "s32": np.int32, "s64": np.int64,
                "f16": np.float16, "bf16": np.uint16, "f32": np.float32, "f64": np.float64}
SCALAR_TYPES: dict[str, type[np.generic]] = dict(BUFFER_TYPES, b8=np.uint8, b16=np.uint16, b32=np.uint32, b64=np.uint64)

_BUF = re.compile(r"^(\w+)\[(\d+)\]:(.+)$", re.S)
_SCALAR = re.compile(r"^(\w+):(.+)$", re.S)


@dataclass
class KernelArg:
    """One kernel parameter's value. ``name`` is as the user gave it (param name or position)."""

    name: str
    index: int
    param: str
    kind: str  # 'scalar' | 'buffer' | 'null' | 'tmap'
    type: str
    value: int = 0  # scalar: raw little-endian bits of the parameter
    data: np.ndarray | None = None  # buffer contents (a tmap: its tensor's, unless it maps ``ref``'s)
    tmap: TensorMap | None = None  # a tmap: the map, its address filled in at launch
    ref: str | None = None  # a tmap over another buffer argument: that argument's NAME

    @property
    def nbytes(self) -> int:
        return 0 if self.data is None else self.data.nbytes

    @property
    def buffer(self) -> np.ndarray:
        """The contents of a ``buffer`` argument."""
        if self.data is None:
            raise TypeError(f"kernel argument '{self.name}' ({self.kind}) is not a buffer")
        return self.data


def _float_bits(typ: str, v: float) -> int:
    """The bits of ``v`` rounded to ``typ`` (round to nearest even, like cvt.rn)."""
    if typ == "f64":
        return int(struct.unpack("<Q", struct.pack("<d", v))[0])
    if typ == "bf16":
        return int(bf16_round(np.array([v], np.float64))[0])
    dt = np.float32 if typ == "f32" else np.float16
    with np.errstate(over="ignore"):
        return int(np.array([v], np.float64).astype(dt).view(np.uint32 if typ == "f32" else np.uint16)[0])


def _scalar_bits(typ: str, text: str, where: str) -> int:
    """The raw bits of a scalar ``TYPE:VALUE``. Integers must fit the type's range (``u32:-1`` is
    refused: write ``s32:-1`` or ``u32:0xffffffff``); ``bN`` takes either range. A finite float that
    rounds to infinity in TYPE (``f32:1e999``) is refused; ``inf``/``nan`` are accepted as written."""
    bits = type_bytes(typ) * 8
    t = text.strip()
    if typ in ("f16", "bf16", "f32", "f64"):
        if re.fullmatch(r"0[xX][0-9a-fA-F]+", t):
            raw = int(t, 16)
            if raw >= 1 << bits:
                raise UsageError(f"{where}: bit pattern {t} does not fit in {typ}")
            return raw
        try:
            v = float(t)
        except ValueError:
            raise UsageError(f"{where}: '{text}' is not a valid {typ} value") from None
        if math.isinf(v) and not re.fullmatch(r"[+-]?inf(inity)?", t, re.I):
            raise UsageError(f"{where}: {t} is out of range for {typ} (it would round to infinity)")
        out = _float_bits(typ, v)
        exp_mask = {"f16": 0x7C00, "bf16": 0x7F80, "f32": 0x7F800000, "f64": 0x7FF << 52}[typ]
        is_inf = out & exp_mask == exp_mask and not math.isnan(v)
        if is_inf and not math.isinf(v):
            raise UsageError(f"{where}: {t} is out of range for {typ} (it would round to infinity)")
        return out
    try:
        v = int(t, 0)
    except ValueError:
        raise UsageError(f"{where}: '{text}' is not a valid {typ} value") from None
    lo = -(1 << (bits - 1)) if typ[0] in "sb" else 0
    hi = (1 << (bits - 1)) - 1 if typ[0] == "s" else (1 << bits) - 1
    if not lo <= v <= hi:
        raise UsageError(f"{where}: {v} does not fit in {typ} ({lo} .. {hi})")
    return v & ((1 << bits) - 1)


def _load_file(path: str, typ: str, n: int, where: str) -> np.ndarray:
    """A ``.npy`` must hold exactly ``n`` elements of TYPE's little-endian dtype (anything else is
    refused with the expected and the found dtype/shape); a raw file at least ``n`` elements' bytes."""
    p = Path(path)
    try:
        is_file = p.is_file()
    except (OSError, ValueError):  # a name too long for the file system, or a NUL byte: not a file either
        is_file = False
    if not is_file:
        raise UsageError(f"{where}: no such file '{path}' (SOURCE must be zeros, rand or a .bin/.npy file)")
    dt = np.dtype(BUFFER_TYPES[typ]).newbyteorder("<")
    if p.suffix == ".npy":
        try:
            arr = np.load(p, allow_pickle=False)
        except (ValueError, EOFError, OSError) as e:
            raise UsageError(f"{where}: '{path}' is not a readable .npy array of plain numbers ({e})") from None
        if not isinstance(arr, np.ndarray):
            raise UsageError(f"{where}: '{path}' holds several arrays (.npz); give one .npy")
        found = arr.dtype
        if found.newbyteorder("<") != dt or (found.byteorder == ">" and found.itemsize > 1):
            raise UsageError(f"{where}: '{path}' holds dtype {found.str} ({found.name}), {typ} needs {dt.str}")
        if arr.size != n:
            raise UsageError(f"{where}: '{path}' holds shape {arr.shape} ({arr.size} elements), {typ}[{n}] "
                             f"needs {n}")
        return np.ascontiguousarray(arr).reshape(-1).astype(dt).copy()
    need = n * dt.itemsize
    try:
        with p.open("rb") as f:  # a raw file may be longer: its first n elements are used
            raw = f.read(need)
    except OSError as e:
        raise UsageError(f"{where}: cannot read '{path}': {e.strerror or e}") from None
    if len(raw) != need:
        raise UsageError(f"{where}: '{path}' holds {len(raw)} bytes, {typ}[{n}] needs {need}")
    return np.frombuffer(raw, dt).copy()


def _rand(typ: str, n: int, rng: np.random.Generator) -> np.ndarray:
    dt = BUFFER_TYPES[typ]
    if typ in ("f16", "f32", "f64"):
        return rng.uniform(-4.0, 4.0, n).astype(dt)
    if typ == "bf16":
        return bf16_round(rng.uniform(-4.0, 4.0, n))
    info = np.iinfo(np.dtype(dt))
    return rng.integers(info.min, int(info.max) + 1, n, dtype=np.dtype(dt))


def parse_arg_specs(specs: list[str], fn: ir.Function, seed: int = 0) -> list[KernelArg]:
    """Parse ``NAME=SPEC`` strings against ``fn``'s parameters (in parameter order in the result).
    Raises UsageError (one line) for bad specs, unknown names, duplicates and missing parameters."""
    params = fn.params
    by_name = {p.name: i for i, p in enumerate(params)}
    if seed < 0:
        raise UsageError(f"--seed {seed}: expected a non-negative integer")
    rng = np.random.default_rng(seed)
    total = 0
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
        psize = decl_size(p)
        body = body.strip()
        if body == "null":
            if psize != 8:
                raise UsageError(f"{where}: parameter '{p.name}' (.{p.type}) is not a 64-bit pointer: "
                                 f"null does not fit (give {p.type}:0)")
            out[idx] = KernelArg(name, idx, p.name, "null", "u64")
            continue
        if body.startswith("tmap:"):
            if psize != 128:
                raise UsageError(f"{where}: parameter '{p.name}' (.{p.type}, {psize} bytes) is not a "
                                 "128-byte tensor map (.param .align 64 .b8 [128])")
            arg = _tmap_arg(name, idx, p.name, body[5:], where, rng)
            total += arg.nbytes
            check_allocation(total, "the --arg buffers together")
            out[idx] = arg
            continue
        mb = _BUF.match(body)
        if mb:
            typ, digits, src = mb.group(1), mb.group(2), mb.group(3)
            if len(digits) > 18:  # past any memory budget (and past int()'s digit limit)
                raise UsageError(f"{where}: {typ}[{digits[:12]}…] ({len(digits)} digits) is over the memory budget")
            count = int(digits)
            if typ not in BUFFER_TYPES:
                raise UsageError(f"{where}: unknown buffer type '{typ}' (use one of {' '.join(BUFFER_TYPES)})")
            if psize != 8:
                raise UsageError(f"{where}: parameter '{p.name}' (.{p.type}) is not a 64-bit pointer")
            nbytes = count * np.dtype(BUFFER_TYPES[typ]).itemsize
            total += nbytes
            check_allocation(nbytes, f"{where} ({typ}[{count}])")
            check_allocation(total, "the --arg buffers together")
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
    bufs = {a.name: a for a in out.values() if a.kind == "buffer"}
    for i, a in list(out.items()):
        if a.ref is not None:
            b = bufs.get(a.ref)
            if b is None:
                raise UsageError(f"--arg {a.name}: tmap:@{a.ref} names no buffer argument "
                                 f"(buffers: {', '.join(sorted(bufs)) or 'none'})")
            out[i] = _retype(a, b)
    missing = [params[i].name for i in range(len(params)) if i not in out]
    if missing:
        raise UsageError(f"missing --arg for parameter{'s' if len(missing) > 1 else ''} {', '.join(missing)} "
                         f"of kernel '{fn.name}'")
    return [out[i] for i in range(len(params))]


_TMAP_KEYS = ("dims", "box", "strides", "elemstrides", "swizzle")


def _tmap_arg(name: str, idx: int, param: str, body: str, where: str, rng: np.random.Generator) -> KernelArg:
    """``tmap:TYPE[N]:SOURCE:dims=…:box=…[:strides=…][:elemstrides=…][:swizzle=…]`` or
    ``tmap:@BUF:…`` (docs/cli.md): a tiled tensor map (cuTensorMapEncodeTiled's parameters, dim 0
    innermost) over a buffer of its own or over the buffer argument BUF."""
    parts = body.split(":")
    keys: dict[str, str] = {}
    while parts and "=" in parts[-1]:
        k, v = parts.pop().split("=", 1)
        if k not in _TMAP_KEYS:
            raise UsageError(f"{where}: unknown tmap field '{k}' (fields: {', '.join(_TMAP_KEYS)})")
        if k in keys:
            raise UsageError(f"{where}: tmap field '{k}' given twice")
        keys[k] = v
    for k in ("dims", "box"):
        if k not in keys:
            raise UsageError(f"{where}: a tmap needs {k}=… (expected tmap:TYPE[N]:SOURCE:dims=D0,D1…:box=B0,B1…)")
    src = ":".join(parts)
    ref, typ, data = None, "", None
    if src.startswith("@") and src[1:]:
        ref = src[1:]
        typ = "u8"  # the referenced buffer's type replaces it (parse_arg_specs)
    else:
        mb = _BUF.match(src)
        if not mb or mb.group(1) not in BUFFER_TYPES or len(mb.group(2)) > 18:
            raise UsageError(f"{where}: expected tmap:TYPE[N]:SOURCE or tmap:@BUFFER before the fields, got '{src}'")
        typ, count = mb.group(1), int(mb.group(2))
        check_allocation(count * np.dtype(BUFFER_TYPES[typ]).itemsize, f"{where} ({typ}[{count}])")
        data = (np.zeros(count, BUFFER_TYPES[typ]) if mb.group(3) == "zeros" else
                _rand(typ, count, rng) if mb.group(3) == "rand" else _load_file(mb.group(3), typ, count, where))

    def ints(k: str, default: tuple[int, ...] | None = None) -> tuple[int, ...]:
        if k not in keys:
            assert default is not None
            return default
        v = keys[k]
        if not re.fullmatch(r"\d{1,13}(,\d{1,13})*", v):
            raise UsageError(f"{where}: {k}={v}: expected comma-separated non-negative integers")
        return tuple(int(x) for x in v.split(","))

    swz_text = keys.get("swizzle", "none").upper().removesuffix("B")
    swz = {"NONE": 0, "0": 0, "32": 1, "64": 2, "128": 3}.get(swz_text)
    if swz is None:
        raise UsageError(f"{where}: swizzle={keys['swizzle']}: expected none, 32B, 64B or 128B")
    dims, box = ints("dims"), ints("box")
    esize = np.dtype(BUFFER_TYPES[typ]).itemsize
    tm = TensorMap(0, DTYPE_CODE[typ], esize, dims, ints("strides", dense_strides(dims, esize)), box,
                   ints("elemstrides", (1,) * len(dims)), swz)
    if ref is not None:  # value 1: strides were given (kept when the element type is known)
        return KernelArg(name, idx, param, "tmap", typ, value=int("strides" in keys), tmap=tm, ref=ref)
    try:
        tm.check()
    except TensorMapError as e:
        raise UsageError(f"{where}: {e}") from None
    if data is not None and extent(tm) > data.nbytes:
        raise UsageError(f"{where}: dims/strides reach {extent(tm)} bytes but {typ}[{len(data)}] holds {data.nbytes}")
    return KernelArg(name, idx, param, "tmap", typ, data=data, tmap=tm)


def _retype(a: KernelArg, buf: KernelArg) -> KernelArg:
    """A ``tmap:@BUF`` map takes BUF's element type (its strides default to dense ones of that type)."""
    assert a.tmap is not None
    where = f"--arg {a.name}"
    esize = np.dtype(BUFFER_TYPES[buf.type]).itemsize
    tm = a.tmap
    strides = tm.strides if a.value else dense_strides(tm.dims, esize)
    tm = TensorMap(0, DTYPE_CODE[buf.type], esize, tm.dims, strides, tm.box, tm.estrides, tm.swizzle)
    try:
        tm.check()
    except TensorMapError as e:
        raise UsageError(f"{where}: {e}") from None
    if extent(tm) > buf.nbytes:
        raise UsageError(f"{where}: dims/strides reach {extent(tm)} bytes but buffer {buf.name} holds {buf.nbytes}")
    return KernelArg(a.name, a.index, a.param, "tmap", buf.type, tmap=tm, ref=a.ref)


def _check_shape(flag: str, shown: str, shape: tuple[int, int, int]) -> None:
    limits = MAX_BLOCK if flag == "--block" else MAX_GRID
    for axis, d, lim in zip("xyz", shape, limits, strict=True):
        if not 1 <= d <= lim:
            raise UsageError(f"{flag} {shown}: {axis} = {d} is outside 1 .. {lim}")
    if flag == "--block" and shape[0] * shape[1] * shape[2] > MAX_THREADS_PER_CTA:
        raise UsageError(f"{flag} {shown}: a CTA has at most {MAX_THREADS_PER_CTA} threads, "
                         f"this gives {shape[0] * shape[1] * shape[2]}")


def check_launch(grid: tuple[int, int, int], block: tuple[int, int, int], shared: int = 0) -> None:
    """Refuse (UsageError) a launch shape or dynamic shared size no GPU accepts."""
    _check_shape("--grid", ",".join(map(str, grid)), grid)
    _check_shape("--block", ",".join(map(str, block)), block)
    if not 0 <= shared <= MAX_DYNAMIC_SHARED:
        raise UsageError(f"--shared {shared}: dynamic shared memory is 0 .. {MAX_DYNAMIC_SHARED} bytes per CTA")


def check_cluster(grid: tuple[int, int, int], cluster: tuple[int, int, int]) -> None:
    """Refuse (UsageError) a cluster shape that does not tile the grid or is over the hardware's size."""
    size = cluster[0] * cluster[1] * cluster[2]
    shown = ",".join(map(str, cluster))
    if min(cluster) < 1 or size > MAX_CLUSTER_CTAS:
        raise UsageError(f"--cluster {shown}: a cluster has 1 .. {MAX_CLUSTER_CTAS} CTAs, this gives {size}")
    for axis, g, c in zip("xyz", grid, cluster, strict=True):
        if g % c:
            raise UsageError(f"--cluster {shown}: the grid's {axis} = {g} is not a multiple of the cluster's {c}")


def parse_dim(text: str, flag: str) -> tuple[int, int, int]:
    """A launch shape ``X[,Y[,Z]]`` (``--grid``/``--block``) → (x, y, z), each ≥ 1 and within the
    hardware limits of that flag (MAX_GRID, MAX_BLOCK)."""
    parts = str(text).split(",")
    if not 1 <= len(parts) <= 3 or not all(re.fullmatch(r"\s*\d{1,12}\s*", x) for x in parts):
        raise UsageError(f"{flag} '{text}': expected X[,Y[,Z]] with positive integers")
    x, y, z = [*(int(v) for v in parts), 1, 1][:3]
    if "cluster" in flag:
        if min(x, y, z) < 1 or x * y * z > MAX_CLUSTER_CTAS:
            raise UsageError(f"{flag} '{text}': a cluster has 1 .. {MAX_CLUSTER_CTAS} CTAs")
        return x, y, z
    _check_shape("--block" if "block" in flag else "--grid", f"'{text}'", (x, y, z))
    return x, y, z
