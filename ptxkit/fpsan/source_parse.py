"""Reading a kernel's Python source for the hints (issue 10; docs/fpsan.md §3 "Source hints"): the parsed tree, with
the spellings of one Triton op that the hints read one way made that way."""

from __future__ import annotations

import ast


def parse_python(text: str, filename: str = "<source>") -> ast.Module:
    """``text`` parsed, ``tl.cast(E, T, …)`` read as ``E.to(T, …)``, ``tl.math.F`` as ``tl.F`` and ``x op= E`` as
    ``x = x op E`` (raises SyntaxError/ValueError as ``ast.parse``)."""
    return _Spellings().visit(ast.parse(text, filename=filename))


# triton.language.math's functions that triton.language exports as the same objects (Triton 3.9)
_MATH_IN_TL = frozenset({"abs", "ceil", "cos", "div_rn", "erf", "exp", "exp2", "fdiv", "floor", "fma", "log", "log2",
                         "rsqrt", "sin", "sqrt", "sqrt_rn", "umulhi"})


class _Spellings(ast.NodeTransformer):
    """``tl.cast(E, T, …)`` read as ``E.to(T, …)``, the spelling every hint reads (the same op in Triton; user-style
    probes: ``tl.cast(x, tl.float64) * 2.0`` of an f32 x was undecided), at the call's own position; ``tl.math.F`` as
    ``tl.F`` (the same function; statement-level probe rp184: ``tl.math.rsqrt``'s type unknown, an f64 add LLVM
    narrowed read as an f32 one, silent)."""

    def visit_AugAssign(self, node: ast.AugAssign) -> ast.AST:
        """``x op= E`` read as ``x = x op E``, as Triton's code generator builds it (its ops carry the statement's
        location, the BinOp's here): the name resolves like any assignment's (statement-level probe: ``c = 0.1;
        c += 1.0`` stored as f16, MLIR's folded sum cast in the ring, silent)."""
        self.generic_visit(node)
        if not isinstance(node.target, ast.Name):
            return node
        load = ast.copy_location(ast.Name(id=node.target.id, ctx=ast.Load()), node.target)
        value = ast.copy_location(ast.BinOp(left=load, op=node.op, right=node.value), node)
        value.end_lineno, value.end_col_offset = node.value.end_lineno, node.value.end_col_offset
        return ast.copy_location(ast.Assign(targets=[node.target], value=value), node)

    def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
        self.generic_visit(node)
        v = node.value
        if node.attr in _MATH_IN_TL and isinstance(v, ast.Attribute) and v.attr == "math" \
                and isinstance(v.value, ast.Name) and v.value.id == "tl":
            return ast.copy_location(ast.Attribute(value=v.value, attr=node.attr, ctx=node.ctx), node)
        return node

    def visit_Call(self, node: ast.Call) -> ast.AST:
        self.generic_visit(node)
        fn = node.func
        if not (isinstance(fn, ast.Attribute) and fn.attr == "cast" and isinstance(fn.value, ast.Name)
                and fn.value.id == "tl" and len(node.args) >= 1
                and (len(node.args) >= 2 or any(k.arg == "dtype" for k in node.keywords))):
            return node
        to = ast.copy_location(ast.Attribute(value=node.args[0], attr="to", ctx=ast.Load()), fn)
        return ast.copy_location(ast.Call(func=to, args=node.args[1:], keywords=node.keywords), node)
