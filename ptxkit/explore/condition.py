"""Conditions of ``ptxkit explore`` (Dat3M / herd syntax): operands, outcome keys, evaluation.

A formula is an AST of tuples (``ptxkit.explore.program.Formula``).
"""

from __future__ import annotations


def formula_operands(f) -> list[tuple]:
    out: list[tuple] = []
    if f is None:
        return out
    tag = f[0]
    if tag in ("and", "or"):
        return formula_operands(f[1]) + formula_operands(f[2])
    if tag == "not":
        return formula_operands(f[1])
    if tag == "cmp":
        return [o for o in (f[2], f[3]) if o[0] != "int"]
    return out


def key_of(o: tuple) -> str:
    if o[0] == "reg":
        return f"P{o[1]}:{o[2]}"
    if o[0] == "elem":
        return f"{o[1]}[{o[2]}]"
    return o[1]


def eval_formula(f, env: dict) -> bool:
    tag = f[0]
    if tag == "true":
        return True
    if tag == "and":
        return eval_formula(f[1], env) and eval_formula(f[2], env)
    if tag == "or":
        return eval_formula(f[1], env) or eval_formula(f[2], env)
    if tag == "not":
        return not eval_formula(f[1], env)
    _, op, lhs, rhs = f
    x = lhs[1] if lhs[0] == "int" else env[key_of(lhs)]
    y = rhs[1] if rhs[0] == "int" else env[key_of(rhs)]
    if op == "==":
        return x == y
    if op == "!=":
        return x != y
    if isinstance(x, str) or isinstance(y, str):
        return False
    return {"<": x < y, ">": x > y, "<=": x <= y, ">=": x >= y}[op]



def elems_to_locs(f):
    if f is None:
        return None
    tag = f[0]
    if tag in ("and", "or"):
        return (tag, elems_to_locs(f[1]), elems_to_locs(f[2]))
    if tag == "not":
        return (tag, elems_to_locs(f[1]))
    if tag == "cmp":
        def conv(o):
            return ("loc", f"{o[1]}[{o[2]}]") if o[0] == "elem" else o
        return ("cmp", f[1], conv(f[2]), conv(f[3]))
    return f
