"""The condition formula of litmus tests and of ``explore --exists/--not-exists/--forall``
(Dat3M / herd syntax): ``/\\``, ``\\/``, ``~``/``not``, ``true``/``false``, comparisons
``== != < > <= >=`` (and herd's ``=``) over ``Pn:reg``, locations, ``NAME[INDEX]`` and integers.
It builds the typed formula of :mod:`ptxkit.explore.condition`."""

from __future__ import annotations

from dataclasses import dataclass, field

from ptxkit.explore import condition as cf
from ptxkit.litmus.lexer import Tok, TokenStream

# The parser builds the typed formula of ``ptxkit.explore.condition`` (Cmp/Atom leaves, Not, n-ary
# And/Or). It is iterative (a condition may nest its parentheses arbitrarily deep without exhausting
# Python's stack) and a chain a /\ b /\ … of any length is one n-ary node. A tree deeper than
# MAX_FORMULA_DEPTH (only reached by nesting ~ or alternating parenthesised sub-formulas that deep)
# is refused with the position of the construct.

_CMP = ("==", "!=", "<=", ">=", "<", ">")
MAX_FORMULA_DEPTH = 200
_Item = tuple[cf.Formula, int]  # (formula, depth of its tree)


@dataclass
class _Group:
    """An open parenthesised sub-formula: its completed disjuncts and the terms of the conjunction
    being read; ``nots``: the negations written before its '('."""

    open: Tok | None
    nots: list[Tok]
    ors: list[_Item] = field(default_factory=list)
    ands: list[_Item] = field(default_factory=list)


def _check_depth(p: TokenStream, item: _Item, at: Tok) -> _Item:
    if item[1] > MAX_FORMULA_DEPTH:
        p.fail(at, f"condition nested too deeply (more than {MAX_FORMULA_DEPTH} levels)")
    return item


def _negate(p: TokenStream, item: _Item, nots: list[Tok]) -> _Item:
    node, depth = item
    for _ in nots:
        node, depth = cf.Not(node), depth + 1
    return _check_depth(p, (node, depth), nots[0]) if nots else item


def _chain(p: TokenStream, cls: type[cf.And] | type[cf.Or], items: list[_Item], at: Tok) -> _Item:
    """``items`` joined by ``cls`` as one n-ary node; an operand that is itself a ``cls`` node (a
    parenthesised chain of the same operator) is spliced in: ``(a /\\ b) /\\ c`` is And(a, b, c)."""
    if len(items) == 1:
        return items[0]
    args: list[cf.Formula] = []
    depth = 0
    for node, d in items:
        if isinstance(node, cls):
            args.extend(node.args)
            depth = max(depth, d)
        else:
            args.append(node)
            depth = max(depth, d + 1)
    return _check_depth(p, (cls(tuple(args)), depth), at)


def parse_formula_tokens(p: TokenStream) -> cf.Formula:
    """disj := conj (\\/ conj)* ; conj := unary (/\\ unary)* ;
    unary := (~|not) unary | '(' disj ')' | true | false | operand (=|==|!=|<|>|<=|>=) operand"""
    stack: list[_Group] = []
    group = _Group(None, [])
    while True:
        nots: list[Tok] = []
        while p.peek().text in ("~", "not") and p.peek().kind in ("op", "id"):
            nots.append(p.next())
        if p.peek().text == "(" and p.peek().kind == "op":
            stack.append(group)
            group = _Group(p.next(), nots)
            continue
        item = _negate(p, (_comparison(p), 1), nots)
        while True:  # after a term: continue the conjunction, the disjunction, or close a group
            group.ands.append(item)
            if p.accept("/\\"):
                break
            group.ors.append(_chain(p, cf.And, group.ands, group.open or p.peek()))
            group.ands = []
            if p.accept("\\/"):
                break
            done = _chain(p, cf.Or, group.ors, group.open or p.peek())
            if group.open is None:
                return done[0]
            p.expect(")", "')'")
            if p.peek().text in _CMP:  # a parenthesised operand: not in this grammar
                p.fail(group.open, "expected an operand (Pn:reg, a location, an integer), found '('")
            item = _negate(p, done, group.nots)
            group = stack.pop()


def _comparison(p: TokenStream) -> cf.Atom | cf.Cmp:
    t = p.peek()
    if t.kind == "id" and t.text in ("true", "false"):
        p.next()
        return cf.Atom(t.text == "true")
    lhs = _operand(p)
    op = p.peek()
    if op.text == "=" and op.kind == "op":  # herd accepts `x=1`
        p.next()
        return cf.Cmp("==", lhs, _operand(p), span=p.span(t, op))
    if op.text not in _CMP:
        p.fail(op, f"expected a comparison operator, found {op.text or 'end of file'!r}")
    p.next()
    return cf.Cmp(op.text, lhs, _operand(p), span=p.span(t, op))


def _operand(p: TokenStream) -> cf.Operand:
    t = p.peek()
    tid = p.thread_ref_opt()
    if tid is not None:
        if p.nthreads is not None and tid >= p.nthreads:
            p.fail(t, f"no thread P{tid} in this test")
        pct = p.peek()
        if pct.kind == "bad" and pct.text == "%":  # a kernel register as the kernel spells it: P1:%r1
            p.next()
            r = p.expect_id("a register")
            if r.start != pct.end:
                p.fail(r, f"expected a register name right after '%', found {r.text!r}")
            return cf.Reg(tid, "%" + r.text)
        r = p.expect_id("a register")
        return cf.Reg(tid, r.text)
    if t.kind == "num" or t.text == "-":
        return cf.Int(p.expect_int())
    if t.kind == "id":
        p.next()
        if p.accept("["):
            idx = p.expect_int()
            p.expect("]")
            return cf.Loc(t.text, idx)
        return cf.Loc(t.text)
    p.fail(t, f"expected an operand (Pn:reg, a location, an integer), found {t.text or 'end of file'!r}")


def parse_formula(text: str, filename: str = "<condition>", nthreads: int | None = None) -> cf.Formula:
    """Parse a condition formula (``--exists COND`` on the command line)."""
    p = TokenStream(text, filename)
    if nthreads is not None:
        p.nthreads = nthreads
    f = parse_formula_tokens(p)
    if p.peek().kind != "eof":
        p.fail(p.peek(), f"unexpected {p.peek().text!r} in the condition")
    return f
