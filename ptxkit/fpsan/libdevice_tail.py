"""The tail of an inlined libdevice body after its exit marker (``libdevice_match``): the special-case selects
LLVM sank past user code, the caller's tests of the result left under the call's location, the flags other
recognised bodies share, and where the ring op may go so that it runs on every path to the result's readers."""

from __future__ import annotations

from collections import deque

import networkx as nx

from ptxkit import ir
from ptxkit.fpsan.libdevice_flow import Flow, cfg, line
from ptxkit.fpsan.ops import float_type_of, sign_mask_lanes, sign_xor_lanes
from ptxkit.ptx.types import FLOAT_TYPES


def tests_read_beside(flow: Flow, stmts: list[ir.Statement], outs: set[str], members: list[ir.Instruction],
                      absorbed: list[ir.Instruction], logic: set[int], cmps: set[str], plain: set[str],
                      inside: set[int], beside: frozenset[int]) -> set[str]:
    """The values of ``outs`` that are tests of the inputs alone (integer logic on their bits, comparisons, also
    sunk past the exit) whose other writers are the recognised bodies ``beside`` (registers LLVM reused there:
    seed 8287's hi word of x, which __nv_log rewrites in place with the scaled x's). A flag must be read by nothing
    but this body and those bodies (else it may select a special case in user code); the input's bits are the
    same in Triton's FPSan wherever they are read (like ``bits`` in ``_slice``) where no writer beside reaches."""
    ours = inside | {id(s) for s in absorbed}
    tests = {id(s) for s in members if id(s) in logic or flow.writes(s) & cmps}
    tests |= {id(s) for s in absorbed if s.opcode in ("setp", "testp") and flow.reads(s) <= plain}
    g: nx.DiGraph | None = None
    pos = {id(s): i for i, s in enumerate(stmts)}

    def sees_only_ours(u: ir.Instruction, r: str) -> bool:  # no path from a writer beside to the reader
        nonlocal g
        theirs = [w for w in flow.writers.get(r, ()) if id(w) in beside]
        if not theirs:
            return True
        g = cfg(stmts) if g is None else g
        return not any(nx.has_path(g, pos[id(w)], pos[id(u)]) for w in theirs)

    return {r for r in outs
            if all(id(w) in tests or id(w) in beside for w in flow.writers.get(r, ()))
            and any(id(w) in tests for w in flow.writers.get(r, ()))
            and all(id(u) in ours or id(u) in beside or (not is_flag(flow, r) and sees_only_ours(u, r))
                    for u in flow.readers.get(r, ()))}


def on_every_path(flow: Flow, stmts: list[ir.Statement], exit_line: int, anchor: ir.Instruction,
                   outs: set[str]) -> bool:
    """The ring op at ``anchor`` runs on every path from the body's exit to a reader of its result (``outs``): the
    steps LLVM sank past the exit may lie in one arm of a later body's branch, which the other arm skips."""
    a = next(i for i, s in enumerate(stmts) if s is anchor)
    e = next(i for i, s in enumerate(stmts) if line(s) >= exit_line)
    if not any(isinstance(s, ir.Label) or (isinstance(s, ir.Instruction) and s.opcode in ("bra", "brx"))
               for s in stmts[e + 1:a]):
        return True
    if any(isinstance(s, ir.Instruction) and s.opcode == "brx" for s in stmts):
        return False  # (an indirect branch's targets are a table's: not followed)
    pos = {id(s): i for i, s in enumerate(stmts)}
    g = nx.restricted_view(cfg(stmts), [a], [])
    return not any(nx.has_path(g, e, pos[id(u)]) for r in outs for u in flow.readers.get(r, ()) if pos[id(u)] != a)


