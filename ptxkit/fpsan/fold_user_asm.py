"""The user's ``tl.inline_asm_elementwise`` (user-style probes: every float one was silent, 200/200). Triton's FPSan
treats it as an opaque pure call: each float result is ``Σ rotl(E(arg_i), i) XOR FNV-1a-64(asm string)`` (low w bits;
docs/fpsan.md §2 "other pure math calls / inline asm", read off its FPSan PTX of ``mul.f32 $0, $1, $2;``: E(x) +
rotl(E(z), 1), XOR 0x5ae079c6; result k of several XOR k more), integer arguments as they are; the asm itself is
gone. LLVM inlines the asm text
into the PTX, so its instructions look like the user's own arithmetic: only the source at their ``.loc`` tells them
apart. Each copy of the template (``$N`` bound to the copy's operands) is replaced by the hash of its inputs, written
to every output; what the source does not pin down (a 16-bit argument's f16/bf16, packed elements, a non-literal asm
string, mixed widths) is the asm as written, reported as an error — never a silent ring op of the user's text."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from dataclasses import dataclass

from ptxkit import ir
from ptxkit.errors import PtxkitError
from ptxkit.fpsan.ctx import BITS_KIND, RewriteContext
from ptxkit.fpsan.fold_flow import Flow, FoldResult
from ptxkit.fpsan.libdevice_emit import emit_call
from ptxkit.fpsan.report import ERROR, NOTE, Verdict
from ptxkit.fpsan.source_ast import PTX_OF_DTYPE, SourceFile, _find
from ptxkit.fpsan.source_locations import _FILE
from ptxkit.fpsan.source_types import int_valued
from ptxkit.ptx.parser import parse
from ptxkit.ptx.types import FLOAT_TYPES

_WIDTH = {"f16": 16, "bf16": 16, "f32": 32, "f64": 64}
_LETTER = {"h": 16, "r": 32, "f": 32, "l": 64, "d": 64}  # NVPTX inline asm constraint letters
_PARAMS = ("asm", "constraints", "args", "dtype", "is_pure", "pack")
_INT_DTYPES = frozenset(f"{s}int{w}" for s in ("", "u") for w in (1, 8, 16, 32, 64))
_SLOT = re.compile(r"\$(\d+)")
_PLACEHOLDER = "%fpsasm"


_Spec = tuple[list[ir.Instruction], str, int, list[ast.expr], str, int, str | None]


@dataclass(frozen=True)
class AsmCopy:
    """One copy of the asm in the PTX, seen from one of its instructions (``first``: the one that gets the hash)."""

    first: bool
    where: str
    outputs: tuple[ir.Operand, ...] = ()
    inputs: tuple[tuple[ir.Operand, str | None], ...] = ()  # (operand, float type; None: an integer, as it is)
    ftype: str = ""
    symbol: str = ""
    reason: str | None = None  # why the copy is left as written
    packed: int = 1  # elements per register (pack=2 of halves: two lanes, each hashed)
    left: bool = False  # one Triton's FPSan leaves as written (``reason`` says why): native, a note


def user_asm(instr: ir.Instruction, ctx: RewriteContext, flow: Flow) -> FoldResult | None:
    """The hash of the copy ``instr`` starts (its later instructions: nothing), or the copy as written and an error;
    None where ``instr`` is no part of the user's inline asm."""
    copy = _copies(flow).get(id(instr))
    if copy is None:
        return None
    if copy.left:
        return FoldResult(False, Verdict(f"the user's inline asm at {copy.where}: {copy.reason}, and Triton's FPSan "
                                         "leaves such an asm as written; left native", NOTE, native=True)
                          if copy.first else None)
    if copy.reason is not None:
        return FoldResult(False, Verdict(f"instruction of the user's inline asm at {copy.where}, which Triton's FPSan "
                                         f"hashes as an opaque call: {copy.reason}; left as written", ERROR)
                          if copy.first else None)
    if not copy.first:
        return FoldResult(True, None)
    w = _WIDTH[copy.ftype]
    if copy.packed == 2:  # (each lane its own call: Triton's FPSan hashes the elements)
        lanes = []
        for lane in (0, 1):
            ps = [ctx.embed(o, t, lane=lane, packed=f"{t}x2") for o, t in copy.inputs if t is not None]
            lanes.append(_results(ctx, emit_call(ctx, ps, copy.symbol, w), len(copy.outputs), w))
        for k, out in enumerate(copy.outputs):
            ctx.invalidate(out.name)  # type: ignore[union-attr]
            ctx.emit(f"mov.b32 {ctx.text(out)}, {{{ctx.unembed_to_fresh(lanes[0][k], copy.ftype)}, "
                     f"{ctx.unembed_to_fresh(lanes[1][k], copy.ftype)}}}")
    else:
        ps = [ctx.embed(o, t) if t is not None else ctx.text(o) for o, t in copy.inputs]
        for out, hk in zip(copy.outputs, _results(ctx, emit_call(ctx, ps, copy.symbol, w), len(copy.outputs), w)):
            ctx.define(out, hk, copy.ftype, None)
    return FoldResult(True, Verdict(f"the user's inline asm at {copy.where}: Triton's FPSan hashes it as an opaque "
                                    "pure call, Σ rotl(E(arg_i), i) XOR FNV-1a-64 of the asm string, into every "
                                    "result (XOR its index); the asm's own instructions dropped", NOTE, native=False))


