"""FPSan on PTX: rewrite every floating-point instruction into integer PTX computing
``φ⁻¹(F(φ(a), …))`` (docs/fpsan.md, bit-compatible with Triton 3.9.0's FPSan).

Entry points: :func:`sanitize_module` (edits a parsed ``ir.Module`` through ``Module.replace`` /
``insert_before``; ``ptxkit.ptx.emit.emit`` prints the result) and :func:`sanitize_text`.

Cost: a payload computed by one rewritten instruction stays in a shadow register for the following
float instructions of the same straight-line run (until a label, a nested block, or a write of the
register); the φ⁻¹ that stores a result back into its float register is dropped when every read of
that register is served by the shadow. Stored bits are the same, only fewer instructions execute.

PTX-level decisions (fpsan.md §3): rounding/``.ftz`` are ignored; ``.sat``/``.relu`` are signed clamps
of the payload (``ptxkit.fpsan.ops``); float immediates are embedded at rewrite time; packed types are
two lanes; an inlined ``__nv_sinf``/``__nv_cosf`` body (Triton's ``tl.sin``/``tl.cos``) runs natively
and its result is replaced by the ring sin/cos at the body's exit, other inlined libdevice bodies are
reported as a line range; Triton's ``tl.log`` idiom (``lg2.approx`` then ``mul 0f3F317218``) is the
tagged Log; ``xor.bN`` with the sign mask is LLVM's folded ``-x`` but also integer code, so it is a
note unless ``sign_xor_as_neg``; float ``atom/red.add`` stay native unless ``atomics='ring'`` (CAS
loops on ring addition); ``min/max.xorsign.abs``, ``tanh.approx`` and same-type
``cvt.rni/.rzi/.rmi/.rpi`` follow the models documented in ``ptxkit.fpsan.ops``; ``mma``/``wgmma``
(expansion chosen by the ``mma`` option) and ``wmma.mma`` go to ``ptxkit.fpsan.mma.rewrite_mma(instr, ctx)`` (the
context API is documented in ``ptxkit.fpsan.ctx``). A file carrying :data:`MARKER` is left unchanged.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ptxkit import ir
from ptxkit.errors import Diagnostic, PtxkitError
from ptxkit.fpsan import ring as R
from ptxkit.fpsan.ctx import BITS_KIND, KIND_BITS, NATIVE_COPY, RewriteContext, Unembed, guard_text, operand_text
from ptxkit.fpsan.ops import LANE_TYPE, NATIVE, TABLE, OpInfo, elementwise, float_type_of, rewrite_cvt
from ptxkit.fpsan.report import ERROR, NOTE, ReportItem, SanitizeReport, Verdict, native_verdict
from ptxkit.ptx.types import FLOAT_TYPES

MARKER = "// ptxkit sanitize: FPSan (Triton 3.9 ring semantics) applied"

# libdevice bodies Triton/LLVM inline whose result is one instruction we model exactly
_SIMPLE_LIBDEVICE = {"exp2f", "exp2", "fmul_rn", "fadd_rn", "fsub_rn", "dmul_rn", "dadd_rn", "fmaf", "fma",
                     "fmaf_rn", "fminf", "fmaxf", "fmin", "fmax", "fsqrt_rn", "dsqrt_rn", "frcp_rn",
                     "fdiv_rn", "ddiv_rn", "isinff", "isnanf", "isinfd", "isnand", "fabsf", "fabs",
                     "float2int_rn", "int2float_rn", "copysignf", "signbitf", "fast_exp2f", "ex2_approx_f"}
_NV_EXIT = re.compile(r"//\s*%__nv_(\w+?)\.exit\s*$", re.M)
_SCOPE_MODS = {"global", "shared", "shared::cta", "shared::cluster", "gpu", "sys", "cta", "cluster",
               "relaxed", "acquire", "release", "acq_rel"}
_NO_DEST = {"st", "red", "bra", "brx", "ret", "exit", "membar", "fence", "prefetch", "prefetchu", "trap",
            "brkpt", "pmevent", "stmatrix", "cp", "griddepcontrol", "setmaxnreg"}


@dataclass
class SanitizeResult:
    text: str
    report: SanitizeReport


# ------------------------------------------------------------------------------ small IR helpers

def _regs(op) -> list[str]:
    if isinstance(op, (ir.Reg, ir.Sym)):  # registers declared without '%' parse as Sym
        return [op.name]
    if isinstance(op, ir.Addr):
        return [op.base.name] if isinstance(op.base, ir.Reg) else []
    if isinstance(op, (ir.Vec, ir.ParamList)):
        return [r for i in op.items for r in _regs(i)]
    if isinstance(op, ir.Pipe):
        return _regs(op.a) + _regs(op.b)
    if isinstance(op, ir.Not):
        return _regs(op.operand)
    return []


def _writes(instr: ir.Instruction) -> list[str]:
    """Registers an instruction may write (over-approximated: operand 0 whatever the opcode)."""
    if not instr.operands:
        return []
    if instr.opcode in ("wgmma", "tcgen05"):
        return [r for o in instr.operands for r in _regs(o)]
    return _regs(instr.operands[0])


def _unique_prefix(source: str, base: str) -> str:
    """A name prefix that occurs nowhere in the file, so fresh names cannot clash."""
    n = 0
    cand = base
    while cand in source:
        n += 1
        cand = f"{base}{n}x"
    return cand


def _reg_types(fn: ir.Function, module: ir.Module) -> dict[str, str]:
    types: dict[str, str] = {}
    for item in module.items:
        if isinstance(item, ir.VarDecl) and item.space == "reg":
            types[item.name] = item.type
    for p in list(fn.params) + list(fn.ret_params):
        if p.space == "reg":
            types[p.name] = p.type
    for s in fn.statements():
        if isinstance(s, ir.RegDecl):
            for name in s.expand() if all(c is None or c <= 4096 for _, c in s.names) else []:
                types[name] = s.type
            for name, count in s.names:
                if count is not None and count > 4096:
                    types[name + "*"] = s.type
    return types


class _LazyTypes(dict):
    """Register types, with parameterised ranges too large to expand resolved on demand."""

    def get(self, key, default=None):  # type: ignore[override]
        if key in self:
            return dict.get(self, key)
        m = re.match(r"^(.*?)(\d+)$", key)
        if m and (m.group(1) + "*") in self:
            return dict.get(self, m.group(1) + "*")
        return default


# ------------------------------------------------------------------------------ the pass

def sanitize_module(module: ir.Module, *, homomorphic_casts: bool = False, atomics: str = "native",
                    strict: bool = False, sign_xor_as_neg: bool = False, mma: str = "shuffle") -> SanitizeReport:
    """Rewrite ``module`` in place (through its edit list). Returns the report; with ``strict``, a
    report with errors raises :class:`PtxkitError` listing every unsanitized instruction.

    ``sign_xor_as_neg``: treat ``xor.bN d, a, signmask`` as a float negation. LLVM folds
    ``bitcast(fneg(bitcast x))`` into that integer xor (Triton's ``-x`` on loaded bits), so the float
    op is invisible at the PTX level; ring negation differs from the xor only at ±0 (φ(−x) = −φ(x)
    for x ≠ ±0), where it keeps the zero. Off by default: integer code (radix-sort keys) uses the
    same xor. Without it such xors are reported as notes.

    ``mma``: how 16-bit-input float ``mma.sync`` is expanded (``ptxkit.fpsan.mma``): ``shuffle``
    (the default: integer instructions only), ``limbs`` (f16/tf32 ``mma`` on 8-bit limbs of the
    payloads, no data exchange: every partial sum is an integer below 2^24, so the float accumulation
    is exact whatever its order — argued, not yet checked on hardware) or ``auto`` (limbs in functions
    with many mma, where ptxas time on the shuffles grows: 52 s vs 3 s on triton_attn_fwd_sm80)."""
    if mma not in ("auto", "shuffle", "limbs"):
        raise PtxkitError(f"mma expansion must be 'auto', 'shuffle' or 'limbs', not {mma!r}", file=module.filename)
    if atomics not in ("native", "ring"):
        raise PtxkitError(f"--atomics must be 'native' or 'ring', not {atomics!r}", file=module.filename)
    report = SanitizeReport(module.filename, atomics=atomics, homomorphic_casts=homomorphic_casts)
    report.already_sanitized = MARKER in module.source
    if report.already_sanitized:
        return report  # sanitizing a sanitized file changes nothing (docs/cli.md)
    prefix = _unique_prefix(module.source, "%fps")
    label_prefix = _unique_prefix(module.source, "$fps_L")
    label_counter = [0]
    for fn in module.functions():
        if fn.body is None:
            continue
        report.functions += 1
        if not any(i.opcode == "xor" or any(m in FLOAT_TYPES for m in i.mods) for i in fn.instructions()):
            continue  # nothing to rewrite or report: most functions of integer-heavy files
        _sanitize_function(module, fn, report, prefix=prefix, label_prefix=label_prefix,
                           homomorphic_casts=homomorphic_casts, atomics=atomics, label_counter=label_counter,
                           sign_xor_as_neg=sign_xor_as_neg, mma=mma)
    if report.rewritten and not report.already_sanitized:
        first = module.items[0] if module.items else None
        if first is not None and first.span is not None:
            module.edits.append(ir.Edit(0, 0, [MARKER]))
    if strict and report.errors:
        raise PtxkitError([Diagnostic(module.filename, i.line, i.col,
                                      f"{'not sanitized' if i.native else 'not Triton-exact'}: {i.opcode}: {i.reason}",
                                      module.line_text(i.line))
                           for i in report.errors])
    return report


def _sanitize_function(module: ir.Module, fn: ir.Function, report: SanitizeReport, *, prefix: str,
                       label_prefix: str, homomorphic_casts: bool, atomics: str, label_counter: list,
                       sign_xor_as_neg: bool = False, mma: str = "shuffle") -> None:
    types = _LazyTypes(_reg_types(fn, module))
    counter: dict[str, int] = {}
    items_before = len(report.items)

    def report_fn(instr: ir.Instruction, reason: str, severity: str = ERROR, native: bool = True) -> None:
        sp = instr.span
        report.items.append(ReportItem(sp.line if sp else 0, sp.col if sp else 0,
                                       ".".join((instr.opcode,) + instr.mods), reason, fn.name,
                                       severity=severity, native=native))

    ctx = RewriteContext(prefix=prefix, label_prefix=label_prefix, reg_types=types,
                         homomorphic_casts=homomorphic_casts, report_fn=report_fn, counter=counter)
    ctx.labels = label_counter[0]
    if mma == "auto":
        from ptxkit.fpsan.mma import auto_mode

        mma = auto_mode(sum(1 for i in fn.instructions() if i.opcode == "mma"))
    ctx.mma_mode = mma
    replaced: list[tuple[ir.Instruction, list]] = []
    inserted: list[tuple[ir.Statement, list, bool]] = []  # (anchor, lines, after the anchor?)
    next_def = [0]
    jump_targets = _referenced_labels(module, fn)
    lib_ranges = _libdevice_ranges(module, fn)
    skip_lines = {ln for r in lib_ranges for ln in range(r.start_line, r.end_line)}
    anchors = {id(r.anchor): r for r in lib_ranges}

    def emit_lib(r: _LibRange) -> list:
        ctx.lines = []
        next_def[0] += 1
        ctx.current_def = next_def[0]
        from ptxkit.fpsan.ops import emit_sincos

        p = ctx.embed(ir.Reg(r.input), "f32")
        ctx.define(ir.Reg(r.output), emit_sincos(ctx, p, 32, r.op), "f32", None)
        report.rewritten += 1
        report.items.append(ReportItem(r.start_line, 1, f"libdevice:__nv_{r.name}",
                                       f"inlined libdevice body of __nv_{r.name} runs natively; its result is "
                                       f"replaced by the ring {r.op} (Triton's FPSan op for math.{r.op})",
                                       fn.name, end_line=r.end_line, severity=NOTE))
        lines, ctx.lines = ctx.lines, []
        return [f"// fpsan: ring {r.op} of {r.input} replaces the result of the inlined __nv_{r.name}"] + lines

    def walk(body: list[ir.Statement]) -> None:
        for s in body:
            lib = anchors.get(id(s))
            if isinstance(s, ir.Block):
                ctx.clear()
                walk(s.body)
                ctx.clear()
            elif isinstance(s, ir.Label):
                if lib is not None or s.name in jump_targets:
                    ctx.clear()  # a join point: payloads of one predecessor are not valid here
                if lib is not None:
                    inserted.append((s, emit_lib(lib), True))
            elif isinstance(s, ir.Instruction):
                if lib is not None:
                    inserted.append((s, emit_lib(lib), False))
                if s.span is not None and s.span.line in skip_lines:
                    native(s)  # the inlined body runs natively; its result is replaced at the exit
                else:
                    visit(s)

    def native(instr: ir.Instruction) -> None:
        # operand registers are reads of their float bits, attributed to the definition reaching them
        # when known. The destination is a read too unless it is a plain unguarded write (a guarded
        # write keeps the old value; wgmma and video ops with byte selectors read their destination)
        plain = (instr.guard is None and instr.opcode not in _NO_DEST and bool(instr.operands)
                 and isinstance(instr.operands[0], (ir.Reg, ir.Sym, ir.Vec))
                 and instr.opcode not in ("wgmma", "tcgen05") and not instr.opcode.startswith("v"))
        for o in instr.operands[1:] if plain else instr.operands:
            for r in _regs(o):
                ctx.bit_reads.append((r, ctx.last_write.get(r)))
        for r in _writes(instr):
            ctx.invalidate(r)
        if plain:
            for r in _writes(instr):
                ctx.last_write[r] = NATIVE_COPY

    def visit(instr: ir.Instruction) -> None:
        ctx.lines = []
        next_def[0] += 1
        ctx.current_def = next_def[0]
        n_items = len(report.items)
        done = _rewrite(instr, ctx, atomics)
        if done is False and _sign_xor(instr):
            if sign_xor_as_neg:
                done = _rewrite_sign_xor(instr, ctx)
            else:
                report_fn(instr, "sign-bit xor: possibly a float negation folded by LLVM; left as a bit move "
                          "(differs from ring negation only at ±0; --sign-xor-as-neg rewrites it)", NOTE)
        if done is True:
            replaced.append((instr, ctx.lines))
            report.rewritten += 1
            if any(m in ("rm", "rp") for m in instr.mods) and instr.opcode != "cvt":
                report_fn(instr, "sanitized like any other op (rounding is irrelevant in the ring), but directed "
                          "rounding (.rm/.rp) marks an inlined libm body (nvcc's expf/logf…): the body's result "
                          "is then not the single FPSan op Triton applies to the function", native=False)
        else:
            if isinstance(done, str):
                report_fn(instr, done)
            elif isinstance(done, Verdict):
                report_fn(instr, done.reason, done.severity, done.native)
            elif len(report.items) == n_items:
                if _is_float_arith(instr):
                    report_fn(instr, f"no FPSan rewrite for {instr.opcode}")
                elif (v := native_verdict(instr)) is not None and any(m in FLOAT_TYPES for m in instr.mods):
                    report_fn(instr, v.reason, v.severity, v.native)
            native(instr)
            if (instr.opcode == "mov" and instr.guard is None and len(instr.operands) == 2
                    and all(isinstance(o, ir.Reg) for o in instr.operands)):
                ctx.copy_shadow(instr.operands[0].name, instr.operands[1].name)
        ctx.lines = []

    walk(fn.body or [])
    label_counter[0] = ctx.labels

    # which φ⁻¹ tails can go. A read served by a shadow of definition X happens in X's straight-line
    # run with no write of the register in between: it uses X's payload, not float bits. Reads that
    # need the bits (native reads, embeds of the register) keep the tail of the definition reaching
    # them — known within a straight-line run, else (None) every definition of the register keeps
    # its tail. Function results and module-level registers (visible elsewhere) always keep.
    unknown = {reg for reg, d in ctx.bit_reads if d is None}
    needed = {(reg, d) for reg, d in ctx.bit_reads if d is not None}
    live_out = {p.name for p in list(fn.params) + list(fn.ret_params) if p.space == "reg"}
    live_out |= {i.name for i in module.items if isinstance(i, ir.VarDecl) and i.space == "reg"}

    def keep(u: Unembed) -> bool:
        return u.reg in live_out or u.reg in unknown or (u.reg, u.def_id) in needed

    def expand(lines: list) -> list[str]:
        out = []
        for ln in lines:
            if isinstance(ln, Unembed):
                if keep(ln):
                    out.extend(ln.lines)
            else:
                out.append(ln)
        return out

    # one string per line, indented: ptxkit.ptx.emit prints each item of an edit as one line
    for instr, lines in replaced:
        head = [f"\t// fpsan: {_original(module, instr)}"] if _alone_on_line(module, instr) else []
        module.replace(instr, head + ["\t" + ln for ln in expand(lines)])
    for anchor, lines, after in inserted:
        new = ["\t" + ln for ln in expand(lines)]
        if after:  # below the label's line (its trailing comment stays with it)
            module.insert_after(anchor, new)
        else:
            module.insert_before(anchor, new)

    _report_libdevice(module, fn, report, items_before, {r.end_line for r in lib_ranges})

    if counter:
        decls = [f".reg .{'pred' if k == 'pred' else k} {prefix}{k}_<{n}>;" for k, n in sorted(counter.items())
                 if k in KIND_BITS]
        first = next((s for s in fn.body or [] if s.span is not None), None)
        if first is not None and decls:
            module.insert_before(first, ["\t" + d for d in decls])


_IDENT = re.compile(r"[$%\w.]+")


def _referenced_labels(module: ir.Module, fn: ir.Function) -> set[str]:
    """Labels named anywhere in the function besides their definition (branches, ``.branchtargets``):
    only these can be reached other than by falling through. Unreferenced ones — ``$L__tmpN`` line-info
    labels that only the DWARF sections outside the function name — do not end a straight-line run."""
    labels = {s.name for s in fn.statements() if isinstance(s, ir.Label)}
    if not labels or fn.span is None:
        return labels
    counts: dict[str, int] = {}
    for tok in _IDENT.findall(module.source[fn.span.start:fn.span.end]):
        if tok in labels:
            counts[tok] = counts.get(tok, 0) + 1
    return {name for name in labels if counts.get(name, 0) != 1}


def _alone_on_line(module: ir.Module, node: ir.Statement) -> bool:
    """Whether ``node`` is the only statement of its line (then a ``//`` comment line is safe)."""
    src, sp = module.source, node.span
    ls = src.rfind("\n", 0, sp.start) + 1
    le = src.find("\n", sp.end)
    rest = src[sp.end:le if le >= 0 else len(src)].strip()
    return not src[ls:sp.start].strip() and (not rest or rest.startswith("//"))


def _original(module: ir.Module, instr: ir.Instruction) -> str:
    if instr.span is None:
        return instr.opcode
    return " ".join(module.source[instr.span.start:instr.span.end].split())


def _is_float_arith(instr: ir.Instruction) -> bool:
    if instr.opcode in NATIVE:
        return False
    if instr.opcode == "wmma" and instr.mods and instr.mods[0] in ("load", "store"):
        return False  # fragment loads/stores are bit moves
    if instr.opcode == "cvt":
        return False  # float<->float cvts are handled or reported by rewrite_cvt
    return any(m in FLOAT_TYPES for m in instr.mods)


def _rewrite(instr: ir.Instruction, ctx: RewriteContext, atomics: str) -> bool | str | Verdict:
    """Dispatch: True when replaced, a reason string when it is float work left native, else False."""
    op = instr.opcode
    if op == "cvt":
        return rewrite_cvt(instr, ctx)
    if op in ("mma", "wgmma") and any(m in FLOAT_TYPES for m in instr.mods):
        from ptxkit.fpsan.mma import rewrite_mma, why_not_modelled

        if rewrite_mma(instr, ctx):
            return True
        return f"{op}: {why_not_modelled(instr) or 'this shape/type is not modelled'}"
    if op == "wmma" and instr.mods[:1] == ("mma",):
        from ptxkit.fpsan.mma import rewrite_wmma

        return rewrite_wmma(instr, ctx)
    if op in ("atom", "red"):
        return _rewrite_atomic(instr, ctx, atomics)
    ft = float_type_of(instr)
    if ft is None or op not in TABLE:
        return False
    if op in ("min", "max") and "abs" in instr.mods and "xorsign" not in instr.mods:
        return f"{op}.abs without .xorsign is not modelled"
    info = OpInfo(LANE_TYPE.get(ft, ft), ft if ft in LANE_TYPE else None)
    compute, nsrc = TABLE[op]
    ok = elementwise(instr, ctx, info, compute, nsrc)
    return True if ok else f"{op}: operand form not modelled"


def _sign_xor(instr: ir.Instruction) -> int:
    """Width of ``xor.bN d, a, signmask`` (either operand order), else 0."""
    if instr.opcode != "xor" or len(instr.mods) != 1 or instr.mods[0] not in ("b16", "b32", "b64"):
        return 0
    w = int(instr.mods[0][1:])
    ops = instr.operands
    if len(ops) != 3 or not isinstance(ops[0], ir.Reg):
        return 0
    imms = [o for o in ops[1:] if isinstance(o, ir.Imm)]
    regs = [o for o in ops[1:] if isinstance(o, ir.Reg)]
    if len(imms) == 1 and len(regs) == 1 and imms[0].value % (1 << w) == 1 << (w - 1):
        return w
    return 0


def _rewrite_sign_xor(instr: ir.Instruction, ctx: RewriteContext) -> bool:
    """Ring negation of whatever float type: a ^ sign, except ±0 which stay (type-independent)."""
    w = _sign_xor(instr)
    k = BITS_KIND[w]
    a = next(o for o in instr.operands[1:] if isinstance(o, ir.Reg)).name
    d = instr.operands[0].name
    t, x, p = ctx.fresh(k), ctx.fresh(k), ctx.fresh("pred")
    ctx.emit(f"and.b{w} {t}, {a}, {hex((1 << (w - 1)) - 1)}")
    ctx.emit(f"setp.eq.b{w} {p}, {t}, 0")
    ctx.emit(f"xor.b{w} {x}, {a}, {hex(1 << (w - 1))}")
    ctx.reads.append((a, None))
    ctx.bit_reads.append((a, ctx.last_write.get(a)))
    ctx.invalidate(d)
    ctx.emit(f"{guard_text(instr.guard)}selp.b{w} {d}, {a}, {x}, {p}")
    return True


_NATIVE_ATOMIC = Verdict("float atomic add left native, as Triton's FPSan leaves it (the float sum then depends on "
                         "the order of the atomics); --atomics ring makes it an order-independent ring sum", NOTE)


def _rewrite_atomic(instr: ir.Instruction, ctx: RewriteContext, atomics: str) -> bool | str | Verdict:
    ft = float_type_of(instr)
    if ft is None:
        return False
    if "add" not in instr.mods:
        if "exch" in instr.mods or "cas" in instr.mods:
            return False  # bit moves
        return f"float {instr.opcode} other than add is not modelled"
    if atomics != "ring":
        return _NATIVE_ATOMIC
    if ft not in ("f16", "bf16", "f32", "f64") or any(m.startswith("v") and m[1:].isdigit() for m in instr.mods):
        return f"--atomics ring: {ft}/vector atomics not modelled"
    ops = instr.operands
    if instr.opcode == "atom":
        if len(ops) != 3:
            return "atom operand form not modelled"
        dest, addr, val = ops
    else:
        if len(ops) != 2:
            return "red operand form not modelled"
        dest, (addr, val) = None, ops
    if not isinstance(addr, ir.Addr):
        return "atomic address form not modelled"
    w = R.ring(ft).w
    k = BITS_KIND[w]
    keep = [m for m in instr.mods if m in _SCOPE_MODS]
    cas = ".".join(["atom"] + keep + ["cas", f"b{w}"])
    space = next((m for m in instr.mods if m.startswith("global") or m.startswith("shared")), None)
    ld = ".".join(["ld"] + ([space] if space else []) + ["volatile", f"b{w}"]) if space else f"ld.volatile.b{w}"
    skip = ctx.fresh_label() if instr.guard is not None else None
    if skip:
        g = instr.guard
        ctx.emit(f"@{'' if g.negated else '!'}{g.pred} bra.uni {skip}")
    pb = ctx.embed(val, ft)
    if pb.startswith("0x"):
        t = ctx.fresh(k)
        ctx.emit(f"mov.b{w} {t}, {pb}")
        pb = t
    old, prev, p = ctx.fresh(k), ctx.fresh(k), ctx.fresh("pred")
    a = operand_text(addr)
    loop = ctx.fresh_label()
    ctx.emit(f"{ld} {old}, {a}")
    ctx.emit(f"{loop}:")
    pa = ctx.embed_value(old, ft)  # not cached: old changes every iteration
    s = ctx.fresh(k)
    ctx.emit(f"add.s{w} {s}, {pa}, {pb}")
    new = ctx.unembed_to_fresh(s, ft)
    ctx.emit(f"{cas} {prev}, {a}, {old}, {new}")
    ctx.emit(f"setp.ne.b{w} {p}, {prev}, {old}")
    ctx.emit(f"mov.b{w} {old}, {prev}")
    ctx.emit(f"@{p} bra.uni {loop}")
    if dest is not None and isinstance(dest, (ir.Reg, ir.Sym)):
        ctx.invalidate(dest.name)
        ctx.emit(f"mov.b{w} {dest.name}, {old}")
    if skip:
        ctx.emit(f"{skip}:")
    return True


@dataclass
class _LibRange:
    """An inlined libdevice body recognised as one FPSan op: lines [start_line, end_line) run natively
    and ``output = φ⁻¹(op(φ(input)))`` is inserted at its exit (``anchor``)."""

    name: str
    op: str
    start_line: int
    end_line: int
    input: str
    output: str
    anchor: ir.Statement


_LIB_RING = {"sinf": "sin", "cosf": "cos"}
_TWO_OVER_PI = ir.FloatImm(0x3F22F983, 32)  # libdevice sinf/cosf start with x·2/π


def _libdevice_ranges(module: ir.Module, fn: ir.Function) -> list[_LibRange]:
    """Recognise inlined ``__nv_sinf``/``__nv_cosf`` (Triton's ``tl.sin``/``tl.cos``). Sound only under
    checks: the body starts with ``mul.f32 t, x, 0f3F22F983``, x is written nowhere in the body, and of
    everything the body computes from its float work exactly one register is read after the exit."""
    if fn.span is None or "__nv_" not in module.source[fn.span.start:fn.span.end]:
        return []
    text = module.source[fn.span.start:fn.span.end]
    stmts = [s for s in fn.statements() if s.span is not None]
    out: list[_LibRange] = []
    prev = fn.span.line
    for m in _NV_EXIT.finditer(text):
        name = m.group(1)
        line = fn.span.line + text.count("\n", 0, m.start())
        op = _LIB_RING.get(name)
        lo, prev = prev, line
        if op is None:
            continue
        body = [s for s in stmts if isinstance(s, ir.Instruction) and lo <= s.span.line < line]
        starts = [i for i, s in enumerate(body) if s.opcode == "mul" and "f32" in s.mods
                  and len(s.operands) == 3 and s.operands[2] == _TWO_OVER_PI and isinstance(s.operands[1], ir.Reg)]
        if not starts:
            continue
        body = body[starts[-1]:]
        x = body[0].operands[1].name
        written = {r for s in body for r in _writes(s)}
        if x in written:
            continue
        # everything computed from the body's float work (to a fixpoint: the body has loops)
        tainted = {r for s in body if any(t in FLOAT_TYPES for t in s.mods) for r in _writes(s)}
        while True:
            more = {r for s in body if any(r2 in tainted for o in s.operands[1:] for r2 in _regs(o))
                    for r in _writes(s)} - tainted
            if not more:
                break
            tainted |= more
        after = [s for s in stmts if s.span.line > line or (s.span.line == line and not isinstance(s, ir.Label))]
        read_after = set()
        for s in after:
            if isinstance(s, ir.Instruction):
                ops = s.operands if s.opcode in _NO_DEST else s.operands[1:]
                read_after |= {r for o in ops for r in _regs(o)}
        outs = tainted & read_after  # must be exactly the result: nothing else of the body may leak out
        anchor = next((s for s in stmts if s.span.line >= line), None)
        if len(outs) != 1 or anchor is None or (isinstance(anchor, ir.Label) and anchor.span.line != line):
            continue
        out.append(_LibRange(name, op, body[0].span.line, line, x, outs.pop(), anchor))
    return out


def _report_libdevice(module: ir.Module, fn: ir.Function, report: SanitizeReport, items_before: int,
                      recognised: set[int] = frozenset()) -> None:
    """Inlined libdevice bodies (``// %__nv_sinf.exit`` markers): their float instructions are
    rewritten one by one, which is not Triton's single tagged/closed-form op — report the range."""
    if fn.span is None:
        return
    text = module.source[fn.span.start:fn.span.end]
    if "__nv_" not in text:
        return
    base_line = fn.span.line
    prev_end = fn.span.line
    float_lines = [s.span.line for s in fn.instructions()
                   if s.span is not None and (_is_float_arith(s) or (s.opcode == "cvt" and
                                              sum(m in FLOAT_TYPES for m in s.mods) == 2))]
    for m in _NV_EXIT.finditer(text):
        name = m.group(1)
        line = base_line + text.count("\n", 0, m.start())
        if name not in _SIMPLE_LIBDEVICE and line not in recognised:
            inside = [ln for ln in float_lines if prev_end <= ln <= line]
            if inside:
                report.items.append(ReportItem(inside[0], 1, f"libdevice:__nv_{name}",
                                               f"inlined libdevice body of __nv_{name}: its float instructions are "
                                               "sanitized one by one, not as Triton's single FPSan op",
                                               fn.name, end_line=line, native=False))
        prev_end = line


# ------------------------------------------------------------------------------ text API

def sanitize_text(text: str, filename: str = "<input>", **opts) -> SanitizeResult:
    """Parse, sanitize and print. ``opts``: homomorphic_casts, atomics, strict, sign_xor_as_neg, mma."""
    module = _parse(text, filename)
    report = sanitize_module(module, **opts)
    if not module.edits:
        return SanitizeResult(text, report)
    return SanitizeResult(_emit(module), report)


def _parse(text: str, filename: str) -> ir.Module:
    from ptxkit.ptx.parser import parse

    return parse(text, filename)


def _emit(module: ir.Module) -> str:
    from ptxkit.ptx.emit import emit

    return emit(module)