def caller_tests(flow: Flow, absorbed: list[ir.Instruction], consumers: list[ir.Instruction], taint: set[str],
                  plain: set[str], ends: set[str] | frozenset[str] = frozenset()) -> None:
    """Give back to the caller the comparisons of a body's value absorbed with its sunk tail that no other
    absorbed instruction reads: the caller's test of the result, which LLVM left under the call's location
    (held-out seed 4744: ``pow(x / x, x) == x`` as ``setp.eq.f64 p, r, x`` after pow's sunk ``y == 0`` select).
    A body's tail ends in a value; its own tests (of the inputs alone, of its values before the exit — seed
    965's x == 0 of the scaled x, feeding a special case after the user's code —, or feeding its selects) stay.
    ``ends``: the body's values that none of its instructions read, its result where nothing was sunk (held-out
    seed 11450: ``exp(x) >= 1.5`` at a merged location right after the exit)."""
    while True:
        read = {r for s in absorbed for r in flow.reads(s)}
        tail = {r for s in absorbed if s.opcode not in ("setp", "testp") for r in flow.writes(s)} | ends
        drop = [s for s in absorbed if s.opcode in ("setp", "testp") and not flow.reads(s) <= plain
                and flow.reads(s) & tail and not flow.writes(s) & read]
        if not drop:
            return
        for s in drop:
            absorbed.remove(s)
            taint -= flow.writes(s)
            consumers.append(s)


def special_cases(flow: Flow, outs: set[str], head: ir.Instruction,
                  plain: set[str] | frozenset[str] = frozenset()) -> list[tuple[str, tuple[ir.Instruction, str]]]:
    """The body's special-case tests LLVM sank past user code (held-out seeds 1257, 965, 142): a flag among
    ``outs`` (a predicate, or a select of immediates on one) whose every use leads, through integer and
    predicate logic with the call's ``.loc`` (seed 142: the x == 0 tests of 16 log2f copies packed into a
    bit mask, tested once after ``tl.min``), only to ``selp d, c, v, p`` with the call's ``.loc`` (or that of the
    user's op it was merged into, :func:`_general_arm`), an immediate arm ``c`` (the body's special value
    carried through the user's code: ``pow(x, x)`` is 1 at x == 0,
    ``log(0) - 0.5`` is NaN) and a register arm ``v`` computed from the body's value result. Triton's single
    FPSan op has no special case, so such a select keeps ``v``: (flag, (select, v)) for each select. A compiler-made
    select (line 0) on a test of ``plain`` values (the inputs, their sources, constants) may carry another call's
    column (held-out seed 108767: pow's y == 0 select at a sin's ``0:9``, sunk into that body's range)."""
    flags = {r for r in outs if is_flag(flow, r)}
    values = outs - flags
    found: list[tuple[str, tuple[ir.Instruction, str]]] = []
    for f in flags:
        tainted, todo, sinks = {f}, [f], 0
        while todo:
            for s in flow.readers.get(todo.pop(), ()):
                v = _general_arm(flow, s, tainted, values, head, plain)
                if v is not None:
                    found.append((f, (s, v)))
                    sinks += 1
                    continue
                if (s.opcode not in _FLAG_LOGIC or s.guard is not None or any(m in FLOAT_TYPES for m in s.mods)
                        or not flow.same_call(s, head, merged=True)):
                    return []  # the flag reaches other code: not only the special case's selects
                for w in flow.writes(s) - tainted:
                    tainted.add(w)
                    todo.append(w)
        if not sinks:
            return []
    return found


def call_select(flow: Flow, u: ir.Instruction, head: ir.Instruction, plain: set[str]) -> bool:
    """``u`` is an unguarded ``selp`` at the call's location, or compiler-made (line 0, another call's column: LLVM
    merged the locations of interleaved copies, held-out seed 29941, silent) on a comparison of the inputs alone
    (``plain``: the inputs, their sources, constants)."""
    if u.opcode != "selp" or u.guard is not None or len(u.operands) != 4:
        return False
    return flow.same_call(u, head, merged=True) or _merged_test_select(flow, u, plain)


def intermediates(flow: Flow, values: set[str], member_ids: set[int]) -> set[str]:
    """The body's values that its own instructions read (its steps, never a result only the caller reads)."""
    return {r for r in values if any(id(u) in member_ids for u in flow.readers.get(r, ()))}


def merged_inner_test(flow: Flow, s: ir.Instruction, inner: set[str]) -> bool:
    """``s`` is a compiler-made comparison (line 0, any column) of the body's ``inner`` values with constants: a
    special-case test no user code can write, which LLVM sank past user code under another call's merged location
    (held-out seed 168518: log2f's x == 0 on its scaled x, at logf's ``0:163``, selecting −inf there)."""
    at = flow.loc.get(id(s))
    return (s.opcode in ("setp", "testp") and at is not None and at[1] == "0" and bool(flow.reads(s) & inner)
            and all(isinstance(o, (ir.Imm, ir.FloatImm)) or (isinstance(o, ir.Reg) and o.name in inner)
                    for o in s.operands[1:]))


