"""The mma.sync expansion (ptxkit/fpsan/mma.py) against a numpy GEMM in the FPSan ring.

The expansion's integer PTX is executed here by a deliberately tiny 32-lane interpreter of exactly
the instructions it emits (so this test does not depend on the simulator), with A/B/C distributed to
the lanes by the fragment layouts written out again below from the PTX ISA text (§9.7.14.5.8), and
compared to ``Σ_k sext(E(A))·sext(E(B)) + E(C)`` computed on whole matrices with ptxkit.fpsan.ring
(fpsan.md §2 "dot / mma"). The end-to-end check on the real simulator is in test_equiv_pairs.py
(mma tile vs naive loop) and the Triton dot16 vectors.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

from ptxkit.fpsan.mma import MmaNotModelled, expand_mma, phi, phi_inv
from ptxkit.ir import Instruction, Reg, Vec

ring = pytest.importorskip("ptxkit.fpsan.ring")

M32 = 0xFFFFFFFF


class Lanes:
    """32 lanes of 32-bit registers and predicates; runs the expansion's instruction subset."""

    def __init__(self, regs: dict[str, np.ndarray]):
        self.r = {k: v.astype(np.uint64) for k, v in regs.items()}
        self.r["%laneid"] = np.arange(32, dtype=np.uint64)

    def val(self, tok: str) -> np.ndarray:
        tok = tok.strip()
        if tok in self.r:
            return self.r[tok]
        return np.full(32, int(tok, 0) & M32, dtype=np.uint64)

    def run(self, lines: list[str]) -> None:
        for line in lines:
            line = line.strip()
            if line in ("{", "}") or line.startswith(".reg"):
                continue
            m = re.match(r"([\w.]+)\s+(.*);$", line)
            assert m, line
            if m.group(1).startswith("mma."):
                groups = re.findall(r"\{([^}]*)\}", m.group(2))
                run = self.int_mma if ".s32." in m.group(1) else self.mma
                run(m.group(1), [[x.strip() for x in v.split(",")] for v in groups])
                continue
            op, ops = m.group(1), [o.strip() for o in m.group(2).split(",")]
            d = ops[0]
            if op == "mov.b32" and d.startswith("{"):  # split into 16-bit halves {lo, hi}
                v = self.val(ops[2])
                self.r[d[1:].strip()] = v & np.uint64(0xFFFF)
                self.r[ops[1].rstrip("}").strip()] = (v >> np.uint64(16)) & np.uint64(0xFFFF)
                continue
            if op.startswith("shfl.sync.idx"):
                v, lane = self.val(ops[1]), self.val(ops[2]).astype(np.int64)
                self.r[d] = v[lane & 31]
                continue
            a = [self.val(o) for o in ops[1:]]
            if op in ("mov.b32", "mov.u32"):
                res = a[0]
            elif op == "and.b32":
                res = a[0] & a[1]
            elif op == "or.b32":
                res = a[0] | a[1]
            elif op == "xor.b32":
                res = a[0] ^ a[1]
            elif op == "shl.b32":
                res = a[0] << a[1]
            elif op == "shr.u32":
                res = a[0] >> a[1]
            elif op == "shr.s32":
                signed = a[0].astype(np.uint32).view(np.int32).astype(np.int64)
                res = (signed >> a[1].astype(np.int64)).astype(np.uint64)
            elif op == "add.u32":
                res = a[0] + a[1]
            elif op in ("mul.lo.u32", "mul.lo.s32"):  # the same low 32 bits
                res = a[0] * a[1]
            elif op == "mad.lo.u32":
                res = a[0] * a[1] + a[2]
            elif op == "mad.wide.s16":  # signed 16x16 -> 32 product plus a 32-bit addend
                s16 = [(x & np.uint64(0xFFFF)).astype(np.uint16).view(np.int16).astype(np.int64) for x in a[:2]]
                res = ((s16[0] * s16[1]).astype(np.uint64) + a[2])
            elif op == "sub.rn.f16x2":  # IEEE half arithmetic per 16-bit lane
                halves = []
                for sh in (0, 16):
                    x, y = ((v >> np.uint64(sh)) & np.uint64(0xFFFF) for v in a)
                    dx = x.astype(np.uint16).view(np.float16) - y.astype(np.uint16).view(np.float16)
                    halves.append(dx.astype(np.float16).view(np.uint16).astype(np.uint64) << np.uint64(sh))
                res = halves[0] | halves[1]
            elif op == "cvt.rn.f32.u32":  # byte limbs only: exact
                res = a[0].astype(np.float32).view(np.uint32).astype(np.uint64)
            elif op == "prmt.b32":  # default mode: byte n of the result is byte sel[4n+3:4n] & 7 of {b, a}
                src = a[0] | (a[1] << np.uint64(32))
                sel = int(ops[3], 0)
                res = np.zeros(32, np.uint64)
                for n in range(4):
                    b = (sel >> (4 * n)) & 7
                    res |= ((src >> np.uint64(8 * b)) & np.uint64(0xFF)) << np.uint64(8 * n)
            elif op == "bfe.u32":
                res = (a[0] >> a[1]) & ((np.uint64(1) << a[2]) - np.uint64(1))
            elif op == "cvt.rni.s32.f32":
                f = a[0].astype(np.uint32).view(np.float32).astype(np.float64)
                res = np.rint(f).astype(np.int64).astype(np.uint64)
            elif op == "add.u32":
                res = a[0] + a[1]
            elif op in ("setp.ne.u32", "setp.ne.b32"):
                res = (a[0] != a[1]).astype(np.uint64)
            elif op == "selp.b32":
                res = np.where(a[2] != 0, a[0], a[1])
            else:
                raise AssertionError(f"unexpected instruction in the expansion: {line}")
            self.r[d] = res & M32