def _results(ctx: RewriteContext, h: str, n: int, w: int) -> list[str]:
    """The payloads of the ``n`` results: the hash XOR k for result k (read off Triton's FPSan PTX of 2 and 3)."""
    out = [h]
    for k in range(1, n):
        out.append(ctx.fresh(BITS_KIND[w]))
        ctx.emit(f"xor.b{w} {out[-1]}, {h}, {k}")
    return out


def _copies(flow: Flow) -> dict[int, AsmCopy]:
    """Every instruction of the user's inline asm in ``flow``'s function → its copy (computed once per flow). A copy is
    a run of instructions at the call's location that is the template with its slots filled (other work there, the
    ``* 2.0`` of ``asm(..) * 2.0``, is not); where the template cannot be read, every float instruction there is
    reported."""
    if flow.user_asm is not None:
        return flow.user_asm
    out: dict[int, AsmCopy] = {}
    specs: dict[int, _Spec | str | None] = {}  # (each call's template parsed once)
    order, i = flow.order, 0
    while i < len(order):
        found = _asm_call(flow, order[i])
        spec = (specs[id(found[1])] if id(found[1]) in specs else specs.setdefault(id(found[1]), _spec(*found))) \
            if found is not None else None
        if found is None or spec is None:
            i += 1
            continue
        f, call = found
        if isinstance(spec, str):
            if any(m in FLOAT_TYPES for m in order[i].mods):
                out[id(order[i])] = AsmCopy(True, f.where(call), reason=spec)
            i += 1
            continue
        template, symbol, nout, args, ftype, packed, leave = spec
        run = order[i:i + len(template)]
        binding = _bind(template, run) if len(run) == len(template) and all(
            flow.hints.same_location(order[i], r) for r in run) else None
        if binding is None:
            i += 1
            continue
        copy = AsmCopy(True, f.where(call), reason=leave, left=True) if leave is not None else \
            _copy(f, call, binding, template, symbol, nout, args, ftype, packed)
        for k, r in enumerate(run):
            out[id(r)] = AsmCopy(k == 0, copy.where, copy.outputs, copy.inputs, copy.ftype, copy.symbol, copy.reason,
                                 copy.packed, copy.left)
        i += len(run)
    flow.user_asm = out
    return out


def _asm_call(flow: Flow, instr: ir.Instruction) -> tuple[SourceFile, ast.Call] | None:
    found = flow.hints.nodes(instr)
    if found is None:
        return None
    f, nodes = found
    calls = [n for n in nodes if isinstance(n, ast.Call) and (
        (isinstance(n.func, ast.Attribute) and n.func.attr == "inline_asm_elementwise")
        or (isinstance(n.func, ast.Name) and n.func.id == "inline_asm_elementwise"))]
    return (f, calls[0]) if len(calls) == 1 else None


def _argument(call: ast.Call, k: int) -> ast.expr | None:
    if k < len(call.args):
        return call.args[k]
    return next((kw.value for kw in call.keywords if kw.arg == _PARAMS[k]), None)


