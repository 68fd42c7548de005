"""One-instruction probes of the simulator against a GPU (the device check of docs/DEVELOPING.md):

    python -m ptxkit.corpus.gpuprobe gpu OUT_DIR [--jobs 12]     # on a machine with CuPy and a GPU
    python -m ptxkit.corpus.gpuprobe compare OUT_DIR [--save F]  # here: the simulator against those bits

Each probe is a kernel whose threads load operands, run one instruction form (``cvt`` between every
integer and float type and rounding mode, ``abs``/``neg``/``min``/``max``/``copysign``/``testp``/
``setp`` on floats, the IEEE-rounded float arithmetic) and store the result. The operands are
deterministic (specials of each format — NaNs with payloads, infinities, signed zeros, subnormals,
the integer range edges — then splitmix64 bits and structured values), made by the same code on both
machines, so only the GPU's outputs travel. ``compare`` runs every form on the simulator and lists
the forms whose bits differ, with examples; ``--save`` keeps a slice of the GPU's bits as test vectors
(tests/data/gpu_probe/), which the suite checks the simulator against without a GPU.
"""

from __future__ import annotations

import argparse
import json
import sys
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from multiprocessing import get_context
from pathlib import Path

import numpy as np

from ptxkit import gpu
from ptxkit.exec_sim import parse_text, run_kernel
from ptxkit.exec_sim.args import KernelArg

N = 8192          # threads per probe (a unary 16-bit probe runs all 65536 patterns)
BLOCK = 256
SAVE = 1024       # elements per form kept as test vectors: the specials come first
_W = {"f16": 2, "bf16": 2, "s8": 2, "u8": 2, "s16": 2, "u16": 2, "f32": 4, "f16x2": 4, "bf16x2": 4, "s32": 4,
      "u32": 4, "f64": 8, "s64": 8, "u64": 8, "pred": 4, "s16x2": 4, "u16x2": 4}
_REG = {2: "%h", 4: "%r", 8: "%rd"}
_NP = {2: np.uint16, 4: np.uint32, 8: np.uint64}
INTS = ("s8", "u8", "s16", "u16", "s32", "u32", "s64", "u64")
FLOATS = ("f16", "bf16", "f32", "f64")


@dataclass(frozen=True)
class Form:
    """One instruction form: ``text`` with {d} {a} {b} {c} for the registers of ``dst`` and ``srcs``."""

    name: str
    text: str
    dst: str
    srcs: tuple[str, ...]


