"""The verdict as text, JSON, a DOT witness graph and a replayable schedule file (docs/cli.md verify)."""

from __future__ import annotations

import json
from typing import Any

import networkx as nx

from ptxkit.exec_sim.memory import GLOBAL_BASE
from ptxkit.verify.check import Launch, Outcome, thread_coords
from ptxkit.verify.context import SPACE_SHARED
from ptxkit.verify.replay import SCHEDULER


def describe_location(key: int, launch: Launch, outcome: Outcome) -> dict[str, Any]:
    """Space, address and (for a buffer argument) the buffer name and byte offset of a location key."""
    if key & SPACE_SHARED:
        cta = (key >> 40) & ((1 << 22) - 1)
        addr = key & ((1 << 40) - 1)
        return {"space": "shared", "cta": cta, "address": addr, "text": f"shared[0x{addr:x}] of CTA {cta}"}
    addr = GLOBAL_BASE + key
    out: dict[str, Any] = {"space": "global", "address": addr, "text": f"global 0x{addr:x}"}
    res = outcome.result
    if res is not None:
        for a in launch.args:
            base = res.addresses.get(a.name)
            if a.kind == "buffer" and base is not None and base <= addr < base + a.buffer.nbytes:
                off = addr - base
                item = a.buffer.itemsize
                out.update(buffer=a.name, byte=off, text=f"{a.name}[{off // item}] (global 0x{addr:x})")
    return out


def access(outcome: Outcome, row: int, launch: Launch) -> dict[str, Any]:
    """One access of the witness: thread, instruction, address, place."""
    tab, ctx = outcome.table, outcome.ctx
    assert tab is not None and ctx is not None
    ev = ctx.events[int(tab.ev[row])]
    t = int(tab.thread[row])
    line, col, opcode = ev.line, ev.col, ev.opcode
    agent: dict[str, Any] = {}
    agents: dict[int, tuple[int, int, int, str]] = getattr(ctx, "agents", {})
    if t in agents:  # an asynchronous copy / wgmma (verify.async_rules): name the issuing instruction
        issuer, line, col, what = agents[t]
        agent = {"agent": what, "agent_thread": t}
        opcode = f"{what} (asynchronous)"
        t = issuer
    tid, cta = thread_coords(t, launch.block, launch.grid)
    return {"thread": t, "tid": list(tid), "ctaid": list(cta), "line": line, "col": col,
            "instruction": opcode, "write": bool(tab.write[row]), "event": int(tab.ev[row]),
            "location": describe_location(int(tab.key[row]), launch, outcome),
            "at": f"{launch.module.filename}:{line}:{col}", "event_line": ev.line,
            "event_instruction": ev.opcode, **agent}


def to_json(outcome: Outcome, launch: Launch, file: str) -> dict[str, Any]:
    d: dict[str, Any] = {"file": file, "verdict": outcome.verdict, "reason": outcome.reason,
                         "grid": list(launch.grid), "block": list(launch.block), "stats": outcome.stats}
    if outcome.race is not None:
        d["race"] = [access(outcome, outcome.race.a, launch), access(outcome, outcome.race.b, launch)]
    d["findings"] = [{"rule": f.rule, "message": f.message, "at": f"{file}:{f.line}:{f.col}",
                      "line": f.line, "col": f.col, "threads": list(f.threads),
                      **({"other_at": f"{file}:{f.other_line}:{f.other_col}"} if f.other_line else {})}
                     for f in outcome.findings]
    # the witness in one place: the two racing accesses, or the misused instruction(s)
    if "race" in d:
        d["witness"] = {"accesses": d["race"]}
    elif d["findings"]:
        f = outcome.findings[0]
        d["witness"] = {"findings": [{"line": f.line, "col": f.col},
                                     *([{"line": f.other_line, "col": f.other_col}] if f.other_line else [])]}
    if "different" in d["verdict"] and "difference" in outcome.stats:
        d["difference"] = outcome.stats["difference"]
        if "schedules" in d["difference"]:  # two RMW orders (verify.schedules) with different outputs
            d["witness"] = {"schedules": d["difference"]["schedules"],
                            "cta_orders": d["difference"]["cta_orders"]}
    return d


def to_text(d: dict[str, Any]) -> list[str]:
    lines = [f"{d['file']}: {d['verdict']}: {d['reason']}"]
    for x in d.get("race", []):
        what = "write" if x["write"] else "read"
        who = "issued by thread" if "agent" in x else "by thread"
        lines.append(f"{x['at']}: {what} '{x['instruction']}' of {x['location']['text']} {who} "
                     f"{tuple(x['tid'])} of CTA {tuple(x['ctaid'])}")
    for f in d.get("findings", []):
        extra = f" (and {f['other_at']})" if "other_at" in f else ""
        lines.append(f"{f['at']}: {f['rule']}: {f['message']}{extra}")
    return lines


def witness_graph(d: dict[str, Any]) -> nx.DiGraph:
    """The two racing events, each thread's program order into them, and the missing order."""
    g = nx.DiGraph()
    a, b = d["race"]
    for name, x in (("a", a), ("b", b)):
        g.add_node(name, label=f"{x['instruction']}\\n{x['location']['text']}\\nthread {tuple(x['tid'])} "
                   f"CTA {tuple(x['ctaid'])}\\n{x['at']}", shape="box")
        g.add_node(f"{name}_start", label=f"thread {x['thread']} start", shape="plaintext")
        g.add_edge(f"{name}_start", name, label="po", style="solid")
    g.add_edge("a", "b", label="no happens-before (race)", style="dashed", color="red")
    return g


def to_dot(g: nx.DiGraph) -> str:
    def q(s: Any) -> str:
        return '"' + str(s).replace('"', '\\"') + '"'
    out = ["digraph witness {"]
    for n, attrs in g.nodes(data=True):
        out.append(f"  {q(n)} [" + ", ".join(f"{k}={q(v)}" for k, v in attrs.items()) + "];")
    for u, v, attrs in g.edges(data=True):
        out.append(f"  {q(u)} -> {q(v)} [" + ", ".join(f"{k}={q(x)}" for k, x in attrs.items()) + "];")
    out.append("}")
    return "\n".join(out) + "\n"


def schedule_file(d: dict[str, Any], launch_args: dict[str, Any]) -> str:
    """A schedule ``ptxkit run --schedule`` replays: the simulator's deterministic scheduler, the launch,
    and the witness's events (their observation indices in that schedule)."""
    s = {"ptxkit-schedule": 1, "scheduler": SCHEDULER, **launch_args,
         "witness": [{k: x[k] for k in ("thread", "event", "line", "col", "instruction", "event_line",
                                        "event_instruction", "agent") if k in x}
                     for x in d.get("race", [])]}
    return json.dumps(s, indent=1) + "\n"
