"""`ptxkit explore` (docs/cli.md)."""

from __future__ import annotations

import argparse

from ptxkit.errors import UsageError

HELP = "explore (not built yet)"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("rest", nargs="*")
    p.add_argument("--json", action="store_true")


def run(args: argparse.Namespace) -> int:
    raise UsageError("'ptxkit explore' is not built yet")
