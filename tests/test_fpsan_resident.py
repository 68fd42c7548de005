"""Ring-resident registers (ptxkit/fpsan/resident.py): registers whose float bits nothing needs hold
their payload across labels, loops and b64 packs. Checked against a numpy ring computation written
here from docs/fpsan.md (add/mul/max/ex2 on payloads), against the same kernel sanitized with
residency off (every output bit, NaN/Inf/-0 inputs included), and by ptxas."""

from __future__ import annotations

import shutil
import subprocess

import numpy as np
import pytest

from ptxkit import fpsan_ptx
from ptxkit.exec_sim import parse_text, run_kernel
from ptxkit.exec_sim.args import KernelArg
from ptxkit.fpsan import resident, ring
from ptxkit.fpsan.irview import reg_types
from ptxkit.fpsan.libdevice_flow import native_lines
from ptxkit.fpsan.rewrite import rewrite_function
from ptxkit.fpsan_ptx import sanitize_text
from ptxkit.ptx.parser import parse

THREADS, ITERS = 64, 5

# acc (%r2) and the running max (%f0, a .f32 register) are carried around the loop; (e, acc) are packed
# into %rd3 and unpacked in the next iteration; a shuffle moves a payload between lanes; the outputs are
# ring ops whose results are stored
HEAD = ".version 8.0\n.target sm_80\n.address_size 64\n"
LOOP = HEAD + f""".visible .entry k(.param .u64 xin, .param .u64 out, .param .u32 n)
{{
\t.reg .b32 %r<20>;
\t.reg .f32 %f<2>;
\t.reg .b64 %rd<10>;
\t.reg .pred %p<2>;
\tmov.u32 %r0, %tid.x;
\tld.param.u64 %rd0, [xin];
\tld.param.u64 %rd1, [out];
\tld.param.u32 %r1, [n];
\tmul.wide.u32 %rd2, %r0, 4;
\tmov.b32 %r2, 0f00000000;
\tmov.f32 %f0, 0fFF800000;
\tmov.b32 %r3, 0f3F800000;
\tmov.b64 %rd3, {{%r3, %r2}};
\tmov.u32 %r4, 0;
$loop:
\tmul.wide.u32 %rd4, %r4, {4 * THREADS};
\tadd.s64 %rd5, %rd0, %rd4;
\tadd.s64 %rd5, %rd5, %rd2;
\tld.global.f32 %r5, [%rd5];
\tmul.f32 %r6, %r5, %r5;
\tmov.b64 {{%r7, %r8}}, %rd3;
\tadd.f32 %r2, %r2, %r6;
\tmax.f32 %f0, %f0, %r5;
\tex2.approx.f32 %r9, %r7;
\tadd.f32 %r10, %r9, %r8;
\tmov.b64 %rd3, {{%r10, %r2}};
\tadd.u32 %r4, %r4, 1;
\tsetp.lt.u32 %p0, %r4, %r1;
\t@%p0 bra $loop;
\tmov.b64 {{%r11, %r12}}, %rd3;
\tselp.f32 %r13, 0f00000000, %r11, %p0;
\tadd.f32 %r14, %r13, %r12;
\tadd.f32 %r15, %f0, 0f00000000;
\tcvt.rn.f16x2.f32 %r16, %r11, %r12;
\tshfl.sync.bfly.b32 %r17|%p1, %r12, 1, 31, -1;
\tadd.f32 %r18, %r17, %r12;
\tmul.wide.u32 %rd6, %r0, 16;
\tadd.s64 %rd7, %rd1, %rd6;
\tst.global.f32 [%rd7], %r14;
\tst.global.f32 [%rd7+4], %r15;
\tst.global.b32 [%rd7+8], %r16;
\tst.global.f32 [%rd7+12], %r18;
\tret;
}}
"""


def _chosen(ptx: str) -> dict[str, str]:
    m = parse(ptx, "k.ptx")
    fn = next(iter(m.functions()))
    return resident.resident_set(resident.predict(fn, native_lines([])), reg_types(fn, m), resident.live_out(m, fn))


