"""Issue 9 reproducers in the execution core (exec_sim): each fails on a2e5b72."""

from __future__ import annotations

import numpy as np

from ptxkit.exec_sim import parse_arg_specs, parse_text, run_kernel

DEPTH = 1000


def test_deeply_nested_blocks_decode_and_keep_their_scopes():
    """findings.md: 1000 nested ``{ }`` blocks (ptxas accepts them) ended in a RecursionError (exit 70) in
    the decoder's block walk. Now they decode; the innermost block's own %r shadows the outer one
    (ISA §10.1: a block is a scope), so the outer %r still holds 7 afterwards and the inner store sees 5."""
    inner = "{\n.reg .b32 %r;\nmov.b32 %r, 5;\nst.global.u32 [%a+4], %r;\n}\n"
    ptx = (".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k(.param .u64 p)\n{\n"
           ".reg .b32 %r;\n.reg .b64 %a;\nld.param.u64 %a, [p];\nmov.b32 %r, 7;\n"
           + "{\n" * DEPTH + inner + "}\n" * DEPTH + "st.global.u32 [%a], %r;\nret;\n}\n")
    m = parse_text(ptx, "nest.ptx")
    res = run_kernel(m, None, parse_arg_specs(["p=u32[2]:zeros"], m.entries()[0]), 1, 1)
    assert np.asarray(res.buffers["p"]).tolist() == [7, 5]
