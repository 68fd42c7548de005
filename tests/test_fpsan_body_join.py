"""A float constant LLVM moved into the join of a recognised body's result (``ptxkit.fpsan.fold_body_join``; issue 10
A, held-out seed 52151 at y = ±0, silent: found with inputs rich in zeros). ``where(c < pow(x.to(f64), y.to(f64)),
..)`` beside ``pow(x, y)`` of f32: the f32 body's ``y == 0`` test also decides the f64 pow, so LLVM sets its join
register to 1.0 there; Triton's FPSan has the f64 pow's call hash on every path. The Triton 3.9 pair on inputs
whose y are all −0.0 (and 0.0), bit for bit."""

from __future__ import annotations

import dataclasses
import re
import tempfile
from collections.abc import Callable
from pathlib import Path

import numpy as np

from ptxkit.corpus.triton_check import run_ptx
from ptxkit.fpsan_ptx import sanitize_text
from tests.test_fpsan_libdevice import SPECS, _build


def _zero_y(name: str, mutate: Callable[[str], str] = lambda t: t, buffer: str = "x1_ptr",
            negative_zero: int = 0x80000000) -> tuple[np.ndarray, np.ndarray, list]:
    """The Triton pair ``name`` run on its inputs with ``buffer`` all −0.0 and +0.0 (ours, Triton's, the report)."""
    spec = SPECS[name]
    arrays = spec.input_arrays()
    y = arrays[buffer].copy()
    y[::2], y[1::2] = negative_zero, 0
    spec = dataclasses.replace(spec, fixed_inputs=arrays | {buffer: y})
    plain, cp = _build(name, "plain")
    plain = mutate(plain)
    fpsan, cf = _build(name, "fpsan")
    with tempfile.TemporaryDirectory() as root:
        m = re.search(r'^\s*\.file\s+\d+\s+"([^"]+)"', plain, re.M)
        assert m is not None
        src = Path(root) / Path(m.group(1)).parent.name / Path(m.group(1)).name
        src.parent.mkdir(parents=True)
        src.write_text(spec.source)
        res = sanitize_text(plain, f"{name}.plain.ptx", folds=(), source_root=root)
    ours = run_ptx(spec, cp, res.text, f"{name}.sanitized.ptx")
    theirs = run_ptx(spec, cf, fpsan, f"{name}.fpsan.ptx")
    return ours, theirs, res.report.items


def test_constant_in_the_join_of_a_pow_is_its_ring_value():
    ours, theirs, items = _zero_y("seed52151")
    assert np.array_equal(ours, theirs)
    assert any(i.opcode == "mov.b64" and "special case of that function" in i.reason and i.severity == "note"
               for i in items)


def test_constant_at_the_users_select_is_reported():
    """The same move under the location of the user's ``tl.where`` (a mutation of the pair): it may be the user's
    constant, whose value Triton keeps; left as written and reported."""
    spec = SPECS["seed52151"]
    line = spec.source.splitlines()[12]
    col = line.index("tl.where(") + 1

    def at_where(text: str) -> str:
        return text.replace("\tmov.b64 \t%rd39, 0d3FF0000000000000;",
                            f"\t.loc\t1 13 {col}\n\tmov.b64 \t%rd39, 0d3FF0000000000000;", 1)
    ours, theirs, items = _zero_y("seed52151", at_where)
    assert not np.array_equal(ours, theirs)
    assert any(i.opcode == "mov.b64" and "special case" in i.reason and i.severity == "error" for i in items)
