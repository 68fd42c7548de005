"""Benchmark of `ptxkit verify` on corpora/verify (issue 11), side by side with SentryWard.

For every kernel of ``corpora/verify/manifest.json``: the wall time and verdict of
``ptxkit verify FILE ARGS --json`` (run as a command, so the time includes the interpreter's start, about
0.5 s), and — where SentryWard (``pip install 'ptxkit[bench]'``, an optional dependency imported lazily)
is installed — its result and time on the same PTX and launch. SentryWard's input (its
``spverify.kernel-input/v1`` JSON) is built from the manifest's `ptxkit run` arguments: the launch, the
scalar parameters, null pointers and tensor maps; buffers stay SentryWard's symbolic, pairwise
non-aliasing objects. Its results map onto ptxkit's verdicts: race_free/verified → verified,
potential_race → race, not_wellsynced/invalid_lifecycle → not-well-synchronized; anything else
(unsupported, timeout, …) is shown as is and counts as no verdict.
"""

from __future__ import annotations

import importlib.util
import json
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from ptxkit.bench.common import ROOT, Row

NAME = "verify"
CORPUS = ROOT / "corpora" / "verify"
TIMEOUT_S = 300.0
SENTRYWARD_VERDICT = {"race_free": "verified", "verified": "verified", "potential_race": "race",
                      "not_wellsynced": "not-well-synchronized", "invalid_lifecycle": "not-well-synchronized"}
_ELEM_BYTES = {"u8": 1, "s8": 1, "u16": 2, "s16": 2, "f16": 2, "bf16": 2, "u32": 4, "s32": 4, "f32": 4,
               "u64": 8, "s64": 8, "f64": 8}
_PARAM = re.compile(r"\.param\s+(?:\.align\s+\d+\s+)?\.(\w+)\s+(?:\.ptr(?:\s+\.\w+(?:\s+\d+)?)*\s+)?([\w$]+)")


def manifest() -> dict[str, dict[str, Any]]:
    path = CORPUS / "manifest.json"
    return json.loads(path.read_text()) if path.is_file() else {}


def entry_params(ptx: str) -> tuple[str, list[tuple[str, str]]]:
    """The (only) ``.entry``'s name and its parameters as (name, declared type)."""
    m = re.search(r"\.entry\s+([\w$]+)\s*\((.*?)\)", ptx, re.S)
    if m is None:
        raise ValueError("no .entry")
    return m.group(1), [(p.group(2), p.group(1)) for p in _PARAM.finditer(m.group(2))]


def _dims(text: str) -> list[int]:
    d = [int(x) for x in text.split(",")]
    return d + [1] * (3 - len(d))


def _int(text: str) -> int:
    return int(text, 0)


def _tma_descriptor(pname: str, obj: str, spec: str) -> dict[str, Any]:
    """`tmap:TYPE[N]:SOURCE:dims=…:box=…[:strides=…][:swizzle=…]` (exec_sim's spec) → SentryWard's
    tiled, non-interleaved descriptor (dims/box innermost first; byte strides of every coordinate)."""
    fields = spec.split(":")
    typ = fields[1].split("[")[0]
    opts = dict(f.split("=", 1) for f in fields[3:] if "=" in f)
    dims = [int(x) for x in opts["dims"].split(",")]
    eb = _ELEM_BYTES[typ]
    strides = [int(x) for x in opts["strides"].split(",")] if "strides" in opts else []
    if not strides:
        acc = eb
        for d in dims[:-1]:
            acc *= d
            strides.append(acc)
    return {"parameter": pname, "object": obj, "interleave": "none", "swizzle": opts.get("swizzle", "none"),
            "element_type": typ, "global_shape": dims, "box_shape": [int(x) for x in opts["box"].split(",")],
            "element_strides": [1] * len(dims), "coordinate_strides_bytes": [eb, *strides]}


def sentryward_input(ptx: str, args: list[str]) -> dict[str, Any]:
    """SentryWard's input JSON for the launch ``args`` (`ptxkit run` syntax) of ``ptx``."""
    entry, params = entry_params(ptx)
    by_name = {n: i for i, (n, _) in enumerate(params)}
    launch: dict[str, Any] = {"grid_dim": [1, 1, 1], "block_dim": [1, 1, 1]}
    arguments: list[dict[str, Any]] = []
    tmaps: list[dict[str, Any]] = []
    it = iter(args)
    for flag in it:
        value = next(it)
        if flag == "--grid":
            launch["grid_dim"] = _dims(value)
        elif flag == "--block":
            launch["block_dim"] = _dims(value)
        elif flag == "--cluster":
            launch["cluster_dim"] = _dims(value)
        elif flag == "--shared":
            launch["dynamic_shared_bytes"] = int(value)
        elif flag == "--arg":
            name, spec = value.split("=", 1)
            pname, ptype = params[int(name) if name.isdigit() else by_name[name]]
            if spec == "null":
                arguments.append({"parameter": pname, "type": "pointer", "value": None})
            elif spec.startswith("tmap:"):
                tmaps.append(_tma_descriptor(pname, f"tensor_{name}", spec))
            elif "[" not in spec.split(":")[0]:  # a scalar: SentryWard wants the declared type
                arguments.append({"parameter": pname, "type": ptype, "value": _int(spec.split(":", 1)[1])})
    out: dict[str, Any] = {"schema": "spverify.kernel-input/v1", "entry": entry, "launch": launch,
                           "arguments": arguments}
    if tmaps:
        out["tma_descriptors"] = tmaps
    return out