def _x() -> np.ndarray:
    rng = np.random.default_rng(7)
    x = rng.integers(0, 1 << 32, size=(ITERS, THREADS), dtype=np.uint64).astype(np.uint32)
    x[0, :6] = [0x7FC00000, 0x7F800000, 0xFF800000, 0x80000000, 0, 0x3F800000]  # NaN, ±Inf, -0, 0, 1
    return x


def _run(ptx: str, x: np.ndarray) -> np.ndarray:
    m = parse_text(ptx, "k.ptx")
    names = [p.name for p in m.entries()[0].params]
    args = [KernelArg(names[0], 0, names[0], "buffer", "u32", data=x.reshape(-1).copy()),
            KernelArg(names[1], 1, names[1], "buffer", "u32", data=np.zeros(4 * THREADS, np.uint32)),
            KernelArg(names[2], 2, names[2], "scalar", "u32", value=ITERS)]
    return run_kernel(m, None, args, 1, THREADS).buffers[names[1]].view(np.uint32).reshape(THREADS, 4)


def test_loop_carried_and_packed_registers_are_resident() -> None:
    chosen = _chosen(LOOP)
    # carried, packed and unpacked values; the max in a .f32 register; the selp of a constant
    for r in ("%r2", "%f0", "%r3", "%rd3", "%r7", "%r8", "%r9", "%r10", "%r11", "%r12", "%r13", "%r6", "%r17"):
        assert chosen.get(r) == "f32", r
    # loaded (raw) or stored (raw), the cvt's packed result, integers
    for r in ("%r5", "%r14", "%r15", "%r16", "%r18", "%r4", "%rd2", "%p1"):
        assert r not in chosen, r


def test_resident_registers_compute_the_ring_values() -> None:
    """The sanitized loop equals the ring computation of docs/fpsan.md done here in numpy."""
    x = _x()
    got = _run(sanitize_text(LOOP, "k.ptx").text, x)
    w = 32
    e = ring.embed
    acc, mx, pair = e(np.zeros(THREADS, np.uint32), "f32"), e(np.full(THREADS, 0xFF800000, np.uint32), "f32"), None
    pair = (e(np.full(THREADS, 0x3F800000, np.uint32), "f32"), acc)
    for i in range(ITERS):
        xe = e(x[i], "f32")
        t = ring.mul(xe, xe, w)
        e_prev, acc_old = pair
        acc = ring.add(acc, t, w)
        mx = ring.smax(mx, xe, w)
        pair = (ring.add(ring.exp2(e_prev, w), acc_old, w), acc)
    want14 = ring.unembed(ring.add(pair[0], pair[1], w), "f32")
    want15 = ring.unembed(ring.add(mx, e(np.zeros(THREADS, np.uint32), "f32"), w), "f32")
    assert np.array_equal(got[:, 0], want14.astype(np.uint32))
    assert np.array_equal(got[:, 1], want15.astype(np.uint32))
    lanes = np.arange(THREADS) ^ 1  # shfl.bfly 1: the neighbour's payload, moved as it is
    want18 = ring.unembed(ring.add(pair[1][lanes], pair[1], w), "f32")
    assert np.array_equal(got[:, 3], want18.astype(np.uint32))


def _off(*_args: object) -> dict[str, str]:
    return {}


@pytest.mark.parametrize("extra", ["", "\tadd.f32 %r19, %r6, %r6;\n\tst.global.f32 [%rd7+8], %r19;\n"],
                         ids=["predicted", "rerun"])
def test_residency_changes_no_output_bit(monkeypatch: pytest.MonkeyPatch, extra: str) -> None:
    """Residency on and off give the same bits. ``rerun``: LLVM's ``x + x`` fold reads %r6 otherwise
    than through the ring (ptxkit.fpsan.folds), which the opcode-level prediction does not know: the
    function is rewritten again without it."""
    ptx = LOOP.replace("\tret;", extra + "\tret;")
    runs = []

    def counted(*args: object, **kw: object) -> object:
        runs.append(1)
        return rewrite_function(*args, **kw)

    monkeypatch.setattr(fpsan_ptx, "rewrite_function", counted)
    on = sanitize_text(ptx, "k.ptx").text
    assert len(runs) == (2 if extra else 1)
    monkeypatch.setattr(resident, "resident_set", _off)
    off = sanitize_text(ptx, "k.ptx").text
    assert "bfi.b32 %r2," in off and "bfi.b32 %r2," not in on  # the carried sum's φ⁻¹ only without residency
    x = _x()
    assert np.array_equal(_run(on, x), _run(off, x))


