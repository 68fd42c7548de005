"""A helper's returned expression with its parameters replaced by a call's arguments (issue 10): what the hints read
for the value of a call of a user's ``@triton.jit`` helper, which Triton inlines (statement-level probe rp1035:
``v = _neg(z); (v + x.to(tl.float64)).to(tl.float32)`` of ``def _neg(b): return -b`` — the f64 sub LLVM narrowed was
undecided, silent)."""

from __future__ import annotations

import ast
import copy


def substituted(ret: ast.expr, args: dict[str, ast.expr]) -> ast.expr:
    """A copy of ``ret`` whose parameter names are the call's argument nodes themselves (so that the names in them
    resolve in the caller; the helper's own local names, copies, resolve to nothing)."""
    return _Params(args).visit(copy.deepcopy(ret))


class _Params(ast.NodeTransformer):
    def __init__(self, args: dict[str, ast.expr]) -> None:
        self.args = args

    def visit_Name(self, node: ast.Name) -> ast.AST:
        return self.args.get(node.id, node) if isinstance(node.ctx, ast.Load) else node