def run_ptxkit(entry: dict[str, Any], timeout: float = TIMEOUT_S) -> tuple[str, float]:
    """(verdict, seconds) of `ptxkit verify` on one manifest entry; the verdict is `error: …` when the
    command gave none (not available, bad input, crash) and `timeout` past ``timeout``."""
    t = time.perf_counter()
    try:
        r = subprocess.run([sys.executable, "-m", "ptxkit", "verify", entry["file"], *entry["args"], "--json"],
                           capture_output=True, text=True, timeout=timeout, cwd=CORPUS)
    except subprocess.TimeoutExpired:
        return "timeout", time.perf_counter() - t
    dt = time.perf_counter() - t
    try:
        return str(json.loads(r.stdout)["verdict"]), dt
    except (ValueError, KeyError, TypeError):
        lines = r.stderr.strip().splitlines()
        return f"error: {lines[-1][:80] if lines else f'exit {r.returncode}'}", dt


def sentryward_available() -> bool:
    return importlib.util.find_spec("sentryward") is not None


def run_sentryward(entry: dict[str, Any], timeout: float = TIMEOUT_S) -> tuple[str, str, float, list[str]]:
    """(verdict in ptxkit's words or '', SentryWard's own result, seconds, the first race's two locations
    as FILE:LINE — the .ptx line, or the source line of its .loc when the PTX has line info)."""
    import sentryward  # optional dependency (ptxkit[bench])

    ptx = CORPUS / entry["file"]
    with tempfile.TemporaryDirectory() as d:
        cfg = Path(d) / "input.json"
        cfg.write_text(json.dumps(sentryward_input(ptx.read_text(), entry["args"])))
        t = time.perf_counter()
        res = sentryward.verify(str(ptx), input=str(cfg), timeout_seconds=timeout)
        dt = time.perf_counter() - t
    raw = str(res.get("result"))
    races = res.get("races") or []
    where = [f"{Path(str(r[s]['location']['file'])).name}:{r[s]['location']['line']}"
             for r in races[:1] for s in ("first", "second") if isinstance(r.get(s, {}).get("location"), dict)]
    return SENTRYWARD_VERDICT.get(raw, ""), raw, dt, where


def compare_one(name: str, e: dict[str, Any], repeats: int = 1) -> dict[str, Any]:
    """Expected verdict, ptxkit's and SentryWard's verdicts and times for one manifest kernel (ptxkit's
    time: the minimum over ``repeats`` runs when it takes under 5 s)."""
    want = {e["verdict"], *e["accept"]}
    verdict, t = run_ptxkit(e)
    for _ in range(repeats - 1 if t < 5 else 0):
        t = min(t, run_ptxkit(e)[1])
    rec: dict[str, Any] = {"kernel": name, "kind": e["kind"], "expected": e["verdict"], "ptxkit": verdict,
                           "ptxkit_s": round(t, 3), "ptxkit_ok": verdict in want}
    if sentryward_available():
        sv, raw, st, where = run_sentryward(e)
        rec |= {"sentryward": sv or raw, "sentryward_result": raw, "sentryward_s": round(st, 3),
                "sentryward_ok": sv in want if sv else None, "sentryward_witness": where}
        ptx_lines = {int(w.rsplit(":", 1)[1]) for w in where if w.startswith(e["file"] + ":")}
        if sv == "race" and len(ptx_lines) == len(set(where)) > 0:  # both sides located in the .ptx
            rec["sentryward_witness_ok"] = all(ptx_lines & set(g) for g in e["witness"].get("race", []))
    return rec


def compare(repeats: int = 1, names: list[str] | None = None) -> list[dict[str, Any]]:
    """One record per manifest kernel (all, or those in ``names``)."""
    return [compare_one(n, e, repeats) for n, e in manifest().items() if not names or n in names]


def _agreement(tool: str, verdict: str, r: dict[str, Any]) -> str:
    if verdict == r["expected"]:
        return f"{tool} as expected"
    if verdict in manifest()[r["kernel"]]["accept"]:
        return f"{tool}: {verdict}, an alternative the header accepts"
    return f"{tool} differs from expected"


def run(repeats: int) -> list[Row]:
    rows: list[Row] = []
    recs = compare(repeats)
    if not recs:
        return [{"figure": "verify corpus", "value": "skipped", "goal": "—", "note": "corpora/verify absent"}]
    for r in recs:
        value = f"ptxkit {r['ptxkit']} {r['ptxkit_s']:.2f} s"
        note = _agreement("ptxkit", r["ptxkit"], r)
        if "sentryward" in r:
            value += f" | SentryWard {r['sentryward']} {r['sentryward_s']:.2f} s"
            sw = _agreement("SentryWard", r["sentryward"], r) if r["sentryward_ok"] is not None \
                else "SentryWard: no verdict"
            if r.get("sentryward_witness_ok") is False:
                sw += f" but its race names {', '.join(r['sentryward_witness'])}, not the expected lines"
            note = f"{note}; {sw}"
        rows.append({"figure": f"verify {r['kernel']} ({r['kind']})", "value": value, "goal": r["expected"],
                     "note": note, "ours": r["ptxkit_s"], "reference": r.get("sentryward_s"), **r})
    if not sentryward_available():
        rows.append({"figure": "SentryWard", "value": "skipped", "goal": "—",
                     "note": "not installed (pip install 'ptxkit[bench]')"})
    return rows


if __name__ == "__main__":  # python -m ptxkit.bench.verify [KERNEL…]: the comparison as JSON lines
    for n, e in manifest().items():
        if len(sys.argv) == 1 or n in sys.argv[1:]:
            print(json.dumps(compare_one(n, e)), flush=True)
