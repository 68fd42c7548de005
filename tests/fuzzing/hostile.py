"""Hostile invocations: bad flags, bad ``--arg`` specs, bad paths, outputs into missing, read-only or
directory paths, stdout on a full device. Each case runs in a fixture directory (its cwd) made by
``make_fixture``; ``expect`` is the documented answer when docs/cli.md or issue 9 names one."""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .corpus import BUNDLED, SHARED_LITMUS

#: A directory nobody may write, even root (sysfs refuses file creation).
READ_ONLY_DIR = "/sys"
REFUSE = frozenset({2})


@dataclass(frozen=True)
class Hostile:
    argv: tuple[str, ...]
    expect: frozenset[int] | None = None
    stdout_path: str | None = None
    explore_timeout: float | None = None
    timeout: float = 20.0


LITMUS_MP = """PTX MP
{
x=0;
y=0;
}
 P0@cta 0,gpu 0    | P1@cta 1,gpu 0       ;
 st.weak x, 1      | ld.acquire.gpu r1, y ;
 st.release.gpu y, 1 | ld.weak r2, x      ;
exists
(P1:r1 == 1 /\\ P1:r2 == 0)
"""


#: Files of the fixture that no invocation may change (inputs), and the device that must stay one.
KEEP = ("k.ptx", "t.litmus", "data.litmus", "data.mem.bin", "existing.txt", "good.npy")
DEVICE = "fulldev"


LOOP_PTX = """.version 8.0
.target sm_80
.address_size 64

.visible .entry loop()
{
$L_spin:
\tbra.uni $L_spin;
\tret;
}
"""


def nested_blocks(depth: int = 1000) -> str:
    """A float add inside ``depth`` nested blocks: ptxas accepts it (issue 9 asks for 1,000)."""
    return (".version 8.0\n.target sm_80\n.address_size 64\n\n.visible .entry nest()\n{\n\t.reg .f32 %f1;\n"
            + "{" * depth + "\n\tadd.f32 %f1, %f1, %f1;\n" + "}" * depth + "\n\tret;\n}\n")


def big_litmus(n: int = 8) -> str:
    """``n`` threads, each storing to and loading from three shared locations: far too many
    executions to finish, so ``explore --timeout`` must cut it (issue 9: an 8-thread test ran 300 s
    with --timeout 20)."""
    rows = [[f"st.relaxed.gpu x, {t + 1}", "ld.relaxed.gpu r0, y", f"st.relaxed.gpu y, {t + 1}",
             "ld.relaxed.gpu r1, x", f"st.relaxed.gpu z, {t + 1}", "ld.relaxed.gpu r2, z"] for t in range(n)]
    head = " | ".join(f"P{t}@cta 0,gpu 0" for t in range(n)) + " ;"
    body = "\n".join(" | ".join(rows[t][i] for t in range(n)) + " ;" for i in range(len(rows[0])))
    return f"PTX big\n{{\nx=0;\ny=0;\nz=0;\n}}\n{head}\n{body}\nexists (P0:r0 == {n} /\\ P{n - 1}:r1 == 1)\n"


