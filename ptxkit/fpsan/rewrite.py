"""The float-op rewrite pass over one function: walk the statements in order, rewrite each float
instruction through :func:`ptxkit.fpsan.dispatch.rewrite_instruction` (or report it), run recognised
libdevice bodies natively and put the ring op at their exit, and keep the shadow-payload bookkeeping
that later decides which φ⁻¹ tails can go (``ptxkit.fpsan.edits``).

A payload computed by one rewritten instruction stays in a shadow register for the following float
instructions of the same straight-line run — until a label that is a jump target, a nested block, or
a write of the register (``RewriteContext.clear``/``invalidate``).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from ptxkit import ir
from ptxkit.fpsan.abs_bits import AS_AND, SELECTED, abs_as_and, half_abs_verdict, selected
from ptxkit.fpsan.ctx import NATIVE_COPY, RewriteContext, Unembed, operand_text
from ptxkit.fpsan.dispatch import is_float_arith, rewrite_instruction
from ptxkit.fpsan.folds import Flow, rewrite_fold
from ptxkit.fpsan.irview import NO_DEST, RegTypes, referenced_labels, regs, writes
from ptxkit.fpsan.libdevice import LibRange, emit_ring_op, note_text, save_input
from ptxkit.fpsan.libdevice_emit import VERIFIED_CALLS
from ptxkit.fpsan.libdevice_flow import native_lines
from ptxkit.fpsan.mma import resolve_mode
from ptxkit.fpsan.mma_calls import calls_allowed
from ptxkit.fpsan.options import Options
from ptxkit.fpsan.report import ERROR, NOTE, ReportItem, SanitizeReport, Verdict, native_verdict
from ptxkit.fpsan.resident import const_move, ring_shape
from ptxkit.fpsan.source_hints import SourceHints
from ptxkit.fpsan.source_inline import call_sites
from ptxkit.fpsan.touches import record_move
from ptxkit.ptx.emit import format_instruction
from ptxkit.ptx.types import FLOAT_TYPES

Lines = list[str | Unembed]

_DIRECTED = ("sanitized like any other op (rounding is irrelevant in the ring), but directed rounding (.rm/.rp) "
             "marks an inlined libm body (nvcc's expf/logf…): the body's result is then not the single FPSan "
             "op Triton applies to the function")


@dataclass
class FreshNames:
    """Name prefixes that occur nowhere in the file, and the label counter shared by its functions."""

    prefix: str
    label_prefix: str
    labels: int = 0


@dataclass
class Rewritten:
    """What the pass produced for one function, before the edits are written."""

    ctx: RewriteContext
    replaced: list[tuple[ir.Instruction, Lines]] = field(default_factory=list)
    inserted: list[tuple[ir.Statement, Lines, bool]] = field(default_factory=list)  # (anchor, lines, after?)


def rewrite_function(module: ir.Module, fn: ir.Function, report: SanitizeReport, names: FreshNames,
                     opts: Options, bodies: list[LibRange], types: RegTypes,
                     resident: dict[str, str] | None = None) -> Rewritten:
    """Run the pass over ``fn`` (its report items go to ``report``); ``resident``: the registers that
    hold their payload (``ptxkit.fpsan.resident``), each with its float type."""
    return _FunctionRewrite(module, fn, report, names, opts, bodies, types, resident or {}).run()


class _FunctionRewrite:
    def __init__(self, module: ir.Module, fn: ir.Function, report: SanitizeReport, names: FreshNames,
                 opts: Options, bodies: list[LibRange], types: RegTypes, resident: dict[str, str]):
        self.fn, self.report, self.names, self.opts = fn, report, names, opts
        self.counter: dict[str, int] = {}
        ctx = RewriteContext(prefix=names.prefix, label_prefix=names.label_prefix, reg_types=types,
                             homomorphic_casts=opts.homomorphic_casts, report_fn=self.report_item, counter=self.counter)
        ctx.labels = names.labels
        ctx.resident = resident
        # the touches are recorded to check a non-empty residency choice (ptxkit.fpsan_ptx); without one
        # there is nothing to check, and integer-heavy functions skip the bookkeeping
        self.track = bool(resident)
        ctx.calls_ok = calls_allowed(module.source)
        ctx.cvt_sites = dict(Counter(".".join(i.mods) for i in fn.instructions() if i.opcode == "cvt"))
        ctx.folds = dict(opts.folds)
        ctx.wgmma_sites = sum(1 for i in fn.instructions() if i.opcode == "wgmma" and "mma_async" in i.mods)
        ctx.mma_mode = resolve_mode(opts.mma, sum(1 for i in fn.instructions() if i.opcode == "mma"), module.target)
        self.ctx = ctx
        self.out = Rewritten(ctx)
        self.next_def = 0
        self.jump_targets = referenced_labels(module, fn)
        self.skip_lines = native_lines(bodies)
        # an anchor inside a one-line block (``{ .reg .b32 tmp; mov.b64 {lo, tmp}, r; }``) moves to the block: lines
        # cannot go in the middle of its line (held-out seed 3753: a pow's ring op cut the block's closing brace)
        at = _one_line_blocks(fn)
        self.anchors = {at.get(id(r.anchor), id(r.anchor)): r for r in bodies}
        self.saves = {at.get(id(r.save), id(r.save)): r for r in bodies if r.save is not None}
        self.bypass = {id(sel): (r, v) for r in bodies for sel, v in r.bypass}
        self.absorbed = {ln: r for r in bodies for ln in r.absorbed}
        hints = SourceHints.of(module, fn, opts.source_root) if opts.source_hints else None
        self.flow = Flow.of(fn, types, hints)  # the dataflow the fold recognisers read (ptxkit.fpsan.folds)
        self.flow.native = self.skip_lines
        self.flow.bypassed = set(self.bypass)
        self.flow.loops = native_lines([r for r in bodies if r.op in ("sin", "cos")])  # square-and-multiply loops
        self.flow.body_inputs = {x for r in bodies for x in (r.input, *r.inputs)}
        self.flow.doubled = {r.inputs[0] for r in bodies if r.doubled is not None}
        self.flow.bodies = {r.output: r for r in bodies}
        self.flow.ranges = {ln for r in bodies for a, b in ((r.start_line, r.end_line), *r.extra) for ln in range(a, b)}
        ctx.hints = self.flow.hints  # the cast folds (half-int, int-half) read it too (ptxkit.fpsan.casts)
        ctx.uses = self.flow.uses
        ctx.only_def = self.flow.only_def

    def run(self) -> Rewritten:
        self.walk(self.fn.body or [])
        self.names.labels = self.ctx.labels
        return self.out

    def report_item(self, instr: ir.Instruction, reason: str, severity: str = ERROR, native: bool = True) -> None:
        sp = instr.span
        self.report.items.append(ReportItem(sp.line if sp else 0, sp.col if sp else 0,
                                            ".".join((instr.opcode, *instr.mods)), reason, self.fn.name,
                                            severity=severity, native=native))

    def new_def(self) -> None:
        self.ctx.lines = []
        self.next_def += 1
        self.ctx.current_def = self.next_def

    def ring_op(self, r: LibRange) -> Lines:
        """The recognised body's result replaced by its ring op (a note: Triton's own FPSan op)."""
        self.new_def()
        lines = emit_ring_op(self.ctx, r)
        self.file_raw()
        self.report.rewritten += 1
        self.report.items.append(ReportItem(r.start_line, 1, f"libdevice:__nv_{r.name}",
                                            note_text(r),
                                            self.fn.name, end_line=r.end_line, severity=NOTE))
        if r.op == "call" and r.name not in VERIFIED_CALLS:
            self.report.items.append(ReportItem(r.start_line, 1, f"libdevice:__nv_{r.name}", (
                f"the call hash of __nv_{r.name} is not verified against Triton's FPSan build: the body may carry work "
                "past its exit, or read its input in a form, that the matcher does not know"), self.fn.name,
                end_line=r.end_line, native=False))
        if r.inputs_disputed:
            self.report.items.append(ReportItem(r.start_line, 1, f"libdevice:__nv_{r.name}", (
                f"the inputs of the inlined __nv_{r.name}: the body reads a value and forms of it (|x|, -x) that LLVM "
                "computed from one another, and the register taken for an argument was computed as the other argument "
                "in the source's call; hashed as matched"), self.fn.name, end_line=r.end_line, native=False))
        if r.order_undecided:
            self.report.items.append(ReportItem(r.start_line, 1, f"libdevice:__nv_{r.name}", (
                f"the argument order of the inlined __nv_{r.name}: the body reads both arguments alike and the "
                "source's call does not say which input is which; hashed in the order of first use"), self.fn.name,
                end_line=r.end_line, native=False))
        return lines

    def walk(self, body: list[ir.Statement]) -> None:
        """Visit the statements in order; a nested block starts and ends a straight-line run. The block
        tree is walked with an explicit stack: ptxas accepts blocks nested 1,000 deep."""
        ctx = self.ctx
        stack = [iter(body)]
        while stack:
            s = next(stack[-1], None)
            if s is None:
                stack.pop()
                if stack:
                    ctx.clear()  # the end of a nested block
                continue
            lib = self.anchors.get(id(s))
            if isinstance(s, ir.Block):
                if lib is not None:  # before a one-line block that reads the result
                    self.out.inserted.append((s, self.ring_op(lib), False))
                if (sv := self.saves.get(id(s))) is not None:  # after the ring op of a body whose result it
                    self.save(s, sv)  # copies (held-out seed 5340: log(pow(x, y)), both f64: silent before)
                ctx.clear()
                stack.append(iter(s.body))
            elif isinstance(s, ir.Label):
                if lib is not None or s.name in self.jump_targets:
                    ctx.clear()  # a join point: payloads of one predecessor are not valid here
                if lib is not None:
                    self.out.inserted.append((s, self.ring_op(lib), True))
            elif isinstance(s, ir.Instruction):
                if lib is not None:
                    self.out.inserted.append((s, self.ring_op(lib), False))
                if (sv := self.saves.get(id(s))) is not None:
                    self.save(s, sv)
                if s.span is not None and s.span.line in self.skip_lines:
                    self.native(s, link=False)  # the inlined body runs natively; its result is replaced at the exit
                    if (lib_of := self.absorbed.get(s.span.line)) is not None:
                        self.report_item(s, f"runs natively with the inlined body of __nv_{lib_of.name} (line "
                                            f"{lib_of.start_line}): a test or select LLVM sank past its exit, "
                                            "whose result the ring op replaces", NOTE)
                elif id(s) in self.bypass:
                    self.general_case(s, *self.bypass[id(s)])
                else:
                    self.visit(s)

    def save(self, at: ir.Statement, r: LibRange) -> None:
        """The copy of an input a body updates in place, before ``at``; it reads the input's float bits (the
        result of another body's ring op, inserted just before, among them)."""
        self.new_def()
        self.ctx.read_bits(r.input)
        self.out.inserted.append((at, save_input(self.ctx, r), False))
        self.file_raw()

    def general_case(self, sel: ir.Instruction, r: LibRange, v: str) -> None:
        """A special-case select of a recognised body sunk past user code (``LibRange.bypass``) becomes a
        move of its general arm: Triton's FPSan op has no special case."""
        self.new_def()
        self.native(sel)
        d = sel.operands[0]
        self.out.replaced.append((sel, [f"mov.{sel.mods[-1]} {operand_text(d)}, {v};"]))
        self.report_item(sel, f"special case of the inlined __nv_{r.name} (line {r.start_line}) that LLVM sank past "
                              "the caller's code: Triton's FPSan op has none, so the select keeps its general arm",
                         NOTE, native=False)

    def file_raw(self) -> None:
        """The pending touches of code the residency records do not vouch for: raw."""
        if self.track:
            self.ctx.touches.raw(r for r, _ in self.ctx.pending)
        self.ctx.pending = []

    def file_touches(self, instr: ir.Instruction, vetted: bool) -> None:
        """File the touches of a rewritten instruction: a ring-shaped one rewritten by ``dispatch``
        keeps its ring reads and definitions (every other operand register is raw); anything else
        (folds, mma, atomics, packed ops) is raw throughout."""
        ctx, t = self.ctx, self.ctx.touches
        if not self.track:
            ctx.pending = []
            return
        seen: set[str] = set()
        if vetted and ring_shape(instr) is not None:
            for r, kind in ctx.pending:
                t.add(r, kind)
                seen.add(r)
        else:
            t.raw(r for r, _ in ctx.pending)
        t.raw(r for o in instr.operands for r in regs(o) if r not in seen)
        if instr.guard is not None:
            t.raw([instr.guard.pred])
        ctx.pending = []

    def native(self, instr: ir.Instruction, link: bool = True) -> None:
        """Bookkeeping for an instruction left as it is. Operand registers are reads of their float
        bits, attributed to the definition reaching them when known. The destination is a read too
        unless it is a plain unguarded write (a guarded write keeps the old value; wgmma and video ops
        with byte selectors read their destination). A bit move (``link``) links its registers in the
        residency records instead of touching them raw."""
        ctx = self.ctx
        self.file_raw()
        if self.track and not (link and record_move(ctx.touches, instr)):
            ctx.touches.raw(r for o in instr.operands for r in regs(o))
            if instr.guard is not None:
                ctx.touches.raw([instr.guard.pred])
        plain = (instr.guard is None and instr.opcode not in NO_DEST and bool(instr.operands)
                 and isinstance(instr.operands[0], (ir.Reg, ir.Sym, ir.Vec))
                 and instr.opcode not in ("wgmma", "tcgen05") and not instr.opcode.startswith("v"))
        for o in instr.operands[1:] if plain else instr.operands:
            for r in regs(o):
                ctx.bit_reads.append((r, ctx.last_write.get(r)))
        for r in writes(instr):
            ctx.invalidate(r)
        if plain:
            for r in writes(instr):
                ctx.last_write[r] = NATIVE_COPY

    def native_abs(self, instr: ir.Instruction, as_and: str | None) -> None:
        """An |x| left as |x| (``ptxkit.fpsan.abs_bits``): written as ``as_and`` (the sign-bit ``and``) when
        given, and reported when it is a 16-bit one."""
        if as_and is not None:
            self.out.replaced.append((instr, [as_and]))
        if (half := half_abs_verdict(instr, self.flow)) is not None:
            self.report_item(instr, half.reason, half.severity, native=as_and is None)

    def visit(self, instr: ir.Instruction) -> None:
        rewired = self.flow.rewired.pop(id(instr), None)
        if rewired is None:
            return self.rewrite(instr)
        # a reader of a self-add's second form (ptxkit.fpsan.fold_self_add): rewritten, or written out, as it reads
        saved, n = (instr.mods, instr.operands), len(self.out.replaced)
        instr.mods, instr.operands = rewired
        try:
            self.rewrite(instr)
            if not any(i is instr for i, _ in self.out.replaced[n:]):
                self.out.replaced.append((instr, [format_instruction(instr)]))
        finally:
            instr.mods, instr.operands = saved

    def rewrite(self, instr: ir.Instruction) -> None:
        ctx, report = self.ctx, self.report
        self.new_def()
        ctx.pending = []
        n_items = len(report.items)
        with call_sites(self.flow.hints.helper_calls(instr)):  # (a helper called twice: this call's arguments)
            fold = rewrite_fold(instr, ctx, self.opts, self.flow)
        if fold is not None:  # one of LLVM's folds (issue 10 K F G J L M): rewritten and reported there
            if fold.verdict is not None:
                self.report_item(instr, fold.verdict.reason, fold.verdict.severity, fold.verdict.native)
                report.covered |= fold.verdict.covers
            if fold.done:
                self.out.replaced.append((instr, ctx.lines))
                report.rewritten += 0 if fold.moves else 1
                if any(m in ("rm", "rp") for m in instr.mods):
                    self.report_item(instr, _DIRECTED, native=False)
                if fold.moves:
                    self.native(instr, link=False)
                self.file_touches(instr, False)
            else:
                self.native(instr, link=False)
                self.native_abs(instr, abs_as_and(instr, self.flow))
            ctx.lines = []
            return
        done = rewrite_instruction(instr, ctx, self.opts.atomics)
        if done is True:
            self.file_touches(instr, True)
            self.out.replaced.append((instr, ctx.lines))
            report.rewritten += 1
            if any(m in ("rm", "rp") for m in instr.mods) and instr.opcode != "cvt":
                self.report_item(instr, _DIRECTED, native=False)
        else:
            as_and = abs_as_and(instr, self.flow)
            if isinstance(done, str):
                self.report_item(instr, done)
            elif isinstance(done, Verdict):
                self.report_item(instr, done.reason, done.severity, done.native)
            elif len(report.items) == n_items:
                if is_float_arith(instr):
                    self.report_item(instr, f"no FPSan rewrite for {instr.opcode}")
                elif as_and is not None:
                    self.report_item(instr, AS_AND, NOTE, native=False)
                elif selected(instr, self.flow):
                    self.report_item(instr, SELECTED, NOTE)
                elif (v := native_verdict(instr)) is not None and any(m in FLOAT_TYPES for m in instr.mods):
                    self.report_item(instr, v.reason, v.severity, v.native)
            self.native(instr)
            ops = instr.operands
            self.native_abs(instr, as_and)
            if (instr.opcode == "mov" and instr.guard is None and len(ops) == 2
                    and isinstance(ops[0], ir.Reg) and isinstance(ops[1], ir.Reg)):
                ctx.copy_shadow(ops[0].name, ops[1].name)
            elif ops and isinstance(dest := ops[0], ir.Reg) and (ft := ctx.resident.get(dest.name)) is not None:
                line = const_move(instr, ft, ctx)  # a constant written into a resident register: φ(constant)
                if line is not None:
                    self.out.replaced.append((instr, [line]))
        ctx.lines = []


def _one_line_blocks(fn: ir.Function) -> dict[int, int]:
    """id of each instruction on the first line of a ``{ }`` block -> id of the outermost such block."""
    out: dict[int, int] = {}
    stack: list[tuple[list[ir.Statement], ir.Block | None]] = [(fn.body or [], None)]
    while stack:
        body, outer = stack.pop()
        for s in body:
            if isinstance(s, ir.Block):
                same = outer is not None and outer.span is not None and s.span is not None \
                    and s.span.line == outer.span.line
                stack.append((s.body, outer if same else s))
            elif isinstance(s, ir.Instruction) and outer is not None and s.span is not None \
                    and outer.span is not None and s.span.line == outer.span.line:
                out[id(s)] = id(outer)
    return out
