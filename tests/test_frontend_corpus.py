"""Front end over the whole PTX corpus (../shared): every file parses and re-emits byte for byte;
the ZLUDA pass/test dumps (input + a pseudo-PTX '%%% output %%%' part) are rejected with positions."""

from __future__ import annotations

import re
import shutil
import subprocess
from bisect import bisect_left

import pytest
from conftest import PTX_CORPUS, needs_ptxas, needs_shared, shared_files

from ptxkit import ir
from ptxkit.errors import PtxkitError
from ptxkit.ptx.emit import emit
from ptxkit.ptx.parser import encode, parse_file

ALL = shared_files("**/*.ptx")
DUMPS = [p for p in ALL if "/pass/test/" in p.as_posix()]
# ptxas rejects this one with "Parsing error near 'extern': syntax error" (written without the dot)
PTXAS_SYNTAX_ERROR = [p for p in ALL if p.as_posix().endswith("spirv_fail/shared_ptr.ptx")]
GOOD = [p for p in ALL if p not in DUMPS and p not in PTXAS_SYNTAX_ERROR]


def _id(p):
    return p.relative_to(PTX_CORPUS).as_posix()


@needs_shared
def test_corpus_is_there():
    assert len(GOOD) > 500 and len(DUMPS) == 11


@needs_shared
@pytest.mark.parametrize("path", GOOD, ids=_id)
def test_parses_and_round_trips(path):
    m = parse_file(path)
    # emit copies untouched text verbatim, so this checks decode/encode and that parsing kept every
    # byte; that the IR *means* the text is checked by ptxas in test_frontend_ptxas (re-printed
    # instructions compile to the same cubin)
    assert encode(emit(m)) == path.read_bytes()
    # every span points at its node's own text; line/col agree with an independent count
    nls = [i for i, ch in enumerate(m.source) if ch == "\n"]
    for f in m.functions():
        assert m.source[f.span.start:].startswith((".", f.kind)) or m.source[f.span.start] == "."
        for s in f.statements():
            text = m.source[s.span.start:s.span.end]
            if isinstance(s, ir.Instruction):
                assert text.endswith(";")
                assert text.lstrip("@!").startswith(s.guard.pred if s.guard else s.opcode)
            elif isinstance(s, ir.Label):
                assert text.startswith(s.name) and text.endswith(":")
            line = bisect_left(nls, s.span.start)  # newlines before the node
            assert s.span.line == line + 1
            assert s.span.col == s.span.start - (nls[line - 1] + 1 if line else 0) + 1


@needs_shared
@pytest.mark.parametrize("path", DUMPS, ids=_id)
def test_zluda_pass_dumps_rejected_in_their_output_part(path):
    text = path.read_text()
    marker = next(i for i, line in enumerate(text.splitlines(), 1) if "%%% output %%%" in line)
    with pytest.raises(PtxkitError) as ei:
        parse_file(path)
    diags = ei.value.diagnostics
    assert diags and all(d.line >= 1 and d.col >= 1 for d in diags)
    # the input half is valid PTX: every complaint is about the pseudo-PTX output half
    assert all(d.line > marker for d in diags), [d.render() for d in diags]
    assert all(d.source_line == text.splitlines()[d.line - 1] for d in diags)


@needs_shared
@pytest.mark.parametrize("path", PTXAS_SYNTAX_ERROR, ids=_id)
def test_ptxas_syntax_error_file_rejected(path):
    with pytest.raises(PtxkitError) as ei:
        parse_file(path)
    d = ei.value.first
    assert (d.line, d.col) == (5, 1) and "extern" in d.message


@needs_shared
@needs_ptxas
def test_same_line_as_ptxas_for_syntax_error(tmp_path):
    path = PTXAS_SYNTAX_ERROR[0]
    r = subprocess.run([shutil.which("ptxas"), "-arch=sm_90", str(path), "-o", str(tmp_path / "x")],
                       capture_output=True, text=True)
    assert r.returncode != 0 and "syntax error" in r.stderr
    line = int(re.search(r"line (\d+)", r.stderr).group(1))
    with pytest.raises(PtxkitError) as ei:
        parse_file(path)
    assert ei.value.first.line == line


# pyptx snippets that ptxas rejects for non-syntactic reasons (operand mismatch, ISA version,
# illegal modifier …): the front end must still parse them (it checks syntax, not semantics).
PYPTX_SEMANTIC = ["tma_load_store.ptx", "hopper_misc.ptx", "cluster_ops.ptx", "wgmma_gemm_tile.ptx",
                  "wgmma_simple.ptx", "tcgen05_blackwell.ptx"]


@needs_shared
@needs_ptxas
@pytest.mark.parametrize("name", PYPTX_SEMANTIC)
def test_ptxas_rejected_but_syntactically_fine(name, tmp_path):
    path = PTX_CORPUS / "pyptx" / "tests" / "corpus" / name
    target = re.search(r"\.target\s+(\w+)", path.read_text()).group(1)
    r = subprocess.run([shutil.which("ptxas"), f"-arch={target}", str(path), "-o", str(tmp_path / "x")],
                       capture_output=True, text=True)
    assert r.returncode != 0 and "syntax error" not in r.stderr.lower()
    m = parse_file(path)
    assert any(True for f in m.functions() for _ in f.instructions())
