"""`ptxkit parse` as docs/cli.md specifies it: exit codes, --emit byte identity, --json, errors."""

from __future__ import annotations

import json

from ptxkit.cli import main

GOOD = ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k()\n{\n\tret;   // bye\n}\n"
BAD = GOOD.replace("\tret;", "\tmov.u32 %r1, ;\n\tadd.f32 %f1 %f2;\n\tret;")


def test_ok_and_emit_is_byte_identical(tmp_path, capsysbinary):
    f = tmp_path / "k.ptx"
    data = GOOD.encode() + b"// \xff\xfe not utf-8\n"
    f.write_bytes(data)
    assert main(["parse", str(f)]) == 0
    capsysbinary.readouterr()
    assert main(["parse", "--emit", str(f)]) == 0
    assert capsysbinary.readouterr().out == data


def test_errors_exit_2_with_positions(tmp_path, capsys):
    f = tmp_path / "bad.ptx"
    f.write_text(BAD)
    assert main(["parse", str(f)]) == 2
    err = capsys.readouterr().err
    assert f"{f}:6:15: error: unexpected ';'\n\tmov.u32 %r1, ;\n".replace("\t", " ") in err
    assert f"{f}:7:14: error: unexpected '%f2'" in err
    assert "Traceback" not in err


def test_json(tmp_path, capsys):
    good, bad = tmp_path / "g.ptx", tmp_path / "b.ptx"
    good.write_text(GOOD)
    bad.write_text(BAD)
    assert main(["parse", "--json", str(good), str(bad)]) == 2
    out = json.loads(capsys.readouterr().out)
    assert out["ok"] is False
    g, b = out["files"]
    assert g["ok"] and g["functions"][0]["name"] == "k" and g["instructions"] == 1
    assert [(e["line"], e["col"]) for e in b["errors"]] == [(6, 15), (7, 14)]


def test_missing_file_and_usage(tmp_path, capsys):
    assert main(["parse", str(tmp_path / "nope.ptx")]) == 2
    assert "cannot read file" in capsys.readouterr().err
    f = tmp_path / "k.ptx"
    f.write_text(GOOD)
    assert main(["parse", "--emit", str(f), str(f)]) == 2
    out, err = capsys.readouterr()
    assert "--emit takes exactly one FILE" in err and out == ""
