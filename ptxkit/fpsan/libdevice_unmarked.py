"""libdevice bodies LLVM inlines without an exit marker (issue 10 A0/C), recognised by their shape:
``__nv_tanhf`` (branch-free, f32), ``__nv_sin``/``__nv_cos``/``__nv_erf`` (f64: only nested ``.i`` markers)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

import networkx as nx

from ptxkit import ir
from ptxkit.fpsan.libdevice_flow import Flow, LibRange, cfg, constants_before, immediates_at, is_float, line

_TANHF_SCALE = ir.FloatImm(0x4038AA3B, 32)  # 2·log2(e): tanhf's exp2(2|x|)
_TANHF_CUTOFF = ir.FloatImm(0x41102CB4, 32)  # |x| ≥ 9.01: tanh = ±1
_TANHF_SMALL = ir.FloatImm(0x3F19999A, 32)  # |x| < 0.6: the odd polynomial
_TANHF_OPS = {"abs", "mul", "ex2", "add", "rcp", "mov", "fma", "setp", "selp", "and", "or"}


def match_tanhf(flow: Flow, stmts: list[ir.Statement], consts: set[str]) -> list[LibRange]:
    """``__nv_tanhf`` inlined branch-free with no exit marker (issue 10 A0): from ``abs.f32 a, x;
    mul.f32 t, a, 0f4038AA3B`` the body is what computes from x under the call's ``.loc`` (needed: a
    function without ``.loc`` gets none), reading nothing but x and constants, with no label or branch
    inside, using the 9.01 cutoff, and with exactly one register read by other code."""
    if not flow.loc:
        return []
    instrs = [s for s in stmts if isinstance(s, ir.Instruction)]
    pos = {id(s): i for i, s in enumerate(stmts)}
    writer = {r: s for s in instrs for r in flow.writes(s)}
    out: list[LibRange] = []
    for s0 in instrs:
        if not (s0.opcode == "mul" and "f32" in s0.mods and len(s0.operands) == 3 and s0.operands[2] == _TANHF_SCALE
                and isinstance(s0.operands[1], ir.Reg)):
            continue
        ab = writer.get(s0.operands[1].name)
        if ab is None or ab.opcode != "abs" or not isinstance(ab.operands[1], ir.Reg):
            continue
        x = ab.operands[1].name
        # |x| computed by other code at its own location and shared (held-out seed 1261: a cosf body's |x|
        # of the same x): the body starts at the scaling and reads |x| as a value of its input
        own_abs = flow.same_call(ab, s0)
        got = _tanhf_body(flow, stmts, pos[id(ab if own_abs else s0)], x, consts,
                          set() if own_abs else flow.writes(ab))
        if got is not None:
            out.append(got)
    return out


def _tanhf_body(flow: Flow, stmts: list[ir.Statement], i0: int, x: str, consts: set[str],
                absx: frozenset[str] | set[str] = frozenset()) -> LibRange | None:
    start = stmts[i0]
    assert isinstance(start, ir.Instruction)
    given = {x} | flow.sources(x) | absx  # held-out seed 1379: tanh(-y) squares y itself, (-y)² = y·y
    # the caller's float work on x alone that LLVM shares with the body (held-out seed 2094: the user's x * x is
    # the odd polynomial's x²): the caller's, and the body may read it
    given |= {r for w in flow.readers.get(x, ()) if is_float(w) and w.guard is None and not flow.same_call(w, start)
              and flow.reads(w) <= {x} | consts | immediates_at(flow, w)
              for r in flow.writes(w) if len(flow.writers.get(r, ())) == 1}
    # and x's sign bit, which another body of the same x computed before this one (held-out seed 85289: erff's, in
    # both arms of its branch): the same bits either way (the body's own, after its start, is a member: seed 62394)
    before = {id(t) for t in stmts[:i0]}
    given |= {r for w in flow.readers.get(x, ()) if _sign_of(w, x)
              for r in flow.writes(w) if all(_sign_of(v, x) and id(v) in before for v in flow.writers.get(r, ()))}
    taint = set(given)
    members: list[ir.Instruction] = []
    # work on x alone LLVM hoisted above the body's start (seed 35: x·x of the odd polynomial, scheduled
    # into the previous copy; 23814: of tanh(-y), y·y and the polynomial's first steps on it): the body's too,
    # when what it reads is not written between it and the start
    for j in range(i0):
        w = stmts[j]
        if (isinstance(w, ir.Instruction) and w.opcode in _TANHF_OPS and flow.reads(w) & taint and w.guard is None
                and flow.reads(w) <= taint | consts | immediates_at(flow, w) and flow.same_call(w, start)
                and not flow.writes(w) & given
                and all(len(flow.writers.get(r, ())) == 1 for r in flow.writes(w))
                and not any(isinstance(t, ir.Instruction) and flow.reads(w) & flow.writes(t) for t in stmts[j + 1:i0])):
            members.append(w)
            taint |= flow.writes(w)
    consumers: list[ir.Instruction] = []
    last = i0
    small: set[str] = set()  # the predicate |x| ≥ 0.6 of the final select (the body's last instruction)
    done = False
    for j in range(i0, len(stmts)):
        s = stmts[j]
        if not isinstance(s, ir.Instruction):
            continue
        rd = flow.reads(s)
        # only tanhf's own opcodes, up to its final select: a user's .to(f16) or + 1.0 right after the call
        # carries the call's .loc too (Triton's location of an expression is where it starts)
        # (its tail may carry a merged location, held-out seed 718; the caller's shared work is not the body's)
        if (not done and rd & taint and flow.same_call(s, start, merged=s is not start)
                and rd <= taint | consts | immediates_at(flow, s) and not flow.writes(s) & given
                and s.guard is None and s.opcode in _TANHF_OPS):
            if x in flow.writes(s):
                return None
            members.append(s)
            taint |= flow.writes(s)
            last = j
            if s.opcode == "setp" and _TANHF_SMALL in s.operands:
                small |= flow.writes(s)
            done = s.opcode == "selp" and bool(rd & small)
        elif rd & taint:
            consumers.append(s)
    if not done:
        return None
    if not _runs_whole(stmts, i0, last, {id(s) for s in members}):
        return None
    if not any(_TANHF_CUTOFF in s.operands for s in members):
        return None
    outs = {r for s in consumers for r in flow.reads(s) & taint} - given
    # |x| (the body's first instruction) read by other code too (held-out seed 2405: a sinf body's range test on
    # the same x): a value of the input alone, the other code's as well — sanitized as such, not the result
    shared = {r for r in outs if x in flow.sources(r)}
    # x's sign and x·x, computed from x alone and read by other code too (held-out seed 72029: erf(x) beside tanh(x),
    # whose copysign and small-argument x² LLVM's CSE shares; tanh(x) * (x * x)): x·x sanitized as the ring op the
    # user's is, the sign native (_without_leaks drops this body where code outside every body reads it); the
    # bodies reading either run natively, their results replaced
    alone = outs & {r for s in members if flow.reads(s) <= {x} | consts | immediates_at(flow, s)
                    for r in flow.writes(s)}
    shared |= {r for r in alone if all(is_float(w) for w in flow.writers.get(r, ()))}
    outs -= shared | alone
    if len(outs) != 1:
        return None
    members = [s for s in members if not flow.writes(s) & shared]
    if any(x in flow.writes(s) for s in stmts[i0:last + 1] if isinstance(s, ir.Instruction)):
        return None
    anchor = next((s for s in stmts[last + 1:] if isinstance(s, ir.Instruction)
                   or (isinstance(s, ir.Label) and s.name in flow.targets)), None)  # a debug label is no join
    if not isinstance(anchor, ir.Instruction):
        return None
    return LibRange("tanhf", "call", line(start), line(members[-1]) + 1, x, outs.pop(), anchor, (x,), "f32",
                    one_call=True, lines=frozenset(line(s) for s in members))


def _sign_of(s: ir.Instruction, x: str) -> bool:
    """``and.b32 d, x, 0x80000000``: x's sign bit."""
    return (s.opcode == "and" and s.guard is None and len(s.operands) == 3 and s.operands[1] == ir.Reg(x)
            and isinstance(s.operands[2], ir.Imm) and s.operands[2].value & 0xFFFFFFFF == 0x80000000)


