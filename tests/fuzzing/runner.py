"""Run one ``ptxkit`` invocation with the semantics of a fresh process, without its start-up cost.

The parent imports ptxkit once (``warm_up``); every invocation is a ``fork()`` of it that redirects
fds 0/1/2, calls ``ptxkit.cli.main(argv)`` and exits with its status, exactly as ``python -m ptxkit``
would (an exception escaping ``main`` prints a traceback and exits 1, like the interpreter). The child
gets its own process group (so ``--jobs`` workers die with it), an address-space limit and a file-size
limit; the parent waits on a pidfd with the per-input timeout, then kills the group. ``wait4`` gives
the child's peak RSS. ``subprocess=True`` runs the real ``python -m ptxkit`` instead (for checks of the
fork runner itself and for hostile cases that need a real process).
"""

from __future__ import annotations

import contextlib
import importlib
import io
import os
import pkgutil
import resource
import select
import signal
import subprocess
import sys
import tempfile
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path

#: What comes back of a stream: enough to judge it, never a flood in memory.
KEEP_BYTES = 256 * 1024
#: The address-space limit of a fuzzed invocation (a run past it dies of MemoryError: a finding).
MEMORY_LIMIT = 3 * 1024**3
#: The memory budget of ptxkit.io given to a fuzzed invocation (PTXKIT_MEMORY_BUDGET): well under the
#: address-space limit, so an allocation the budget lets through cannot die of MemoryError here.
MEMORY_BUDGET = "512M"
#: The file-size limit (a stderr flood is cut here and reported as an overrun).
FILE_LIMIT = 16 * 1024**2

_WARM = False


@dataclass
class Outcome:
    """What one invocation did."""

    argv: list[str]
    rc: int | None  # the exit status; None when it was killed (timeout) or died of a signal
    signal: int | None
    timed_out: bool
    wall: float
    maxrss_kb: int
    stdout: bytes
    stderr: bytes
    stdout_size: int
    stderr_size: int
    files: dict[str, str] = field(default_factory=dict)

    @property
    def stderr_text(self) -> str:
        return self.stderr.decode("utf-8", "replace")


def warm_up() -> None:
    """Import every ptxkit module (and build the grammar) in this process, so forks start warm."""
    global _WARM
    if _WARM:
        return
    import ptxkit

    for m in pkgutil.walk_packages(ptxkit.__path__, "ptxkit."):
        if m.name.endswith("__main__") or m.name.startswith(("ptxkit.bench", "ptxkit.gpu")):
            continue
        # an optional dependency (cupy, z3) or a module mid-move: the fork imports what it needs
        with contextlib.suppress(Exception):
            importlib.import_module(m.name)
    from ptxkit.cli import build_parser

    build_parser()
    with contextlib.suppress(Exception):  # build the parser tables once (lark grammar, fast-path tables)
        from ptxkit.ptx.parser import parse

        parse(".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\n ret;\n}\n", "<warm>")
    _WARM = True


def _child(argv: list[str], out_fd: int, err_fd: int, in_path: str, cwd: str | None,
           memory_limit: int) -> None:  # pragma: no cover - runs in the forked child
    code = 1
    try:
        os.setpgid(0, 0)
        if memory_limit:
            resource.setrlimit(resource.RLIMIT_AS, (memory_limit, memory_limit))
        resource.setrlimit(resource.RLIMIT_FSIZE, (FILE_LIMIT, FILE_LIMIT))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        signal.signal(signal.SIGINT, signal.default_int_handler)
        signal.signal(signal.SIGXFSZ, signal.SIG_DFL)
        fd = os.open(in_path, os.O_RDONLY)
        os.dup2(fd, 0)
        os.dup2(out_fd, 1)
        os.dup2(err_fd, 2)
        if cwd:
            os.chdir(cwd)
        # fresh standard streams as the interpreter makes them for a pipe (utf-8; stderr escapes)
        sys.stdin = io.TextIOWrapper(io.BufferedReader(io.FileIO(0, "r", closefd=False)), encoding="utf-8")
        sys.stdout = io.TextIOWrapper(io.BufferedWriter(io.FileIO(1, "w", closefd=False)), encoding="utf-8",
                                      errors="strict")
        sys.stderr = io.TextIOWrapper(io.BufferedWriter(io.FileIO(2, "w", closefd=False)), encoding="utf-8",
                                      errors="backslashreplace", line_buffering=True)
        sys.argv = ["ptxkit", *argv]
        os.environ["PTXKIT_MEMORY_BUDGET"] = MEMORY_BUDGET
        from ptxkit.cli import main

        try:
            code = main(argv)
            code = 0 if code is None else int(code)
        except SystemExit as e:
            if e.code is None:
                code = 0
            elif isinstance(e.code, int):
                code = e.code
            else:
                print(e.code, file=sys.stderr)
                code = 1
        except BaseException:
            traceback.print_exc()
            code = 1
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except BaseException as e:  # what the interpreter does when the final flush fails
                with contextlib.suppress(OSError):
                    os.write(2, f"Exception ignored on flushing sys.stdout: {e!r}\n".encode())
                code = 120
    except BaseException:
        with contextlib.suppress(OSError):
            os.write(2, traceback.format_exc().encode("utf-8", "replace"))
        code = 1
    finally:
        os._exit(code & 0xFF)


