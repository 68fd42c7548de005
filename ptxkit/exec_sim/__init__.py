"""The execution core: instruction semantics over numpy lanes, the decoder and the lock-step CTA scheduler.

Public API: :func:`run_kernel` (``ptxkit.exec_sim.launch``), :func:`parse_arg_specs`
(``ptxkit.exec_sim.args``), :func:`load_module` / :func:`parse_text` (parse with the project's front end).
"""

from __future__ import annotations

from ptxkit.exec_sim.args import KernelArg, parse_arg_specs
from ptxkit.exec_sim.frontend import load_module, parse_text
from ptxkit.exec_sim.launch import RunResult, run_kernel

__all__ = ["KernelArg", "RunResult", "load_module", "parse_arg_specs", "parse_text", "run_kernel"]
