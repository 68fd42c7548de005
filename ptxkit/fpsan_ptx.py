"""FPSan on PTX: rewrite every floating-point instruction into integer PTX computing
``φ⁻¹(F(φ(a), …))`` (docs/fpsan.md, bit-compatible with Triton 3.9.0's FPSan).

Entry points: :func:`sanitize_text` (parse, sanitize, print) and :func:`sanitize_module` (edits a
parsed ``ir.Module`` through ``Module.replace``/``insert_before``; ``ptxkit.ptx.emit.emit`` prints it).

The passes, in order, for each function with float work (each in its own module of ``ptxkit.fpsan``):

1. ``libdevice.recognise`` — inlined libdevice bodies whose result is one FPSan op (``__nv_sinf``/
   ``__nv_cosf``, Triton's ``tl.sin``/``tl.cos``; ``libdevice_match``: ``__nv_logf``, ``__nv_exp``, … by
   their dataflow): they run natively, the ring op replaces the result. It runs for every function
   first: a ``.func`` called only from recognised bodies (``libdevice.body_callees``: ``__nv_pow``'s
   ``__internal_accurate_pow``) is part of them and left as it is;
2. ``resident`` — which registers hold their payload φ(x) instead of float bits (nothing reads or
   writes their bits: only ring ops, constants, moves, packs and shuffles touch them), predicted from
   the opcodes and checked against what the rewrite recorded (``touches``); a wrong prediction reruns
   the rewrite with the registers it allows. Loop-carried and packed values then need no φ⁻¹/φ;
3. ``rewrite.rewrite_function`` — the float-op rewrite: LLVM's folds that hide Triton's op (``x*2.0``
   as ``x+x``, ``-x`` as a sign-bit xor, …) are recognised first by ``folds``; every other float
   instruction goes through ``dispatch`` to ``ops`` (arithmetic, the tagged and closed-form unary ops,
   ``.sat``/``.relu``, the ``tl.log`` idiom), ``casts`` (``cvt``), ``atomics`` (``atom``/``red``) or ``mma``
   (``mma.sync``/``wmma.mma`` expansions); what it leaves native is reported (``report``). φ and φ⁻¹
   code comes from one emitter, ``phi``, through the rewrite context ``ctx`` (fresh registers, shadow
   payloads kept across a straight-line run);
4. ``edits.write_edits`` — the φ⁻¹ tails whose every read a shadow serves are dropped, the rewritten
   instructions and the ring ops of recognised bodies go into the module's edit list;
5. ``libdevice.report_unrecognised`` — every other inlined libdevice body is reported as a line range,
   ``libdevice.report_unmarked`` each one inlined without an exit marker (tanhf; f64 erf, sin, cos),
   ``libdevice.report_sunk_arguments`` a recognised body into which LLVM sank the argument's neg/abs;
6. ``edits.declare_registers`` — the fresh registers are declared at the top of the function.

Then the file gets :data:`MARKER` (a file carrying it is left unchanged: sanitizing is idempotent), and
with ``strict`` the report's errors (not its notes) become a :class:`PtxkitError`. PTX-level decisions
(rounding, ``.ftz``, ``.sat``, immediates, packed lanes, atomics, mma) are documented in the module of
each pass and in docs/fpsan.md §3–4.
"""

from __future__ import annotations

from dataclasses import dataclass

from ptxkit import ir
from ptxkit.errors import Diagnostic, PtxkitError
from ptxkit.fpsan import libdevice, resident
from ptxkit.fpsan.edits import declare_registers, write_edits
from ptxkit.fpsan.fold_user_asm import names_user_asm, python_sources
from ptxkit.fpsan.folded_calls import report_folded_calls
from ptxkit.fpsan.folded_compares import report_folded_compares
from ptxkit.fpsan.folded_int_arith import report_folded_int_arith
from ptxkit.fpsan.folded_loop_index import report_folded_loop_index
from ptxkit.fpsan.folded_negations import report_folded_negations
from ptxkit.fpsan.folded_stores import report_folded_stores
from ptxkit.fpsan.irview import reg_types, regs, unique_prefix
from ptxkit.fpsan.libdevice_flow import native_lines
from ptxkit.fpsan.libdevice_unseen import report_unseen_bodies
from ptxkit.fpsan.ops import sign_mask_lanes
from ptxkit.fpsan.options import Options
from ptxkit.fpsan.origin import at_user_lines
from ptxkit.fpsan.report import ReportItem, SanitizeReport
from ptxkit.fpsan.rewrite import FreshNames, rewrite_function
from ptxkit.ptx.emit import emit
from ptxkit.ptx.parser import parse
from ptxkit.ptx.types import FLOAT_TYPES