def make_fixture(d: Path) -> None:
    """The files the hostile cases name, in ``d``. ``fulldev`` is a private /dev/full (a character
    device made with mknod, root only), so that a writer replacing its target cannot harm /dev."""
    shutil.copy(BUNDLED / "examples" / "vector_add.ptx", d / "k.ptx")
    shutil.copy(BUNDLED / "litmus" / "MP+rel-acq.ptx", d / "lt.ptx")
    (d / "t.litmus").write_text(LITMUS_MP)
    (d / "nonutf8.litmus").write_bytes(LITMUS_MP.replace("st.weak x, 1", "st.weak x\xff, 1").encode("latin-1"))
    (d / "loop.ptx").write_text(LOOP_PTX)
    (d / "big.litmus").write_text(big_litmus())
    (d / "nest.ptx").write_text(nested_blocks())
    # a symbol only the simulator's decoder checks: its error must point at this file's own line
    lines = (d / "k.ptx").read_text().split("\n")
    lines.insert(32, "\tld.shared.u32 \t%r9, [no_such_symbol];")
    (d / "badsym.ptx").write_text("\n".join(lines))
    (d / "dir").mkdir()
    (d / "dir.ptx").mkdir()
    (d / "existing.txt").write_text("keep me\n")
    (d / "outdir").mkdir()
    (d / "outdir" / "0.bin").mkdir()
    (d / "empty.ptx").write_bytes(b"")
    (d / "data.mem.bin").write_bytes(b"precious")
    (d / "data.litmus").write_text(LITMUS_MP.replace("x=0;", "x=5;"))
    np.save(d / "good.npy", np.zeros(64, np.float32))
    np.save(d / "f64.npy", np.zeros(64, np.float64))
    np.save(d / "be.npy", np.zeros(64, ">f4"))
    np.save(d / "c64.npy", np.zeros(64, np.complex64))
    np.save(d / "bool.npy", np.zeros(64, np.bool_))
    np.save(d / "str.npy", np.array(["a"] * 64))
    np.save(d / "obj.npy", np.array([object()] * 4, dtype=object), allow_pickle=True)
    np.save(d / "short.npy", np.zeros(3, np.float32))
    np.save(d / "2d.npy", np.zeros((8, 8), np.float32))
    (d / "corrupt.npy").write_bytes(b"\x93NUMPY\x01\x00garbage" * 3)
    (d / "trunc.npy").write_bytes((d / "good.npy").read_bytes()[:100])
    (d / "short.bin").write_bytes(b"\x00" * 7)
    with contextlib.suppress(OSError, AttributeError):
        os.mknod(d / DEVICE, 0o666 | stat.S_IFCHR, os.makedev(1, 7))
    lits = sorted(SHARED_LITMUS.rglob("*.litmus")) if SHARED_LITMUS.is_dir() else []
    if lits:
        shutil.copy(lits[0], d / "dat3m.litmus")


def _run(*extra: str, args: tuple[str, ...] | None = None) -> tuple[str, ...]:
    base = args if args is not None else ("--arg", "0=f32[64]:rand", "--arg", "1=f32[64]:rand",
                                          "--arg", "2=f32[64]:zeros", "--arg", "3=u32:64", "--block", "64")
    return ("run", "k.ptx", *base, *extra)


def _with_arg0(spec: str) -> tuple[str, ...]:
    return ("run", "k.ptx", "--arg", f"0={spec}", "--arg", "1=f32[64]:rand", "--arg", "2=f32[64]:zeros",
            "--arg", "3=u32:64", "--block", "64")


def _explore(*extra: str, timeout: float | None = 5.0) -> tuple[str, ...]:
    t = ("--timeout", str(timeout)) if timeout is not None else ()
    return ("explore", "t.litmus", *t, *extra)


