"""Lean 4 proof obligations (``ptxkit explore --lean DIR``): one file per test importing ``PtxModel``.

For every allowed outcome the file holds a concrete witness execution and
``theorem allowed_i : valid <model> witness_i = true := by native_decide``; for every forbidden
outcome the explorer's finite list of candidate executions with that outcome and
``theorem forbidden_i : List.all candidates_i (inconsistent_all_co <model> [observed] [finals]) = true``
(each candidate is well formed, complete and inconsistent for every coherence order: the explorer's
inconsistent candidates carry none).
A comment states each claim in words. The library (``lean/PtxModel``) mirrors ``ptxkit/consistency``
name for name (PTX ISA §8); ``ptxkit.export.lean_reader`` parses these files back and re-checks them.

``native_decide`` (evaluation by compiled code, trusting the Lean compiler: the axiom
``Lean.ofReduceBool``) is the default because kernel ``decide`` on matrices of a dozen events is far
too slow; ``tactic='decide'`` writes plain ``by decide`` instead, for tiny executions.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from ptxkit.consistency.registry import MODELS
from ptxkit.consistency.vocab import BarrierOp, FenceKind, Kind, Proxy, Scope, Sem
from ptxkit.explore.result import ExploreResult
from ptxkit.export.claims import to_obligations
from ptxkit.export.files import atomic_write, prepare_directory
from ptxkit.export.obligations import _RESERVED, OEvent, OExecution, TestObligations

# every registered model → its Lean definition (lean/PtxModel/Model.lean defines each; tested)
LEAN_MODEL = {name: m.ident for name, m in MODELS.items()}
# the vocabulary's constructors in the Lean library (lean/PtxModel/Events.lean)
KIND = {k: f"Kind.{k.value}" for k in Kind}
SEM = {s: f"Sem.{s.value}" for s in Sem}
SCOPE = {s: f"Scope.{s.value}" for s in Scope}
PROXY = {p: f"Proxy.{'const' if p == Proxy.constant else p.value}" for p in Proxy}
FENCE = {f: f"FenceKind.{'aliasFence' if f == FenceKind.alias else f.value}" for f in FenceKind}
BARRIER = {o: f"BarrierOp.{o.value}" for o in BarrierOp}
REL_FIELDS = ("rf", "co", "rmw", "addr", "data", "ctrl")
OPT_FIELDS = ("sc_order", "sync_barrier")


def lean_string(s: str) -> str:
    r"""A Lean 4 string literal for ``s``. Lean's escapes are ``\\ \" \' \n \t \r``, ``\xHH`` and
    ``\uHHHH`` (exactly four hex digits; there is no ``\u{…}`` form), so other control characters
    become ``\xHH``, the rest of the BMP ``\uHHHH``, and characters above U+FFFF (which have no
    escape) are written as themselves (Lean sources are UTF-8)."""
    out = ['"']
    for ch in s:
        o = ord(ch)
        if ch in '"\\':
            out.append("\\" + ch)
        elif ch in _SIMPLE_ESCAPES:
            out.append(_SIMPLE_ESCAPES[ch])
        elif 32 <= o < 127:
            out.append(ch)
        elif o < 0x100:
            out.append(f"\\x{o:02x}")
        elif 0xD800 <= o < 0xE000:  # a lone surrogate is no Unicode scalar value: Lean has no such Char
            out.append("\\ufffd")
        elif o <= 0xFFFF:
            out.append(f"\\u{o:04x}")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


_SIMPLE_ESCAPES = {"\n": "\\n", "\t": "\\t", "\r": "\\r"}


def _opt(v: str | None) -> str:
    return "none" if v is None else f"some {v}"


def _int(v: int) -> str:
    return str(v) if v >= 0 else f"({v})"


def positions(ex: OExecution) -> dict[int, int]:
    """Each event's place in its thread: the number of its po-predecessors (po is a per-thread total
    order, transitively closed, as ``ptxkit.consistency`` builds it)."""
    pos = {e.eid: 0 for e in ex.events}
    for _, b in ex.po:
        pos[b] += 1
    return pos


def event_text(e: OEvent, pos: int) -> str:
    fields = [
        f"id := {e.eid}", f"thread := {_int(-1 if e.thread is None else e.thread)}",
        f"kind := {KIND[e.kind]}", f"pos := {pos}",
        f"location := {_opt(None if e.loc is None else lean_string(e.loc))}",
        f"vaddr := {_opt(None if e.vloc is None else lean_string(e.vloc))}",
        f"size := {e.size}",
        f"value := {_opt(None if e.value is None else _int(e.value))}",
        f"sem := {SEM[e.sem]}", f"scope := {_opt(None if e.scope is None else SCOPE[e.scope])}",
        f"proxy := {PROXY[e.proxy]}",
        f"fence_kind := {_opt(None if e.fence_kind is None else FENCE[e.fence_kind])}",
        f"barrier_id := {_opt(None if e.barrier_id is None else str(e.barrier_id))}",
        f"barrier_op := {_opt(None if e.barrier_op is None else BARRIER[e.barrier_op])}",
        f"inst := {_opt(None if e.instance is None else str(e.instance))}",
        f"cta := {e.cta}", f"cluster := {e.cluster}", f"gpu := {e.gpu}",
    ]
    return "{ " + ", ".join(fields) + " }"


def _pairs(ps: Iterable[tuple[int, int]]) -> str:
    return "[" + ", ".join(f"({a}, {b})" for a, b in sorted(ps)) + "]"


def execution_text(ex: OExecution, indent: str = "  ") -> str:
    """A Lean ``Execution`` literal (every field written out, so the reader needs no defaults)."""
    pos = positions(ex)
    lines = ["{ events := ["]
    for i, e in enumerate(ex.events):
        comment = f"  -- {e.label}" if e.label else ""
        sep = "," if i + 1 < len(ex.events) else ""
        lines.append(f"{indent}    {event_text(e, pos[e.eid])}{sep}{_lean_comment(comment)}")
    lines.append(f"{indent}  ],")
    for name in REL_FIELDS:
        lines.append(f"{indent}  {name} := {_pairs(ex.relation(name) or ())},")
    sc = "none" if ex.sync_fence is None else f"some {_pairs(ex.sync_fence)}"
    sb = "none" if ex.sync_barrier is None else f"some {_pairs(ex.sync_barrier)}"
    lines.append(f"{indent}  sc_order := {sc},")
    lines.append(f"{indent}  sync_barrier := {sb} }}")
    return "\n".join(lines)


def _lean_comment(c: str) -> str:
    # a `--` comment runs to the end of the line; keep it on one line and ASCII-safe
    return c.replace("\n", " ")


def _doc(text: str) -> str:
    return text.replace("-/", "- /").replace("/-", "/ -")


# Lean 4's identifier-like keywords: one list, kept in ``obligations`` where names are sanitised
LEAN_KEYWORDS = _RESERVED


def module_name(t: TestObligations) -> str:
    """The file / namespace component for a test: ``TestObligations.ident`` — the source file's stem
    (test names collide: IRIW2 / IRIW_gl_cta), sanitised to letters, digits and ``_``, starting with
    a letter, prefixed ``t_`` when it would spell a Lean keyword (``obligations.identifier``)."""
    return t.ident


TACTICS = ("native_decide", "decide")


def lean_text(t: TestObligations, tactic: str = "native_decide", module: str | None = None) -> str:
    """The Lean source of one test's obligations; its namespace is ``Obligations.<module>``, the
    module the file is meant to be (default :func:`module_name`)."""
    if tactic not in TACTICS:
        raise ValueError(f"tactic must be one of {TACTICS}, not {tactic!r}")
    model = LEAN_MODEL[t.model]
    ns = f"Obligations.{module or module_name(t)}"
    # kernel `decide` unfolds the whole checker; the default recursion limit (512) is far too low
    opts = ["set_option maxRecDepth 100000", ""] if tactic == "decide" else []
    out = ["import PtxModel", "open PtxModel", "", *opts,
           "/-!",
           _doc(f"# Proof obligations for `{t.name}` ({t.source or 'generated'})"),
           "",
           _doc(f"Model `{t.model}` (`{model}`); condition `{t.condition}`; explorer verdict: {t.verdict or '?'}."),
           "Generated by `ptxkit explore --lean`; each theorem below states its claim in words.",
           f"Proofs use `{tactic}`" + (": evaluation by compiled code, trusting the Lean compiler "
                                       "(axiom `Lean.ofReduceBool`), because kernel `decide` on these "
                                       "matrices is too slow." if tactic == "native_decide" else "."),
           "-/", "", f"namespace {ns}", ""]
    for i, ob in enumerate(t.obligations):
        text = ob.outcome_text()
        cond = "" if ob.satisfies_condition is None else (
            " (it satisfies the test's condition)" if ob.satisfies_condition else
            " (it does not satisfy the test's condition)")
        if ob.kind == "allowed":
            assert ob.witness is not None
            out += [f"/-- Witness {i}: a candidate execution of `{_doc(t.name)}` with outcome",
                    f"`{_doc(text)}`{cond}. -/",
                    f"def witness_{i} : Execution :=", "  " + execution_text(ob.witness), "",
                    f"/-- Allowed: the outcome `{_doc(text)}` is reachable under {t.model}, because",
                    f"`witness_{i}` is well formed, complete and consistent (every axiom holds for its",
                    "Fence-SC order, or for some order when it carries none). -/",
                    f"theorem allowed_{i} : valid {model} witness_{i} = true := by {tactic}", ""]
        else:
            out += [f"/-- The {len(ob.candidates)} candidate executions of `{_doc(t.name)}` with outcome",
                    f"`{_doc(text)}`{cond}: every execution the explorer can build for it (within its",
                    "bounds), each with the Fence-SC order it was built with (`none`: every order). -/",
                    f"def candidates_{i} : List Execution := ["]
            for k, c in enumerate(ob.candidates):
                sep = "," if k + 1 < len(ob.candidates) else ""
                out.append("  " + execution_text(c, "  ") + sep)
            observed = sorted({o for c in ob.candidates for o in c.observed})
            total = "[" + ", ".join(lean_string(o) for o in observed) + "]"
            finals = sorted({kv for c in ob.candidates for kv in c.final.items()})
            fin = "[" + ", ".join(f"({lean_string(k)}, {_int(v)})" for k, v in finals) + "]"
            ends = "; ".join(f"{k} ends = {v}" for k, v in finals)
            out += ["]", "",
                    f"/-- Forbidden: the outcome `{_doc(text)}` is not reachable under {t.model}, because",
                    f"each of its {len(ob.candidates)} candidates is well formed and complete but",
                    "inconsistent for every coherence order (total on the observed locations "
                    f"{_doc(', '.join(observed) or 'none')}"
                    + (f"; among those, every order with {_doc(ends)}" if finals else "") + "). -/",
                    f"theorem forbidden_{i} : List.all candidates_{i} (inconsistent_all_co {model} {total} {fin})"
                    f" = true := by {tactic}", ""]
    out += [f"end {ns}", ""]
    return "\n".join(out)


def write_lean(result: TestObligations | ExploreResult, directory: str | os.PathLike[str],
               tactic: str = "native_decide") -> Path:
    """Write ``directory/<Module>.lean`` for an explorer result (or a :class:`TestObligations`),
    ``<Module>`` being :func:`module_name` (the source file's stem, so tests sharing a name do not
    overwrite each other; the test's own name stays in the file's docstring).
    To check it, copy it into ``lean/Obligations/`` and run ``make lean`` (see lean/README.md)."""
    t = to_obligations(result)
    path = prepare_directory(directory, "--lean") / f"{module_name(t)}.lean"
    atomic_write(path, lean_text(t, tactic))
    return path