def _merged_test_select(flow: Flow, u: ir.Instruction, plain: set[str] | frozenset[str]) -> bool:
    """The select ``u`` is compiler-made (line 0, any column) on a comparison of ``plain`` values alone."""
    p, at = u.operands[3], flow.loc.get(id(u))
    ws = flow.writers.get(p.name, []) if isinstance(p, ir.Reg) else []
    return (bool(plain) and at is not None and at[1] == "0" and len(ws) == 1
            and ws[0].opcode in ("setp", "testp") and flow.reads(ws[0]) <= plain)


def sunk_selects(flow: Flow, out: str, head: ir.Instruction, bypass: list[ir.Instruction],
                 plain: set[str]) -> list[tuple[ir.Instruction, str]]:
    """The selects ``selp d, c, out, p`` (either order) of the body's result against an immediate ``c`` at the
    call's location, not among ``bypass`` (those the body's own tests found), whose flag is no test of the body's
    (held-out seed 9580: pow(x1 + x1, h.to(f64))'s y == 0 select on the half's bits, packed with the next
    element's, left native — 1.0 where Triton's single op has no special case, silent): (select, out) for each —
    it keeps the general arm. Also such selects of a bypassed select's result, which may read the result through
    the user's cast (held-out seed 223440: ``pow(-x, y).to(f32)``, the y == 0 select after the cvt, then the
    -x == 1 one on the inner pow's x == -1 test, silent)."""
    bypassed = {id(s) for s in bypass}
    found: list[tuple[ir.Instruction, str]] = []
    todo = [out] + [w for s in bypass if call_select(flow, s, head, plain) for w in flow.writes(s)
                    if len(flow.writers.get(w, ())) == 1]
    seen = set(todo)
    while todo:  # (and a select of such a select: pow's x == 1 after its y == 0, held-out seed 29941, silent)
        v = todo.pop()
        for u in flow.readers.get(v, ()):
            if id(u) in bypassed and call_select(flow, u, head, plain):  # one the body's tests already found: the
                # selects of its result are the next special case's all the same (held-out seed 152431, silent)
                todo.extend(w for w in flow.writes(u) if len(flow.writers.get(w, ())) == 1 and w not in seen)
                seen.update(todo)
                continue
            if _constant_op(flow, u, v, head):  # select(c, 1, pow) - 0.5 as select(c, 0.5, pow - 0.5): LLVM folds the
                todo.extend(flow.writes(u))  # user's op with a constant into the arms (held-out seed 123395, silent)
                continue
            if v == out and _float_cast(flow, u, v):  # pow(x, y).to(f32) whose y == 0 select LLVM moved after the cast,
                todo.extend(w for w in flow.writes(u) if w not in seen)  # before the bypassed x == 1 one (held-out
                seen.update(flow.writes(u))  # seed 238023: y an int16's conversion, tested on its bits; silent)
                continue
            if id(u) in bypassed or not call_select(flow, u, head, plain) or any(u is f for f, _ in found):
                continue
            arms = [o for o in u.operands[1:3] if isinstance(o, ir.Reg)]
            if len(arms) == 1 and arms[0].name == v and any(isinstance(o, (ir.Imm, ir.FloatImm))
                                                            for o in u.operands[1:3]):
                found.append((u, v))
                todo.extend(w for w in flow.writes(u) if len(flow.writers.get(w, ())) == 1)
    return found


def _constant_op(flow: Flow, u: ir.Instruction, v: str, head: ir.Instruction) -> bool:
    """``u`` is the user's float ``add``/``sub``/``mul`` of ``v`` and an immediate at the call's location, alone
    writing its result: an op LLVM folds into a special-case select's arms."""
    ops = u.operands
    return (u.opcode in ("add", "sub", "mul") and u.guard is None and len(ops) == 3 and isinstance(ops[0], ir.Reg)
            and float_type_of(u) is not None and sum(isinstance(o, ir.Reg) and o.name == v for o in ops[1:]) == 1
            and any(isinstance(o, (ir.Imm, ir.FloatImm)) for o in ops[1:])
            and len(flow.writers.get(ops[0].name, ())) == 1 and flow.same_call(u, head, merged=True))


