"""The sub-expressions of a source expression with names followed to their assignments (issue 10): what the folds
that read a whole stored or cast expression look through."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from ptxkit.fpsan.source_ast import _DEPTH, SourceFile, _resolve, _returned
from ptxkit.fpsan.source_inline import substituted

_BOUND = 1024  # expressions are small and names resolve to earlier statements; a bound all the same


def subexpressions(f: SourceFile, e: ast.expr) -> Iterator[ast.expr]:
    """Every node under ``e`` (``e`` included), a name replaced by the expression it is assigned (an unresolved name,
    a parameter, is skipped)."""
    todo = [e]
    for _ in range(_BOUND):
        if not todo:
            return
        n = todo.pop()
        if isinstance(n, ast.Name):
            r = _resolve(f, n, _DEPTH)
            if r is not None and r is not n:
                todo.append(r)
            continue
        if (ret := _returned(f, n)) is not None:  # a helper's call: what it returns, of the call's arguments
            todo.append(substituted(*ret))
            continue
        yield n
        todo.extend(c for c in ast.iter_child_nodes(n) if isinstance(c, ast.expr))
