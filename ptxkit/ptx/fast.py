"""The fast path of the front end: a statement scanner with precompiled regexes for the common
statement shapes (instructions with plain operands, labels, ``.reg`` lines, ``.loc``, ``.pragma``),
a cache of operand texts, and the Lark grammar (``ptxkit.ptx.lark_parser``) for everything else,
one statement at a time. It builds the same IR as the grammar alone (tests/test_frontend_lark.py)
and keeps going after a bad statement, collecting one diagnostic per bad statement."""

from __future__ import annotations

import re
from bisect import bisect_left as bisect
from collections.abc import Callable
from typing import TypeVar

from ptxkit import ir
from ptxkit.errors import MAX_DIAGNOSTICS, Diagnostic, PtxkitError
from ptxkit.ptx import build
from ptxkit.ptx import lark_parser as lp
from ptxkit.ptx.build import BuildError

_TYPES = ("b8|b16|b32|b64|b128|u8|u16|u32|u64|s8|s16|s32|s64|f16x2|f16|bf16x2|bf16|f32x2|f32|f64|"
          "tf32|e4m3x2|e5m2x2|e2m3x2|e3m2x2|e2m1x2|e4m3|e5m2|pred|texref|samplerref|surfref")

# whitespace and comments between statements
# (\x1a, DOS end-of-file, is white space to ptxas and to the grammar)
_SKIP = re.compile(r"(?:[ \t\r\n\f\v\x1a]+|//[^\n]*|/\*[\s\S]*?\*/)*")
# [@[!]p] opcode{.mod} [operands] ;   — one line, no strings/parens/comments inside
_INSTR = re.compile(r"(?:@(!?)(%[\w$]+|[a-zA-Z][\w$]*|[_$][\w$]+)[ \t]+)?([A-Za-z_]\w*)((?:\.[\w:]+)*)"
                    r"(?:[ \t]+([^;\"()/\n@]*?))?[ \t]*;")
_LABEL = re.compile(r"[$%a-zA-Z_][\w$]*[ \t]*:(?!:)")
# (a count of up to 9 digits is in range; longer ones go to the grammar, which checks the range)
_REGDECL = re.compile(r"\.reg[ \t]+\.(" + _TYPES + r")[ \t]+(%[\w$]+|[a-zA-Z][\w$]*|[_$][\w$]+)"
                      r"(?:[ \t]*<[ \t]*([1-9][0-9]{0,8}|0)[ \t]*>)?[ \t]*;")
_LOC = re.compile(r"\.loc([ \t]+[0-9]+[ \t]+[0-9]+(?:[ \t]+[0-9]+)?"
                  r"(?:[ \t]*,[ \t]*[a-zA-Z_]\w*[ \t]+(?:[$a-zA-Z_][\w$]*(?:[ \t]*[+-][ \t]*[0-9]+)?"
                  r"|[0-9]+[ \t]+[0-9]+[ \t]+[0-9]+))*)(?=[ \t]*(?:\n|//|/\*|$))")
_PRAGMA = re.compile(r"\.pragma([ \t]+\"(?:[^\"\\\n]|\\.)*\")[ \t]*;")
# `label: .callprototype|.branchtargets|.calltargets …;` is one statement, not a label
_LABELLED_AHEAD = re.compile(r"(?:[ \t\r\n\f\v\x1a]|//[^\n]*|/\*[\s\S]*?\*/)*"
                             r"\.(?:callprototype|branchtargets|calltargets)(?![\w$])")
# module-level directives without ';': their extent is that of their tokens in the grammar
# (so `.version 8.5 .target sm_90` on one line splits exactly where the grammar splits it)
_W = r"(?:\s|//[^\n]*|/\*[\s\S]*?\*/)*"
_G_INT = r"(?:0[xX][0-9a-fA-F]+|0[bB][01]+|[0-9]+)U?(?![\w$])"
_G_IDENT = r"(?:[a-zA-Z][\w$]*|[_$][\w$]+)(?:\.[xyzwrgba](?![\w$]))?"
_G_FLOAT = r"(?:[0-9]+\.[0-9]*(?:[eE][+-]?[0-9]+)?|\.[0-9]+(?:[eE][+-]?[0-9]+)?|[0-9]+[eE][+-]?[0-9]+)"
_G_STRING = r'"(?:[^"\\\n]|\\.)*"'
_G_LOCATTR = (_G_IDENT + _W + r"(?:" + _G_IDENT + r"(?:" + _W + r"[+-]" + _W + _G_INT + r")?|"
              + _G_INT + _W + _G_INT + _W + _G_INT + r")")
