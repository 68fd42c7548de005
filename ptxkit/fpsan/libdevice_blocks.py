"""The out-of-line blocks of an inlined libdevice body (issue 10 A): LLVM lays a body's cold paths after the function's
``ret`` and branches there and back (ISA §9.7.13.4 ``bra``); they belong to the body when only its range branches into
them."""

from __future__ import annotations

from ptxkit import ir
from ptxkit.fpsan.libdevice_flow import line


def out_of_line(stmts: list[ir.Statement], rng: list[ir.Instruction], lo: int,
                exit_line: int) -> tuple[list[ir.Instruction], tuple[tuple[int, int], ...]] | None:
    """The blocks outside [lo, exit] that branches of the range reach: each from its label (or the head of
    the fall-through chain into it, which the body must branch to as well) to an unconditional branch back
    (a ``ret`` in it, or a branch into it from other code reject the body: None)."""
    labels = {s.name: i for i, s in enumerate(stmts) if isinstance(s, ir.Label)}
    todo = [t for s in rng for t in _targets(s)]
    chunks: list[ir.Instruction] = []
    extra: list[tuple[int, int]] = []
    inside: set[str] = set()
    heads: set[str] = set()
    while todo:
        t = todo.pop()
        i = labels.get(t)
        if i is None:
            return None
        if lo <= line(stmts[i]) <= exit_line or t in inside:
            continue
        i = _block_head(stmts, i)  # a block entered by fall-through: from the head of its chain
        if i is None or lo <= line(stmts[i]) <= exit_line:
            return None
        heads.add(stmts[i].name)  # type: ignore[union-attr]
        j = i
        while True:
            s = stmts[j]
            if isinstance(s, ir.Label):
                inside.add(s.name)
            elif isinstance(s, ir.Instruction):
                if s.opcode in ("ret", "exit"):
                    return None
                chunks.append(s)
                todo += _targets(s)
                if _unconditional(s):
                    break
            j += 1
            if j == len(stmts):
                return None
        extra.append((line(stmts[i]), line(stmts[j]) + 1))
    if heads - {t for s in rng + chunks for t in _targets(s)}:
        return None  # a chain head the body never branches to: the block is entered from elsewhere
    if chunks:
        ids = {id(s) for s in chunks} | {id(s) for s in rng}
        for s in stmts:
            if isinstance(s, ir.Instruction) and id(s) not in ids and set(_targets(s)) & inside:
                return None
    return chunks, tuple(extra)


def _block_head(stmts: list[ir.Statement], i: int) -> int | None:
    """The label that starts the fall-through chain into label ``stmts[i]``: back over labels whose
    preceding instruction is not an unconditional branch (None: the chain starts at the function's top)."""
    while True:
        k = next((k for k in range(i - 1, -1, -1) if isinstance(stmts[k], ir.Instruction)), None)
        if k is None:
            return None
        prev = stmts[k]
        assert isinstance(prev, ir.Instruction)
        if _unconditional(prev):
            return i
        h = next((h for h in range(k - 1, -1, -1) if isinstance(stmts[h], ir.Label)), None)
        if h is None:
            return None
        i = h


def _targets(s: ir.Statement) -> list[str]:
    if not isinstance(s, ir.Instruction) or s.opcode not in ("bra", "brx"):
        return []
    return [o.name for o in s.operands if isinstance(o, (ir.Sym, ir.Reg))]


def _unconditional(s: ir.Instruction) -> bool:
    return s.opcode in ("bra", "ret", "exit") and s.guard is None
