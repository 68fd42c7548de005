"""libdevice bodies LLVM inlines without an exit marker (issue 10 A0/C), recognised by their shape:
``__nv_tanhf`` (branch-free, f32)."""

from __future__ import annotations

from ptxkit import ir
from ptxkit.fpsan.libdevice_flow import Flow, LibRange, line

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
        got = _tanhf_body(flow, stmts, pos[id(ab)], x, consts)
        if got is not None:
            out.append(got)
    return out


def _tanhf_body(flow: Flow, stmts: list[ir.Statement], i0: int, x: str, consts: set[str]) -> LibRange | None:
    start = stmts[i0]
    assert isinstance(start, ir.Instruction)
    taint = {x}
    members: list[ir.Instruction] = []
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
        if (not done and rd & taint and flow.same_call(s, start) and rd <= taint | consts and s.guard is None
                and s.opcode in _TANHF_OPS):
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
    if any(isinstance(s, ir.Label) or (isinstance(s, ir.Instruction) and s.opcode in ("bra", "brx"))
           for s in stmts[i0:last + 1]):
        return None
    if not any(_TANHF_CUTOFF in s.operands for s in members):
        return None
    outs = {r for s in consumers for r in flow.reads(s) & taint} - {x}
    if len(outs) != 1:
        return None
    if any(x in flow.writes(s) for s in stmts[i0:last + 1] if isinstance(s, ir.Instruction)):
        return None
    anchor = next((s for s in stmts[last + 1:] if isinstance(s, (ir.Instruction, ir.Label))), None)
    if not isinstance(anchor, ir.Instruction):
        return None
    return LibRange("tanhf", "call", line(start), line(members[-1]) + 1, x, outs.pop(), anchor, (x,), "f32",
                    one_call=True, lines=frozenset(line(s) for s in members))