def forms() -> list[Form]:
    out: list[Form] = []

    def add(name: str, text: str, dst: str, *srcs: str) -> None:
        out.append(Form(name, text, dst, srcs))

    for s in FLOATS:
        for d in INTS:
            if s == "bf16" and d[1:] == "8":  # ptxas: no cvt between bf16 and 8-bit integers
                continue
            for m in ("rzi", "rni", "rmi", "rpi"):
                add(f"cvt.{m}.{d}.{s}", f"cvt.{m}.{d}.{s} {{d}}, {{a}};", d, s)
            if s != "bf16":  # ptxas: no .sat on a bf16 source
                add(f"cvt.rzi.sat.{d}.{s}", f"cvt.rzi.sat.{d}.{s} {{d}}, {{a}};", d, s)
        if s == "f32":
            add("cvt.rzi.ftz.s32.f32", "cvt.rzi.ftz.s32.f32 {d}, {a};", "s32", s)
        for d in FLOATS:
            if d == s:
                for m in ("rni", "rzi", "rmi", "rpi"):
                    add(f"cvt.{m}.{d}.{s}", f"cvt.{m}.{d}.{s} {{d}}, {{a}};", d, s)
                continue
            narrowing = _W[d] < _W[s] or (d, s) in (("bf16", "f16"), ("f16", "bf16"))
            for m in (("rn", "rz", "rm", "rp") if narrowing else ("",)):
                mm = f".{m}" if m else ""
                add(f"cvt{mm}.{d}.{s}", f"cvt{mm}.{d}.{s} {{d}}, {{a}};", d, s)
            if ("f32" in (d, s) and "f64" not in (d, s)) or (d, s) == ("f32", "f64"):
                mm = ".rn" if narrowing else ""
                add(f"cvt{mm}.ftz.{d}.{s}", f"cvt{mm}.ftz.{d}.{s} {{d}}, {{a}};", d, s)
    for d in FLOATS:
        for s in INTS:
            if d == "bf16" and s[1:] == "8":
                continue
            for m in ("rn", "rz", "rm", "rp"):
                add(f"cvt.{m}.{d}.{s}", f"cvt.{m}.{d}.{s} {{d}}, {{a}};", d, s)
    for t in ("f16", "bf16", "f32", "ftz.f32", "f64", "f16x2", "bf16x2", "ftz.f16"):
        ty = t.rsplit(".", 1)[-1]
        for op in ("abs", "neg"):
            add(f"{op}.{t}", f"{op}.{t} {{d}}, {{a}};", ty, ty)
        for op in ("min", "max"):
            add(f"{op}.{t}", f"{op}.{t} {{d}}, {{a}}, {{b}};", ty, ty, ty)
            if ty != "f64" and not t.startswith("ftz"):
                add(f"{op}.NaN.{t}", f"{op}.NaN.{t} {{d}}, {{a}}, {{b}};", ty, ty, ty)
    for t in ("f32", "f64"):
        add(f"copysign.{t}", f"copysign.{t} {{d}}, {{a}}, {{b}};", t, t, t)
        for p in ("finite", "infinite", "number", "notanumber", "normal", "subnormal"):
            add(f"testp.{p}.{t}", f"testp.{p}.{t} {{d}}, {{a}};", "pred", t)
    for t in ("f16", "bf16", "f32", "f64"):
        for c in ("eq", "ne", "lt", "le", "gt", "ge", "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan"):
            add(f"setp.{c}.{t}", f"setp.{c}.{t} {{d}}, {{a}}, {{b}};", "pred", t, t)
    for t in ("f32", "ftz.f32", "f64"):
        ty = t.rsplit(".", 1)[-1]
        for m in ("rn", "rz", "rm", "rp"):
            for op in ("add", "sub", "mul"):
                add(f"{op}.{m}.{t}", f"{op}.{m}.{t} {{d}}, {{a}}, {{b}};", ty, ty, ty)
            add(f"fma.{m}.{t}", f"fma.{m}.{t} {{d}}, {{a}}, {{b}}, {{c}};", ty, ty, ty, ty)
        add(f"div.rn.{t}", f"div.rn.{t} {{d}}, {{a}}, {{b}};", ty, ty, ty)
        add(f"sqrt.rn.{t}", f"sqrt.rn.{t} {{d}}, {{a}};", ty, ty)
        add(f"rcp.rn.{t}", f"rcp.rn.{t} {{d}}, {{a}};", ty, ty)
    for t in ("f16", "bf16", "f16x2", "bf16x2", "ftz.f16"):
        ty = t.rsplit(".", 1)[-1]
        for op in ("add", "sub", "mul"):
            add(f"{op}.rn.{t}", f"{op}.rn.{t} {{d}}, {{a}}, {{b}};", ty, ty, ty)
        add(f"fma.rn.{t}", f"fma.rn.{t} {{d}}, {{a}}, {{b}}, {{c}};", ty, ty, ty, ty)
    return out


