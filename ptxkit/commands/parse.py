"""`ptxkit parse` (docs/cli.md)."""

from __future__ import annotations

import argparse

from ptxkit.errors import UsageError

HELP = "parse (not built yet)"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("rest", nargs="*")
    p.add_argument("--json", action="store_true")


def run(args: argparse.Namespace) -> int:
    raise UsageError("'ptxkit parse' is not built yet")
