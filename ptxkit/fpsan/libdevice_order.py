"""The argument order of a two-argument libdevice body other than pow (``atan2``, ``hypot``, ``fmod``; issue 10):
Triton's FPSan hashes the call's arguments in order, and the body reads both arguments symmetrically enough that its
first use says nothing (``libdevice.atan2(a, b)`` of f32 was hashed as atan2(b, a), silent in 480/512 elements). The
source's call decides: an input whose definition (through conversions and moves) carries the location of an
expression of one argument — names followed to their assignments — is that argument. Undecided: reported."""

from __future__ import annotations

import ast

from ptxkit import ir
from ptxkit.fpsan.libdevice_flow import Flow, LibRange
from ptxkit.fpsan.source_ast import _DEPTH, SourceFile, _module_call, _resolve
from ptxkit.fpsan.source_hints import SourceHints

_THROUGH = frozenset({"cvt", "mov", "neg", "abs"})


def _open_order(b: LibRange) -> bool:
    return b.op == "call" and len(b.inputs) == 2 and b.name not in ("pow", "powf") and b.inputs[0] != b.inputs[1]


def mark_undecided(bodies: list[LibRange]) -> None:
    """Without the source (nvcc's output, no ``.file``): every such body's order is undecided (reported)."""
    for b in bodies:
        b.order_undecided = b.order_undecided or _open_order(b)


def order_arguments(flow: Flow, instrs: list[ir.Instruction], bodies: list[LibRange], hints: SourceHints) -> None:
    """Reorder each such body's ``inputs`` as the source's call has them; mark it undecided (``order_undecided``)
    where the source does not say."""
    for b in bodies:
        if not _open_order(b):
            continue
        call = _call_at(instrs, b, hints)
        if call is None:
            b.order_undecided = True
            continue
        f, n = call
        args = [_locations(f, a) for a in n.args[:2]]
        owner = [_owner(flow, x, hints, args) for x in b.inputs]
        if owner == [{0}, {1}]:
            continue
        if owner == [{1}, {0}]:
            b.inputs = b.inputs[::-1]
            b.input = b.inputs[0]
            continue
        b.order_undecided = True


def _call_at(instrs: list[ir.Instruction], b: LibRange, hints: SourceHints) -> tuple[SourceFile, ast.Call] | None:
    """The source's ``libdevice.NAME(a, b)`` call at the body's instructions' location."""
    want = b.name[:-1] if b.ftype == "f32" and b.name.endswith("f") else b.name
    for s in instrs:
        if s.span is None or not b.covers(s.span.line):
            continue
        found = hints.nodes(s)
        if found is None:
            continue
        f, nodes = found
        for n in nodes:
            if _module_call(n, "libdevice") == want and isinstance(n, ast.Call) and len(n.args) == 2:
                return f, n
    return None


def _locations(f: SourceFile, e: ast.expr) -> set[tuple[int, int]]:
    """The (line, column) of every expression of ``e``, names followed to their values."""
    out: set[tuple[int, int]] = set()
    todo, seen = [e], 0
    while todo and seen < 256:
        n = todo.pop()
        seen += 1
        for m in ast.walk(n):
            if isinstance(m, ast.expr):
                out.add((m.lineno, m.col_offset + 1))
            if isinstance(m, ast.Name) and (r := _resolve(f, m, _DEPTH)) is not None and r is not m:
                todo.append(r)
    return out


def _owner(flow: Flow, x: str, hints: SourceHints, args: list[set[tuple[int, int]]]) -> set[int]:
    """The arguments whose expressions carry the location of ``x``'s definition — or, where that says nothing, of the
    nearest values it is converted or moved from (a masked load's ``other`` register may sit at the other argument's
    load: held-out-style kernel ``atan2(a, b)``, whose b reads a's ``mov.b32 r, 0``)."""
    level, seen = [x], {x}
    for _ in range(_DEPTH):
        locs: set[tuple[int, int]] = set()
        nxt: list[str] = []
        for r in level:
            for w in flow.writers.get(r, ()):
                loc = hints.loc.get(id(w))
                if loc is not None and loc[1]:
                    locs.add((loc[1], loc[2]))
                if w.opcode in _THROUGH:
                    nxt += [v for v in flow.reads(w) if v not in seen]
                    seen.update(flow.reads(w))
        hit = {i for i, a in enumerate(args) if locs & a}
        if hit:
            return hit
        level = nxt
        if not level:
            break
    return set()
