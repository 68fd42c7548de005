"""ptxas accepts the sanitized output of every corpus file it accepts in the original.

``-arch`` comes from the file's ``.target`` (targets older than ptxas 13's oldest, sm_75, are raised to
sm_75); ``.version`` above 9.0 is relabelled 9.0 for the local ptxas. The whole corpus runs by default
(about 3 minutes on 2 cores, the 204k-line CUB file and the mma-heavy attention kernel being most of
it); ``PTXKIT_QUICK=1`` keeps only a bounded, deterministic sample (every Triton pair, the nvcc files,
every 4th other file with float arithmetic) — the rest is marked ``slow``.
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

from ptxkit.errors import PtxkitError
from ptxkit.fpsan_ptx import sanitize_text
from tests.conftest import PTX_CORPUS, needs_ptxas, needs_shared, shared_files

_FLOAT_OP = re.compile(r"^\s*(?:@!?%?\w+\s+)?(?!ld|st|mov|setp|selp|cvta|shfl)\w+(?:\.\w+)*\.(?:f16|bf16|f32|f64)"
                       r"(?:x2)?\b", re.M)
_MMA = re.compile(r"^\s*(?:mma|wgmma)[.\w:]*\.(?:f16|bf16|tf32|f32|f64|e4m3|e5m2)", re.M)


# `make test` runs the whole corpus; PTXKIT_QUICK=1 skips the slow part for a quick local run
_SLOW_ONLY = pytest.mark.skipif(bool(os.environ.get("PTXKIT_QUICK")), reason="slow corpus part skipped (PTXKIT_QUICK=1)")


def _select() -> list:
    params = []
    others = 0
    for f in shared_files("**/*.ptx"):
        rel = f.relative_to(PTX_CORPUS).as_posix()
        text = f.read_text(errors="replace")
        big = f.stat().st_size > 150_000 or bool(_MMA.search(text))
        has_float = bool(_FLOAT_OP.search(text))
        if rel.startswith("triton_fpsan/") and "fpsan" not in f.name:
            fast = not big
        elif rel.startswith("nvcc/"):
            fast = not big
        elif has_float and not big:
            others += 1
            fast = others % 4 == 1
        else:
            fast = False
        params.append(pytest.param(f, id=rel, marks=() if fast else (pytest.mark.slow, _SLOW_ONLY)))
    return params


def _prep(text: str) -> tuple[str, str]:
    text = re.sub(r"^(\s*\.version\s+)(\d+)\.(\d+)",
                  lambda m: m.group(1) + ("9.0" if (int(m.group(2)), int(m.group(3))) > (9, 0)
                                          else f"{m.group(2)}.{m.group(3)}"), text, count=1, flags=re.M)
    m = re.search(r"^\s*\.target\s+(\w+)", text, re.M)
    arch = m.group(1) if m else "sm_75"
    n = re.match(r"sm_(\d+)", arch)
    if n and int(n.group(1)) < 75:
        arch = "sm_75"
    return text, arch


def _ptxas(text: str, arch: str, path: Path) -> subprocess.CompletedProcess:
    path.write_text(text, errors="surrogateescape")
    return subprocess.run(["ptxas", f"-arch={arch}", str(path), "-o", "/dev/null"], capture_output=True,
                          text=True, timeout=600)


@needs_shared
@needs_ptxas
@pytest.mark.parametrize("path", _select())
def test_sanitized_corpus_file_is_accepted_by_ptxas(path: Path, tmp_path):
    raw = path.read_bytes().decode("utf-8", "surrogateescape")
    text, arch = _prep(raw)
    if _ptxas(text, arch, tmp_path / "orig.ptx").returncode != 0:
        pytest.skip("ptxas rejects the original")
    try:
        res = sanitize_text(raw, str(path))
    except PtxkitError as e:
        pytest.fail(f"sanitize rejected a file ptxas accepts: {e.render()[:500]}")
    if res.text == raw:
        return
    _assert_only_float_lines_changed(raw, res.text)
    out, _ = _prep(res.text)
    r = _ptxas(out, arch, tmp_path / "san.ptx")
    assert r.returncode == 0, r.stderr[:2000]


def _assert_only_float_lines_changed(raw: str, out: str) -> None:
    """Everything else byte-identical: every original line missing from the output is an instruction
    the output names in its ``// fpsan: <original>`` comment."""
    import difflib

    a, b = raw.splitlines(), out.splitlines()
    originals = {ln.strip()[len("// fpsan: "):] for ln in b if ln.strip().startswith("// fpsan: ")}
    sm = difflib.SequenceMatcher(None, a, b, autojunk=False)
    for tag, i1, i2, _, _ in sm.get_opcodes():
        for ln in a[i1:i2] if tag in ("replace", "delete") else []:
            code = ln.split("//")[0]
            if code.count(";") > 1 or "{" in code or "}" in code:
                continue  # several statements on one line: rewritten inline, without the comment
            norm = " ".join(code.split())
            if ";" not in code and any(norm in o for o in originals):
                continue  # one line of a statement written over several lines (the comment joins them)
            assert norm in originals, f"changed a line that is not a float op: {ln!r}"
