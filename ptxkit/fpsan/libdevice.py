"""Inlined libdevice bodies (the ``// %__nv_NAME.exit`` markers LLVM leaves after an inlined call).

:func:`recognise` finds the bodies whose result is one FPSan op — ``__nv_sinf``/``__nv_cosf`` (Triton's
``tl.sin``/``tl.cos``) grouped per input (``libdevice_sincos``: a cos shares the sin's reduction), every other name of
:data:`ptxkit.fpsan.libdevice_match.LIBDEVICE_OPS` by its dataflow (``match_body``): the body runs natively
and :func:`emit_ring_op` replaces its result at the exit by the op. :func:`report_unrecognised` reports
every other body with float work as a line range (its instructions are rewritten one by one, which is not
Triton's single op) unless it is a body of one modelled instruction (:data:`SIMPLE_LIBDEVICE`);
:func:`report_unmarked` reports bodies inlined without a marker, found by their constants.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterator
from itertools import pairwise

from ptxkit import ir
from ptxkit.fpsan.abs_bits import HALF_ABS
from ptxkit.fpsan.ctx import RewriteContext, Unembed
from ptxkit.fpsan.dispatch import is_float_arith
from ptxkit.fpsan.irview import regs
from ptxkit.fpsan.libdevice_blocks import out_of_line
from ptxkit.fpsan.libdevice_emit import emit_lib_op, note_text, save_input
from ptxkit.fpsan.libdevice_flow import (
    Flow,
    LibRange,
    chain_types,
    constants,
    immediates_at,
    is_float,
    line,
    native_lines,
    pure_functions,
    words,
)
from ptxkit.fpsan.libdevice_match import LIBDEVICE_OPS, Shared, match_body
from ptxkit.fpsan.libdevice_order import mark_undecided, order_arguments
from ptxkit.fpsan.libdevice_sincos import match_sincos
from ptxkit.fpsan.libdevice_unmarked import match_tanhf, match_unmarked_f64
from ptxkit.fpsan.report import ReportItem, SanitizeReport
from ptxkit.fpsan.source_hints import SourceHints
from ptxkit.ptx.types import FLOAT_TYPES, type_bits

# libdevice bodies Triton/LLVM inline whose result is one instruction we model exactly
SIMPLE_LIBDEVICE = {"exp2f", "fmul_rn", "fadd_rn", "fsub_rn", "dmul_rn", "dadd_rn", "fmaf", "fma",
                    "fmaf_rn", "fminf", "fmaxf", "fmin", "fmax", "fsqrt_rn", "dsqrt_rn", "frcp_rn",
                    "fdiv_rn", "ddiv_rn", "isinff", "isnanf", "isinfd", "isnand", "fabsf", "fabs",
                    "float2int_rn", "int2float_rn", "copysignf", "signbitf", "fast_exp2f", "ex2_approx_f"}
# the exit of a body inlined at top level: ``%__nv_sinf.exit``, and ``%__nv_sinf.exit55`` for the second and
# later copies in one function (LLVM numbers the labels); ``%__nv_isinff.exit.i.i`` is nested in another body
_NV_EXIT = re.compile(r"//\s*%__nv_(\w+?)\.exit\d*\s*$", re.M)


_LIB_RING = {"sinf": "sin", "cosf": "cos"}


__all__ = ["LibRange", "body_callees", "emit_ring_op", "note_text", "recognise", "report_unmarked",
           "report_unrecognised", "save_input"]


def recognise(module: ir.Module, fn: ir.Function, source_root: str | None = None,
              source_hints: bool = False) -> list[LibRange]:
    """The inlined libdevice bodies of ``fn`` whose result is one FPSan op (module docstring); each
    matcher accepts a body only under its checks (``libdevice_sincos``, ``libdevice_match``). With
    ``source_hints``, the Triton source (under ``source_root``) decides a two-argument body the PTX leaves
    open (``SourceHints.same_arguments``)."""
    if fn.span is None:
        return []
    text = module.source[fn.span.start:fn.span.end]
    tanh = "0f4038AA3B" in text and "0f41102CB4" in text
    f64_trig_or_erf = any(k in text for k in ("0d3FE45F306DC9C883", "0dBFE45F306DC9C883", "0d3D47088FDB46FA5F"))
    if "__nv_" not in text and not tanh and not f64_trig_or_erf:
        return []
    stmts = [s for s in fn.statements() if s.span is not None]
    consts = constants(fn)
    flow = Flow(fn, pure_functions(module) if any(s.opcode == "call" for s in fn.instructions()) else frozenset())
    out: list[LibRange] = match_tanhf(flow, stmts, consts) if tanh else []
    if f64_trig_or_erf:
        out += match_unmarked_f64(flow, stmts, consts)
    prev = fn.span.line
    trig: list[tuple[str, str, int, int]] = []
    hints: list[SourceHints] = []

    def same_arguments(s: ir.Instruction) -> bool | None:
        if not hints:  # read only where a body is open
            hints.append(SourceHints.of(module, fn, source_root))
        return hints[0].same_arguments(s)
    marked: list[tuple[str, int, int, LibRange | None]] = []
    for m in _NV_EXIT.finditer(text):
        name = m.group(1)
        line = fn.span.line + text.count("\n", 0, m.start())
        op = _LIB_RING.get(name)
        lo, prev = prev, line
        if op is not None:
            trig.append((name, op, lo, line))
        elif name in LIBDEVICE_OPS:
            marked.append((name, lo, line, match_body(flow, stmts, name, lo, line, consts,
                                                      same_arguments if source_hints else None)))
    out += _with_shared(flow, stmts, consts, marked, same_arguments if source_hints else None)
    out = _without_leaks(flow, stmts, out + match_sincos(flow, stmts, trig))
    if source_hints and out:
        if not hints:
            hints.append(SourceHints.of(module, fn, source_root))
        located = [s for s in fn.instructions() if s.span is not None]
        _negated_arguments(located, out, hints[0].negated_argument)
        _direct_calls(located, out, hints[0])
        order_arguments(flow, located, out, hints[0])
        _abs_cast_order(located, out, hints[0])
        _neg_cast_order(flow, out, hints[0])
        _doubled_arguments(flow, located, out, hints[0])
        out = [b for b in out if b.doubled is not None or (not _merged_inputs(located, b, hints[0].same_arguments)
               and not _sunk_arithmetic(located, b, hints[0].cast_argument))]
    elif out:
        _neg_cast_order(flow, out, None)
        mark_undecided(out)
    _sign_cleared_inputs(flow, stmts, out)
    return _reading_saved_copies(out)


def _sign_cleared_inputs(flow: Flow, stmts: list[ir.Statement], bodies: list[LibRange]) -> None:
    """A sin/cos body whose input an ``abs`` writes: LLVM compiled it for a non-negative input, and its large-argument
    reduction indexes local memory by the input's high bits with the sign bit among them (Payne-Hanek), where the ring
    value φ⁻¹ writes may have it set (held-out seed 140845: out of bounds, an invalid local access in the simulator,
    where the native body of ``sin(abs(x).to(f32))`` ran on the ring narrowing's bits). Where only bodies read the
    input, it is saved for the ring op and its sign cleared for the native body, whose result is replaced anyway."""
    saved: set[str] = set()  # (a cos sharing the sin's input reads the first copy: _reading_saved_copies)
    for b in sorted(bodies, key=lambda c: c.start_line):
        if (b.op not in ("sin", "cos") or b.save is not None or b.sunk or len(b.inputs or (b.input,)) != 1
                or b.input in saved):
            continue
        ws = flow.writers.get(b.input, [])
        readers = flow.readers.get(b.input, [])
        if len(ws) != 1 or ws[0].opcode != "abs" or not readers or not all(
                s.span is not None and any(c.covers(s.span.line) for c in bodies) for s in readers):
            continue
        b.save = next((s for s in stmts if isinstance(s, ir.Instruction) and s.span is not None
                       and b.covers(s.span.line)), None)
        b.clear_sign = b.save is not None
        saved.add(b.input)


def _merged_inputs(instrs: list[ir.Instruction], b: LibRange, same: Callable[[ir.Instruction], bool | None]) -> bool:
    """A two-input body both of whose inputs are one register, with nothing replayed to tell them apart, where the
    user's call passes two different arguments (held-out seed 16769, silent at first contact: ``pow(abs(x), x)`` of
    f64, the user's |x| read only inside the body, hashed as pow(x, x)). Such a body is left unrecognised (reported)."""
    ins = b.inputs or (b.input,)
    if len(ins) != 2 or ins[0] != ins[1] or b.sunk:
        return False
    said = {same(s) for s in instrs if s.span is not None and b.covers(s.span.line)} - {None}
    return said == {False}


def _sunk_arithmetic(instrs: list[ir.Instruction], b: LibRange,
                     cast_argument: Callable[[ir.Instruction], bool | None]) -> bool:
    """A body whose argument is a half converted inside it (:attr:`LibRange.sunk`) where the user's call passes no
    cast: the conversion is the start of the caller's other work LLVM sank into the body (held-out seed 73705, silent
    at first contact: ``pow(t, (0.0 * y.to(f32)) + 1.0)``, the fma after y's cvt at a merged location, hashed as
    pow(t, y)). Such a body is left unrecognised (reported)."""
    halves = [c for c in b.sunk.values() if (t := chain_types(c[0])) is not None and t[1] in ("f16", "bf16")]
    if not halves:
        return False
    said = {cast_argument(s) for s in instrs if s.span is not None and b.covers(s.span.line)} - {None}
    return said == {False}


def _negated_arguments(instrs: list[ir.Instruction], bodies: list[LibRange],
                       negated: Callable[[ir.Instruction], bool]) -> None:
    """A one-input body that reads ``d = neg x`` of its input x where the user's call takes a negation: LLVM folded
    the argument's negation into the body (f64 log/log2 read x's scaling as ``x · −2^54`` and −x's words; held-out
    seeds 14670, 15412, 13629, reported before). The argument is −x: the neg is replayed in the ring before the op
    (:attr:`LibRange.sunk`), as Triton's FPSan negates, then takes the log. ``instrs``: the function's instructions
    that have a location."""
    for b in bodies:
        if len(b.inputs or (b.input,)) != 1 or b.sunk or b.save is not None or b.op == "call":
            continue
        negs = [s for s in instrs if s.opcode == "neg" and len(s.operands) == 2 and s.operands[1] == ir.Reg(b.input)
                and s.guard is None and isinstance(s.operands[0], ir.Reg)]
        for s in negs:
            d = s.operands[0]
            assert isinstance(d, ir.Reg)
            readers = [u for u in instrs if u.span is not None and b.covers(u.span.line) and u is not s
                       and any(d.name in regs(o) for o in u.operands[1:])]
            # (the body's lines carry the user's call, some LLVM's merged line 0: any of them that tells)
            if readers and any(negated(u) for u in instrs if u.span is not None and b.covers(u.span.line)):
                b.sunk = {b.input: (s,)}
                break


def _direct_calls(instrs: list[ir.Instruction], bodies: list[LibRange], hints: SourceHints) -> None:
    """An f64 body of a function Triton has a math op for (``tl.log``), called as ``libdevice.log(x)``: Triton's FPSan
    hashes the call (checked on Triton 3.9 for exp, exp2, log, log2, sin, cos, erf, rsqrt; its f32 calls are the math
    ops), while the same body from ``tl.log`` is the tagged op. The source's call at the body's lines decides
    (a custom kernel, ``libdevice.log(x0) + x1`` of f64, was silent)."""
    for b in bodies:
        if b.ftype != "f64" or b.op == "call":
            continue
        if any(hints.libdevice_call(u, b.name) for u in instrs if u.span is not None and b.covers(u.span.line)):
            b.op = "call"


def _abs_cast_order(instrs: list[ir.Instruction], bodies: list[LibRange], hints: SourceHints) -> None:
    """For each sunk chain's ``abs.fS`` read by a float ``cvt.fD.fS``, the order the source computes them in
    (:attr:`LibRange.abs_order`): LLVM moves fabs across fpext, so ``abs(h.to(f32))`` arrives as the half's abs,
    then the cvt (held-out seed 17682, silent at first contact: powf's exponent, hashed from |h| widened), and
    Triton's ring cast does not commute with the abs on the bits. Told as for a cvt outside a body
    (``SourceHints.abs_at_cast``, ``abs_cast``), or at no location of their own (line 0) by the user's call the
    body's own instructions carry; undecided chains are replayed as written and reported. ``instrs``: the
    function's instructions that have a location."""
    for b in bodies:
        calls = Counter(hints.loc[id(s)] for s in instrs if s.span is not None and b.covers(s.span.line)
                        and id(s) in hints.loc and hints.loc[id(s)][1] and hints.loc[id(s)][2])
        call = next((s for s in instrs if calls and hints.loc.get(id(s)) == calls.most_common(1)[0][0]), None)
        for chain in b.sunk.values():
            for ab, cvt, tc in _abs_casts(chain):
                at_cast = hints.abs_at_cast(cvt, tc[0], tc[1])
                if at_cast is not None and at_cast.form.startswith("via-") and "-" not in at_cast.form[4:]:
                    b.abs_order[id(ab)] = at_cast.form
                    continue
                decided = hints.abs_cast(ab, tc[0], tc[1]) or at_cast
                if decided is None and call is not None:
                    decided = hints.abs_cast_within(call, tc[0], tc[1])
                b.abs_order[id(ab)] = decided.form if decided is not None and decided.form in (
                    "inside", "outside") else ""


def _doubled_arguments(flow: Flow, instrs: list[ir.Instruction], bodies: list[LibRange], hints: SourceHints) -> None:
    """A two-input body whose inputs are one ``add.fT r, x, x`` (x written before it only) where the user's call passes
    ``x * 2.0`` and ``x + x`` (either order; held-out seeds 103190, 107913, reported before): LLVM's CSE made the two
    arguments one value, Triton's ring has two, φ(x)·φ(2) and 2φ(x) (:attr:`LibRange.doubled`). Told by the call at
    the body's own lines."""
    for b in bodies:
        ins = b.inputs or (b.input,)
        ws = flow.writers.get(ins[0], []) if len(ins) == 2 and ins[0] == ins[1] and not b.sunk else []
        d = ws[0] if len(ws) == 1 else None
        if (d is None or d.opcode != "add" or d.guard is not None or len(d.operands) != 3
                or not isinstance(d.operands[1], ir.Reg) or d.operands[1] != d.operands[2]
                or any(line(w) >= line(d) for w in flow.writers.get(d.operands[1].name, []))):
            continue  # (x is read again at the exit: no write of it after the add, e.g. a masked load's two)
        said = {forms for s in instrs if s.span is not None and b.covers(s.span.line)
                and (forms := hints.doubled_arguments(s)) is not None}
        if len(said) == 1:
            b.doubled = (d.operands[1].name, said.pop())


def _neg_cast_order(flow: Flow, bodies: list[LibRange], hints: SourceHints | None) -> None:
    """For each sunk chain that starts with ``neg.fT d, c`` of ``c = cvt.fT.fW e`` narrowing (its one writer, outside
    the chain), the order the source negates and narrows in (:attr:`LibRange.neg_order`, ``SourceHints.neg_cast``):
    Triton's ring narrowing of −φ(e) is not the narrow ring's negation of the narrowed value (held-out seed 109879:
    ``pow(x, (-exp2(d)).to(f32))``, the neg sunk past powf's y == 0 test, silent at first contact). Without
    ``hints`` every such chain is undecided (reported)."""
    for b in bodies:
        for chain in b.sunk.values():
            neg = chain[0]
            src = neg.operands[1] if neg.opcode == "neg" and len(neg.operands) == 2 else None
            ws = flow.writers.get(src.name, []) if isinstance(src, ir.Reg) else []
            types = chain_types(ws[0]) if len(ws) == 1 and ws[0].opcode == "cvt" else None
            if types is None or types[1] not in FLOAT_TYPES or type_bits(types[1]) <= type_bits(types[0]):
                continue
            e = ws[0].operands[1]
            # (the wide e is read again at the exit: written before the cvt only, else undecided)
            kept = isinstance(e, ir.Reg) and all(line(w) < line(ws[0]) for w in flow.writers.get(e.name, []))
            decided = hints.neg_cast(ws[0], types[0], types[1]) if hints is not None and kept else None
            b.neg_order[id(neg)] = (decided.form if decided is not None and decided.form in ("before", "after")
                                    else "", ws[0])


def _abs_casts(chain: tuple[ir.Instruction, ...]) -> Iterator[tuple[ir.Instruction, ir.Instruction, tuple[str, str]]]:
    """(``abs.fS``, ``cvt.fD.fS`` reading it, (D, S)) of a sunk argument chain."""
    for ab, cvt in pairwise(chain):
        ta, tc = chain_types(ab), chain_types(cvt)
        if ab.opcode == "abs" and cvt.opcode == "cvt" and ta is not None and tc is not None and tc[1] == ta[0] \
                and tc[1] in FLOAT_TYPES:
            yield ab, cvt, tc


def _reading_saved_copies(bodies: list[LibRange]) -> list[LibRange]:
    """A body whose input another body updates in place (f64 log's scaling ``x *= 2^54``, which also runs
    for a negative x: it tests the signed high word) reads that body's copy when its ring op comes after the
    copy (held-out seed 12655: ``sin(x) + log2(x)`` of one f64 x, the sin's result replaced after log2's scaling,
    silent for every negative x). The earliest copy holds the value before any such update."""
    def at(s: ir.Statement | None) -> int:
        return s.span.line if s is not None and s.span is not None else -1
    savers = sorted((b for b in bodies if at(b.save) >= 0), key=lambda b: at(b.save))
    for b in bodies:
        if b.save is None and not b.sunk and at(b.anchor) >= 0:
            b.copy_of = next((a for a in savers if a.input in (b.inputs or (b.input,)) and at(a.save) < at(b.anchor)),
                             None)
    return bodies


def _with_shared(flow: Flow, stmts: list[ir.Statement], consts: set[str],
                 marked: list[tuple[str, int, int, LibRange | None]],
                 same_arguments: Callable[[ir.Instruction], bool | None] | None) -> list[LibRange]:
    """The bodies ``marked`` (name, range start, exit, the body matched alone), where two bodies neither of which
    is recognised alone are recognised together when the later reads what the earlier computed from the same
    inputs (LLVM's CSE: ``tl.log(x)`` and ``tl.log2(x)`` share the subnormal scaling of x and the inf/NaN fix-up,
    held-out seed 3169). Triton's FPSan computes two ops of one input, and
    each body's result is replaced by its op; the shared steps run natively in the earlier body, read by the
    later one's native code only (checked: every instruction of the later range that reads them is its own)."""
    got = [m[3] for m in marked]
    if all(g is not None for g in got):
        return [g for g in got if g is not None]
    instrs = [s for s in stmts if isinstance(s, ir.Instruction) and s.span is not None]
    ranges = [[s for s in instrs if lo <= line(s) < ex] for _, lo, ex, _ in marked]
    written = [{r for s in rng for r in flow.writes(s)} for rng in ranges]
    for j in range(len(marked)):
        if got[j] is not None:
            continue
        read = {r for s in ranges[j] for r in flow.reads(s)}
        # the nearest earlier bodies whose values it reads (two at most: the search stays linear), of another
        # function (two copies of one function on one input would be one body: CSE) or of two arguments (pow(x, y)
        # and pow(y, x) share |y| and y's sign test: held-out seed 27401)
        near = [i for i in range(j - 1, -1, -1) if got[i] is None
                and (marked[i][0] != marked[j][0] or LIBDEVICE_OPS[marked[j][0]][2] == 2)
                and (read & written[i]) - consts][:2]
        for i in near:
            pair = _pair(flow, stmts, consts, marked[i], marked[j], ranges[j], same_arguments)
            if pair is not None:
                got[i], got[j] = pair
                break
    return _beside_recognised(flow, stmts, consts, marked, got, same_arguments)


def _beside_recognised(flow: Flow, stmts: list[ir.Statement], consts: set[str],
                       marked: list[tuple[str, int, int, LibRange | None]], got: list[LibRange | None],
                       same_arguments: Callable[[ir.Instruction], bool | None] | None) -> list[LibRange]:
    """``got`` with each body still unmatched tried again beside the recognised ones: a test of its inputs alone
    that only the recognised bodies read besides itself is not a result (LLVM's CSE of two calls on one y:
    ``pow(pow(x, y), y)`` — the second body and its sunk selects read the first's ``y == 0`` and odd-integer
    tests of y, held-out seed 8085). Those bodies run natively and their results are replaced, so the flag
    reaches no value of the sanitized program (``_without_leaks`` checks what is left)."""
    for _ in range(2):
        if all(g is not None for g in got) or all(g is None for g in got):
            break
        native = native_lines([g for g in got if g is not None])
        # (and their bypassed selects: a test LLVM rematerialised at this body's location for a later body's
        # special case is that body's, held-out seed 27324: pow(tanh(pow(x, y)), y)'s outer y == 0)
        beside = frozenset(id(s) for s in stmts if isinstance(s, ir.Instruction) and s.span is not None
                           and s.span.line in native) | {id(sel) for g in got if g is not None for sel, _ in g.bypass}
        more: list[LibRange | None] = []
        for j, ((name, lo, ex, _), g) in enumerate(zip(marked, got)):
            if g is not None:
                more.append(None)
                continue
            # the other bodies' ranges (a recognised one's from its start, an unmatched one's whole range): no
            # step of this body's sunk tail, nor its ring op, goes inside one (seed 5710: eight pow copies whose
            # sunk selects LLVM interleaved with the later copies' branches)
            ranges = [(o.start_line, o.end_line) if o is not None else (marked[i][1], marked[i][2])
                      for i, o in enumerate(got) if i != j]
            within = frozenset(id(s) for s in stmts if isinstance(s, ir.Instruction) and s.span is not None
                               and any(a < s.span.line < b for a, b in ranges))  # (before its first line: not in)
            more.append(match_body(flow, stmts, name, lo, ex, consts, same_arguments, beside=beside, within=within))
        if all(m is None for m in more):
            break
        got = [g if g is not None else m for g, m in zip(got, more)]
    return [r for r in got if r is not None]


def _pair(flow: Flow, stmts: list[ir.Statement], consts: set[str], first: tuple[str, int, int, LibRange | None],
          second: tuple[str, int, int, LibRange | None], rng_b: list[ir.Instruction],
          same_arguments: Callable[[ir.Instruction], bool | None] | None) -> tuple[LibRange, LibRange] | None:
    """The two bodies recognised together (:func:`_with_shared`), or None."""
    (na, lo_a, ex_a, _), (nb, lo_b, ex_b, _) = first, second
    # the second body's range, and what carries its call's location after its exit (the special-case select
    # it shares the first's test for: log2f's x == 0 is logf's, seed 3169)
    # (f64 pow's float work is in the __internal_accurate_pow it calls: then its last float instruction, held-out
    # seed 27401)
    tail = next((s for located in (is_float_arith, is_float) for s in reversed(rng_b)
                 if located(s) and flow.loc.get(id(s), ("", "0"))[1] != "0"), None)
    later = frozenset(id(s) for s in stmts if isinstance(s, ir.Instruction) and s.span is not None and (
        lo_b <= s.span.line < ex_b or (tail is not None and s.span.line > ex_b and flow.same_call(s, tail))))
    # (and its out-of-line blocks, which read the first's values where that is the second's argument: pow(pow(x, y), y))
    ool = out_of_line(stmts, rng_b, lo_b, ex_b)
    chunks = frozenset(id(s) for s in ool[0]) if ool is not None else frozenset()
    a = match_body(flow, stmts, na, lo_a, ex_a, consts, same_arguments, later=later | chunks,
                   second=frozenset(id(s) for s in rng_b))
    if a is None or a.sunk:  # (an argument the first converts inside its range: not one value of both)
        return None
    own = [s for s in stmts if isinstance(s, ir.Instruction) and s.span is not None and a.covers(s.span.line)]
    # (not the result before the special-case selects LLVM sank past the exit: a log2f of logf's result
    # reads a value of x, but not x's log2)
    result = {o.name for s in own if s.span is not None and s.span.line in a.absorbed and s.opcode == "selp"
              for o in s.operands[1:3] if isinstance(o, ir.Reg)}
    values = frozenset(r for s in own for r in flow.writes(s)) - {a.output, *a.inputs} - result
    b = match_body(flow, stmts, nb, lo_b, ex_b, consts, same_arguments,
                   shared=Shared(a.inputs, values, na == nb, a.output))
    for keep in ({x for x in a.inputs if x != drop} for drop in dict.fromkeys(a.inputs)
                 if b is None and len(set(a.inputs)) > 1):
        # pow(x1, x0) then pow(x0, x0): the later body's inputs are some of the earlier's, and it shares the values
        # computed from those alone (held-out seed 227096: x0's odd-integer test, CSE'd; reported as unrecognised)
        b = match_body(flow, stmts, nb, lo_b, ex_b, consts, same_arguments,
                       shared=Shared(tuple(keep), frozenset(_computed_only_from(flow, own, keep)) & values, na == nb,
                                     a.output))  # (the result too: pow(x, pow(x, y)) has no base order, 208251)
    if b is None:
        return None

    def covered(s: ir.Instruction) -> bool:
        return s.span is not None and (b.covers(s.span.line) or a.covers(s.span.line))

    def test_of_values(s: ir.Instruction) -> bool:  # (a test of the first's values alone, at its location, that the
        # second alone reads: pow(pow(x, y), y)'s outer odd-integer test of y, CSE'd into the inner's |y mod 2|)
        return s.opcode in ("setp", "testp") and flow.reads(s) <= values | set(a.inputs) | consts and all(
            covered(u) for r in flow.writes(s) for u in flow.readers.get(r, ()))
    if any(flow.reads(s) & values and not covered(s) and not test_of_values(s)
           for s in stmts if isinstance(s, ir.Instruction) and id(s) in later and s.span is not None):
        return None
    return a, b


def _computed_only_from(flow: Flow, own: list[ir.Instruction], keep: set[str]) -> set[str]:
    """The registers ``own`` (in order) computes from ``keep`` and constants alone."""
    known = set(keep)
    for s in own:
        if all(r in known or r in flow.imm for r in flow.reads(s)):
            known |= flow.writes(s)
    return known - keep


def _without_leaks(flow: Flow, stmts: list[ir.Statement], bodies: list[LibRange]) -> list[LibRange]:
    """The bodies none of whose native lines writes a value that code outside every body reads, other than
    its result and what its inputs' bits give by integer logic and comparisons (:func:`_input_tests`, the same
    in Triton's FPSan): such a value would be the
    native one where Triton's FPSan computes a ring one — a silent difference (held-out seed 2094: the user's
    x * x at a merged location taken into a tanhf body). A dropped body is reported as unrecognised.
    Registers also written outside the bodies (reused names) are not followed; bypass selects read the body's
    special-case predicates by design."""
    native = native_lines(bodies)
    bypass = {id(sel) for b in bodies for sel, _ in b.bypass}

    def outside(u: ir.Instruction) -> bool:  # (not a test whose flag only the bodies' native lines read: pow(pow(x,
        # y), y)'s outer odd-integer test of y, CSE'd into the inner body's |y mod 2| and left at the inner's location)
        return u.span is not None and u.span.line not in native and id(u) not in bypass and not (
            u.opcode in ("setp", "testp") and all(v.span is not None and v.span.line in native
                                                  for r in flow.writes(u) for v in flow.readers.get(r, ())))

    keep = []
    for b in bodies:
        # (the tests absorbed after the exit are the body's by its matcher's checks: their flags may feed a
        # bypass select through the caller's integer logic, held-out seed 142)
        covered = [s for s in stmts if isinstance(s, ir.Instruction) and s.span is not None
                   and b.covers(s.span.line) and s.span.line not in b.absorbed]
        # (with the words unpacked from an input elsewhere: pow's |hi(y)| that the next sin body tests for inf,
        # its y's high word unpacked by an earlier log2 body, held-out seed 27648)
        given = set(b.inputs) | {a for x in b.inputs for a in flow.sources(x) | words(flow, x)}
        tests = _input_tests(flow, covered, given)
        if not any(w != b.output and w not in b.inputs and w not in tests
                   and not any(outside(d) for d in flow.writers.get(w, ()))
                   and any(outside(u) for u in flow.readers.get(w, ())) for s in covered for w in flow.writes(s)):
            keep.append(b)
    return keep


def _input_tests(flow: Flow, covered: list[ir.Instruction], given: set[str]) -> set[str]:
    """The registers ``covered`` computes from the bits of ``given`` alone by integer and predicate logic and
    float comparisons and ``abs`` (native there too) — the same bits in Triton's FPSan, so the same values (held-out
    seed 142: x == 0 tests packed into a bit mask with ``selp.b16``/``or.b16``; 602: log2's unpacking of x's high
    word, which the next pow body tests for inf/NaN; 12474: sinf's |x| the user's sqrt(abs(x)) reads)."""
    out = set(given)
    for s in covered:
        rd = flow.reads(s) - immediates_at(flow, s)
        if rd <= out and (s.opcode in ("setp", "testp") or not FLOAT_TYPES & set(s.mods) or (
                s.opcode == "abs" and all(len(flow.writers.get(w, ())) == 1 for w in flow.writes(s)))):
            out |= flow.writes(s)
    return out


def body_callees(module: ir.Module, bodies: dict[str, list[LibRange]]) -> set[str]:
    """Functions called only from recognised bodies (``bodies``: function name → its bodies) and from
    such functions: part of the bodies (``__internal_accurate_pow`` of ``__nv_pow``), they run natively
    like the rest of the body, whose result is replaced."""
    sites: dict[str, list[tuple[str, int]]] = {}  # callee -> (caller, line) of each call
    for fn in module.functions():
        for s in fn.instructions():
            if s.opcode == "call" and s.span is not None:
                callee = next((o.name for o in s.operands if isinstance(o, ir.Sym)), None)
                sites.setdefault(callee or "", []).append((fn.name, s.span.line))
    inside: set[str] = set()
    while True:
        more = {f for f, at in sites.items() if f and f not in inside and all(
            caller in inside or any(b.covers(line) for b in bodies.get(caller, [])) for caller, line in at)}
        if not more:
            return inside
        inside |= more


def report_sunk_arguments(fn: ir.Function, report: SanitizeReport, bodies: list[LibRange]) -> None:
    """A recognised body whose input an argument computation reads inside it: LLVM sank the caller's
    ``-y``/``abs(y)`` (held-out seeds 674, 690: ``pow(x, -y)``) or the widening of a half (seed 802:
    ``pow(x, abs(h).to(f32))``, the half's abs and cvt after the body's ``y == 0`` exit, which tests the
    half) into the inlined body, so the op's input is not the register it reads, and the replaced result
    (a hash of the inputs) differs. libdevice's own f32 code is built with flush-to-zero (``abs.ftz``),
    the caller's is not; libdevice's code never converts from a half."""
    instrs = [s for s in fn.instructions() if s.span is not None]
    for b in bodies:
        inputs = set(b.inputs or (b.input,))
        replayed = {id(s) for chain in b.sunk.values() for s in chain}  # computed as the caller did (LibRange.sunk)
        # a replayed chain's values count as the argument too: a caller's neg of them not in the chain (read
        # besides another use) means the chain may stop short of the argument
        argument = inputs | {r for chain in b.sunk.values() for s in chain for r in regs(s.operands[0])}
        inside = [s for s in instrs if s.span is not None and b.covers(s.span.line) and id(s) not in replayed]
        for chain in b.sunk.values():
            for ab in (s for s in chain if s.opcode == "abs" and {"f16", "bf16"} & set(s.mods) and s.span):
                # (held-out seed 84945, silent at first contact: Triton's build packs the 16-bit |x| of pow(x,
                # abs(x.to(f16)).to(f32)) into abs.f16x2, which canonicalizes the ring's NaN patterns)
                assert ab.span is not None
                report.items.append(ReportItem(ab.span.line, ab.span.col, f"libdevice:__nv_{b.name}",
                                               f"{'.'.join((ab.opcode, *ab.mods))} of the argument inside the "
                                               f"inlined body of __nv_{b.name}: {HALF_ABS}", fn.name, native=False))
            order = b.neg_order.get(id(chain[0]))
            if order is not None and not order[0] and (span := chain[0].span) is not None:
                cvt = order[1]
                report.items.append(ReportItem(
                    span.line, span.col, f"libdevice:__nv_{b.name}",
                    f"{'.'.join((chain[0].opcode, *chain[0].mods))} of a {'.'.join((cvt.opcode, *cvt.mods))} "
                    f"result, the argument of the inlined body of __nv_{b.name}: the source was (-x).to(T) (Triton "
                    "narrows the negation) or -(x.to(T)) (negates the narrowed value), which differ; replayed as "
                    "written; no source says which", fn.name, native=False))
            for ab, cvt, _ in _abs_casts(chain):
                if not b.abs_order.get(id(ab)) and ab.span is not None:
                    report.items.append(ReportItem(
                        ab.span.line, ab.span.col, f"libdevice:__nv_{b.name}",
                        f"{'.'.join((ab.opcode, *ab.mods))} then {'.'.join((cvt.opcode, *cvt.mods))} of the "
                        f"argument inside the inlined body of __nv_{b.name}: LLVM moves abs across a cast "
                        "(abs(x.to(T)) becomes abs(x).to(T)) and Triton's ring cast does not commute with abs; "
                        "replayed as written; no source says which", fn.name, native=False))
        for s in inside:
            if (s.span is None or len(s.operands) != 2 or not isinstance(s.operands[1], ir.Reg)
                    or s.operands[1].name not in argument or set(regs(s.operands[0])) & inputs):
                continue  # (the neg that computes the other input, pow(d, -d), is the argument itself)
            dest = set(regs(s.operands[0]))
            if not any(n in dest for u in inside for o in u.operands[1:] for n in regs(o)):
                continue  # read by other code alone (held-out seed 12474: the user's sqrt(abs(x)) beside sinf(x))
            if s.opcode in ("neg", "abs") and b.ftype == "f32" and "f32" in s.mods and "ftz" not in s.mods:
                what = "negation" if s.opcode == "neg" else "abs"
            elif s.opcode in ("neg", "abs", "cvt") and ({"f16", "bf16", "f16x2", "bf16x2"} & set(s.mods)):
                what = "half-precision operation"
            else:
                continue
            report.items.append(ReportItem(
                s.span.line, s.span.col, f"libdevice:__nv_{b.name}",
                f"{'.'.join((s.opcode, *s.mods))} of the input {s.operands[1].name} inside the inlined body of "
                f"__nv_{b.name}: LLVM sank the caller's {what} of the argument into the body, so the replaced "
                "result is computed from the argument before it", fn.name, native=False))
        # the body reads −x besides its input x (held-out seed 1014: log(−h) of f64, whose subnormal scaling
        # LLVM folded into x·(−2^54)): the argument may be −x, the op reads x
        negs = {d.name: x.name for s in instrs if s.opcode == "neg" and len(s.operands) == 2 and id(s) not in replayed
                for d, x in [s.operands] if isinstance(d, ir.Reg) and isinstance(x, ir.Reg) and x.name in inputs
                and d.name not in inputs}  # pow(-y, y): −y is an argument itself
        read = next(((s, n) for s in inside for o in s.operands[1:] for n in regs(o) if n in negs), None)
        if read is not None and (span := read[0].span) is not None:
            n = read[1]
            report.items.append(ReportItem(
                span.line, span.col, f"libdevice:__nv_{b.name}",
                f"the inlined body of __nv_{b.name} reads {n} = −{negs[n]} besides its input {negs[n]}: LLVM may "
                "have folded the argument's negation into the body, so the replaced result may be computed from "
                "the argument before it", fn.name, native=False))


def report_unrecognised(module: ir.Module, fn: ir.Function, report: SanitizeReport,
                        recognised: set[int]) -> None:
    """Inlined libdevice bodies (``// %__nv_sinf.exit`` markers): their float instructions are
    rewritten one by one, which is not Triton's single tagged/closed-form op — report the range."""
    if fn.span is None:
        return
    text = module.source[fn.span.start:fn.span.end]
    if "__nv_" not in text:
        return
    base_line = fn.span.line
    prev_end = fn.span.line
    float_lines = [_line(s) for s in fn.instructions()
                   if s.span is not None and (is_float_arith(s) or (s.opcode == "cvt" and
                                              sum(m in FLOAT_TYPES for m in s.mods) == 2))]
    for m in _NV_EXIT.finditer(text):
        name = m.group(1)
        line = base_line + text.count("\n", 0, m.start())
        if name not in SIMPLE_LIBDEVICE and line not in recognised:
            inside = [ln for ln in float_lines if prev_end <= ln <= line]
            if inside:
                report.items.append(ReportItem(inside[0], 1, f"libdevice:__nv_{name}",
                                               f"inlined libdevice body of __nv_{name}: its float instructions are "
                                               "sanitized one by one, not as Triton's single FPSan op",
                                               fn.name, end_line=line, native=False))
        prev_end = line


# libdevice bodies LLVM inlines without an exit marker (branch-free, or f64 ones whose markers are only
# nested ``.i`` ones): recognised by constants that occur together only in them (issue 10 A0/C)
_UNMARKED = {
    "tanhf": (ir.FloatImm(0x4038AA3B, 32), ir.FloatImm(0x41102CB4, 32)),  # 2·log2(e); the |x| ≥ 9.01 cutoff
    "erf": (ir.FloatImm(0x3D47088FDB46FA5F, 64), ir.FloatImm(0xBCF0679AFBA6F279, 64)),  # leading coefficients
    "sin/cos": (ir.FloatImm(0x3FE45F306DC9C883, 64), ir.FloatImm(0x3FF921FB54442D18, 64)),  # 2/π, π/2 (hi)
}


def report_unmarked(fn: ir.Function, report: SanitizeReport, bodies: list[LibRange]) -> None:
    """An inlined body without an exit marker (:data:`_UNMARKED`) is sanitized op by op, which is not
    Triton's single FPSan op: an error at each instruction that carries its first constant."""
    hits: dict[str, list[ir.Instruction]] = {}
    seen: set[ir.FloatImm] = set()
    instrs = [s for s in fn.instructions() if s.span is not None]

    def for_bodies(s: ir.Instruction) -> bool:
        """A coefficient moved into a register (written once) that only recognised bodies read: LLVM hoists it
        into the code before a body (held-out seed 1633: erf's first constant at a pow body's location)."""
        d = s.operands[0]
        if s.opcode != "mov" or s.guard is not None or not isinstance(d, ir.Reg):
            return False
        name = d.name
        if sum(name in regs(u.operands[0]) for u in instrs if u.operands) != 1:
            return False
        readers = [u for u in instrs if u is not s and any(name in regs(o) for o in u.operands[1:])]
        return bool(readers) and all(any(b.covers(_line(u)) for b in bodies) for u in readers)

    for s in instrs:
        imms = {_magnitude(o) for o in s.operands if isinstance(o, ir.FloatImm)}  # LLVM may fold a negation in
        seen |= imms
        for name, keys in _UNMARKED.items():
            # (a line the recognised body runs natively, not merely one inside its range: held-out seed 10725's eight
            # interleaved f64 sin bodies, two recognised, whose ranges spanned the other six's constants — silent)
            if keys[0] in imms and not any(b.covers(_line(s)) for b in bodies) and not for_bodies(s):
                hits.setdefault(name, []).append(s)
    for name, at in hits.items():
        if not all(_magnitude(k) in seen for k in _UNMARKED[name]):
            continue
        for s in at:
            report.items.append(ReportItem(_line(s), s.span.col if s.span else 1, f"libdevice:__nv_{name}",
                                           f"inlined libdevice body of __nv_{name} without an exit marker "
                                           "(recognised by its constants): its float instructions are sanitized "
                                           "one by one, not as Triton's single FPSan op", fn.name, native=False))


def emit_ring_op(ctx: RewriteContext, r: LibRange) -> list[str | Unembed]:
    """The lines that write ``r.output = φ⁻¹(op(φ(r.input)))`` at the body's exit (the caller has set
    ``ctx.lines`` empty and the current definition)."""
    return emit_lib_op(ctx, r)


def _magnitude(o: ir.FloatImm) -> ir.FloatImm:
    return ir.FloatImm(o.bits & ~(1 << (o.width - 1)), o.width)


def _line(s: ir.Statement) -> int:
    """The line of a statement that has a span (the callers keep only those)."""
    assert s.span is not None
    return s.span.line
