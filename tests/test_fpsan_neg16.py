"""The 16-bit ring negation is written as ``not`` + ``add`` (ptxkit/fpsan/ctx.py ``emit``), never ``neg.s16``:
ptxas (CUDA 13.0, sm_90, and the driver's JIT) keeps a ``.s16`` negation in a 32-bit register unwrapped, so
``neg.s16`` of -32768 — the ring payload of -0 — reads back as +32768 in a following ``setp.lt.s16`` or
``cvt.s32/s64.s16`` on an H200 (measured: of 65536 inputs, exactly 0x8000 differed; ``not``+``add`` and
an ``and`` of the sign bit gave the ISA's answer). The simulator follows the ISA; the PTX must mean the same
on both."""

from __future__ import annotations

import numpy as np

from ptxkit.fpsan import ring as R
from ptxkit.fpsan_ptx import sanitize_text
from tests.test_fpsan_folds import _kernel, _run

HALVES = [0x8000, 0x0000, 0x3C00, 0xBC00, 0x7C00, 0xFC00, 0x7E00, 0x0001, 0x8001, 0x7BFF, 0x1234, 0xC321]


def test_half_negation_never_emits_neg_s16_and_is_the_ring_negation():
    text = _kernel("neg.f16 %d, %a;", w=16, nin=1)
    out, rep = _run(text, [[h] for h in HALVES], w=16)
    assert "neg.s16" not in sanitize_text(text, "k.ptx").text
    pay = R.embed(np.array(HALVES, np.uint64), "f16")
    want = R.unembed((-pay.astype(np.int64)) % (1 << 16), "f16")
    assert out == [int(v) for v in want] and not rep.errors
    assert out[0] == 0x8000  # -(-0): the payload -2^15 is its own negation
