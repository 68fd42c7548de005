"""Kernel-argument specs (docs/cli.md "Kernel arguments") parsed against a function's parameters."""

from __future__ import annotations

import struct

import numpy as np
import pytest

from ptxkit import ir
from ptxkit.errors import UsageError
from ptxkit.exec_sim.args import parse_arg_specs

FN = ir.Function("entry", "k", [ir.VarDecl("param", "u64", "p"), ir.VarDecl("param", "u32", "n"),
                                ir.VarDecl("param", "f32", "s"), ir.VarDecl("param", "u64", "q")])


def test_scalars_buffers_null_by_name_and_position(tmp_path):
    np.save(tmp_path / "a.npy", np.arange(6, dtype=np.int16))
    (tmp_path / "b.bin").write_bytes(np.arange(4, dtype=np.float32).tobytes())
    args = parse_arg_specs(["q=null", "1=u32:256", "s=f32:1.5", f"p=s16[6]:{tmp_path / 'a.npy'}"], FN, 0)
    assert [a.param for a in args] == ["p", "n", "s", "q"]
    assert [a.name for a in args] == ["p", "1", "s", "q"]
    assert args[0].kind == "buffer" and args[0].data.tolist() == list(range(6)) and args[0].data.dtype == np.int16
    assert args[1].value == 256 and args[2].value == struct.unpack("<I", struct.pack("<f", 1.5))[0]
    assert args[3].kind == "null"
    args = parse_arg_specs([f"0=f32[4]:{tmp_path / 'b.bin'}", "1=u32:0", "2=f32:0x3f800000", "3=u8[3]:zeros"], FN, 0)
    assert args[0].data.tolist() == [0.0, 1.0, 2.0, 3.0] and args[2].value == 0x3F800000
    assert args[3].data.tolist() == [0, 0, 0]


def test_rand_is_seeded_and_in_range():
    a = parse_arg_specs(["p=f32[1000]:rand", "n=u32:1", "s=f32:0", "q=s8[1000]:rand"], FN, 5)
    b = parse_arg_specs(["p=f32[1000]:rand", "n=u32:1", "s=f32:0", "q=s8[1000]:rand"], FN, 5)
    c = parse_arg_specs(["p=f32[1000]:rand", "n=u32:1", "s=f32:0", "q=s8[1000]:rand"], FN, 6)
    assert np.array_equal(a[0].data, b[0].data) and not np.array_equal(a[0].data, c[0].data)
    assert a[0].data.min() >= -4 and a[0].data.max() < 4
    assert a[3].data.min() < -100 and a[3].data.max() > 100  # full range for ints


@pytest.mark.parametrize("specs, needle", [
    (["p"], "expected NAME=SPEC"),
    (["x=u32:1"], "no parameter 'x'"),
    (["p=null", "p=null"], "given twice"),
    (["p=null"], "missing --arg for parameters n, s, q"),
    (["n=u32:-99999999999"], "does not fit"),
    (["n=u32:99999999999"], "does not fit"),
    (["n=f32[2]:zeros"], "not a 64-bit pointer"),
    (["p=u32[2]:/nope.bin"], "no such file"),
])
def test_bad_specs(specs, needle):
    with pytest.raises(UsageError, match=needle):
        parse_arg_specs(specs, FN, 0)


def test_negative_unsigned_is_refused_bits_take_both_ranges():
    # u32:-1 is out of the range of .u32 (issue 9: it was silently taken as 0xffffffff)
    with pytest.raises(UsageError, match="-1 does not fit in u32"):
        parse_arg_specs(["p=null", "n=u32:-1", "s=f32:0", "q=null"], FN, 0)
    args = parse_arg_specs(["p=null", "n=b32:-1", "s=f32:-0.0", "q=null"], FN, 0)
    assert args[1].value == 0xFFFFFFFF and args[2].value == 0x80000000


def test_short_file(tmp_path):
    (tmp_path / "x.bin").write_bytes(b"\0" * 7)
    with pytest.raises(UsageError, match="holds 7 bytes"):
        parse_arg_specs([f"p=u32[2]:{tmp_path / 'x.bin'}"], FN, 0)