def integer_forms() -> list[Form]:
    """The integer instructions of Triton's FPSan output and of ptxkit's ring code (ISA §9.7.1, §9.7.8):
    ``--integer`` adds them (not measured on a GPU yet: tests/data/gpu_probe has the float forms)."""
    out: list[Form] = []

    def add(name: str, text: str, dst: str, *srcs: str) -> None:
        out.append(Form(name, text, dst, srcs))

    for t in ("s16x2", "u16x2"):
        for op in ("add", "min", "max"):  # ptxas has no sub.s16x2
            add(f"{op}.{t}", f"{op}.{t} {{d}}, {{a}}, {{b}};", t, t, t)
    for t in ("s16", "u16", "s32", "u32", "s64", "u64"):
        for op in ("add", "sub", "mul.lo", "mul.hi", "min", "max", "div", "rem"):
            add(f"{op}.{t}", f"{op}.{t} {{d}}, {{a}}, {{b}};", t, t, t)
        for op in ("mad.lo", "mad.hi"):
            add(f"{op}.{t}", f"{op}.{t} {{d}}, {{a}}, {{b}}, {{c}};", t, t, t, t)
        if t[1:] != "64":
            wide = f"{t[0]}{2 * int(t[1:])}"
            add(f"mul.wide.{t}", f"mul.wide.{t} {{d}}, {{a}}, {{b}};", wide, t, t)
        b = f"b{t[1:]}"
        add(f"shl.{b}", f"shl.{b} {{d}}, {{a}}, {{b}};", t, t, "u32")
        add(f"shr.{t}", f"shr.{t} {{d}}, {{a}}, {{b}};", t, t, "u32")
        if t[0] == "s":
            add(f"abs.{t}", f"abs.{t} {{d}}, {{a}};", t, t)
            add(f"neg.{t}", f"neg.{t} {{d}}, {{a}};", t, t)
    for t in ("u32", "s32", "u64", "s64"):
        add(f"bfe.{t}", f"bfe.{t} {{d}}, {{a}}, {{b}}, {{c}};", t, t, "u32", "u32")
        add(f"bfind.{t}", f"bfind.{t} {{d}}, {{a}};", "u32", t)
        add(f"bfind.shiftamt.{t}", f"bfind.shiftamt.{t} {{d}}, {{a}};", "u32", t)
    for t in ("b32", "b64"):
        ty = "u" + t[1:]
        add(f"bfi.{t}", f"bfi.{t} {{d}}, {{a}}, {{b}}, {{c}}, 7;", ty, ty, ty, "u32")
        add(f"popc.{t}", f"popc.{t} {{d}}, {{a}};", "u32", ty)
        add(f"clz.{t}", f"clz.{t} {{d}}, {{a}};", "u32", ty)
        add(f"brev.{t}", f"brev.{t} {{d}}, {{a}};", ty, ty)
        add(f"cnot.{t}", f"cnot.{t} {{d}}, {{a}};", ty, ty)
    for m in ("", ".f4e", ".b4e", ".rc8", ".ecl", ".ecr", ".rc16"):
        add(f"prmt.b32{m}", f"prmt.b32{m} {{d}}, {{a}}, {{b}}, {{c}};", "u32", "u32", "u32", "u32")
    for d in ("l", "r"):
        for m in ("wrap", "clamp"):
            add(f"shf.{d}.{m}.b32", f"shf.{d}.{m}.b32 {{d}}, {{a}}, {{b}}, {{c}};", "u32", "u32", "u32", "u32")
    for t in ("s32", "u32"):
        add(f"mul24.lo.{t}", f"mul24.lo.{t} {{d}}, {{a}}, {{b}};", t, t, t)
        add(f"mul24.hi.{t}", f"mul24.hi.{t} {{d}}, {{a}}, {{b}};", t, t, t)
        add(f"sad.{t}", f"sad.{t} {{d}}, {{a}}, {{b}}, {{c}};", t, t, t, t)
        add(f"dp4a.{t}.{t}", f"dp4a.{t}.{t} {{d}}, {{a}}, {{b}}, {{c}};", "u32", "u32", "u32", "u32")
    add("lop3.b32", "lop3.b32 {d}, {a}, {b}, {c}, 0xB4;", "u32", "u32", "u32", "u32")
    return out


def save_npz(path: str | Path, arrays: dict[str, np.ndarray]) -> None:
    """``arrays`` into one compressed ``.npz`` (numpy's stubs type ``**arrays`` as its keyword flags)."""
    np.savez_compressed(path, **arrays)  # type: ignore[arg-type]


# ------------------------------------------------------------------------------ operands


def _splitmix(n: int, salt: int) -> np.ndarray:
    """n pseudo-random 64-bit words, the same on every machine and numpy version."""
    with np.errstate(over="ignore"):
        z = (np.arange(n, dtype=np.uint64) + np.uint64(salt * 0x1000003)) * np.uint64(0x9E3779B97F4A7C15)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        return z ^ (z >> np.uint64(31))