def _lanes_mma(self, opcode: str, groups: list[list[str]]) -> None:
    """A float mma.sync (.f32 accumulators, .f16 or .tf32 inputs), summed in f64, with the ISA layouts below."""
    shape = opcode.split(".")[3]
    in_t = "tf32" if opcode.endswith(".row.col.f32.tf32.tf32.f32") else "f16"
    assert opcode.endswith(f".row.col.f32.{in_t}.{in_t}.f32"), opcode
    d, a, b, c = groups
    K = int(shape.split("k")[1])
    A, B, C = np.zeros((16, K)), np.zeros((K, 8)), np.zeros((16, 8))

    def half(v, h):
        if in_t == "tf32":  # the whole register: an f32 bit pattern (the limbs are exact in tf32)
            return float(np.array([int(v)], np.uint32).view(np.float32)[0])
        return float(np.array([(int(v) >> (16 * h)) & 0xFFFF], np.uint16).view(np.float16)[0])

    for lane in range(32):
        g, t = lane >> 2, lane & 3
        for (i, h, r, col) in _a_elems(shape, in_t, g, t):
            A[r, col] = half(self.val(a[i])[lane], h)
        for (i, h, r, col) in _b_elems(shape, in_t, g, t):
            B[r, col] = half(self.val(b[i])[lane], h)
        for i in range(4):
            C[g + 8 * (i >> 1), 2 * t + (i & 1)] = np.array([self.val(c[i])[lane]], np.uint32).view(np.float32)[0]
    D = (A @ B + C).astype(np.float32)
    for i in range(4):
        out = np.zeros(32, np.uint64)
        for lane in range(32):
            g, t = lane >> 2, lane & 3
            out[lane] = int(np.array([D[g + 8 * (i >> 1), 2 * t + (i & 1)]], np.float32).view(np.uint32)[0])
        self.r[d[i]] = out


