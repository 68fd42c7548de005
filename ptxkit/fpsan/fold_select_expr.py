"""A select of two constants LLVM computed from a ``tl.where`` of two literals and the constant work above it (issue
10; statement seed 4333, silent: ``tl.fma(c, tl.maximum(c, 0.5), tl.where(p, 4.0, 1.0))`` stored as f16 is
``selp.b16 d, 0x4400, 0x3C00, p``). InstCombine pushes operations with constants into both arms of a select of
constants and folds them natively; Triton's FPSan computes them per element in the ring on φ of each literal. The
source expression the select stands for is found among the where's readers (through names read once): the one whose
native value, for each literal, is the select's immediate; its ring value replaces it (docs/fpsan.md §2; PTX ISA
"Comparison and Selection Instructions: selp")."""

from __future__ import annotations

import ast
import itertools
from collections.abc import Iterator, Mapping

from ptxkit import ir
from ptxkit.fpsan import ring as R
from ptxkit.fpsan.ctx import float_to_bits
from ptxkit.fpsan.fold_flow import Flow
from ptxkit.fpsan.fold_select_arith import SelectArith, _bits, _literals, _wheres
from ptxkit.fpsan.ops import float_type_of
from ptxkit.fpsan.source_ast import _DEPTH, OWN, SourceFile, _cast_to, _module_call, _width
from ptxkit.fpsan.source_inline import bindings, reaching_assign
from ptxkit.fpsan.source_numbers import arm_number
from ptxkit.fpsan.source_ring_eval import evaluate

_ARITH = {"fma", "maximum", "minimum"}


def select_expression_constants(instr: ir.Instruction, flow: Flow) -> SelectArith | None:
    """The ring values of the immediates of ``selp.bW d, K1, K2, p`` (or of the one of ``selp d, a, K, p``) at a
    ``tl.where`` of as many numbers, where a reader of the where with arithmetic in it (:func:`_readers`) is,
    natively, K1 and K2 of its literals (in either order: LLVM may invert the predicate); None where no reader, or
    readers of different ring values, fit."""
    ops = instr.operands
    width = next((int(m[1:]) for m in instr.mods if m[1:].isdigit()), 0)
    if instr.opcode != "selp" or len(ops) != 4 or instr.guard is not None or width not in (16, 32, 64):
        return None
    imm = [i for i in (1, 2) if isinstance(ops[i], (ir.Imm, ir.FloatImm))]
    ks = [_bits(ops[i], width) for i in imm]
    found = flow.hints.nodes(instr) if imm and None not in ks else None
    if found is None or (len(imm) == 1 and not isinstance(ops[3 - imm[0]], ir.Reg)):
        return None
    f, nodes = found
    got: set[tuple[tuple[int, ...], str, str]] = set()
    for w in _wheres(nodes, f):
        lits = _literals(f, w, flow, instr)
        if len(lits) != len(imm) or isinstance(f.parent.get(id(w)), ast.Return) \
                or any(isinstance(a, ast.Constant) and type(a.value) is int for a in w.args[1:]):
            continue  # (a helper's where: its readers are the caller's; an int literal's where is an int one)
        for r, wt in itertools.product(_readers(f, w), _where_types(f, w, len(lits), flow)):
            for order in (lits, lits[::-1]):
                got_vals = [evaluate(f, r, w, lit, wt) for lit in order]
                vals = [v for v in got_vals if v is not None and v.t and R.ring(v.t).w == width]
                if len(vals) == len(order) and len({v.t for v in vals}) == 1 \
                        and [float_to_bits(v.native, v.t) for v in vals] == ks:
                    got.add((tuple(v.bits for v in vals), vals[0].t, f.where(w)))
    if len({g[:2] for g in got}) > 1:  # (each type the where may have fits, with its own ring value: reported)
        bits, t, where = min(got)
        return SelectArith(0, bits[0], t, where, undecided=True)
    if not got:
        return None
    bits, t, where = got.pop()
    if len(imm) == 1:
        return SelectArith(imm[0], bits[0], t, where, changed=bits[0] != ks[0])
    return SelectArith(0, bits[0], t, where, bits[1], changed=list(bits) != ks)