def _runs_whole(stmts: list[ir.Statement], i0: int, last: int, members: set[int]) -> bool:
    """Every member of ``stmts[i0:last + 1]`` runs on every path from the first to the last: branch-free, or
    with other bodies' branches in between that every path comes back from (held-out seed 3065: four logf
    copies and their inf fix-ups between a tanhf's |x| and its tail; 718: a powf body and its out-of-line
    blocks before tanhf's final select, sunk past the powf's exit)."""
    within = stmts[i0:last + 1]
    if not any(isinstance(s, ir.Label) or (isinstance(s, ir.Instruction) and s.opcode in _JUMPS) for s in within):
        return True
    if any(isinstance(s, ir.Instruction) and s.opcode == "brx" for s in stmts):
        return False  # (an indirect branch's targets are a table's: not followed)
    g0 = cfg(stmts)
    for j, s in enumerate(within, i0):
        if id(s) in members and i0 < j < last:
            g = nx.restricted_view(g0, [j], [])
            if nx.has_path(g, i0, last):
                return False
    return nx.has_path(g0, i0, last)


_JUMPS = ("bra", "brx", "ret", "exit")


# ------------------------------------------------------------------------------ f64 sin, cos, erf

_TWO_OVER_PI_64 = 0x3FE45F306DC9C883  # __nv_sin/__nv_cos: x·2/π (quadrant)
_SIGN64 = 1 << 63
_ERF_LEAD = {0x3D47088FDB46FA5F, 0xBCF0679AFBA6F279}  # __nv_erf: the polynomial's leading coefficients on |x|
_MINUS_ONE_64 = 0xBFF0000000000000
_SIGN32 = ir.Imm(-2147483648)


