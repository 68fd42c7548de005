"""Dtype expressions of a kernel's source read as the ``tl.T`` they stand for (issue 10; docs/fpsan.md §3 "Source
hints"): ``.to(out_ptr.dtype.element_ty)``, ``.to(x.dtype)``, ``.to(ACC)`` of ``ACC: tl.constexpr = tl.float32``.
Every hint reads a cast's type off ``tl.T``; written through these, user-style kernels that were exact with
``tl.float16`` were silent or reported. A name assigned ``tl.T`` is read from the source; a pointer's element type
(and the dtype of a value loaded from it) from the PTX: the float type the instructions give the registers that a
``tl.load``/``tl.store`` of the pointer at that location reads or writes (PTX ISA §9.7: the typed instructions)."""

from __future__ import annotations

import ast
from collections import defaultdict
from collections.abc import Iterable

from ptxkit import ir
from ptxkit.fpsan.source_ast import _DEPTH, _INT_DTYPES, _PTX_DTYPE, SourceFile, _method_call, _resolve, _to_dtype
from ptxkit.fpsan.source_parse import parse_python
from ptxkit.ptx.types import is_type

_DTYPES = frozenset(_PTX_DTYPE.values()) | _INT_DTYPES
_ELEMENT = {"f16x2": "f16", "bf16x2": "bf16", **{t: t for t in _PTX_DTYPE}}
_BIT_MOVES = ("mov", "selp")
_Loc = tuple[str, int, int]


def with_dtypes(f: SourceFile, key: str, fn: ir.Function, loc: dict[int, _Loc]) -> SourceFile:
    """``f`` (the file ``.file`` index ``key`` names) with the dtype expressions whose type is known replaced by
    ``tl.T`` at the same positions; ``f`` itself where none is."""
    candidates = _candidates(f)
    if not candidates:
        return f
    done = _DONE.get((id(f), id(fn), key))  # (a function's hints are built several times)
    if done is not None and done[0] is f and done[1] is fn:
        return done[2]
    at: dict[tuple[int, int], list[ir.Instruction]] = defaultdict(list)
    for ins in fn.instructions():
        where = loc.get(id(ins))
        if where is not None and where[0] == key:
            at[(where[1], where[2] - 1)].append(ins)
    pointers = _pointer_types(f, at, _RegTypes(fn)) if at else {}
    by_pos = {_position(n): t for n in candidates if (t := _dtype_of(f, n, pointers, 4)) is not None}
    copy = f
    if by_pos:
        cache_key = (id(f), frozenset(by_pos.items()))
        if cache_key not in _COPIES:
            if len(_COPIES) > 64:
                _COPIES.clear()
            tree = _Replace(by_pos).visit(parse_python(f.text))
            _COPIES[cache_key] = (f, SourceFile.of_tree(f.name, f.text, ast.fix_missing_locations(tree)))
        copy = _COPIES[cache_key][1]
    if len(_DONE) > 64:
        _DONE.clear()
    _DONE[(id(f), id(fn), key)] = (f, fn, copy)
    return copy


_Pos = tuple[int, int, int | None, int | None]
# (id of the cached file, its replacements) -> (the file, kept alive so that its id stays its own; the copy)
_COPIES: dict[tuple[int, frozenset[tuple[_Pos, str]]], tuple[SourceFile, SourceFile]] = {}
# (id of the file, id of the function, the .file index) -> (the file, the function, what with_dtypes gave)
_DONE: dict[tuple[int, int, str], tuple[SourceFile, ir.Function, SourceFile]] = {}
_CANDIDATES: dict[int, tuple[SourceFile, list[ast.Attribute | ast.Name]]] = {}


def _position(n: ast.expr) -> _Pos:
    return (n.lineno, n.col_offset, n.end_lineno, n.end_col_offset)


def _candidates(f: SourceFile) -> list[ast.Attribute | ast.Name]:
    """The nodes of ``f`` that may be dtype expressions: ``E.dtype``, ``P.dtype.element_ty`` and reads of names the
    module assigns (``ACC = tl.float32``) or a function assigns an attribute (``dt = x.dtype``)."""
    got = _CANDIDATES.get(id(f))
    if got is not None and got[0] is f:
        return got[1]
    consts = {t.id for s in f.tree.body for t in (s.targets if isinstance(s, ast.Assign) else
                                                   [s.target] if isinstance(s, ast.AnnAssign) else [])
              if isinstance(t, ast.Name)}
    consts |= {t.id for s in ast.walk(f.tree) if isinstance(s, ast.Assign) and isinstance(s.value, ast.Attribute)
               for t in s.targets if isinstance(t, ast.Name)}  # dt = out_ptr.dtype.element_ty in a function
    found: list[ast.Attribute | ast.Name] = [
        n for n in ast.walk(f.tree) if isinstance(n, (ast.Attribute, ast.Name)) and isinstance(n.ctx, ast.Load)
        and ((isinstance(n, ast.Attribute) and n.attr in ("dtype", "element_ty")
              and not (n.attr == "dtype" and isinstance(f.parent.get(id(n)), ast.Attribute)))
             or (isinstance(n, ast.Name) and n.id in consts))]
    if len(_CANDIDATES) > 64:
        _CANDIDATES.clear()
    _CANDIDATES[id(f)] = (f, found)
    return found


