"""The token stream of Dat3M litmus tests and conditions (``LitmusPTX.g4``'s lexical level): tokens
with their line and column, a cursor with ``peek``/``accept``/``expect``, 64-bit numerals, and located
errors. Lines are counted on ``\n`` only (what the diagnostics echo), and a byte that is not UTF-8 is
reported where it is."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import NoReturn

from ptxkit.errors import Diagnostic, PtxkitError
from ptxkit.ir import Span

_TOKEN = re.compile(r"""
    (?P<ws>[ \t\r\f\v]+) | (?P<nl>\n) | (?P<comment>\(\*.*?\*\)) |
    (?P<str>"[^"]*") |
    (?P<op>/\\|\\/|==|!=|<=|>=|[{};|,:=&@()<>~\[\]+\-*!.])|
    (?P<num>\d+) |
    (?P<id>[A-Za-z_$][\w$.]*) |
    (?P<bad>.)
""", re.X | re.S)


_UNDECODABLE = re.compile("[\udc80-\udcff]")


@dataclass
class Tok:
    kind: str  # 'op' | 'num' | 'id' | 'str' | 'eof'
    text: str
    start: int
    end: int
    line: int
    col: int


class TokenStream:
    """The tokens of ``text`` and a cursor over them (``nthreads``: the test's thread count, which
    bounds ``Pn:`` references in a condition)."""

    def __init__(self, text: str, filename: str):
        self.text = text
        self.filename = filename
        # only "\n" ends a line (the tokenizer counts lines so; str.splitlines also splits on
        # \r, \f, U+2028 … and would echo the wrong line)
        self.lines = text.split("\n")
        self.nthreads: int | None = None
        self._check_encoding()
        self.toks = self._tokenize()
        self.i = 0

    def _check_encoding(self) -> None:
        """A litmus test is UTF-8 text: a byte that is not (decoded with surrogateescape, as every
        reader here does) is reported where it is."""
        m = _UNDECODABLE.search(self.text)
        if m is not None:
            pos = m.start()
            line = self.text.count("\n", 0, pos) + 1
            col = pos - (self.text.rfind("\n", 0, pos) + 1) + 1
            byte = ord(m.group()) - 0xDC00
            self._fail_at(pos, line, col, f"invalid UTF-8 byte 0x{byte:02x} (a litmus test is UTF-8 text)")

    def _tokenize(self) -> list[Tok]:
        toks: list[Tok] = []
        pos, line, line_start = 0, 1, 0
        n = len(self.text)
        while pos < n:
            m = _TOKEN.match(self.text, pos)
            if m is None:
                self._fail_at(pos, line, pos - line_start + 1, f"unexpected character {self.text[pos]!r}")
            kind = m.lastgroup
            s = m.group()
            if kind in ("op", "num", "id", "str", "bad"):
                toks.append(Tok(kind, s, pos, m.end(), line, pos - line_start + 1))
            # newlines inside strings/comments count too
            nl = s.count("\n")
            if nl:
                line += nl
                line_start = pos + s.rfind("\n") + 1
            pos = m.end()
        toks.append(Tok("eof", "", n, n, line, n - line_start + 1))
        return toks

    def _fail_at(self, pos: int, line: int, col: int, msg: str) -> NoReturn:
        src = self.lines[line - 1] if 0 < line <= len(self.lines) else None
        raise PtxkitError(Diagnostic(self.filename, line, col, msg, src))

    def fail(self, tok: Tok, msg: str) -> NoReturn:
        self._fail_at(tok.start, tok.line, tok.col, msg)

    def peek(self, k: int = 0) -> Tok:
        return self.toks[min(self.i + k, len(self.toks) - 1)]

    def next(self) -> Tok:
        t = self.peek()
        self.i += 1
        return t

    def accept(self, text: str) -> Tok | None:
        if self.peek().kind in ("op", "id") and self.peek().text == text:
            return self.next()
        return None

    def expect(self, text: str, what: str | None = None) -> Tok:
        t = self.peek()
        if t.kind in ("op", "id") and t.text == text:
            return self.next()
        self.fail(t, f"expected {what or repr(text)}, found {t.text or 'end of file'!r}")
        raise AssertionError  # unreachable

    def number(self, tok: Tok, digits: str | None = None, negative: bool = False) -> int:
        """The value of a decimal numeral (``digits``, default the token's text); values are at
        most 64 bits (a longer numeral is an error here, not a failed conversion later)."""
        text = tok.text if digits is None else digits
        v = int(text) if len(text.lstrip("0")) <= 20 else 1 << 64
        if negative:
            v = -v
        if not -(1 << 63) <= v < 1 << 64:
            shown = text if len(text) <= 24 else text[:20] + "..."
            self.fail(tok, f"integer {'-' if negative else ''}{shown} out of range (64 bits)")
        return v

    def expect_int(self) -> int:
        neg = self.accept("-") is not None
        t = self.peek()
        if t.kind != "num":
            self.fail(t, f"expected an integer, found {t.text or 'end of file'!r}")
        self.next()
        return self.number(t, negative=neg)

    def expect_id(self, what: str = "a name") -> Tok:
        t = self.peek()
        if t.kind != "id":
            self.fail(t, f"expected {what}, found {t.text or 'end of file'!r}")
        return self.next()

    def span(self, first: Tok, last: Tok) -> Span:
        return Span(first.start, last.end, first.line, first.col)

    # ------------------------------------------------------------------ top level

    def thread_ref_opt(self) -> int | None:
        """``Pn:`` or ``n:`` at the cursor → n (consumes through ':'), else None."""
        t, c = self.peek(), self.peek(1)
        if c.text == ":" and c.kind == "op":
            if t.kind == "id" and re.fullmatch(r"P\d+", t.text):
                self.i += 2
                return self.number(t, t.text[1:])
            if t.kind == "num":
                self.i += 2
                return self.number(t)
        return None