def _float_specials(kind: str) -> list[int]:
    ft = {"f16": np.float16, "f32": np.float32, "f64": np.float64}.get(kind)
    vals = [0.0, 1.0, 0.5, 1.5, 2.5, 3.0, 0.49999997, 127.5, 128.0, 255.5, 256.0, 32767.5, 32768.0, 65504.0,
            65520.0, 65535.5, 65536.0, 2.0 ** 31 - 128, 2.0 ** 31, 2.0 ** 32, 2.0 ** 32 - 256, 2.0 ** 63,
            2.0 ** 63 - 2 ** 39, 2.0 ** 64, 2.0 ** 64 - 2 ** 40, 1e30, 3e38, 1e300, 2.0 ** -126, 2.0 ** -14,
            1.0 / 3, 2.0 ** 24 + 1, 2.0 ** 53 + 1]
    width = {"f16": 16, "bf16": 16, "f32": 32, "f64": 64}[kind]
    sign = 1 << (width - 1)
    if kind == "bf16":
        raw = [int(np.float32(v).view(np.uint32)) >> 16 for v in vals if abs(v) < 3.3e38]
    else:
        assert ft is not None
        with np.errstate(over="ignore"):
            raw = [int(np.array(v, ft).view(_NP[width // 8])) for v in vals if np.isfinite(ft(v))]
    exp_bits = {16: 5 if kind == "f16" else 8, 32: 8, 64: 11}[width]
    man = width - 1 - exp_bits
    inf = ((1 << exp_bits) - 1) << man
    extra = [inf, inf | (1 << (man - 1)), inf | 1, inf | (1 << (man - 1)) | 0x2A, (1 << man) - 1, 1, 1 << man,
             sign - 1 - (1 << man)]  # inf, qNaN, sNaN, qNaN+payload, max/min subnormal, min normal, max finite
    out = []
    for r in dict.fromkeys(extra + raw):  # NaNs, infinities and subnormals first: the cross product covers them
        out += [r, r | sign]
    return out


def _int_specials(kind: str) -> list[int]:
    bits = int(kind[1:])
    mask = (1 << bits) - 1
    vals = [0, 1, 2, 3, mask, mask - 1, 1 << (bits - 1), (1 << (bits - 1)) - 1, (1 << (bits - 1)) + 1,
            (1 << 24) + 1, (1 << 53) + 1, 255, 256, 0x7FFF, 0x8000, 0xFFFF, 0x10000, 0x7FFFFFFF, 0x80000000]
    return list(dict.fromkeys(v & mask for v in vals))


def specials(kind: str) -> np.ndarray:
    """The edge values of ``kind`` as raw bits (f16x2/bf16x2: a half's specials in both halves)."""
    if kind in ("f16x2", "bf16x2"):
        h = np.array(_float_specials(kind[:-2]), np.uint32)
        return (h << np.uint32(16)) | h[::-1]
    if kind in ("s16x2", "u16x2"):
        h = np.array(_int_specials("u16"), np.uint32)
        return (h << np.uint32(16)) | h[::-1]
    if kind in INTS:
        return np.array(_int_specials(kind), _NP[_W[kind]])
    return np.array(_float_specials(kind), _NP[_W[kind]])


def operands(form: Form) -> tuple[int, list[np.ndarray]]:
    """(thread count, one bit array per source): specials × specials first, then random words, then
    structured values (small integers and halves in every type's range, scaled by powers of two)."""
    unary16 = len(form.srcs) == 1 and _W[form.srcs[0]] == 2
    n = 65536 if unary16 else N
    arrays = []
    for i, kind in enumerate(form.srcs):
        dt = _NP[_W[kind]]
        if unary16:
            arrays.append(np.arange(n, dtype=np.uint64).astype(dt))
            continue
        sp = specials(kind)
        k = len(sp)
        # the cross product of the first two sources' specials; a third source cycles its own
        idx = np.arange(k * k)
        head = sp if len(form.srcs) == 1 else sp[(idx // k) % k] if i == 0 else sp[idx % k]
        col = _splitmix(n, 17 * i + 1).astype(dt)
        m = min(len(head), n // 2)
        col[:m] = head[:m]
        third = n - (n - m) // 3
        if kind in FLOATS:  # structured: ±(small integer + {0, .25, .5, .75}) · 2^e, e in [-30, 70]
            r = _splitmix(n - third, 99 + i).astype(np.int64)
            v = (r % 4096 - 2048) / 4.0 * np.exp2(((r >> np.int64(20)) % 101 - 30).astype(np.float64))
            col[third:] = _to_bits(v, kind)
        arrays.append(col)
    return n, arrays


def _to_bits(v: np.ndarray, kind: str) -> np.ndarray:
    with np.errstate(over="ignore"):
        if kind == "bf16":
            return (v.astype(np.float32).view(np.uint32) >> np.uint32(16)).astype(np.uint16)
        ft = {"f16": np.float16, "f32": np.float32, "f64": np.float64}[kind]
        return v.astype(ft).view(_NP[_W[kind]])


def saved_indices(form: Form) -> np.ndarray:
    """The elements kept as test vectors: the specials' block and a stride through the rest (a unary
    16-bit probe: every special pattern and every 64th one)."""
    n, _ = operands(form)
    if n == 65536:
        return np.unique(np.concatenate([np.arange(0, n, 64), specials(form.srcs[0]).astype(np.int64)]))
    return np.unique(np.concatenate([np.arange(min(SAVE, n)), np.arange(SAVE, n, 16)]))


# ------------------------------------------------------------------------------ kernels


def kernel_text(form: Form) -> str:
    """The probe kernel: thread t computes ``form`` on element t of pa, pb, pc and stores to pd."""
    regs = {}
    body = ["\tld.param.u64 %rd1, [pa];", "\tld.param.u64 %rd2, [pb];", "\tld.param.u64 %rd3, [pc];",
            "\tld.param.u64 %rd4, [pd];", "\tmov.u32 %r1, %ctaid.x;", "\tmov.u32 %r2, %ntid.x;",
            "\tmov.u32 %r3, %tid.x;", "\tmad.lo.s32 %r4, %r1, %r2, %r3;"]
    for i, (kind, key) in enumerate(zip(form.srcs, "abc")):
        w = _W[kind]
        reg = f"{_REG[w]}{10 + i}"
        regs[key] = reg
        body += [f"\tmul.wide.u32 %rd5, %r4, {w};", f"\tadd.s64 %rd6, %rd{1 + i}, %rd5;",
                 f"\tld.global.b{8 * w} {reg}, [%rd6];"]
    if form.dst == "pred":
        regs["d"] = "%p1"
        body += ["\t" + form.text.format(**regs), "\tselp.u32 %r20, 1, 0, %p1;"]
        out, w = "%r20", 4
    else:
        w = _W[form.dst]
        out = regs["d"] = f"{_REG[w]}20"
        body.append("\t" + form.text.format(**regs))
    body += [f"\tmul.wide.u32 %rd5, %r4, {w};", "\tadd.s64 %rd6, %rd4, %rd5;", f"\tst.global.b{8 * w} [%rd6], {out};",
             "\tret;"]
    return "\n".join([".version 8.5", ".target sm_90a", ".address_size 64", "",
                      ".visible .entry probe(.param .u64 pa, .param .u64 pb, .param .u64 pc, .param .u64 pd)",
                      "{", "\t.reg .pred %p<4>;", "\t.reg .b16 %h<24>;", "\t.reg .b32 %r<24>;",
                      "\t.reg .b64 %rd<24>;", *body, "}", ""])


def launch(form: Form, device: str) -> np.ndarray:
    """Run ``form``'s probe on the simulator (``cpu``) or the GPU → the output bits."""
    n, srcs = operands(form)
    w = 4 if form.dst == "pred" else _W[form.dst]
    t = {2: "u16", 4: "u32", 8: "u64"}
    args = []
    for i, key in enumerate(("pa", "pb", "pc")):
        if i < len(srcs):
            args.append(KernelArg(key, i, key, "buffer", t[srcs[i].itemsize], data=srcs[i].copy()))
        else:
            args.append(KernelArg(key, i, key, "null", "u64"))
    args.append(KernelArg("pd", 3, "pd", "buffer", t[w], data=np.zeros(n, _NP[w])))
    text = kernel_text(form)
    if device == "gpu":
        return gpu.run_kernel(text, "probe", args, n // BLOCK, BLOCK).buffers["pd"]
    return np.asarray(run_kernel(parse_text(text, f"{form.name}.ptx"), "probe", args, n // BLOCK, BLOCK).buffers["pd"])


def _gpu_one(form: Form) -> tuple[str, np.ndarray | str]:
    try:
        return form.name, launch(form, "gpu")
    except Exception as e:  # a form the driver rejects is recorded; the rest still run
        return form.name, f"{type(e).__name__}: {e}"[:300]


def run_gpu(out: Path, jobs: int, names: list[str] | None = None, integer: bool = False) -> dict[str, str]:
    """Every form on the GPU → ``out/gpu_N.npz`` (chunks under the transfer limit) + errors.json."""
    todo = [f for f in forms() + (integer_forms() if integer else []) if names is None or f.name in names]
    with ProcessPoolExecutor(max_workers=max(1, jobs), mp_context=get_context("spawn")) as ex:
        results = list(ex.map(_gpu_one, todo))
    out.mkdir(parents=True, exist_ok=True)
    errors = {k: v for k, v in results if isinstance(v, str)}
    chunk: dict[str, np.ndarray] = {}
    size, part = 0, 0
    for k, v in results:
        if isinstance(v, str):
            continue
        chunk[k], size = v, size + v.nbytes
        if size > 10 * 2 ** 20:  # compressed, a chunk stays under the 16 MiB a file may bring back
            save_npz(out / f"gpu_{part}.npz", chunk)
            chunk, size, part = {}, 0, part + 1
    if chunk:
        save_npz(out / f"gpu_{part}.npz", chunk)
    (out / "errors.json").write_text(json.dumps(errors, indent=1))
    return errors


def load_gpu(out: Path) -> dict[str, np.ndarray]:
    got: dict[str, np.ndarray] = {}
    for f in sorted(out.glob("gpu_*.npz")):
        with np.load(f) as z:
            got.update({k: z[k] for k in z.files})
    return got


def compare(got: dict[str, np.ndarray], names: list[str] | None = None) -> list[dict]:
    """Each form the GPU ran, on the simulator: a row per form with the count of differing elements and
    the first few (operand bits, GPU bits, simulator bits)."""
    rows = []
    for f in forms() + integer_forms():
        if f.name not in got or (names is not None and f.name not in names):
            continue
        want = got[f.name]
        row: dict = {"form": f.name, "elements": int(want.size)}
        try:
            have = launch(f, "cpu").view(want.dtype)
        except Exception as e:  # the simulator's refusal is a row, not the end of the check
            row["sim_error"] = f"{type(e).__name__}: {e}"[:200]
            rows.append(row)
            continue
        bad = np.flatnonzero(have != want)
        row["differing"] = int(bad.size)
        if bad.size:
            _, srcs = operands(f)
            row["examples"] = [{"in": [hex(int(s[i])) for s in srcs], "gpu": hex(int(want[i])),
                                "sim": hex(int(have[i]))} for i in bad[:4]]
        rows.append(row)
    return rows


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m ptxkit.corpus.gpuprobe", description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    g = sub.add_parser("gpu", help="run every probe on the GPU, write its bits to DIR")
    g.add_argument("dir")
    g.add_argument("--jobs", type=int, default=12)
    g.add_argument("--only", help="comma-separated form names")
    g.add_argument("--integer", action="store_true", help="also the integer forms")
    c = sub.add_parser("compare", help="run every probe the GPU ran on the simulator and compare")
    c.add_argument("dir")
    c.add_argument("--only", help="comma-separated form names")
    c.add_argument("--json", metavar="FILE")
    c.add_argument("--save", metavar="FILE.npz", help=f"keep the first {SAVE} GPU elements of each form")
    c.add_argument("--integer", action="store_true", help="also the integer forms")
    li = sub.add_parser("list", help="print the form names")
    li.add_argument("--integer", action="store_true", help="also the integer forms")
    a = p.parse_args(argv)
    names = a.only.split(",") if getattr(a, "only", None) else None
    if a.cmd == "list":
        print("\n".join(f.name for f in forms() + (integer_forms() if a.integer else [])))
        return 0
    if a.cmd == "gpu":
        if not gpu.available():
            print("gpuprobe: no usable GPU (CuPy missing or no CUDA device)", file=sys.stderr)
            return 2
        errors = run_gpu(Path(a.dir), a.jobs, names, a.integer)
        print(json.dumps({"forms": len(forms()) if names is None else len(names), "rejected": len(errors)}))
        for k, v in errors.items():
            print(f"{k}: {v}")
        return 0
    got = load_gpu(Path(a.dir))
    rows = compare(got, names)
    for r in rows:
        if r.get("differing") or "sim_error" in r:
            print(f"{r['form']:28s} {r.get('sim_error') or r['differing']}/{r['elements']} "
                  f"{json.dumps(r.get('examples', [])[:2])}")
    bad = [r for r in rows if r.get("differing") or "sim_error" in r]
    print(json.dumps({"forms": len(rows), "identical": len(rows) - len(bad), "differing": len(bad)}))
    if a.json:
        Path(a.json).write_text(json.dumps(rows, indent=1))
    if a.save:
        kept = {}
        for f in forms() + integer_forms():
            if f.name in got:
                idx = saved_indices(f)
                kept[f.name], kept[f"{f.name}#idx"] = got[f.name][idx], idx.astype(np.uint32)
        save_npz(a.save, kept)
    return 0 if not bad else 1


if __name__ == "__main__":
    raise SystemExit(main())