def _spec(f: SourceFile, call: ast.Call) -> _Spec | str | None:
    """(the template's instructions, the asm string, the number of outputs, the arguments, the result type, the elements
    per register, why Triton's FPSan leaves it as written), or why the call is not modelled."""
    asm, cons, args, dtype, pure, pack = (_argument(call, k) for k in range(6))
    names = [d.attr if isinstance(d, ast.Attribute) else None for d in (dtype.elts if isinstance(dtype, ast.Tuple)
                                                                       else [dtype])]
    if not (isinstance(asm, ast.Constant) and isinstance(asm.value, str)):
        return "its asm string is not a literal in the source"
    if not (isinstance(cons, ast.Constant) and isinstance(cons.value, str)):
        return "its constraints are not a literal in the source"
    if not isinstance(args, (ast.List, ast.Tuple)):
        return "its arguments are not a list in the source"
    packed = pack.value if isinstance(pack, ast.Constant) and type(pack.value) is int else 1 if pack is None else 0
    if packed not in (1, 2):
        return "it packs several elements per call in a way not modelled (pack other than 1, or 2 halves)"
    # (what Triton's FPSan leaves as written, read off its build: an asm with side effects, results not all floats)
    leave = "it is not pure" if pure is not None and not (isinstance(pure, ast.Constant) and pure.value is True) \
        else "its results are not all floats" if any(n in _INT_DTYPES for n in names) else None  # (integers too)
    types = {PTX_OF_DTYPE.get(d.attr) if isinstance(d, ast.Attribute) else None
             for d in (dtype.elts if isinstance(dtype, ast.Tuple) else [dtype])}
    ftype = types.pop() if len(types) == 1 else None
    if ftype is None and leave is None:
        return "its results are not of one float type"
    nout = sum(1 for c in cons.value.split(",") if c.strip().startswith("="))
    try:
        m = parse(".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry _t()\n{\n"
                  + _SLOT.sub(lambda g: f"{_PLACEHOLDER}{g.group(1)}", asm.value) + "\n}\n", "asm")
    except PtxkitError:  # (a template ptxkit cannot read is reported, not a crash)
        return "its asm string is not PTX ptxkit reads"
    fn = next(t for t in m.items if isinstance(t, ir.Function))
    template = list(fn.instructions())
    if not template or len(template) != sum(1 for s in fn.statements() if isinstance(s, ir.Instruction)):
        return "its asm string has no instructions"
    if leave is None and packed == 2 and _WIDTH[ftype or ""] != 16:
        return "it packs two elements per call of a type wider than 16 bits"
    return template, asm.value, nout, list(args.elts), ftype or "", packed, leave


def _bind(template: list[ir.Instruction], run: list[ir.Instruction]) -> dict[int, ir.Operand] | None:
    """``$N`` → the operand it stands for in ``run``, where ``run`` is the template with the slots filled."""
    bound: dict[int, ir.Operand] = {}
    for t, a in zip(template, run):
        if (t.opcode, t.mods, t.guard, len(t.operands)) != (a.opcode, a.mods, a.guard, len(a.operands)):
            return None
        for x, y in zip(t.operands, a.operands):
            if isinstance(x, ir.Reg) and x.name.startswith(_PLACEHOLDER):
                slot = int(x.name[len(_PLACEHOLDER):])
                if bound.setdefault(slot, y) != y:
                    return None
            elif x != y:
                return None
    return bound


def _copy(f: SourceFile, call: ast.Call, binding: dict[int, ir.Operand], template: list[ir.Instruction],
          symbol: str, nout: int, args: list[ast.expr], ftype: str, packed: int) -> AsmCopy:
    where, w = f.where(call), _WIDTH[ftype]
    cons = [c.strip() for c in _argument(call, 1).value.split(",")]  # type: ignore[union-attr]
    if len(cons) != nout + len(args) or any(k not in binding for k in range(nout)):
        return AsmCopy(True, where, reason="its constraints or result slots do not match its arguments")
    outputs = tuple(binding[k] for k in range(nout))
    if not all(isinstance(o, (ir.Reg, ir.Sym)) for o in outputs):
        return AsmCopy(True, where, reason="a result slot is not a register")
    inputs: list[tuple[ir.Operand, str | None]] = []
    for k, arg in enumerate(args, start=nout):
        op = binding.get(k)
        letter = cons[k].lstrip("=+&")[-1:]
        if op is None or _LETTER.get(letter) != w * packed:
            return AsmCopy(True, where, reason=f"argument {k - nout} is unused or not {w * packed} bits wide")
        if int_valued(f, arg):
            if packed > 1:
                return AsmCopy(True, where, reason="it packs integer arguments")
            inputs.append((op, None))
            continue
        typed = {m.removesuffix("x2") for t in template for m in t.mods if m in FLOAT_TYPES
                 if any(isinstance(o, ir.Reg) and o.name == f"{_PLACEHOLDER}{k}" for o in t.operands[1:])}
        at = typed.pop() if len(typed) == 1 else {32: "f32", 64: "f64"}.get(w)
        if at is None or _WIDTH.get(at) != w:
            return AsmCopy(True, where, reason=f"argument {k - nout}'s 16-bit float type (f16 or bf16) is not known")
        inputs.append((op, at))
    return AsmCopy(True, where, outputs, tuple(inputs), ftype, symbol, packed=packed)


def names_user_asm(module: ir.Module, root: str | None) -> bool:
    """A Python source the module's ``.file`` lines name calls ``inline_asm_elementwise``: its functions may need the
    hash though none has a float instruction (an asm that only moves bits, ``mov.b16 $0, $1;``)."""
    return any("inline_asm_elementwise" in f.text for f in python_sources(module, root))


def python_sources(module: ir.Module, root: str | None) -> Iterator[SourceFile]:
    """The Python sources the module's ``.file`` lines name that can be read."""
    for item in module.items:
        if isinstance(item, ir.Directive) and item.name == "file":
            m = _FILE.match(item.args)
            f = _find(m.group(2), root) if m and m.group(2).endswith(".py") else None
            if f is not None:
                yield f