__all__ = ["MARKER", "Options", "ReportItem", "SanitizeReport", "SanitizeResult", "at_user_lines",
           "sanitize_module", "sanitize_text"]

MARKER = "// ptxkit sanitize: FPSan (Triton 3.9 ring semantics) applied"


@dataclass
class SanitizeResult:
    text: str
    report: SanitizeReport


def sanitize_text(text: str, filename: str = "<input>", *, strict: bool = False, homomorphic_casts: bool = False,
                  atomics: str = "native", sign_xor_as_neg: bool = False, mma: str = "int8",
                  folds: tuple[tuple[str, str], ...] = (), source_hints: bool = True,
                  source_root: str | None = None) -> SanitizeResult:
    """Parse, sanitize and print (options: :func:`sanitize_module`). Untouched text stays byte-identical."""
    module = parse(text, filename)
    report = sanitize_module(module, strict=strict, homomorphic_casts=homomorphic_casts, atomics=atomics,
                             sign_xor_as_neg=sign_xor_as_neg, mma=mma, folds=folds, source_hints=source_hints,
                             source_root=source_root)
    return SanitizeResult(emit(module) if module.edits else text, report)


def sanitize_module(module: ir.Module, *, homomorphic_casts: bool = False, atomics: str = "native",
                    strict: bool = False, sign_xor_as_neg: bool = False, mma: str = "int8",
                    folds: tuple[tuple[str, str], ...] = (), source_hints: bool = True,
                    source_root: str | None = None) -> SanitizeReport:
    """Rewrite ``module`` in place (through its edit list). Returns the report; with ``strict``, a
    report with errors raises :class:`PtxkitError` listing each (notes never do).

    ``folds``: ``(NAME, FORM)`` pairs stating the source form of LLVM folds the PTX cannot tell
    (``--fold``; ``ptxkit.fpsan.folds``): ``self-add`` (``x*2.0`` or ``x+x``), ``sign-xor`` (a
    sign-bit xor no instruction types: ``-x`` or integer bits), ``neg-cast`` (``(-x).to(T)`` or
    ``-(x.to(T))``), ``half`` (16-bit ops: ``native`` half arithmetic or narrowed ``f32``/``f64``
    arithmetic on widened halves). Without a stated form the default is sanitized and reported as an error.
    ``sign_xor_as_neg``: the same as ``sign-xor=neg``.

    ``mma``: how float ``mma.sync`` with f16/bf16/tf32 inputs is expanded (``ptxkit.fpsan.mma``):
    ``int8`` (the default: the limb products on the integer tensor cores, as Triton's own FPSan dot;
    integer-only, no data exchange; sm_80 and later, below that ``auto``'s choice), ``shuffle``
    (integer instructions only, the fragments gathered with shuffles), ``limbs`` (f16/tf32 ``mma`` on
    8-bit limbs of the payloads: every partial sum is an integer below 2^24, exact whatever the
    accumulation order) or ``auto`` (int8 from sm_80; below, limbs in functions with 16 or more mma,
    where ptxas time on the shuffles grows: 52 s vs 3 s on triton_attn_fwd_sm80). wgmma always takes
    the integer limbs, wmma.mma the float limbs (its fragment layouts are unspecified)."""
    opts = Options(homomorphic_casts, atomics, sign_xor_as_neg, mma, tuple(folds), source_hints, source_root)
    opts.check(module.filename)
    report = SanitizeReport(module.filename, atomics=atomics, homomorphic_casts=homomorphic_casts)
    report.already_sanitized = MARKER in module.source
    if report.already_sanitized:
        return report  # sanitizing a sanitized file changes nothing (docs/cli.md)
    names = FreshNames(unique_prefix(module.source, "%fps"), unique_prefix(module.source, "$fps_L"))
    work = [fn for fn in module.functions() if fn.body is not None]
    asm = source_hints and names_user_asm(module, source_root)  # (an asm's bit move may need Triton's hash)
    python = source_hints and next(python_sources(module, source_root), None) is not None
    bodies = {fn.name: libdevice.recognise(module, fn, source_root, source_hints) for fn in work
              if asm or _has_float_work(fn) or (python and _stores_constant(fn))}
    internal = libdevice.body_callees(module, bodies)  # called only from recognised bodies: part of them
    for fn in work:
        report.functions += 1
        if fn.name in bodies and fn.name not in internal:
            _sanitize_function(module, fn, report, names, opts, bodies[fn.name])
        if source_hints and fn.name not in internal:
            report_folded_stores(module, fn, report, source_root)
            report_folded_compares(module, fn, report, source_root)
            report_folded_int_arith(module, fn, report, source_root)
            report_folded_loop_index(module, fn, report, source_root)
            report_folded_negations(module, fn, report, source_root)
            report_folded_calls(module, fn, report, source_root)
            report_unseen_bodies(module, fn, report, source_root, bodies.get(fn.name, []))
    if report.rewritten:
        first = module.items[0] if module.items else None
        if first is not None and first.span is not None:
            module.edits.append(ir.Edit(0, 0, [MARKER]))
    if strict and report.errors:
        raise PtxkitError([Diagnostic(module.filename, i.line, i.col,
                                      f"{'not sanitized' if i.native else 'not Triton-exact'}: {i.opcode}: {i.reason}",
                                      module.line_text(i.line))
                           for i in report.errors])
    return report