_LINE_DIR = re.compile(
    r"\.version" + _W + _G_FLOAT
    + r"|\.target" + _W + _G_IDENT + r"(?:" + _W + "," + _W + _G_IDENT + r")*"
    + r"|\.address_size" + _W + _G_INT
    + r"|\.file" + _W + _G_INT + _W + _G_STRING + r"(?:" + _W + "," + _W + _G_INT + r")*"
    + r"|\.loc(?!al(?![\w$]))" + _W + _G_INT + _W + _G_INT + r"(?:" + _W + _G_INT + r")?"
    + r"(?:" + _W + "," + _W + _G_LOCATTR + r")*")
_LINE_KW = re.compile(r"\.(?:version|target|address_size|file|loc(?!al(?![\w$])))")
_SECTION = re.compile(r"\.section(?![\w$])[ \t\r\n]*\.[\w.$]+[ \t\r\n]*"
                      r"(?:(?://[^\n]*|/\*[\s\S]*?\*/)[ \t\r\n]*)*\{[^}]*\}")
# one scanning hop for statement ends: skip everything that is not a delimiter
_HOP = re.compile(r"[^;{}()\"/=]+")

# operands
_REG = re.compile(r"%[\w$]+(?:\.[a-zA-Z]\w*)?\Z")
_IDENT = re.compile(r"(?:[a-zA-Z][\w$]*|[_$][\w$]+)(?:\.[xyzwrgba])?\Z")
_INT = re.compile(r"(-?)((?:0[xX][0-9a-fA-F]+|0[bB][01]+|[0-9]+)U?)\Z")
_FHEX = re.compile(r"0[fF][0-9a-fA-F]{8}\Z|0[dD][0-9a-fA-F]{16}\Z")
# the grammar's FLOAT_DEC (an f64, ISA §4.5.1), optionally negated as its unary minus does
_FDEC = re.compile(r"(-?)((?:[0-9]+\.[0-9]*(?:[eE][+-]?[0-9]+)?|\.[0-9]+(?:[eE][+-]?[0-9]+)?|[0-9]+[eE][+-]?[0-9]+))\Z")
_ATOM = r"(%[\w$]+(?:\.[a-zA-Z]\w*)?|[a-zA-Z][\w$]*|[_$][\w$]+)"
_INTLIT = r"((?:0[xX][0-9a-fA-F]+|0[bB][01]+|[0-9]+)U?)"
_ADDR = re.compile(r"\[[ \t]*(?:" + _ATOM + r"(?:[ \t]*([+-])[ \t]*(-?)" + _INTLIT + r")?|(-?)" + _INTLIT
                   + r")[ \t]*\]\Z")
_PIPE = re.compile(_ATOM + r"[ \t]*\|[ \t]*" + _ATOM + r"\Z")
_NOT = re.compile(r"![ \t]*" + _ATOM + r"\Z")

_LOCFILE = re.compile(r"\.(?:file|loc(?!al(?![\w$])))")
_STRING = re.compile(r'"(?:[^"\\\n]|\\.)*"?')
# "not cached yet" (an operand no parse produces: the text of an Expr never holds a NUL)
_FAIL: ir.Operand = ir.Expr("\0")
# the grammar's white space (str.strip() would also strip U+2028, \x1c … which ptxas rejects)
_WS = " \t\r\f\v\x1a"
_WS_NL = _WS + "\n"
_NL = re.compile("\n")
_T = TypeVar("_T")


