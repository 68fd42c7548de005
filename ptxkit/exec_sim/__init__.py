"""The execution core: instruction semantics over numpy lanes, schedulers, explorer.

Public API: :func:`run_kernel` (``ptxkit.exec_sim.launch``), :func:`parse_arg_specs`
(``ptxkit.exec_sim.args``), :func:`load_module` (parse a file with the project's front end).
"""

from __future__ import annotations


def __getattr__(name):  # lazy: importing the package must stay cheap for the explorer
    if name in ("run_kernel", "RunResult"):
        from ptxkit.exec_sim import launch
        return getattr(launch, name)
    if name in ("parse_arg_specs", "KernelArg"):
        from ptxkit.exec_sim import args
        return getattr(args, name)
    if name in ("load_module", "parse_text"):
        from ptxkit.exec_sim import frontend
        return getattr(frontend, name)
    raise AttributeError(name)