def _is_tl(n: ast.expr) -> bool:
    return isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == "tl"


def _dtype_of(f: SourceFile, n: ast.expr | None, pointers: dict[tuple[int, str], str], depth: int) -> str | None:
    """The dtype ``n`` denotes: ``tl.T``; a name assigned one (module constant or the function's); ``P.dtype.
    element_ty`` of a pointer the PTX types; ``E.dtype`` of a cast, a ``dtype=`` constructor or a load of one."""
    if n is None or depth <= 0:
        return None
    if isinstance(n, ast.Attribute) and _is_tl(n):
        return n.attr if n.attr in _DTYPES else None
    if isinstance(n, ast.Name):
        v = _resolve(f, n, _DEPTH)
        if v is not None and v is not n and not isinstance(v, ast.Name):
            return _dtype_of(f, v, pointers, depth - 1)
        return _module_constant(f, n.id, pointers, depth) if f.function_of(n) is None or v is None else None
    if isinstance(n, ast.Attribute) and n.attr == "element_ty" and isinstance(n.value, ast.Attribute) \
            and n.value.attr == "dtype" and isinstance(n.value.value, ast.Name):
        fn = f.function_of(n)
        return pointers.get((id(fn), n.value.value.id)) if fn is not None else None
    if isinstance(n, ast.Attribute) and n.attr == "dtype":
        return _value_dtype(f, n.value, pointers, depth - 1)
    return None


def _value_dtype(f: SourceFile, e: ast.expr, pointers: dict[tuple[int, str], str], depth: int) -> str | None:
    """The dtype of the value ``e``: its cast's, its constructor's ``dtype=``, or its load's pointer's."""
    v = _resolve(f, e, _DEPTH)
    if v is None or depth <= 0:
        return None
    cast = _to_dtype(v)
    if cast is not None:
        return cast if cast in _DTYPES else None
    if isinstance(v, ast.Call) and isinstance(v.func, ast.Attribute) and v.func.attr in ("zeros", "full"):
        return next((_dtype_of(f, k.value, pointers, depth - 1) for k in v.keywords if k.arg == "dtype"), None)
    if _method_call(v, "load", 1):
        fn = f.function_of(v)
        p = _base_pointer(f, v.args[0])
        return pointers.get((id(fn), p)) if fn is not None and p is not None else None
    return None


def _module_constant(f: SourceFile, name: str, pointers: dict[tuple[int, str], str], depth: int) -> str | None:
    """The dtype of a module-level ``NAME = tl.T`` (or ``NAME: tl.constexpr = tl.T``) assigned once."""
    found = [s.value for s in f.tree.body
             if (isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Name)
                 and s.targets[0].id == name)
             or (isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name) and s.target.id == name)]
    if len(found) != 1 or found[0] is None:
        return None
    v = found[0]
    if isinstance(v, ast.Call) and isinstance(v.func, ast.Attribute) and v.func.attr == "constexpr" and v.args:
        v = v.args[0]  # tl.constexpr(tl.float32)
    return _dtype_of(f, v, pointers, depth - 1)


def _base_pointer(f: SourceFile, e: ast.expr) -> str | None:
    """The parameter ``P`` an address ``P + offs`` (either side, nested sums, through names) is based on."""
    fn = f.function_of(e)
    params = {a.arg for a in fn.args.args} if fn is not None else set()
    todo, seen = [e], 0
    found: set[str] = set()
    while todo and seen < 32:
        n, seen = todo.pop(), seen + 1
        if isinstance(n, ast.Name) and n.id in params:
            found.add(n.id)
        elif isinstance(n, ast.Name):
            v = _resolve(f, n, _DEPTH)
            todo += [v] if v is not None and v is not n else []
        elif isinstance(n, ast.BinOp) and isinstance(n.op, ast.Add):
            todo += [n.left, n.right]
    return found.pop() if len(found) == 1 else None


