"""Build the fuzz cases (seeded: case ``ptx:17`` is the same input on every machine with the same
corpora), run them through the CLI, judge them, and count."""

from __future__ import annotations

import random
import re
import shlex
import shutil
import stat
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from . import corpus, hostile
from .mutate import mutate
from .oracle import Finding, judge
from .runner import Outcome, run_cli

#: ``explore --timeout`` given to every explored mutant; the bound judged by the oracle.
EXPLORE_TIMEOUT = 2.0
#: Per-input wall-clock limit of a verb with no bound of its own (parse, sanitize, litmus2ptx, run).
HANG_TIMEOUT = 30.0

MODELS = ["ptx-7.5", "ptx-7.5", "ptx-7.5", "ptx-6.0", "ptx-7.5-alloy"]


#: vector_add's arguments, as the hostile cases give them (abbreviated in labels).
K_ARGS = "--arg '0=f32[64]:rand' --arg '1=f32[64]:rand' --arg '2=f32[64]:zeros' --arg 3=u32:64"


@dataclass
class Case:
    id: str
    argv: list[str]
    files: dict[str, bytes] = field(default_factory=dict)
    seed: str | None = None
    ops: list[str] = field(default_factory=list)
    expect: frozenset[int] | None = None
    explore_timeout: float | None = None
    timeout: float = HANG_TIMEOUT
    stdout_path: str | None = None
    fixture: bool = False
    ptxas_check: bool = False
    seed_path: Path | None = None

    def label(self) -> str:
        """The command, short: the usual vector_add arguments as ``[k-args]``, long arguments clipped."""
        words = [a if len(a) <= 40 else f"{a[:12]}…[{len(a)} chars]" for a in self.argv]
        text = "ptxkit " + " ".join(shlex.quote(w) for w in words)
        text = text.replace(K_ARGS, "[k-args]")
        return text + (f" > {self.stdout_path}" if self.stdout_path else "")

    def command(self) -> str:
        """The reproducer, as a shell command run in the case's directory."""
        redirect = f" > {self.stdout_path}" if self.stdout_path else ""
        return "ptxkit " + " ".join(shlex.quote(a) for a in self.argv) + redirect


@dataclass
class Result:
    case: Case
    outcome: Outcome
    findings: list[Finding]
    false_rejection: bool | None = None  # None: not checked


@cache
def _bytes(path: Path) -> bytes:
    return path.read_bytes()


def _donors(rng: random.Random, seeds: list[corpus.Seed], k: int = 3) -> list[bytes]:
    return [_bytes(s.path) for s in rng.sample(seeds, min(k, len(seeds)))]


def ptx_case(i: int, base: int = 0) -> Case:
    """PTX mutant number ``i``: through parse, sanitize or (for launchable seeds) run, equiv or verify."""
    rng = random.Random(f"{base}:ptx:{i}")
    seeds = corpus.ptx_seeds()
    runnable = [t for t in seeds if t.verb == "run"]
    launch = runnable and rng.random() < 0.15  # a kernel with known arguments: through run or equiv
    s = rng.choice(runnable if launch else seeds)
    data, ops = mutate(rng, _bytes(s.path), _donors(rng, seeds))
    case = Case(f"ptx:{i}", [], {"m.ptx": data}, s.name, ops, seed_path=s.path)
    r = rng.random() * 0.35 if launch else 0.35 + rng.random() * 0.65
    if r < 0.1:
        case.argv = ["equiv", "m.ptx", str(s.path), *s.launch, "--trials", "1", "--max-steps", "1000000"]
        if rng.random() < 0.3:
            case.argv.append("--no-sanitize")
    elif r < 0.18:
        case.argv = ["verify", "m.ptx", *s.launch, "--max-steps", "1000000"]
        if rng.random() < 0.3:
            case.argv.append("--json")
    elif r < 0.35:
        case.argv = ["run", "m.ptx", *s.launch, "--max-steps", "1000000"]
        if rng.random() < 0.3:
            case.argv.append("--sanitize")
        if rng.random() < 0.3:
            case.argv.append("--json")
    elif r < 0.675:
        case.argv = ["parse", "m.ptx"]
        if rng.random() < 0.25:
            case.argv.append("--json")
        elif rng.random() < 0.2:
            case.argv.append("--emit")
        case.ptxas_check = True
    else:
        case.argv = ["sanitize", "m.ptx"]
        if rng.random() < 0.6:
            case.argv += ["-o", "out.ptx"]
        for opt, p in (("--report", 0.3), ("--json", 0.2), ("--strict", 0.1), ("--homomorphic-casts", 0.1),
                       ("--sign-xor-as-neg", 0.1)):
            if rng.random() < p:
                case.argv.append(opt)
        if rng.random() < 0.15:
            case.argv += ["--atomics", "ring"]
        if rng.random() < 0.15:
            case.argv += ["--mma", rng.choice(["limbs", "auto"])]
    return case


