"""The committed Lean obligation examples (lean/Obligations/*.lean): which Dat3M test each one is,
and how to regenerate them — ``python tests/lean_examples.py ../shared/corpora/litmus/dat3m``
(tests/test_export_lean.py checks they are up to date)."""

from __future__ import annotations

import sys
from pathlib import Path

from ptxkit.explore.engine import explore
from ptxkit.export.claims import to_obligations
from ptxkit.export.lean import lean_text
from ptxkit.litmus.parser import parse_litmus_file

# lean/Obligations/<module>.lean ← the explored Dat3M test (so `make lean` checks real obligations)
EXAMPLES = {
    "MP_gpu": ("litmus/PTX/Manual/MP-gpu.litmus", "ptx-7.5"),
    "SB_sc_gpu": ("litmus/PTX/Manual/SB+sc-gpu.litmus", "ptx-7.5"),
    "PC_bar_sync_sync_1": ("litmus/PTX/Manual/PC-bar-sync-sync-1.litmus", "ptx-7.5"),
    "CoWW_": ("litmus/PTX/Manual/CoWW_.litmus", "ptx-7.5"),
    "MP_RMW": ("litmus/PTX/Manual/MP+RMW.litmus", "ptx-7.5"),  # rmw edges: Atomicity, observation
    "Atom_SB_ptx_6_0": ("litmus/PTX/Nvidia/Atom-SB.litmus", "ptx-6.0"),  # ptx_6_0, SC-per-Location
    "Proxy_MP_Alias_diffProxy_aliasFence_proxyFence_correctOrder": (
        "litmus/PTX/Nvidia/proxy/Proxy-MP-Alias+diffProxy-aliasFence+proxyFence-correctOrder.litmus",
        "ptx-7.5"),
}


def example_text(corpus: Path, module: str) -> str:
    """The text of one committed example, with the corpus path replaced by ``<dat3m>``."""
    rel, model = EXAMPLES[module]
    res = explore(parse_litmus_file(corpus / rel), model, keep_candidates=None)
    return lean_text(to_obligations(res), module=module).replace(str(corpus), "<dat3m>")


if __name__ == "__main__":
    corpus = Path(sys.argv[1] if len(sys.argv) > 1 else "../shared/corpora/litmus/dat3m")
    out = Path(__file__).resolve().parents[1] / "lean" / "Obligations"
    out.mkdir(parents=True, exist_ok=True)
    for mod in EXAMPLES:
        (out / f"{mod}.lean").write_text(example_text(corpus, mod))
        print(out / f"{mod}.lean")
