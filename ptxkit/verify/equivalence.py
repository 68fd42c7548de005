"""``verify --against R.ptx``: the two kernels, both sanitized with FPSan (float arithmetic in an
integer ring, so equal bits mean algebraically equal results), run on the same inputs; every buffer
must be equal bit for bit."""

from __future__ import annotations

from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any

import numpy as np

from ptxkit.exec_sim.launch import run_kernel
from ptxkit.fpsan_ptx import at_user_lines, sanitize_text
from ptxkit.ptx.parser import parse
from ptxkit.verify.check import Launch


@dataclass(frozen=True)
class Sanitized:
    """A kernel file sanitized with FPSan: its module, and both texts (run-time errors of the module
    are mapped back to the user's lines with :func:`located`)."""

    module: Any
    text: str
    sanitized_text: str
    filename: str

    def located(self) -> AbstractContextManager[None]:
        return at_user_lines(self.text, self.sanitized_text, self.filename)


def sanitized(text: str, filename: str) -> Sanitized:
    stext = sanitize_text(text, filename).text
    return Sanitized(parse(stext, filename), text, stext, filename)


def compare(kernel: Launch, reference: Launch) -> dict[str, Any] | None:
    """The first differing element (buffer, index, both values' bits), or None when all are equal."""
    a = run_kernel(kernel.module, kernel.kernel, kernel.args, kernel.grid, kernel.block, kernel.shared_bytes,
                   max_steps=kernel.max_steps)
    b = run_kernel(reference.module, reference.kernel, reference.args, reference.grid, reference.block,
                   reference.shared_bytes, max_steps=reference.max_steps)
    for arg in kernel.args:
        if arg.kind != "buffer":
            continue
        x, y = a.buffers[arg.name], b.buffers[arg.name]
        xb = x.view(np.uint8) if x.dtype.itemsize == 1 else x.view(f"u{x.dtype.itemsize}")
        yb = y.view(np.uint8) if y.dtype.itemsize == 1 else y.view(f"u{y.dtype.itemsize}")
        ne = np.flatnonzero(xb != yb)
        if len(ne):
            i = int(ne[0])
            return {"buffer": arg.name, "index": i, "count": len(ne),
                    "kernel": f"0x{int(xb[i]):x}", "reference": f"0x{int(yb[i]):x}"}
    return None
