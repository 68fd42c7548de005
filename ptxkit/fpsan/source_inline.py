"""A helper's returned expression with its parameters replaced by a call's arguments (issue 10): what the hints read
for the value of a call of a user's ``@triton.jit`` helper, which Triton inlines (statement-level probe rp1035:
``v = _neg(z); (v + x.to(tl.float64)).to(tl.float32)`` of ``def _neg(b): return -b`` — the f64 sub LLVM narrowed was
undecided, silent)."""

from __future__ import annotations

import ast
import copy
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ptxkit.fpsan.source_ast import SourceFile

_CALLS: dict[int, tuple[ast.Module, dict[str, list[ast.Call]]]] = {}  # id(tree) -> (tree, calls by callee name)
_BINDINGS: dict[int, tuple[ast.FunctionDef, dict[str, tuple[list[ast.Assign], int]]]] = {}
# the calls of helpers (by name) that the instruction being sanitized was inlined from (its .loc's inlined_at chain):
# a helper called more than once takes that call's arguments (statement seed 726: _h's second, dead call)
_SITES: ContextVar[dict[str, ast.Call] | None] = ContextVar("_SITES", default=None)


def current_sites() -> dict[str, ast.Call] | None:
    """The helper calls :func:`call_sites` holds now (None outside one)."""
    return _SITES.get()


@contextmanager
def call_sites(calls: dict[str, ast.Call]) -> Iterator[None]:
    """:func:`param_argument` of the helpers in ``calls`` (by name) reads the given call's arguments meanwhile."""
    token = _SITES.set(calls)
    try:
        yield
    finally:
        _SITES.reset(token)


def substituted(ret: ast.expr, args: dict[str, ast.expr]) -> ast.expr:
    """A copy of ``ret`` whose parameter names are the call's argument nodes themselves (so that the names in them
    resolve in the caller; the helper's own local names, copies, resolve to nothing)."""
    return _Params(args).visit(copy.deepcopy(ret))


class _Params(ast.NodeTransformer):
    def __init__(self, args: dict[str, ast.expr]) -> None:
        self.args = args

    def visit_Name(self, node: ast.Name) -> ast.AST:
        return self.args.get(node.id, node) if isinstance(node.ctx, ast.Load) else node


def _returned(f: SourceFile, n: ast.expr) -> tuple[ast.expr, dict[str, ast.expr]] | None:
    """The value a call ``n`` of a helper defined in ``f`` returns (its one ``return``), with its parameters by the
    call's arguments; None otherwise."""
    if not (isinstance(n, ast.Call) and isinstance(n.func, ast.Name)) or n.keywords:
        return None
    fn = next((d for d in f.tree.body if isinstance(d, ast.FunctionDef) and d.name == n.func.id), None)
    rets = [r for r in ast.walk(fn) if isinstance(r, ast.Return)] if fn is not None else []
    if fn is None or len(rets) != 1 or rets[0].value is None or len(fn.args.args) != len(n.args):
        return None
    return rets[0].value, {p.arg: a for p, a in zip(fn.args.args, n.args, strict=True)}


def parameter_use(f: SourceFile, arg: ast.expr) -> ast.Name | None:
    """Where ``arg`` is a positional argument of a call of a helper defined in ``f``, the helper's one read of that
    parameter (Triton inlines the helper: what the body does to the name it does to the argument), else None."""
    call = f.parent.get(id(arg))
    if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name)) or call.keywords \
            or not any(arg is a for a in call.args):
        return None
    fn = next((d for d in f.tree.body if isinstance(d, ast.FunctionDef) and d.name == call.func.id), None)
    if fn is None or len(fn.args.args) != len(call.args):
        return None
    name = fn.args.args[next(i for i, a in enumerate(call.args) if a is arg)].arg
    uses = [n for n in ast.walk(fn) if isinstance(n, ast.Name) and n.id == name]
    return uses[0] if len(uses) == 1 and isinstance(uses[0].ctx, ast.Load) else None


