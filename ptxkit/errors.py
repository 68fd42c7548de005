"""The project's one error type for bad input, rendered as ``FILE:LINE:COL: error: MESSAGE``."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class Diagnostic:
    """One located problem. ``line``/``col`` are 1-based; ``source_line`` is the text of that line."""

    file: str
    line: int
    col: int
    message: str
    source_line: str | None = None
    severity: str = "error"

    def render(self) -> str:
        head = f"{self.file}:{self.line}:{self.col}: {self.severity}: {self.message}"
        if self.source_line is None:
            return head
        text = self.source_line.rstrip("\r\n").expandtabs(1)
        caret = " " * max(self.col - 1, 0) + "^"
        return f"{head}\n{text}\n{caret}"


class PtxkitError(Exception):
    """Bad input (a file, an argument, a spec). Carries one or more diagnostics; the CLI prints
    them and exits 2. Never raised for internal bugs."""

    def __init__(self, diagnostics: list[Diagnostic] | Diagnostic | str, *, file: str = "<input>",
                 line: int = 0, col: int = 0):
        if isinstance(diagnostics, str):
            diagnostics = [Diagnostic(file, line, col, diagnostics)]
        elif isinstance(diagnostics, Diagnostic):
            diagnostics = [diagnostics]
        self.diagnostics: list[Diagnostic] = list(diagnostics)
        super().__init__(self.render())

    @property
    def first(self) -> Diagnostic:
        return self.diagnostics[0]

    def render(self) -> str:
        return "\n".join(d.render() for d in self.diagnostics)


class UsageError(PtxkitError):
    """A bad command-line argument (no file position: rendered as ``ptxkit: error: …``)."""

    def __init__(self, message: str):
        super().__init__(Diagnostic("ptxkit", 0, 0, message))

    def render(self) -> str:  # type: ignore[override]
        return "\n".join(f"ptxkit: error: {d.message}" for d in self.diagnostics)


class NotImplementedInstruction(PtxkitError):
    """An instruction the simulator/sanitizer cannot model; reported with its source position."""


class BoundExceeded(PtxkitError):
    """A bound (``--max-steps``) cut the work before it finished: not a result (the CLI exits 3)."""
