"""The PTX memory consistency model (PTX ISA chapter 8): events, relations, axioms, models.

    from ptxkit.consistency import ExecutionBuilder, check
    b = ExecutionBuilder()
    w = b.write(0, "x", 1); b.barrier(0); b.barrier(1); b.read(1, "x", rf="init")
    res = check(b.build())            # CheckResult(consistent=False, violations=[Causality …])

Modules: ``events`` (data model), ``rel`` (relation algebra, two backends), ``relations`` (named
relations §8.7–§8.9), ``axioms`` (§8.10), ``models`` (``MODELS``, ``check``, ``may_extend``),
``enumerate`` (partial coherence orders; ``search_co``, the coherence-order search ``ptxkit explore``
decides every candidate with).
"""

from ptxkit.consistency.axioms import Violation
from ptxkit.consistency.events import INIT, Event, Execution, ExecutionBuilder, resolve_location
from ptxkit.consistency.models import DEFAULT_MODEL, MODELS, CheckResult, Model, check, may_extend, validate

__all__ = [
           "DEFAULT_MODEL",
           "INIT",
           "MODELS",
           "CheckResult",
           "Event",
           "Execution",
           "ExecutionBuilder",
           "Model",
           "Violation",
           "check",
           "may_extend",
           "resolve_location",
           "validate",
]
