"""Seeded mutation operators over PTX and litmus text (bytes in, bytes out).

Each operator takes ``(rng, data, donors)`` — ``donors`` is the list of other seed files, for splices —
and returns the mutant and a short name of what it did. The operators cover what issue 9 found:
byte flips, token deletions/duplications/swaps, line splices between files, truncation, huge literals,
deep nesting, long lines and odd bytes (NUL, form feed, SUB, U+2028, lone CR, invalid UTF-8).
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Sequence

TOKEN = re.compile(rb"\s+|[A-Za-z_.%$@][\w.$%]*|0[xX][0-9a-fA-F]+|0[fFdD][0-9a-fA-F]+|\d+(?:\.\d*)?|.", re.S)
NUMBER = re.compile(rb"(?<![\w.%$])(?:0[xX][0-9a-fA-F]+|0[fFdD][0-9a-fA-F]{8,16}|\d+)(?![\w.])")
ODD_BYTES = [b"\x00", b"\x0c", b"\x1a", "\u2028".encode(), b"\r", b"\x85", b"\xff", b"\xc3", b"\xef\xbb\xbf",
             b"\x7f", b"\t", b"\x0b", "\u00a0".encode(), "\u2029".encode(), b"\x1b[31m"]

Op = Callable[[random.Random, bytes, Sequence[bytes]], tuple[bytes, str]]


def _tokens(data: bytes) -> list[bytes]:
    return TOKEN.findall(data)


def _words(toks: list[bytes]) -> list[int]:
    return [i for i, t in enumerate(toks) if not t.isspace()]


def byte_flip(rng: random.Random, data: bytes, _: Sequence[bytes]) -> tuple[bytes, str]:
    if not data:
        return b"\xff", "byte-flip"
    b = bytearray(data)
    for _i in range(rng.choice([1, 1, 2, 4, 16])):
        i = rng.randrange(len(b))
        b[i] = b[i] ^ (1 << rng.randrange(8)) if rng.random() < 0.7 else rng.randrange(256)
    return bytes(b), "byte-flip"


def token_delete(rng: random.Random, data: bytes, _: Sequence[bytes]) -> tuple[bytes, str]:
    toks = _tokens(data)
    idx = _words(toks)
    if not idx:
        return data, "token-delete"
    for _i in range(rng.choice([1, 1, 2, 3])):
        toks[rng.choice(idx)] = b""
    return b"".join(toks), "token-delete"


def token_duplicate(rng: random.Random, data: bytes, _: Sequence[bytes]) -> tuple[bytes, str]:
    toks = _tokens(data)
    idx = _words(toks)
    if not idx:
        return data, "token-dup"
    i = rng.choice(idx)
    toks[i] = toks[i] * rng.choice([2, 2, 3, 50])
    return b"".join(toks), "token-dup"


def token_swap(rng: random.Random, data: bytes, _: Sequence[bytes]) -> tuple[bytes, str]:
    toks = _tokens(data)
    idx = _words(toks)
    if len(idx) < 2:
        return data, "token-swap"
    i = rng.choice(idx)
    near = [j for j in idx if 0 < abs(j - i) <= 8]
    j = rng.choice(near) if near and rng.random() < 0.7 else rng.choice(idx)
    toks[i], toks[j] = toks[j], toks[i]
    return b"".join(toks), "token-swap"


def token_replace(rng: random.Random, data: bytes, donors: Sequence[bytes]) -> tuple[bytes, str]:
    """A token replaced by a token of another file (a plausible but misplaced word)."""
    toks = _tokens(data)
    idx = _words(toks)
    donor = _tokens(rng.choice(donors)) if donors else toks
    didx = _words(donor)
    if not idx or not didx:
        return data, "token-replace"
    toks[rng.choice(idx)] = donor[rng.choice(didx)]
    return b"".join(toks), "token-replace"


def line_splice(rng: random.Random, data: bytes, donors: Sequence[bytes]) -> tuple[bytes, str]:
    lines = data.split(b"\n")
    donor = (rng.choice(donors) if donors else data).split(b"\n")
    k = rng.choice([1, 1, 2, 5])
    start = rng.randrange(len(donor))
    piece = donor[start:start + k]
    at = rng.randrange(len(lines) + 1)
    if rng.random() < 0.5:
        lines[at:at] = piece
    else:
        lines[at:at + len(piece)] = piece
    return b"\n".join(lines), "line-splice"


def line_delete(rng: random.Random, data: bytes, _: Sequence[bytes]) -> tuple[bytes, str]:
    lines = data.split(b"\n")
    if len(lines) < 2:
        return data, "line-delete"
    at = rng.randrange(len(lines))
    del lines[at:at + rng.choice([1, 1, 3])]
    return b"\n".join(lines), "line-delete"


def line_duplicate(rng: random.Random, data: bytes, _: Sequence[bytes]) -> tuple[bytes, str]:
    lines = data.split(b"\n")
    at = rng.randrange(len(lines))
    lines[at:at] = lines[at:at + rng.choice([1, 2, 8])] * rng.choice([1, 2, 20])
    return b"\n".join(lines), "line-dup"


def truncate(rng: random.Random, data: bytes, _: Sequence[bytes]) -> tuple[bytes, str]:
    if not data:
        return data, "truncate"
    return data[:rng.randrange(len(data))], "truncate"


def huge_literal(rng: random.Random, data: bytes, _: Sequence[bytes]) -> tuple[bytes, str]:
    big = rng.choice([b"9" * rng.choice([20, 40, 4400, 20000]), b"99999999999999999999", b"0x" + b"f" * 40,
                      b"18446744073709551616", b"-9223372036854775809", b"0F7FFFFFFFFFF", b"0D" + b"1" * 30,
                      b"1e999", b"0.0000000000000000000000001e-400", b"4294967296", b"-1", b"0b102",
                      b"1U", b"0x40", b"00000000000000000000000001"])
    spans = [m.span() for m in NUMBER.finditer(data)]
    if not spans:
        return data + b"\n" + big, "huge-literal"
    s, e = rng.choice(spans)
    return data[:s] + big + data[e:], "huge-literal"


def _body_line(data: bytes) -> int:
    """A line inside the first function body (after its first ``{``), else the middle."""
    lines = data.split(b"\n")
    for i, ln in enumerate(lines):
        if ln.strip().startswith(b"{") and i + 1 < len(lines):
            return i + 1
    return len(lines) // 2


def deep_nesting(rng: random.Random, data: bytes, _: Sequence[bytes]) -> tuple[bytes, str]:
    lines = data.split(b"\n")
    at = _body_line(data)
    depth = rng.choice([10, 100, 1000, 5000])
    kind = rng.randrange(4)
    if kind == 0:  # nested blocks (ptxas accepts 1,000 deep)
        piece = [b"{" * depth, b"}" * depth]
    elif kind == 1:  # unbalanced braces
        piece = [b"{" * depth]
    elif kind == 2:  # parentheses in an operand expression
        piece = [b"\tmov.u32 %r1, " + b"(" * depth + b"1" + b")" * depth + b";"]
    else:  # 20,000 ')' on one line (issue 9: quadratic stderr)
        piece = [b")" * rng.choice([2000, 20000])]
    lines[at:at] = piece
    return b"\n".join(lines), "deep-nesting"


def long_line(rng: random.Random, data: bytes, _: Sequence[bytes]) -> tuple[bytes, str]:
    lines = data.split(b"\n")
    at = _body_line(data)
    n = rng.choice([1000, 10000, 100000])
    kind = rng.randrange(3)
    if kind == 0:
        piece = b" " * n + b"ret;"
    elif kind == 1:
        piece = b"\tmov.u32 %r" + b"x" * n + b", 1;"
    else:
        piece = b" // " + b"c" * n
    lines[at:at] = [piece]
    return b"\n".join(lines), "long-line"


def odd_bytes(rng: random.Random, data: bytes, _: Sequence[bytes]) -> tuple[bytes, str]:
    b = data
    for _i in range(rng.choice([1, 1, 2, 5])):
        odd = rng.choice(ODD_BYTES)
        if rng.random() < 0.3:  # at a line end or start: where line counting goes wrong
            nl = [m.start() for m in re.finditer(rb"\n", b)] or [0]
            i = rng.choice(nl)
        else:
            i = rng.randrange(len(b) + 1)
        b = b[:i] + odd + b[i:]
    return b, "odd-bytes"


def crlf(rng: random.Random, data: bytes, _: Sequence[bytes]) -> tuple[bytes, str]:
    """Line endings changed: all CRLF, all lone CR, or a mix."""
    choice = rng.randrange(3)
    if choice == 0:
        return data.replace(b"\n", b"\r\n"), "crlf"
    if choice == 1:
        return data.replace(b"\n", b"\r"), "lone-cr"
    lines = data.split(b"\n")
    return b"".join(ln + rng.choice([b"\n", b"\r\n", b"\r"]) for ln in lines), "mixed-eol"


PTX_OPS: list[Op] = [byte_flip, token_delete, token_duplicate, token_swap, token_replace, line_splice,
                     line_delete, line_duplicate, truncate, huge_literal, deep_nesting, long_line, odd_bytes,
                     crlf]
#: How often each operator is drawn (the cheap, local ones most).
PTX_WEIGHTS = [8, 8, 5, 6, 6, 8, 4, 3, 4, 6, 3, 2, 6, 2]


# ---- litmus-specific operators -------------------------------------------------------------

def litmus_condition(rng: random.Random, data: bytes, _: Sequence[bytes]) -> tuple[bytes, str]:
    """Rewrite the final condition: deep nesting, many terms, unknown names, bad syntax."""
    m = re.search(rb"(?m)^\s*(~?\s*exists|forall)\b", data)
    head = data[:m.start()] if m else data + b"\n"
    kind = rng.randrange(7)
    if kind == 0:
        d = rng.choice([50, 1000])
        cond = b"exists " + b"(" * d + b"x == 0" + b")" * d
    elif kind == 1:
        n = rng.choice([100, 1000])
        cond = b"exists (" + b" /\\ ".join(b"x == 0" for _ in range(n)) + b")"
    elif kind == 2:
        cond = b"forall (P1:nosuch == 0)"
    elif kind == 3:
        cond = b"exists (P9:r1 == 1)"
    elif kind == 4:
        cond = b"exists (nosuchloc == 1)"
    elif kind == 5:
        cond = b"exists (x == " + rng.choice([b"99999999999999999999", b"-1", b"0x", b"1 +"]) + b")"
    else:
        cond = rng.choice([b"exists", b"exists ()", b"exists (x ==", b"~ (x == 0)", b"forall (/\\)"])
    return head + cond + b"\n", "litmus-condition"


def litmus_threads(rng: random.Random, data: bytes, _: Sequence[bytes]) -> tuple[bytes, str]:
    """Damage the thread header or the columns: a missing/extra column, odd placements."""
    lines = data.split(b"\n")
    rows = [i for i, ln in enumerate(lines) if b"|" in ln or re.search(rb"P\d+@", ln)]
    if not rows:
        return data, "litmus-threads"
    i = rng.choice(rows)
    ln = lines[i]
    kind = rng.randrange(5)
    if kind == 0:
        cols = ln.split(b"|")
        if len(cols) > 1:
            del cols[rng.randrange(len(cols))]
        lines[i] = b"|".join(cols)
    elif kind == 1:
        lines[i] = ln.replace(b";", b"| nop ;" if rng.random() < 0.5 else b"| ;", 1)
    elif kind == 2:
        lines[i] = re.sub(rb"cta \d+", rng.choice([b"cta 99999999999", b"cta -1", b"cta x", b"cta 1"]), ln, count=1)
    elif kind == 3:
        lines[i] = re.sub(rb"gpu \d+", rng.choice([b"gpu 1", b"gpu 7", b"gpu"]), ln, count=1)
    else:
        lines[i] = ln.replace(b"P1", rng.choice([b"P0", b"P7", b"P", b"P99999999999999999999"]), 1)
    return b"\n".join(lines), "litmus-threads"


def litmus_scope(rng: random.Random, data: bytes, _: Sequence[bytes]) -> tuple[bytes, str]:
    """Swap a memory-order / scope / proxy qualifier for another (valid or not)."""
    quals = [b".cta", b".gpu", b".sys", b".cluster", b".relaxed", b".acquire", b".release", b".acq_rel",
             b".sc", b".weak", b".volatile", b".mmio", b".nosuch", b".proxy", b".alias", b".generic", b""]
    spans = [m.span() for m in re.finditer(rb"\.(cta|gpu|sys|relaxed|acquire|release|acq_rel|sc|weak)\b", data)]
    if not spans:
        return data, "litmus-scope"
    s, e = rng.choice(spans)
    return data[:s] + rng.choice(quals) + data[e:], "litmus-scope"


LITMUS_OPS: list[Op] = [*PTX_OPS, litmus_condition, litmus_threads, litmus_scope]
LITMUS_WEIGHTS = [*PTX_WEIGHTS, 8, 8, 8]


def mutate(rng: random.Random, data: bytes, donors: Sequence[bytes], *, litmus: bool = False,
           max_ops: int = 3) -> tuple[bytes, list[str]]:
    """Apply 1..max_ops operators (drawn by weight); return the mutant and what was done."""
    ops, weights = (LITMUS_OPS, LITMUS_WEIGHTS) if litmus else (PTX_OPS, PTX_WEIGHTS)
    done: list[str] = []
    n = rng.choice([1, 1, 1, 2, max_ops])
    for op in rng.choices(ops, weights, k=n):
        data, name = op(rng, data, donors)
        done.append(name)
    return data, done
