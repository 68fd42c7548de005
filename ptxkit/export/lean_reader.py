"""Read back the data of a generated Lean obligation file and re-check it with ``ptxkit.consistency``.

There is no Lean toolchain on the machines that build ptxkit, so a broken export (wrong indices,
dropped edges, a swapped field) would otherwise go unnoticed. This module parses the subset of Lean
that :mod:`ptxkit.export.lean` writes — structure literals ``{ f := v, … }``, lists, pairs, ``some``/
``none``, numerals, strings, qualified constructor names — rebuilds every witness and candidate as an
:class:`~ptxkit.export.obligations.OExecution` (program order re-derived from thread/pos exactly as
the Lean library does) and checks each theorem's claim with the Python checker.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, NoReturn, TypeVar

from ptxkit.consistency.models import check, validate
from ptxkit.consistency.registry import MODELS
from ptxkit.consistency.rel import BitRel
from ptxkit.errors import Diagnostic, PtxkitError
from ptxkit.export.lean import BARRIER, FENCE, KIND, PROXY, SCOPE, SEM
from ptxkit.export.obligations import OEvent, OExecution, to_execution

_T = TypeVar("_T")

_TOKEN = re.compile(r"""
    (?P<ws>\s+)
  | (?P<comment>--[^\n]*)
  | (?P<string>"(?:[^"\\]|\\.)*")
  | (?P<num>-?\d+)
  | (?P<name>[A-Za-z_][A-Za-z0-9_.]*)
  | (?P<sym>:=|[{}\[\](),])
""", re.X)

# Lean constructor name -> the vocabulary's spelling: the inverse of the writer's tables (one source)
_INV = {table: {lean.split(".", 1)[1]: str(member) for member, lean in names.items()}
        for table, names in (("Kind", KIND), ("Sem", SEM), ("Scope", SCOPE), ("Proxy", PROXY),
                             ("FenceKind", FENCE), ("BarrierOp", BARRIER))}


class _Parser:
    def __init__(self, text: str, path: str, offset: int):
        self.path, self.text = path, text
        self.toks: list[tuple[str, str, int]] = []
        pos = 0
        while pos < len(text):
            m = _TOKEN.match(text, pos)
            if not m:
                self.fail(offset + pos, f"unexpected character {text[pos]!r}")
            kind = m.lastgroup or ""
            if kind not in ("ws", "comment"):
                self.toks.append((kind, m.group(), offset + pos))
            pos = m.end()
        self.i = 0
        self.full: str | None = None

    def fail(self, at: int, msg: str) -> NoReturn:
        src = self.full if self.full is not None else self.text
        line = src.count("\n", 0, at) + 1
        col = at - (src.rfind("\n", 0, at) + 1) + 1
        lines = src.split("\n")  # only \n ends a line, as line numbers are counted above
        raise PtxkitError(Diagnostic(self.path, line, col, msg, lines[line - 1] if line <= len(lines) else None))

    def peek(self) -> tuple[str, str, int]:
        return self.toks[self.i] if self.i < len(self.toks) else ("eof", "", len(self.text))

    def take(self, value: str | None = None) -> tuple[str, str, int]:
        t = self.peek()
        if t[0] == "eof" or (value is not None and t[1] != value):
            self.fail(t[2], f"expected {value or 'a value'}, found {t[1] or 'end of file'!r}")
        self.i += 1
        return t

    def _until(self, close: str, item: Callable[[], _T]) -> list[_T]:
        """The items up to ``close`` (taken too), each followed by an optional comma."""
        items = []
        while self.peek()[1] != close:
            items.append(item())
            if self.peek()[1] == ",":
                self.take(",")
        self.take(close)
        return items

    def _field(self) -> tuple[str, Any]:
        """``name := value`` in a structure instance."""
        name = self.take()[1]
        self.take(":=")
        return name, self.value()

    def value(self) -> Any:
        kind, v, at = self.peek()
        if v == "{":
            self.take("{")
            return dict(self._until("}", self._field))
        if v == "[":
            self.take("[")
            return self._until("]", self.value)
        if v == "(":
            self.take("(")
            first = self.value()
            if self.peek()[1] == ",":
                self.take(",")
                second = self.value()
                self.take(")")
                return (first, second)
            self.take(")")
            return first
        if kind == "num":
            self.take()
            return int(v)
        if kind == "string":
            self.take()
            try:
                return _unescape(v[1:-1])
            except ValueError as e:
                self.fail(at, str(e))
        if kind == "name":
            self.take()
            if v == "none":
                return None
            if v == "some":
                return ("some", self.value())
            if "." in v:
                ty, _, ctor = v.rpartition(".")
                if ty in _INV and ctor in _INV[ty]:
                    return _INV[ty][ctor]
            self.fail(at, f"unknown name {v!r}")
        self.fail(at, f"unexpected {v!r}")


_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", '"': '"', "'": "'"}


def _unescape(s: str) -> str:
    r"""The value of a Lean string literal's body: ``\\ \" \' \n \t \r``, ``\xHH``, ``\uHHHH``."""
    def one(m: re.Match) -> str:
        if m.group(1):
            return chr(int(m.group(1), 16))
        if m.group(2):
            return chr(int(m.group(2), 16))
        c = m.group(3)
        if c not in _ESCAPES:
            raise ValueError(f"invalid Lean escape sequence \\{c}")
        return _ESCAPES[c]
    return re.sub(r"\\(?:x([0-9a-fA-F]{2})|u([0-9a-fA-F]{4})|(.))", one, s, flags=re.S)


