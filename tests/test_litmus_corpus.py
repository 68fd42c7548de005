"""Our own litmus corpus (corpora/litmus/*.ptx): each kernel states, in its header, how to explore
it and the verdict argued from the ISA. Checked three ways:

* ptxas accepts every kernel;
* the Dat3M-form twin in the header (``// litmus | …``) gives the argued verdict both with
  ``ptxkit explore`` and with ``ptxkit.consistency`` through the small enumerator of
  test_consistency_dat3m (two independent transcriptions of the model);
* ``ptxkit explore FILE.ptx <header args>`` gives it on the kernel itself (skipped, with the reason,
  only if the .ptx loader ``ptxkit.explore.kernel.program_from_ptx`` is missing).
"""

from __future__ import annotations

import importlib
import json
import shlex
import subprocess
from pathlib import Path

import pytest
from conftest import ROOT, needs_ptxas

from ptxkit.cli import main

CORPUS = sorted((ROOT / "corpora" / "litmus").glob("*.ptx"))
IDS = [p.stem for p in CORPUS]


def header(path: Path) -> dict:
    explore, expect, litmus = None, None, []
    for line in path.read_text().splitlines():
        if line.startswith("// explore: "):
            explore = shlex.split(line[len("// explore: "):])
        elif line.startswith("// expect: "):
            expect = line.split(":", 1)[1].strip()
        elif line.startswith("// litmus | "):
            litmus.append(line[len("// litmus | "):])
    assert explore and expect in ("Ok", "No") and litmus, f"{path.name}: incomplete header"
    return {"explore": explore, "expect": expect, "litmus": "\n".join(litmus) + "\n"}


def test_corpus_is_there():
    assert len(CORPUS) >= 29, [p.name for p in CORPUS]
    names = {p.stem.split("+")[0] for p in CORPUS}
    assert {"MP", "SB", "LB", "IRIW", "WRC", "CoRR", "2", "RMW"} <= names
    assert any("bar.sync" in p.name for p in CORPUS)


@needs_ptxas
@pytest.mark.parametrize("path", CORPUS, ids=IDS)
def test_ptxas_accepts(path, tmp_path):
    p = subprocess.run(["ptxas", "-arch=sm_75", str(path), "-o", str(tmp_path / "k.cubin")],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr


def _explore_json(argv: list[str], capsys) -> dict:
    rc = main(["explore", *argv, "--json"])
    out = capsys.readouterr().out
    assert rc in (0, 1), (rc, out)
    data = json.loads(out)
    # a complete search, and the exit code says the same as the JSON (docs/cli.md: 0 Ok, 1 No)
    assert data["complete"] is True and rc == {"Ok": 0, "No": 1}[data["verdict"]], (rc, data)
    return data


@pytest.mark.parametrize("path", CORPUS, ids=IDS)
def test_litmus_twin_with_explore(path, tmp_path, capsys):
    h = header(path)
    twin = tmp_path / f"{path.stem}.litmus"
    twin.write_text(h["litmus"])
    assert _explore_json([str(twin)], capsys)["verdict"] == h["expect"]


@pytest.mark.parametrize("path", CORPUS, ids=IDS)
def test_litmus_twin_with_consistency_model(path):
    parser = importlib.import_module("ptxkit.litmus.parser")
    from test_consistency_dat3m import verdict

    h = header(path)
    got, _ = verdict(parser.parse_litmus(h["litmus"], path.name), "ptx-7.5")
    # verdict() answers the *specification* (1 = exists reachable / ~exists holds) — herd's Ok
    assert {1: "Ok", 0: "No"}[got] == h["expect"]


@pytest.mark.parametrize("path", CORPUS, ids=IDS)
def test_explore_on_the_kernel(path, capsys):
    h = header(path)
    assert _explore_json([str(path), *h["explore"]], capsys)["verdict"] == h["expect"]


@pytest.mark.parametrize("path", CORPUS, ids=IDS)
def test_our_front_end_parses(path):
    front = importlib.import_module("ptxkit.ptx.parser")
    module = front.parse(path.read_text(), str(path))
    assert len(module.entries()) == 1


@needs_ptxas
@pytest.mark.parametrize("path", CORPUS, ids=IDS)
def test_litmus_twin_through_litmus2ptx(path, tmp_path):
    # the Dat3M twin, turned into a kernel by litmus2ptx, is accepted by ptxas as well
    parser = importlib.import_module("ptxkit.litmus.parser")
    from ptxkit.litmus.to_ptx import to_ptx

    text = to_ptx(parser.parse_litmus(header(path)["litmus"], path.name)).text
    (tmp_path / "t.ptx").write_text(text)
    p = subprocess.run(["ptxas", "-arch=sm_75", str(tmp_path / "t.ptx"), "-o", str(tmp_path / "t.cubin")],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
