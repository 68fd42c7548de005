"""litmus2ptx: every Dat3M test PTX can express becomes a kernel ptxas accepts; the rest is refused
with a located error; the layout (roles, barriers, buffers) is as documented."""

from __future__ import annotations

import struct
import subprocess

import pytest

from conftest import LITMUS_CORPUS, needs_ptxas, needs_shared, shared_files
from ptxkit.cli import main
from ptxkit.errors import PtxkitError

parser = pytest.importorskip("ptxkit.litmus.parser")
from ptxkit.litmus.to_ptx import to_ptx  # noqa: E402

LITMUS = shared_files("litmus/PTX/**/*.litmus", LITMUS_CORPUS)

BAR_MP = """PTX bar-MP
{ x=0; y=5; P1:r0=0; }
 P0@cta 0,gpu 0 | P1@cta 0,gpu 0 | P2@cta 1,gpu 0 ;
 st.weak x, 1   | bar.cta.sync 0 | atom.relaxed.gpu.sub r1, y, 2 ;
 bar.cta.sync 0 | ld.weak r0, x  | red.acq_rel.gpu.add y, 1 ;
exists (P1:r0 == 0 /\\ y == 4)
"""


def ptxas_ok(tmp_path, text: str, name: str = "k") -> tuple[bool, str]:
    f = tmp_path / f"{name}.ptx"
    f.write_text(text)
    p = subprocess.run(["ptxas", "-arch=sm_75", str(f), "-o", str(tmp_path / f"{name}.cubin")],
                       capture_output=True, text=True, timeout=120)
    return p.returncode == 0, p.stderr


def test_layout_of_a_small_test():
    r = to_ptx(parser.parse_litmus(BAR_MP, "bar-MP.litmus"))
    assert (r.grid, r.block) == (2, 64)  # 2 CTAs; CTA 0 has two roles = two warps
    assert r.locations == ["x", "y"] and r.init == {"y": 5}
    assert r.slots == [(1, "r0"), (2, "r1")]
    t = r.text
    assert "setp.eq.u32 %role, %r_tid, 32;" in t  # P1 is the second warp of CTA 0
    assert t.count("bar.sync 0, 64;") == 2  # two roles take part: 2 warps × 32
    assert "atom.relaxed.gpu.global.add.s32 %P2_r1, [%rd_mem+4], -2;" in t  # sub as add of -2
    assert "atom.acq_rel.gpu.global.add.u32 %P2_tmp, [%rd_mem+4], 1;" in t  # red has no .acq_rel
    assert "st.global.u32 [%rd_out+0], %P1_r0;" in t
    assert r.condition == "exists (out[0] == 0 /\\ mem[1] == 4)"


@needs_ptxas
def test_small_test_assembles(tmp_path):
    ok, err = ptxas_ok(tmp_path, to_ptx(parser.parse_litmus(BAR_MP, "bar-MP.litmus")).text)
    assert ok, err


def test_unsupported_is_located():
    text = "PTX s\n{ x=0; s @ surface aliases x; }\n P0@cta 0,gpu 0 ;\n sust.weak s, 1 ;\nexists (x == 1)\n"
    with pytest.raises(PtxkitError) as e:
        to_ptx(parser.parse_litmus(text, "s.litmus"))
    d = e.value.first
    assert (d.file, d.line) == ("s.litmus", 4) and "not expressible" in d.message


@needs_shared
@needs_ptxas
def test_dat3m_corpus_assembles(tmp_path):
    assert LITMUS, "no litmus files found"
    ok, refused, bad = 0, {}, []
    for i, path in enumerate(LITMUS):
        prog = parser.parse_litmus_file(path)
        try:
            r = to_ptx(prog)
        except PtxkitError as e:
            assert e.first.line > 0 and e.first.file == str(path) or e.first.file.endswith(path.name)
            refused[path.name] = e.first.message
            continue
        good, err = ptxas_ok(tmp_path, r.text, f"t{i}")
        if good:
            ok += 1
        else:
            bad.append(f"{path.name}: {err[:300]}")
    assert not bad, "\n".join(bad)
    # Everything refused is for a reason PTX cannot express (module docstring of to_ptx).
    reasons = ("not expressible", "not a PTX instruction", "GPUs", "alias of")
    assert all(any(k in m for k in reasons) for m in refused.values()), refused
    assert ok >= 85, (ok, len(refused))


def test_cli_writes_kernel_and_init_image(tmp_path, capsys):
    src = tmp_path / "bar-MP.litmus"
    src.write_text(BAR_MP)
    out = tmp_path / "bar-MP.ptx"
    assert main(["litmus2ptx", str(src), "-o", str(out)]) == 0
    assert out.read_text().startswith("// litmus2ptx: bar-MP")
    image = out.with_suffix(".mem.bin").read_bytes()
    assert struct.unpack("<2I", image) == (0, 5)
    assert "--grid 2 --block 64" in capsys.readouterr().err


def test_cli_bad_input_exit_2(tmp_path, capsys):
    src = tmp_path / "bad.litmus"
    src.write_text("PTX bad\n{ x=0; }\n P0@cta 0,gpu 0 ;\n frobnicate x ;\nexists (x == 1)\n")
    assert main(["litmus2ptx", str(src)]) == 2
    assert "bad.litmus:4:" in capsys.readouterr().err


@needs_shared
def test_generated_kernels_parse_with_our_front_end():
    front = pytest.importorskip("ptxkit.ptx.parser")
    n = 0
    for path in LITMUS:
        try:
            r = to_ptx(parser.parse_litmus_file(path))
        except PtxkitError:
            continue
        module = front.parse(r.text, path.name)
        assert [f.name for f in module.entries()] == [r.kernel]
        n += 1
    assert n >= 85
