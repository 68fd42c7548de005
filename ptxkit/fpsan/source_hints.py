"""Source hints for LLVM's ambiguous folds (issue 10 K J H; docs/fpsan.md §3 "Folds", docs/cli.md
``--source-hints``): Triton's PTX keeps ``.loc FILE LINE COL`` debug lines and ``.file N "kernel.py"``
naming the Python source. When that file exists and parses, the expression at the ``.loc`` of a folded
instruction often says which source form produced it:

* K ``add.fT d, x, x``: Triton's column is the ``BinOp``'s (1-based); ``x * 2.0`` gives ``mul2``, an
  ``Add`` of two identical operands ``add``.
* J a sign xor of a float ``cvt``: the xor carries the store's ``.loc`` (LLVM sank the ``fneg``), the
  cvt the ``.to(T)`` call's: ``(-x).to(T)`` gives ``before``, ``-(x.to(T))`` ``after``.
* H a 16-bit ``add/sub/mul``: a narrowed one carries the ``.to(f16)`` cast's ``.loc`` (the
  ``fptrunc``), its receiver (through one-assignment names) the f32/f64 ``BinOp`` on ``.to(tl.float32)``
  operands; a genuine half op its own ``BinOp`` on 16-bit values. ``setp`` the ``Compare``'s.
* E ``cvt.rzi.sN.f16`` carries the integer ``.to(tl.intN)`` call's ``.loc``: its receiver ``h.to(tl.float64)``
  of a half gives ``f64``, ``h.to(tl.float32)`` or a half itself (Triton converts a half to an integer
  through f32) ``f32``.
* ``cvt.rn.f16.sN`` carries the ``.to(tl.float16)`` call's: an integer receiver (``i.to(tl.int16)``, or
  ``i.to(tl.float32)`` of one, which Triton folds before its FPSan) gives ``native``; float arithmetic
  between them (seed 51) stays undecided.

Safety against a stale source (edited after compiling): the node found must agree with the instruction
(the operator, the operands' shape, the cast's type); anything else, a missing file, or one that does
not parse leaves the fold undecided (the default form, reported). Only ``.py`` files are read.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field

from ptxkit import ir
from ptxkit.fpsan.source_ast import (
    _BINOP,
    _DEPTH,
    _DTYPE_WIDTH,
    _HALF,
    _INT_DTYPES,
    _PTX_DTYPE,
    _WIDE,
    CONST,
    OWN,
    Classify,
    Decision,
    SourceFile,
    _abs_call,
    _arms,
    _as_op,
    _cancels,
    _cast_to,
    _classify,
    _combine_op,
    _find,
    _form,
    _int_width,
    _is_two,
    _narrowed_to,
    _neg_steps,
    _negated,
    _no_casts,
    _number,
    _one,
    _one_value,
    _receiver,
    _refolded,
    _resolve,
    _ring_chain,
    _same_type_args,
    _self_add_forms,
    _to_dtype,
    _width,
)

_FILE = re.compile(r'^(\d+)\s+"([^"]*)"')
_LOC = re.compile(r"^(\d+)\s+(\d+)\s+(\d+)\b")
_INLINED_AT = re.compile(r"\binlined_at\s+(\d+)\s+(\d+)\s+(\d+)\b")


def _call_name(n: ast.expr) -> str | None:
    """``f`` of a two-argument call ``tl.f(a, b)`` / ``f(a, b)``, else None."""
    if isinstance(n, ast.Call) and isinstance(n.func, (ast.Attribute, ast.Name)) and len(n.args) == 2:
        return n.func.attr if isinstance(n.func, ast.Attribute) else n.func.id
    return None


def _of_negation(f: SourceFile, n: ast.expr) -> ast.expr | None:
    """x of a two-argument call of x and its negation, in either order (choices between one value such as
    ``where(c, a, a)`` resolved on both sides), else None."""
    if not (isinstance(n, ast.Call) and len(n.args) == 2):
        return None
    a, b = n.args
    for x, y in ((a, b), (b, a)):
        inner = _negated(y)
        if inner is None:
            continue
        if ast.dump(inner) == ast.dump(x):
            return x
        rx, ri = _one_value(f, x), _one_value(f, inner)
        if rx is not None and (rx is ri or (ri is not None and ast.dump(rx) == ast.dump(ri))):
            return x
    return None


_EXTREMA = ("maximum", "max", "minimum", "min")


def _operands(n: ast.expr) -> list[ast.expr]:
    """The values an expression computes with: a BinOp's or Compare's sides, a unary op's operand, a
    stored value, an elementwise call's float arguments, a ``.to()``'s receiver."""
    if isinstance(n, ast.BinOp):
        return [n.left, n.right]
    if isinstance(n, ast.UnaryOp):
        return [n.operand]
    if isinstance(n, ast.Compare):
        return [n.left, *n.comparators]
    if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "store" and len(n.args) >= 2:
        return [n.args[1]]
    if _to_dtype(n) is not None:
        return [_receiver(n)]
    return _same_type_args(n)


def _strip_casts(f: SourceFile, e: ast.expr) -> ast.expr | None:
    """``e`` resolved, through ``.to()`` casts and choices between one value."""
    v = _one_value(f, e)
    for _ in range(_DEPTH):
        if v is None or _to_dtype(v) is None:
            break
        v = _one_value(f, _receiver(v))
    return v


@dataclass
class SourceHints:
    """The sources a module's ``.file`` lines name, and the ``.loc`` in force at each instruction of one
    function (``loc``: id → (file index, line, 1-based column); ``call_site``: the same for an instruction
    of an inlined function, the ``inlined_at`` location of its call)."""

    files: dict[str, SourceFile | None] = field(default_factory=dict)
    loc: dict[int, tuple[str, int, int]] = field(default_factory=dict)
    call_site: dict[int, tuple[str, int, int]] = field(default_factory=dict)

    @classmethod
    def of(cls, module: ir.Module, fn: ir.Function, root: str | None) -> SourceHints:
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
                if cur is not None and call is not None:
                    caller.setdefault(cur, call)
                    for _ in range(8):  # the outermost call: tl.cumsum's scan inlines its combine (held-out 6041)
                        if call not in caller or caller[call] == call:
                            break
                        call = caller[call]
            elif isinstance(s, ir.Instruction) and cur is not None:
                h.loc[id(s)] = cur
                if call is not None:
                    h.call_site[id(s)] = call
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

    def nodes(self, instr: ir.Instruction) -> tuple[SourceFile, list[ast.expr]] | None:
        loc = self.loc.get(id(instr))
        f = self.files.get(loc[0]) if loc else None
        if loc is None or f is None:
            return None
        return f, f.at.get((loc[1], loc[2] - 1), [])

    def same_location(self, a: ir.Instruction, b: ir.Instruction) -> bool:
        """``a`` and ``b`` carry the same ``.loc`` (one source expression)."""
        la, lb = self.loc.get(id(a)), self.loc.get(id(b))
        return la is not None and la == lb

    def same_arguments(self, instr: ir.Instruction) -> bool | None:
        """Whether the two-argument call at ``instr``'s location passes one expression twice (``pow(x, x)``)
        or two (``pow(-y, y)``, held-out seed 2056): what a libdevice body whose inputs the PTX leaves open
        (one register and its negation) was called with; None without a source or with no such call."""
        found = self.nodes(instr)
        if found is None:
            return None
        kinds = {ast.dump(n.args[0]) == ast.dump(n.args[1]) for n in found[1]
                 if isinstance(n, ast.Call) and len(n.args) == 2 and not n.keywords}
        return kinds.pop() if len(kinds) == 1 else None

    def decide(self, instr: ir.Instruction, classify: Classify) -> Decision | None:
        """The one form the source nodes at ``instr``'s location agree on (``classify``: a node → its
        form and the node to cite, or None); None without a source, or with no or several forms."""
        found = self.nodes(instr)
        if found is None:
            return None
        if self.loc[id(instr)][2] == 0:
            return self.decide_within(instr, classify)  # only the line is known (LLVM merged two locations)
        f, nodes = found
        forms: dict[str, ast.expr] = {}
        for n in nodes:
            got = _classify(classify, f, n)
            if got is not None:
                forms.setdefault(*got)
        return _one(f, forms)

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
        found = self.nodes(instr)
        if found is None:
            return None
        f, nodes = found
        line, col = self.loc[id(instr)][1:]
        if col == 0 or whole_line:  # column 0: every expression of the statements starting on the line
            nodes = [n for st in ast.walk(f.tree) if isinstance(st, ast.stmt) and st.lineno == line
                     for n in ast.iter_child_nodes(st) if isinstance(n, ast.expr)]
        forms: dict[str, ast.expr] = {}
        for n in nodes:
            for sub in ast.walk(n):
                got = _classify(classify, f, sub) if isinstance(sub, ast.expr) and sub.lineno == line else None
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

    def self_add(self, instr: ir.Instruction, lane: str) -> Decision | None:
        """K: ``add x, x`` from ``x * 2.0`` (``mul2``) or ``x + x`` (``add``); under a narrowing cast's
        ``.loc`` (seed 98: ``(2.0 * x.to(tl.float64)).to(tl.float32)``, LLVM shrinks the f64 op) the same
        on the widened operand, ``mul2-f64``/``add-f64`` (``-f32`` for halves). Nothing at the location:
        the one form among its sub-expressions whose operand is a ``.to()`` of the add's type (seed 118:
        ``pow(…) * (s.to(f64) + s.to(f64))``, the add carrying the product's column)."""
        def classify(f: SourceFile, n: ast.expr) -> tuple[str, ast.expr] | None:
            if _cast_to(n) is not None:
                return _widened_self_add(f, n, lane)
            op, left, right = _as_op(n) if isinstance(n, ast.BinOp) else (None, n, n)
            if op is ast.Add and ast.dump(left) == ast.dump(right):
                form, x = "add", left  # x + x, or x - (-x)
            elif isinstance(n, ast.BinOp) and isinstance(n.op, ast.Mult) and (_is_two(n.left) or _is_two(n.right)):
                form, x = "mul2", n.right if _is_two(n.left) else n.left
            else:
                return None
            # the other form on the same operand anywhere in the file: LLVM's CSE may have made both one add
            # (held-out seed 2363: (s + s) / (s * 2.0) as add t, s, s; div t, t): no one answer
            return ("both", n) if _self_add_forms(f, ast.dump(x)) == {"add", "mul2"} else (form, n)

        loc = self.loc.get(id(instr))

        def typed(f: SourceFile, n: ast.expr, own: bool = False) -> tuple[str, ast.expr] | None:
            """``classify`` where the operand is explicitly of the add's type (``y.to(tl.float64)``), or (``own``)
            a value of its own type (a load, a parameter)."""
            if not isinstance(n, ast.BinOp):
                return None
            got = _classify(classify, f, n)
            y = n.left if got is None or got[0] == "add" or _is_two(n.right) else n.right
            w = _width(f, y, _DEPTH)
            return got if w == _DTYPE_WIDTH.get(_PTX_DTYPE.get(lane, "")) or (own and w == OWN) else None
        exact = self.decide(instr, classify) if loc is not None and loc[2] != 0 else None
        # then a loaded value's own type (held-out seeds 2462: the next element's 2.0 * x0 of an f64 x0 at 12:0;
        # 2348: a * 2.0 that LLVM shared with pow(a, a)'s x + y test, at the call's location)
        got = exact or self.decide_within(instr, typed)
        if got is None and loc is not None and (loc[2] == 0 or self._at_call(instr)):
            got = self.decide_within(instr, lambda f, n: typed(f, n, own=True), whole_line=True)
        return None if got is not None and got.form == "both" else got

    def _at_call(self, instr: ir.Instruction) -> bool:
        """A ``libdevice.NAME(...)`` call starts at ``instr``'s location: the op LLVM shared with the inlined
        body (``pow(a, a)``'s x + y and the user's ``a * 2.0``) carries the call's location."""
        found = self.nodes(instr)
        return found is not None and any(
            isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and isinstance(n.func.value, ast.Name)
            and n.func.value.id == "libdevice" for n in found[1])

    def neg_cast(self, cvt: ir.Instruction, dest: str, source: str | None = None) -> Decision | None:
        """J: the cvt under a sign xor or a ``neg`` is ``(-x).to(T)`` (``before``) or the operand of
        ``-(x.to(T))`` (``after``); ``x * -1.0`` negates too. ``before`` needs x of the cvt's ``source``
        type: ``(x.to(f64) * -1.0).to(f16)`` of an f32 x (held-out seed 777) went through f64, which LLVM
        dropped and Triton's ring does not (undecided)."""
        def classify(f: SourceFile, n: ast.expr) -> tuple[str, ast.expr] | None:
            parent = f.parent.get(id(n))
            if (isinstance(n, ast.BinOp) and isinstance(parent, ast.expr) and _negated(parent) is n
                    and _width(f, n, _DEPTH) == _DTYPE_WIDTH.get(_PTX_DTYPE.get(dest, ""))):
                return "after", parent  # -(a * b) of halves computed wide: the cvt narrows the op, then the negation
            if _cast_to(n) != _PTX_DTYPE.get(dest):
                return None
            assert isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
            recv = _resolve(f, n.func.value, _DEPTH)
            peeled = False
            while source is not None and recv is not None and _cast_to(recv) == _PTX_DTYPE.get(source):
                recv, peeled = _resolve(f, _receiver(recv), _DEPTH), True  # (-x).to(f32).to(bf16)
            inner = _negated(recv)
            if inner is not None:
                w = _width(f, inner, _DEPTH)
                if w is None and not peeled and _no_casts(f, inner):
                    w = OWN  # (x1 / x1) * -1.0: arithmetic on loaded values, no type in between (seed 1821)
                sw = _DTYPE_WIDTH.get(_PTX_DTYPE.get(source or "", ""))
                # a loaded x has the cvt's source type, unless a peeled .to() hides its own (seed 840: an f64)
                if source is not None and (w != sw if peeled else w not in (OWN, CONST) and w != sw):
                    return None
                return "before", n
            if isinstance(parent, ast.expr) and _negated(parent) is n and recv is not None:
                return "after", parent
            return None
        return self.decide(cvt, classify)

    def neg_chain(self, instr: ir.Instruction, dest: str) -> tuple[tuple[str, ...], str] | None:
        """The value at ``instr``'s location (a store's value, or a ``.to()`` call) as the steps Triton takes
        from one loaded value: float casts (``f16``/``bf16``/``f32``/``f64``) and one negation (``neg``),
        innermost first, ending in a cast to ``dest`` — e.g. ``(-x.to(tl.float64)).to(tl.bfloat16)`` is
        ``("f64", "neg", "bf16")`` (held-out seeds 1361, 2720, 840: LLVM dropped the wider type the ring goes
        through). The steps and where, or None (no such value, or not all values there agree)."""
        found = self.nodes(instr)
        if found is None:
            return None
        f, nodes = found
        values = [n.args[1] for n in nodes if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
                  and n.func.attr == "store" and len(n.args) >= 2] + [n for n in nodes if _cast_to(n)]
        chains = {(c, f.where(v)) for v in values if (c := _neg_steps(f, v)) is not None and c[-1] == dest}
        return chains.pop() if len({c for c, _ in chains}) == 1 else None

    def negation_of_cast(self, neg: ir.Instruction, dest: str) -> Decision | None:
        """J at the ``neg``'s own location: a negation there (``-e``, ``e * -1.0``) of a ``.to(T)`` cast
        (``after``; held-out seed 198: ``-x1.to(tl.float32)``, whose cvt LLVM shared with another
        ``x1.to(tl.float32)`` of the line and so carries that one's location)."""
        def classify(f: SourceFile, n: ast.expr) -> tuple[str, ast.expr] | None:
            inner = _negated(n)
            e = _resolve(f, inner, _DEPTH) if inner is not None else None
            return ("after", n) if _cast_to(e) == _PTX_DTYPE.get(dest) else None
        return self.decide(neg, classify)

    def sub_of_product(self, neg: ir.Instruction, dest: str) -> Decision | None:
        """J for a negation the source does not write: ``a - b * c`` in ``dest`` at the ``neg``'s location, which
        LLVM contracts into fma(−b, c, a) with the negation below b's cast (held-out seed 4703); the ring's
        a − b·c is a + (−b)·c, the negation after the cast (``after``). The caller checks that only fma
        multiplicands read the negation."""
        def classify(f: SourceFile, n: ast.expr) -> tuple[str, ast.expr] | None:
            if not (isinstance(n, ast.BinOp) and isinstance(n.op, ast.Sub)
                    and _width(f, n, _DEPTH) == _DTYPE_WIDTH.get(_PTX_DTYPE.get(dest, ""))):
                return None
            r = _resolve(f, n.right, _DEPTH)
            return ("after", n) if isinstance(r, ast.BinOp) and isinstance(r.op, ast.Mult) else None
        return self.decide(neg, classify)

    def narrowed_f32(self, instr: ir.Instruction) -> Decision | None:
        """An f32 add/sub/mul carrying a ``.to(tl.float32)`` cast's location whose receiver is that op on
        operands widened to f64 (``(x.to(f64) * y.to(f64)).to(f32)``: LLVM shrinks it, the product of two
        f32 being exact in f64; held-out seeds 1516, 1610): ``f64``. Anything else undecided (an f32 op)."""
        want = _BINOP.get(instr.opcode)

        def classify(f: SourceFile, n: ast.expr) -> tuple[str, ast.expr] | None:
            if _cast_to(n) != "float32" or want is None:
                return None
            e = _resolve(f, _receiver(n), _DEPTH)
            if not (isinstance(e, ast.BinOp) and _as_op(e)[0] is want):
                return None
            return ("f64", n) if _form(_width(f, e.left, _DEPTH), _width(f, e.right, _DEPTH)) == "f64" else None
        return self.decide(instr, classify)

    def half(self, instr: ir.Instruction) -> Decision | None:
        """H: a 16-bit add/sub/mul/setp is half arithmetic (``native``) or f32/f64 arithmetic on
        widened halves (``f32``/``f64``)."""
        want = _BINOP.get(instr.opcode)

        def fits(op: type[ast.operator] | None) -> bool:  # (not Add for a sub: LLVM's x - y of x + (-y) is the
            # ring's only where -y is a negation in the op's type, held-out 807, 2238: (-y.to(f64)).to(bf16))
            return want is not None and op is want

        def classify(f: SourceFile, n: ast.expr) -> tuple[str, ast.expr] | None:
            if instr.opcode == "setp":
                if isinstance(n, ast.Compare) and len(n.comparators) == 1:
                    form = _form(_width(f, n.left, _DEPTH), _width(f, n.comparators[0], _DEPTH))
                    return (form, n) if form else None
                return None
            if fits(_combine_op(f, n)):  # LLVM's tree of a reduction's combine at the reduce call (seed 42: tl.sum
                # of bf16 as add.bf16x2 at standard.py's core.reduce)
                return "native", n
            if isinstance(n, ast.BinOp) and fits(_as_op(n)[0]):
                form = _form(_width(f, n.left, _DEPTH), _width(f, n.right, _DEPTH))
                form = form if form == "native" else None  # a widened op has the narrowing cast's .loc
            elif _cast_to(n) in ("float16", "bfloat16"):  # the fptrunc LLVM narrowed the op into
                assert isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
                forms = {_form(_width(f, e.left, _DEPTH), _width(f, e.right, _DEPTH))
                         for e in _arms(f, _resolve(f, n.func.value, _DEPTH))
                         if isinstance(e, ast.BinOp) and fits(_as_op(e)[0])}
                form = forms.pop() if len(forms) == 1 else None
                form = form if form != "native" else None  # a cast of a half op is not where LLVM puts it
            else:
                return None
            return (form, n) if form else None
        return self.decide(instr, classify)


    def half_int(self, cvt: ir.Instruction, dest: str) -> Decision | None:
        """E: ``cvt.rzi.sN.f16 d, h`` is ``h.to(f32).to(int)`` (``f32``; also ``h.to(int)``) or
        ``h.to(f64).to(int)`` (``f64``). The cast's integer width is the cvt's (8 bits: 16, NVPTX has no
        8-bit registers), or wider when LLVM narrowed the cvt (:func:`_refolded`); else undecided."""
        def classify(f: SourceFile, n: ast.expr) -> tuple[str, ast.expr] | None:
            t = _to_dtype(n)
            if t not in _INT_DTYPES:
                return None
            recv = _resolve(f, _receiver(n), _DEPTH)
            if recv is None:
                return None
            via = _cast_to(recv)
            if via in ("float32", "float64"):  # its receiver is the cvt's half; a reassigned name (unknown) will do
                inner = _receiver(recv)
                w = _width(f, inner, _DEPTH)
                half = w in (16, OWN) or (w is None and isinstance(inner, ast.Name))
                form = f"f{_DTYPE_WIDTH[via]}" if half else None
            else:
                form = "f32" if _width(f, recv, _DEPTH) in (16, OWN) else None
            if form is None or max(16, _int_width(t)) == max(16, int(dest[1:])):
                return (form, n) if form else None
            return _refolded(n, form, int(dest[1:]))
        return self.decide(cvt, classify)

    def f32_int(self, cvt: ir.Instruction, dest: str) -> Decision | None:
        """``cvt.rzi.sN.f32 d, x`` of Triton's ``x.to(tl.float64).to(intN)`` (``f64``: LLVM drops the fpext,
        Triton's ring widens the payload first; held-out seed 1473); anything else undecided."""
        def classify(f: SourceFile, n: ast.expr) -> tuple[str, ast.expr] | None:
            t = _to_dtype(n)
            # (through a choice of one value: tl.where(c, d.to(f64), d.to(f64)).to(int8), held-out seed 4383)
            recv = _one_value(f, _receiver(n)) if t in _INT_DTYPES else None
            if recv is None or _cast_to(recv) != "float64" or max(16, _int_width(t or "")) != max(16, int(dest[1:])):
                return None
            # the cvt reads f32, so the .to(f64)'s receiver is f32 unless the source says otherwise (1560: a dot),
            # or a half that LLVM widened to f32 (held-out seed 3282: a half sum, shuffled as f32): the ring widening
            # of its f32 payload to f64 is the half's
            inner = _resolve(f, _receiver(recv), _DEPTH)
            if _to_dtype(inner) in _INT_DTYPES:
                return None  # i.to(f64).to(int64) of an integer (held-out seed 7104: x.to(int64).to(f64).to(int64)),
                # which Triton folds: the cvt is the first .to(int64), from f32
            return ("f64", n) if _width(f, _receiver(recv), _DEPTH) != 64 else None
        return self.decide(cvt, classify)

    def int_half(self, cvt: ir.Instruction, dest: str) -> Decision | None:
        """``cvt.rn.f16.sN d, i`` is ``i.to(f16)`` (``native``) — decided only where the half cast's
        receiver is an integer cast, or an f32 cast of one (Triton folds that pair before its FPSan; the
        cvt may carry either cast's ``.loc``); float arithmetic between them stays undecided."""
        want = _PTX_DTYPE.get(dest)

        def classify(f: SourceFile, n: ast.expr) -> tuple[str, ast.expr] | None:
            if _cast_to(n) == "float32" and _narrowed_to(f, n, want):
                recv = _resolve(f, _receiver(n), _DEPTH)  # the cvt carries the sitofp's .loc (seed 57)
            elif _cast_to(n) == want:
                recv = _resolve(f, _receiver(n), _DEPTH)
                if isinstance(recv, ast.expr) and _cast_to(recv) == "float32":
                    recv = _resolve(f, _receiver(recv), _DEPTH)
                elif recv is not None and _to_dtype(recv) not in _INT_DTYPES:
                    ops = _ring_chain(f, recv)
                    # only a chain IEEE cancels is gone from the PTX (seed 51: -(i * -1.0)); one that remains
                    # (seed 1391: i.to(f32) * 2.0, an add.f16 x, x after the cvt) is not the cvt's
                    return (f"f32;{','.join(ops)}", n) if ops and _cancels(ops) else None
            else:
                return None
            if _to_dtype(recv) not in _INT_DTYPES:
                return None
            # the half then cast through an integer and back (held-out seed 4160: i8.to(f16).to(int32).to(f16)):
            # LLVM drops that exact round trip, where Triton converts the half to the integer through its ring
            # widening to f32
            up = f.parent.get(id(f.parent.get(id(n))))
            if isinstance(up, ast.expr) and _to_dtype(up) in _INT_DTYPES and isinstance(
                    back := f.parent.get(id(f.parent.get(id(up)))), ast.expr) and _cast_to(back) is not None:
                return "round-trip", n
            return "native", n
        return self.decide(cvt, classify)

    def int_wide(self, cvt: ir.Instruction) -> Decision | None:
        """``cvt.rn.{f32,f64}.{s,u}N d, i`` is ``i.to(T)`` (``direct``) or LLVM's fold of
        ``i.to(f16|bf16).to(T)`` (``f16``/``bf16``: exact when i fits the half's mantissa, so LLVM drops the half,
        whose payload Triton's FPSan widens) or of ``i.to(f32).to(f64)`` (``f32``: exact when i fits f32). A half
        cast of an integer cast at the location, or a half cast as the receiver of the wide cast there, gives
        its type; a wide cast of an integer cast ``direct``; anything else (a loaded tensor) stays undecided.
        In an inlined library function (``tl.max`` widens its half input at standard.py:212), where its
        parameter says nothing, the call's location decides: ``tl.max(i.to(bf16))`` is ``bf16``."""

        dest = _PTX_DTYPE.get(next((m for m in cvt.mods if m in ("f32", "f64")), ""))

        def classify(f: SourceFile, n: ast.expr) -> tuple[str, ast.expr] | None:
            if isinstance(n, ast.BinOp) or _same_type_args(n):  # x + i.to(f16) of a wider x: the promotion of
                # the half carries the BinOp's location (held-out seed 594: fma(..) + x.to(f16).to(int64).to(f16),
                # stored as f32), or the elementwise call's (3220: tl.maximum(i.to(bf16), y) computed in f32)
                sides = (n.left, n.right) if isinstance(n, ast.BinOp) else _same_type_args(n)
                forms = {got[0] for side in sides
                         if (e := _resolve(f, side, _DEPTH)) is not None and (got := classify(f, e)) is not None
                         and got[0] in ("f16", "bf16")}
                return (forms.pop(), n) if len(forms) == 1 else None
            t = _to_dtype(n)
            if t in ("float16", "bfloat16"):  # i.to(f16): the half LLVM dropped (not a float's cast)
                return (_HALF[t], n) if _to_dtype(_resolve(f, _receiver(n), _DEPTH)) in _INT_DTYPES else None
            if t == dest:
                e, via = _resolve(f, _receiver(n), _DEPTH), ""
                while (w := _to_dtype(e)) in ("float32", "float64"):  # x.to(int8).to(f32).to(f32)
                    # i.to(f32).to(f64): the exact f32 LLVM dropped (held-out 1244); Triton itself folds the
                    # narrowing i.to(f64).to(f32) into one conversion before its FPSan pass (seed 694)
                    via = w if (w, t) == ("float32", "float64") else via
                    e = _resolve(f, _receiver(e), _DEPTH) if isinstance(e, ast.Call) else None
                recv = _to_dtype(e)
                if recv in ("float16", "bfloat16"):
                    return _HALF[recv], n
                return (_WIDE.get(via, "direct"), n) if recv in _INT_DTYPES else None
            return None
        return self.decide_here_or_at_call(cvt, classify)

    def half_of_int_on_line(self, cvt: ir.Instruction) -> str | None:
        """Where the statement on ``cvt``'s line casts an integer to a half (``i.to(tl.float16)``), which LLVM
        may have dropped into this wide conversion though its location does not say (a safety net for
        :meth:`int_wide`); None without a source or such a cast."""
        def classify(f: SourceFile, n: ast.expr) -> tuple[str, ast.expr] | None:
            t = _to_dtype(n)
            ok = t in ("float16", "bfloat16") and _to_dtype(_resolve(f, _receiver(n), _DEPTH)) in _INT_DTYPES
            return ("half", n) if ok else None
        got = self.decide_within(cvt, classify, whole_line=True)
        if got is None:
            with self.at_call_site(cvt) as inlined:
                got = self.decide_within(cvt, classify, whole_line=True) if inlined else None
        return got.where if got is not None else None

    def abs_cast(self, instr: ir.Instruction, dest: str | None = None, source: str | None = None) -> Decision | None:
        """An abs next to a float ``cvt`` (LLVM moves fabs across fpext/fptrunc): the ``abs`` call at the
        location takes a float cast (``abs(x.to(T))``: ``inside``; to the cvt's ``dest`` type when given)
        or something else (``abs(x)``, cast later: ``outside``; with ``source``, only an x of the cvt's
        source type, held-out seed 538)."""

        def classify(f: SourceFile, n: ast.expr) -> tuple[str, ast.expr] | None:
            if not _abs_call(n):
                return None
            arg = _resolve(f, n.args[0], _DEPTH)
            while isinstance(arg, ast.UnaryOp) and isinstance(arg.op, (ast.USub, ast.UAdd)):
                arg = _resolve(f, arg.operand, _DEPTH)  # abs(-x) is abs(x): LLVM drops the negation
            cast = _cast_to(arg)
            if dest is not None and cast is not None and cast != _PTX_DTYPE.get(dest):
                if source is not None and cast != _PTX_DTYPE.get(source):
                    return None  # abs(h.to(f32)).to(f64) as |h| widened once: a cast between the two (1774)
                cast = None  # abs(h.to(f16)) of an f16 h, widened later (seed 742): not the cast at hand
            if not cast and source is not None and (arg is None or _width(f, arg, _DEPTH)
                                                    != _DTYPE_WIDTH.get(_PTX_DTYPE.get(source, ""))):
                return None  # abs(minimum(h, h)) of h = x.to(f16): LLVM's abs(x.to(f16)), not of the cvt's source
            return ("inside" if cast else "outside"), n
        return self.decide(instr, classify) or self.decide_enclosing(instr, classify)

    def abs_widened(self, instr: ir.Instruction, width: int) -> Decision | None:
        """An abs of a ``width``-bit value: the ``abs`` call at the location takes a widening of a ``width``-bit
        x (``abs(h.to(tl.float32))``): form ``f32``/``f64``, the type Triton's ring widens to before the abs."""

        def classify(f: SourceFile, at: ast.expr) -> tuple[str, ast.expr] | None:
            n: ast.expr | None = at
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "store" \
                    and len(n.args) >= 2:
                n = n.args[1]  # LLVM sank the abs to the store (held-out seed 3944): the value it stores
            if n is not None and (c := _cast_to(n)) is not None and _DTYPE_WIDTH[c] == width:  # narrowed back
                n = _resolve(f, _receiver(n), _DEPTH)
            if not _abs_call(n):
                return None
            arg = _resolve(f, n.args[0], _DEPTH)
            cast = _cast_to(arg)
            if arg is None or cast is None or _DTYPE_WIDTH[cast] <= width:
                return None
            inner = _width(f, _receiver(arg), _DEPTH)
            return ({"float32": "f32", "float64": "f64"}[cast], n) if inner in (width, OWN) else None
        return self.decide(instr, classify)

    def zero_sign(self, instr: ir.Instruction) -> Decision | None:
        """``copysign(x, 0.0)``: the source multiplies by a literal zero there (``mul``: LLVM rewrites
        ``0.0 * x`` of a finite x, e.g. an int conversion, as ``copysign(0.0, x)``) or calls a copysign
        (``copysign``)."""

        def classify(f: SourceFile, n: ast.expr) -> tuple[str, ast.expr] | None:
            if isinstance(n, ast.BinOp) and isinstance(n.op, ast.Mult) and 0.0 in (_number(n.left), _number(n.right)):
                return "mul", n
            if isinstance(n, ast.Call) and isinstance(n.func, (ast.Attribute, ast.Name)) and (
                    n.func.attr if isinstance(n.func, ast.Attribute) else n.func.id) == "copysign":
                return "copysign", n
            return None
        # (an and with the sign bit may carry an inner cast's column: held-out seed 7517, 0.0 * (..).to(int8)...)
        return self.decide(instr, classify) or self.decide_enclosing(instr, classify)

    def narrow_negation(self, instr: ir.Instruction, width: int) -> Decision | None:
        """``add``/``sub`` at a ``Sub``/``Add`` of the source whose right operand (either, for an ``Add``)
        negates something narrower than ``width`` bits (``a - (h * -1.0)``, h a half) or a loaded value, or is a
        widening cast of such a negation (``(h * -1.0).to(f32) + a``; the caller checks that the PTX widens a
        narrower operand): LLVM folded the narrow negation into the wide op, Triton negates in the narrow ring and
        widens (``narrow``)."""
        want = {"add": ast.Sub, "sub": ast.Add}.get(instr.opcode)

        def classify(f: SourceFile, n: ast.expr) -> tuple[str, ast.expr] | None:
            if not (isinstance(n, ast.BinOp) and want is not None and isinstance(n.op, want)):
                return None
            sides = [n.right] if want is ast.Sub else [n.left, n.right]
            for side in sides:
                e = _resolve(f, side, _DEPTH)
                cast = e is not None and _cast_to(e) is not None
                if cast and e is not None:  # (h * -1.0).to(f32) of a loaded half h (held-out seed 5462): negated
                    e = _resolve(f, _receiver(e), _DEPTH)  # in h's own type
                inner = _negated(e)
                w = _width(f, inner, _DEPTH) if inner is not None else None
                if w is not None and (0 < w < width or w == OWN):  # a loaded value the PTX widens (seed 6550)
                    return "narrow", n
            return None
        return self.decide(instr, classify)

    def negation_narrowed(self, instr: ir.Instruction, width: int) -> Decision | None:
        """The value at ``instr``'s location (a store's value, or a ``.to()`` call) narrows to ``width`` bits a
        negation computed wider (``(-where(c, a, b)).to(f16)`` of f32 arms; held-out seed 6284): Triton narrows
        the wide ring's −φ(x), which is not the narrow ring's negation of the narrowed x (``before``)."""
        def classify(f: SourceFile, n: ast.expr) -> tuple[str, ast.expr] | None:
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "store" \
                    and len(n.args) >= 2:
                v = _resolve(f, n.args[1], _DEPTH)
            else:
                v = n
            if v is None or _cast_to(v) is None or _DTYPE_WIDTH.get(_cast_to(v) or "") != width:
                return None
            for _ in range(_DEPTH):
                if v is None or _cast_to(v) is None:
                    break
                v = _resolve(f, _receiver(v), _DEPTH)
            inner = _negated(v)
            w = _width(f, inner, _DEPTH) if inner is not None else None
            return ("before", n) if w is not None and w > width else None
        return self.decide(instr, classify)

    def negated_factor(self, instr: ir.Instruction, width: int, constant: float | None) -> Decision | None:
        """A ``mul``/``fma`` of a widened narrower value by a negative immediate (``-constant``) or a negation
        (``constant`` None): the source there multiplies a negation of a narrower value (or a widening cast of
        one) by ``constant`` or by anything (``(-h).to(f64) * 0.5``, ``(-h) * y``; LLVM moved the negation into the
        other factor), ``narrow``. Read at the location's expression, its operands and the values a call there
        reduces (a ``tl.cumsum(e)`` contracts ``e``'s product into its adds), then at an inlined function's
        call."""
        def negated_narrow(f: SourceFile, e: ast.expr | None) -> bool:
            if e is not None and _cast_to(e) is not None:
                e = _resolve(f, _receiver(e), _DEPTH)
            inner = _negated(e)
            w = _width(f, inner, _DEPTH) if inner is not None else None
            if w == OWN and constant is None:  # the widened factor is a load: -(x / x) * h is not (-h) * y
                loaded = _resolve(f, inner, _DEPTH) if inner is not None else None
                return isinstance(loaded, ast.Call) and isinstance(loaded.func, ast.Attribute) \
                    and loaded.func.attr == "load"
            return w is not None and (w == OWN or 0 < w < width)

        def product(f: SourceFile, n: ast.expr | None) -> bool:
            if not (isinstance(n, ast.BinOp) and isinstance(n.op, ast.Mult)):
                return False
            for a, b in ((n.left, n.right), (n.right, n.left)):
                if (constant is None or _number(b) == constant) and negated_narrow(f, _resolve(f, a, _DEPTH)):
                    return True
            return False

        def classify(f: SourceFile, n: ast.expr) -> tuple[str, ast.expr] | None:
            if product(f, n) or any(product(f, _resolve(f, a, _DEPTH)) for a in _operands(n)):
                return "narrow", n
            return None
        return self.decide_here_or_at_call(instr, classify)

    def abs_at_cast(self, cvt: ir.Instruction, dest: str, source: str) -> Decision | None:
        """The abs/cvt order told at the ``cvt``'s own location (the ``.to(T)`` call; LLVM gives a moved abs
        the store's, held-out seeds 995, 1032): the call's receiver is an abs of an x of the cvt's ``source``
        type (``abs(x).to(T)``: ``outside``), or the call is an abs's argument (``abs(x.to(T))``: ``inside``)."""
        def classify(f: SourceFile, n: ast.expr) -> tuple[str, ast.expr] | None:
            if _abs_call(n):  # the cvt at the abs call's own location (held-out seed 1403: tl.abs(x0.to(f64)))
                assert isinstance(n, ast.Call)
                arg = _resolve(f, n.args[0], _DEPTH)
                return ("inside", n) if arg is not None and _cast_to(arg) == _PTX_DTYPE.get(dest) else None
            if _cast_to(n) != _PTX_DTYPE.get(dest):
                return None
            recv = _resolve(f, _receiver(n), _DEPTH)
            if _abs_call(recv):
                assert isinstance(recv, ast.Call)
                arg = _resolve(f, recv.args[0], _DEPTH)
                w = _width(f, arg, _DEPTH) if arg is not None else None
                # a loaded x is the cvt's source itself (LLVM converts the loaded type): seed 1099's abs(x1)
                sw = _DTYPE_WIDTH.get(_PTX_DTYPE.get(source, ""))
                if w in (OWN, sw):
                    return "outside", n
                # abs(x.to(f64)).to(f16) of an f32 x: LLVM drops the exact widening (held-out seed 1180)
                return ("outside-f64", n) if w == 64 and sw == 32 else None
            parent = f.parent.get(id(n))
            return ("inside", parent) if isinstance(parent, ast.expr) and _abs_call(parent) else None
        return self.decide(cvt, classify)

    def neg_abs(self, instr: ir.Instruction, width: int) -> Decision | None:
        """−|x| as a sign-bit ``or`` on ``width``-bit lanes: a ``minimum``/``min`` of x and its negation there
        (``min``: Triton's ring min, which keeps ±0 as they are), or a negation of an ``abs`` call
        (``negabs``) — of an x of that width (``-abs(h.to(f64))`` of an f16 h went through f64, whose ring
        LLVM dropped: seed 1632, undecided)."""
        def fits(f: SourceFile, x: ast.expr) -> bool:
            return _width(f, x, _DEPTH) in (OWN, width)

        def classify(f: SourceFile, n: ast.expr) -> tuple[str, ast.expr] | None:
            if _call_name(n) in ("minimum", "min"):
                x = _of_negation(f, n)
                return ("min", n) if x is not None and fits(f, x) else None
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "store" \
                    and len(n.args) >= 2:  # LLVM sank the or to the store (seed 610): the stored value's expression
                v = _resolve(f, n.args[1], _DEPTH)
                while v is not None and _to_dtype(v) is not None:
                    v = _resolve(f, _receiver(v), _DEPTH)
                return classify(f, v) if v is not None and v is not n else None
            inner = _negated(n)
            e = _resolve(f, inner, _DEPTH) if inner is not None else None
            if not _abs_call(e):
                return None
            assert isinstance(e, ast.Call)
            return ("negabs", n) if fits(f, e.args[0]) else None
        return self.decide(instr, classify) or self.decide_enclosing(instr, classify)

    def abs_of_max(self, instr: ir.Instruction, width: int,
                   readers: Sequence[ir.Instruction] = ()) -> Decision | None:
        """|x| as a sign-bit ``and`` on ``width``-bit lanes: a ``maximum``/``max`` of x and its negation there
        (``max``: Triton's ring max, which keeps ±0 as they are; held-out seed 4957:
        ``maximum(where(c, a, a), -a)``, an ``and`` on a dot operand no float instruction reads). LLVM often
        hoists the ``and`` to the load, whose location says nothing: then the expressions at its ``readers``'
        locations decide, where each operand that clears a sign is such a maximum (``maximum(x, -x) * 3.0``;
        not ``abs(y) + maximum(x, -x)``, whose ``and``s the PTX does not tell apart)."""
        def is_max(f: SourceFile, n: ast.expr | None) -> bool:
            # minimum(x, -x) too: LLVM's |x| of it has its negation folded into the reader (1.0 + min(x, -x)
            # as 1.0 - |x|), and the ring's −max(p, −p) is min(p, −p), at p = φ(−0) = −2^(w−1) as well
            x = _of_negation(f, n) if n is not None and _call_name(n) in _EXTREMA else None
            return x is not None and _width(f, x, _DEPTH) in (OWN, width)

        def classify(f: SourceFile, n: ast.expr) -> tuple[str, ast.expr] | None:
            return ("max", n) if is_max(f, n) else None

        def classify_reader(f: SourceFile, n: ast.expr) -> tuple[str, ast.expr] | None:
            ops = [_strip_casts(f, o) for o in _operands(n)]
            clears = [o for o in ops if o is not None and (is_max(f, o) or _abs_call(o))]
            return ("max", n) if clears and all(is_max(f, o) for o in clears) else None

        got = self.decide(instr, classify) or self.decide_enclosing(instr, classify)
        if got is not None or not readers:
            return got
        decisions = [self.decide(u, classify_reader) for u in readers]
        return decisions[0] if all(d is not None for d in decisions) else None

    def max_of_negation_in_source(self, instr: ir.Instruction) -> str | None:
        """Where the source of ``instr``'s function has a max or min of a value and its negation
        anywhere (a safety net for :meth:`abs_of_max`: a sign-bit ``and`` no location ties to it may be it)."""
        found = self.nodes(instr)
        if found is None:
            return None
        f = found[0]
        scope: ast.AST = next((fn for n in found[1] if (fn := f.function_of(n)) is not None), f.tree)
        for n in ast.walk(scope):
            if isinstance(n, ast.Call) and _call_name(n) in _EXTREMA and _of_negation(f, n) is not None:
                return f.where(n)
        return None

    def neg_extremum(self, instr: ir.Instruction) -> Decision | None:
        """``neg`` of a max/min: the source negates a ``max``/``min``/``maximum``/``minimum`` call there
        (``written``), or negates something else there (``moved``: LLVM pulled the negation of the
        operands out of a min/max, e.g. ``tl.min(x * -1.0)``)."""

        def classify(f: SourceFile, n: ast.expr) -> tuple[str, ast.expr] | None:
            if isinstance(n, ast.UnaryOp) and isinstance(n.op, ast.USub):
                inner: ast.expr | None = n.operand
            elif isinstance(n, ast.BinOp) and isinstance(n.op, ast.Mult):
                inner = n.left if _number(n.right) == -1.0 else n.right if _number(n.left) == -1.0 else None
            else:
                return None
            if inner is None:
                return None
            e = _resolve(f, inner, _DEPTH)
            name = (e.func.attr if isinstance(e.func, ast.Attribute) else e.func.id
                    if isinstance(e.func, ast.Name) else "") if isinstance(e, ast.Call) else ""
            return ("written" if name in ("max", "min", "maximum", "minimum") else "moved"), n
        return self.decide(instr, classify)

    def trunc(self, cvt: ir.Instruction) -> Decision | None:
        """``cvt.rzi.fT.fT`` is a ``trunc`` call (``call``) or LLVM's fold of ``x.to(int).to(float)``
        (``casts:int16`` and so on, the integer dtype: fptosi then sitofp, native in Triton's FPSan; ``casts:int32:f64``
        where the source converts to the integer from an f64 cast of a narrower x)."""

        ptx = next((m for m in cvt.mods if m in ("f16", "bf16", "f32", "f64")), "")

        def via(f: SourceFile, to_int: ast.expr) -> str:
            # x.to(f64).to(int32) of a narrower x (held-out seed 6651: a bf16 x1): the conversion from f64, which
            # LLVM dropped as exact and Triton's ring does not (a sign extension to 64 bits)
            w = _cast_to(_resolve(f, _receiver(to_int), _DEPTH))
            return ":f64" if w == "float64" and ptx != "f64" else ""

        def classify(f: SourceFile, n: ast.expr) -> tuple[str, ast.expr] | None:
            if isinstance(n, ast.Call) and isinstance(n.func, (ast.Attribute, ast.Name)):
                name = n.func.attr if isinstance(n.func, ast.Attribute) else n.func.id
                if name == "trunc":
                    return "call", n
            t = _to_dtype(n)
            if t in _INT_DTYPES:
                return f"casts:{t}{via(f, n)}", n
            r = _resolve(f, _receiver(n), _DEPTH) if t in _DTYPE_WIDTH else None
            if r is not None and (rt := _to_dtype(r)) in _INT_DTYPES:
                return f"casts:{rt}{via(f, r)}", n
            return None
        return self.decide_within(cvt, classify)

    def self_compare(self, instr: ir.Instruction, ft: str) -> Decision | None:
        """``setp.num/nan.fT p, x, x`` (LLVM's ``c(x) <= c(x)`` → ``ord(x, x)``, which drops the narrowing
        cast ``c``: fptrunc keeps NaN-ness, the ring cast does not): the ``Compare``'s operands, both the
        same ``.to(T)`` to another type ``T``, give ``T``; both of width ``ft`` (a load, a parameter, a cast
        to ``ft``) ``native``."""
        w = _DTYPE_WIDTH[_PTX_DTYPE[ft]]

        def classify(f: SourceFile, n: ast.expr) -> tuple[str, ast.expr] | None:
            if not (isinstance(n, ast.Compare) and len(n.comparators) == 1):
                return None
            sides = [_one_value(f, e) for e in (n.left, n.comparators[0])]
            if any(_sign_op_under_casts(f, e) for e in sides):
                return None  # (held-out seed 3710: LLVM folds -x != -x, and (-x.to(f32)).to(bf16) != -x, to x != x;
                # Triton compares the bits of the ring's −φ(x), whose NaN-ness is not x's)
            casts = {_cast_to(e) if e is not None else None for e in sides}
            if len(casts) == 1 and None not in casts:
                t = casts.pop()
                assert t is not None
                # any other type: narrower, the other 16-bit one (held-out seed 2650: s.to(f16) != s.to(f16) of a
                # bf16 s as setp.nan.bf16 s, s; the ring cast keeps the payload, read as an f16) or wider (2354:
                # the ring widening is no fpext either)
                if t != _PTX_DTYPE[ft]:
                    return {"float16": "f16", "bfloat16": "bf16", "float32": "f32", "float64": "f64"}[t], n
            widths = {_width(f, e, _DEPTH) for e in (n.left, n.comparators[0])}
            return ("native", n) if widths <= {OWN, w} and widths else None
        found = self.nodes(instr)
        if found is not None and not any(isinstance(n, ast.Compare) for n in found[1]):
            # no comparison starts there in the source (tl.dot's tf32x3 NaN guards, a libdevice call): it is
            # Triton's lowering testing its own values, which no cast narrowed
            f, ns = found
            _, line, col = self.loc[id(instr)]
            return Decision("native", f.where(ns[0]) if ns else f"{f.name}:{line}:{col}: no comparison there")
        return self.decide(instr, classify)


