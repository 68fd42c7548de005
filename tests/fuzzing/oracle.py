"""The contract of docs/cli.md and issue 9 as a judgement on one invocation.

A finding is ``(kind, detail)``. Kinds:
- ``traceback``: a Python traceback on stderr;
- ``exit70``: ``ptxkit: internal error`` (exit 70);
- ``hang``: killed at the per-input timeout;
- ``timeout-overrun``: ``explore --timeout S`` ran longer than 1.1 S (+ a small fixed slack for
  process exit and measurement);
- ``stderr-overrun``: more than 1 MB of stderr;
- ``crash``: died of a signal, or an exit status the verb never uses;
- ``bad-location``: an exit 2 whose diagnostics are not ``FILE:LINE:COL: error:`` with a real line
  (1 ≤ LINE ≤ lines of FILE, 1 ≤ COL ≤ length of the line + 1, echoed line taken from that line), nor
  a whole-file ``FILE: error:`` for a FILE named on the command line, nor a location-less usage error
  ``ptxkit VERB: error:``. Lines end at ``\\n`` only (as for sed, grep -n, wc -l).
- ``clobbered`` (judged by the campaign): a hostile case changed an input file of its fixture or
  replaced the character device it was told to write to;
- ``ptxas-rejects-output`` (judged by the campaign, with ptxas): litmus2ptx exited 0 but ptxas rejects
  the kernel it wrote;
- ``unexpected-exit``: a hostile case whose documented answer is a refusal (exit 2) got another status.
"""

from __future__ import annotations

import re
import signal
from collections.abc import Set
from dataclasses import dataclass
from pathlib import Path

from .runner import Outcome

STDERR_LIMIT = 1024 * 1024
TIMEOUT_TOLERANCE = 0.10
#: Fixed slack on top of the 10 %: fork/exit and the parent's wake-up, on a loaded 2-core machine.
TIMEOUT_SLACK_S = 0.25

VERB_EXITS = {
    "parse": {0, 2}, "sanitize": {0, 2}, "litmus2ptx": {0, 2}, "run": {0, 2, 3},
    "equiv": {0, 1, 2, 3}, "verify": {0, 1, 2, 3},
    "explore": {0, 1, 2, 3, 4}, "bench": {0, 2},  # explore 4: NoExecution
}

LOCATED = re.compile(r"^(?P<file>.+?):(?P<line>-?\d+):(?P<col>-?\d+): (?P<sev>error|warning|note): ")
USAGE = re.compile(r"^ptxkit(?: (?P<verb>[a-z0-9]+))?: error: ")
#: A whole-file diagnostic with no position (``FILE: error: cannot read …``): FILE must be named on the
#: command line (as an argument, an option value or inside an --arg spec).
FILE_LEVEL = re.compile(r"^(?P<file>[^\n]+?): (?P<sev>error|warning|note): ")
ELLIPSIS = ("...", "…")


@dataclass(frozen=True)
class Finding:
    kind: str
    detail: str


def _verb(argv: list[str]) -> str | None:
    for a in argv:
        if not a.startswith("-"):
            return a if a in VERB_EXITS else None
    return None


def _lines_of(path: Path) -> list[str] | None:
    try:
        if not path.is_file():
            return None
        data = path.read_bytes()
    except OSError:
        return None
    # a line ends at "\n" only (PTX and litmus text); "\r\n" is one ending
    return [s[:-1] if s.endswith("\r") else s for s in data.decode("utf-8", "surrogateescape").split("\n")]


ESCAPE = re.compile(r"\\(x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8})")


def _printable(s: str) -> str:
    """The visible ASCII of a line, without the escapes stderr writes for what it cannot encode."""
    return ESCAPE.sub("", "".join(c for c in s if 0x20 < ord(c) < 0x7F))


