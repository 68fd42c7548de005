"""Tensor-core and packed-integer instructions Triton's FPSan PTX uses (issue 10): integer ``mma.sync``
(m8n8k16, m16n8k16, m16n8k32 on .s8/.u8, .satfinite), the float forms (f16/bf16/tf32, f32 and f16
accumulators), ``ldmatrix``/``stmatrix`` (.x1/.x2/.x4, .trans), ``add/min/max.{s,u}16x2`` and
``cvt.rna.tf32.f32``.

Every expected value comes from numpy references written here from the PTX ISA's text — the
"Matrix Fragments for mma.mMnNkK" tables (§9.7.14.5.7-9: groupID = %laneid >> 2, threadID_in_group =
%laneid % 4, the row/col formulas per element), the ldmatrix/stmatrix description (§9.7.14.5.15-16:
lane t holds row t/4, columns 2(t%4) and 2(t%4)+1 of each 8x8 matrix) — not from the simulator. The
kernels read their fragment registers per lane from a buffer and write the results back, so the
reference sees exactly what each lane held. Every kernel also goes through ptxas when it is on PATH.
"""

from __future__ import annotations

import shutil
import subprocess
from fractions import Fraction

import numpy as np
import pytest
from conftest import PTX_CORPUS, needs_shared

from ptxkit.corpus.triton_check import TRITON_VERSION, triton_available
from ptxkit.exec_sim import parse_arg_specs, parse_text, run_kernel
from ptxkit.exec_sim.args import KernelArg

HEADER = ".version 8.0\n.target sm_90\n.address_size 64\n"
LANES = 64  # two warps: the fragments are per warp


def _run(ptx: str, inputs: dict[str, np.ndarray], out_words: int, threads: int = LANES,
         tmp_path=None) -> np.ndarray:
    """Run kernel ``k(in, out)`` on one CTA; ``in`` holds the u32 words of ``inputs['in']``."""
    m = parse_text(ptx, "tensor.ptx")
    src = tmp_path / "in.bin"
    inputs["in"].astype(np.uint32).tofile(src)
    args = parse_arg_specs([f"in=u32[{inputs['in'].size}]:{src}", f"out=u32[{out_words}]:zeros"], m.entries()[0])
    res = run_kernel(m, None, args, 1, threads, 0)
    return res.buffers["out"].view(np.uint32)


