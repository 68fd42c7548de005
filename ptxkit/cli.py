"""The ``ptxkit`` command line (contract: docs/cli.md). Thin: each verb lives in
``ptxkit/commands/<verb>.py`` with ``HELP``, ``add_arguments(parser)`` and ``run(args) -> int``.

``main`` is the one place that turns outcomes into exit statuses: bad input (PtxkitError) → 2, a bound
that cut the work (BoundExceeded) → 3, Ctrl-C/SIGTERM → one line ``ptxkit VERB: interrupted`` and 130,
a failed write to stdout (``> /dev/full``) → 2, anything else is an internal bug → 70."""

from __future__ import annotations

import argparse
import contextlib
import errno
import importlib
import os
import signal
import sys
from types import FrameType, ModuleType
from typing import NoReturn

from ptxkit import __version__
from ptxkit.errors import BoundExceeded, PtxkitError, UsageError

VERBS = ("parse", "run", "sanitize", "equiv", "explore", "verify", "litmus2ptx", "bench")


def command(verb: str) -> ModuleType:
    """The module of one verb, ``ptxkit/commands/<verb>.py``. Loaded by name, and only the verb asked
    for: a verb pulls in its whole pipeline (numpy, networkx, lark, z3 …), and ``ptxkit parse`` should
    not pay for ``explore`` (0.15 s to start instead of 0.8 s)."""
    return importlib.import_module(f"ptxkit.commands.{verb}")


class _ArgumentError(UsageError):
    """An argparse error; ``prog`` is ``ptxkit`` or ``ptxkit VERB``."""

    def __init__(self, message: str, prog: str):
        super().__init__(message)
        self.prog = prog


class _Parser(argparse.ArgumentParser):
    """argparse that reports usage errors as ``ptxkit VERB: error:`` with exit 2 (its default too)."""

    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        raise _ArgumentError(message, self.prog)


# errors of a write to an already open stream (files are written by ptxkit.io.atomic_write, which
# reports its own errors with the path): what is left is stdout
_WRITE_ERRNOS = {errno.ENOSPC, errno.EIO, errno.EFBIG, errno.EDQUOT, errno.EROFS}


class _Terminated(BaseException):
    """SIGTERM, raised in the main thread so that ``finally`` blocks (temporary files) still run."""


def build_parser(verb: str = "") -> argparse.ArgumentParser:
    """The whole command line, or with ``verb`` only that verb's part (what ``main`` parses with)."""
    parser = _Parser(prog="ptxkit", description="PTX-level FPSan, simulator and memory-model explorer")
    parser.add_argument("--version", action="version", version=f"ptxkit {__version__}")
    sub = parser.add_subparsers(dest="verb", metavar="VERB", parser_class=_Parser)
    for name in (verb,) if verb else VERBS:
        mod = command(name)
        p = sub.add_parser(name, help=mod.HELP, description=mod.HELP)
        mod.add_arguments(p)
        p.set_defaults(_run=mod.run)
    return parser


def _render(e: PtxkitError, prog: str) -> str:
    if isinstance(e, _ArgumentError):
        prog = e.prog
    if isinstance(e, UsageError):
        return "\n".join(f"{prog}: error: {d.message}" for d in e.diagnostics)
    return e.render()


def _verb_of(argv: list[str] | None) -> str:
    for a in sys.argv[1:] if argv is None else argv:
        if a in VERBS:
            return a
        if not a.startswith("-"):
            break
    return ""


def _silence_stdout() -> None:
    """After stdout failed (EPIPE, ENOSPC), point it at /dev/null so the interpreter's final flush
    does not fail again with a second message."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass


def _on_sigterm(signum: int, frame: FrameType | None) -> None:
    raise _Terminated


def main(argv: list[str] | None = None) -> int:
    verb = _verb_of(argv)
    prog = f"ptxkit {verb}" if verb else "ptxkit"
    old_term = None
    with contextlib.suppress(ValueError):  # not the main thread: leave signals alone
        old_term = signal.signal(signal.SIGTERM, _on_sigterm)
    try:
        parser = build_parser(verb)
        args, extra = parser.parse_known_args(argv)
        if extra:  # an unknown option after the verb is the verb's error, not the top level's
            raise _ArgumentError(f"unrecognized arguments: {' '.join(extra)}", prog)
        if not getattr(args, "_run", None):
            parser.print_help(sys.stderr)
            return 2
        rc = int(args._run(args) or 0)
        sys.stdout.flush()
        return rc
    except BoundExceeded as e:
        print(e.render(), file=sys.stderr)
        return 3
    except PtxkitError as e:
        print(_render(e, prog), file=sys.stderr)
        return 2
    except BrokenPipeError:
        _silence_stdout()
        return 0
    except OSError as e:
        if e.filename is None and e.errno in _WRITE_ERRNOS:  # writing stdout failed (> /dev/full)
            _silence_stdout()
            print(f"{prog}: error: cannot write the output: {e.strerror or e}", file=sys.stderr)
            return 2
        return _internal(e, prog)
    except KeyboardInterrupt:
        print(f"{prog}: interrupted", file=sys.stderr)
        return 130
    except _Terminated:
        print(f"{prog}: terminated", file=sys.stderr)
        return 143
    except Exception as e:  # an internal bug, not bad input: say so in one line
        return _internal(e, prog)
    finally:
        if old_term is not None:
            signal.signal(signal.SIGTERM, old_term)


def _internal(e: BaseException, prog: str) -> int:
    if os.environ.get("PTXKIT_DEBUG"):
        raise e
    print(f"{prog}: internal error: {type(e).__name__}: {e} (set PTXKIT_DEBUG=1 for a traceback)",
          file=sys.stderr)
    return 70


def entry() -> NoReturn:
    """The console script and ``python -m ptxkit``: :func:`main`, then leave without the interpreter's
    teardown. Freeing a large exploration's objects took 0.6 s after the verdict was printed, past
    ``--timeout``; every output file is closed by then and stdout/stderr are flushed here (mypy leaves
    the same way, for the same reason)."""
    rc = main()
    with contextlib.suppress(OSError, ValueError):
        sys.stdout.flush()
    with contextlib.suppress(OSError, ValueError):
        sys.stderr.flush()
    os._exit(rc)


if __name__ == "__main__":
    entry()
