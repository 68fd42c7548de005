"""`ptxkit sanitize` (docs/cli.md)."""

from __future__ import annotations

import argparse

from ptxkit.errors import UsageError

HELP = "sanitize (not built yet)"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("rest", nargs="*")
    p.add_argument("--json", action="store_true")


def run(args: argparse.Namespace) -> int:
    raise UsageError("'ptxkit sanitize' is not built yet")
