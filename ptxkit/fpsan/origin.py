"""The user's line of a line of the sanitized text, for diagnostics of a sanitized kernel's run.

``run --sanitize``, ``equiv`` and ``verify --against/--reference`` run the sanitized module: what the
simulator finds at run time (a misaligned access, a deadlock, the step bound) is located in the
sanitized text, which the user never saw, while the diagnostic names the user's file. Untouched text
is byte-identical (docs/fpsan.md §3), and every rewritten instruction starts with a ``// fpsan:
<the original instruction>`` line, so a line diff of the two texts maps every sanitized line back: an
equal line to its twin, a line of an expansion to the instruction it replaces, an inserted helper
``.func`` to the line before which it was inserted.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from ptxkit.errors import PtxkitError
from ptxkit.fpsan.edits import ORIGINAL_PREFIX

_MARK = re.compile(r"^\s*" + re.escape(ORIGINAL_PREFIX) + r"(.*\S)\s*$")
# Above this many lines the diff uses difflib's junk heuristic (popular lines are not anchors): an
# error's location may then be coarser, but mapping it never takes long.
_EXACT_DIFF_LINES = 50_000


def line_map(original: str, sanitized: str) -> Callable[[int], int]:
    """1-based sanitized line → 1-based original line."""
    a = original.split("\n")
    b = sanitized.split("\n")
    sm = difflib.SequenceMatcher(None, a, b, autojunk=max(len(a), len(b)) > _EXACT_DIFF_LINES)
    to: list[int] = [0] * len(b)
    for tag, i1, i2, j1, j2 in sm.get_opcodes():
        if tag == "equal":
            for k in range(j2 - j1):
                to[j1 + k] = i1 + k
            continue
        cur, seek = i1 if tag != "insert" else max(i1 - 1, 0), i1
        for j in range(j1, j2):
            m = _MARK.match(b[j])
            if m and tag != "insert":
                for i in range(seek, i2):
                    if a[i].strip().rstrip(";").strip() == m[1].rstrip(";").strip():
                        cur, seek = i, i + 1
                        break
            to[j] = min(cur, len(a) - 1)
    return lambda line: to[line - 1] + 1 if 1 <= line <= len(to) else line


@contextmanager
def at_user_lines(original: str, sanitized: str, filename: str) -> Iterator[None]:
    """Run a sanitized module: a :class:`PtxkitError` located in ``filename`` leaves with the user's
    line and its text instead of the sanitized text's."""
    try:
        yield
    except PtxkitError as e:
        if original != sanitized and any(d.file == filename and d.line > 0 for d in e.diagnostics):
            to = line_map(original, sanitized)
            lines, slines = original.split("\n"), sanitized.split("\n")
            for d in e.diagnostics:
                if d.file == filename and 0 < d.line <= len(slines):
                    was = slines[d.line - 1]
                    d.line = to(d.line)
                    d.source_line = lines[d.line - 1]
                    if d.source_line != was:  # a line of an expansion: point at the instruction
                        d.col = len(d.source_line) - len(d.source_line.lstrip()) + 1
            e.args = (e.render(),)
        raise