def _read_back(f) -> tuple[bytes, int]:
    f.seek(0, os.SEEK_END)
    size = f.tell()
    f.seek(0)
    return f.read(KEEP_BYTES), size


def _kill_group(pid: int) -> None:
    for target in (lambda: os.killpg(pid, signal.SIGKILL), lambda: os.kill(pid, signal.SIGKILL)):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            target()


def run_cli(argv: list[str], *, timeout: float = 30.0, cwd: str | Path | None = None,
            stdout_path: str | None = None, memory_limit: int = MEMORY_LIMIT,
            use_subprocess: bool = False) -> Outcome:
    """Run ``ptxkit ARGV`` (forked from this warm process, or as a real subprocess)."""
    if use_subprocess:
        return _run_subprocess(argv, timeout=timeout, cwd=cwd, stdout_path=stdout_path)
    warm_up()
    sys.stdout.flush()
    sys.stderr.flush()
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        out_fd = out.fileno()
        if stdout_path is not None:
            out_fd = os.open(stdout_path, os.O_WRONLY)
        t0 = time.monotonic()
        pid = os.fork()
        if pid == 0:  # pragma: no cover
            _child(argv, out_fd, err.fileno(), os.devnull, str(cwd) if cwd else None, memory_limit)
        if stdout_path is not None:
            os.close(out_fd)
        timed_out = False
        try:
            pidfd = os.pidfd_open(pid)
        except (AttributeError, OSError):
            pidfd = None
        if pidfd is not None:
            ready, _, _ = select.select([pidfd], [], [], timeout)
            os.close(pidfd)
            if not ready:
                timed_out = True
                _kill_group(pid)
        else:  # no pidfd: poll
            while os.waitpid(pid, os.WNOHANG) == (0, 0):
                if time.monotonic() - t0 > timeout:
                    timed_out = True
                    _kill_group(pid)
                    break
                time.sleep(0.005)
        _, status, usage = os.wait4(pid, 0)
        wall = time.monotonic() - t0
        _kill_group(pid)  # stray workers of the group
        rc = os.waitstatus_to_exitcode(status)
        sig = -rc if rc < 0 else None
        stdout, stdout_size = _read_back(out) if stdout_path is None else (b"", 0)
        stderr, stderr_size = _read_back(err)
    return Outcome(argv, None if (timed_out or sig) else rc, sig, timed_out, wall, usage.ru_maxrss,
                   stdout, stderr, stdout_size, stderr_size)


def _run_subprocess(argv: list[str], *, timeout: float, cwd: str | Path | None,
                    stdout_path: str | None) -> Outcome:
    env = dict(os.environ, PTXKIT_MEMORY_BUDGET=MEMORY_BUDGET)
    root = str(Path(__file__).resolve().parents[2])
    env["PYTHONPATH"] = root + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        sink = open(stdout_path, "wb") if stdout_path else out  # noqa: SIM115
        t0 = time.monotonic()
        proc = subprocess.Popen([sys.executable, "-m", "ptxkit", *argv], stdin=subprocess.DEVNULL,
                                stdout=sink, stderr=err, cwd=cwd, env=env, start_new_session=True)
        timed_out = False
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            timed_out = True
            _kill_group(proc.pid)
            proc.wait()
        wall = time.monotonic() - t0
        if stdout_path:
            sink.close()
        rc = proc.returncode
        sig = -rc if rc < 0 else None
        stdout, stdout_size = _read_back(out) if stdout_path is None else (b"", 0)
        stderr, stderr_size = _read_back(err)
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return Outcome(argv, None if (timed_out or sig) else rc, sig, timed_out, wall, ru.ru_maxrss,
                   stdout, stderr, stdout_size, stderr_size)