def match_unmarked_f64(flow: Flow, stmts: list[ir.Statement], consts: set[str]) -> list[LibRange]:
    """``__nv_sin``/``__nv_cos``/``__nv_erf`` (f64) inlined with only nested ``.i`` markers (issue 10 C/A0).
    Each is found by its key instruction — ``mul.f64 t, x, 2/π`` (sin, cos) or ``abs.f64 a, x`` feeding the
    erf polynomial — and is the code computing from x under the key's ``.loc`` (with ``.loc`` only), from
    x's first such read up to its last instruction: the quadrant select ``selp.f64 r, s, s·(−1) + 0, p``
    (sin; cos when the quadrant is incremented) or the copysign pack ``mov.b64 r, {lo, hi | sign(x)}``
    (erf). Accepted under :func:`_unmarked`'s checks, else left to the report."""
    if not flow.loc:
        return []
    out: list[LibRange] = []
    for s in stmts:
        if not isinstance(s, ir.Instruction) or "f64" not in s.mods or len(s.operands) < 2:
            continue
        x = s.operands[1]
        if not isinstance(x, ir.Reg):
            continue
        if s.opcode == "mul" and _TWO_OVER_PI_64 in flow.float_imms(s):
            got = _unmarked(flow, stmts, s, x.name, consts, _trig_end)
        elif s.opcode == "mul" and _TWO_OVER_PI_64 | _SIGN64 in flow.float_imms(s):
            # sin(−y)/cos(−y): LLVM folded the input's negation into the constant (y·(−2/π)); the body's
            # input is the neg's result, and it reads y only there (seed 514)
            negs = [t for t in stmts if isinstance(t, ir.Instruction) and t.opcode == "neg" and "f64" in t.mods
                    and t.guard is None and flow.reads(t) == {x.name} and len(flow.writes(t)) == 1]
            if len(negs) != 1:
                continue
            got = _unmarked(flow, stmts, s, next(iter(flow.writes(negs[0]))), consts, _trig_end, also={x.name})
        elif s.opcode == "abs" and (lead := next((t for t in stmts if isinstance(t, ir.Instruction)
                                                  and t.opcode == "fma" and flow.reads(t) & flow.writes(s)
                                                  and flow.float_imms(t) & _ERF_LEAD), None)) is not None:
            if flow.same_call(s, lead):
                got = _unmarked(flow, stmts, s, x.name, consts, _erf_end)
            else:
                # |x| computed by other code at its own location (held-out seed 1633: a pow body's of the same x):
                # the body starts at its polynomial's first read of that |x| (_unmarked reads x's words as values)
                got = _unmarked(flow, stmts, lead, x.name, consts, _erf_end, also=flow.writes(s))
        else:
            continue
        if got is not None:
            out.append(got)
    return out


