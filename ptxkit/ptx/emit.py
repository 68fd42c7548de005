"""The printer: ``emit(module)`` re-emits the source with ``module.edits`` applied — untouched text is
copied verbatim (so an unmodified module round-trips byte for byte), new nodes are printed in the
canonical style of ``format_statement``.

Newline discipline (keeps the file one statement per line and well formed):
* replace: the old node's text (and its indentation) becomes the new nodes, one per line; deleting
  a node that was alone on its line removes the whole line;
* insert before a node that starts its line: new lines go above that line;
* insert after a node that ends its line (trailing whitespace/comment allowed): new lines go below;
* otherwise (several statements on one line): the new nodes are inserted inline, space separated.
"""

from __future__ import annotations

from collections.abc import Iterator

from ptxkit import ir
from ptxkit.ptx.build import format_float

INDENT = "\t"


# --------------------------------------------------------------------------- operands

def format_operand(o: ir.Operand) -> str:
    t = type(o)
    if t is ir.Reg or t is ir.Sym:
        return o.name  # type: ignore[union-attr]
    if t is ir.Imm:
        return str(o.value)  # type: ignore[union-attr]
    if t is ir.FloatImm:
        return format_float(o)  # type: ignore[arg-type]
    if t is ir.Addr:
        base, off = o.base, o.offset  # type: ignore[union-attr]
        if base is None:
            return f"[{off}]"
        if off == 0:
            return f"[{base.name}]"
        return f"[{base.name}+{off}]"  # nvcc spells negative offsets [%rd1+-4]
    if t is ir.Vec:
        return "{" + ", ".join(format_operand(i) for i in o.items) + "}"  # type: ignore[union-attr]
    if t is ir.AddrList:
        return "[" + ", ".join(format_operand(i) for i in o.items) + "]"  # type: ignore[union-attr]
    if t is ir.ParamList:
        return "(" + ", ".join(format_operand(i) for i in o.items) + ")"  # type: ignore[union-attr]
    if t is ir.Sink:
        return "_"
    if t is ir.Pipe:
        return f"{format_operand(o.a)}|{format_operand(o.b)}"  # type: ignore[union-attr]
    if t is ir.Not:
        return "!" + format_operand(o.operand)  # type: ignore[union-attr]
    if t is ir.Expr:
        return o.text  # type: ignore[union-attr]
    raise TypeError(f"not an operand: {o!r}")


def _format_init(v: ir.Init) -> str:
    if isinstance(v, list):
        return "{" + ", ".join(_format_init(i) for i in v) + "}"
    return format_operand(v)


# --------------------------------------------------------------------------- statements

def format_instruction(s: ir.Instruction) -> str:
    head = ""
    if s.guard is not None:
        head = f"@{'!' if s.guard.negated else ''}{s.guard.pred} "
    name = ".".join((s.opcode, *s.mods))
    if not s.operands:
        return f"{head}{name};"
    return f"{head}{name} \t" + ", ".join(format_operand(o) for o in s.operands) + ";"


def format_vardecl(d: ir.VarDecl, semicolon: bool = True) -> str:
    parts = [f".{x}" for x in d.linkage] + [f".{d.space}"]
    if d.align is not None:
        parts.append(f".align {d.align}")
    if d.vector is not None:
        parts.append(f".v{d.vector}")
    parts.append(f".{d.type}")
    parts += [f".{a}" for a in d.attrs]
    text = " ".join(parts) + " " + d.name + "".join(f"[{'' if n is None else n}]" for n in d.dims)
    if d.init is not None:
        text += " = " + _format_init(d.init)
    return text + (";" if semicolon else "")


def format_regdecl(d: ir.RegDecl) -> str:
    parts = [".reg"]
    if d.align is not None:
        parts.append(f".align {d.align}")
    if d.vector is not None:
        parts.append(f".v{d.vector}")
    parts.append(f".{d.type}")
    names = ", ".join(n if c is None else f"{n}<{c}>" for n, c in d.names)
    return " ".join(parts) + " \t" + names + ";"


def format_directive(d: ir.Directive) -> str:
    if d.label is not None:  # .callprototype, .branchtargets, .calltargets
        return f"{d.label}: .{d.name} {d.args};"
    if d.name == "section":
        return f".section {d.args}"
    text = f".{d.name}" + (f" {d.args}" if d.args else "")
    return text + (";" if d.name in ("pragma", "alias") else "")


