"""Where a PTX instruction came from in its Python source (docs/fpsan.md §3 "Source hints"): the ``.file`` lines
of a module and the ``.loc`` in force at each instruction (the user's call of an inlined library function too), and
the ways :mod:`ptxkit.fpsan.source_hints` reads the expressions there: one form the nodes at the location agree on,
over their sub-expressions, or the innermost enclosing one."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TypeVar

from ptxkit import ir
from ptxkit.fpsan.source_ast import (
    _DEPTH,
    Classify,
    Decision,
    SourceFile,
    _cast_to,
    _classify,
    _find,
    _method_call,
    _negated,
    _one,
    _one_value,
    _resolve,
    _same,
)
from ptxkit.fpsan.source_dtypes import with_dtypes

_FILE = re.compile(r'^(\d+)\s+"([^"]*)"')
_LOC = re.compile(r"^(\d+)\s+(\d+)\s+(\d+)\b")
_H = TypeVar("_H", bound="HintsBase")
_INLINED_AT = re.compile(r"\binlined_at\s+(\d+)\s+(\d+)\s+(\d+)\b")


def _twin_locations(fn: ir.Function, loc: dict[int, tuple[str, int, int]]) -> None:
    """An instruction at LLVM's line 0 or column 0 (a block it merged) takes the location of its located twins —
    the same opcode, modifiers and immediates, the element copies of one source op — where they all have one
    (statement-level seed 1785: ``selp.f64 d, 1.5, x, p`` after an inlined exp2 body, two lanes' selects
    unlocated)."""
    def shape(i: ir.Instruction) -> tuple[object, ...] | None:
        imms = tuple(o for o in i.operands[1:] if isinstance(o, (ir.Imm, ir.FloatImm)))
        return (i.opcode, i.mods, len(i.operands), imms) if imms and i.opcode in _TWINNED else None
    zero = [i for i in fn.instructions() if (at := loc.get(id(i))) is not None and 0 in at[1:] and shape(i)]
    if not zero:
        return
    seen: dict[tuple[object, ...], set[tuple[str, int, int]]] = {}
    for i in fn.instructions():
        if (at := loc.get(id(i))) is not None and 0 not in at[1:] and (k := shape(i)) is not None:
            seen.setdefault(k, set()).add(at)
    for i in zero:
        at = loc[id(i)]  # (at column 0, LLVM's merged line: twins on that line)
        found = {t for t in seen.get(shape(i) or (), set()) if at[1] == 0 or t[:2] == at[:2]}
        if len(found) == 1:
            loc[id(i)] = next(iter(found))


_TWINNED = frozenset({"selp", "add", "sub", "mul", "fma", "max", "min", "setp", "mov", "div"})


@dataclass
class HintsBase:
    """The sources a module's ``.file`` lines name, and the ``.loc`` in force at each instruction of one
    function (``loc``: id → (file index, line, 1-based column); ``call_site``: the same for an instruction
    of an inlined function, the ``inlined_at`` location of its call)."""

    files: dict[str, SourceFile | None] = field(default_factory=dict)
    loc: dict[int, tuple[str, int, int]] = field(default_factory=dict)
    call_site: dict[int, tuple[str, int, int]] = field(default_factory=dict)
    # the calls the instruction's own function was inlined through, innermost first (a helper's call in another
    # helper, ``_inner(x, 1.5)`` in ``_outer``, then ``_outer(x)`` in the kernel), where there are several
    inlined_at: dict[int, tuple[tuple[str, int, int], ...]] = field(default_factory=dict)

    @classmethod
    def of(cls: type[_H], module: ir.Module, fn: ir.Function, root: str | None) -> _H:
        h = cls()
        for item in module.items:
            if isinstance(item, ir.Directive) and item.name == "file":
                m = _FILE.match(item.args)
                if m and m.group(2).endswith(".py"):
                    h.files[m.group(1)] = _find(m.group(2), root)
        cur: tuple[str, int, int] | None = None
        call: tuple[str, int, int] | None = None
        caller: dict[tuple[str, int, int], tuple[str, int, int]] = {}  # a location in an inlined function → its call
        for s in fn.statements():
            if isinstance(s, ir.Directive) and s.name == "loc":
                m = _LOC.match(s.args)  # ``1 12 5`` or ``1 12 5, function_name …, inlined_at 1 13 10``
                cur = (m.group(1), int(m.group(2)), int(m.group(3))) if m else None
                m = _INLINED_AT.search(s.args) if m else None
                call = (m.group(1), int(m.group(2)), int(m.group(3))) if m else None
                chain = [call] if call is not None else []
                if cur is not None and call is not None:
                    caller[cur] = call  # (the latest: a helper inlined twice, its body's second copy follows its own)
                    for _ in range(8):  # the outermost call: tl.cumsum's scan inlines its combine (held-out 6041)
                        if call not in caller or caller[call] == call:
                            break
                        call = caller[call]
                        chain.append(call)
            elif isinstance(s, ir.Instruction) and cur is not None:
                h.loc[id(s)] = cur
                if call is not None:
                    h.call_site[id(s)] = call
                    if len(chain) > 1:
                        h.inlined_at[id(s)] = tuple(chain)
        _twin_locations(fn, h.loc)
        for key, f in h.files.items():  # (.to(out_ptr.dtype.element_ty) read as the tl.T it is)
            h.files[key] = with_dtypes(f, key, fn, h.loc) if f is not None else None
        return h

    @contextmanager
    def at_call_site(self, instr: ir.Instruction) -> Iterator[bool]:
        """Within, ``instr``'s location is the user's call that the inlined functions it belongs to came from
        (the outermost ``inlined_at``; True), or stays its own (False: not inlined). Triton's library functions
        carry their own file's locations (held-out seed 4703: ``tl.max`` of a half widens it to f32 at
        standard.py:212, where the parameter ``input`` says nothing; the call ``tl.max(e, axis=1)`` names ``e``)."""
        call, own = self.call_site.get(id(instr)), self.loc.get(id(instr))
        if call is None or own is None:
            yield False
            return
        self.loc[id(instr)] = call
        try:
            yield True
        finally:
            self.loc[id(instr)] = own

    def call_arguments(self, instr: ir.Instruction, f: SourceFile,
                       n: ast.expr) -> tuple[dict[str, ast.expr], ast.Call | None]:
        """The parameters of the user's helper ``n`` is in (``def _sel(c, a, b)``), inlined into the kernel, by the
        arguments of its one call at ``instr``'s call site (``_sel(x > 0, x, 1.5)``), and that call; ({}, None) where
        there is none."""
        fn = f.function_of(n)
        if fn is None:
            return {}, None
        chain = self.calls_of(instr)
        args: dict[str, ast.expr] = {}
        first: ast.Call | None = None
        for site in chain:  # innermost first: a parameter given the caller's own parameter is mapped on outwards
            call = self._call_of(f, site, fn) if self.files.get(site[0]) is f else None
            if call is None and first is None:
                continue  # (a library function inlined into the helper first: tl.sigmoid in _h, statement-level
                # seed 272, _h called twice)
            if call is None:
                break
            mapped = {p.arg: v for p, v in zip(fn.args.args, call.args, strict=True)}
            if first is None:
                args, first = mapped, call
            else:
                args = {k: mapped.get(v.id, v) if isinstance(v, ast.Name) else v for k, v in args.items()}
            fn = f.function_of(call)
            if fn is None:
                break
        return args, first

    def calls_of(self, instr: ir.Instruction) -> tuple[tuple[str, int, int], ...]:
        """The locations of the calls ``instr`` was inlined through, innermost first (none: not inlined)."""
        return self.inlined_at.get(id(instr)) or ((site,) if (site := self.call_site.get(id(instr))) else ())

    def helper_calls(self, instr: ir.Instruction) -> dict[str, ast.Call]:
        """The user's helper calls ``instr`` was inlined from (its ``inlined_at`` chain), by the helper's name."""
        out: dict[str, ast.Call] = {}
        for site in self.calls_of(instr):
            f = self.files.get(site[0])
            calls = [c for c in f.at.get((site[1], site[2] - 1), []) if isinstance(c, ast.Call)
                     and isinstance(c.func, ast.Name)] if f is not None else []
            if len(calls) == 1 and isinstance(func := calls[0].func, ast.Name):
                out.setdefault(func.id, calls[0])
        return out

    @staticmethod
    def _call_of(f: SourceFile, site: tuple[str, int, int], fn: ast.FunctionDef) -> ast.Call | None:
        """The one call of the helper ``fn`` at the location ``site``."""
        calls = [c for c in f.at.get((site[1], site[2] - 1), []) if isinstance(c, ast.Call)
                 and isinstance(c.func, ast.Name) and c.func.id == fn.name and not c.keywords
                 and len(c.args) == len(fn.args.args)]
        return calls[0] if len(calls) == 1 else None

    def nodes(self, instr: ir.Instruction) -> tuple[SourceFile, list[ast.expr]] | None:
        loc = self.loc.get(id(instr))
        f = self.files.get(loc[0]) if loc else None
        if loc is None or f is None:
            return None
        return f, f.at.get((loc[1], loc[2] - 1), [])

    def nodes_or_line(self, instr: ir.Instruction) -> tuple[SourceFile, list[ast.expr]] | None:
        """:meth:`nodes`, or at column 0 (LLVM's merged location: only the line is known) every expression of the
        statements that start on the line (statement-level probe: the later copies of ``log2(|where(c, 0.5, q)| +
        2.0)``'s select at 12:0, the folded constant arm left as LLVM's, silent)."""
        found = self.nodes(instr)
        loc = self.loc.get(id(instr))
        if found is None or loc is None or loc[2] != 0:
            return found
        f = found[0]
        return f, [sub for n in _line_expressions(f, loc[1]) for sub in ast.walk(n)
                   if isinstance(sub, ast.expr) and sub.lineno == loc[1]]

    def loaded_name(self, ld: ir.Instruction) -> str | None:
        """The name a load's ``tl.load`` call at ``ld``'s location is assigned to (``x1 = tl.load(..)``), else None."""
        found = self.nodes(ld)
        if found is None:
            return None
        f, nodes = found
        names = {t for n in nodes if (t := load_target(f, n)) is not None}
        return names.pop() if len(names) == 1 else None

    def dot_operands(self, instr: ir.Instruction, side: int | None) -> tuple[SourceFile, list[ast.expr]] | None:
        """The operand ``side`` (0 A, 1 B; None: both) of each ``tl.dot`` call at ``instr``'s location."""
        found = self.nodes(instr)
        if found is None:
            return None
        f, nodes = found
        return f, [v for n in nodes if _method_call(n, "dot", 2)
                   for v in (n.args[:2] if side is None else n.args[side:side + 1])]

    def same_location(self, a: ir.Instruction, b: ir.Instruction) -> bool:
        """``a`` and ``b`` carry the same ``.loc`` (one source expression)."""
        la, lb = self.loc.get(id(a)), self.loc.get(id(b))
        return la is not None and la == lb

    def within_location(self, a: ir.Instruction, b: ir.Instruction) -> bool:
        """:meth:`same_location`, or ``a`` at column 0 of ``b``'s line (LLVM's merged location of work inside
        ``b``'s expression: held-out seed 12693, ``2.0 * (x + -(x * -1.0))`` as two self-adds, the inner at 11:0)."""
        la, lb = self.loc.get(id(a)), self.loc.get(id(b))
        return la is not None and lb is not None and (la == lb or (la[:2] == lb[:2] and la[2] == 0))

    def negated_argument(self, instr: ir.Instruction) -> bool:
        """The one-argument library call at ``instr``'s location (or the user's call it was inlined from) takes a
        negation (``tl.log2(-x)``, ``libdevice.log(x * -1.0)``, through names): LLVM may fold it into the body
        (held-out seeds 14670, 15412: f64 log2 of −x reads both x and −x)."""
        def classify(f: SourceFile, n: ast.expr) -> tuple[str, ast.expr] | None:
            if not (isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and isinstance(n.func.value, ast.Name)
                    and n.func.value.id in ("tl", "libdevice") and len(n.args) == 1 and not n.keywords):
                return None
            arg = _resolve(f, n.args[0], _DEPTH)
            return ("neg", n) if arg is not None and _negated(arg) is not None else None
        got = self.decide(instr, classify)
        if got is None:
            with self.at_call_site(instr) as inlined:
                got = self.decide(instr, classify) if inlined else None
        return got is not None

    def same_arguments(self, instr: ir.Instruction) -> bool | None:
        """Whether the two-argument call at ``instr``'s location passes one expression twice (``pow(x, x)``)
        or two (``pow(-y, y)``, held-out seed 2056): what a libdevice body whose inputs the PTX leaves open
        (one register and its negation) was called with; None without a source or with no such call."""
        found = self.nodes(instr)
        if found is None:
            return None
        kinds = {_same_pair(n.args[0], n.args[1]) for n in found[1]
                 if isinstance(n, ast.Call) and len(n.args) == 2 and not n.keywords}
        return kinds.pop() if len(kinds) == 1 else None

    def decide(self, instr: ir.Instruction, classify: Classify) -> Decision | None:
        """The one form the source nodes at ``instr``'s location agree on (``classify``: a node → its
        form and the node to cite, or None); None without a source, or with no or several forms."""
        got = self.forms_at(instr, classify)
        return _one(*got) if got is not None else None

    def forms_at(self, instr: ir.Instruction, classify: Classify) -> tuple[SourceFile, dict[str, ast.expr]] | None:
        """Every form :meth:`decide` sees (a node of each), or None without a source."""
        found = self.nodes(instr)
        if found is None:
            return None
        if self.loc[id(instr)][2] == 0:
            return self.forms_within(instr, classify)  # only the line is known (LLVM merged two locations)
        f, nodes = found
        forms: dict[str, ast.expr] = {}
        for n in nodes:
            got = _classify(classify, f, n)
            if got is not None:
                forms.setdefault(*got)
        return f, forms

    def decide_here_or_at_call(self, instr: ir.Instruction, classify: Classify) -> Decision | None:
        """:meth:`decide` at ``instr``'s location, else at the user's call of the inlined function it is in."""
        got = self.decide(instr, classify)
        if got is None:
            with self.at_call_site(instr) as inlined:
                got = self.decide(instr, classify) if inlined else None
        return got

    def decide_within(self, instr: ir.Instruction, classify: Classify, whole_line: bool = False) -> Decision | None:
        """Like :meth:`decide`, over every sub-expression of the nodes at ``instr``'s location (names not
        followed): LLVM gives an instruction it merged or hoisted an enclosing expression's location. At
        column 0, or with ``whole_line``, every expression of the statements that start on the line."""
        got = self.forms_within(instr, classify, whole_line)
        return _one(*got) if got is not None else None

    def forms_within(self, instr: ir.Instruction, classify: Classify,
                     whole_line: bool = False) -> tuple[SourceFile, dict[str, ast.expr]] | None:
        """Every form :meth:`decide_within` sees (a node of each), or None without a source."""
        found = self.nodes(instr)
        if found is None:
            return None
        f, nodes = found
        line, col = self.loc[id(instr)][1:]
        if col == 0 or whole_line:  # column 0: every expression of the statements starting on the line
            nodes = _line_expressions(f, line)
        forms: dict[str, ast.expr] = {}
        for n in nodes:
            for sub in ast.walk(n):
                got = _classify(classify, f, sub) if isinstance(sub, ast.expr) and sub.lineno == line else None
                if got is not None:
                    forms.setdefault(*got)
        return f, forms

    def decide_in_file(self, instr: ir.Instruction, classify: Classify) -> Decision | None:
        """Like :meth:`decide`, over every expression of the file ``instr``'s location names: for an instruction at
        line 0 (LLVM's "no location"), where only one form in the whole file can be the one at hand."""
        loc = self.loc.get(id(instr))
        f = self.files.get(loc[0]) if loc else None
        if f is None:
            return None
        forms: dict[str, ast.expr] = {}
        for n in ast.walk(f.tree):
            got = _classify(classify, f, n) if isinstance(n, ast.expr) else None
            if got is not None:
                forms.setdefault(*got)
        return _one(f, forms)

    def decide_enclosing(self, instr: ir.Instruction, classify: Classify) -> Decision | None:
        """Like :meth:`decide`, over the innermost node that classifies and whose span on the line holds
        the column: Triton gives ``tl.abs(…)``'s sign-bit ``and`` a column inside the call's name (held-out
        seeds 736, 814: ``tl.abs`` at column 9, the ``and`` at 10), where no node starts."""
        found = self.nodes(instr)
        if found is None:
            return None
        f, _ = found
        line, col = self.loc[id(instr)][1:]
        best: tuple[int, str, ast.expr] | None = None
        for n in ast.walk(f.tree):
            if not (isinstance(n, ast.expr) and n.lineno == line == n.end_lineno and n.end_col_offset is not None
                    and n.col_offset < col - 1 < n.end_col_offset):
                continue
            got = _classify(classify, f, n)
            if got is not None and (best is None or n.end_col_offset - n.col_offset < best[0]):
                best = (n.end_col_offset - n.col_offset, *got)
        return Decision(best[1], f.where(best[2])) if best is not None else None

    # -- the folds


def _same_pair(a: ast.expr, b: ast.expr) -> bool | None:
    """One expression twice (True; also through choices of one value, ``where(c, d, d)`` is d in the ring too:
    held-out seed 29910), two (False), or two forms of one negation (``-y`` and ``y * -1.0``: one value natively, two
    in Triton's ring, −φ(y) and φ(y)·φ(−1); held-out seed 29830, silent: None, undecided)."""
    if ast.dump(_same(a)) == ast.dump(_same(b)) or ast.dump(_f32_of(_same(a))) == ast.dump(_f32_of(_same(b))):
        return True
    na, nb = _negated(a), _negated(b)
    return None if na is not None and nb is not None and ast.dump(na) == ast.dump(nb) else False


def _f32_of(x: ast.expr) -> ast.expr:
    """``E.to(tl.float32)`` for ``E.to(tl.float64).to(tl.float32)``, else ``x``: one value in Triton's ring whatever E
    is (an f64 E is its own widening; a narrower one's sign-extended payload narrows back to its f32 widening, the
    hash fold's discrepancy being 0 — docs/fpsan.md §2), and one register after LLVM's folds (held-out seed 228530:
    ``pow(x.to(f64).to(f32), x.to(f32))`` of a bf16 x, reported as two arguments)."""
    if _cast_to(x) == "float32" and isinstance(x, ast.Call) and isinstance(x.func, ast.Attribute) \
            and _cast_to(inner := x.func.value) == "float64" and isinstance(inner, ast.Call) \
            and isinstance(inner.func, ast.Attribute):
        return ast.Call(func=ast.Attribute(value=inner.func.value, attr=x.func.attr, ctx=ast.Load()), args=x.args,
                        keywords=x.keywords)
    return x


def load_target(f: SourceFile, e: ast.expr | None) -> str | None:
    """The name ``e``, a ``tl.load`` call, is assigned to (``x1 = tl.load(..)``), else None."""
    up = f.parent.get(id(e)) if e is not None else None
    if _method_call(e, "load", 1) and isinstance(up, ast.Assign) and len(up.targets) == 1 \
            and isinstance(t := up.targets[0], ast.Name):
        return t.id
    return None


def _same_value(f: SourceFile, a: ast.expr, b: ast.expr) -> bool:
    """``a`` and ``b`` are one value: the same expression, also through a choice of one value (``tl.minimum(y, y)``
    is ``y``: :func:`_one_value`)."""
    if ast.dump(a) == ast.dump(b):
        return True
    x, y = _one_value(f, a), _one_value(f, b)
    return x is not None and y is not None and ast.dump(x) == ast.dump(y)


def _line_expressions(f: SourceFile, line: int) -> list[ast.expr]:
    """The expressions of the statements that start on ``line`` (their own children)."""
    return [n for st in ast.walk(f.tree) if isinstance(st, ast.stmt) and st.lineno == line
            for n in ast.iter_child_nodes(st) if isinstance(n, ast.expr)]
