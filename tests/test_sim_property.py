"""Property test (issue 3): random straight-line integer PTX run by the simulator equals a pure-Python
big-integer evaluation written here, independently, from the ISA pseudo-code (PTX ISA §9.7.1-9.7.9).

Each example is one kernel of 32 threads; every thread loads its own inputs of each width, runs the
same random instruction sequence, and stores every result (zero-extended to 64 bits)."""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ptxkit import ir

LANES = 32
NIN = 3  # inputs per width per thread
WIDTHS = (16, 32, 64)


def M(w):
    return (1 << w) - 1


def sx(v, w):
    return v - (1 << w) if v >> (w - 1) & 1 else v


def trunc_div(a, b):
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


# ------------------------------------------------------------------ reference semantics (Python ints)
def r_bfe(a, pos, ln, w, signed):
    msb = w - 1
    pos &= 0xFF
    ln &= 0xFF
    sbit = 0 if (not signed or ln == 0) else (a >> min(pos + ln - 1, msb)) & 1
    d = 0
    for i in range(w):
        bit = (a >> (pos + i)) & 1 if (i < ln and pos + i <= msb) else sbit
        d |= bit << i
    return d


def r_bfi(a, b, pos, ln, w):
    pos &= 0xFF
    ln &= 0xFF
    f = b
    for i in range(ln):
        if pos + i <= w - 1:
            f = (f & ~(1 << (pos + i))) | (((a >> i) & 1) << (pos + i))
    return f & M(w)


def r_prmt(a, b, c):
    byts = [((b << 32 | a) >> (8 * i)) & 0xFF for i in range(8)]
    d = 0
    for i in range(4):
        sel = (c >> (4 * i)) & 0xF
        v = byts[sel & 7]
        if sel & 8:
            v = 0xFF if v & 0x80 else 0
        d |= v << (8 * i)
    return d


def r_lop3(a, b, c, lut):
    d = 0
    for i in range(32):
        idx = ((a >> i) & 1) << 2 | ((b >> i) & 1) << 1 | ((c >> i) & 1)
        d |= ((lut >> idx) & 1) << i
    return d


def r_bfind(a, w, signed, shiftamt):
    v = sx(a, w) if signed else a
    if v < 0:
        v = ~v
    if v == 0:
        return 0xFFFFFFFF
    pos = v.bit_length() - 1
    return (w - 1 - pos) if shiftamt else pos


def r_brev(a, w):
    return int(format(a, f"0{w}b")[::-1], 2)


