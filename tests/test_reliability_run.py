"""Issue 9 regressions for the `run` area: kernel arguments, launches, output safety, litmus2ptx.
Each test reproduces an input that the old code mishandled (exit 70, silent acceptance, lost file)."""

from __future__ import annotations

import os

import pytest

from ptxkit.errors import UsageError
from ptxkit.io import atomic_write, check_allocation, memory_budget

# --- ptxkit/io.py --------------------------------------------------------------------------------

def test_atomic_write_replaces_whole_file(tmp_path):
    p = tmp_path / "out.ptx"
    p.write_text("old contents")
    atomic_write(p, "new")
    assert p.read_text() == "new"
    atomic_write(p, b"\x00\x01")
    assert p.read_bytes() == b"\x00\x01"
    assert os.listdir(tmp_path) == ["out.ptx"]


def test_atomic_write_keeps_old_file_on_interrupt(tmp_path, monkeypatch):
    p = tmp_path / "out.ptx"
    p.write_text("old contents")

    def boom(*a, **k):
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "replace", boom)
    with pytest.raises(KeyboardInterrupt):
        atomic_write(p, "new contents")
    assert p.read_text() == "old contents"
    assert os.listdir(tmp_path) == ["out.ptx"]  # no temporary left behind


@pytest.mark.parametrize("target", ["missing/dir/out.ptx", "adir"])
def test_atomic_write_bad_target_is_usage_error(tmp_path, target):
    (tmp_path / "adir").mkdir()
    with pytest.raises(UsageError) as e:
        atomic_write(tmp_path / target, "x")
    assert str(tmp_path / target) in e.value.render()
    assert ":0:0" not in e.value.render()


@pytest.mark.skipif(os.geteuid() == 0, reason="root ignores directory permissions")
def test_atomic_write_read_only_dir(tmp_path):
    d = tmp_path / "ro"
    d.mkdir()
    d.chmod(0o500)
    try:
        with pytest.raises(UsageError, match="cannot write"):
            atomic_write(d / "x.ptx", "x")
    finally:
        d.chmod(0o700)


def test_atomic_write_keeps_permissions(tmp_path):
    p = tmp_path / "x.sh"
    p.write_text("a")
    p.chmod(0o751)
    atomic_write(p, "b")
    assert p.stat().st_mode & 0o777 == 0o751


def test_memory_budget(monkeypatch):
    monkeypatch.delenv("PTXKIT_MEMORY_BUDGET", raising=False)
    assert memory_budget() == 4 << 30
    check_allocation(1 << 30, "x")
    with pytest.raises(UsageError, match="memory budget"):
        check_allocation(40_000_000_000, "--arg f32[10000000000]")
    monkeypatch.setenv("PTXKIT_MEMORY_BUDGET", "1M")
    assert memory_budget() == 1 << 20
    with pytest.raises(UsageError, match="PTXKIT_MEMORY_BUDGET"):
        check_allocation(2 << 20, "a buffer")
    monkeypatch.setenv("PTXKIT_MEMORY_BUDGET", "lots")
    with pytest.raises(UsageError, match="PTXKIT_MEMORY_BUDGET"):
        memory_budget()
