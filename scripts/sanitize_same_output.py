"""Check that a refactoring of the sanitizer changes no output: sanitize every corpus PTX file with two
source trees (each a directory holding a ``ptxkit`` package) and compare the texts byte for byte.

    python scripts/sanitize_same_output.py OLD_TREE NEW_TREE [CORPUS_DIR]

Each tree runs in its own interpreter (``PYTHONPATH=TREE``) under two option sets: the defaults, and
every non-default option at once (``atomics='ring'``, ``mma='limbs'``, ``sign_xor_as_neg``,
``homomorphic_casts``). Prints the number of files compared, identical and different; exit 1 on any
difference. Inputs the sanitizer refuses (PtxkitError) must be refused by both, with the same message.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

WORKER = r"""
import hashlib, json, sys
from pathlib import Path
from ptxkit.errors import PtxkitError
from ptxkit.fpsan_ptx import sanitize_text
corpus = Path(sys.argv[1])
opts = json.loads(sys.argv[2])
out = {}
for f in sorted(corpus.rglob("*.ptx")):
    raw = f.read_bytes().decode("utf-8", "surrogateescape")
    try:
        text = sanitize_text(raw, f.name, **opts).text
        out[f.relative_to(corpus).as_posix()] = hashlib.sha256(text.encode("utf-8", "surrogateescape")).hexdigest()
    except PtxkitError as e:
        out[f.relative_to(corpus).as_posix()] = "error: " + e.render()
json.dump(out, sys.stdout)
"""

OPTION_SETS = [{}, {"atomics": "ring", "mma": "limbs", "sign_xor_as_neg": True, "homomorphic_casts": True}]


def digests(tree: Path, corpus: Path, opts: dict) -> dict[str, str]:
    env = dict(os.environ, PYTHONPATH=str(tree))
    r = subprocess.run([sys.executable, "-c", WORKER, str(corpus), json.dumps(opts)], env=env, cwd=tree,
                       capture_output=True, text=True, check=True)
    return json.loads(r.stdout)


def main(argv: list[str]) -> int:
    old, new = Path(argv[0]).resolve(), Path(argv[1]).resolve()
    corpus = Path(argv[2]) if len(argv) > 2 else Path(__file__).resolve().parents[2] / "shared" / "corpora" / "ptx"
    bad = 0
    for opts in OPTION_SETS:
        a, b = digests(old, corpus, opts), digests(new, corpus, opts)
        assert a.keys() == b.keys()
        diff = sorted(k for k in a if a[k] != b[k])
        bad += len(diff)
        print(f"options {opts or 'default'}: {len(a)} files, {len(a) - len(diff)} identical, {len(diff)} different")
        for k in diff:
            print(f"  DIFFERENT: {k}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