def _some(v):
    return v[1] if isinstance(v, tuple) and len(v) == 2 and v[0] == "some" else v


def execution_from_data(d: dict) -> OExecution:
    """An :class:`OExecution` from a parsed Lean ``Execution`` literal."""
    events = []
    raw = d["events"]
    for e in raw:
        thread = e["thread"]
        events.append(OEvent(
            eid=e["id"], kind=e["kind"], thread=None if thread == -1 else thread,
            loc=_some(e["location"]), vloc=_some(e["vaddr"]), proxy=e["proxy"], sem=e["sem"],
            scope=_some(e["scope"]), cta=e["cta"], cluster=e["cluster"], gpu=e["gpu"],
            value=_some(e["value"]), size=e["size"], fence_kind=_some(e["fence_kind"]),
            barrier_id=_some(e["barrier_id"]), barrier_op=_some(e["barrier_op"]),
            instance=_some(e["inst"])))
    # program order exactly as Execution.po in PtxModel/Events.lean
    po = {(a["id"], b["id"]) for a in raw for b in raw
          if a["thread"] != -1 and a["thread"] == b["thread"] and a["pos"] < b["pos"]}
    sc = _some(d["sc_order"])
    sb = _some(d["sync_barrier"])
    return OExecution(events, po=frozenset(po), rf=frozenset(d["rf"]), co=frozenset(d["co"]),
                      rmw=frozenset(d["rmw"]), addr=frozenset(d["addr"]), data=frozenset(d["data"]),
                      ctrl=frozenset(d["ctrl"]), sync_fence=None if sc is None else frozenset(sc),
                      sync_barrier=None if sb is None else frozenset(sb))


@dataclass
class LeanClaim:
    """One theorem of a generated file with the data it is about."""

    index: int
    kind: str  # 'allowed' | 'forbidden'
    model: str
    executions: list[OExecution] = field(default_factory=list)
    total: tuple[str, ...] = ()  # forbidden: locations whose coherence order must be total
    finals: tuple[tuple[str, int], ...] = ()  # forbidden: only coherence orders ending so count


_MODEL = {m.ident: name for name, m in MODELS.items()}  # Lean definition -> registered model
_DEF = re.compile(r"^def (witness|candidates)_(\d+) : (?:Execution|List Execution) :=", re.M)
_THM = re.compile(r"^theorem (allowed|forbidden)_(\d+) : (.*?) := by (\w+)\s*$", re.M)