def _where_types(f: SourceFile, w: ast.Call, literals: int, flow: Flow) -> tuple[str, ...]:
    """The float types the where may be of: f32 for two numbers, else its other arm's (a loaded name's: the type its
    load's readers read it as), every one where neither the source nor the PTX says: a reader that fits two gives two
    ring values, undecided."""
    if literals == 2:
        return ("f32",)
    other = next((a for a in w.args[1:] if arm_number(f, a, {}) is None), None)
    try:
        width = _width(f, other, _DEPTH) if other is not None else None
    except (KeyError, IndexError, AttributeError, TypeError, ValueError, RecursionError):
        width = None
    if width == OWN and isinstance(other, ast.Name) and (t := _loaded_type(flow, other.id)
                                                         or LoadedTypes(flow).get(other.id)) is not None:
        types: tuple[str, ...] = (t,)  # (a scalar kernel parameter's too: statement seed 6180)
    else:
        types = {64: ("f64",), 32: ("f32",), 16: ("f16", "bf16")}.get(width or 0, ("f16", "bf16", "f32", "f64"))
    lit = next(a for a in w.args[1:] if a is not other)
    # (a name bound to a number is an fp32 scalar, which promotes a half: where(c, h, c0) of c0 = 0.04 is f32)
    scalar = arm_number(f, lit, {}, names=False) is None
    return tuple(dict.fromkeys("f32" if scalar and t in ("f16", "bf16") else t for t in types))


class LoadedTypes(Mapping[str, str]):
    """The float type of each name a ``tl.load`` is assigned to, and of each scalar kernel parameter, read off the PTX
    on first use: the one float type the instructions reading the loaded registers read them as; for a load no float
    instruction reads, the float type of its width where one has it (b64 f64, b32 f32)."""

    def __init__(self, flow: Flow, default: str | None = None) -> None:
        self.flow = flow
        self.default = default  # (the type assumed of a name no load gives: LLVM dropped its loads)
        self.missed: set[str] = set()  # the names asked for that no load gives
        self._types: dict[str, str] | None = None

    def assuming(self, default: str) -> LoadedTypes:
        """These types, and ``default`` for a name no load gives."""
        other = LoadedTypes(self.flow, default)
        other._types = self._all()
        return other

    def _all(self) -> dict[str, str]:
        if self._types is None:
            loads: dict[str, list[ir.Instruction]] = {}
            for ld in self.flow.order:
                if ld.opcode in ("ld", "ldu") and ld.operands:
                    name = self.flow.hints.loaded_name(ld) if "param" not in ld.mods else self._parameter(ld)
                    if name is not None:
                        loads.setdefault(name, []).append(ld)
            self._types = {}
            for name, lds in loads.items():
                w = {int(m[1:]) for ld in lds for m in ld.mods if m[:1] in "bfsu" and m[1:].isdigit()}
                if any("param" in ld.mods for ld in lds):
                    w = set()  # (a parameter no float instruction reads: a pointer, an integer)
                t = self._read_as(lds) or ({64: "f64", 32: "f32"}.get(w.pop()) if len(w) == 1 else None)
                if t is not None:
                    self._types[name] = t
        return self._types

    def _parameter(self, ld: ir.Instruction) -> str | None:
        """The source name of the scalar kernel parameter ``ld.param`` reads (``[k_param_3]``: the fourth parameter
        that is no ``tl.constexpr``, Triton's PTX parameter order), else None."""
        a = ld.operands[1] if len(ld.operands) == 2 else None
        sym = a.base.name if isinstance(a, ir.Addr) and isinstance(a.base, (ir.Sym, ir.Reg)) else ""
        entry, _, index = sym.rpartition("_param_")
        if not entry or not index.isdigit():
            return None
        for f in self.flow.hints.files.values():
            fn = next((d for d in ast.walk(f.tree) if isinstance(d, ast.FunctionDef) and d.name == entry), None) \
                if f is not None else None
            if fn is not None:
                names = [a.arg for a in fn.args.args if not (a.annotation is not None and "constexpr" in ast.unparse(
                    a.annotation))]
                return names[int(index)] if int(index) < len(names) else None
        return None

    def _read_as(self, loads: list[ir.Instruction]) -> str | None:
        """The one scalar float type the instructions reading ``loads``' registers read them as, through moves,
        sign-bit ops and the packing and unpacking of half pairs (``cvt.f32.bf16`` of a lane: bf16)."""
        types: set[str] = set()
        todo: list[tuple[str, int]] = []
        for ld in loads:
            dst = ld.operands[0]
            todo += [(r.name, 4) for r in (dst.items if isinstance(dst, ir.Vec) else [dst]) if isinstance(r, ir.Reg)]
        seen: set[str] = set()
        while todo:
            r, depth = todo.pop()
            if r in seen or depth <= 0:
                continue
            seen.add(r)
            for u in self.flow.uses.get(r, []):
                if (t := float_type_of(u)) is not None:
                    types.add(t.removesuffix("x2"))
                elif u.opcode in ("mov", "and", "xor", "or") and u.operands:
                    dst = u.operands[0]
                    todo += [(d.name, depth - 1) for d in (dst.items if isinstance(dst, ir.Vec) else [dst])
                             if isinstance(d, ir.Reg)]
        return types.pop() if len(types) == 1 else None

    def __getitem__(self, name: str) -> str:
        if name in self._all():
            return self._all()[name]
        self.missed.add(name)
        if self.default is None:
            raise KeyError(name)
        return self.default

    def __iter__(self) -> Iterator[str]:
        return iter(self._all())

    def __len__(self) -> int:
        return len(self._all())


