"""``ptxkit run --schedule WITNESS``: replay a witness schedule written by ``verify --schedule``.

The simulator's scheduler is deterministic (lock-step warps, lowest pc first with turns for starved
warps, CTAs side by side), so the same launch is the same execution: the schedule file holds the launch
and the observation indices of the witness's events, and the replay checks that those events happen
again as recorded (same instruction, same thread)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ptxkit.errors import UsageError
from ptxkit.exec_sim.events import Observer, SimEvent

SCHEDULER = "lockstep-min-pc"  # exec_sim.machine: warps in lock step, lowest pc first, CTAs side by side


def load(path: str) -> dict[str, Any]:
    try:
        d = json.loads(Path(path).read_text())
    except OSError as e:
        raise UsageError(f"--schedule: cannot read '{path}': {e.strerror or e}") from None
    except ValueError as e:
        raise UsageError(f"--schedule: '{path}' is not JSON: {e}") from None
    if not isinstance(d, dict) or d.get("ptxkit-schedule") != 1:
        raise UsageError(f"--schedule: '{path}' is not a ptxkit schedule (written by verify --schedule)")
    if d.get("scheduler") != SCHEDULER:
        raise UsageError(f"--schedule: scheduler '{d.get('scheduler')}' is not this simulator's ({SCHEDULER})")
    for k in ("file", "arg", "grid", "block"):
        if k not in d:
            raise UsageError(f"--schedule: '{path}' lacks '{k}'")
    return d


class Replay:
    """An observer that counts events as ``verify`` does and keeps the witness's ones."""

    def __init__(self, sched: dict[str, Any]) -> None:
        self.want = {int(w["event"]): w for w in sched.get("witness", [])}
        self.seen: dict[int, SimEvent] = {}
        self.seq = 0

    @property
    def observer(self) -> Observer:
        return self._observe

    def _observe(self, ev: SimEvent) -> None:
        if self.seq in self.want:
            self.seen[self.seq] = ev
        self.seq += 1

    def lines(self, file: str) -> list[str]:
        """One line per witness event, as replayed; UsageError if the run did not reproduce it."""
        out = []
        for i, w in sorted(self.want.items()):
            ev = self.seen.get(i)
            # the event that recorded the access (for an asynchronous copy: not its issue) and, for a
            # thread's own access, the thread among its lanes
            line, opcode = int(w.get("event_line", w["line"])), w.get("event_instruction", w["instruction"])
            if ev is None or ev.line != line or ev.opcode != opcode \
                    or ("agent" not in w and int(w["thread"]) not in set(ev.lanes.tolist())):
                raise UsageError(f"--schedule: event {i} of the replay is not the witness's "
                                 f"'{w['instruction']}' at line {w['line']} (another kernel or launch?)")
            out.append(f"{file}:{w['line']}:{w['col']}: replayed witness event {i}: '{w['instruction']}' "
                       f"by thread {w['thread']}")
        return out
