"""The Lean 4 side without a Lean toolchain: the library mirrors ptxkit/consistency name for name
(and arity), generated files parse back to exactly the data that was exported, a broken export is
caught by the reader's re-check, and the committed example obligations are up to date."""

from __future__ import annotations

import inspect
import re
from dataclasses import replace

import pytest

from conftest import LITMUS_CORPUS, ROOT
from ptxkit.consistency import axioms, events, models, relations
from ptxkit.consistency.events import ExecutionBuilder
from ptxkit.export.lean import EXAMPLES, example_text, lean_text, write_lean
from ptxkit.export.lean_reader import read_lean, recheck
from ptxkit.export.obligations import Obligation, TestObligations, from_execution

LEAN = ROOT / "lean"
LIB = sorted((LEAN / "PtxModel").glob("*.lean"))

# Python names with no Lean counterpart, and why
PY_ONLY = {
    "relations.compute": "picks a relation backend (bits / pairs); Lean has one representation",
    "relations.static_relations": "the events-only part of base_relations, cached by the explorer "
                                  "across candidates; Lean builds Base in one piece",
}
# Lean definitions with no Python function of that name, and why
LEAN_ONLY = {
    "mask": "Python's private _mask (bitmask of an event predicate)",
    "insertAll": "helper of perms", "perms": "itertools.permutations in sc_orders",
    "indexOf": "helper of sc_orders",
    "complete": "every read reads from a write (part of the Lean statement `valid`)",
    "valid": "the statement of an allowed-outcome obligation",
    "sublists": "helper of co_choices", "chain": "helper of co_choices", "dedup": "helper of co_choices",
    "co_choices_loc": "coherence-order choices of one location (forbidden obligations)",
    "co_choices": "the coherence orders a forbidden obligation quantifies over",
    "inconsistent_all_co": "the statement of a forbidden-outcome obligation",
    "final_ok": "a coherence order ends locations with given values (forbidden obligations)",
    "ptx_7_5": "MODELS['ptx-7.5']", "ptx_6_0": "MODELS['ptx-6.0']",
    "ptx_7_5_alloy": "MODELS['ptx-7.5-alloy']",
    "MODELS": "models.MODELS (a dict in Python)", "DEFAULT_MODEL": "models.DEFAULT_MODEL",
    "INIT": "events.INIT", "Axioms.AXIOMS": "axioms.AXIOMS (a dict in Python)",
    "Axioms.MONOTONE": "axioms.MONOTONE (a dict in Python)",
    "Event.dummy": "default element for list lookups", "Event.is_sem_fence": "fence_kind == 'sem'",
    "Event.same_cta": "Event.cta_key equality", "Execution.size": "len(execution)",
    "Execution.ev": "execution.events[i]", "Execution.po": "Execution.po (a property)",
    "nthD": "list lookup with a default", "zipRow": "row helper", "rowAnd": "mask &",
    "rowOr": "mask |", "rowAll": "the full mask", "rowMem": "mask >> i & 1",
}


def lean_defs() -> dict[str, int]:
    """Every ``def`` of the library, qualified below ``PtxModel``, with its number of explicit
    arguments (binder groups ``(a b : T)`` count each name)."""
    out: dict[str, int] = {}
    for path in LIB:
        ns: list[str] = []
        for line in path.read_text().splitlines():
            m = re.match(r"namespace (\S+)", line)
            if m:
                ns.append(m.group(1))
                continue
            m = re.match(r"end (\S+)", line)
            if m and ns and ns[-1] == m.group(1):
                ns.pop()
                continue
            m = re.match(r"def (\S+)(.*)", line)
            if m:
                name = ".".join(ns[1:] + [m.group(1)]) if ns and ns[0] == "PtxModel" else m.group(1)
                sig = m.group(2).split(":=")[0]
                explicit = re.findall(r"\(([^():]+):", sig)
                out[name] = sum(len(g.split()) for g in explicit)
    return out


def lean_structure_fields(name: str) -> list[str]:
    text = (LEAN / "PtxModel" / "Relations.lean").read_text()
    m = re.search(rf"^structure {name} where\n((?:  .*\n)+)", text, re.M)
    assert m, name
    return [ln.split(":")[0].strip() for ln in m.group(1).splitlines() if ":" in ln]


def py_arity(f) -> int:
    """Positional parameters, ignoring the backend choice (Lean has one representation)."""
    return sum(1 for p in inspect.signature(f).parameters.values()
               if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.name != "backend")