def read_lean(path: str | Path) -> list[LeanClaim]:
    """Parse a generated obligation file: every theorem with its witness / candidate list."""
    path = Path(path)
    text = path.read_text()
    data: dict[tuple[str, int], Any] = {}
    defs = list(_DEF.finditer(text))
    for k, m in enumerate(defs):
        start = m.end()
        end = defs[k + 1].start() if k + 1 < len(defs) else len(text)
        th = _THM.search(text, start, end)
        stop = min(end, th.start() if th else end)
        # the literal ends before the doc comment of the theorem that follows it
        doc = text.find("/--", start, stop)
        stop = doc if doc != -1 else stop
        p = _Parser(text[start:stop], str(path), start)
        p.full = text
        val = p.value()
        if p.peek()[0] != "eof":
            p.fail(p.peek()[2], "trailing text after the execution data")
        data[(m.group(1), int(m.group(2)))] = val
    claims = []
    for m in _THM.finditer(text):
        kind, idx, stmt = m.group(1), int(m.group(2)), m.group(3)
        model = next((v for k, v in _MODEL.items() if re.search(rf"\b{k}\b", stmt)), None)
        if model is None:
            raise PtxkitError(f"theorem {kind}_{idx}: no model in its statement", file=str(path))
        key = ("witness" if kind == "allowed" else "candidates", idx)
        if key not in data:
            raise PtxkitError(f"theorem {kind}_{idx} has no {key[0]}_{idx}", file=str(path))
        raw = data[key]
        exs = [execution_from_data(raw)] if kind == "allowed" else [execution_from_data(r) for r in raw]
        total: tuple[str, ...] = ()
        finals: tuple[tuple[str, int], ...] = ()
        if kind == "forbidden":
            tm = re.search(r"inconsistent_all_co \w+ (\[.*?\]) (\[.*?\])\)", stmt)
            if tm is None:
                raise PtxkitError(f"theorem {kind}_{idx}: unexpected statement {stmt!r}", file=str(path))
            total = tuple(_Parser(tm.group(1), str(path), 0).value())
            finals = tuple(tuple(f) for f in _Parser(tm.group(2), str(path), 0).value())
        claims.append(LeanClaim(idx, kind, model, exs, total, finals))
    return claims


def final_ok(ox: OExecution, co: set[tuple[int, int]], finals) -> bool:
    """Python twin of ``final_ok``: each (location, value) ends with a co-maximal write of that value."""
    return all(any(e.kind == "W" and e.loc == loc and e.value == v and not any(a == e.eid for a, _ in co)
                   for e in ox.events) for loc, v in finals)


def co_choices(ox: OExecution, total: tuple[str, ...]) -> list[set[tuple[int, int]]]:
    """Python twin of ``co_choices`` in PtxModel/Models.lean: per location every acyclic relation on
    its non-initial writes (every total order when observed), initial writes first; the product."""
    n = ox.n
    locs = list(dict.fromkeys(e.loc for e in ox.events if e.kind == "W" and e.loc is not None))
    per_loc = []
    for lname in locs:
        ws = [e.eid for e in ox.events if e.kind == "W" and e.loc == lname]
        inits = [w for w in ws if ox.events[w].is_init]
        others = [w for w in ws if not ox.events[w].is_init]
        first = {(i, w) for i in inits for w in others}
        opts = []
        if lname in total:
            for perm in itertools.permutations(others):
                opts.append(first | set(itertools.pairwise(perm)))
        else:
            cands = [(a, b) for a in others for b in others if a != b]
            for k in range(len(cands) + 1):
                for sub in itertools.combinations(cands, k):
                    if BitRel.from_pairs(n, sub).find_cycle() is None:
                        opts.append(first | set(sub))
        per_loc.append(opts)
    return [set().union(*combo) for combo in itertools.product(*per_loc)] if per_loc else [set()]


def check_execution(ox: OExecution, model: str) -> tuple[bool, str]:
    """``ptxkit.consistency``'s verdict on ``ox``. Explicit barrier edges (an explorer's barrier
    schedule) replace the instance-derived ``sync_barrier`` (``Execution.bar_sync``, as the Lean
    library does) and the Fence-SC orders are searched as ``models.check`` does."""
    res = check(to_execution(ox), model)
    return res.consistent, "; ".join(str(v) for v in res.violations)


@dataclass
class Recheck:
    claim: LeanClaim
    ok: bool
    detail: str = ""


def recheck(path: str | Path) -> list[Recheck]:
    """Re-check every claim of a generated Lean file with ``ptxkit.consistency``: each witness must be
    well formed and consistent, each forbidden candidate well formed and inconsistent."""
    out = []
    for c in read_lean(path):
        ok, detail = True, ""
        for k, ox in enumerate(c.executions):
            ex = to_execution(ox)
            probs = validate(ex)
            unread = [e.id for e in ex.events if e.kind == "R" and not any(r == e.id for _, r in ex.rf)]
            if probs or unread:
                ok, detail = False, f"execution {k} ill-formed: {probs or f'reads {unread} read nothing'}"
                break
            if c.kind == "allowed":
                good, why = check_execution(ox, c.model)
                if not good:
                    ok, detail = False, f"witness is inconsistent: {why}"
                    break
                continue
            for co in co_choices(ox, c.total):
                if not final_ok(ox, co, c.finals):
                    continue
                if check_execution(replace(ox, co=frozenset(co)), c.model)[0]:
                    ok, detail = False, f"candidate {k} is consistent with coherence order {sorted(co)}"
                    break
            if not ok:
                break
        out.append(Recheck(c, ok, detail))
    return out