def param_argument(tree: ast.Module, fn: ast.FunctionDef, name: str) -> ast.expr | None:
    """The argument the one call of the helper ``fn`` in ``tree`` passes for its parameter ``name`` (Triton inlines the
    helper there: the parameter is that value; statement-level probe: a helper's comparison of a widened argument,
    silent), or the call :func:`call_sites` names; None for a kernel (never called), a helper called more than once
    elsewhere, or another call shape."""
    cached = _CALLS.get(id(tree))
    if cached is None or cached[0] is not tree:
        calls: dict[str, list[ast.Call]] = {}
        for c in ast.walk(tree):
            if isinstance(c, ast.Call) and isinstance(c.func, ast.Name):
                calls.setdefault(c.func.id, []).append(c)
        if len(_CALLS) > 64:
            _CALLS.clear()
        cached = _CALLS[id(tree)] = (tree, calls)
    sites = cached[1].get(fn.name, [])
    if len(sites) > 1 and (chosen := (_SITES.get() or {}).get(fn.name)) is not None \
            and any(chosen is c for c in sites):
        sites = [chosen]  # (the call the instruction being sanitized comes from)
    params = [a.arg for a in fn.args.args]
    if len(sites) != 1 or sites[0].keywords or len(sites[0].args) != len(params) or name not in params or any(
            isinstance(n, ast.Name) and n.id == name and not isinstance(n.ctx, ast.Load) for n in ast.walk(fn)):
        return None  # (a parameter the helper reassigns is not the argument everywhere)
    return sites[0].args[params.index(name)]


def bindings(fn: ast.FunctionDef) -> dict[str, tuple[list[ast.Assign], int]]:
    """Each name's single-target assignments in ``fn`` and how many times it is stored to at all (one walk of the
    function, kept: the hints resolve names thousands of times per kernel)."""
    cached = _BINDINGS.get(id(fn))
    if cached is not None and cached[0] is fn:
        return cached[1]
    out: dict[str, tuple[list[ast.Assign], int]] = {}
    for n in ast.walk(fn):
        if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(t := n.targets[0], ast.Name):
            assigns, stores = out.get(t.id, ([], 0))
            out[t.id] = ([*assigns, n], stores)
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
            assigns, stores = out.get(n.id, ([], 0))
            out[n.id] = (assigns, stores + 1)
    if len(_BINDINGS) > 4096:
        _BINDINGS.clear()
    _BINDINGS[id(fn)] = (fn, out)
    return out


def reaching_assign(f: SourceFile, fn: ast.FunctionDef, e: ast.Name) -> ast.Assign | None:
    """The one assignment of ``e``'s name that reaches the statement reading it: the last one before it in its
    block, else before the enclosing ``if`` (a ``tl.constexpr`` flag's branch: statement-level seed 1967), and so
    out to the function's body; None where a statement between stores the name some other way, or a loop carries
    it."""
    cur: ast.AST | None = e
    while cur is not None and not isinstance(cur, ast.stmt):
        cur = f.parent.get(id(cur))
    while cur is not None and cur is not fn:
        parent = f.parent.get(id(cur))
        if parent is None:
            return None
        block = next((b for b in (getattr(parent, "body", None), getattr(parent, "orelse", None))
                      if isinstance(b, list) and any(s is cur for s in b)), None)
        if block is None:
            return None
        for s in reversed(block[:next(i for i, s in enumerate(block) if s is cur)]):
            if isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(t := s.targets[0], ast.Name) \
                    and t.id == e.id:
                return s
            if any(isinstance(n, ast.Name) and n.id == e.id and not isinstance(n.ctx, ast.Load) for n in ast.walk(s)):
                return None
        if isinstance(parent, (ast.For, ast.While)) and any(
                isinstance(n, ast.Name) and n.id == e.id and not isinstance(n.ctx, ast.Load) for n in ast.walk(parent)):
            return None
        cur = parent
    return None