@pytest.mark.skipif(shutil.which("ptxas") is None, reason="ptxas not on PATH")
@pytest.mark.parametrize("which", ["loop", "mma"])
def test_ptxas_accepts_resident_code(tmp_path, which: str) -> None:
    f = tmp_path / "k.ptx"
    f.write_text(sanitize_text(LOOP if which == "loop" else MMA, "k.ptx").text)
    r = subprocess.run(["ptxas", "-arch=sm_80", str(f), "-o", str(tmp_path / "k.cubin")],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


# an mma.sync tile accumulating twice in place on registers only ring ops and the mma touch: the
# tile helper (ptxkit.fpsan.mma_calls, the int8 expansion) takes and returns their payloads
TILE = ("\tmma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%d0, %d1, %d2, %d3}, {%r1, %r2, %r3, %r4}, "
        "{%r5, %r6}, {%d0, %d1, %d2, %d3};\n")
MMA = HEAD + """.visible .entry k(.param .u64 io)
{
\t.reg .b32 %r<12>;
\t.reg .f32 %c<4>, %d<4>, %e<4>;
\t.reg .b64 %rd<4>;
\tmov.u32 %r0, %tid.x;
\tld.param.u64 %rd0, [io];
\tmul.wide.u32 %rd1, %r0, 40;
\tadd.s64 %rd2, %rd0, %rd1;
\tld.global.v4.b32 {%r1, %r2, %r3, %r4}, [%rd2];
\tld.global.v2.b32 {%r5, %r6}, [%rd2+16];
\tld.global.v4.f32 {%c0, %c1, %c2, %c3}, [%rd2+24];
\tmul.f32 %d0, %c0, 0f3F800000;
\tmul.f32 %d1, %c1, 0f3F800000;
\tmul.f32 %d2, %c2, 0f3F800000;
\tmul.f32 %d3, %c3, 0f3F800000;
{TILE}{TILE}\tmul.f32 %e0, %d0, 0f3F800000;
\tmul.f32 %e1, %d1, 0f3F800000;
\tmul.f32 %e2, %d2, 0f3F800000;
\tmul.f32 %e3, %d3, 0f3F800000;
\tst.global.v4.f32 [%rd2+24], {%e0, %e1, %e2, %e3};
\tret;
}
""".replace("{TILE}", TILE)


def test_mma_tile_with_resident_accumulators(monkeypatch: pytest.MonkeyPatch) -> None:
    chosen = _chosen(MMA)
    assert all(chosen.get(f"%d{i}") == "f32" for i in range(4)) and "%c0" not in chosen and "%r1" not in chosen
    rng = np.random.default_rng(3)
    data = rng.integers(0, 1 << 32, size=32 * 10, dtype=np.uint64).astype(np.uint32)

    def run(ptx: str) -> np.ndarray:
        m = parse_text(ptx, "k.ptx")
        name = m.entries()[0].params[0].name
        arg = KernelArg(name, 0, name, "buffer", "u32", data=data.copy())
        return run_kernel(m, None, [arg], 1, 32).buffers[name].view(np.uint32)

    on = sanitize_text(MMA, "k.ptx").text
    monkeypatch.setattr(resident, "resident_set", _off)
    off = sanitize_text(MMA, "k.ptx").text
    # resident: the helper returns D's four payloads; otherwise D's float bits (and φ of C inside)
    assert on.count("call.uni (%d0, %d1, %d2, %d3)") == 2 and on != off
    got, want = run(on), run(off)
    assert np.array_equal(got, want)
    assert not np.array_equal(got.reshape(32, 10)[:, 6:], data.reshape(32, 10)[:, 6:])  # the mma did something
