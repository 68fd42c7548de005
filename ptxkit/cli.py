"""The ``ptxkit`` command line (contract: docs/cli.md). Thin: each verb lives in
``ptxkit/commands/<verb>.py`` with ``HELP``, ``add_arguments(parser)`` and ``run(args) -> int``."""

from __future__ import annotations

import argparse
import importlib
import os
import sys

from ptxkit.errors import PtxkitError, UsageError

VERBS = ["parse", "run", "sanitize", "equiv", "explore", "litmus2ptx", "bench"]


class _Parser(argparse.ArgumentParser):
    """argparse that reports usage errors as ``ptxkit: error:`` with exit 2 (its default too)."""

    def error(self, message: str):  # type: ignore[override]
        self.print_usage(sys.stderr)
        raise UsageError(message)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="ptxkit", description="PTX-level FPSan, simulator and memory-model explorer")
    parser.add_argument("--version", action="version", version=_version())
    sub = parser.add_subparsers(dest="verb", metavar="VERB", parser_class=_Parser)
    for verb in VERBS:
        mod = importlib.import_module(f"ptxkit.commands.{verb}")
        p = sub.add_parser(verb, help=mod.HELP, description=mod.HELP)
        mod.add_arguments(p)
        p.set_defaults(_run=mod.run)
    return parser


def _version() -> str:
    from ptxkit import __version__

    return f"ptxkit {__version__}"


def main(argv: list[str] | None = None) -> int:
    try:
        parser = build_parser()
        args = parser.parse_args(argv)
        if not getattr(args, "_run", None):
            parser.print_help(sys.stderr)
            return 2
        return int(args._run(args) or 0)
    except PtxkitError as e:
        print(e.render(), file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0
    except KeyboardInterrupt:
        print("ptxkit: interrupted", file=sys.stderr)
        return 130
    except Exception as e:  # an internal bug, not bad input: say so in one line
        if os.environ.get("PTXKIT_DEBUG"):
            raise
        print(f"ptxkit: internal error: {type(e).__name__}: {e} (set PTXKIT_DEBUG=1 for a traceback)",
              file=sys.stderr)
        return 70


if __name__ == "__main__":
    raise SystemExit(main())
