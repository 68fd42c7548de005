"""``ptxkit verify``: race freedom, well-synchronization and equivalence of a kernel launch under the
PTX memory model (ISA §8), decided on an observed execution of the simulator (``exec_sim``) with a
vector-clock happens-before analysis. Plug-in rules (``verify.context.Rule``) turn the simulator's
events into happens-before edges and findings; ``verify.rules`` holds the built-in ones."""

from __future__ import annotations

from ptxkit.verify.context import Context, Finding, Rule
from ptxkit.verify.rules import default_rules

__all__ = ["Context", "Finding", "Rule", "default_rules"]