def py_functions() -> dict[str, tuple[str, int]]:
    """Public functions of relations/axioms/models → (Lean name, arity)."""
    out = {}
    for mod, prefix in ((relations, ""), (axioms, "Axioms."), (models, "")):
        short = mod.__name__.rsplit(".", 1)[1]
        for name, f in inspect.getmembers(mod, inspect.isfunction):
            if f.__module__ != mod.__name__ or name.startswith("_"):
                continue
            if f"{short}.{name}" in PY_ONLY:
                continue
            out[f"{short}.{name}"] = (prefix + name, py_arity(f))
    return out


def test_every_python_definition_has_a_lean_twin_of_the_same_arity():
    defs = lean_defs()
    missing, wrong = [], []
    for py, (lean, arity) in sorted(py_functions().items()):
        if lean not in defs:
            missing.append(f"{py} -> {lean}")
        elif defs[lean] != arity:
            wrong.append(f"{py}: Python {arity} arguments, Lean {defs[lean]}")
    assert not missing, missing
    assert not wrong, wrong
    # Event predicates (properties in Python, functions of the event in Lean)
    for name, member in inspect.getmembers(events.Event):
        if name.startswith("is_") and isinstance(member, property):
            assert defs.get(f"Event.{name}") == 1, name


def test_every_lean_definition_has_a_python_twin_or_a_reason():
    py = {lean for lean, _ in py_functions().values()}
    py |= {f"Event.{n}" for n, m in inspect.getmembers(events.Event)
           if n.startswith("is_") and isinstance(m, property)}
    extra = sorted(d for d in lean_defs() if d not in py and d not in LEAN_ONLY
                   and not d.startswith("Mat."))
    assert not extra, f"Lean definitions without a Python counterpart: {extra}"


def test_relation_names_match():
    """Base's relations (Python's ``rels`` dict, built on a real execution) and Relations' fields."""
    b = ExecutionBuilder()
    w = b.write(0, "x", 1, sem="release", scope="gpu")
    b.read(1, "x", sem="acquire", scope="gpu", rf=w)
    base = relations.base_relations(b.build(), models.get_model("ptx-7.5"))
    lean_base = set(lean_structure_fields("Base"))
    assert set(base.rels) <= lean_base, set(base.rels) - lean_base
    masks = {k for k, v in vars(base).items() if isinstance(v, int) and k != "n"}
    assert masks <= lean_base, masks - lean_base
    rel_fields = {f.name for f in relations.Relations.__dataclass_fields__.values()}
    assert rel_fields == set(lean_structure_fields("Relations"))


def test_models_and_axiom_tables_match():
    text = (LEAN / "PtxModel" / "Model.lean").read_text()
    for name, m in models.MODELS.items():
        block = re.search(r'name := "' + re.escape(name) + r'",(.*?)}', text, re.S)
        assert block, name
        axs = re.findall(r'"([a-z-]+)"', block.group(1).split("proxies")[0])
        assert tuple(axs) == m.axioms, name
        assert f"proxies := {str(m.proxies).lower()}" in block.group(1)
        assert f"cause_base_includes_po := {str(m.cause_base_includes_po).lower()}" in block.group(1)
    ax_text = (LEAN / "PtxModel" / "Axioms.lean").read_text()
    for table, py in (("AXIOMS", axioms.AXIOMS), ("MONOTONE", axioms.MONOTONE)):
        body = ax_text.split(f"def {table} ")[1].split("\n\n")[0]
        arms = dict(re.findall(r'\| "([a-z-]+)" => (\w+) rels', body))
        assert set(arms) == set(py), table
        assert all(arms[k] == f.__name__ for k, f in py.items()), table


def test_lean_project_files():
    assert re.fullmatch(r"leanprover/lean4:v4\.\d+\.\d+\n", (LEAN / "lean-toolchain").read_text())
    lake = (LEAN / "lakefile.lean").read_text()
    assert "lean_lib PtxModel" in lake and "lean_lib Obligations" in lake
    root = (LEAN / "PtxModel.lean").read_text()
    for p in LIB:
        assert f"import PtxModel.{p.stem}" in root
        text = p.read_text()
        # core Lean only, and every opened comment / namespace is closed
        assert "Mathlib" not in text and "Std." not in text and "Batteries" not in text
        assert text.count("/-") == text.count("-/"), p.name
        assert sorted(re.findall(r"^namespace (\S+)", text, re.M)) == \
            sorted(re.findall(r"^end (\S+)", text, re.M)), p.name
    assert "have not been checked by a Lean compiler" in (LEAN / "README.md").read_text()


# ----------------------------------------------------------------------------- reader round trip

def _mp(flag_seen: bool, data_seen: bool):
    b = ExecutionBuilder("MP")
    b.thread(0, cta=0)
    b.thread(1, cta=1)
    wx = b.write(0, "x", 1)
    f = b.fence(0, sem="sc", scope="gpu")
    wy = b.write(0, "y", 1, sem="relaxed", scope="gpu")
    b.read(1, "y", sem="relaxed", scope="gpu", rf=wy if flag_seen else "init")
    g = b.fence(1, sem="sc", scope="gpu")
    b.read(1, "x", rf=wx if data_seen else "init")
    b.add_sc(f, g)
    b.barrier(0, 1)
    b.barrier(1, 1)
    return b.build()