def format_function(f: ir.Function) -> str:
    head = " ".join([f".{x}" for x in f.linkage] + [f".{f.kind}"])
    if f.ret_params:
        head += " (" + ", ".join(format_vardecl(p, False) for p in f.ret_params) + ")"
    head += f" {f.name}"
    if f.params:
        head += "(\n" + ",\n".join(INDENT + format_vardecl(p, False) for p in f.params) + "\n)"
    else:
        head += "()"
    lines = [head] + [format_directive(d) for d in f.directives]
    if f.body is None:
        lines[-1] += ";"
        return "\n".join(lines)
    lines.append("{")
    lines += [format_statement(s) for s in f.body]
    lines.append("}")
    return "\n".join(lines)


def format_statement(s: ir.Statement | ir.TopLevel | str) -> str:
    """One node in the canonical style (statements indented by one tab; labels, functions and
    module-level nodes at column 1). A raw string is returned unchanged."""
    if isinstance(s, str):
        return s
    if isinstance(s, ir.Instruction):
        return INDENT + format_instruction(s)
    if isinstance(s, ir.Label):
        return f"{s.name}:"
    if isinstance(s, ir.RegDecl):
        return INDENT + format_regdecl(s)
    if isinstance(s, ir.VarDecl):
        return INDENT + format_vardecl(s)
    if isinstance(s, ir.Directive):
        return INDENT + format_directive(s)
    if isinstance(s, ir.Block):
        return _format_block(s)
    if isinstance(s, ir.Function):
        return format_function(s)
    raise TypeError(f"cannot format {type(s).__name__}")


def _format_block(block: ir.Block) -> str:
    """A block at depth d opens and closes at d tabs, its statements are indented by d more tabs
    (iterative: blocks may nest thousands deep)."""
    lines = [INDENT + "{"]
    stack: list[tuple[Iterator[ir.Statement], int]] = [(iter(block.body), 1)]
    while stack:
        it, depth = stack[-1]
        for st in it:
            if isinstance(st, ir.Block):
                lines.append(INDENT * (depth + 1) + "{")
                stack.append((iter(st.body), depth + 1))
                break
            lines.extend(INDENT * depth + x for x in format_statement(st).split("\n"))
        else:
            stack.pop()
            lines.append(INDENT * depth + "}")
    return "\n".join(lines)


def format_toplevel(s: ir.Statement | ir.TopLevel | str) -> str:
    """Module-level nodes start at column 1."""
    if isinstance(s, (ir.VarDecl, ir.Directive)):
        return format_statement(s).lstrip("\t")
    return format_statement(s)


# --------------------------------------------------------------------------- emit

def _line_start(src: str, pos: int) -> int:
    return src.rfind("\n", 0, pos) + 1


def _line_end(src: str, pos: int) -> int:
    e = src.find("\n", pos)
    return len(src) if e < 0 else e


def _rest_is_blank(src: str, pos: int) -> bool:
    rest = src[pos:_line_end(src, pos)].strip()
    return not rest or rest.startswith("//")


def _fmt(nodes: list[ir.Statement | ir.TopLevel | str], top: bool) -> list[str]:
    out = []
    for n in nodes:
        out.append(format_toplevel(n) if top and not isinstance(n, ir.Instruction) else format_statement(n))
    return out


def emit(module: ir.Module) -> str:
    """The module's text with its edits applied (see the module docstring)."""
    src = module.source
    if not module.edits:
        return src
    # stable: edits at one position keep the order in which they were made
    edits = sorted(enumerate(module.edits), key=lambda p: (p[1].start, p[1].end > p[1].start, p[0]))
    out: list[str] = []
    cur = 0
    for _, e in edits:
        start, end = e.start, e.end
        if start < cur:
            raise ValueError("overlapping edits")
        ls = _line_start(src, start)
        at_line_start = not src[ls:start].strip()
        lines = _fmt(e.new, top=False)
        if end > start:  # replace / delete
            if at_line_start:
                start = max(ls, cur)
            if not lines and at_line_start and _rest_is_blank(src, end) and not src[end:_line_end(src, end)].strip():
                # the node was alone on its line: drop the line with its newline
                le = _line_end(src, end)
                out.append(src[cur:start])
                cur = le + 1 if le < len(src) else le
                continue
            out.append(src[cur:start])
            out.append("\n".join(lines) if at_line_start else " ".join(x.strip() for x in lines))
            cur = end
        else:  # insert
            if not lines:
                continue
            if at_line_start and ls >= cur:
                out.append(src[cur:ls])
                out.append("".join(x + "\n" for x in lines))
                cur = ls
            elif _rest_is_blank(src, start):
                le = _line_end(src, start)
                out.append(src[cur:le])
                if le < len(src):
                    out.append("\n" + "".join(x + "\n" for x in lines))
                    cur = le + 1
                else:
                    out.append("\n" + "\n".join(lines))
                    cur = le
            else:
                out.append(src[cur:start])
                out.append(" " + " ".join(x.strip() for x in lines) + " ")
                cur = start
    out.append(src[cur:])
    return "".join(out)