def _trig_end(flow: Flow, s: ir.Instruction, members: list[ir.Instruction]) -> str | None:
    """sin/cos when ``s`` is ``selp.f64 r, a, n, p`` with ``n = fma(a, −1.0, 0.0)`` of the body."""
    if s.opcode != "selp" or "f64" not in s.mods or len(s.operands) != 4:
        return None
    a, n = (o.name if isinstance(o, ir.Reg) else "" for o in s.operands[1:3])
    neg = [t for t in members if n in flow.writes(t) and t.opcode == "fma" and a in flow.reads(t)
           and _MINUS_ONE_64 in flow.float_imms(t)]
    if not neg:
        return None
    return "cos" if any(t.opcode == "add" and ir.Imm(1) in t.operands and "s32" in t.mods for t in members) else "sin"


def _erf_end(flow: Flow, s: ir.Instruction, members: list[ir.Instruction]) -> str | None:
    """erf when ``s`` packs ``{lo, hi}`` with ``hi = r | (hi(x) & 0x80000000)`` (the sign of x)."""
    if s.opcode != "mov" or len(s.operands) != 2 or not isinstance(s.operands[1], ir.Vec):
        return None
    # (the sign of x may be another body's, held-out seed 1003: tanh's and.b32 s, hi(x), 1<<31 read by erf)
    signed = {r for t in members + [w for u in members if u.opcode == "or" for r in flow.reads(u)
                                    for w in flow.writers.get(r, ())]
              if t.opcode == "and" and _SIGN32 in t.operands for r in flow.writes(t)}
    return "erf" if any(t.opcode == "or" and flow.reads(t) & signed and flow.writes(t) & flow.reads(s)
                        for t in members) else None


def _unmarked(flow: Flow, stmts: list[ir.Statement], key: ir.Instruction, x: str, consts: set[str],
              is_end: Callable[[Flow, ir.Instruction, list[ir.Instruction]], str | None],
              also: set[str] | None = None) -> LibRange | None:
    """The body around ``key``: from the first read of x under the key's ``.loc`` after x's last write, the
    instructions reading what it computes (through pure calls' parameters: ``Flow``) under that ``.loc``,
    up to the one ``is_end`` names. Checks: x is not written in it, it reads nothing but x, x's sources
    (``also``: registers x was computed from that the body reads in its place) and constants, and exactly
    its end's result is read by other code."""
    instrs = [s for s in stmts if isinstance(s, ir.Instruction)]
    k = next(i for i, s in enumerate(instrs) if s is key)
    defs = [i for i in range(k) if x in flow.writes(instrs[i])]
    lo = defs[-1] + 1 if defs else 0
    alias = flow.sources(x) | (also or set())
    # x's |x|, -x and words that other code computed (LLVM's CSE with another body of x: held-out seed 3602, the
    # |x| of an exp2 body read by sin's range test) are values of x the body may read
    alias |= {r for u in flow.readers.get(x, ()) if u.guard is None and not flow.same_call(u, key)
              and ((u.opcode in ("abs", "neg") and is_float(u) and len(u.operands) == 2)
                   or (u.opcode == "mov" and isinstance(u.operands[0], ir.Vec)))
              for r in flow.writes(u) if len(flow.writers.get(r, ())) == 1}
    # and integer logic on x's words (its sign: held-out seed 1003, tanh's and.b32 s, hi(x), 1<<31 read by erf), also
    # under the call's location (held-out seed 171938: four erf copies' signs of x, hoisted together into the first)
    for u in instrs[:k]:
        # (every write of the value the same instruction: LLVM duplicates it into both arms of tanh's branch)
        if (u.guard is None and not is_float(u) and flow.reads(u)
                and flow.reads(u) <= alias | consts
                and all((w.opcode, w.mods, w.operands, w.guard) == (u.opcode, u.mods, u.operands, None)
                        for r in flow.writes(u) for w in flow.writers.get(r, ()))):
            alias |= flow.writes(u)
    first = next((i for i in range(lo, k + 1) if ({x} | (also or set())) & flow.reads(instrs[i])
                  and flow.same_call(instrs[i], key)), None)
    if first is None:
        return None
    taint = {x} | alias
    members: list[ir.Instruction] = []
    op = None
    for s in instrs[first:]:
        if not (flow.reads(s) & taint and (flow.same_call(s, key, merged=True)
                                           or _on_own_values(flow, s, taint - {x} - alias, taint | consts))):
            continue
        if x in flow.writes(s):
            return None
        members.append(s)
        taint |= flow.writes(s)
        op = is_end(flow, s, members)
        if op is not None:
            break
    if op is None:
        return None
    end = members[-1]
    members = _without_merged_caller_work(flow, members, key)
    taint = {x} | alias | {r for s in members for r in flow.writes(s)}
    tables = {r for r, ws in flow.writers.items() if all(  # libdevice's coefficient tables (their address)
        w.opcode == "mov" and isinstance(w.operands[-1], ir.Sym) and w.operands[-1].name.startswith("__cudart_")
        for w in ws)}
    allowed = taint | consts | tables | constants_before(flow, members)
    if any(not flow.reads(s) <= allowed for s in members):
        return None
    ids = {id(s) for s in members}
    # other code reading what the body computes; before the body only where a loop may bring values back
    # (LLVM's hoisted 0 of the quadrant is also the masked loads' default: seed 16)
    since = 0 if flow.loop_head is not None and flow.loop_head <= flow.pos[id(members[0])] else first
    outs = {r for s in instrs[since:] if id(s) not in ids for r in flow.reads(s) & taint} - {x} - alias
    # x's words, its tests and its |x| may be read by another body of x where LLVM's CSE shared them (held-out
    # seed 3817: sin(x) and pow(y, x) share x's isinf test and |x|); a reader outside every recognised body makes
    # libdevice._without_leaks drop the body
    plain = {x} | alias
    for s in members:
        if flow.reads(s) - consts <= plain and (s.opcode in ("setp", "testp", "abs", "neg") or not is_float(s)):
            plain |= flow.writes(s)
    outs -= plain - flow.writes(end)
    if outs != flow.writes(end):
        return None
    # the op goes before the next instruction outside a { } block, or before the first that reads the result (held-out
    # seed 3573: erf's result unpacked by ``{ .reg .b32 tmp; mov.b64 {lo, tmp}, r; }``, whose line cannot take lines:
    # rewrite.py puts the op before that block); nothing before it may read the result or be a branch target
    last = next(i for i, s in enumerate(stmts) if s is end)
    anchor: ir.Instruction | None = None
    for t in stmts[last + 1:]:
        if isinstance(t, ir.Label) and t.name in flow.targets:
            break  # a join: other paths would run the op too (a debug label is no join)
        if isinstance(t, ir.Instruction) and (id(t) in flow.top or flow.reads(t) & outs):
            anchor = t  # (rewrite.py moves an anchor on a one-line block's line before the block)
            break
    if anchor is None:
        return None
    return LibRange(op, op, line(members[0]), line(end) + 1, x, outs.pop(), anchor, (x,), "f64", one_call=True,
                    lines=frozenset(line(s) for s in members))


