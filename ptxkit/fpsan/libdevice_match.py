"""Structural matching of inlined libdevice bodies (issue 10 A/C) and the FPSan op that replaces them.

An inlined body ends at its exit marker (``// %__nv_logf.exit``, ``.exit30`` for later copies). Which FPSan
op Triton 3.9 emits is decided by the math op Triton lowered to the call, not by the body
(docs/fpsan.md §2): ``math.log``/``log2``/``erf``/``rsqrt`` are the tagged ops, ``math.exp``/``exp2`` the
closed forms, ``math.sin``/``cos`` the unit complex power, and any other libdevice call (``libdevice.pow``,
``libdevice.tanh``, …) the opaque "other pure math call" hash of its symbol. ``libdevice.log(x)`` called
directly inlines the same body as ``tl.log(x)``; Triton hashes it, so the recognition assumes the ``tl.*``
form (the note says so).

:func:`match_body` accepts a body only under checks (any failure leaves it to
``libdevice.report_unrecognised``, an error): it has inputs (registers read by its float work, defined
before it, not constants) from which everything it computes follows (float work LLVM scheduled in between
that does not read the body is not part of it and is sanitized as usual); it reads nothing else but
constants; it writes none of its inputs (or updates one in place: a copy is taken); exactly one of its
registers is read after the exit — after absorbing the selects LLVM sinks past the exit
(``setp.eq.f32 p, s, 0; selp.b32 y, -inf, r, p``: ``logf``'s zero case), only when they carry the call's
``.loc`` (a user's ``tl.where(y > 0, y, 0)`` on the result has its own: it is not absorbed).

With ``.loc``, the call's work is what carries the ``.loc`` of the body's last float instruction: only it
reads inputs (other code on the same inputs scheduled into the range, a ``sqrt(x)`` of the next element,
is not the body's, and may read only inputs of it), and it does not compute them. What the body may read
besides its inputs and constants: registers an input is computed from by float ``cvt``/``neg`` alone (LLVM
tests ``x_f64 < -2^-150`` for ``x.to(f32) < 0``), registers holding an immediate at the body (written only
by immediate moves before it and in it, in a function without a loop before it). A comparison of the inputs
alone may be read by other code (LLVM shares ``x < 0`` with the user's ``tl.where``): it is native in
Triton's FPSan as well.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from itertools import combinations_with_replacement, permutations

import networkx as nx

from ptxkit import ir
from ptxkit.fpsan.libdevice_blocks import out_of_line
from ptxkit.fpsan.libdevice_flow import (
    INT_TYPES,
    Flow,
    LibRange,
    cfg,
    chain_types,
    constants_before,
    converted_into,
    data_move,
    forward_taint,
    is_float,
    line,
    self_add,
    sign_op_of,
    signs_of,
    words,
)
from ptxkit.fpsan.libdevice_tail import (
    call_select,
    caller_tests,
    intermediates,
    is_flag,
    on_every_path,
    special_cases,
    sunk_selects,
    tail_select,
    tests_read_beside,
)
from ptxkit.ptx.types import FLOAT_TYPES, type_bits


def _ops() -> dict[str, tuple[str, str, int]]:
    """libdevice name → (FPSan op, float type, arity). ``call`` = the opaque call hash of ``__nv_NAME``."""
    table: dict[str, tuple[str, str, int]] = {}
    for op in ("log", "log2", "erf", "rsqrt", "exp", "exp2", "sin", "cos"):
        table[op + "f"] = (op, "f32", 1)
        table[op] = (op, "f64", 1)
    for fn in ("tanh", "sinh", "cosh", "tan", "asin", "acos", "atan", "asinh", "acosh", "atanh", "expm1", "log1p",
               "log10", "exp10", "cbrt", "erfc", "erfinv", "erfcinv", "lgamma", "tgamma"):
        table[fn + "f"] = ("call", "f32", 1)
        table[fn] = ("call", "f64", 1)
    for fn in ("pow", "atan2", "hypot", "fmod"):
        table[fn + "f"] = ("call", "f32", 2)
        table[fn] = ("call", "f64", 2)
    return table


LIBDEVICE_OPS = _ops()
# instructions LLVM sinks past a body's exit that still compute its result (special-case selects)
_ABSORB = {"selp", "setp", "mov", "and", "or", "not"}
# float steps of a body that LLVM sinks past the exit, by the constants they use (f64 bits): __nv_log2 is
# log(x)·(1/ln2 hi + lo), the ``mul.f64 t, r, lo; fma.rn.f64 y, r, hi, t`` after the exit
_LOG2_LO, _LOG2_HI = 0x3C7777D0FFDA0D24, 0x3FF71547652B82FE  # (exp's x·(1/ln2) shares the hi constant)
# such tails by body: (the mul's constant, the fma's or None); log10 is ln·(1/ln10), f64 split hi + lo, f32 one mul
# (a model kernel's libdevice.log10, silent: the ring op took the ln and the tail was sanitized as the user's mul)
_TAILS = {"log2": (_LOG2_LO, _LOG2_HI), "log10": (0x3C695355BAAAFAD3, 0x3FDBCB7B1526E50E), "log10f": (0x3EDE5BD9, None)}
_HALF_IMM = {"f32": 0x3F000000, "f64": 0x3FE0000000000000}  # 0.5: pow's y * 0.5 of its odd-integer test
_BITS = {"xor", "and", "or", "selp", "mov"}  # (pow's special values are packed as integers)
_TWO = {"f32": ir.FloatImm(0x40000000, 32), "f64": ir.FloatImm(0x4000000000000000, 64)}


def _in_place(flow: Flow, rng: list[ir.Instruction], r: str, i: int) -> bool:
    """``r`` is read at ``i`` before any write of it from ``i`` on, and every such write reads it too
    (an update in place of the body's input, not a new value). The read at ``i`` may be such an update itself
    (held-out seed 11554: log's subnormal scaling ``mul.f64 x, x, 2^54`` is its first read of x, whose words
    tanh's body unpacked)."""
    later = [s for s in rng[i:] if r in flow.writes(s)]
    return all(r in flow.reads(s) for s in later)


def match_body(flow: Flow, stmts: list[ir.Statement], name: str, lo: int, exit_line: int,
               consts: set[str], same_arguments: Callable[[ir.Instruction], bool | None] | None = None,
               shared: Shared | None = None, later: frozenset[int] = frozenset(),
               beside: frozenset[int] = frozenset(), within: frozenset[int] = frozenset(),
               second: frozenset[int] = frozenset()) -> LibRange | None:
    """The body of ``__nv_NAME`` ending at ``exit_line`` (after the previous marker at ``lo``), or None
    when the checks of the module docstring fail for every choice of inputs (or hold for several).

    ``shared``: values an earlier body of the same inputs computed, which this one may read (LLVM's CSE of
    two bodies on one x: log2f reads logf's subnormal scaling of x, held-out seed 3169); ``later``: the
    instructions of a later body, whose reads of this body's values are not uses of a result (the caller
    checks that the later body is recognised with this one's values ``shared``); ``beside``: the instructions of
    the function's recognised bodies, whose reads of this one's tests of its inputs are not uses of a result;
    ``within``: the instructions in their ranges, which are not this body's tail sunk past its exit; ``second``: the
    range of the later body (with ``later``), whose tests at this call's location that it alone reads are its own."""
    op, ftype, arity = LIBDEVICE_OPS[name]
    rng = [s for s in stmts if isinstance(s, ir.Instruction) and lo <= line(s) < exit_line]
    last_write = {r: i for i, s in enumerate(rng) for r in flow.writes(s)}
    cands: list[str] = []
    last = next((s for s in reversed(rng) if is_float(s)), None)
    # the call's location: its last float instruction's, unless that is compiler-made (line 0), which
    # matches every line of its column (seed 769: log2f's inf fix-up at 0:10 and x's load at 10:10)
    last = next((s for s in reversed(rng) if is_float(s) and flow.loc.get(id(s), ("", "0"))[1] != "0"), last)
    # with .loc, only the call's float work reads inputs, and the call's work does not compute them (a slice
    # must carry the call's .loc alone anyway): the bound below then counts real choices
    call = [flow.loc and last is not None and flow.same_call(s, last) for s in rng]
    # (a load or move under the call's location is the layout shuffle feeding it, seeds 1310, 1357: not work; nor
    # the unpacking of an ldmatrix word into a dot input's halves, held-out seed 26920: pow(h.to(i64).to(f32), h))
    made = {r for i, s in enumerate(rng) if call[i] and not data_move(s) for r in flow.writes(s)}
    first: dict[str, int] = {}  # the first read of each register by the call's work (any instruction)
    for i, s in enumerate(rng):
        if call[i] or not flow.loc:
            for r in flow.reads(s):
                first.setdefault(r, i)
    if shared is not None:  # the earlier body's inputs are this one's (it reads their values)
        cands += [r for r in shared.inputs if r not in cands]
    for i, s in enumerate(rng):
        if not is_float(s) or (flow.loc and not call[i]):
            continue
        for r in sorted(flow.reads(s)):
            j = first[r]
            if r in consts or r in cands or (shared is not None and r in shared.values):
                continue  # (a value of the earlier body: its inputs are the candidates)
            if last_write.get(r, -1) >= j and not _in_place(flow, rng, r, j):
                continue  # an input is defined before its first read in the body (or updated in place)
            if r in made and any(call[j] and not data_move(rng[j]) and r in flow.writes(rng[j])
                                 for j in range(i)):
                continue  # (computed by the call's work; a load under its location is the layout's: seed 3530)
            if (ws := flow.writers.get(r)) and all((t := chain_types(w)) and type_bits(t[0]) != type_bits(ftype)
                                                   for w in ws) and not converted_into(flow, rng, r, ftype):
                continue  # a float of another width the body does not read converted (seed 73188: the caller's
                # x.to(f16) sunk into log's range; an argument y = h.to(f32) of a narrower h is its conversion's)
            cands.append(r)
    if arity == 2 and ftype == "f32" and same_arguments is not None:
        # pow(d, -d): the caller's non-.ftz negation of an input, computed inside the body's range (at a merged
        # location, held-out seeds 771, 2313), is a second input; only the source's call can say so
        cands += [r for s in rng if _callers_sign(s, cands) for r in flow.writes(s)
                  if r not in cands]
    # the integer source of a candidate the caller converts inside the range, after the body's first branch (held-out
    # seed 10345: pow(x, -i.to(f32)) tests i == 0 itself; the conversion and the negation are sunk past x == 1)
    # (also the f32 source of the caller's non-.ftz abs sunk there: held-out seed 102973, pow(x * x, abs(h.to(f32))),
    # the abs after y == 0, tested on h)
    cands += [r for s in rng if (t := chain_types(s)) is not None and (t[1] in INT_TYPES or (
              ftype == "f32" == t[1] and s.opcode == "abs" and "ftz" not in s.mods))
              and flow.writes(s) & set(cands) for r in flow.reads(s) if r not in cands]
    cands = list(dict.fromkeys(cands))  # (the comprehensions above may add one source twice: held-out seed 227589's
    # two caller's casts of x, whose duplicate combinations then passed twice and were taken for two matches)
    bound = 64 if arity == 1 else 32
    if len(cands) > bound and last is not None:
        # other work LLVM interleaved under the call's location (seed 1895: a dot's fma chain between log2f
        # copies): only registers the call's last float instruction depends on can be its inputs
        cone = _cone(flow, rng, last)
        cands = [r for r in cands if r in cone]
    if len(cands) > bound:
        return None  # bound the search (each choice is a slice of the range)
    ool = out_of_line(stmts, rng, lo, exit_line)
    if ool is None:
        return None
    chunks, extra = ool
    ids = {id(s) for s in chunks}
    after = [s for s in stmts if (line(s) > exit_line or (line(s) == exit_line and not isinstance(s, ir.Label)))
             and id(s) not in ids]
    combos = [c for c in combinations_with_replacement(cands, arity)  # pow(x, x): both arguments one register
              if shared is None or set(c) >= set(shared.inputs)  # (the inputs of the body whose values it reads, and
              # maybe more: pow(x, x) then pow(y, x))
              or (shared.result in c and set() < set(c) - {shared.result} <= set(shared.inputs))]
    # (or its result beside them: pow(pow(x, y), y) shares y's tests)
    found = [m for combo in combos if (m := _slice(flow, rng, chunks, after, stmts, combo, name, op, ftype,
                                                   exit_line, consts, shared, later, beside, within, second))
             is not None]
    if flow.loc:  # an upstream value passes too when the work before the body is a pure function of it
        found = [m for m in found if m.one_call]  # (a cvt): the body's float work carries the call's .loc alone
    if len(found) > 1:  # x and |x| both pass when the body reads both: the argument is x, when the body computes
        # with x itself, not only tests it (held-out seed 1773: pow(x, x) multiplies by x and reads |x| that cosf
        # computed; pow(|x|, y) may test x == 0). (Not -x: pow(-y, y) and pow(x, x) of x = -y read the same.)
        # (a square is no such use: LLVM computes |x|² as x·x, held-out seed 25782's f64 tanh(abs(x)), silent;
        # then |x| is the argument where the body computes with it and with x only squared)
        valued = {r for s in rng if is_float(s) and s.opcode not in ("setp", "testp", "abs", "neg")
                  and not (s.opcode == "mul" and len(s.operands) == 3 and s.operands[1] == s.operands[2])
                  for r in flow.reads(s)}
        # (not the caller's non-.ftz |x| of pow(x, abs(x)), sunk into the body: the source's call says, below)
        callers_abs = {r for s in rng if s.opcode == "abs" and arity == 2 and _callers_sign(s, cands)
                       for r in flow.writes(s)}
        found = [m for m in found if not any(o.inputs != m.inputs and all(
            a == b or (a in valued and ((sign_op_of(flow, b, "abs") == a and b not in callers_abs)
                                        or (sign_op_of(flow, a, "abs") == b and b not in valued)))
            for a, b in zip(o.inputs, m.inputs)) for o in found)]
    if len(found) > 1:  # x and the caller's -x (before the range) both pass where the call's own work computes with
        # -x and never with x: the argument is -x (held-out seed 8705: pow(-x / (x * x), -x); a product of x by a
        # constant is no such use, LLVM folds the negation into it: powf's y * 0.5 as x * -0.5)
        own = {r for s in rng + chunks if (not flow.loc or (last is not None and flow.same_call(s, last)))
               and is_float(s) and s.opcode not in ("setp", "testp", "abs", "neg")
               and not (s.opcode == "mul" and flow.float_imms(s)) for r in flow.reads(s)}
        found = [m for m in found if not any(o.inputs != m.inputs and all(
            a == b or (a in own and b not in own and sign_op_of(flow, a, "neg") == b)
            for a, b in zip(o.inputs, m.inputs))
            for o in found)]
    if len(found) > 1 and arity == 2 and same_arguments is not None and last is not None:
        # pow(x, x) of x = -y, or pow(-y, y): the body reads y either way; the source's call says which
        same = same_arguments(last)
        found = [m for m in found if same is not None and (m.inputs[0] == m.inputs[1]) == same]
    if len(found) != 1:
        return None
    got = found[0]
    got.extra = extra
    members = [s for s in rng if line(s) in got.lines] + chunks
    # (an input given twice, pow(d, -d), cannot say which argument a chain belongs to: left reported)
    got.sunk = {x: c for x in got.inputs if got.inputs.count(x) == 1 and (c := _sunk_chain(flow, members, x, ftype))}
    for x in got.inputs:  # pow(d, -d): -d computed at the exit from d (the body's own neg may be skipped by
        # its x == 0 / x == 1 branch, held-out seed 2313)
        w = flow.writers.get(x, [])
        if x not in got.sunk and len(w) == 1 and _callers_sign(w[0], list(got.inputs)):
            got.sunk[x] = (w[0],)
    for x in set(got.inputs) - got.sunk.keys() if shared is None else ():  # (else the earlier body's check)
        if any(x in flow.reads(s) and ftype in s.mods and (chain_types(s) or ("", ftype))[1] == ftype
               for s in members):
            continue  # read as the body's type (|x| too): the argument itself
        # an input of another type whose conversion LLVM shared with the caller's code (held-out seed 2432:
        # pow(y, x.to(f32)) + x.to(f32), one cvt at 0:col): the chain among all the range's instructions
        c = _sunk_chain(flow, rng + chunks, x, ftype) if got.inputs.count(x) == 1 else ()
        if not c:
            return None  # no way to the body's type: not an argument the op can read
        got.sunk[x] = c
    if arity > 1:  # argument order: the base of pow is the one whose |x| feeds the log (libdevice's code),
        # else the order of first use by the call's own work (other work on y may be scheduled before it)
        base = [r for r in got.inputs if _log_base(flow, rng, r)]
        if not base and shared is not None and (shared.result in got.inputs or set(got.inputs) != set(shared.inputs)):
            return None  # pow(x, pow(x, y)): the outer's log of x is the inner's (CSE), no order to tell (208251); so
            # for pow(x, z) beside pow(x, y), which share x's log and no more
        uses = [i for i, s in enumerate(rng) if call[i] or not flow.loc]
        first = {r: next((i for i in uses if r in flow.reads(rng[i])), len(rng)) for r in got.inputs}
        order = min(permutations(got.inputs), key=lambda p: (p[0] not in base, [first[r] for r in p]))
        got.inputs, got.input = tuple(order), order[0]
    return got




@dataclass(frozen=True)
class Shared:
    """The values an earlier recognised body computed from ``inputs`` (its native lines), which a later body of
    the same inputs reads where LLVM's CSE merged the two bodies' common steps. ``own_reads``: each argument must
    still be read by the later body's own work (two calls of one function, pow(x, y) and pow(y, x): held-out seed
    27349's pow(x1, x0) and pow(x1, x1) share log2|x1| alone, and the second is no call of x0)."""

    inputs: tuple[str, ...]
    values: frozenset[str]
    own_reads: bool = False
    result: str | None = None  # the earlier body's result, an argument of this one (pow(pow(x, y), y))


def _cone(flow: Flow, rng: list[ir.Instruction], last: ir.Instruction) -> set[str]:
    """The registers ``last`` depends on through the instructions of ``rng``."""
    inside = {id(s) for s in rng}
    cone, todo = set(flow.reads(last)), list(flow.reads(last))
    while todo:
        for w in flow.writers.get(todo.pop(), ()):
            if id(w) in inside:
                for x in flow.reads(w) - cone:
                    cone.add(x)
                    todo.append(x)
    return cone


def _sunk_chain(flow: Flow, members: list[ir.Instruction], x: str, ftype: str) -> tuple[ir.Instruction, ...]:
    """The body's one chain of conversions, negations and abs from the input ``x`` of another float type to
    an ``ftype`` value (the argument the caller computed, sunk into the body); () if there is none."""
    chain: list[ir.Instruction] = []
    cur = x
    while True:
        nxt = [s for s in members if cur in flow.reads(s) and chain_types(s) is not None]
        if len(nxt) != 1 or len(flow.writes(nxt[0])) != 1:
            return ()
        s = nxt[0]
        types = chain_types(s)
        assert types is not None
        if not chain and types[1] == ftype and not (ftype == "f32" and s.opcode in ("neg", "abs")
                                                    and "ftz" not in s.mods):
            # an input of the body's own type: not a conversion the caller made; but a non-.ftz neg/abs of
            # an f32 input is the caller's (libdevice's f32 code is built with flush-to-zero): pow(x, -y)
            return ()
        chain.append(s)
        cur = next(iter(flow.writes(s)))
        if types[0] == ftype:
            # then the caller's own negation or abs of the converted value, when the body sank that too
            # (held-out seed 2128: pow(x, h.to(f32) * -1.0) as cvt.f32.f16 and a non-.ftz neg.f32 after y == 0)
            while ftype == "f32" and len(nxt := [u for u in members if cur in flow.reads(u)
                                                  and chain_types(u) == (ftype, ftype)]) == 1 \
                    and "ftz" not in nxt[0].mods and len(flow.writes(nxt[0])) == 1:
                chain.append(nxt[0])
                cur = next(iter(flow.writes(nxt[0])))
            return tuple(chain)


_LOG_REDUCE = -1060439283  # 0xC0D55555: powf/logf's ``add.s32 t, |x|, -1060439283`` (mantissa in [2/3, 4/3))


def _log_base(flow: Flow, rng: list[ir.Instruction], r: str) -> bool:
    """``abs a, r`` (in the range, or shared with other code before it: held-out seed 3351, tanh's |x| of pow's
    base, which took the exponent for the base), and ``a`` reduced for the logarithm (powf) or passed to a call
    (pow: ``__internal_accurate_pow(|x|, y)``)."""
    absr = {a for s in flow.readers.get(r, ()) if s.opcode == "abs" and s.guard is None
            and s.operands[1:] == (ir.Reg(r),) for a in flow.writes(s)}
    return any(flow.reads(s) & absr and ((s.opcode == "add" and ir.Imm(_LOG_REDUCE) in s.operands)
                                         or (s.opcode == "st" and "param" in s.mods)) for s in rng)


def _local_constants(flow: Flow, body: list[ir.Instruction]) -> set[str]:
    """Registers every write of which in the body moves an immediate: a register LLVM reuses for a
    constant of this body and a value elsewhere (``%r163``: 1.0 in one __nv_powf copy, the result of the
    next)."""
    defs: dict[str, bool] = {}
    for s in body:
        for r in flow.writes(s):
            ok = (s.opcode == "mov" and s.guard is None and len(s.operands) == 2
                  and isinstance(s.operands[1], (ir.Imm, ir.FloatImm)))
            defs[r] = defs.get(r, True) and ok
    return {r for r, ok in defs.items() if ok}


def _slice(flow: Flow, rng: list[ir.Instruction], chunks: list[ir.Instruction], after: list[ir.Statement],
           stmts: list[ir.Statement], inputs: tuple[str, ...], name: str, op: str, ftype: str, exit_line: int,
           consts: set[str], earlier: Shared | None = None, later: frozenset[int] = frozenset(),
           beside: frozenset[int] = frozenset(), within: frozenset[int] = frozenset(),
           second: frozenset[int] = frozenset()) -> LibRange | None:
    last_float = next((s for s in reversed(rng) if is_float(s)), None)
    if last_float is None:
        return None

    copies: set[int] = set()  # the body's copies of the caller's work (below)

    def foreign(s: ir.Instruction) -> bool:  # another call's work on the same inputs (seed 144: sqrt(x) in pow's
        # range, 13:0 vs 13:187); an argument conversion LLVM sank into the body carries column 0 (seed 770)
        if id(s) in copies:
            return True
        if flow.writes(s) & set(inputs) and _callers_sign(s, list(inputs)):
            return True  # the caller's -x of input x is the other input (pow(d, -d))
        if chain_types(s) is not None and flow.writes(s) & set(inputs) and not flow.reads(s) & set(inputs):
            return True  # an input's own conversion sunk into the range, Triton's ring cast (seed 70513, silent)
        if (flow.loc.get(id(s), ("", ""))[1] == "0" and is_float(s)
                and any(r not in given and r not in written and r not in flow.imm for r in flow.reads(s))):
            return True  # compiler-made (line 0) work reading values from before the range that are no input:
            # other code LLVM merged into the call's column (held-out seed 3005: a cumsum's fma.rn.f16 at 0:32
            # reads h, the source of exp2's input h.to(f64), and the previous element's sum)
        return (bool(flow.loc) and id(s) in flow.loc and not flow.same_call(s, last_float)
                and not (id(s) in ool and flow.loc[id(s)][1] == "0")  # out of line, at line 0 (seed 90888: 0:1)
                # or at column 0 of the call's line: LLVM merged the locations of two calls on one line there
                # (pow(pow(x, y), y), whose bodies share y's tests)
                and not (id(s) in ool and flow.same_call(s, last_float, merged=True))
                and not (chain_types(s) is not None and flow.same_call(s, last_float, merged=True)
                         and all(id(u) in inside for r in flow.writes(s) for u in flow.readers.get(r, ()))))

    ool = {id(s) for s in chunks}
    inside = {id(s) for s in rng} | ool  # a conversion read elsewhere is the caller's (708)

    hi = max(flow.pos[id(t)] for t in rng + chunks)  # (from each input's first read in the body: the range may
    # start before its conversion)
    alias = {a for r in inputs for a in flow.sources_within(r, min(
        (flow.pos[id(u)] for u in flow.readers.get(r, ()) if id(u) in inside), default=hi), hi)}  # its source
    alias |= {w for r in inputs for w in words(flow, r)}  # and its words unpacked before it (seed 1239)
    alias |= flow.bit_twins(alias)  # and copies of those bits moved through other words (seed 99907)
    if earlier is not None:
        alias |= earlier.values  # what an earlier body computed from the same inputs
    given = set(inputs) | alias
    written = {r for t in rng + chunks for r in flow.writes(t)}
    if alias & set(inputs) and not all(_callers_chain(flow, r, inputs, foreign) for r in inputs):
        return None  # one input computed from another by the call's work: not two arguments
    # an input's |x| or -x that other code computed (before the range, or in it at its own location) and reads is a
    # value of the input the body may read (held-out seeds 1773, 3218: the |x| of cosf's or tanhf's x, which
    # pow(x, x) reads for its log; a -x read by the body alone is an input's computation, seed 1346)
    p0 = flow.pos[id(rng[0])]

    def others(r: str) -> bool:  # read by code that is not this body's
        return any(id(u) not in inside or foreign(u) for u in flow.readers.get(r, ()))
    given |= {r for r in signs_of(flow, set(inputs), inside) if others(r)
              and (flow.pos[id(w := flow.writers[r][0])] < p0 or (id(w) in inside and foreign(w)))}
    # so is the caller's y * 0.5 of an input y before the range, which is powf's odd-integer test of y (log2(x * 0.5)
    # * pow(x, x); custom kernels after held-out seed 63444, silent: the pow was taken for pow(x, x * 0.5)); other
    # work on the inputs is no such value (pow(-x, x * x): x * x is an argument), but the caller's x + x of an input is,
    # which LLVM shares with pow's x + x of its x == 0 or inf case (held-out seed 81550: the user's 2.0 * x), read as
    # bits there (pow(-d, d + d) computes with it: held-out seed 93001); f64 exp and exp2 select it as their NaN
    # result x + x (held-out seed 100528: the user's x * 2.0 beside exp2(x), computed in pow(x, x)'s range)
    pow_ = name in ("powf", "pow")
    for r in {r for s in rng for r in flow.reads(s)} - given if pow_ or name in ("exp", "exp2") else ():
        ws = flow.writers.get(r, [])
        if (len(ws) == 1 and ws[0].guard is None and flow.pos[id(ws[0])] < p0 and others(r)
                and flow.reads(ws[0]) & set(inputs) and (_HALF_IMM.get(ftype) in flow.float_imms(ws[0])
                                                         if ws[0].opcode == "mul" and pow_ else self_add(ws[0], ftype)
                                                         and all(u.opcode in _BITS for u in flow.readers[r]
                                                                 if id(u) in inside))):
            given.add(r)
    # the factors of an input x = a * b the caller computed, where LLVM contracted the body's first step on x into
    # fma(a, b, c) (held-out seed 3924: exp2(x * x) of f64, whose x - round(x) became fma(h, h, -round(x))); of
    # x = a + a (LLVM's a * 2.0), fma(a, 2.0, c) (held-out seed 86982: exp2(h.to(f64) * 2.0))
    for w in (ws[0] for r in inputs if len(ws := flow.writers.get(r, [])) == 1 and ws[0].guard is None):
        factors = tuple(w.operands[1:3]) if w.opcode == "mul" and is_float(w) and len(w.operands) == 3 else \
            (w.operands[1], _TWO[ftype]) if self_add(w, ftype) and ftype in _TWO else ()
        if factors and any(t.opcode == "fma" and tuple(t.operands[1:3]) in (factors, factors[::-1]) for t in rng):
            given |= {o.name for o in factors if isinstance(o, ir.Reg)}
    # tests of the inputs' bits other code made (before the range, or in it at its own location: integer and
    # predicate logic, comparisons; the same bits in Triton's FPSan), which LLVM's CSE shares with the body
    # (held-out seed 3817: sin(x)'s isinf test of x, pow(y, x)'s too)
    for t in flow.logic():
        if (flow.pos[id(t)] < p0 or (id(t) in inside and foreign(t))) \
                and flow.reads(t) <= given | consts | set(flow.imm):
            given |= flow.writes(t)
    start = next((i for i, s in enumerate(rng) if flow.reads(s) & given and not foreign(s)), None)
    if start is None:
        return None
    body = rng[start:] + chunks
    consts = consts | _local_constants(flow, body) | constants_before(flow, body)
    own = [s for s in body if not foreign(s)]
    computed = {r for s in own if (ftype in s.mods or chain_types(s) is not None) and s.opcode not in ("setp", "testp")
                for r in flow.reads(s)}
    if (earlier is None or earlier.own_reads) and not set(inputs) <= computed:
        return None  # an argument is computed with as the body's type (or converted to it): a source it only tests
        # is not (nor is the |x| of pow(x, x) that another body computed, which the log reads as an integer: 3218)
    # the caller's float work on the inputs alone that LLVM shares with the body is the caller's, and the body may
    # read it (held-out seed 3009: the user's (x*y)*0.5 is powf's y*0.5 of its odd-integer test, y = x*y); read
    # by the body alone it is an input's computation (seed 1346: log2f(-x) reads x and the caller's -x)
    # (also where LLVM copied that work into an arm of the body's branch, under the call's location, and the body
    # reads the copy: f64 exp2's NaN arm x + x is the user's a + a, held-out seed 9188 — the copy is the caller's)
    callers = {r for t in rng if foreign(t) and is_float(t) and flow.reads(t) <= given | consts
               for r in flow.writes(t) if others(r)}
    for r in callers:
        ws = flow.writers.get(r, [])
        if len({(w.opcode, w.mods, w.operands) for w in ws}) == 1 and all(w.guard is None for w in ws):
            copies |= {id(w) for w in ws if not foreign(w)}
            given.add(r)
    if copies:
        own = [s for s in body if not foreign(s)]
    taint = forward_taint(flow, own, set(given))
    members = [s for s in own if flow.reads(s) & taint]
    # float work on the inputs alone that other code reads too is that code's (LLVM's CSE of pow(s, s) * (s + s):
    # one add.f64 s, s is the user's s + s and pow's x + y test): sanitized as such, the body may read it
    # (also an input's unpacking into words, ``mov.b64 {lo, hi}, x``: __nv_exp's |x| test and the next pow's
    # exponent field of the same y, held-out seed 1239)
    # (the register may be a later body's phi too: erf's |x|-or-x² of the |x| pow(x, x) computed, held-out seed 12199)
    common = {r: s for s in members if (is_float(s) or (s.opcode == "mov" and isinstance(s.operands[0], ir.Vec)))
              and s.opcode not in ("setp", "testp")
              and flow.reads(s) <= given | consts for r in flow.writes(s)
              if all(w is s or (id(w) not in inside and flow.pos[id(w)] > flow.pos[id(last_float)])
                     for w in flow.writers.get(r, ()))}
    # and conversions of those (seed 73188: the caller's x.to(f16).to(f64), both sunk into log's range)
    common |= {r: s for s in members if chain_types(s) and flow.reads(s) <= common.keys() for r in flow.writes(s)
               if len(flow.writers.get(r, ())) == 1}
    member_ids = {id(s) for s in members}
    if any(is_float(s) and id(s) not in member_ids for s in chunks):
        return None  # out-of-line blocks are reached from the body only: all of it is the body's
    if id(last_float) not in member_ids:
        return None  # the body's work ends at its exit (not a value computed before it, e.g. the next input)
    if any(not flow.reads(s) <= taint | consts for s in members):
        return None  # the body reads something that is not its input
    inner = taint - given - common.keys()
    if any(flow.reads(s) & inner for s in body if foreign(s)):
        return None  # other code reads the body's intermediate values
    # (the caller's -x of pow(d, -d) is computed again at the exit; any other write of an input inside the range
    # may be skipped by a branch: seed 1677's y = h.to(f32) after the body's x == 1 test)
    # an input the caller computes inside the range by one op of values from before it: LLVM sank that op into one
    # arm of the body's branch (hand kernel acosh(x * 0.25): the other arm reads the product contracted into the body's
    # fma(x, 0.25, -1.0)), so no path but that arm defines it; its ring value is recomputed at the exit
    remat = {r: s for s in body for r in inputs if r in flow.writes(s) and r not in flow.reads(s)
             and not _callers_sign(s, list(inputs))}
    if any(not _recomputable(flow, body[0], r, s, ftype) for r, s in remat.items()):
        return None
    in_place = any(r in flow.writes(s) for s in body for r in inputs
                   if not _callers_sign(s, list(inputs)) and r not in remat)
    if in_place and len(inputs) > 1:
        return None
    # the copy of an input updated in place goes where every path to the exit passes: body[0], or before it where
    # that is an arm of the body's own branch (held-out seed 11554: log's subnormal scaling is its first read of x)
    save = _save_point(flow, stmts, rng, body[0], set(inputs), exit_line) if in_place else None
    if in_place and save is None:
        return None
    absorbed: list[ir.Instruction] = []
    consumers: list[ir.Instruction] = []
    later_reads: set[str] = set()
    scanning, inner = True, intermediates(flow, taint - given, member_ids)
    for s in after:
        if isinstance(s, ir.Instruction) and s.opcode in ("ret", "exit"):
            scanning = False  # labels and branches are crossed: the sunk select reads the body's registers,
            # so (SSA) every path to it runs the body; a second copy's branches come in between
        if not isinstance(s, ir.Instruction):
            continue
        rd = flow.reads(s)
        known = _TAILS.get(name)
        sunk = known is not None and s.guard is None and (
            (s.opcode == "mul" and known[0] in flow.float_imms(s))
            or (s.opcode == "fma" and known[1] in flow.float_imms(s) and len(s.operands) == 4
                and isinstance(s.operands[3], ir.Reg) and any(s.operands[3].name in flow.writes(a) for a in absorbed)))
        unpack = s.opcode == "mov" and isinstance(s.operands[0], ir.Vec)  # the caller's (a 64-bit shuffle: seed 1077)
        # (a test in the later body's range that only its range reads is that body's, CSE'd at this call's location:
        # pow(pow(x, y), y)'s outer odd-integer test of y, on the inner's |y mod 2|; not one its select after its exit
        # reads: log2f's x == 0 test is logf's, held-out seed 3169)
        # (and whose readers compute with values the later body's own work made, at its location; a test that this
        # body's special-case selects read there is its tail, held-out seed 189884's two f64 pows)
        theirs = id(s) in second and s.opcode in ("setp", "testp") and all(
            id(u) in second and any(id(w) in second and not flow.same_call(w, body[0], merged=True)
                                    for v in flow.reads(u) for w in flow.writers.get(v, ()))
            for r in flow.writes(s) for u in flow.readers.get(r, ()))
        if (scanning and rd & taint and (s.opcode in _ABSORB or sunk) and not unpack and not theirs and s.guard is None
                and rd <= taint | consts and id(s) not in within  # (a recognised body's test of the input)
                and (flow.same_call(s, body[0], merged=True) or sunk or tail_select(flow, s, absorbed, inner))):
            # column 0 or another call's location: sunk past other bodies (seeds 1223, 789); log2's tail is known
            # by its constants
            if flow.writes(s) & set(inputs):
                return None
            absorbed.append(s)
            taint |= flow.writes(s)
        elif id(s) not in later:  # (the next body's reads of this one's values: the caller checks them)
            consumers.append(s)
        else:
            later_reads |= flow.reads(s)
    # (the body's values no member reads are its result at the exit: held-out seed 11450, exp(x) >= 1.5 at column 0)
    # (by its last write: pow's result register is rewritten in place by its sign and NaN selects, held-out seed 12443)
    last_w = {r: flow.pos[id(s)] for s in members for r in flow.writes(s)}
    ends = {r for r, p in last_w.items() if not any(r in flow.reads(s) and flow.pos[id(s)] > p for s in members)}
    caller_tests(flow, absorbed, consumers, taint, set(inputs) | alias | consts, ends)
    # a comparison of the inputs alone is native in Triton's FPSan too: LLVM may share it with the user's code
    # (``tl.where(x < 0, ..)`` and powf's x < 0 test: one ``setp.geu.f32 p, x, 0``); so is one of |x|, as Triton's
    # abs is native (held-out seed 28487: pow's |x| != 0.5, which the next pow of the same x reads)
    plain = set(inputs) | alias | consts | {r for r in signs_of(flow, set(inputs)) if flow.writers[r][0].opcode
                                            == "abs"}
    cmps = {r for s in members if s.opcode in ("setp", "testp") and flow.reads(s) <= plain for r in flow.writes(s)}
    # and integer logic on the inputs' bits alone (held-out seed 1003: tanh's sign of x, and.b32 s, hi(x), 1<<31,
    # is erf's copysign of the same x): the same bits in Triton's FPSan (libdevice._without_leaks allows them)
    bits = set(inputs) | alias
    logic: set[int] = set()
    for s in members:
        if not FLOAT_TYPES & set(s.mods) and s.guard is None and flow.reads(s) and flow.reads(s) <= bits | consts:
            bits |= flow.writes(s)
            logic.add(id(s))
    # (a register some other instruction writes too is not such a value: pow's result, packed from integer words on
    # its special-case path and computed in floating point on the main one)
    # (or a copy of the same instruction: LLVM hoists erf's sign of x into an arm of tanh's branch, seed 1003)
    same = {(s.opcode, s.mods, s.operands) for s in members if id(s) in logic}
    bits = {r for r in bits if all(id(w) in logic or (w.guard is None and (w.opcode, w.mods, w.operands) in same)
                                   for w in flow.writers.get(r, ()))}
    if name in _TAILS and any(s.opcode == "mul" and flow.reads(s) & (taint - given)
                              and _TAILS[name][0] in flow.float_imms(s) for s in consumers):
        return None  # the body's sunk tail (log2's ·1/ln2) left outside: its result would be the ln (seed 789)
    outs = {r for s in consumers for r in flow.reads(s) & taint} - given - cmps
    if not outs:  # read by the later body alone: its argument (pow(pow(x, y), y), the inner's result is the outer's x)
        outs = (later_reads & taint & ends) - given - cmps
    shared = {id(common[r]) for r in outs & common.keys()} | {
        id(common[r]) for s in body if foreign(s) for r in flow.reads(s) & common.keys()}
    for _ in range(2):  # and the common values those read (the first conversion of x.to(f16).to(f64))
        shared |= {id(common[r]) for t in common.values() if id(t) in shared for r in flow.reads(t) & common.keys()}
    outs -= common.keys()
    members = [s for s in members if id(s) not in shared]
    member_ids -= shared
    bypass = special_cases(flow, outs, body[0], plain | inner)
    if within:  # beside recognised bodies, the tests sunk right after the exit may sit in the next unmatched body's
        # range, left to the caller: a flag of such a test of the inputs that leads only to special-case selects of
        # the result is the body's all the same (held-out seed 223440: pow(x, -pow(x, x))'s x == 0 || x == 1 select
        # of -1.0 after the user's negation, silent)
        left = {r for s in consumers if s.opcode in ("setp", "testp") and id(s) in within and flow.reads(s) <= plain
                and flow.same_call(s, body[0], merged=True) for r in flow.writes(s)}
        bypass += special_cases(flow, (outs - {r for r in outs if is_flag(flow, r)}) | left, body[0], plain | inner)
    bypassed = {id(sel) for _, (sel, _) in bypass}
    outs -= {p for p, _ in bypass}
    # and one sunk past the exit that only a body's code reads, a branch or a recognised body's instruction (held-out
    # seed 11184: pow(x, y)'s y == 0 test on y's f16 source is an outer pow's x == 0 test of the same value); a select
    # in the user's code is a special case's (seed 11820: pow(x, x) is 1 at x == 0, selected after abs and a cast)
    sunk_cmps = {r for s in absorbed if s.opcode in ("setp", "testp")
                 and flow.reads(s) <= set(inputs) | alias | consts for r in flow.writes(s)
                 if all(u.opcode == "bra" or id(u) in beside for u in flow.readers.get(r, ()))}
    outs -= sunk_cmps
    outs -= {r for r in bits - set(inputs) - alias if not is_flag(flow, r)}  # (a test's flag may be a bypass's)
    if beside:
        outs -= tests_read_beside(flow, stmts, outs, members, absorbed, logic, cmps,
                                  set(inputs) | alias | bits | consts, inside, beside)
    if len(outs) != 1 or any(w.opcode in ("setp", "testp") for r in outs for w in flow.writers.get(r, ())):
        return None  # one result, a value (not a predicate)
    if within and any(id(u) not in bypassed | later | member_ids and call_select(flow, u, body[0], plain)
                      for r in outs for u in flow.readers.get(r, ())):
        return None  # a special-case select of the call left outside (a test in another body's range, seed 5710)
    if not within:
        for sel, v in sunk_selects(flow, next(iter(outs)), body[0], [sel for _, (sel, _) in bypass], plain):
            bypass.append(("", (sel, v)))
            bypassed.add(id(sel))
    anchor: ir.Statement | None
    # (a sunk comparison of the inputs alone that other code reads places no ring op: it runs natively, seed 11184;
    # also where it is no result, a later body's test LLVM rematerialised at this call's location: seed 27324)
    tail = [s for s in absorbed if not flow.writes(s) <= sunk_cmps]
    if tail:
        last = next(i for i, s in enumerate(stmts) if s is tail[-1])
        # (a debug label no branch targets, ``$L__tmp1`` before a reduction's inlined code, is crossed: seed 2018)
        anchor = next((s for s in stmts[last + 1:] if isinstance(s, ir.Instruction)
                       or (isinstance(s, ir.Label) and s.name in flow.targets)), None)
        if not isinstance(anchor, ir.Instruction):
            return None
        between = [s for s in stmts[:last] if isinstance(s, ir.Instruction) and line(s) >= line(body[0])]
        if any(flow.writes(s) & set(inputs) for s in between) and not in_place:
            return None
        if id(anchor) in within or not on_every_path(flow, stmts, exit_line, anchor, outs):
            return None  # the last absorbed step sits in one arm of another body's branch (seed 8085)
    else:
        anchor = next((s for s in stmts if line(s) >= exit_line), None)
        if anchor is None or (isinstance(anchor, ir.Label) and line(anchor) != exit_line):
            return None
    main = [s for s in rng[start:] if is_float(s) and id(s) in member_ids]
    one_call = bool(main) and all(flow.same_call(s, main[-1], merged=chain_types(s) is not None) for s in main)
    return LibRange(name, op, line(body[0]), exit_line, inputs[0], outs.pop(), anchor, tuple(inputs), ftype,
                    save=save, remat=remat, one_call=one_call, bypass=tuple(b for _, b in bypass),
                    absorbed=frozenset(line(s) for s in absorbed),
                    lines=frozenset(line(s) for s in members if not any(s is c for c in chunks)))


def _save_point(flow: Flow, stmts: list[ir.Statement], rng: list[ir.Instruction], first: ir.Instruction,
                inputs: set[str], exit_line: int) -> ir.Instruction | None:
    """The last instruction of the range at or before ``first`` that every path from the range's start to its exit
    runs, with no write of an input between it and ``first``; None: none. ``first`` itself in a function without
    branch targets, or with an indirect branch (whose targets are a table's: not followed)."""
    if not any(isinstance(s, ir.Label) and s.name in flow.targets for s in stmts) \
            or any(isinstance(s, ir.Instruction) and s.opcode == "brx" for s in stmts):
        return first
    pos = {id(s): i for i, s in enumerate(stmts)}
    end = next((i for i, s in enumerate(stmts) if line(s) >= exit_line), None)
    if end is None:
        return None
    g, start = cfg(stmts), pos[id(rng[0])]
    k = next(i for i, t in enumerate(rng) if t is first)
    for t in reversed(rng[:k + 1]):
        if t is not first and flow.writes(t) & inputs:
            return None
        if t is rng[0] or not nx.has_path(nx.restricted_view(g, [pos[id(t)]], []), start, end):
            return t
    return None


# |c| of the constants whose ops LLVM's folds make ambiguous in the ring: 0, 1, 2
_RING_SPECIAL = {32: {0, 0x3F800000, 0x40000000}, 64: {0, 0x3FF0000000000000, 0x4000000000000000}}


def _recomputable(flow: Flow, first: ir.Instruction, r: str, s: ir.Instruction, ftype: str) -> bool:
    """``s``, the one write of input ``r``, is an unguarded ``add``/``sub``/``mul``/``fma`` of the body's type
    (round to nearest, no ``.ftz``: the caller's) of distinct registers defined before the body's ``first``
    instruction only and constants none of ±0, ±1, ±2."""
    if (s.guard is not None or s.opcode not in ("add", "sub", "mul", "fma") or len(flow.writers.get(r, ())) != 1
            or not set(s.mods) <= {"rn", ftype} or ftype not in s.mods):
        return False
    start = flow.pos[id(first)]
    names = [o.name for o in s.operands[1:] if isinstance(o, ir.Reg)]
    if len(set(names)) != len(names) or any(not isinstance(o, (ir.Reg, ir.FloatImm)) for o in s.operands[1:]):
        return False
    if any(flow.pos[id(w)] >= start for n in names for w in flow.writers.get(n, ())):
        return False
    return not any(isinstance(o, ir.FloatImm) and o.bits & ~(1 << (o.width - 1)) in _RING_SPECIAL.get(o.width, ())
                   for o in s.operands[1:])


def _callers_sign(s: ir.Instruction, cands: list[str]) -> bool:
    """``neg.f32 d, x`` or ``abs.f32 d, x`` without ``.ftz`` of a candidate input x (libdevice's f32 code flushes to
    zero): the caller's -x of pow(d, -d), or |x| of pow(d, abs(d)) (held-out seeds 225309, 225919: LLVM sinks the
    abs past powf's x == 1 test)."""
    return (s.opcode in ("neg", "abs") and chain_types(s) == ("f32", "f32") and "ftz" not in s.mods
            and isinstance(s.operands[1], ir.Reg) and s.operands[1].name in cands)


def _callers_chain(flow: Flow, r: str, inputs: tuple[str, ...], foreign: Callable[[ir.Instruction], bool]) -> bool:
    """The conversions and negations that compute input ``r`` from another input (if any) are the caller's
    code (``foreign``: ``pow(-y, y)``, held-out seed 2056, negates y at the negation's own location)."""
    path, cur = [r], r
    while cur in flow.src and (cur := flow.src[cur]) not in path:
        if cur in inputs:
            # column 0: a location LLVM merged, the caller's or the call's (the source's call decides)
            return all(foreign(w := flow.writers[p][0]) or flow.loc.get(id(w), ("", "", ""))[2:] == ("0",)
                       for p in path)
        path.append(cur)
    return True
