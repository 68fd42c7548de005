"""Argument groups shared by several verbs (docs/cli.md, "Kernel arguments")."""

from __future__ import annotations

import argparse

from ptxkit.exec_sim.args import parse_dim
from ptxkit.exec_sim.limits import MAX_DYNAMIC_SHARED

__all__ = ["add_kernel_arguments", "nonnegative_int", "parse_dim", "positive_int"]


def _int(text: str, lo: int, what: str) -> int:
    try:
        v = int(text, 10)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not an integer") from None
    if v < lo:
        raise argparse.ArgumentTypeError(f"{v}: expected {what}")
    return v


def positive_int(text: str) -> int:
    """argparse type: an integer ≥ 1 (``--max-steps``, ``--trials``)."""
    return _int(text, 1, "a positive integer")


def nonnegative_int(text: str) -> int:
    """argparse type: an integer ≥ 0 (``--seed``)."""
    return _int(text, 0, "a non-negative integer")


def shared_bytes(text: str) -> int:
    """argparse type for ``--shared``: 0 … MAX_DYNAMIC_SHARED bytes (the most any GPU gives a CTA)."""
    v = _int(text, 0, "a non-negative byte count")
    if v > MAX_DYNAMIC_SHARED:
        raise argparse.ArgumentTypeError(f"{v}: a CTA has at most {MAX_DYNAMIC_SHARED} bytes of dynamic "
                                         "shared memory")
    return v


def add_kernel_arguments(p: argparse.ArgumentParser, *, kernel_b: bool = False, cluster: bool = False) -> None:
    """``--arg NAME=SPEC`` (repeatable), ``--grid``, ``--block``, ``--kernel``, ``--shared``, ``--seed``
    (and ``--cluster`` for the verbs that run clusters)."""
    g = p.add_argument_group("kernel arguments")
    g.add_argument("--arg", action="append", default=[], metavar="NAME=SPEC",
                   help="a kernel parameter: TYPE:VALUE, TYPE[N]:zeros|rand|FILE, or null")
    g.add_argument("--grid", default="1", metavar="X[,Y[,Z]]", help="grid shape (default 1)")
    g.add_argument("--block", default="1", metavar="X[,Y[,Z]]", help="block shape (default 1)")
    if cluster:
        g.add_argument("--cluster", default="1", metavar="X[,Y[,Z]]",
                       help="thread-block cluster shape (sm_90; default 1: every CTA its own cluster)")
    g.add_argument("--kernel", default=None, metavar="NAME", help="the .entry to run (default: the only one)")
    if kernel_b:
        g.add_argument("--kernel-b", default=None, metavar="NAME", help="the .entry of the second file")
    g.add_argument("--shared", type=shared_bytes, default=0, metavar="BYTES",
                   help=f"dynamic shared memory per CTA (0 .. {MAX_DYNAMIC_SHARED})")
    g.add_argument("--seed", type=nonnegative_int, default=0, help="seed for rand buffers (≥ 0)")