def litmus_case(i: int, base: int = 0) -> Case:
    """Litmus mutant number ``i``: a Dat3M test through explore or litmus2ptx, or a litmus kernel
    (corpora/litmus/*.ptx) through ``explore --threads``."""
    rng = random.Random(f"{base}:litmus:{i}")
    seeds = corpus.litmus_seeds()
    kernels = [t for t in seeds if t.kind == "litmus-ptx"]
    s = rng.choice(kernels if kernels and rng.random() < 0.25 else seeds)
    same_kind = [t for t in seeds if t.kind == s.kind]
    data, ops = mutate(rng, _bytes(s.path), _donors(rng, same_kind), litmus=s.kind == "litmus")
    t = EXPLORE_TIMEOUT
    if s.kind == "litmus-ptx":
        launch = list(s.launch)
        if rng.random() < 0.2 and "--threads" in launch:
            launch[launch.index("--threads") + 1] = str(rng.choice([1, 3, 4, 8, 33]))
            ops.append("threads")
        case = Case(f"litmus:{i}", ["explore", "m.ptx", *launch, "--timeout", str(t)], {"m.ptx": data}, s.name,
                    ops, explore_timeout=t, timeout=3 * t + 10, seed_path=s.path)
        if rng.random() < 0.1:
            case.argv += ["--jobs", "2"]
    elif rng.random() < 0.65:
        case = Case(f"litmus:{i}", ["explore", "m.litmus", "--timeout", str(t)], {"m.litmus": data}, s.name, ops,
                    explore_timeout=t, timeout=3 * t + 10, seed_path=s.path)
        if rng.random() < 0.3:
            case.argv += ["--model", rng.choice(MODELS)]
        if rng.random() < 0.15:
            case.argv += ["--max-executions", str(rng.choice([1, 2, 10, 1000]))]
    else:
        case = Case(f"litmus:{i}", ["litmus2ptx", "m.litmus", "-o", "out.ptx"], {"m.litmus": data}, s.name, ops,
                    seed_path=s.path)
    if rng.random() < 0.25:
        case.argv.append("--json")
    return case


@cache
def _hostile_cases() -> list[hostile.Hostile]:
    return hostile.cases()


def hostile_case(i: int) -> Case:
    h = _hostile_cases()[i]
    return Case(f"hostile:{i}", list(h.argv), expect=h.expect, explore_timeout=h.explore_timeout,
                timeout=h.timeout if h.explore_timeout is None else 2 * h.explore_timeout + 5,
                stdout_path=h.stdout_path, fixture=True)


def hostile_count() -> int:
    return len(_hostile_cases())


def case_by_id(case_id: str, base: int = 0) -> Case:
    kind, _, n = case_id.partition(":")
    return {"ptx": lambda: ptx_case(int(n), base), "litmus": lambda: litmus_case(int(n), base),
            "hostile": lambda: hostile_case(int(n))}[kind]()


def prepare(case: Case, d: Path) -> None:
    if case.fixture:
        hostile.make_fixture(d)
    for name, data in case.files.items():
        (d / name).write_bytes(data)