def _on_own_values(flow: Flow, s: ir.Instruction, own: set[str], allowed: set[str]) -> bool:
    """``s`` has no source line (line 0, another call's column: LLVM merged the locations of bodies it
    interleaved, held-out seed 11068: eight f64 cos tails at ``kernel.py:0:95``, a sinf's column) and reads
    only the body's values and constants, at least one the body computed: before the body's end nothing
    else can read those."""
    loc = flow.loc.get(id(s))
    if loc is None or len(loc) < 3 or loc[1] != "0":
        return False
    rd = flow.reads(s)
    return bool(rd & own) and rd <= allowed | immediates_at(flow, s)


def _without_merged_caller_work(flow: Flow, members: list[ir.Instruction],
                                key: ir.Instruction) -> list[ir.Instruction]:
    """Drop members taken only through a merged location (column 0) whose results no other member reads:
    the caller's own work on x that LLVM scheduled into the body under a merged ``.loc`` (held-out seed
    10951: ``x.to(f64) + 1.0`` at ``kernel.py:12:0`` between a cos body's reduction and its polynomial)."""
    end = members[-1]
    kept = list(members)
    readers = Counter(r for s in kept for r in flow.reads(s))
    changed = True
    while changed:
        changed = False
        for s in kept:  # (read by another member: an update in place, ``mul x, x, 2^54``, reads itself — held-out
            # seed 226218, log2's subnormal scaling of the caller's x.to(bf16).to(f64) at 0:49, beside eight sin bodies)
            own = flow.reads(s)
            if s is not end and not flow.same_call(s, key) and not any(
                    readers[r] - (r in own) > 0 for r in flow.writes(s)):
                kept.remove(s)
                readers.subtract(own)
                changed = True
                break
    return kept