class _Ops:
    """Simple operand texts → IR operands (None when the text needs the grammar). Cached: the same
    texts (``%r1``, ``[%rd2+4]``) recur thousands of times and operands are immutable."""

    def __init__(self) -> None:
        self.cache: dict[str, ir.Operand | None] = {}

    def get(self, s: str) -> ir.Operand | None:
        v = self.cache.get(s, _FAIL)
        if v is _FAIL:
            v = self._parse(s)
            self.cache[s] = v
        return v

    @staticmethod
    def _atom(t: str) -> ir.Operand:
        if t == "_":
            return ir.Sink()
        return _Ops._base(t)

    @staticmethod
    def _base(t: str) -> ir.Reg | ir.Sym:
        return ir.Reg(t) if t[0] == "%" else ir.Sym(t)

    def _parse(self, s: str) -> ir.Operand | None:
        c = s[:1]
        try:
            if c == "%":
                if _REG.match(s):
                    return ir.Reg(s)
            elif c == "[":
                m = _ADDR.match(s)
                if m:
                    base, sign, neg, lit, neg2, lit2 = m.groups()
                    if base is None:
                        v = build.int_literal(lit2)
                        return ir.Addr(None, -v if neg2 else v)
                    if base == "_":
                        return None
                    off = 0
                    if lit is not None:
                        off = build.int_literal(lit)
                        if neg:
                            off = -off
                        if sign == "-":
                            off = -off
                    return ir.Addr(self._base(base), off)
                return None
            elif c == "{":
                inner = s[1:-1].strip(_WS) if s.endswith("}") else None
                if inner is None or "{" in inner or "}" in inner:
                    return None
                if not inner:
                    return ir.Vec(())
                items: list[ir.Operand] = []
                for part in inner.split(","):
                    o = self.get(part.strip(_WS))
                    if o is None or type(o) in (ir.Vec, ir.Pipe):
                        return None
                    items.append(o)
                return ir.Vec(tuple(items))
            elif c == "!":
                m = _NOT.match(s)
                if m:
                    return ir.Not(self._atom(m.group(1)))
                return None
            m = _INT.match(s)
            if m:
                v = build.int_literal(m.group(2))
                return ir.Imm(-v if m.group(1) else v)
            if _FHEX.match(s):
                return build.float_hex(s)
            m = _FDEC.match(s)
            if m:  # hand-written PTX's 0.0 (compilers write 0f…): no grammar round trip per statement
                f = build.float_dec(m.group(2))
                return ir.FloatImm(f.bits ^ (1 << 63), 64) if m.group(1) else f
            if _IDENT.match(s) or s == "_":
                return self._atom(s)
            if "|" in s:
                m = _PIPE.match(s)
                if m:
                    return ir.Pipe(self._atom(m.group(1)), self._atom(m.group(2)))
        except BuildError:
            return None
        return None


def _split_operands(s: str) -> list[str] | None:
    """Split at top-level commas (commas inside ``{}`` belong to a vector operand)."""
    if "{" not in s:
        return s.split(",")
    out: list[str] = []
    depth = 0
    start = 0
    for i, ch in enumerate(s):
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
        elif ch == "," and depth == 0:
            out.append(s[start:i])
            start = i + 1
    out.append(s[start:])
    return out if depth == 0 else None


def _body_directive(src: str, pos: int) -> tuple[str, re.Match[str]] | None:
    """A ``.loc`` or ``.pragma`` statement at ``pos``: its keyword and match (group 1: the arguments)."""
    for kw, rx in (("loc", _LOC), ("pragma", _PRAGMA)):
        m = rx.match(src, pos)
        if m:
            return kw, m
    return None


def _end(m: re.Match[str] | None) -> int:
    """The end of a match of a pattern that always matches (it may match the empty string)."""
    assert m is not None
    return m.end()


class _ErrorLimit(Exception):
    """Raised inside the parser when :data:`MAX_DIAGNOSTICS` errors were collected."""