def run_case(case: Case, workdir: Path | None = None, *, check_ptxas: bool = True,
             use_subprocess: bool = False) -> Result:
    """Run one case in a fresh directory and judge it."""
    own = workdir is None
    d = Path(tempfile.mkdtemp(prefix="ptxkit-fuzz-")) if own else workdir
    assert d is not None
    try:
        prepare(case, d)
        before = _snapshot(d) if case.fixture else {}
        stdout_path = case.stdout_path
        if stdout_path is not None and not (d / stdout_path).exists():
            stdout_path = "/dev/full"  # not root: no private device
        out = run_cli(case.argv, timeout=case.timeout, cwd=d,
                      stdout_path=None if stdout_path is None else str(d / stdout_path),
                      use_subprocess=use_subprocess)
        findings = judge(out, cwd=d, explore_timeout=case.explore_timeout, expect=case.expect,
                         sources=_sources(case))
        if case.fixture:
            findings += [Finding("clobbered", what) for what in _changed(before, _snapshot(d))]
        if check_ptxas and case.argv[:1] == ["litmus2ptx"] and out.rc == 0 and (d / "out.ptx").is_file() \
                and corpus.ptxas_accepts((d / "out.ptx").read_bytes()) is False:
            # docs/cli.md: litmus2ptx writes "one real .entry kernel that ptxas accepts"
            findings.append(Finding("ptxas-rejects-output", "ptxas rejects the kernel litmus2ptx wrote"))
        res = Result(case, out, findings)
        if check_ptxas and case.ptxas_check and out.rc == 2 and corpus.ptxas_path() and case.seed_path \
                and corpus.seed_accepted_by_ptxas(case.seed_path):
            res.false_rejection = corpus.ptxas_accepts(case.files["m.ptx"])
        return res
    finally:
        if own:
            shutil.rmtree(d, ignore_errors=True)


def _snapshot(d: Path) -> dict[str, object]:
    """What must survive any invocation: the inputs' bytes, and that the device is still a device."""
    snap: dict[str, object] = {n: (d / n).read_bytes() for n in hostile.KEEP if (d / n).is_file()}
    dev = d / hostile.DEVICE
    if dev.exists() or dev.is_symlink():
        snap[hostile.DEVICE] = stat.S_ISCHR(dev.lstat().st_mode)
    return snap


def _changed(before: dict[str, object], after: dict[str, object]) -> list[str]:
    return [f"{name} {'was replaced' if name == hostile.DEVICE else 'changed'}"
            for name, v in before.items() if after.get(name) != v]


def _sources(case: Case) -> dict[str, str]:
    """Pseudo-files a diagnostic may name: ``<condition>`` is the text of --exists/--not-exists/--forall."""
    for flag in ("--exists", "--not-exists", "--forall"):
        if flag in case.argv:
            return {"<condition>": case.argv[case.argv.index(flag) + 1]}
    return {}


# ---- a campaign and its numbers --------------------------------------------------------------

def class_key(f: Finding, case: Case) -> str:
    """A failure class: the kind, the verb and the detail with numbers and names blurred."""
    verb = next((a for a in case.argv if not a.startswith("-")), "-")
    detail = re.sub(r"\d+(\.\d+)?", "N", f.detail)
    detail = re.sub(r"'[^']*'", "'…'", detail)
    detail = re.sub(r"^[^:]+:N:N: ", "", detail)
    detail = detail.split(" | ")[0]  # a message after " | " is an example, not the class
    return f"{f.kind} | {verb} | {detail[:100]}"