def _has_float_work(fn: ir.Function) -> bool:
    """Whether anything in ``fn`` can be rewritten or reported (most functions of integer-heavy files
    have nothing): a float type, an ``xor`` (a possible folded negation), or an ``or``/``and`` with a
    sign-bit mask (a possible folded −|x| or |x|)."""
    return any(i.opcode == "xor" or any(m in FLOAT_TYPES for m in i.mods) or sign_mask_lanes(i) is not None
               for i in fn.instructions())


def _stores_constant(fn: ir.Function) -> bool:
    """Whether ``fn`` stores a register a ``mov`` of an immediate writes: a Triton kernel's named float literal,
    whose casts LLVM folded (``ptxkit.fpsan.fold_named_literal``), may be all its float work."""
    consts = {i.operands[0].name for i in fn.instructions() if i.opcode == "mov" and len(i.operands) == 2
              and isinstance(i.operands[0], ir.Reg) and isinstance(i.operands[1], ir.Imm)}
    return bool(consts) and any(i.opcode == "st" and any(r in consts for o in i.operands[1:] for r in regs(o))
                                for i in fn.instructions())


def _sanitize_function(module: ir.Module, fn: ir.Function, report: SanitizeReport, names: FreshNames,
                       opts: Options, bodies: list[libdevice.LibRange]) -> None:
    """The passes over one function, in order (module docstring)."""
    types = reg_types(fn, module)
    visible = resident.live_out(module, fn)
    chosen = (resident.resident_set(resident.predict(fn, native_lines(bodies)), types, visible)
              if resident.has_ring_ops(fn) else {})
    mark = (len(report.items), report.rewritten, names.labels)
    retried = False
    while True:
        done = rewrite_function(module, fn, report, names, opts, bodies, types, chosen)
        if not chosen:
            break  # nothing chosen, nothing to check (and no touches were recorded)
        allowed = resident.resident_set(done.ctx.touches, types, visible)
        if all(allowed.get(r) == ft for r, ft in chosen.items()):
            break
        # the prediction chose a register the rewrite touched otherwise: again, with what it allows
        # (the rewrite's touches do not depend on the choice, so the second run's choice holds)
        del report.items[mark[0]:]
        report.rewritten, names.labels = mark[1], mark[2]
        chosen, retried = ({} if retried else allowed), True
    write_edits(module, fn, done, names.prefix)
    for h in done.ctx.helpers.values():  # helper .func definitions (name, lines, …) precede their caller
        helper: list[ir.Statement | ir.TopLevel | str] = [*h[1]]
        module.insert_before(fn, helper)
    libdevice.report_unrecognised(module, fn, report, {b.end_line for b in bodies})
    libdevice.report_unmarked(fn, report, bodies)
    libdevice.report_sunk_arguments(fn, report, bodies)
    declare_registers(module, fn, done.ctx.counter, names.prefix)