def _float_cast(flow: Flow, u: ir.Instruction, v: str) -> bool:
    """``u`` is an unguarded float → float ``cvt`` of ``v``, alone writing its result (the user's cast)."""
    ops = u.operands
    return (u.opcode == "cvt" and u.guard is None and len(ops) == 2 and isinstance(ops[0], ir.Reg)
            and isinstance(ops[1], ir.Reg) and ops[1].name == v and sum(m in FLOAT_TYPES for m in u.mods) == 2
            and len(flow.writers.get(ops[0].name, ())) == 1)


_FLAG_LOGIC = frozenset({"selp", "setp", "and", "or", "xor", "not", "shl", "shr", "mov", "cvt"})


def is_flag(flow: Flow, r: str) -> bool:
    """``r`` holds a test's outcome: written by ``setp``/``testp``, or by a select of two immediates."""
    ws = flow.writers.get(r, ())
    return bool(ws) and all(w.opcode in ("setp", "testp") or (w.opcode == "selp" and len(w.operands) == 4 and all(
        isinstance(o, (ir.Imm, ir.FloatImm)) for o in w.operands[1:3])) for w in ws)


def _general_arm(flow: Flow, s: ir.Instruction, tainted: set[str], values: set[str],
                 head: ir.Instruction, plain: set[str] | frozenset[str] = frozenset()) -> str | None:
    """The register arm ``v`` of ``s = selp d, c, v, p`` (either order) with ``p`` among ``tainted``, the call's
    ``.loc``, an immediate ``c`` and ``v`` computed from ``values``; else None."""
    ops = s.operands
    if (s.opcode != "selp" or s.guard is not None or len(ops) != 4 or not isinstance(ops[3], ir.Reg)
            or ops[3].name not in tainted):
        return None
    arms = [o for o in ops[1:3] if isinstance(o, ir.Reg)]
    if len(arms) == 2:  # select(p, c, max(c, r)): the special case's ±inf folded through the user's max/min
        arms = [a for a, c in (arms, arms[::-1]) if _extremum_with(flow, a.name, c.name)]  # (held-out seed 22633)
        if len(arms) != 1 or arms[0].name in tainted:
            return None
    elif len(arms) != 1 or arms[0].name in tainted or not any(isinstance(o, (ir.Imm, ir.FloatImm)) for o in ops[1:3]):
        return None
    # the call's location, or that of the user's op whose result it selects, into which LLVM merged it (seeds
    # 1346, 1695: ``abs(log2(x))``, ``-log2(x)``), or of one further up the arm's one-writer chain from the result
    # (held-out seed 29381: ``abs(pow(x, x)).to(f32)``, the selects at the cvt's location after LLVM's sunk abs);
    # a user's ``tl.where`` has a location of its own
    at = flow.loc.get(id(s))
    if not (flow.same_call(s, head, merged=True)
            or (at is not None and all(flow.loc.get(id(w)) == at for w in flow.writers.get(arms[0].name, [None])))
            or (at is not None and _located_on_chain(flow, arms[0].name, values, at))
            or _enclosing_sign(flow, s, arms[0].name, values, head) or _merged_test_select(flow, s, plain)):
        return None
    return arms[0].name if _computed_from(flow, arms[0].name, values) else None


def _enclosing_sign(flow: Flow, s: ir.Instruction, r: str, values: set[str], head: ir.Instruction) -> bool:
    """The select ``s`` carries the location of an expression enclosing the call (its line, a column at or before
    the call's) and its arm ``r`` is the body's value under one sign-bit ``and``/``xor`` or ``abs``/``neg`` that LLVM
    moved off the call's line (held-out seed 46161: ``abs(log2(d))``, the abs at the store's location and log2's
    x == 0 select, +inf, at the abs call's); a sign op left on the line says where its select would be."""
    at, call = flow.loc.get(id(s)), flow.loc.get(id(head))
    ws = flow.writers.get(r, [])
    if at is None or call is None or len(at) < 3 or len(call) < 3 or at[:2] != call[:2] or at[1] == "0" \
            or not (at[2].isdigit() and call[2].isdigit() and int(at[2]) <= int(call[2])) or len(ws) != 1:
        return False
    w = ws[0]
    own = flow.loc.get(id(w))
    if own is not None and own[:2] == call[:2] and not (own[2].isdigit() and int(own[2]) < int(at[2])):
        return False  # the sign op kept its place on the call's line: the select would carry its location or the
        # call's (moved further out, to the store's column, it does not: held-out seed 168816, -pow(d, d))
    regs = [o for o in w.operands[1:] if isinstance(o, ir.Reg)]
    sign = (w.opcode in ("abs", "neg") and len(w.operands) == 2) or sign_mask_lanes(w) or sign_xor_lanes(w)
    return bool(sign) and w.guard is None and len(regs) == 1 and _cast_of(flow, regs[0].name, values)


