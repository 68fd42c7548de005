"""The argument order of a two-argument libdevice body other than pow (``atan2``, ``hypot``, ``fmod``; issue 10), and
pow's inputs where the source's call contradicts its matcher (:func:`_check_pow`):
Triton's FPSan hashes the call's arguments in order, and the body reads both arguments symmetrically enough that its
first use says nothing (``libdevice.atan2(a, b)`` of f32 was hashed as atan2(b, a), silent in 480/512 elements). The
source's call decides: an input whose definition (through conversions and moves) carries the location of an
expression of one argument — names followed to their assignments — is that argument. Undecided: reported."""

from __future__ import annotations

import ast

from ptxkit import ir
from ptxkit.fpsan.libdevice_flow import Flow, LibRange
from ptxkit.fpsan.source_ast import _DEPTH, SourceFile, _abs_call, _module_call, _negated, _resolve
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
        if b.op == "call" and len(b.inputs) == 2 and b.name in ("pow", "powf") and b.inputs[0] != b.inputs[1]:
            _check_pow(flow, instrs, b, hints)
            continue
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
        # an abs and a negation of one value, at LLVM's merged locations: each input by its own op
        shapes, ops = _shapes(flow, f, n, b)
        if None not in shapes and shapes[0] != shapes[1] and sorted(map(str, ops)) == sorted(map(str, shapes)):
            if ops != shapes:
                b.inputs = b.inputs[::-1]
                b.input = b.inputs[0]
            continue
        b.order_undecided = True


def _check_pow(flow: Flow, instrs: list[ir.Instruction], b: LibRange, hints: SourceHints) -> None:
    """pow's inputs, which its matcher chose from the body's reads, where the source's call says an input was computed
    as the other argument (random seed 245296: ``pow(abs(s), -s)`` of f64, whose body reads s, |s| and -s, was hashed
    as pow(-s, s), silent in 64/64): the body's reads the source computes as each argument, one each; else disputed
    (reported)."""
    call = _call_at(instrs, b, hints)
    if call is None:
        return
    f, n = call
    args = [_locations(f, a) for a in n.args[:2]]
    owner = [_written_in(flow, x, hints, args) for x in b.inputs]
    shapes, ops = _shapes(flow, f, n, b)
    located = any(owner[k] == {1 - k} and not _twin(f, flow, x, hints, n.args[k]) for k, x in enumerate(b.inputs))
    shaped = any(shapes[k] is not None and ops[k] in _SHAPES and ops[k] != shapes[k] for k in (0, 1))
    if not (located or shaped):
        return
    # the registers the body reads, written outside it, that the source computes as each argument: by the argument's
    # own op where both are an abs and a negation (LLVM's merged column-0 locations say nothing), else by location
    reads = {r for s in instrs if s.span is not None and b.covers(s.span.line) for r in flow.reads(s)}
    if None not in shapes and shapes[0] != shapes[1]:
        by_arg = [[r for r in sorted(reads) if (w := _only_writer(flow, r)) is not None and w.opcode == shapes[k]
                   and w.span is not None and not b.covers(w.span.line)] for k in (0, 1)]
    else:
        by_arg = [[r for r in sorted(reads) if _written_in(flow, r, hints, args) == {k}] for k in (0, 1)]
    if all(len(rs) == 1 for rs in by_arg) and by_arg[0] != by_arg[1]:
        b.inputs = (by_arg[0][0], by_arg[1][0])
        b.input = b.inputs[0]
    else:
        b.inputs_disputed = True


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


def _written_in(flow: Flow, r: str, hints: SourceHints, args: list[set[tuple[int, int]]]) -> set[int]:
    """The arguments whose expressions carry the location of every write of ``r`` (not of what it is computed from:
    the body's own |x| of an argument is no argument)."""
    locs = {(loc[1], loc[2]) for w in flow.writers.get(r, ()) if (loc := hints.loc.get(id(w))) is not None}
    return {i for i, a in enumerate(args) if locs and locs <= a}


def _twin(f: SourceFile, flow: Flow, r: str, hints: SourceHints, arg: ast.expr) -> bool:
    """An expression at a write of ``r`` is written in ``arg`` too (LLVM's CSE of ``x.to(f64)`` in both arguments of
    nested pows keeps one register at one location: held-out seed 8085)."""
    dumps = {ast.dump(m) for m in ast.walk(arg) if isinstance(m, ast.expr)}
    for w in flow.writers.get(r, ()):
        loc = hints.loc.get(id(w))
        if loc is not None and any(ast.dump(m) in dumps for m in f.at.get((loc[1], loc[2] - 1), [])):
            return True
    return False


_SHAPES = ("abs", "neg")


def _shapes(flow: Flow, f: SourceFile, n: ast.Call, b: LibRange) -> tuple[list[str | None], list[str | None]]:
    """(each argument's :func:`_shape`, the opcode of each input's one writer)."""
    return ([_shape(f, a) for a in n.args[:2]],
            [w.opcode if (w := _only_writer(flow, x)) is not None else None for x in b.inputs])


def _shape(f: SourceFile, a: ast.expr) -> str | None:
    """``abs`` of ``tl.abs(E)``, ``neg`` of ``-E`` / ``E * -1.0`` (names followed), else None."""
    r = _resolve(f, a, _DEPTH) or a
    if _negated(r) is not None:
        return "neg"
    return "abs" if _abs_call(r) else None


def _only_writer(flow: Flow, r: str) -> ir.Instruction | None:
    ws = flow.writers.get(r, ())
    return ws[0] if len(ws) == 1 else None
