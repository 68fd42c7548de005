"""The project's one error type for bad input, rendered as ``FILE:LINE:COL: error: MESSAGE``.

Rendering is bounded whatever the input (docs/cli.md: stderr stays small): at most
:data:`MAX_DIAGNOSTICS` diagnostics are printed per error (then one "too many errors" line, like a
compiler's error limit), and an echoed source line is clipped to :data:`CONTEXT` characters either
side of the caret."""

from __future__ import annotations

from dataclasses import dataclass

MAX_DIAGNOSTICS = 50
"""How many diagnostics one file reports before the parser stops (a compiler's error limit)."""

CONTEXT = 80
"""Characters of the echoed source line shown on either side of the caret."""


def clip_line(text: str, col: int) -> tuple[str, int]:
    """``text`` clipped to :data:`CONTEXT` characters around 1-based column ``col`` (``...`` marks
    a cut), and the 1-based column of the same character in the clipped text."""
    if len(text) <= 2 * CONTEXT + 1:
        return text, col
    at = min(max(col - 1, 0), len(text))
    start = max(0, at - CONTEXT)
    end = min(len(text), at + CONTEXT + 1)
    head = "..." if start > 0 else ""
    tail = "..." if end < len(text) else ""
    return head + text[start:end] + tail, at - start + len(head) + 1


def printable(text: str) -> str:
    """``text`` as valid UTF-8 for any stream: the undecodable bytes of a source (kept as lone
    surrogates by the ``surrogateescape`` decoding every reader uses) are shown as ``\\xNN``."""
    if text.isascii():
        return text
    return text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


@dataclass
class Diagnostic:
    """One located problem. ``line``/``col`` are 1-based; ``source_line`` is the text of that line.
    ``line == 0`` means the problem has no position in the file (an unreadable file): it renders
    as ``FILE: error: MESSAGE``."""

    file: str
    line: int
    col: int
    message: str
    source_line: str | None = None
    severity: str = "error"

    def render(self) -> str:
        if self.line <= 0:
            return printable(f"{self.file}: {self.severity}: {self.message}")
        head = printable(f"{self.file}:{self.line}:{self.col}: {self.severity}: {self.message}")
        if self.source_line is None:
            return head
        text, col = clip_line(self.source_line.rstrip("\r\n").expandtabs(1), self.col)
        caret = " " * len(printable(text[:max(col - 1, 0)])) + "^"
        return f"{head}\n{printable(text)}\n{caret}"


class PtxkitError(Exception):
    """Bad input (a file, an argument, a spec). Carries one or more diagnostics; the CLI prints
    them and exits 2. Never raised for internal bugs. ``truncated``: the producer stopped at the
    error limit, so there may be more problems than listed."""

    def __init__(self, diagnostics: list[Diagnostic] | Diagnostic | str, *, file: str = "<input>",
                 line: int = 0, col: int = 0, truncated: bool = False):
        if isinstance(diagnostics, str):
            diagnostics = [Diagnostic(file, line, col, diagnostics)]
        elif isinstance(diagnostics, Diagnostic):
            diagnostics = [diagnostics]
        self.diagnostics: list[Diagnostic] = list(diagnostics)
        self.truncated = truncated
        super().__init__(self.render())

    @property
    def first(self) -> Diagnostic:
        return self.diagnostics[0]

    def render(self) -> str:
        shown = [d.render() for d in self.diagnostics[:MAX_DIAGNOSTICS]]
        if self.truncated or len(self.diagnostics) > MAX_DIAGNOSTICS:
            shown.append(f"{self.first.file}: note: too many errors, stopping after the first "
                         f"{min(len(self.diagnostics), MAX_DIAGNOSTICS)}")
        return "\n".join(shown)


class UsageError(PtxkitError):
    """A bad command-line argument (no file position: rendered as ``ptxkit: error: …``)."""

    def __init__(self, message: str):
        super().__init__(Diagnostic("ptxkit", 0, 0, message))

    def render(self) -> str:
        return "\n".join(printable(f"ptxkit: error: {d.message}") for d in self.diagnostics)


class NotImplementedInstruction(PtxkitError):
    """An instruction the simulator/sanitizer cannot model; reported with its source position."""


class BoundExceeded(PtxkitError):
    """A bound (``--max-steps``) cut the work before it finished: not a result (the CLI exits 3)."""
