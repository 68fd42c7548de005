"""Argument groups shared by several verbs (docs/cli.md, "Kernel arguments")."""

from __future__ import annotations

import argparse

from ptxkit.exec_sim.args import parse_dim

__all__ = ["add_kernel_arguments", "parse_dim"]


def add_kernel_arguments(p: argparse.ArgumentParser, *, kernel_b: bool = False) -> None:
    """``--arg NAME=SPEC`` (repeatable), ``--grid``, ``--block``, ``--kernel``, ``--shared``, ``--seed``."""
    g = p.add_argument_group("kernel arguments")
    g.add_argument("--arg", action="append", default=[], metavar="NAME=SPEC",
                   help="a kernel parameter: TYPE:VALUE, TYPE[N]:zeros|rand|FILE, or null")
    g.add_argument("--grid", default="1", metavar="X[,Y[,Z]]", help="grid shape (default 1)")
    g.add_argument("--block", default="1", metavar="X[,Y[,Z]]", help="block shape (default 1)")
    g.add_argument("--kernel", default=None, metavar="NAME", help="the .entry to run (default: the only one)")
    if kernel_b:
        g.add_argument("--kernel-b", default=None, metavar="NAME", help="the .entry of the second file")
    g.add_argument("--shared", type=int, default=0, metavar="BYTES", help="dynamic shared memory")
    g.add_argument("--seed", type=int, default=0, help="seed for rand buffers")