def _check_located(m: re.Match, echo: str | None, caret: str | None, argv: list[str], cwd: Path | None,
                   sources: dict[str, str]) -> str | None:
    file, line, col = m["file"], int(m["line"]), int(m["col"])
    if file in sources:
        lines: list[str] | None = sources[file].split("\n")
    else:
        p = Path(file)
        if not p.is_absolute() and cwd is not None:
            p = cwd / p
        lines = _lines_of(p)
    if lines is None:
        return f"{file}:{line}:{col}: not a readable file"
    if not 1 <= line <= len(lines):
        return f"{file}:{line}:{col}: line outside 1..{len(lines)}"
    text = lines[line - 1]
    if not 1 <= col <= len(text) + 1:
        return f"{file}:{line}:{col}: column outside 1..{len(text) + 1}"
    if echo is not None and caret is not None and caret.strip() == "^":
        shown = echo
        for e in ELLIPSIS:
            shown = shown.replace(e, "\x00")
        want = _printable(text.expandtabs(1))
        for piece in shown.split("\x00"):
            if _printable(piece) and _printable(piece) not in want:
                return f"{file}:{line}:{col}: echoed line is not line {line} of the file"
    return None


def judge(out: Outcome, *, cwd: Path | None = None, explore_timeout: float | None = None,
          expect: Set[int] | None = None, sources: dict[str, str] | None = None) -> list[Finding]:
    """Every way ``out`` breaks the contract (empty when it keeps it)."""
    found: list[Finding] = []
    err = out.stderr_text
    verb = _verb(out.argv)
    if "Traceback (most recent call last)" in err:
        last = [ln for ln in err.splitlines() if ln and not ln.startswith(" ")]
        found.append(Finding("traceback", last[-1][:200] if last else "?"))
    if out.rc == 70 or "internal error" in err:
        m = re.search(r"internal error: (\w+)", err)
        found.append(Finding("exit70", m[1] if m else "?"))
    if out.timed_out:
        found.append(Finding("hang", f"killed after {out.wall:.1f}s"))
    elif explore_timeout is not None and out.wall > explore_timeout * (1 + TIMEOUT_TOLERANCE) + TIMEOUT_SLACK_S:
        found.append(Finding("timeout-overrun", f"--timeout {explore_timeout:g} took {out.wall:.2f}s"))
    if out.stderr_size > STDERR_LIMIT:
        found.append(Finding("stderr-overrun", f"{out.stderr_size} bytes"))
    if out.signal is not None and not out.timed_out and not (out.signal == signal.SIGXFSZ
                                                             and out.stderr_size > STDERR_LIMIT):
        found.append(Finding("crash", f"signal {out.signal}"))
    elif out.rc is not None and out.rc not in VERB_EXITS.get(verb or "", {0, 2}) and out.rc != 70 \
            and "Traceback" not in err:
        found.append(Finding("crash", f"exit {out.rc}"))
    if expect is not None and out.rc is not None and out.rc not in expect and not found:
        found.append(Finding("unexpected-exit", f"exit {out.rc}, expected {sorted(expect)}"))
    if out.rc == 2 and out.stderr_size <= STDERR_LIMIT:
        problem = location_problem(err, out.argv, verb, cwd, sources or {})
        if problem:
            found.append(Finding("bad-location", problem))
    return found


def location_problem(err: str, argv: list[str], verb: str | None, cwd: Path | None,
                     sources: dict[str, str]) -> str | None:
    """Why the diagnostics of an exit 2 break the contract, or None."""
    lines = err.split("\n")
    errors = 0
    for i, ln in enumerate(lines):
        m = LOCATED.match(ln)
        if m:
            if m["sev"] == "error":
                errors += 1
            echo = lines[i + 1] if i + 1 < len(lines) else None
            caret = lines[i + 2] if i + 2 < len(lines) else None
            problem = _check_located(m, echo, caret, argv, cwd, sources)
            if problem:
                return problem
            continue
        u = USAGE.match(ln)
        f = FILE_LEVEL.match(ln) if not u else None
        if f and f["file"] and any(f["file"] == a or a.endswith(":" + f["file"]) or a.endswith("=" + f["file"])
                                   for a in argv):
            errors += f["sev"] == "error"
            continue
        if u:
            if verb is not None and u["verb"] != verb:
                return f"usage error names {u['verb'] or 'no verb'} (want 'ptxkit {verb}: error:') | {ln[:120]}"
            errors += 1
    if not errors:
        if verb is None and not argv and "usage:" in err:  # bare `ptxkit`: the help, exit 2
            return None
        first = next((ln for ln in lines if ln.strip() and not ln.startswith("usage:")), "")
        return f"no 'FILE:LINE:COL: error:' nor 'ptxkit {verb or 'VERB'}: error:' line: {first[:120]!r}"
    return None