def _sign_op_under_casts(f: SourceFile, e: ast.expr | None) -> bool:
    """``e`` is, under ``.to()`` casts, a negation or an abs (ops that keep NaN-ness, which LLVM drops from a
    self-comparison)."""
    for _ in range(_DEPTH):
        if e is None:
            return False
        if isinstance(e, ast.UnaryOp) and isinstance(e.op, ast.USub):
            return True
        if _abs_call(e):
            return True
        if _cast_to(e) is None:
            return False
        e = _resolve(f, _receiver(e), _DEPTH)
    return False


def _widened_self_add(f: SourceFile, n: ast.expr, lane: str) -> tuple[str, ast.expr] | None:
    """The K form of ``n = E.to(lane)`` when ``E`` is ``2.0 * y`` or ``y + y`` of a ``y`` widened to
    f32/f64 beyond ``lane`` (the ``fptrunc`` LLVM folded the wide op into)."""
    if _cast_to(n) != _PTX_DTYPE.get(lane):
        return None
    e = _resolve(f, _receiver(n), _DEPTH)
    if not isinstance(e, ast.BinOp):
        return None
    op, left, right = _as_op(e)
    if op is ast.Mult and (_is_two(left) or _is_two(right)):
        base, y = "mul2", right if _is_two(left) else left
    elif op is ast.Add and ast.dump(left) == ast.dump(right):
        base, y = "add", left
    else:
        return None
    w = _width(f, y, _DEPTH)
    return (f"{base}-f{w}", n) if w in (32, 64) and w > _DTYPE_WIDTH[_PTX_DTYPE[lane]] else None