# An op: (name, width, kind of each source ('r' reg of width / 'u32' reg / 'imm'), dest widths, text, ref)
def build_ops():
    ops = []
    for w in WIDTHS:
        t = f"{w}"
        ops += [
            ("add", w, ["r", "r"], [w], ("add", (f"s{t}",)), lambda a, b, w=w: [(a + b) & M(w)]),
            ("sub", w, ["r", "r"], [w], ("sub", (f"u{t}",)), lambda a, b, w=w: [(a - b) & M(w)]),
            ("mul.lo", w, ["r", "r"], [w], ("mul", ("lo", f"s{t}")), lambda a, b, w=w: [(a * b) & M(w)]),
            ("mul.hi.u", w, ["r", "r"], [w], ("mul", ("hi", f"u{t}")), lambda a, b, w=w: [(a * b) >> w]),
            ("mul.hi.s", w, ["r", "r"], [w], ("mul", ("hi", f"s{t}")),
             lambda a, b, w=w: [((sx(a, w) * sx(b, w)) >> w) & M(w)]),
            ("mad.lo", w, ["r", "r", "r"], [w], ("mad", ("lo", f"u{t}")),
             lambda a, b, c, w=w: [(a * b + c) & M(w)]),
            ("mad.hi.s", w, ["r", "r", "r"], [w], ("mad", ("hi", f"s{t}")),
             lambda a, b, c, w=w: [(((sx(a, w) * sx(b, w)) >> w) + c) & M(w)]),
            ("div.u", w, ["r", "r"], [w], ("div", (f"u{t}",)), lambda a, b, w=w: [a // b if b else M(w)]),
            ("rem.u", w, ["r", "r"], [w], ("rem", (f"u{t}",)), lambda a, b, w=w: [a % b if b else a]),
            ("div.s", w, ["r", "r"], [w], ("div", (f"s{t}",)),
             lambda a, b, w=w: [trunc_div(sx(a, w), sx(b, w)) & M(w) if b else M(w)]),
            ("rem.s", w, ["r", "r"], [w], ("rem", (f"s{t}",)),
             lambda a, b, w=w: [(sx(a, w) - trunc_div(sx(a, w), sx(b, w)) * sx(b, w)) & M(w) if b else a]),
            ("min.u", w, ["r", "r"], [w], ("min", (f"u{t}",)), lambda a, b: [min(a, b)]),
            ("max.s", w, ["r", "r"], [w], ("max", (f"s{t}",)),
             lambda a, b, w=w: [max(sx(a, w), sx(b, w)) & M(w)]),
            ("min.s", w, ["r", "r"], [w], ("min", (f"s{t}",)),
             lambda a, b, w=w: [min(sx(a, w), sx(b, w)) & M(w)]),
            ("abs", w, ["r"], [w], ("abs", (f"s{t}",)), lambda a, w=w: [abs(sx(a, w)) & M(w)]),
            ("neg", w, ["r"], [w], ("neg", (f"s{t}",)), lambda a, w=w: [(-a) & M(w)]),
            ("and", w, ["r", "r"], [w], ("and", (f"b{t}",)), lambda a, b: [a & b]),
            ("or", w, ["r", "imm"], [w], ("or", (f"b{t}",)), lambda a, b: [a | b]),
            ("xor", w, ["r", "r"], [w], ("xor", (f"b{t}",)), lambda a, b: [a ^ b]),
            ("not", w, ["r"], [w], ("not", (f"b{t}",)), lambda a, w=w: [~a & M(w)]),
            ("cnot", w, ["r"], [w], ("cnot", (f"b{t}",)), lambda a: [int(a == 0)]),
            ("shl", w, ["r", "sh"], [w], ("shl", (f"b{t}",)), lambda a, b, w=w: [(a << b) & M(w) if b < w else 0]),
            ("shr.u", w, ["r", "sh"], [w], ("shr", (f"u{t}",)), lambda a, b, w=w: [a >> b if b < w else 0]),
            ("shr.s", w, ["r", "sh"], [w], ("shr", (f"s{t}",)),
             lambda a, b, w=w: [(sx(a, w) >> min(b, w - 1)) & M(w)]),
            ("popc", w, ["r"], [32], ("popc", (f"b{t}",)), lambda a: [bin(a).count("1")]),
            ("clz", w, ["r"], [32], ("clz", (f"b{t}",)), lambda a, w=w: [w - a.bit_length()]),
            ("sad.s", w, ["r", "r", "r"], [w], ("sad", (f"s{t}",)),
             lambda a, b, c, w=w: [(abs(sx(a, w) - sx(b, w)) + c) & M(w)]),
        ]
        if w >= 32:
            ops += [
                ("bfe.u", w, ["r", "u32", "u32"], [w], ("bfe", (f"u{t}",)),
                 lambda a, b, c, w=w: [r_bfe(a, b, c, w, False)]),
                ("bfe.s", w, ["r", "u32", "u32"], [w], ("bfe", (f"s{t}",)),
                 lambda a, b, c, w=w: [r_bfe(a, b, c, w, True)]),
                ("bfi", w, ["r", "r", "u32", "u32"], [w], ("bfi", (f"b{t}",)),
                 lambda a, b, c, d, w=w: [r_bfi(a, b, c, d, w)]),
                ("bfind.u", w, ["r"], [32], ("bfind", (f"u{t}",)), lambda a, w=w: [r_bfind(a, w, False, False)]),
                ("bfind.s", w, ["r"], [32], ("bfind", (f"s{t}",)), lambda a, w=w: [r_bfind(a, w, True, False)]),
                ("bfind.shiftamt", w, ["r"], [32], ("bfind", ("shiftamt", f"u{t}")),
                 lambda a, w=w: [r_bfind(a, w, False, True)]),
                ("brev", w, ["r"], [w], ("brev", (f"b{t}",)), lambda a, w=w: [r_brev(a, w)]),
            ]
        if w <= 32:
            ops += [
                ("mul.wide.s", w, ["r", "r"], [2 * w], ("mul", ("wide", f"s{t}")),
                 lambda a, b, w=w: [(sx(a, w) * sx(b, w)) & M(2 * w)]),
                ("mul.wide.u", w, ["r", "r"], [2 * w], ("mul", ("wide", f"u{t}")), lambda a, b: [a * b]),
                ("mad.wide.u", w, ["r", "r", "r2"], [2 * w], ("mad", ("wide", f"u{t}")),
                 lambda a, b, c, w=w: [(a * b + c) & M(2 * w)]),
            ]
    ops += [
        ("shf.l.wrap", 32, ["r", "r", "u32"], [32], ("shf", ("l", "wrap", "b32")),
         lambda a, b, c: [(((b << 32 | a) << (c & 31)) >> 32) & M(32)]),
        ("shf.r.clamp", 32, ["r", "r", "u32"], [32], ("shf", ("r", "clamp", "b32")),
         lambda a, b, c: [((b << 32 | a) >> min(c, 32)) & M(32)]),
        ("shf.l.clamp", 32, ["r", "r", "u32"], [32], ("shf", ("l", "clamp", "b32")),
         lambda a, b, c: [(((b << 32 | a) << min(c, 32)) >> 32) & M(32)]),
        ("prmt", 32, ["r", "r", "r"], [32], ("prmt", ("b32",)), lambda a, b, c: [r_prmt(a, b, c)]),
        ("lop3", 32, ["r", "r", "r", "lut"], [32], ("lop3", ("b32",)), lambda a, b, c, lut: [r_lop3(a, b, c, lut)]),
    ]
    for sw, dw in ((32, 16), (16, 32), (64, 32), (32, 64), (16, 64), (64, 16)):
        for ss in ("u", "s"):
            for ds in ("u", "s"):
                ops.append((f"cvt.{ds}{dw}.{ss}{sw}", sw, ["r"], [dw], ("cvt", (f"{ds}{dw}", f"{ss}{sw}")),
                            lambda a, sw=sw, dw=dw, ss=ss: [(sx(a, sw) if ss == "s" else a) & M(dw)]))
        ops.append((f"cvt.sat.s{dw}.s{sw}", sw, ["r"], [dw], ("cvt", ("sat", f"s{dw}", f"s{sw}")),
                    lambda a, sw=sw, dw=dw: [max(-(1 << (dw - 1)), min((1 << (dw - 1)) - 1, sx(a, sw))) & M(dw)]))
        ops.append((f"cvt.sat.u{dw}.s{sw}", sw, ["r"], [dw], ("cvt", ("sat", f"u{dw}", f"s{sw}")),
                    lambda a, sw=sw, dw=dw: [max(0, min(M(dw), sx(a, sw)))]))
    for w in (32, 64):
        ops += [
            ("add.cc+addc", w, ["r", "r", "r", "r"], [w, w], "carry_add",
             lambda a, b, c, d, w=w: [(a + b) & M(w), (c + d + ((a + b) >> w)) & M(w)]),
            ("sub.cc+subc", w, ["r", "r", "r", "r"], [w, w], "carry_sub",
             lambda a, b, c, d, w=w: [(a - b) & M(w), (c - d - int(a < b)) & M(w)]),
            ("mad.lo.cc+madc.hi", w, ["r", "r", "r", "r"], [w, w], "carry_mad",
             lambda a, b, c, d, w=w: [((a * b) + c) & M(w),
                                      (((a * b) >> w) + d + ((((a * b) & M(w)) + c) >> w)) & M(w)]),
        ]
    for cmp in ("eq", "ne", "lt", "le", "gt", "ge", "lo", "ls", "hi", "hs"):
        for w in WIDTHS:
            for sgn in ("u", "s"):
                if cmp in ("lo", "ls", "hi", "hs") and sgn == "s":
                    continue
                ops.append((f"setp.{cmp}.{sgn}{w}+selp", w, ["r", "r", "r", "r"], [w], ("setp", cmp, f"{sgn}{w}"),
                            lambda a, b, c, d, cmp=cmp, w=w, sgn=sgn: [c if _cmp(cmp, a, b, w, sgn) else d]))
    return ops


def _cmp(cmp, a, b, w, sgn):
    if sgn == "s":
        a, b = sx(a, w), sx(b, w)
    return {"eq": a == b, "ne": a != b, "lt": a < b, "le": a <= b, "gt": a > b, "ge": a >= b,
            "lo": a < b, "ls": a <= b, "hi": a > b, "hs": a >= b}[cmp]


OPS = build_ops()
# sample a family first so the 48 setp/selp and 36 cvt variants do not crowd out the rest
FAMILIES: dict[str, list] = {}
for _op in OPS:
    FAMILIES.setdefault(_op[0].split(".")[0].split("+")[0], []).append(_op)
FAMILY_NAMES = sorted(FAMILIES)


# ------------------------------------------------------------------ program construction (IR, no parser)
def ins(opc, mods, *operands, guard=None):
    return ir.Instruction(opc, tuple(mods), tuple(operands), guard)


def R(name):
    return ir.Reg(name)


@st.composite
def programs(draw):
    n = draw(st.integers(1, 12))
    steps = []
    for _ in range(n):
        op = draw(st.sampled_from(FAMILIES[draw(st.sampled_from(FAMILY_NAMES))]))
        srcs = []
        for kind in op[2]:
            if kind == "imm":
                srcs.append(("imm", draw(st.integers(0, M(op[1])))))
            elif kind == "sh":
                w = op[1]
                srcs.append(("sh", draw(st.sampled_from([0, 1, w - 1, w, w + 1, 255]) | st.integers(0, w + 8))))
            elif kind == "u32":
                srcs.append(("u32", draw(st.sampled_from([0, 1, 31, 32, 33, 63, 64, 255, 256 + 3]) |
                                         st.integers(0, 300))))
            elif kind == "lut":
                srcs.append(("lut", draw(st.integers(0, 255))))
            else:
                srcs.append((kind, draw(st.integers(0, 1000))))  # which register (mod pool size)
        steps.append((op, srcs))
    seed = draw(st.integers(0, 2 ** 32 - 1))
    return steps, seed


def build_kernel(steps):
    pools = {w: [f"%in{w}_{j}" for j in range(NIN)] for w in WIDTHS}
    regs = {w: list(pools[w]) for w in WIDTHS}
    decls = [ir.RegDecl("b64", (("%base", None), ("%addr", None), ("%off", None), ("%out", None),
                                ("%wide", None)))]
    decls += [ir.RegDecl(f"b{w}", tuple((r, None) for r in regs[w])) for w in WIDTHS]
    decls += [ir.RegDecl("b32", (("%tid", None),)), ir.RegDecl("pred", (("%p", None),))]
    code: list = [ins("mov", ["u32"], R("%tid"), R("%tid.x"))]
    for w in WIDTHS:
        code += [ins("ld", ["param", "u64"], R("%base"), ir.Addr(ir.Sym(f"in{w}"))),
                 ins("mul", ["wide", "u32"], R("%off"), R("%tid"), ir.Imm(NIN * w // 8)),
                 ins("add", ["s64"], R("%addr"), R("%base"), R("%off"))]
        code += [ins("ld", ["global", f"b{w}"], R(f"%in{w}_{j}"), ir.Addr(R("%addr"), j * w // 8)) for j in range(NIN)]
    outs = []  # (register, width) in store order
    extra_decls = []
    for i, (op, srcs) in enumerate(steps):
        _name, w, _kinds, dws, text, _ = op
        ops_ = []
        for (kind, v) in srcs:
            if kind in ("imm", "sh", "u32", "lut"):
                ops_.append(ir.Imm(v))
            elif kind == "r2":
                pool = regs[2 * w]
                ops_.append(R(pool[v % len(pool)]))
            else:
                pool = regs[w]
                ops_.append(R(pool[v % len(pool)]))
        dsts = [f"%d{i}_{j}" for j in range(len(dws))]
        for d, dw in zip(dsts, dws):
            extra_decls.append(ir.RegDecl(f"b{dw}", ((d, None),)))
        if text == "carry_mad":
            code += [ins("mad", ["lo", "cc", f"u{w}"], R(dsts[0]), ops_[0], ops_[1], ops_[2]),
                     ins("madc", ["hi", f"u{w}"], R(dsts[1]), ops_[0], ops_[1], ops_[3])]
        elif text == "carry_add" or text == "carry_sub":
            o = "add" if text == "carry_add" else "sub"
            code += [ins(o, ["cc", f"u{w}"], R(dsts[0]), ops_[0], ops_[1]),
                     ins(o + "c", [f"u{w}"], R(dsts[1]), ops_[2], ops_[3])]
        elif text[0] == "setp":
            _, cmp, typ = text
            code += [ins("setp", [cmp, typ], R("%p"), ops_[0], ops_[1]),
                     ins("selp", [f"b{w}"], R(dsts[0]), ops_[2], ops_[3], R("%p"))]
        else:
            code.append(ins(text[0], list(text[1]), R(dsts[0]), *ops_))
        for d, dw in zip(dsts, dws):
            regs[dw].append(d)
            outs.append((d, dw))
    code += [ins("ld", ["param", "u64"], R("%base"), ir.Addr(ir.Sym("out"))),
             ins("mul", ["wide", "u32"], R("%off"), R("%tid"), ir.Imm(8 * max(len(outs), 1))),
             ins("add", ["s64"], R("%out"), R("%base"), R("%off"))]
    for k, (d, dw) in enumerate(outs):
        if dw == 64:
            code.append(ins("st", ["global", "b64"], ir.Addr(R("%out"), 8 * k), R(d)))
        else:
            code += [ins("cvt", ["u64", f"u{dw}"], R("%wide"), R(d)),
                     ins("st", ["global", "b64"], ir.Addr(R("%out"), 8 * k), R("%wide"))]
    code.append(ins("ret", []))
    params = [ir.VarDecl("param", "u64", f"in{w}") for w in WIDTHS] + [ir.VarDecl("param", "u64", "out")]
    fn = ir.Function("entry", "k", params, body=decls + extra_decls + code)
    mod = ir.Module("", "<hypothesis>", [ir.Directive("version", "8.0"), fn])
    return mod, outs


def reference(steps, inputs, lane):
    regs = {}
    for w in WIDTHS:
        for j in range(NIN):
            regs[f"%in{w}_{j}"] = int(inputs[w][lane * NIN + j])
    pools = {w: [f"%in{w}_{j}" for j in range(NIN)] for w in WIDTHS}
    out = []
    for i, (op, srcs) in enumerate(steps):
        _name, w, _kinds, dws, _text, ref = op
        vals = []
        for (kind, v) in srcs:
            if kind in ("imm", "sh", "u32", "lut"):
                vals.append(v)
            else:
                pool = pools[2 * w] if kind == "r2" else pools[w]
                vals.append(regs[pool[v % len(pool)]])
        res = ref(*vals)
        for j, (r, dw) in enumerate(zip(res, dws)):
            d = f"%d{i}_{j}"
            regs[d] = r & M(dw)
            pools[dw].append(d)
            out.append(r & M(dw))
    return out


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(programs())
def test_straight_line_integer_matches_bigint(prog):
    from ptxkit.exec_sim.args import KernelArg
    from ptxkit.exec_sim.launch import run_kernel

    steps, seed = prog
    rng = np.random.default_rng(seed)
    inputs = {}
    for w in WIDTHS:
        dt = {16: np.uint16, 32: np.uint32, 64: np.uint64}[w]
        raw = rng.integers(0, 2 ** 63, LANES * NIN, dtype=np.uint64) * np.uint64(2) + rng.integers(0, 2, LANES * NIN,
                                                                                                      dtype=np.uint64)
        # a few edge values: 0, 1, all ones, the sign bit
        edges = np.array([0, 1, M(w), 1 << (w - 1), M(w) >> 1], dtype=np.uint64)
        raw[: len(edges)] = edges
        rng.shuffle(raw)
        inputs[w] = (raw & np.uint64(M(w))).astype(dt)
    mod, outs = build_kernel(steps)
    args = [KernelArg(f"in{w}", k, f"in{w}", "buffer", f"u{w}", data=inputs[w]) for k, w in enumerate(WIDTHS)]
    args.append(KernelArg("out", 3, "out", "buffer", "u64", data=np.zeros(LANES * max(len(outs), 1), np.uint64)))
    res = run_kernel(mod, None, args, 1, LANES)
    got = res.buffers["out"].reshape(LANES, -1)
    for lane in range(LANES):
        want = reference(steps, inputs, lane)
        for k, (v, (op, _)) in enumerate(zip(want, [(s[0], None) for s in steps for _ in s[0][3]])):
            assert int(got[lane, k]) == v, (f"lane {lane}, result {k} of {op[0]} (.{op[1]}): "
                                           f"simulator {int(got[lane, k]):#x} != reference {v:#x}")