@dataclass
class Summary:
    inputs: Counter = field(default_factory=Counter)
    kinds: Counter = field(default_factory=Counter)
    classes: dict[str, list[Result]] = field(default_factory=dict)
    false_rejections: list[Result] = field(default_factory=list)
    ptxas_checked: int = 0
    stderr_max: int = 0
    rss_max_kb: int = 0
    rss_max_case: str = ""
    stderr_max_case: str = ""
    exits: Counter = field(default_factory=Counter)
    wall: float = 0.0
    failures: list[dict] = field(default_factory=list)

    def add(self, r: Result) -> None:
        self.inputs[r.case.id.split(":")[0]] += 1
        self.exits[str(r.outcome.rc)] += 1
        if r.outcome.stderr_size > self.stderr_max:
            self.stderr_max, self.stderr_max_case = r.outcome.stderr_size, f"{r.case.id}: {r.case.label()[:120]}"
        if r.outcome.maxrss_kb > self.rss_max_kb:
            self.rss_max_kb, self.rss_max_case = r.outcome.maxrss_kb, f"{r.case.id}: {r.case.label()[:120]}"
        for f in r.findings:
            self.kinds[f.kind] += 1
            self.classes.setdefault(class_key(f, r.case), []).append(r)
        if r.findings or r.false_rejection:
            self.failures.append({"case": r.case.id, "command": r.case.command(), "label": r.case.label(),
                                  "findings": [f"{f.kind}: {f.detail}" for f in r.findings]
                                  + (["false-rejection"] if r.false_rejection else [])})
        if r.false_rejection is not None:
            self.ptxas_checked += 1
            if r.false_rejection:
                self.false_rejections.append(r)

    def counts(self) -> dict[str, int]:
        return {
            "inputs": sum(self.inputs.values()),
            "ptx_mutants": self.inputs["ptx"], "litmus_mutants": self.inputs["litmus"],
            "hostile": self.inputs["hostile"],
            "tracebacks": self.kinds["traceback"], "exit70": self.kinds["exit70"], "hangs": self.kinds["hang"],
            "timeout_overruns": self.kinds["timeout-overrun"], "stderr_overruns": self.kinds["stderr-overrun"],
            "bad_locations": self.kinds["bad-location"], "crashes": self.kinds["crash"],
            "unexpected_exits": self.kinds["unexpected-exit"], "clobbered": self.kinds["clobbered"],
            "bad_litmus2ptx_output": self.kinds["ptxas-rejects-output"],
            "false_rejections": len(self.false_rejections), "ptxas_checked": self.ptxas_checked,
            "stderr_max_bytes": self.stderr_max, "rss_max_kb": self.rss_max_kb,
        }

    def to_json(self) -> dict:
        return {
            "counts": self.counts(), "exits": dict(self.exits), "wall_s": round(self.wall, 1),
            "stderr_max_case": self.stderr_max_case, "rss_max_case": self.rss_max_case,
            "classes": [{"class": k, "count": len(v), "examples": [
                {"case": r.case.id, "seed": r.case.seed, "ops": r.case.ops, "command": r.case.command(),
                 "detail": [f.detail for f in r.findings][:3],
                 "stderr_head": r.outcome.stderr_text[:300]} for r in v[:3]]}
                for k, v in sorted(self.classes.items(), key=lambda kv: -len(kv[1]))],
            "failures": self.failures,
            "false_rejections": [{"case": r.case.id, "seed": r.case.seed, "ops": r.case.ops,
                                  "command": r.case.command(), "stderr_head": r.outcome.stderr_text[:300]}
                                 for r in self.false_rejections],
        }


def campaign(case_ids: Iterable[str], *, base: int = 0, check_ptxas: bool = True,
             on_result: Callable[[Result], None] | None = None) -> Summary:
    summary = Summary()
    t0 = time.monotonic()
    for cid in case_ids:
        r = run_case(case_by_id(cid, base), check_ptxas=check_ptxas)
        summary.add(r)
        if on_result:
            on_result(r)
    summary.wall = time.monotonic() - t0
    return summary


def ids(n_ptx: int, n_litmus: int, hostile_all: bool = True, start: int = 0) -> list[str]:
    out = [f"ptx:{i}" for i in range(start, start + n_ptx)] + [f"litmus:{i}" for i in range(start, start + n_litmus)]
    if hostile_all:
        out += [f"hostile:{i}" for i in range(hostile_count())]
    return out