def _obligations() -> TestObligations:
    return TestObligations("MP+fence.sc \"quoted\" -/", "ptx-7.5", "hand-built", "~exists (P1:r0 == 1)", "Ok", [
        Obligation("allowed", {"P1:r0": 1, "P1:r1": 1}, witness=from_execution(_mp(True, True))),
        Obligation("forbidden", {"P1:r0": 1, "P1:r1": 0},
                   candidates=[replace(from_execution(_mp(True, False)), co=None, observed=("x",))]),
    ])


def test_reader_round_trip(tmp_path):
    t = _obligations()
    path = write_lean(t, tmp_path)
    claims = read_lean(path)
    assert [(c.kind, c.model) for c in claims] == [("allowed", "ptx-7.5"), ("forbidden", "ptx-7.5")]
    w = claims[0].executions[0]
    orig = t.obligations[0].witness
    for f in ("events", "po", "rf", "co", "rmw", "addr", "data", "ctrl", "sync_fence", "sync_barrier"):
        assert getattr(w, f) == getattr(orig, f), f
    c = claims[1].executions[0]
    assert c.events == t.obligations[1].candidates[0].events and c.rf == t.obligations[1].candidates[0].rf
    assert claims[1].total == ("x",)
    assert all(r.ok for r in recheck(path)), [r.detail for r in recheck(path)]


@pytest.mark.parametrize("corrupt", ["drop-rf", "shift-index", "redirect-rf", "reorder-pos"])
def test_reader_catches_a_broken_export(tmp_path, corrupt):
    path = write_lean(_obligations(), tmp_path)
    text = path.read_text()
    head, rest = text.split("theorem allowed_0", 1)
    if corrupt == "drop-rf":  # the witness loses the edge that makes ld y read 1
        head = re.sub(r"rf := \[\(\d+, \d+\), ", "rf := [", head, count=1)
    elif corrupt == "shift-index":  # an rf edge pointing at the wrong event
        head = re.sub(r"rf := \[\((\d+), (\d+)\)", lambda m: f"rf := [({m.group(1)}, {int(m.group(2)) + 1})",
                      head, count=1)
    elif corrupt == "redirect-rf":  # the candidate's ld x reads x=1 instead of the initial 0
        assert "rf := [(0, 7), (4, 5)]" in rest
        rest = rest.replace("rf := [(0, 7), (4, 5)]", "rf := [(1, 7), (4, 5)]")
    else:  # the candidate's ld x moves before P1's fence.sc: nothing orders it after st x any more
        assert "thread := 1, kind := Kind.R, pos := 2" in rest
        rest = rest.replace("thread := 1, kind := Kind.R, pos := 2", "thread := 1, kind := Kind.R, pos := 0")
    path.write_text(head + "theorem allowed_0" + rest)
    assert not all(r.ok for r in recheck(path))


def test_generated_text_shape():
    text = lean_text(_obligations())
    assert text.startswith("import PtxModel\nopen PtxModel\n")
    assert "theorem allowed_0 : valid ptx_7_5 witness_0 = true := by native_decide" in text
    assert "theorem forbidden_1 : List.all candidates_1 (inconsistent_all_co ptx_7_5 [\"x\"] []) = true" in text
    assert "namespace Obligations.MP_fence_sc__quoted____" in text
    assert text.count("/-") == text.count("-/")  # the test name's '-/' cannot close a comment early
    assert "by decide" in lean_text(_obligations(), tactic="decide")


# ----------------------------------------------------------------------------- committed examples

@pytest.mark.parametrize("module", sorted(EXAMPLES))
def test_committed_examples_recheck(module):
    """lean/Obligations/ holds a few generated files so `make lean` checks real obligations
    (regenerate: `python -m ptxkit.export.lean ../shared/corpora/litmus/dat3m`). They are snapshots:
    each must still parse and every claim re-check with ptxkit.consistency; and a fresh export of
    the same test must make the same claims (same theorem kinds) — the data may differ in labels."""
    committed = LEAN / "Obligations" / f"{module}.lean"
    assert committed.is_file(), committed
    claims = read_lean(committed)
    assert claims and all(r.ok for r in recheck(committed))
    if not LITMUS_CORPUS.is_dir():
        return
    fresh = example_text(LITMUS_CORPUS, module)
    kinds = lambda text: sorted(re.findall(r"^theorem (allowed|forbidden)_\d+", text, re.M))
    assert kinds(fresh) == kinds(committed.read_text())