def _pointer_types(f: SourceFile, at: dict[tuple[int, int], list[ir.Instruction]],
                   regs: _RegTypes) -> dict[tuple[int, str], str]:
    """(id of the kernel function, pointer parameter) -> the one float dtype the PTX gives the registers its
    ``tl.load``/``tl.store`` calls read or write (several, or none: absent)."""
    seen: dict[tuple[int, str], set[str]] = defaultdict(set)
    for (line, col), instrs in at.items():
        for node in f.at.get((line, col), []):
            load, store = _method_call(node, "load", 1), _method_call(node, "store", 2)
            fn = f.function_of(node)
            if not (load or store) or fn is None:
                continue
            assert isinstance(node, ast.Call)
            p = _base_pointer(f, node.args[0])
            if p is None:
                continue
            for ins in instrs:
                if (load and ins.opcode == "ld") or (store and ins.opcode == "st"):
                    data = ins.operands[0] if load else ins.operands[-1]
                    seen[(id(fn), p)] |= regs.of(_regs(data))
    return {k: _PTX_DTYPE[next(iter(v))] for k, v in seen.items() if len(v) == 1}


def _regs(o: ir.Operand) -> list[str]:
    if isinstance(o, ir.Reg):
        return [o.name]
    if isinstance(o, ir.Vec):
        return [i.name for i in o.items if isinstance(i, ir.Reg)]
    return []


class _RegTypes:
    """The float element types the typed instructions give each register, joined over bit moves (``mov``,
    ``selp`` without a float type; packing ``mov.b32 r, {h0, h1}``)."""

    def __init__(self, fn: ir.Function) -> None:
        self.types: dict[str, set[str]] = defaultdict(set)
        self.links: dict[str, set[str]] = defaultdict(set)
        for ins in fn.instructions():
            kinds = [m for m in ins.mods if is_type(m) or m in _ELEMENT]
            if any(m not in _ELEMENT and not m[1:].isdigit() for m in kinds):
                continue  # fp8/tf32/e5m2x2 and other types: their registers are not one of these floats
            floats = [_ELEMENT[m] for m in kinds if m in _ELEMENT]
            regs = [_regs(o) for o in ins.operands]
            if ins.opcode == "cvt" and floats and len(kinds) == 2 and len(regs) == 2:
                for rs, m in zip(regs, kinds, strict=True):  # cvt.DT.ST d, a (an integer on either side)
                    for r in rs if m in _ELEMENT else ():
                        self.types[r].add(_ELEMENT[m])
            elif ins.opcode in ("ld", "st") and floats and regs:
                for r in regs[0] if ins.opcode == "ld" else regs[-1]:
                    self.types[r].add(floats[0])
            elif ins.opcode in _BIT_MOVES and not floats:
                self._link(r for rs in regs[:3] for r in rs)
            elif ins.opcode in ("cvt", "ld", "st", "mma", "wgmma", "cvta", "shfl", "setp") or not floats:
                pass
            else:
                for rs in regs[:-1] if ins.opcode == "selp" else regs:
                    for r in rs:
                        self.types[r].add(floats[0])
            if ins.opcode == "setp" and floats:
                for rs in regs[1:]:
                    for r in rs:
                        self.types[r].add(floats[0])

    def _link(self, names: Iterable[str]) -> None:
        names = list(names)
        for a in names:
            self.links[a].update(b for b in names if b != a)

    def of(self, names: list[str]) -> set[str]:
        """The float element types of the registers ``names`` and every register a bit move joins to them."""
        todo, seen, out = list(names), set(names), set()
        while todo:
            r = todo.pop()
            out |= self.types.get(r, set())
            for nxt in self.links.get(r, ()):
                if nxt not in seen:
                    seen.add(nxt)
                    todo.append(nxt)
        return out


class _Replace(ast.NodeTransformer):
    """Replace the dtype expression at each position of :func:`with_dtypes`'s map by ``tl.T``."""

    def __init__(self, by_pos: dict[tuple[int, int, int | None, int | None], str]) -> None:
        self.by_pos = by_pos

    def _swap(self, n: ast.Attribute | ast.Name) -> ast.expr:
        t = self.by_pos.get((n.lineno, n.col_offset, n.end_lineno, n.end_col_offset))
        if t is None:
            self.generic_visit(n)  # (in place: its children may be dtype expressions too)
            return n
        return ast.copy_location(ast.Attribute(value=ast.copy_location(ast.Name("tl", ast.Load()), n), attr=t,
                                               ctx=ast.Load()), n)

    def visit_Attribute(self, n: ast.Attribute) -> ast.expr:
        return self._swap(n)

    def visit_Name(self, n: ast.Name) -> ast.expr:
        return self._swap(n)
