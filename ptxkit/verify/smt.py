"""``verify --smt DIR``: the race-freedom claim of each barrier interval as SMT-LIB 2 (z3 checks it).

One file per (CTA, barrier phase): the interval's accesses as facts (thread, byte range, write,
strong, scope, epoch, clock row) and the clock entries they need, then the negated claim — two of them
conflict (ISA §8: overlap, a write, different threads), are unordered (neither's clock covers the
other's epoch) and are not morally strong. ``unsat`` proves the interval race-free; a race is exported
as its witness (``sat`` expected). Intervals with more than :data:`MAX_ACCESSES` accesses are not
exported (named in ``index.txt``)."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from ptxkit.errors import UsageError
from ptxkit.io import atomic_write
from ptxkit.verify.check import Launch, Outcome
from ptxkit.verify.clocks import Clocks
from ptxkit.verify.races import Table

MAX_ACCESSES = 400


def _claim(tab: Table, clocks: Clocks, rows: np.ndarray, cta_threads: int, title: str, status: str) -> str:
    n = len(rows)
    out = [f"; {title}", f"; expected: {status}", "(set-logic ALL)"]
    for f, sort in (("th", "Int"), ("lo", "Int"), ("hi", "Int"), ("ep", "Int"), ("sid", "Int"),
                    ("sc", "Int")):
        out.append(f"(declare-fun {f} (Int) {sort})")
    out += ["(declare-fun wr (Int) Bool)", "(declare-fun strong (Int) Bool)",
            "(declare-fun clk (Int Int) Int)"]
    for k, r in enumerate(rows.tolist()):
        lo = int(tab.key[r])
        out.append(f"(assert (and (= (th {k}) {int(tab.thread[r])}) (= (lo {k}) {lo}) "
                   f"(= (hi {k}) {lo + int(tab.size[r])}) (= (ep {k}) {int(tab.ep[r])}) "
                   f"(= (sid {k}) {int(tab.sid[r])}) (= (sc {k}) {int(tab.scope[r])}) "
                   f"(= (wr {k}) {'true' if tab.write[r] else 'false'}) "
                   f"(= (strong {k}) {'true' if tab.strong[r] else 'false'})))")
    sids = np.unique(tab.sid[rows])
    threads = np.unique(tab.thread[rows])
    for s in sids.tolist():
        vals = clocks.rows[s, threads]
        for t, v in zip(threads.tolist(), vals.tolist()):
            out.append(f"(assert (= (clk {s} {t}) {v}))")
    out += [
        "(declare-const i Int)", "(declare-const j Int)",
        f"(assert (and (<= 0 i) (< i j) (< j {n})))",
        "(assert (distinct (th i) (th j)))",
        "(assert (and (< (lo i) (hi j)) (< (lo j) (hi i))))",
        "(assert (or (wr i) (wr j)))",
        "(assert (not (>= (clk (sid j) (th i)) (ep i))))",
        "(assert (not (>= (clk (sid i) (th j)) (ep j))))",
        # morally strong (§8.7): both strong, same range, each scope includes the other thread
        f"(define-fun incl ((s Int) (a Int) (b Int)) Bool (or (>= s 3) (and (>= s 1) "
        f"(= (div a {cta_threads}) (div b {cta_threads})))))",
        "(assert (not (and (strong i) (strong j) (= (lo i) (lo j)) (= (hi i) (hi j)) "
        "(incl (sc i) (th i) (th j)) (incl (sc j) (th j) (th i)))))",
        "(check-sat)",
    ]
    return "\n".join(out) + "\n"


def write_smt(outcome: Outcome, launch: Launch, directory: str | os.PathLike[str]) -> list[Path]:
    tab, ctx = outcome.table, outcome.ctx
    d = Path(directory)
    try:
        d.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise UsageError(f"cannot create --smt directory '{d}': {e.strerror or e}") from None
    written: list[Path] = []
    if tab is None or ctx is None:
        return written
    nt = ctx.cta_threads
    index: list[str] = []
    if outcome.race is not None:
        rows = np.array([outcome.race.a, outcome.race.b])
        p = d / "witness.smt2"
        atomic_write(p, _claim(tab, ctx.clocks, rows, nt, "the witness: these two accesses race", "sat"))
        written.append(p)
        index.append(f"{p.name}: sat expected (race witness)")
    else:
        cta = tab.thread // nt
        key = cta.astype(np.int64) * (1 << 32) + tab.phase
        order = np.argsort(key, kind="stable")
        ks = key[order]
        starts = np.flatnonzero(np.r_[True, ks[1:] != ks[:-1]]) if len(ks) else np.zeros(0, np.int64)
        for s, stop in zip(starts.tolist(), np.r_[starts[1:], len(ks)].tolist()):
            rows = order[s:stop]
            c, ph = int(ks[s] >> 32), int(ks[s] & 0xFFFFFFFF)
            name = f"cta{c}_interval{ph}.smt2"
            if len(rows) > MAX_ACCESSES:
                index.append(f"{name}: not exported ({len(rows)} accesses > {MAX_ACCESSES})")
                continue
            p = d / name
            atomic_write(p, _claim(tab, ctx.clocks, rows, nt,
                                   f"no race among the {len(rows)} accesses of CTA {c} between its "
                                   f"barrier phases {ph} and {ph + 1}", "unsat"))
            written.append(p)
            index.append(f"{name}: unsat expected")
    atomic_write(d / "index.txt", "\n".join(index) + "\n")
    return written