def _cast_of(flow: Flow, r: str, values: set[str]) -> bool:
    """``r`` is one of ``values``, or its float conversion (held-out seed 79474: ``-pow(x, x).to(f16)``, LLVM's
    x == 0 select of -1.0 after the cvt and the sign xor it moved to the store)."""
    ws = flow.writers.get(r, [])
    if r in values or len(ws) != 1:
        return r in values
    w = ws[0]
    return (w.opcode == "cvt" and w.guard is None and len(w.operands) == 2 and isinstance(w.operands[1], ir.Reg)
            and w.operands[1].name in values and len([m for m in w.mods if m in FLOAT_TYPES]) == 2)


def _located_on_chain(flow: Flow, r: str, values: set[str], at: tuple[str, ...], depth: int = 8) -> bool:
    """``r`` is computed from one of ``values`` by a chain of one-writer instructions (a cast, an abs; or an op of
    another value too, the chain going through its one operand computed from ``values``: held-out seed 165976,
    ``maximum(-log2(x), y)``, log2's x == 0 select of +inf at the neg's location after the max), one of which
    carries the location ``at``."""
    seen = False
    for _ in range(depth):
        ws = flow.writers.get(r, [])
        regs = [o.name for o in ws[0].operands[1:] if isinstance(o, ir.Reg)] if len(ws) == 1 else []
        if len(regs) > 1:
            regs = [x for x in regs if _computed_from(flow, x, values)]
        if len(regs) != 1 or ws[0].guard is not None:
            return False
        seen = seen or flow.loc.get(id(ws[0])) == at
        r = regs[0]
        if r in values:
            return seen
    return False


def _extremum_with(flow: Flow, r: str, other: str) -> bool:
    """``r``'s one writer is a ``max``/``min`` that reads ``other``: where the body's result is ±inf, LLVM's
    select of ``other`` is that max/min (``max(0 * a, log(a))`` at a == 0), Triton's ring op has no such case."""
    ws = flow.writers.get(r, ())
    return (len(ws) == 1 and ws[0].opcode in ("max", "min") and ws[0].guard is None
            and any(isinstance(o, ir.Reg) and o.name == other for o in ws[0].operands[1:]))


def _computed_from(flow: Flow, r: str, values: set[str], limit: int = 4096) -> bool:
    """``r`` is computed (through any instructions) from one of ``values`` (breadth first: the nearest first)."""
    seen, todo = {r}, deque([r])
    while todo and len(seen) < limit:
        cur = todo.popleft()
        if cur in values:
            return True
        for w in flow.writers.get(cur, ()):
            for x in flow.reads(w) - seen:
                seen.add(x)
                todo.append(x)
    return False


def tail_select(flow: Flow, s: ir.Instruction, absorbed: list[ir.Instruction], inner: set[str]) -> bool:
    """``s`` is a compiler-made (line 0) ``selp`` of the body's sunk tail: its predicate and its register arm both
    come from steps already absorbed (held-out seed 7733: pow's ``x == 1`` select sunk past two exp bodies, with the
    exp call's column at line 0); a user's select has a location of its own. Or such a test of the body's ``inner``
    values (:func:`merged_inner_test`)."""
    if merged_inner_test(flow, s, inner):
        return True
    at = flow.loc.get(id(s))
    if s.opcode != "selp" or at is None or at[1] != "0" or len(s.operands) != 4:
        return False
    done = {r for a in absorbed for r in flow.writes(a)}
    regs = [o.name for o in s.operands[1:] if isinstance(o, ir.Reg)]
    return len(regs) == 2 and set(regs) <= done
