"""The one registry of selectable PTX memory models (read by the CLI, the explorer and every exporter).

``MODELS`` maps a name to a :class:`Model`: which axioms apply (names of ``axioms.AXIOMS``) and which
switches the relations use. ``ptxkit.consistency.models`` documents each model and checks executions
against them; ``lean/PtxModel/Model.lean`` mirrors this table (``tests/test_export_lean.py``); the SMT
writer encodes exactly the axioms a model lists.
"""

from __future__ import annotations

from dataclasses import dataclass

from ptxkit.errors import UsageError


@dataclass(frozen=True)
class Model:
    """A memory model as data."""

    name: str
    axioms: tuple[str, ...]
    proxies: bool
    cause_base_includes_po: bool
    description: str = ""

    @property
    def ident(self) -> str:
        """The name as an identifier (``ptx-7.5`` → ``ptx_7_5``): the Lean definition of the model."""
        return self.name.replace("-", "_").replace(".", "_")


MODELS: dict[str, Model] = {
    "ptx-7.5": Model(
        "ptx-7.5",
        ("coherence", "coherence-ms-total", "fence-sc", "atomicity", "no-thin-air", "causality"),
        proxies=True, cause_base_includes_po=True,
        description="PTX ISA 7.5+ (§8, proxies); Causality irreflexive((rf|fr);cause)"),
    "ptx-6.0": Model(
        "ptx-6.0",
        ("coherence", "coherence-ms-total", "fence-sc", "atomicity", "no-thin-air",
         "sc-per-location", "causality"),
        proxies=False, cause_base_includes_po=False,
        description="PTX ISA 6.0 (no proxies; SC-per-Location)"),
    "ptx-7.5-alloy": Model(
        "ptx-7.5-alloy",
        ("coherence", "coherence-ms-total", "fence-sc", "atomicity", "no-thin-air", "causality-alloy"),
        proxies=True, cause_base_includes_po=True,
        description="PTX 7.5 with the ISCA'22 Alloy Causality irreflexive((rf|co|fr)?;cause)"),
}

DEFAULT_MODEL = "ptx-7.5"


def get_model(model: Model | str) -> Model:
    """The model named ``model`` (a :class:`Model` is returned as is); unknown names are a usage error."""
    if isinstance(model, Model):
        return model
    if model not in MODELS:
        raise UsageError(f"unknown memory model {model!r} (choose from {', '.join(MODELS)})")
    return MODELS[model]


__all__ = ["DEFAULT_MODEL", "MODELS", "Model", "get_model"]