class FastParser:
    def __init__(self, source: str, filename: str):
        self.src = source
        self.n = len(source)
        self.filename = filename
        self.diags: list[Diagnostic] = []
        self.ops = _Ops()
        self.raw_ops: dict[str, ir.Operand | None] = {}  # unstripped operand text → operand (or None)
        # offsets of every newline: line of pos = bisect(nls, pos) + 1
        self.nls = [m.start() for m in _NL.finditer(source)]

    # -- positions
    def _linecol(self, pos: int) -> tuple[int, int]:
        nls = self.nls
        line = bisect(nls, pos)
        return line + 1, (pos - nls[line - 1] if line else pos + 1)

    def _span(self, start: int, end: int) -> ir.Span:
        line, col = self._linecol(start)
        return ir.Span(start, end, line, col)

    def _diag(self, pos: int, message: str) -> Diagnostic:
        """A located diagnostic (uses the newline index: no rescans of the file per error)."""
        pos = max(0, min(pos, self.n))
        line, col = self._linecol(pos)
        nls = self.nls
        ls = nls[line - 2] + 1 if line >= 2 else 0
        le = nls[line - 1] if line - 1 < len(nls) else self.n
        return Diagnostic(self.filename, line, col, message, self.src[ls:le])

    def _error(self, pos: int, message: str) -> None:
        self._report([self._diag(pos, message)])

    def _report(self, diags: list[Diagnostic]) -> None:
        """Collect diagnostics; at the error limit stop parsing (bounded time and stderr)."""
        self.diags.extend(diags)
        if len(self.diags) >= MAX_DIAGNOSTICS:
            raise _ErrorLimit

    def _by_grammar(self, parse: Callable[[str, int, int, int, int, str, lp.Diag], _T], start: int, end: int,
                    failed: _T) -> _T:
        """``parse`` of ``src[start:end]`` (a lark_parser entry point); ``failed`` after an error."""
        line, col = self._linecol(start)
        try:
            return parse(self.src, start, end, line, col, self.filename, self._diag)
        except PtxkitError as e:
            self._report(e.diagnostics)
            return failed

    def _toplevel(self, start: int, end: int) -> list[ir.TopLevel]:
        """``src[start:end]`` by the grammar as module-level items (none after an error)."""
        return self._by_grammar(lp.parse_toplevel, start, end, [])

    def _statement(self, start: int, end: int) -> list[ir.Statement]:
        """``src[start:end]`` by the grammar as one body statement (none after an error)."""
        return self._by_grammar(lp.parse_statement, start, end, [])

    def _header(self, start: int, end: int) -> ir.Function | None:
        return self._by_grammar(lp.parse_header, start, end, None)

    # -- scanning
    def _skip(self, pos: int) -> int:
        return _end(_SKIP.match(self.src, pos))

    def _stmt_end(self, pos: int, top: bool) -> tuple[int, bool]:
        """End of the statement starting at ``pos``: just after its ``;`` (or before an unbalanced
        ``}`` / at EOF). At module level, also stop at a function body's ``{`` (returns True)."""
        src, n = self.src, self.n
        depth = 0
        seen_eq = False
        while pos < n:
            m = _HOP.match(src, pos)
            if m:
                pos = m.end()
                if pos >= n:
                    break
            ch = src[pos]
            if ch == ";":
                if depth == 0:
                    return pos + 1, False
            elif ch == "{" or ch == "(":
                if ch == "{" and depth == 0 and top and not seen_eq:
                    return pos, True
                depth += 1
            elif ch == "}" or ch == ")":
                if depth == 0:
                    return pos, False
                depth -= 1
            elif ch == '"':
                pos = _end(_STRING.match(src, pos))
                continue
            elif ch == "/":
                if src.startswith("//", pos):
                    e = src.find("\n", pos)
                    pos = n if e < 0 else e
                    continue
                if src.startswith("/*", pos):
                    e = src.find("*/", pos + 2)
                    pos = n if e < 0 else e + 2
                    continue
            elif ch == "=":
                seen_eq = True
            pos += 1
        return n, False

    # -- module
    def parse(self) -> ir.Module:
        try:
            return self._parse()
        except _ErrorLimit:
            raise PtxkitError(self.diags[:MAX_DIAGNOSTICS], truncated=True) from None

    def _parse(self) -> ir.Module:
        src, n = self.src, self.n
        items: list[ir.TopLevel] = []
        pos = self._skip(0)
        while pos < n:
            if src[pos] == ".":
                m = _LINE_DIR.match(src, pos)
                if m:
                    end = m.end()
                    items.extend(self._toplevel(pos, end))
                    pos = self._skip(end)
                    continue
                if _LINE_KW.match(src, pos):
                    # a malformed line directive: report it alone and resume on the next line
                    e = src.find("\n", pos)
                    e = n if e < 0 else e
                    items.extend(self._toplevel(pos, e))
                    pos = self._skip(e)
                    continue
                m = _SECTION.match(src, pos)
                if m:
                    items.extend(self._toplevel(pos, m.end()))
                    pos = self._skip(m.end())
                    continue
            end, is_func = self._stmt_end(pos, True)
            if not is_func:
                if end == pos:  # a stray '}' or ')'
                    self._error(pos, f"unexpected {src[pos]!r}")
                    end = pos + 1
                else:
                    items.extend(self._toplevel(pos, end))
                pos = self._skip(end)
                continue
            hdr_end = pos + len(src[pos:end].rstrip(_WS_NL))
            fline, fcol = self._linecol(pos)
            fn = self._header(pos, hdr_end)
            body, after = self._body(end + 1)
            if fn is not None:
                fn.body = body
                fn.span = ir.Span(pos, after, fline, fcol)
                build.resolve_function(fn)
                items.append(fn)
            pos = self._skip(after)
        if self.diags:
            raise PtxkitError(self.diags)
        return ir.Module(src, self.filename, items)

    # -- function bodies: the hot loop
    def _body(self, pos: int) -> tuple[list[ir.Statement], int]:
        src, n = self.src, self.n
        ops_get = self.ops.get
        cache = self.raw_ops
        cache_get = cache.get
        nls = self.nls
        instr_match = _INSTR.match
        skip = _SKIP.match
        Instruction, Guard, Span = ir.Instruction, ir.Guard, ir.Span
        linecol = self._linecol
        body: list[ir.Statement] = []
        stack: list[tuple[list[ir.Statement], int, int, int]] = []
        open_pos = pos - 1
        while True:
            at = skip(src, pos)
            assert at is not None  # (the pattern matches the empty string)
            pos = at.end()
            if pos >= n:
                self._error(open_pos, "missing '}' to close this body")
                break
            c = src[pos]
            if c == "}":
                if not stack:
                    return body, pos + 1
                outer, bstart, bline, bcol = stack.pop()
                outer.append(ir.Block(body, span=Span(bstart, pos + 1, bline, bcol)))
                body = outer
                pos += 1
                continue
            if c == "{":
                stack.append((body, pos, *linecol(pos)))
                body = []
                pos += 1
                continue
            m = instr_match(src, pos)
            if m is not None:
                neg, pred, opc, mods, opstr = m.groups()
                if opstr is None:
                    operands: tuple[ir.Operand, ...] | None = ()
                else:
                    # cache keyed by the raw (unstripped) operand text: most hits cost one dict get
                    parts = _split_operands(opstr) if "{" in opstr else opstr.split(",")
                    operands = None
                    if parts is not None:
                        lst: list[ir.Operand] = []
                        for p in parts:
                            o = cache_get(p, _FAIL)
                            if o is _FAIL:
                                o = ops_get(p.strip(_WS))
                                cache[p] = o
                            if o is None:
                                break
                            lst.append(o)
                        else:
                            operands = tuple(lst)
                if operands is not None:
                    line = bisect(nls, pos)
                    end = m.end()
                    body.append(Instruction(opc, tuple(mods[1:].split(".")) if mods else (), operands,
                                            Guard(pred, neg == "!") if pred else None,
                                            Span(pos, end, line + 1, pos - nls[line - 1] if line else pos + 1)))
                    pos = end
                    continue
            elif c == ".":
                m = _REGDECL.match(src, pos)
                if m:
                    typ, name, count = m.groups()
                    body.append(ir.RegDecl(typ, ((name, int(count) if count else None),),
                                           span=self._span(pos, m.end())))
                    pos = m.end()
                    continue
                hit = _body_directive(src, pos)
                if hit:
                    kw, m = hit
                    body.append(ir.Directive(kw, build.normalize_args(m.group(1)),
                                             span=self._span(pos, m.end())))
                    pos = m.end()
                    continue
                if _LOCFILE.match(src, pos):
                    e = src.find("\n", pos)
                    e = n if e < 0 else e
                    body.extend(self._statement(pos, pos + len(src[pos:e].split("//")[0].rstrip(_WS))))
                    pos = e
                    continue
            else:
                m = _LABEL.match(src, pos)
                if m and not _LABELLED_AHEAD.match(src, m.end()):
                    body.append(ir.Label(m.group().rstrip(": \t"), span=self._span(pos, m.end())))
                    pos = m.end()
                    continue
            # general statement: the grammar
            end, _ = self._stmt_end(pos, False)
            if end == pos:
                self._error(pos, f"unexpected {src[pos]!r}")
                pos += 1
                continue
            body.extend(self._statement(pos, end))
            pos = end
        while stack:
            outer, bstart, bline, bcol = stack.pop()
            outer.append(ir.Block(body, span=Span(bstart, n, bline, bcol)))
            body = outer
        return body, n


def parse(source: str, filename: str = "<input>") -> ir.Module:
    return FastParser(source, filename).parse()