def cases() -> list[Hostile]:
    c: list[Hostile] = []
    add = lambda argv, expect=REFUSE, **kw: c.append(Hostile(tuple(argv), expect, **kw))  # noqa: E731
    # --- top level and parse
    add(["--bogus"])
    add(["bogus"])
    add([])
    add(["parse"])
    add(["parse", "--bogus", "k.ptx"])
    add(["parse", "nosuch.ptx"])
    add(["parse", "dir"])
    add(["parse", "dir.ptx"])
    add(["parse", "k.ptx", "nosuch.ptx"])
    add(["parse", "--emit", "k.ptx", "k.ptx"])
    add(["parse", "/dev/zero"], timeout=30.0)
    add(["parse", "/dev/null"], expect=None)
    add(["parse", "empty.ptx"], expect=None)
    add(["parse", READ_ONLY_DIR])
    add(["parse", "t.litmus"])
    add(["parse", "nest.ptx"], expect=frozenset({0}))
    add(["parse", "good.npy"])
    # --- sanitize
    add(["sanitize"])
    add(["sanitize", "nosuch.ptx"])
    add(["sanitize", "dir"])
    add(["sanitize", "k.ptx", "-o", "missing/x.ptx"])
    add(["sanitize", "k.ptx", "-o", f"{READ_ONLY_DIR}/x.ptx"])
    add(["sanitize", "k.ptx", "-o", "dir"])
    add(["sanitize", "k.ptx", "-o", "fulldev"])  # a character device: write into it, never replace it
    add(["sanitize", "k.ptx"], stdout_path=DEVICE)
    add(["sanitize", "k.ptx", "--json"], stdout_path=DEVICE)
    add(["sanitize", "k.ptx", "--atomics", "bogus"])
    add(["sanitize", "k.ptx", "--mma", "bogus"])
    add(["sanitize", "k.ptx", "-o", ""])
    add(["sanitize", "t.litmus", "-o", "o.ptx"])
    add(["sanitize", "nest.ptx", "-o", "o.ptx"], expect=frozenset({0}))
    # --- run: shapes and limits
    for g in ["0", "-1", "a", "1,1,1,1", "99999999999999999999", "1,65536", "2147483648", "1,,1", ""]:
        add(_run("--grid", g))
    for b in ["0", "-1", "1,1,65", "2048", "1025", "33,33", "x"]:
        add(_run(args=("--arg", "0=f32[64]:rand", "--arg", "1=f32[64]:rand", "--arg", "2=f32[64]:zeros",
                       "--arg", "3=u32:64", "--block", b)))
    for s in ["-1", "1000000000000", "x"]:
        add(_run("--shared", s))
    for s in ["-1", "x", "99999999999999999999999"]:
        add(_run("--seed", s), expect=REFUSE if s == "x" else None)
    for m in ["0", "-1", "x"]:
        add(_run("--max-steps", m))
    add(_run("--kernel", "nosuch"))
    add(_run("--device", "tpu"))
    add(_run("--out", "outdir"))
    add(_run("--out", "existing.txt"))
    add(_run("--out", f"{READ_ONLY_DIR}/out"))
    add(_run("--out", "fulldev/x"))
    # bounds: one work limit for the whole launch (issue 9)
    add(["run", "loop.ptx", "--max-steps", "100000"], expect=frozenset({3}))
    add(["run", "loop.ptx"], expect=frozenset({3}), timeout=300.0)  # the default limit: slow tier
    add(_run("--grid", "100000000", "--max-steps", "1000000"), expect=frozenset({3}))
    add(["equiv", "loop.ptx", "loop.ptx", "--max-steps", "100000"], expect=frozenset({2, 3}))
    add(["run", "badsym.ptx", *_run()[2:]])
    add(["run", "badsym.ptx", *_run()[2:], "--sanitize"])
    add(["equiv", "badsym.ptx", "k.ptx", *_run()[2:]])
    add(["run", "nosuch.ptx"])
    add(["run", "dir"])
    add(["run", "k.ptx"])  # no --arg at all
    # --- run: --arg specs
    for spec in ["", "u32", "u32:", "u32:abc", "u32:-1", "u32:4294967296", "s32:2147483648", "f32:1e999",
                 "f32:nan(", "f32:0x1ffffffff", "q32:1", "u32:1:2", "f32[10000000000]:zeros", "f32[-1]:zeros",
                 "f32[0]:zeros", "f32[64]:nosuch.bin", "f32[64]:dir", "f32[64]:f64.npy", "f32[64]:be.npy",
                 "f32[64]:c64.npy", "f32[64]:bool.npy", "f32[64]:str.npy", "f32[64]:obj.npy",
                 "f32[64]:short.npy", "f32[64]:corrupt.npy", "f32[64]:trunc.npy", "f32[64]:short.bin",
                 "f32[64]:2d.npy", "f32[64", "f32[x]:zeros", "f32[99999999999999999999]:zeros", "null",
                 "f32[64]:rand:extra", "f32[64]:/dev/zero", f"f32[64]:{READ_ONLY_DIR}"]:
        add(_with_arg0(spec), expect=None if spec in ("null", "f32[64]:2d.npy") else REFUSE)
    add(["run", "k.ptx", "--arg", "3=null", "--arg", "0=f32[64]:rand", "--arg", "1=f32[64]:rand",
         "--arg", "2=f32[64]:zeros"])
    add(["run", "k.ptx", "--arg", "nosuch=u32:1"])
    add(["run", "k.ptx", "--arg", "99=u32:1"])
    add(["run", "k.ptx", "--arg", "=u32:1"])
    add(["run", "k.ptx", "--arg", "0"])
    add(_run("--arg", "0=f32[64]:zeros"))  # the same parameter twice
    add(["run", "k.ptx", "--arg", "0=f32[64]:good.npy", "--arg", "1=f32[64]:rand", "--arg", "2=f32[64]:zeros",
         "--arg", "3=u32:64", "--block", "64"], expect=frozenset({0}))
    # --- equiv
    add(["equiv", "k.ptx"])
    add(["equiv", "k.ptx", "nosuch.ptx", "--arg", "0=f32[64]:rand"])
    add(["equiv", "k.ptx", "dir", "--arg", "0=f32[64]:rand"])
    add(["equiv", "k.ptx", "empty.ptx", "--arg", "0=f32[64]:rand"])
    add(["equiv", "k.ptx", "k.ptx", "--trials", "-1", "--arg", "0=f32[64]:rand", "--arg", "1=f32[64]:rand",
         "--arg", "2=f32[64]:zeros", "--arg", "3=u32:64"])
    add(["equiv", "k.ptx", "k.ptx", "--arg", "0=f32[64]:rand", "--grid", "99999999999999999999"])
    add(["equiv", "k.ptx", "k.ptx", "--kernel-b", "nosuch", "--arg", "0=f32[64]:rand", "--arg",
         "1=f32[64]:rand", "--arg", "2=f32[64]:zeros", "--arg", "3=u32:64"])
    # --- explore
    add(["explore"])
    add(["explore", "nosuch.litmus"])
    add(["explore", "dir"])
    add(["explore", "lt.ptx"])  # no --threads
    add(_explore("--threads", "2"))  # --threads on a litmus test
    for t in ["0", "-1", "100000", "x"]:
        add(["explore", "lt.ptx", "--threads", t, "--arg", "mem=u32[2]:zeros", "--arg", "out=u32[2]:zeros",
             "--timeout", "5"], expect=REFUSE if t in ("0", "-1", "x") else None, explore_timeout=5.0)
    # a full CTA: long enough that the search gets deep (it hit RecursionError after ~4 s)
    add(["explore", "lt.ptx", "--threads", "1024", "--arg", "mem=u32[2]:zeros", "--arg", "out=u32[2]:zeros",
         "--timeout", "20"], expect=None, explore_timeout=20.0)
    for t in ["-1", "0", "nan", "inf", "x"]:
        add(["explore", "t.litmus", "--timeout", t], expect=None if t in ("0", "inf") else REFUSE,
            explore_timeout=5.0 if t == "0" else None)
    for k in ["0", "-1", "x"]:
        add(_explore("--max-executions", k))
    add(_explore("--jobs", "0"))
    add(_explore("--unroll", "-1"))
    add(_explore("--model", "nosuch"))
    for cond in ["", "x ==", "(x == 1", "x == 1)", "P1:nosuch == 0", "P9:r1 == 1", "nosuch == 1",
                 "x[99999999999999999999] == 1", "P1:r1 === 1", "/\\",
                 "x\u2028== 0"]:
        add(_explore("--exists", cond), explore_timeout=5.0)
    # deep but well-formed conditions: any verdict, but no RecursionError (issue 9)
    for cond in ["(" * 1000 + "x == 0" + ")" * 1000, " /\\ ".join(["x == 0"] * 1000), "~" * 1000 + "x == 0"]:
        add(_explore("--exists", cond), expect=None, explore_timeout=5.0)
    add(_explore("--exists", "x == 99999999999999999999"), expect=None, explore_timeout=5.0)
    add(_explore("--forall", "P1:nosuch == 0"), explore_timeout=5.0)
    add(["explore", "lt.ptx", "--threads", "2", "--arg", "mem=u32[2]:zeros", "--arg", "out=u32[2]:zeros",
         "--exists", "nosuch[0] == 1", "--timeout", "5"], explore_timeout=5.0)
    add(["explore", "lt.ptx", "--threads", "2", "--arg", "mem=u32[2]:zeros", "--arg", "out=u32[2]:zeros",
         "--exists", "out[99] == 1", "--timeout", "5"], explore_timeout=5.0)
    add(["explore", "lt.ptx", "--threads", "2", "--arg", "mem=u32[1000000]:zeros", "--arg",
         "out=u32[2]:zeros", "--timeout", "5"], expect=None, explore_timeout=5.0)
    add(["explore", "lt.ptx", "--threads", "2", "--arg", "mem=u32[10000000000]:zeros", "--arg",
         "out=u32[2]:zeros", "--timeout", "5"], explore_timeout=5.0)
    for opt in ["--dot", "--lean", "--smt"]:
        add(_explore(opt, "existing.txt"))
        add(_explore(opt, f"{READ_ONLY_DIR}/x"))
        add(_explore(opt, "fulldev/x"))
    add(_explore("--model", "ptx-7.5-alloy", "--smt", "smt_out"), expect=None, explore_timeout=5.0)
    add(_explore("--model", "ptx-7.5-alloy", "--lean", "lean_out"), expect=None, explore_timeout=5.0)
    add(["explore", "nonutf8.litmus", "--timeout", "5"], explore_timeout=5.0)
    # --timeout honoured within 10 % where the search cannot finish (issue 9), also with --jobs 2
    add(["explore", "big.litmus", "--timeout", "2"], expect=frozenset({3}), explore_timeout=2.0)
    add(["explore", "big.litmus", "--timeout", "2", "--jobs", "2"], expect=frozenset({3}), explore_timeout=2.0)
    add(["explore", "big.litmus", "--timeout", "2", "--json"], expect=frozenset({3}), explore_timeout=2.0)
    add(["explore", "k.ptx", "--threads", "2", "--timeout", "5"], explore_timeout=5.0)  # no --arg
    # --- litmus2ptx
    add(["litmus2ptx"])
    add(["litmus2ptx", "nosuch.litmus"])
    add(["litmus2ptx", "dir"])
    add(["litmus2ptx", "nonutf8.litmus"])
    add(["litmus2ptx", "nonutf8.litmus", "-o", "n.ptx"])
    add(["litmus2ptx", "t.litmus", "-o", "missing/x.ptx"])
    add(["litmus2ptx", "t.litmus", "-o", f"{READ_ONLY_DIR}/x.ptx"])
    add(["litmus2ptx", "t.litmus", "-o", "dir"])
    add(["litmus2ptx", "t.litmus", "-o", "t.litmus"])
    add(["litmus2ptx", "data.litmus", "-o", "data.ptx"])  # would overwrite data.mem.bin
    add(["litmus2ptx", "t.litmus", "-o", "fulldev"])
    add(["litmus2ptx", "data.litmus", "-o", "fulldev"])
    add(["litmus2ptx", "t.litmus"], stdout_path=DEVICE)
    for k in ["a b; ret; }", "", "1abc", "k-1", "a" * 5000]:  # %r1 is a PTX identifier (ISA 4.4)
        add(["litmus2ptx", "t.litmus", "-o", "o.ptx", "--kernel", k], expect=None if len(k) > 100 or not k else REFUSE)
    add(["litmus2ptx", "k.ptx"])
    return c