def _lanes_int_mma(self, opcode: str, groups: list[list[str]]) -> None:
    """An integer mma.sync m16n8k16/m16n8k32 .s32.{s8,u8}.{s8,u8}.s32 (no .satfinite: wraps mod 2^32), with
    the ISA's fragment layouts restated here ("Matrix Fragments for mma.m16n8k16/k32 with integer type"):
    A element i of lane (g, t): row g + 8·((i >> 2) & 1), column 4t + (i & 3) + 16·(i >= 8); B element i:
    row 4t + (i & 3) + 16·(i >= 4), column g; bytes low to high in the registers."""
    parts = opcode.split(".")
    shape, ta, tb = parts[3], parts[7], parts[8]
    assert parts[6] == "s32" and parts[9] == "s32" and shape in ("m16n8k16", "m16n8k32"), opcode
    d, a, b, c = groups
    K = int(shape.split("k")[1])
    A, B = np.zeros((16, K), np.int64), np.zeros((K, 8), np.int64)

    def byte(v, i, t):
        x = (int(v) >> (8 * (i % 4))) & 0xFF
        return x - 256 if t == "s8" and x >= 128 else x

    for lane in range(32):
        g, t = lane >> 2, lane & 3
        for i in range(K // 2):
            A[g + 8 * ((i >> 2) & 1), 4 * t + (i & 3) + 16 * (i >= 8)] = byte(self.val(a[i // 4])[lane], i, ta)
        for i in range(K // 4):
            B[4 * t + (i & 3) + 16 * (i >= 4), g] = byte(self.val(b[i // 4])[lane], i, tb)
    D = A @ B
    for i in range(4):
        out = np.zeros(32, np.uint64)
        for lane in range(32):
            g, t = lane >> 2, lane & 3
            out[lane] = (int(D[g + 8 * (i >> 1), 2 * t + (i & 1)]) + int(self.val(c[i])[lane])) & M32
        self.r[d[i]] = out


Lanes.mma = _lanes_mma
Lanes.int_mma = _lanes_int_mma


def _mma(mods: str, d: list[str], a: list[str], b: list[str], c: list[str]) -> Instruction:
    ops = tuple(Vec(tuple(Reg(x) for x in v)) for v in (d, a, b, c))
    return Instruction("mma", tuple(mods.split(".")), ops)


def _ring_gemm(A, B, C, in_t: str, acc_t: str) -> np.ndarray:
    """Σ_k sext(E(A))·sext(E(B)) + E(C), unembedded: the oracle on whole matrices."""
    w_in = 32 if in_t == "tf32" else 16
    w = 16 if acc_t == "f16" else 32
    e = "f32" if in_t == "tf32" else in_t
    ea = ring.sext(ring.embed(A, e), w_in, 32).astype(np.uint64)
    eb = ring.sext(ring.embed(B, e), w_in, 32).astype(np.uint64)
    ec = ring.embed(C, acc_t).astype(np.uint64)
    mask = np.uint64((1 << w) - 1)
    prod = np.zeros(C.shape, dtype=np.uint64)
    for k in range(A.shape[1]):
        prod = (prod + np.outer(ea[:, k], eb[k, :])) & np.uint64(M32)
    return ring.unembed((prod + ec) & mask, acc_t).astype(np.uint64)


def _bits(rng, shape, in_t):
    if in_t == "tf32":
        return rng.integers(0, 1 << 32, size=shape, dtype=np.uint64)
    return rng.integers(0, 1 << 16, size=shape, dtype=np.uint64)


# The ISA's fragment layouts, restated independently of mma.py: lane l, g = l>>2, t = l&3.
def _a_elems(shape, in_t, g, t):
    """[(register, half, row, col)] of A for lane (g, t)."""
    if in_t == "tf32" and shape == "m16n8k8":
        return [(0, 0, g, t), (1, 0, g + 8, t), (2, 0, g, t + 4), (3, 0, g + 8, t + 4)]
    if in_t == "tf32" and shape == "m16n8k4":
        return [(0, 0, g, t), (1, 0, g + 8, t)]
    out = []
    for i in range(8 if shape == "m16n8k16" else 4):  # a0..a7: row g for a0,a1,a4,a5
        row = g + 8 if i in (2, 3, 6, 7) else g
        col = t * 2 + (i & 1) + (8 if i >= 4 else 0)
        out.append((i // 2, i % 2, row, col))
    return out


def _b_elems(shape, in_t, g, t):
    if in_t == "tf32" and shape == "m16n8k8":
        return [(0, 0, t, g), (1, 0, t + 4, g)]
    if in_t == "tf32" and shape == "m16n8k4":
        return [(0, 0, t, g)]
    out = []
    for i in range(4 if shape == "m16n8k16" else 2):  # b0..b3: row t*2+(i&1) (+8 for b2,b3)
        out.append((i // 2, i % 2, t * 2 + (i & 1) + (8 if i >= 2 else 0), g))
    return out


CASES = [
    ("m16n8k16", "f16", "f32"), ("m16n8k16", "bf16", "f32"), ("m16n8k16", "f16", "f16"),
    ("m16n8k8", "f16", "f32"), ("m16n8k8", "bf16", "f32"), ("m16n8k8", "f16", "f16"),
    ("m16n8k8", "tf32", "f32"), ("m16n8k4", "tf32", "f32"),
]


MODES = ["shuffle", "limbs", "int8"]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("shape,in_t,acc_t", CASES)
def test_mma_expansion_matches_ring_gemm(shape, in_t, acc_t, mode):
    K = int(shape.split("k")[1])
    rng = np.random.default_rng(K * 7 + len(in_t) + len(acc_t))
    A, B = _bits(rng, (16, K), in_t), _bits(rng, (K, 8), in_t)
    C = rng.integers(0, 1 << (16 if acc_t == "f16" else 32), size=(16, 8), dtype=np.uint64)
    half = in_t != "tf32"
    n_a = {("m16n8k16", True): 4, ("m16n8k8", True): 2, ("m16n8k8", False): 4, ("m16n8k4", False): 2}[(shape, half)]
    n_b = {("m16n8k16", True): 2, ("m16n8k8", True): 1, ("m16n8k8", False): 2, ("m16n8k4", False): 1}[(shape, half)]
    n_c = 2 if acc_t == "f16" else 4
    regs = {f"%a{i}": np.zeros(32, np.uint64) for i in range(n_a)}
    regs |= {f"%b{i}": np.zeros(32, np.uint64) for i in range(n_b)}
    regs |= {f"%c{i}": np.zeros(32, np.uint64) for i in range(n_c)}
    for lane in range(32):
        g, t = lane >> 2, lane & 3
        for (i, h, r, c) in _a_elems(shape, in_t, g, t):
            regs[f"%a{i}"][lane] |= A[r, c] << (16 * h)
        for (i, h, r, c) in _b_elems(shape, in_t, g, t):
            regs[f"%b{i}"][lane] |= B[r, c] << (16 * h)
        # C/D: c0,c1 row g, c2,c3 row g+8, col 2t+(i&1); f16 accumulators pack (c0,c1) and (c2,c3)
        for i in range(4):
            val = C[g + (8 if i >= 2 else 0), 2 * t + (i & 1)]
            if acc_t == "f16":
                regs[f"%c{i // 2}"][lane] |= val << (16 * (i & 1))
            else:
                regs[f"%c{i}"][lane] = val
    mods = f"sync.aligned.{shape}.row.col.{acc_t}.{in_t}.{in_t}.{acc_t}"
    cs = [f"%c{i}" for i in range(n_c)]
    instr = _mma(mods, cs, [f"%a{i}" for i in range(n_a)], [f"%b{i}" for i in range(n_b)], cs)  # D aliases C
    lanes = Lanes(regs)
    lanes.run(expand_mma(instr, mode=mode))
    want = _ring_gemm(A, B, C, in_t, acc_t)
    for lane in range(32):
        g, t = lane >> 2, lane & 3
        for i in range(4):
            r, c = g + (8 if i >= 2 else 0), 2 * t + (i & 1)
            got = lanes.r[f"%c{i // 2}"][lane] >> np.uint64(16 * (i & 1)) & np.uint64(0xFFFF) if acc_t == "f16" \
                else lanes.r[f"%c{i}"][lane]
            assert int(got) == int(want[r, c]), (lane, i, hex(int(got)), hex(int(want[r, c])))


def test_phi_matches_doc_vectors_and_ring():
    # fpsan.md §1 vectors, and agreement with the sanitizer's ring module on all 16-bit patterns
    assert phi(0x40000000, "f32") == 0x35606380
    assert phi(0xC0500000, "f32") == 0xB0B616CD
    assert phi(0x3FB8AA3B, "f32") == 0x26A29A75
    for t in ("f16", "bf16"):
        u = np.arange(1 << 16, dtype=np.uint64)
        mine = np.array([phi(int(x), t) for x in u], dtype=np.uint64)
        assert np.array_equal(mine, ring.embed(u, t).astype(np.uint64))
        assert all(phi_inv(int(p), t) == int(x) for p, x in zip(mine[::97], u[::97]))


@pytest.mark.parametrize("mods,why", [
    ("sync.aligned.m8n8k4.row.col.f32.f16.f16.f32", "m8n8k4"),
    ("sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32", "e4m3"),
    ("sync.aligned.m8n8k4.row.col.f64.f64.f64.f64", "f64"),
    ("sync.aligned.m16n8k16.row.col.satfinite.f32.f16.f16.f32", "satfinite"),
])
def test_unmodelled_forms_are_reported(mods, why):
    instr = _mma(mods, ["%d0", "%d1", "%d2", "%d3"], ["%a0", "%a1", "%a2", "%a3"], ["%b0", "%b1"],
                 ["%d0", "%d1", "%d2", "%d3"])
    with pytest.raises(MmaNotModelled) as e:
        expand_mma(instr)
    assert e.value.reason


def test_wgmma_reported_not_modelled():
    instr = Instruction("wgmma", ("mma_async", "sync", "aligned", "m64n8k16", "f32", "f16", "f16"), ())
    with pytest.raises(MmaNotModelled, match="wgmma"):
        expand_mma(instr)


def _ctx_kernel(mods: str, n_a: int, n_b: int, n_c: int, mode: str = "shuffle") -> str:
    """A kernel whose body is the expansion through the sanitizer's RewriteContext, registers declared."""
    ctxmod = pytest.importorskip("ptxkit.fpsan.ctx")
    from ptxkit.fpsan.mma import rewrite_mma

    acc16 = mods.split(".")[5] == "f16"  # sync.aligned.SHAPE.row.col.D...
    c_type = "b32" if acc16 else "f32"
    reg_types = {f"%a{i}": "b32" for i in range(n_a)} | {f"%b{i}": "b32" for i in range(n_b)}
    reg_types |= {f"%c{i}": c_type for i in range(n_c)}
    counter: dict[str, int] = {}
    reports: list[str] = []
    ctx = ctxmod.RewriteContext(prefix="%fs_", label_prefix="$fs", reg_types=reg_types, homomorphic_casts=False,
                                report_fn=lambda i, r: reports.append(r), counter=counter)
    ctx.mma_mode = mode
    cs = [f"%c{i}" for i in range(n_c)]
    instr = _mma(mods, cs, [f"%a{i}" for i in range(n_a)], [f"%b{i}" for i in range(n_b)], cs)
    assert rewrite_mma(instr, ctx) and not reports
    decls = [f".reg .{'pred' if k == 'pred' else k} %fs_{k}_<{n}>;" for k, n in counter.items()]
    body = [f".reg .b32 %a<{n_a}>;", f".reg .b32 %b<{n_b}>;", f".reg .{c_type} %c<{n_c}>;", *decls]
    body += [f"mov.b32 %a{i}, {i};" for i in range(n_a)] + [f"mov.b32 %b{i}, {i};" for i in range(n_b)]
    body += [f"mov.b32 %c{i}, {i};" for i in range(n_c)]
    body += [y for x in ctx.lines for y in ([x] if isinstance(x, str) else x.lines)]  # φ⁻¹ tails kept
    body += [".reg .b64 %p;", "ld.param.u64 %p, [k_param_0];"]
    body += [f"st.global.b32 [%p+{4 * i}], %c{i};" for i in range(n_c)]
    helpers = "".join(ln + "\n" for h in ctx.helpers.values() for ln in h[1])  # the int8 tile's .func
    return (".version 8.0\n.target sm_80\n.address_size 64\n" + helpers
            + ".visible .entry k(.param .u64 k_param_0)\n{\n" + "\n".join("\t" + b for b in body) + "\n\tret;\n}\n")


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("shape,in_t,acc_t", CASES)
def test_ctx_expansion_is_accepted_by_ptxas(shape, in_t, acc_t, mode, tmp_path):
    import shutil
    import subprocess

    if shutil.which("ptxas") is None:
        pytest.skip("ptxas not on PATH")
    half = in_t != "tf32"
    n_a = {("m16n8k16", True): 4, ("m16n8k8", True): 2, ("m16n8k8", False): 4, ("m16n8k4", False): 2}[(shape, half)]
    n_b = {("m16n8k16", True): 2, ("m16n8k8", True): 1, ("m16n8k8", False): 2, ("m16n8k4", False): 1}[(shape, half)]
    n_c = 2 if acc_t == "f16" else 4
    text = _ctx_kernel(f"sync.aligned.{shape}.row.col.{acc_t}.{in_t}.{in_t}.{acc_t}", n_a, n_b, n_c, mode)
    f = tmp_path / "k.ptx"
    f.write_text(text)
    r = subprocess.run(["ptxas", "-arch=sm_80", str(f), "-o", str(tmp_path / "k.cubin")],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[:2000]


@pytest.mark.parametrize("mode", MODES)
def test_triton_dot16_vectors_with_standalone_expansion(mode):
    """The real fragment layout check: Triton's dot16 (ldmatrix-fed mma.m16n8k16 f16 → f32, its only
    float instruction) with the mma replaced by :func:`expand_mma` gives exactly Triton 3.9's FPSan
    output ``expected_fpsan_c.bin`` on the simulator."""
    from tests.conftest import PTX_CORPUS

    k = PTX_CORPUS / "triton_fpsan" / "dot16"
    if not k.is_dir():
        pytest.skip("../shared absent")
    parser = pytest.importorskip("ptxkit.ptx.parser")
    args_mod = pytest.importorskip("ptxkit.exec_sim.args")
    sim = pytest.importorskip("ptxkit.exec_sim")
    module = parser.parse((k / "plain.ptx").read_text(), "plain.ptx")
    fn = module.entries()[0]
    mmas = [i for i in fn.instructions() if i.opcode == "mma"]
    assert len(mmas) == 1
    sp = mmas[0].span  # splice the expansion in place of the instruction's exact source text
    text = module.source[:sp.start] + "\n".join(expand_mma(mmas[0], mode=mode)) + module.source[sp.end:]
    module = parser.parse(text, "dot16_mma_expanded.ptx")
    fn = module.entries()[0]
    # what is left: nothing (shuffles), or the four exact limb products (float or integer mma) on the
    # expansion's own registers
    left = [i for i in fn.instructions() if i.opcode == "mma"]
    assert len(left) == (0 if mode == "shuffle" else 4)
    assert mode != "int8" or all("s32" in i.mods for i in left)
    assert all(r.name.startswith("%fpsan_mma_") for i in left for o in i.operands for r in o.items)
    v = k / "vectors"
    specs = [f"0=f16[256]:{v / 'a.bin'}", f"1=f16[256]:{v / 'b.bin'}", "2=f32[256]:zeros",
             "3=u8[4096]:zeros", "4=u8[4096]:zeros"]
    args = args_mod.parse_arg_specs(specs, fn, 0)
    res = sim.run_kernel(module, fn.name, args, (1, 1, 1), (128, 1, 1), 1024)  # signature.json shared_bytes
    got = np.asarray(res.buffers["2"]).view(np.uint32).reshape(-1)
    want = np.fromfile(v / "expected_fpsan_c.bin", dtype=np.uint32)
    assert np.array_equal(got, want), f"{int((got != want).sum())} of 256 differ"