def _loaded_type(flow: Flow, name: str) -> str | None:
    """The one float type the readers of ``name``'s loads read their registers as (a float op's, a conversion's
    source; through sign-bit ``and``/``xor`` and moves), else None (a packed pair's unpacking ``mov``, no float
    reader, two types)."""
    types: set[str] = set()
    todo: list[tuple[ir.Operand, int]] = []
    for ld in flow.order:
        if ld.opcode in ("ld", "ldu") and ld.operands and flow.hints.loaded_name(ld) == name:
            dst = ld.operands[0]
            todo += [(r, 3) for r in (dst.items if isinstance(dst, ir.Vec) else [dst])]
    while todo:
        r, depth = todo.pop()
        for u in flow.uses.get(r.name, []) if isinstance(r, ir.Reg) and depth > 0 else []:
            if u.opcode == "mov" and u.operands and isinstance(u.operands[0], ir.Vec):
                return None  # (two halves of one register)
            if (t := float_type_of(u)) is not None:
                types.add(t)
            elif u.opcode in ("mov", "and", "xor", "or") and u.operands:
                todo.append((u.operands[0], depth - 1))
    return types.pop() if len(types) == 1 else None


def _readers(f: SourceFile, w: ast.expr) -> list[ast.expr]:
    """The expressions that read ``w``'s value in turn (operators, ``fma``/``maximum``/``minimum``/``abs`` and casts;
    through a name assigned it, along each of its reads), from the first with arithmetic in it on."""
    out: list[ast.expr] = []
    todo: list[tuple[ast.expr, bool, int]] = [(w, False, 4 * _DEPTH)]
    while todo and len(out) < 64:
        cur, arith, budget = todo.pop()
        p = f.parent.get(id(cur))
        if budget <= 0:
            continue
        if isinstance(p, ast.Assign) and len(p.targets) == 1 and isinstance(name := p.targets[0], ast.Name):
            todo += [(use, arith, budget - 1) for use in _uses(f, p, name.id)]
            continue
        nxt: ast.expr | None = None
        if isinstance(p, ast.BinOp) or (isinstance(p, ast.UnaryOp) and isinstance(p.op, ast.USub)):
            nxt, arith = p, True
        elif isinstance(p, ast.Call) and any(a is cur for a in p.args) \
                and (fn := _module_call(p, "tl")) in (*_ARITH, "abs"):
            nxt, arith = p, arith or fn in _ARITH
        elif isinstance(p, ast.Attribute) and p.attr == "to" and isinstance(c := f.parent.get(id(p)), ast.Call) \
                and c.func is p and _cast_to(c) is not None:
            nxt = c
        if nxt is None:
            continue
        if arith:
            out.append(nxt)
        todo.append((nxt, arith, budget - 1))
    return out


def _uses(f: SourceFile, a: ast.Assign, name: str) -> list[ast.Name]:
    """The reads of ``name`` that ``a``'s assignment reaches."""
    fn = f.function_of(a)
    if fn is None:
        return []
    stores = bindings(fn).get(name, ([], 0))[1]
    return [n for n in ast.walk(fn) if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load)
            and (stores == 1 or reaching_assign(f, fn, n) is a)]