def _ptxas(ptx: str, tmp_path) -> None:
    if shutil.which("ptxas") is None:
        return
    f = tmp_path / "k.ptx"
    f.write_text(ptx)
    r = subprocess.run(["ptxas", "-arch=sm_90", str(f), "-o", str(tmp_path / "k.cubin")],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


def _regs_kernel(body: str, n_in: int, n_out: int, extra_regs: str = "") -> str:
    """A kernel whose lane t loads %i0..%i{n_in-1} from in[t*n_in ...], runs ``body`` and stores
    %o0..%o{n_out-1} to out[t*n_out ...]."""
    loads = "".join(f"\tld.global.u32 %i{k}, [%rdi+{4 * k}];\n" for k in range(n_in))
    stores = "".join(f"\tst.global.u32 [%rdo+{4 * k}], %o{k};\n" for k in range(n_out))
    return HEADER + f""".visible .entry k(.param .u64 in, .param .u64 out)
{{
\t.reg .b32 %i<{n_in}>;
\t.reg .b32 %o<{n_out}>;
\t.reg .b32 %t;
\t.reg .b64 %rdi, %rdo, %off;
{extra_regs}\tld.param.u64 %rdi, [in];
\tld.param.u64 %rdo, [out];
\tcvta.to.global.u64 %rdi, %rdi;
\tcvta.to.global.u64 %rdo, %rdo;
\tmov.u32 %t, %tid.x;
\tmul.wide.u32 %off, %t, {4 * n_in};
\tadd.s64 %rdi, %rdi, %off;
\tmul.wide.u32 %off, %t, {4 * n_out};
\tadd.s64 %rdo, %rdo, %off;
{loads}{body}{stores}\tret;
}}
"""


# ------------------------------------------------------------------ mma: the ISA's fragment tables
def _a_place(shape: str, typ: str, i: int, g: int, q: int) -> tuple[int, int]:
    """Row and column of A element a_i held by the lane (groupID g, threadID_in_group q)."""
    if typ in ("s8", "u8"):
        if shape == "m8n8k16":            # row = groupID; col = tig*4 + i
            return g, q * 4 + i
        if shape == "m16n8k16":           # row = g for i < 4, g+8 for i >= 4; col = tig*4 + (i & 3)
            return (g if i < 4 else g + 8), q * 4 + (i & 3)
        # m16n8k32: row = g for 0 <= i < 4 || 8 <= i < 12, else g+8; col = tig*4 + (i & 3) (+16 for i >= 8)
        row = g if (i < 4 or 8 <= i < 12) else g + 8
        return row, q * 4 + (i & 3) + (16 if i >= 8 else 0)
    if typ == "tf32":
        if shape == "m16n8k4":            # row = g for a0, g+8 for a1; col = tig
            return g + 8 * i, q
        # m16n8k8: row = g for a0 and a2, g+8 for a1 and a3; col = tig for a0, a1, tig+4 for a2, a3
        return (g if i in (0, 2) else g + 8), (q if i < 2 else q + 4)
    if shape == "m16n8k8":                # f16/bf16: row = g for a0, a1, g+8 for a2, a3; col = tig*2 + (i & 1)
        return (g if i < 2 else g + 8), q * 2 + (i & 1)
    # m16n8k16: row = g for 0 <= i < 2 || 4 <= i < 6, else g+8; col = tig*2 + (i & 1) (+8 for i >= 4)
    row = g if (i < 2 or 4 <= i < 6) else g + 8
    return row, q * 2 + (i & 1) + (8 if i >= 4 else 0)


def _b_place(shape: str, typ: str, i: int, g: int, q: int) -> tuple[int, int]:
    """Row and column of B element b_i; col = groupID in every table."""
    if typ in ("s8", "u8"):
        if shape == "m16n8k32":           # row = tig*4 + (i & 3) (+16 for i >= 4)
            return q * 4 + (i & 3) + (16 if i >= 4 else 0), g
        return q * 4 + i, g               # m8n8k16 / m16n8k16: row = tig*4 + i
    if typ == "tf32":
        return (q if i == 0 else q + 4), g  # m16n8k8: b0 row tig, b1 row tig+4 (m16n8k4: b0 only)
    if shape == "m16n8k8":
        return q * 2 + i, g               # row = tig*2 + i
    return q * 2 + (i & 1) + (8 if i >= 2 else 0), g  # m16n8k16


def _c_place(shape: str, i: int, g: int, q: int) -> tuple[int, int]:
    if shape == "m8n8k16":                # c0, c1: row = groupID, col = tig*2 + i
        return g, q * 2 + i
    return (g if i < 2 else g + 8), q * 2 + (i & 1)  # c0, c1 row g; c2, c3 row g+8


SHAPES = {"m8n8k16": (8, 8, 16), "m16n8k16": (16, 8, 16), "m16n8k32": (16, 8, 32),
          "m16n8k8": (16, 8, 8), "m16n8k4": (16, 8, 4)}
PER_REG = {"s8": 4, "u8": 4, "f16": 2, "bf16": 2, "tf32": 1, "f32": 1, "s32": 1}


def _elems(shape: str, role: str, typ: str) -> int:
    m, n, k = SHAPES[shape]
    return {"a": m * k, "b": k * n, "c": m * n}[role] // 32


def _split(words: np.ndarray, typ: str) -> np.ndarray:
    """[lane, register] words → [lane, element] raw element bits (elements low to high in a register)."""
    per = PER_REG[typ]
    bits = 32 // per
    out = np.zeros((words.shape[0], words.shape[1] * per), np.uint64)
    for r in range(words.shape[1]):
        for e in range(per):
            out[:, r * per + e] = (words[:, r].astype(np.uint64) >> np.uint64(e * bits)) & np.uint64((1 << bits) - 1)
    return out


def _value(raw: int, typ: str):
    if typ == "s8":
        return raw - 256 if raw >= 128 else raw
    if typ in ("u8",):
        return raw
    if typ == "s32":
        return raw - 2 ** 32 if raw >= 2 ** 31 else raw
    if typ == "f16":
        return Fraction(float(np.uint16(raw).view(np.float16)))
    if typ == "bf16":
        return Fraction(float(np.uint32(raw << 16).view(np.float32)))
    return Fraction(float(np.uint32(raw).view(np.float32)))  # tf32 test values have zero low bits; f32


def _mma_reference(shape, dtype, atype, btype, a_words, b_words, c_words, satfinite=False):
    """D fragments [lane, register] from the lanes' A/B/C registers, per warp, through the ISA tables."""
    m, n, k = SHAPES[shape]
    lanes = a_words.shape[0]
    a_el, b_el, c_el = _split(a_words, atype), _split(b_words, btype), _split(c_words, dtype)
    d_el = np.zeros_like(c_el)
    for w in range(lanes // 32):
        A = [[None] * k for _ in range(m)]
        B = [[None] * n for _ in range(k)]
        C = [[None] * n for _ in range(m)]
        for t in range(32):
            g, q = t >> 2, t % 4
            for i in range(a_el.shape[1]):
                r, c = _a_place(shape, atype, i, g, q)
                A[r][c] = _value(int(a_el[32 * w + t, i]), atype)
            for i in range(b_el.shape[1]):
                r, c = _b_place(shape, btype, i, g, q)
                B[r][c] = _value(int(b_el[32 * w + t, i]), btype)
            for i in range(c_el.shape[1]):
                r, c = _c_place(shape, i, g, q)
                C[r][c] = _value(int(c_el[32 * w + t, i]), dtype)
        assert all(x is not None for row in A + B + C for x in row), "a table left a matrix element unset"
        for t in range(32):
            g, q = t >> 2, t % 4
            for i in range(c_el.shape[1]):
                r, c = _c_place(shape, i, g, q)
                v = sum(A[r][j] * B[j][c] for j in range(k)) + C[r][c]
                if dtype == "s32":
                    v = max(-2 ** 31, min(2 ** 31 - 1, v)) if satfinite else v
                    bits = int(v) & 0xFFFFFFFF
                elif dtype == "f16":
                    bits = int(np.float16(float(v)).view(np.uint16))  # the test values sum exactly
                else:
                    bits = int(np.float32(float(v)).view(np.uint32))
                d_el[32 * w + t, i] = bits
    per = PER_REG[dtype]
    words = np.zeros((lanes, d_el.shape[1] // per), np.uint64)
    for r in range(words.shape[1]):
        for e in range(per):
            words[:, r] |= d_el[:, r * per + e] << np.uint64(e * (32 // per))
    return words.astype(np.uint32)


def _mma_kernel(opcode: str, na: int, nb: int, nc: int) -> str:
    regs = lambda lo, n: ", ".join(f"%i{lo + j}" for j in range(n))  # noqa: E731
    d = ", ".join(f"%o{j}" for j in range(nc))
    body = f"\t{opcode} {{{d}}}, {{{regs(0, na)}}}, {{{regs(na, nb)}}}, {{{regs(na + nb, nc)}}};\n"
    return _regs_kernel(body, na + nb + nc, nc)


def _random_words(rng, lanes: int, n: int, typ: str) -> np.ndarray:
    """Register contents whose elements are small integers in ``typ`` (float sums then stay exact)."""
    if typ in ("s8", "u8"):
        return rng.integers(0, 2 ** 32, (lanes, n), dtype=np.uint64).astype(np.uint32)
    if typ == "s32":
        return rng.integers(-2 ** 31, 2 ** 31, (lanes, n)).astype(np.int64).astype(np.uint32)
    vals = rng.integers(-8, 9, (lanes, n * PER_REG[typ])).astype(np.float32)
    if typ in ("f32", "tf32"):
        return vals.view(np.uint32)
    if typ == "f16":
        return vals.astype(np.float16).view(np.uint16).reshape(lanes, n, 2).astype(np.uint32) \
            .transpose(2, 0, 1)[0] | (vals.astype(np.float16).view(np.uint16).reshape(lanes, n, 2)
                                       .astype(np.uint32)[:, :, 1] << 16)
    bf = (vals.view(np.uint32) >> 16).reshape(lanes, n, 2)  # bf16: the high half of the f32
    return bf[:, :, 0] | (bf[:, :, 1] << 16)


INT_MMA = [(shape, a, b, sat) for shape in ("m8n8k16", "m16n8k16", "m16n8k32")
           for a, b in (("s8", "s8"), ("u8", "u8"), ("s8", "u8"), ("u8", "s8")) for sat in (False, True)]


@pytest.mark.parametrize("shape,atype,btype,satfinite", INT_MMA)
def test_integer_mma_follows_the_isa_fragment_tables(shape, atype, btype, satfinite, tmp_path):
    na, nb, nc = (_elems(shape, r, t) // PER_REG[t] for r, t in (("a", atype), ("b", btype), ("c", "s32")))
    sat = ".satfinite" if satfinite else ""
    opcode = f"mma.sync.aligned.{shape}.row.col{sat}.s32.{atype}.{btype}.s32"
    ptx = _mma_kernel(opcode, na, nb, nc)
    _ptxas(ptx, tmp_path)
    rng = np.random.default_rng(hash((shape, atype, btype)) & 0xFFFF)
    a, b = _random_words(rng, LANES, na, atype), _random_words(rng, LANES, nb, btype)
    c = _random_words(rng, LANES, nc, "s32")
    c[:4] = np.uint32(0x7FFFFF00)  # near the top: the sum overflows .s32 (wraps, or saturates)
    got = _run(ptx, {"in": np.concatenate([a, b, c], axis=1).reshape(-1)}, LANES * nc, tmp_path=tmp_path)
    want = _mma_reference(shape, "s32", atype, btype, a, b, c, satfinite)
    assert np.array_equal(got.reshape(LANES, nc), want)


FLOAT_MMA = [("m16n8k16", "f32", "f16"), ("m16n8k16", "f32", "bf16"), ("m16n8k8", "f32", "f16"),
             ("m16n8k8", "f32", "bf16"), ("m16n8k8", "f16", "f16"), ("m16n8k16", "f16", "f16"),
             ("m16n8k8", "f32", "tf32"), ("m16n8k4", "f32", "tf32")]


@pytest.mark.parametrize("shape,dtype,itype", FLOAT_MMA)
def test_float_mma_follows_the_isa_fragment_tables(shape, dtype, itype, tmp_path):
    """Small-integer values: every product and sum is exact, so the one rounding cannot hide a
    misplaced element and the comparison is bit for bit."""
    na, nb, nc = (_elems(shape, r, t) // PER_REG[t] for r, t in (("a", itype), ("b", itype), ("c", dtype)))
    ptx = _mma_kernel(f"mma.sync.aligned.{shape}.row.col.{dtype}.{itype}.{itype}.{dtype}", na, nb, nc)
    _ptxas(ptx, tmp_path)
    rng = np.random.default_rng(7)
    a, b = _random_words(rng, LANES, na, itype), _random_words(rng, LANES, nb, itype)
    c = _random_words(rng, LANES, nc, dtype)
    got = _run(ptx, {"in": np.concatenate([a, b, c], axis=1).reshape(-1)}, LANES * nc, tmp_path=tmp_path)
    want = _mma_reference(shape, dtype, itype, itype, a, b, c)
    assert np.array_equal(got.reshape(LANES, nc), want)


def test_tf32_operand_ignores_the_low_mantissa_bits(tmp_path):
    """A .tf32 operand is the register's f32 bits with the 13 low mantissa bits unused: A = 1 + 2^-23
    (only a low bit set) times B = 1 gives exactly C + 1."""
    ptx = _mma_kernel("mma.sync.aligned.m16n8k4.row.col.f32.tf32.tf32.f32", 2, 1, 4)
    words = np.zeros((LANES, 7), np.uint32)
    words[:, 0:2] = np.float32(1.0).view(np.uint32) + 1  # a0, a1
    words[:, 2] = np.float32(1.0).view(np.uint32)        # b0
    got = _run(ptx, {"in": words.reshape(-1)}, LANES * 4, tmp_path=tmp_path).view(np.float32)
    assert np.all(got == 4.0)  # k = 4: four products 1 x 1


# ------------------------------------------------------------------ ldmatrix / stmatrix
def _ldst_kernel(kind: str, num: int, trans: bool) -> str:
    """in = [the rows of both warps: 2 x 8*num rows of 8 b16] + [row index per thread] + [num fragment
    words per thread]. Each warp has its rows in shared memory; thread t points at row in[rows + t] of
    its warp. ``ld``: ldmatrix, out[t*num + j] = register j. ``st``: stmatrix of the thread's fragment
    words, then out = the rows of both warps."""
    t = ".trans" if trans else ""
    regs = ", ".join(f"%o{j}" for j in range(num))
    words = 4 * 8 * num  # u32 words of one warp's rows
    if kind == "ld":
        fill = "\tld.global.u32 %v, [%g];\n\tst.shared.u32 [%s], %v;\n"
        op = f"\tldmatrix.sync.aligned.m8n8.x{num}{t}.shared.b16 {{{regs}}}, [%sa];\n"
        op += "".join(f"\tst.global.u32 [%rdo+{4 * j}], %o{j};\n" for j in range(num))
        dump = ""
    else:
        fill = ""
        op = "".join(f"\tld.global.u32 %o{j}, [%rdi+{4 * j}];\n" for j in range(num))
        op += f"\tstmatrix.sync.aligned.m8n8.x{num}{t}.shared.b16 [%sa], {{{regs}}};\n\tbar.sync 0;\n"
        dump = "\tld.shared.u32 %v, [%s];\n\tst.global.u32 [%g2], %v;\n"
    loop = lambda name, body: f"""\tmov.u32 %k, %lane;
{name}:
\tmad.lo.u32 %s, %k, 4, %sw;
\tmad.lo.u32 %v, %warp, {words}, %k;
\tmul.wide.u32 %off, %v, 4;
\tadd.s64 %g, %base, %off;
\tadd.s64 %g2, %out, %off;
{body}\tadd.u32 %k, %k, 32;
\tsetp.lt.u32 %more, %k, {words};
\t@%more bra {name};
"""  # noqa: E731
    return HEADER + f""".visible .entry k(.param .u64 in, .param .u64 out)
{{
\t.shared .align 16 .b8 rows[{2 * 4 * words}];
\t.reg .b32 %o<{num}>;
\t.reg .b32 %t, %lane, %warp, %k, %v, %p, %s, %sa, %sw;
\t.reg .pred %more;
\t.reg .b64 %base, %out, %rdi, %rdo, %off, %g, %g2;
\tld.param.u64 %base, [in];
\tld.param.u64 %out, [out];
\tcvta.to.global.u64 %base, %base;
\tcvta.to.global.u64 %out, %out;
\tmov.u32 %t, %tid.x;
\tand.b32 %lane, %t, 31;
\tshr.u32 %warp, %t, 5;
\tmov.u32 %sw, rows;
\tmad.lo.u32 %sw, %warp, {4 * words}, %sw;
\tmul.wide.u32 %off, %t, {4 * num};
\tadd.s64 %rdi, %base, %off;
\tadd.s64 %rdi, %rdi, {4 * (2 * words + 64)};
\tadd.s64 %rdo, %out, %off;
{loop("FILL", fill) if fill else ""}\tbar.sync 0;
\tmul.wide.u32 %off, %t, 4;
\tadd.s64 %g, %base, %off;
\tld.global.u32 %p, [%g+{4 * 2 * words}];
\tmad.lo.u32 %sa, %p, 16, %sw;
{op}{loop("DUMP", dump) if dump else ""}\tret;
}}
"""


def _frag_of(rows: np.ndarray, trans: bool) -> np.ndarray:
    """Fragment words [lane] of one 8x8 b16 matrix ``rows`` (as stored): lane t holds the row t/4,
    columns 2(t%4), 2(t%4)+1 of the matrix — of its transpose with .trans."""
    mat = rows.T if trans else rows
    t = np.arange(32)
    lo, hi = mat[t // 4, 2 * (t % 4)], mat[t // 4, 2 * (t % 4) + 1]
    return lo.astype(np.uint32) | (hi.astype(np.uint32) << 16)


@pytest.mark.parametrize("num", [1, 2, 4])
@pytest.mark.parametrize("trans", [False, True])
def test_ldmatrix_follows_the_isa(num, trans, tmp_path):
    rng = np.random.default_rng(num * 2 + trans)
    words = 4 * 8 * num
    data = rng.integers(0, 2 ** 32, 2 * words, dtype=np.uint64).astype(np.uint32)  # both warps' rows
    perm = [rng.permutation(8 * num) for _ in range(2)]
    provider = np.zeros(64, np.uint32)  # threads past 8*num give an address the ISA ignores
    provider[:8 * num], provider[32:32 + 8 * num] = perm
    ptx = _ldst_kernel("ld", num, trans)
    _ptxas(ptx, tmp_path)
    got = _run(ptx, {"in": np.concatenate([data, provider])}, 64 * num, tmp_path=tmp_path).reshape(64, num)
    for w in range(2):
        halves = data[w * words:(w + 1) * words].view(np.uint16).reshape(8 * num, 8)  # the warp's rows
        for j in range(num):
            mat = halves[perm[w][8 * j:8 * j + 8]]  # matrix j: the rows its eight providers point at
            assert np.array_equal(got[32 * w:32 * w + 32, j], _frag_of(mat, trans)), (w, j)


@pytest.mark.parametrize("num", [1, 2, 4])
@pytest.mark.parametrize("trans", [False, True])
def test_stmatrix_follows_the_isa(num, trans, tmp_path):
    rng = np.random.default_rng(10 + num * 2 + trans)
    words = 4 * 8 * num
    perm = [rng.permutation(8 * num) for _ in range(2)]
    provider = np.zeros(64, np.uint32)
    provider[:8 * num], provider[32:32 + 8 * num] = perm
    frags = rng.integers(0, 2 ** 32, (64, num), dtype=np.uint64).astype(np.uint32)
    inp = np.concatenate([np.zeros(2 * words, np.uint32), provider, frags.reshape(-1)])
    ptx = _ldst_kernel("st", num, trans)
    _ptxas(ptx, tmp_path)
    got = _run(ptx, {"in": inp}, 2 * words, tmp_path=tmp_path)
    for w in range(2):
        want = np.zeros((8 * num, 8), np.uint16)
        for j in range(num):
            mat = np.zeros((8, 8), np.uint16)  # scatter each lane's element pair to (row t/4, cols 2(t%4)+h)
            for t in range(32):
                v = int(frags[32 * w + t, j])
                for h in range(2):
                    mat[t // 4, 2 * (t % 4) + h] = (v >> (16 * h)) & 0xFFFF
            stored = mat.T if trans else mat
            for r in range(8):
                want[perm[w][8 * j + r]] = stored[r]
        assert np.array_equal(got[w * words:(w + 1) * words].view(np.uint16).reshape(8 * num, 8), want), w


# ------------------------------------------------------------------ add/min/max on 16x2
@pytest.mark.parametrize("opcode", ["add.s16x2", "add.u16x2", "min.s16x2", "min.u16x2", "max.s16x2",
                                    "max.u16x2", "min.relu.s16x2", "max.relu.s16x2"])
def test_packed_16x2_integer_ops(opcode, tmp_path):
    ptx = _regs_kernel(f"\t{opcode} %o0, %i0, %i1;\n", 2, 1)
    _ptxas(ptx, tmp_path)
    rng = np.random.default_rng(3)
    words = rng.integers(0, 2 ** 32, (LANES, 2), dtype=np.uint64).astype(np.uint32)
    words[0] = [0x7FFF8000, 0x00018000]  # the wrap of both halves
    words[1] = [0xFFFF0001, 0x0001FFFF]
    got = _run(ptx, {"in": words.reshape(-1)}, LANES, tmp_path=tmp_path)
    signed = opcode.endswith("s16x2")
    want = np.zeros(LANES, np.uint32)
    for t in range(LANES):
        r = 0
        for h in range(2):
            x, y = (int(words[t, 0]) >> (16 * h)) & 0xFFFF, (int(words[t, 1]) >> (16 * h)) & 0xFFFF
            if signed:
                x, y = (x - 65536 if x >= 32768 else x), (y - 65536 if y >= 32768 else y)
            v = x + y if opcode.startswith("add") else (min(x, y) if opcode.startswith("min") else max(x, y))
            if ".relu" in opcode:
                v = max(v, 0)
            r |= (v & 0xFFFF) << (16 * h)
        want[t] = r
    assert np.array_equal(got, want)


# ------------------------------------------------------------------ cvt.rna.tf32.f32
def _tf32_rna(bits: int) -> int:
    """The tf32 (sign, 8-bit exponent, 10-bit mantissa) value nearest to the f32 ``bits``, ties away
    from zero, as the f32 bits of it; chosen by exact comparison of the two tf32 neighbours."""
    x = np.uint32(bits).view(np.float32)
    if not np.isfinite(x):
        return bits & 0xFFFFE000
    lo = bits & 0xFFFFE000  # toward zero
    hi = lo + 0x2000        # away from zero (may carry into the exponent, up to infinity)
    fx, flo = Fraction(float(x)), Fraction(float(np.uint32(lo).view(np.float32)))
    hv = np.uint32(hi).view(np.float32)
    if not np.isfinite(hv):
        # beyond the largest tf32: nearest-away rounds to infinity from the midpoint up
        top = flo + (flo - Fraction(float(np.uint32(lo - 0x2000).view(np.float32))))
        return hi if abs(fx) >= abs((flo + top) / 2) else lo
    fhi = Fraction(float(hv))
    return hi if abs(fx - fhi) <= abs(fx - flo) else lo


def test_cvt_rna_tf32_rounds_to_nearest_ties_away(tmp_path):
    ptx = _regs_kernel("\tcvt.rna.tf32.f32 %o0, %i0;\n", 1, 1)
    _ptxas(ptx, tmp_path)
    rng = np.random.default_rng(5)
    n = 4 * 32
    words = rng.integers(0, 2 ** 32, n, dtype=np.uint64).astype(np.uint32)
    special = [0x3F800000, 0x3F801000, 0x3F803000, 0xBF801000, 0x3F800FFF, 0x7F7FFFFF, 0x7F7FEFFF,
               0x00001000, 0x80001FFF, 0x7F800000, 0xFF800000, 0x7FC00001, 0x00000000, 0x80000000]
    words[:len(special)] = special
    words = np.where((words & 0x7F800000) == 0x7F800000, np.uint32(0x7FC00000), words)  # random NaNs: one quiet NaN
    words[:len(special)] = special
    got = _run(ptx, {"in": words}, n, threads=n, tmp_path=tmp_path)
    want = np.array([_tf32_rna(int(w)) for w in words], np.uint32)
    assert np.array_equal(got, want), [(hex(w), hex(g), hex(v)) for w, g, v in zip(words, got, want) if g != v][:5]
    assert got[0] == 0x3F800000 and got[1] == 0x3F802000 and got[2] == 0x3F804000  # ties away from zero
    assert got[5] == 0x7F800000  # the largest f32 rounds up to infinity



# ------------------------------------------------------------------ wgmma on Triton's own sm_90 output
@pytest.mark.skipif(triton_available() != TRITON_VERSION, reason=f"Triton {TRITON_VERSION} not installed")
def test_wgmma_runs_tritons_64x64_dot():
    """Triton 3.9's plain sm_90 tl.dot of 64x32 by 32x64 f16 (two wgmma.mma_async.m64n64k16 reading both
    operands through shared-memory descriptors: A K-major with 64-byte swizzle, B MN-major with 128-byte
    swizzle, the second step starting inside a swizzled row; scale-d 0 then a predicate): with
    small-integer inputs every sum is exact, so the simulator must give numpy's A @ B bit for bit."""
    from ptxkit.corpus.triton_check import compile_ptx
    from ptxkit.corpus.triton_kernels import single_op_matrix

    spec = next(k for k in single_op_matrix() if k.name == "k_dot64x64x32_f16_default_w4")
    comp = compile_ptx(spec, "")
    assert "wgmma.mma_async" in comp.ptx and comp.shared > 0
    rng = np.random.default_rng(0)
    a = rng.integers(-4, 5, (64, 32)).astype(np.float16)
    b = rng.integers(-4, 5, (32, 64)).astype(np.float16)
    got = _run_triton_dot(comp, spec.num_warps, a, b).reshape(64, 64)
    assert np.array_equal(got, (a.astype(np.float64) @ b.astype(np.float64)).astype(np.float32))


def _run_triton_dot(comp, num_warps: int, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Run a compiled Triton dot kernel (params a, b, out f32, then scratch pointers passed as NULL) on
    the simulator; returns ``out`` as float32, flat."""
    raw, dt = {2: ("u16", np.uint16), 8: ("u64", np.uint64)}[a.itemsize]
    m = parse_text(comp.ptx, "dot.ptx")
    p = m.entries()[0].params
    n_out = a.shape[0] * b.shape[1]
    args = [KernelArg("a", 0, p[0].name, "buffer", raw, data=a.view(dt).reshape(-1).copy()),
            KernelArg("b", 1, p[1].name, "buffer", raw, data=b.view(dt).reshape(-1).copy()),
            KernelArg("out", 2, p[2].name, "buffer", "u32", data=np.zeros(n_out, np.uint32))]
    args += [KernelArg(q.name, i, q.name, "null", "u64") for i, q in enumerate(p[3:], 3)]
    res = run_kernel(m, None, args, 1, 32 * num_warps, comp.shared)
    return res.buffers["out"].view(np.float32)


@pytest.mark.skipif(triton_available() != TRITON_VERSION, reason=f"Triton {TRITON_VERSION} not installed")
def test_f64_mma_runs_tritons_f64_dot():
    """Triton 3.9's plain f64 tl.dot 16x16x16 (generator kernel 56: four mma.sync.m8n8k4.f64 steps per
    warp, then a cast through bf16): small integers keep every sum exact and representable in bf16, so
    the simulator must give numpy's A @ B bit for bit."""
    from ptxkit.corpus.triton_check import compile_ptx
    from ptxkit.corpus.triton_kernels import generate

    spec = generate(56)
    comp = compile_ptx(spec, "")
    assert "mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64" in comp.ptx
    rng = np.random.default_rng(1)
    a = rng.integers(-2, 3, (16, 16)).astype(np.float64)
    b = rng.integers(-2, 3, (16, 16)).astype(np.float64)
    got = _run_triton_dot(comp, spec.num_warps, a, b).reshape(16, 16)
    assert np.array_equal(got, (a @ b).astype(np.float32))


# ------------------------------------------------------------------ ZLUDA's kernels (written against NVIDIA GPUs)
def _zluda_packed(t: int) -> tuple[list[int], int, int, list[int]]:
    """Thread t of ZLUDA's mma_m16n8k32 tests: in_j = 16t + j (u16), packed by its pack_u8 (a .func taking a
    .v4.u16 .reg parameter) as in0 | in1 << 8 | in2 << 16 | in3 << 24 in 32 bits (the shifts overlap)."""
    ins = [(16 * t + j) & 0xFFFF for j in range(16)]

    def pack(v: list[int]) -> int:
        return (v[0] | v[1] << 8 | v[2] << 16 | v[3] << 24) & 0xFFFFFFFF

    return [pack(ins[4 * k:4 * k + 4]) for k in range(4)], pack(ins[0:4]), pack(ins[4:8]), ins[0:4]


@needs_shared
@pytest.mark.parametrize("variant", ["", "_interleave"])
def test_zluda_mma_m16n8k32_s8(variant):
    """mma_m16n8k32_s32_s8_s8_s32{,_interleave}.ptx, 64 threads: each mma against the ISA reference on
    the registers the kernel builds (the interleave variant permutes A's and B's registers)."""
    from ptxkit.exec_sim import load_module
    path = PTX_CORPUS / "zluda" / "ptx" / "src" / "test" / "spirv_run" / f"mma_m16n8k32_s32_s8_s8_s32{variant}.ptx"
    m = load_module(path)
    fn = m.entries()[0]
    outs = 16 if variant else 4
    res = run_kernel(m, None, [KernelArg("out", 0, fn.params[0].name, "buffer", "u8",
                                         data=np.zeros(64 * 4 * outs, np.uint8))], 1, 64, 0)
    got = res.buffers["out"].view(np.uint32).reshape(64, outs)
    regs = [_zluda_packed(t) for t in range(64)]
    a = np.array([r[0] for r in regs], np.uint32)
    b_lo, b_hi = np.array([r[1] for r in regs], np.uint32), np.array([r[2] for r in regs], np.uint32)
    c = np.array([r[3] for r in regs], np.uint32)
    if not variant:
        calls = [(a, np.stack([b_lo, b_lo], 1))]
    else:  # d0..3: A, {b0..3, b4..7}; d4..7: A reversed, B swapped; d8..11: A, B swapped;
        # d12..15: A reversed, {b0..3, b0..3}
        calls = [(a, np.stack([b_lo, b_hi], 1)), (a[:, ::-1], np.stack([b_hi, b_lo], 1)),
                 (a, np.stack([b_hi, b_lo], 1)), (a[:, ::-1], np.stack([b_lo, b_lo], 1))]
    want = np.concatenate([_mma_reference("m16n8k32", "s32", "s8", "s8", np.ascontiguousarray(aa), bb, c)
                           for aa, bb in calls], axis=1)
    assert np.array_equal(got, want)


@needs_shared
def test_zluda_ldmatrix_trans():
    """ldmatrix_trans.ptx, one warp: four 8x8 matrices of its .global initialiser copied to shared memory,
    thread t pointing at row t; out[16t + 2j], out[16t + 2j + 1] = register j's halves."""
    import re

    from ptxkit.exec_sim import load_module
    path = PTX_CORPUS / "zluda" / "ptx" / "src" / "test" / "spirv_run" / "ldmatrix_trans.ptx"
    text = path.read_text()
    init = text[text.index("values_g[256] = {"):text.index("};")]
    body = re.sub(r"//[^\n]*", "", init.split("{", 1)[1])  # the "// matrix i" comments
    values = np.array([int(x) for x in re.findall(r"\d+", body)], np.uint16)
    assert values.size == 256
    m = load_module(path)
    fn = m.entries()[0]
    res = run_kernel(m, None, [KernelArg("out", 0, fn.params[0].name, "buffer", "u8",
                                         data=np.zeros(32 * 32, np.uint8))], 1, 32, 0)
    got = res.buffers["out"].view(np.uint16).reshape(32, 16)[:, ::2]  # st.b16 every 4 bytes
    for j in range(4):
        words = _frag_of(values[64 * j:64 * j + 64].reshape(8, 8), True)
        assert np.array_equal(got[:, 2 * j], words & 0xFFFF) and np.array_equal(got[:, 2 * j + 1], words >> 16), j


def _run_triton(spec, arrays: dict[str, np.ndarray], out_dtype, n_out: int) -> np.ndarray:
    """Triton's plain build of ``spec`` on the simulator: ``arrays`` for the leading pointer parameters,
    then the output buffer, then NULL scratch pointers."""
    from ptxkit.corpus.triton_check import compile_ptx
    comp = compile_ptx(spec, "")
    m = parse_text(comp.ptx, f"{spec.name}.ptx")
    p = m.entries()[0].params
    uint = {2: np.uint16, 4: np.uint32, 8: np.uint64}
    args = [KernelArg(name, i, p[i].name, "buffer", f"u{8 * a.itemsize}",
                      data=a.view(uint[a.itemsize]).reshape(-1).copy()) for i, (name, a) in enumerate(arrays.items())]
    k, ob = len(arrays), np.dtype(out_dtype).itemsize
    args.append(KernelArg("out", k, p[k].name, "buffer", f"u{8 * ob}", data=np.zeros(n_out, uint[ob])))
    args += [KernelArg(q.name, i, q.name, "null", "u64") for i, q in enumerate(p[k + 1:], k + 1)]
    res = run_kernel(m, None, args, 1, 32 * spec.num_warps, comp.shared)
    return res.buffers["out"].view(out_dtype)


@pytest.mark.skipif(triton_available() != TRITON_VERSION, reason=f"Triton {TRITON_VERSION} not installed")
def test_wgmma_with_a_in_registers_bf16_and_tf32():
    """Generator kernels 54 (bf16 64x64x32 dot, A = bf16(a*a + a) in registers, B through a descriptor,
    floor to f64) and 70 (tf32x3 dot with C: wgmma.m64n64k8.tf32 with A in registers and cvt.rna.tf32
    splits, then min(d*d, fma(d, d, d)) in f16): small integers keep everything exact."""
    from ptxkit.corpus.triton_kernels import generate

    rng = np.random.default_rng(2)
    a, b = rng.integers(-2, 3, (64, 32)).astype(np.float32), rng.integers(-2, 3, (32, 64)).astype(np.float32)
    bf16 = lambda x: (x.view(np.uint32) >> 16).astype(np.uint16)  # noqa: E731  (exact for these values)
    got = _run_triton(generate(54), {"a": bf16(a), "b": bf16(b)}, np.float64, 4096).reshape(64, 64)
    assert np.array_equal(got, np.floor((a * a + a).astype(np.float64) @ b.astype(np.float64)))
    a, b = rng.integers(-1, 2, (64, 32)).astype(np.float32), rng.integers(-1, 2, (32, 64)).astype(np.float32)
    c = rng.integers(-2, 3, (64, 64)).astype(np.float32)
    got = _run_triton(generate(70), {"a": a, "b": b, "c": c}, np.float16, 4096).reshape(64, 64)
    d = a.astype(np.float64) @ b + c
    assert np.array_equal(got, np.minimum(d * d, d * d + d).astype(np.float16))
