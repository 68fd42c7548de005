"""Safe output and bounded allocation for every verb.

``atomic_write`` writes a file so that, whatever happens (a full disk, SIGINT, SIGTERM turned into an
exception), the target holds either its old contents or the complete new contents — never a fragment
or zero bytes: the data goes to a temporary file in the same directory (so the rename stays within
one file system) and ``os.replace`` (atomic on POSIX) moves it into place.

``check_allocation`` refuses, before anything is allocated, a buffer larger than the memory budget
(``PTXKIT_MEMORY_BUDGET`` bytes, default 4 GiB; suffixes K/M/G/T accepted), so that a typo such as
``--arg f32[10000000000]`` is a usage error rather than a machine that swaps for minutes.
"""

from __future__ import annotations

import contextlib
import os
import re
import stat
import tempfile
from pathlib import Path

from ptxkit.errors import UsageError

__all__ = ["DEFAULT_MEMORY_BUDGET", "atomic_write", "check_allocation", "memory_budget", "same_file"]

DEFAULT_MEMORY_BUDGET = 4 << 30
_SUFFIX = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}


def _describe(e: OSError) -> str:
    return e.strerror or str(e)


def atomic_write(path: str | os.PathLike[str], data: bytes | str) -> None:
    """Write ``data`` (str is encoded as UTF-8, lone surrogates kept as their original bytes) to
    ``path`` atomically. An OSError (missing directory, read-only, a directory in the way, no space)
    becomes a UsageError naming the path; the temporary file is removed on every failure, including
    KeyboardInterrupt. A symbolic link is followed (the link stays, its target is replaced); a target
    that exists and is not a regular file (``/dev/null``, ``/dev/stdout``, a FIFO) is written in place:
    renaming onto it would replace the device or pipe itself."""
    target = Path(path)
    payload = data.encode("utf-8", "surrogateescape") if isinstance(data, str) else bytes(data)
    if not target.name or target.is_dir():
        raise UsageError(f"cannot write '{target}': it is a directory")
    if target.is_symlink():
        target = Path(os.path.realpath(target))
    try:
        st = target.stat()
    except FileNotFoundError:
        st = None
    except OSError as e:
        raise UsageError(f"cannot write '{path}': {_describe(e)}") from None
    if st is not None and not stat.S_ISREG(st.st_mode):
        _write_in_place(target, payload, path)
        return
    mode = st.st_mode & 0o7777 if st is not None else None
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    except OSError as e:
        raise UsageError(f"cannot write '{path}': {_describe(e)}") from None
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(payload)
            f.flush()
            os.fsync(f.fileno())
        if mode is None:  # a new file gets the permissions open() would give it (umask applies)
            umask = os.umask(0)
            os.umask(umask)
            mode = 0o666 & ~umask
        os.chmod(tmp, mode)
        os.replace(tmp, target)
    except BaseException as e:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if isinstance(e, OSError):
            raise UsageError(f"cannot write '{path}': {_describe(e)}") from None
        raise


def _write_in_place(target: Path, payload: bytes, shown: str | os.PathLike[str]) -> None:
    try:
        with open(target, "wb") as f:
            f.write(payload)
    except OSError as e:
        raise UsageError(f"cannot write '{shown}': {_describe(e)}") from None


def same_file(a: str | os.PathLike[str], b: str | os.PathLike[str]) -> bool:
    """Whether ``a`` and ``b`` name the same existing file (hard links and symlinks included)."""
    try:
        return os.path.samefile(a, b)
    except OSError:
        return Path(a).resolve() == Path(b).resolve()


def memory_budget() -> int:
    """The budget in bytes: ``PTXKIT_MEMORY_BUDGET`` (``123``, ``512M``, ``8G``), default 4 GiB."""
    raw = os.environ.get("PTXKIT_MEMORY_BUDGET", "").strip()
    if not raw:
        return DEFAULT_MEMORY_BUDGET
    m = re.fullmatch(r"(\d+)\s*([KMGT]?)i?B?", raw, re.I)
    if not m:
        raise UsageError(f"PTXKIT_MEMORY_BUDGET='{raw}': expected a byte count such as 4G, 512M or 1000000")
    return int(m.group(1)) * _SUFFIX[m.group(2).upper()]


def _human(n: int) -> str:
    for unit, size in (("TiB", 1 << 40), ("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= size:
            return f"{n / size:.1f} {unit}"
    return f"{n} bytes"


def check_allocation(nbytes: int, what: str) -> None:
    """Refuse (UsageError) an allocation of ``nbytes`` for ``what`` beyond the memory budget."""
    budget = memory_budget()
    if nbytes > budget:
        raise UsageError(f"{what} needs {_human(nbytes)} ({nbytes} bytes), over the memory budget of "
                         f"{_human(budget)} (set PTXKIT_MEMORY_BUDGET to raise it)")
