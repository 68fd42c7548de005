"""Reading a kernel's Python source for the hints (issue 10; docs/fpsan.md §3 "Source hints"): the parsed tree, with
the spellings of one Triton op that the hints read one way made that way."""

from __future__ import annotations

import ast


def parse_python(text: str, filename: str = "<source>") -> ast.Module:
    """``text`` parsed, ``tl.cast(E, T, …)`` read as ``E.to(T, …)`` and ``tl.math.F`` as ``tl.F`` (raises
    SyntaxError/ValueError as ``ast.parse``)."""
    return _CastsAsTo().visit(ast.parse(text, filename=filename))


# triton.language.math's functions that triton.language exports as the same objects (Triton 3.9)
_MATH_IN_TL = frozenset({"abs", "ceil", "cos", "div_rn", "erf", "exp", "exp2", "fdiv", "floor", "fma", "log", "log2",
                         "rsqrt", "sin", "sqrt", "sqrt_rn", "umulhi"})


class _CastsAsTo(ast.NodeTransformer):
    """``tl.cast(E, T, …)`` read as ``E.to(T, …)``, the spelling every hint reads (the same op in Triton; user-style
    probes: ``tl.cast(x, tl.float64) * 2.0`` of an f32 x was undecided), at the call's own position; ``tl.math.F`` as
    ``tl.F`` (the same function; statement-level probe rp184: ``tl.math.rsqrt``'s type unknown, an f64 add LLVM
    narrowed read as an f32 one, silent)."""

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
