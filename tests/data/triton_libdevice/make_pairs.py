"""Regenerate the plain/FPSan PTX pairs of this folder (needs Triton 3.9.0: pip install triton==3.9.0).

    python tests/data/triton_libdevice/make_pairs.py k_sin_f32 k_cos_f32 ...

Each single-op kernel of ``ptxkit.corpus.triton_kernels.single_op_matrix()`` is compiled by
``ptxkit.corpus.triton_check.compile_ptx`` (sm_90, the options of the shared triton_fpsan pairs) plain
(NAME.plain.ptx) and with ``instrumentation_mode="fpsan"`` (NAME.fpsan.ptx); meta.json keeps the launch
facts of each build (shared bytes, scratch sizes) that the simulator needs. ``seedN`` is the random kernel
``generate(N)`` of ``python -m ptxkit.corpus.triton_gen``.
"""

import json
import sys
from dataclasses import asdict
from pathlib import Path

from ptxkit.corpus.triton_check import compile_ptx
from ptxkit.corpus.triton_kernels import generate, idiom_kernels, single_op_matrix

here = Path(__file__).resolve().parent
specs = {k.name: k for k in list(single_op_matrix()) + list(idiom_kernels())}
meta_path = here / "meta.json"
meta = json.loads(meta_path.read_text()) if meta_path.is_file() else {}
for name in sys.argv[1:]:
    for mode in ("plain", "fpsan"):
        spec = generate(int(name[4:])) if name.startswith("seed") else specs[name]
        comp = compile_ptx(spec, "" if mode == "plain" else mode)
        assert not comp.error, comp.error
        (here / f"{name}.{mode}.ptx").write_text(comp.ptx)
        d = asdict(comp)
        del d["ptx"], d["error"]
        meta[f"{name}.{mode}"] = d
meta_path.write_text(json.dumps(meta, indent=1, sort_keys=True) + "\n")
