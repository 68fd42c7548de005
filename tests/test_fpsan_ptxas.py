"""The ptxas sweep: every corpus PTX file that ptxas accepts is sanitized, and on every one of them

1. the sanitizer accepts it;
2. no float instruction is silently left native: each line an independent regex finds holding a
   float-typed instruction is rewritten (changed in the output) or listed in the report, unless it is
   a bit move (docs/fpsan.md §4: ``ld``/``st``/``mov``/``selp``/``shfl``/… are neither);
3. the report is consistent: each item's line holds its opcode, ``rewritten`` is 0 exactly when the
   output is the input, and only float instructions' lines changed;
4. sanitizing the output again is a fixed point (docs/cli.md);
5. ptxas accepts the output (checked when it differs from the accepted original).

``-arch`` comes from the file's ``.target`` (targets older than ptxas 13's oldest, sm_75, are raised to
sm_75); ``.version`` above 9.0 is relabelled 9.0 for the local ptxas.

Tiers: the whole sweep is marked ``slow`` (about 3 minutes on 2 cores, the 204k-line CUB file and the
mma-heavy attention kernel being most of it): ``pytest -m slow tests/test_fpsan_ptxas.py``. The default
tier (``pytest -m "not slow"``) runs a deterministic sample: one build of every Triton pair, the small
nvcc files, every 10th other file with float work and every 20th file without. ``PTXKIT_QUICK=1``
also skips the slow part when no ``-m`` is given.
"""

from __future__ import annotations

import difflib
import os
import re
import subprocess
from pathlib import Path

import pytest

from ptxkit.errors import PtxkitError
from ptxkit.fpsan_ptx import MARKER, sanitize_text
from tests.conftest import PTX_CORPUS, needs_ptxas, needs_shared, shared_files

_FLOAT_TYPES = {"f16", "bf16", "f32", "f64", "f16x2", "bf16x2", "f32x2", "tf32", "e4m3", "e5m2", "e4m3x2",
                "e5m2x2"}
# instructions that carry float bits unchanged (docs/fpsan.md §4: not listed in the report)
_BIT_MOVES = {"ld", "ldu", "st", "mov", "selp", "shfl", "prmt", "cvta", "ldmatrix", "stmatrix", "movmatrix",
              "suld", "sust", "match", "vote"}
_INSTR = re.compile(r"^\s*(?:@!?%?[\w$]+\s+)?([a-z]\w*)((?:\.[\w:]+)*)\s")
_MMA = re.compile(r"^\s*(?:mma|wgmma)[.\w:]*\.(?:f16|bf16|tf32|f32|f64|e4m3|e5m2)", re.M)

_SLOW_ONLY = pytest.mark.skipif(bool(os.environ.get("PTXKIT_QUICK")),
                                reason="slow corpus part skipped (PTXKIT_QUICK=1)")


def _float_lines(text: str) -> dict[int, str]:
    """Line number → ``opcode.mods`` of every line holding a float-typed instruction that is not a bit
    move (read off the text, independently of the parser and the sanitizer)."""
    out = {}
    for n, ln in enumerate(text.splitlines(), 1):
        code = ln.split("//")[0]
        m = _INSTR.match(code)
        if not m or ";" not in code:
            continue
        op, mods = m.group(1), m.group(2).split(".")[1:]
        if not _FLOAT_TYPES & set(mods) or op in _BIT_MOVES:
            continue
        if op in ("atom", "red") and {"exch", "cas"} & set(mods):
            continue  # bit moves
        if op == "wmma" and mods[:1] in (["load"], ["store"]):
            continue  # fragment loads/stores
        out[n] = ".".join([op, *mods])
    return out


def _select() -> list:
    params = []
    others = plain = 0
    for f in shared_files("**/*.ptx"):
        rel = f.relative_to(PTX_CORPUS).as_posix()
        text = f.read_text(errors="replace")
        big = f.stat().st_size > 150_000 or bool(_MMA.search(text))
        if rel.startswith("triton_fpsan/"):
            fast = f.name == "plain.ptx" and not big
        elif rel.startswith("nvcc/"):
            fast = not big
        elif _float_lines(text):
            others += 1
            fast = others % 10 == 1 and not big
        else:
            plain += 1
            fast = plain % 20 == 1
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
def test_sanitized_corpus_file(path: Path, tmp_path):
    raw = path.read_bytes().decode("utf-8", "surrogateescape")
    text, arch = _prep(raw)
    if _ptxas(text, arch, tmp_path / "orig.ptx").returncode != 0:
        pytest.skip("ptxas rejects the original")
    try:
        res = sanitize_text(raw, str(path))
    except PtxkitError as e:
        pytest.fail(f"sanitize rejected a file ptxas accepts: {e.render()[:500]}")
    report, out = res.report, res.text
    already = MARKER in raw
    assert report.already_sanitized == already

    # 3. the report is consistent with the output and with the file
    assert (report.rewritten == 0) == (out == raw), (report.rewritten, out == raw)
    lines = raw.splitlines()
    for item in report.items:
        assert 1 <= item.line <= len(lines) and (item.end_line or item.line) <= len(lines), item
        if not item.opcode.startswith("libdevice:"):
            assert item.opcode.split(".")[0] in lines[item.line - 1], (item, lines[item.line - 1])
    changed = _assert_only_float_lines_changed(raw, out)

    # 2. every float instruction is rewritten or reported (a sanitized file is left alone as a whole)
    if not already:
        reported = {n for i in report.items for n in range(i.line, (i.end_line or i.line) + 1)}
        silent = {n: op for n, op in _float_lines(raw).items() if n not in changed and n not in reported}
        assert not silent, f"float instructions neither rewritten nor reported: {sorted(silent.items())[:10]}"

    # 4. a fixed point
    again = sanitize_text(out, str(path))
    assert again.text == out and again.report.rewritten == 0

    # 5. ptxas accepts what changed
    if out != raw:
        r = _ptxas(_prep(out)[0], arch, tmp_path / "san.ptx")
        assert r.returncode == 0, r.stderr[:2000]


def _assert_only_float_lines_changed(raw: str, out: str) -> set[int]:
    """Everything else byte-identical: every original line missing from the output is an instruction
    the output names in its ``// fpsan: <original>`` comment. Returns the changed lines (1-based)."""
    if out == raw:
        return set()
    a, b = raw.splitlines(), out.splitlines()
    originals = {ln.strip()[len("// fpsan: "):] for ln in b if ln.strip().startswith("// fpsan: ")}
    sm = difflib.SequenceMatcher(None, a, b, autojunk=False)
    changed = set()
    for tag, i1, i2, _, _ in sm.get_opcodes():
        if tag not in ("replace", "delete"):
            continue
        changed.update(range(i1 + 1, i2 + 1))
        for ln in a[i1:i2]:
            code = ln.split("//")[0]
            if code.count(";") > 1 or "{" in code or "}" in code:
                continue  # several statements on one line: rewritten inline, without the comment
            norm = " ".join(code.split())
            if any((norm in o) if ";" not in code else (o.endswith(norm) and o != norm) for o in originals):
                continue  # one line of a statement written over several lines (the comment joins them;
                # its last line is the tail of the joined statement)
            assert norm in originals, f"changed a line that is not a float op: {ln!r}"
    return changed
