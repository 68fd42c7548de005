"""``verify --reference MODULE:FUNCTION``: a Python/numpy reference for a kernel's outputs, compared
bit for bit with the FPSan-sanitized kernel (docs/cli.md ``verify``).

The function is called ``FUNCTION(fp, **inputs)``: ``inputs`` are the launch-time kernel arguments by
the NAME given to ``--arg`` (buffers as copies of their numpy arrays — bf16 as ``uint16`` bits —,
scalars as numpy scalars, null pointers as ``None``); ``fp`` is an :class:`FPRing`, the FPSan ring
operations on float arrays (each op is φ⁻¹(op(φ(a), …)) with the ``fpsan.ring`` model, so a reference
written with them has exactly the bits Triton 3.9's FPSan gives). It returns a dict ``NAME → array``
of the buffers to compare (or ``None``: every buffer argument, as the function left it).
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys
from collections.abc import Callable
from typing import Any

import numpy as np

from ptxkit.errors import UsageError
from ptxkit.exec_sim.args import SCALAR_TYPES, KernelArg
from ptxkit.exec_sim.floats import bf16_round
from ptxkit.exec_sim.launch import run_kernel
from ptxkit.fpsan import ring
from ptxkit.verify.check import Launch

Reference = Callable[..., Any]

_FTYPE = {np.dtype(np.float16): "f16", np.dtype(np.float32): "f32", np.dtype(np.float64): "f64"}
_FLOAT: dict[str, type[np.generic]] = {"f16": np.float16, "bf16": np.uint16, "f32": np.float32, "f64": np.float64}
_BITS: dict[str, type[np.generic]] = {"f16": np.uint16, "bf16": np.uint16, "f32": np.uint32, "f64": np.uint64}
_BINOPS = ("add", "sub", "mul", "div", "min", "max", "rem")
_UNOPS = ("neg", "rcp", "exp", "exp2", "sin", "cos", "tanh", "rint", "trunc", *ring.TAG_IDS)


class FPRing:
    """FPSan's ring operations (docs/fpsan.md §1–§2) on numpy float arrays: ``fp.add(x, y)`` is
    φ⁻¹(φ(x) + φ(y)) elementwise. The float type comes from the arrays' dtype (float16/32/64; Python
    floats take the other operand's); ``fp.typed("bf16")`` works on ``uint16`` bf16 bits. Results are
    arrays of that dtype. ``phi``/``phi_inv`` expose the payloads (``uint64``) for ring-level code."""

    def __init__(self, ftype: str | None = None) -> None:
        if ftype is not None and ftype not in _FLOAT:
            raise UsageError(f"fp.typed: no FPSan ring for {ftype!r} (f16, bf16, f32, f64)")
        self.ftype = ftype

    def typed(self, ftype: str) -> FPRing:
        return FPRing(ftype)

    def __getattr__(self, name: str) -> Callable[..., np.ndarray]:
        if name in _BINOPS:
            return lambda a, b: self._out(ring.float_binop(name, *self._bits2(a, b)), self._type(a, b))
        if name in _UNOPS:
            return lambda a: self._out(ring.float_unop(name, self._bits(a, self._type(a)), self._type(a)),
                                       self._type(a))
        raise AttributeError(f"FPRing has no operation {name!r} (binary: {', '.join(_BINOPS)}; "
                             f"unary: {', '.join(_UNOPS)}; fma, abs, sum, matmul, cast, phi, phi_inv)")

    # -- φ and the payload level
    def phi(self, x: Any) -> np.ndarray:
        t = self._type(x)
        return ring.embed(self._bits(x, t), t)

    def phi_inv(self, payload: Any, ftype: str | None = None) -> np.ndarray:
        t = ftype or self.ftype
        if t is None:
            raise UsageError("fp.phi_inv needs the float type: fp.phi_inv(p, 'f32') or fp.typed('f32')")
        return self._out(ring.unembed(payload, t), t)

    # -- operations beyond the element-wise unary/binary ones
    def fma(self, a: Any, b: Any, c: Any) -> np.ndarray:
        t = self._type(a, b, c)
        w = ring.ring(t).w
        p = ring.fma(ring.embed(self._bits(a, t), t), ring.embed(self._bits(b, t), t),
                     ring.embed(self._bits(c, t), t), w)
        return self._out(ring.unembed(p, t), t)

    def abs(self, a: Any) -> np.ndarray:
        t = self._type(a)
        return self._out(ring.unembed(ring.abs_payload(self.phi(a), ring.ring(t).w), t), t)

    def sum(self, a: Any, axis: int | None = None) -> np.ndarray:
        """Σ in the ring (mod 2^w): the same bits in every order — the algebraic equivalence the
        FPSan comparison checks (a tree sum equals a sequential one)."""
        t = self._type(a)
        s = np.sum(self.phi(a), axis=axis, dtype=np.uint64)
        return self._out(ring.unembed(s, t), t)

    def matmul(self, a: Any, b: Any, c: Any = None) -> np.ndarray:
        """``a @ b (+ c)`` as FPSan's dot/mma: Σ_k sext(φ(a))·sext(φ(b)) + φ(c) in the accumulator's
        ring (c's type; a's when there is no c)."""
        ti = self._type(a, b)
        ta = ti if c is None else self._type(c)
        wi, wa = ring.ring(ti).w, ring.ring(ta).w
        pa, pb = (ring.sext(self.typed(ti).phi(x), wi, wa) for x in (a, b))
        with np.errstate(over="ignore"):
            p = np.matmul(pa, pb)
            if c is not None:
                p = p + self.typed(ta).phi(c)
        return self._out(ring.unembed(p, ta), ta)

    def cast(self, a: Any, dst: str, *, homomorphic: bool = False) -> np.ndarray:
        """A float → float cvt in the ring (sign-extend up, Triton's narrowing fold down)."""
        t = self._type(a)
        if dst not in _FLOAT:
            raise UsageError(f"fp.cast: no FPSan ring for {dst!r}")
        return self._out(ring.float_cast(self._bits(a, t), t, dst, homomorphic=homomorphic), dst)

    # -- helpers
    def _type(self, *xs: Any) -> str:
        if self.ftype is not None:
            return self.ftype
        for x in xs:
            t = _FTYPE.get(np.asarray(x).dtype) if isinstance(x, (np.ndarray, np.generic)) else None
            if t is not None:
                return t
        raise UsageError("fp: cannot tell the float type of the operands (float16/32/64 arrays); "
                         "use fp.typed('f32') (bf16: fp.typed('bf16') on uint16 bits)")

    def _bits(self, x: Any, t: str) -> np.ndarray:
        arr = np.asarray(x)
        if arr.dtype.kind == "f" or arr.dtype == object:
            if t == "bf16":
                arr = bf16_round(np.asarray(arr, np.float64))
            else:
                arr = arr.astype(_FLOAT[t])
        if arr.dtype.itemsize != np.dtype(_BITS[t]).itemsize:
            raise UsageError(f"fp: a {arr.dtype.name} operand in a {t} operation")
        return arr.view(_BITS[t]).astype(np.uint64)

    def _bits2(self, a: Any, b: Any) -> tuple[np.ndarray, np.ndarray, str]:
        t = self._type(a, b)
        return self._bits(a, t), self._bits(b, t), t

    def _out(self, bits: np.ndarray, t: str) -> np.ndarray:
        return np.asarray(bits).astype(_BITS[t]).view(_FLOAT[t])


def load_reference(spec: str) -> Reference:
    """``MODULE:FUNCTION`` (MODULE a dotted name importable from sys.path or the current directory,
    or a ``.py`` file path) → the function; anything wrong is a usage error."""
    mod_name, sep, fn_name = spec.rpartition(":")
    if not sep or not mod_name or not fn_name:
        raise UsageError(f"--reference {spec!r}: expected MODULE:FUNCTION (or FILE.py:FUNCTION)")
    try:
        if mod_name.endswith(".py") or os.sep in mod_name:
            if not os.path.isfile(mod_name):
                raise UsageError(f"--reference {spec!r}: no file {mod_name!r}")
            loader_spec = importlib.util.spec_from_file_location("ptxkit_reference", mod_name)
            if loader_spec is None or loader_spec.loader is None:
                raise UsageError(f"--reference {spec!r}: cannot load {mod_name!r} as a Python module")
            module = importlib.util.module_from_spec(loader_spec)
            loader_spec.loader.exec_module(module)
        else:
            sys.path.insert(0, os.getcwd())
            try:
                module = importlib.import_module(mod_name)
            finally:
                sys.path.remove(os.getcwd())
    except UsageError:
        raise
    except Exception as e:  # the user's module: its import failing is bad input, not a ptxkit bug
        raise UsageError(f"--reference {spec!r}: cannot import {mod_name!r}: {type(e).__name__}: {e}") from e
    fn = getattr(module, fn_name, None)
    if not callable(fn):
        raise UsageError(f"--reference {spec!r}: {mod_name!r} has no function {fn_name!r}")
    return fn  # type: ignore[no-any-return]


def reference_inputs(args: list[KernelArg]) -> dict[str, Any]:
    """The launch-time kernel arguments by NAME, as the reference receives them (module docstring)."""
    out: dict[str, Any] = {}
    for a in args:
        if a.data is not None:
            out[a.name] = a.data.copy()
        elif a.kind == "scalar":
            dt = np.dtype(SCALAR_TYPES.get(a.type, np.uint64))
            raw = np.array([a.value & ((1 << (8 * dt.itemsize)) - 1)], np.uint64).astype(f"u{dt.itemsize}")
            out[a.name] = raw.view(dt)[0]
        else:
            out[a.name] = None
    return out


def compare_reference(kernel: Launch, fn: Reference, spec: str) -> dict[str, Any] | None:
    """Run the (sanitized) kernel and the reference on the same inputs; the first differing element
    of the buffers the reference returns (as :func:`verify.equivalence.compare`), or None."""
    inputs = reference_inputs(kernel.args)
    res = run_kernel(kernel.module, kernel.kernel, kernel.args, kernel.grid, kernel.block, kernel.shared_bytes,
                     max_steps=kernel.max_steps)
    try:
        got = fn(FPRing(), **inputs)
    except UsageError as e:
        raise UsageError(f"--reference {spec!r}: {e.diagnostics[0].message}") from e
    except Exception as e:  # the user's code failing is bad input
        raise UsageError(f"--reference {spec!r} raised {type(e).__name__}: {e}") from e
    if got is None:
        got = {a.name: inputs[a.name] for a in kernel.args if a.kind == "buffer"}
    if not isinstance(got, dict):
        raise UsageError(f"--reference {spec!r} returned {type(got).__name__}, expected a dict NAME -> array")
    for name, value in got.items():
        if name not in res.buffers:
            raise UsageError(f"--reference {spec!r} returned {name!r}, which is not a buffer argument "
                             f"(buffers: {', '.join(res.buffers) or 'none'})")
        mine = res.buffers[name]
        theirs = np.asarray(value)
        if theirs.size != mine.size:
            raise UsageError(f"--reference {spec!r}: {name!r} has {theirs.size} elements "
                             f"(shape {theirs.shape}), the buffer {mine.size}")
        xb, yb = _as_bits(mine), _as_bits(theirs.reshape(-1), mine.dtype, name, spec)
        ne = np.flatnonzero(xb != yb)
        if len(ne):
            i = int(ne[0])
            return {"buffer": name, "index": i, "count": len(ne),
                    "kernel": f"0x{int(xb[i]):x}", "reference": f"0x{int(yb[i]):x}"}
    return None


def _as_bits(x: np.ndarray, like: np.dtype[Any] | None = None, name: str = "", spec: str = "") -> np.ndarray:
    """The unsigned bit patterns of ``x``; a reference array gets the buffer's width: same-width
    arrays are reinterpreted, integers of another width converted (mod 2^width), floats refused."""
    if like is not None and x.dtype.itemsize != like.itemsize:
        if x.dtype.kind not in "iub" or like.kind not in "iu":
            raise UsageError(f"--reference {spec!r}: {name!r} is {x.dtype.name}, the buffer {like.name}")
        x = x.astype(like)
    return x.view(f"u{x.dtype.itemsize}")
