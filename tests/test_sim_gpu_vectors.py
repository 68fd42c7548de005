"""The simulator against bits a GPU wrote (ptxkit/corpus/gpuprobe.py; no GPU needed here).

``tests/data/gpu_probe/h200_sm90.npz`` holds, for every probed instruction form (``cvt`` between all integer
and float types in every rounding mode, ``abs``/``neg``/``min``/``max``/``copysign``/``testp``/``setp`` on
floats, IEEE arithmetic in every rounding mode, half and packed-half arithmetic), the outputs an NVIDIA H200
(sm_90a, driver 580) wrote for a slice of the probe's deterministic operands: every special (NaNs with
payloads, infinities, signed zeros, subnormals, the integer range edges) and a stride through the random
rest. Made with ``python -m ptxkit.corpus.gpuprobe gpu DIR`` on the GPU and ``compare DIR --save`` here.
The ISA leaves NaN results unspecified; these vectors are what the hardware does, and the simulator must
give the same bits, so that a sanitized kernel's output is the same on the CPU and on a GPU."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from ptxkit.corpus import gpuprobe as G
from tests.conftest import needs_ptxas

DATA = Path(__file__).parent / "data" / "gpu_probe" / "h200_sm90.npz"
_VECTORS = dict(np.load(DATA)) if DATA.is_file() else {}
FORMS = {f.name: f for f in G.forms()}


def test_the_vectors_cover_every_probed_form():
    assert set(FORMS) == {k for k in _VECTORS if "#" not in k}


@pytest.mark.parametrize("name", sorted(FORMS))
def test_simulator_gives_the_gpus_bits(name):
    want, idx = _VECTORS[name], _VECTORS[f"{name}#idx"]
    have = G.launch(FORMS[name], "cpu")[idx].view(want.dtype)
    bad = np.flatnonzero(have != want)
    _, srcs = G.operands(FORMS[name])
    first = [(f"in={[hex(int(s[idx[i]])) for s in srcs]}", f"gpu={int(want[i]):#x}", f"sim={int(have[i]):#x}")
             for i in bad[:3]]
    assert bad.size == 0, f"{name}: {bad.size}/{idx.size} differ, e.g. {first}"


def test_saved_elements_hold_every_special():
    """The saved slice is where the edges are: a unary 16-bit probe keeps every special pattern (its
    operand is the element index), the others the whole specials block."""
    for f in (FORMS["abs.f16"], FORMS["cvt.rzi.s64.f32"], FORMS["add.rn.f32"]):
        idx = set(G.saved_indices(f).tolist())
        n, srcs = G.operands(f)
        sp = G.specials(f.srcs[0])
        if n == 65536:
            assert {int(v) for v in sp} <= idx
        else:
            head = {i for i in range(n) if int(srcs[0][i]) in {int(v) for v in sp}}
            assert {i for i in head if i < 1024} <= idx and len(head & idx) >= len(sp)


@needs_ptxas
def test_integer_probes_assemble_and_run_on_the_simulator(tmp_path):
    """The integer probes (``--integer``; not measured on a GPU yet) are valid PTX and run here, so a
    session with a GPU can measure them as they are."""
    import subprocess

    for f in G.integer_forms():
        path = tmp_path / "p.ptx"
        path.write_text(G.kernel_text(f))
        r = subprocess.run(["ptxas", "-arch=sm_90a", str(path), "-o", str(tmp_path / "p.cubin")],
                           capture_output=True, text=True)
        assert r.returncode == 0, (f.name, r.stderr)
        out = G.launch(f, "cpu")
        assert out.size == G.operands(f)[0], f.name
