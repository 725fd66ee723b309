"""Loop detectors: planning without doing, and doing the same thing over and over.

Planning loop: many tool calls, almost no writes, on a task that needs code.
Action loop: one normalized command repeated often enough to dominate the session.
Both thresholds come from `stop.loops.*`.
"""

from __future__ import annotations

from collections import Counter

from reflection_core.lazyre import lazy
from reflection_core.records import record
from reflection_core.session.model import Session, ToolCall

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_SPACES = lazy(r"\s+")


@record
class Loop:
    kind: str  # "planning" | "action"
    evidence: str
    feedback: str

    def to_dict(self) -> dict[str, str]:
        return {"kind": self.kind, "evidence": self.evidence}


@record(frozen=True)
class LoopThresholds:
    planning_min_calls: int = 8
    planning_max_write_ratio: float = 0.1
    action_min_repeats: int = 3
    action_min_share: float = 0.6

    @classmethod
    def from_config(cls, cfg: dict[str, Any]) -> LoopThresholds:
        loops = cfg.get("stop", {}).get("loops", {})
        return cls(**{k: loops[k] for k in cls.__annotations__ if k in loops})


def normalized_command(raw: str, normalized: str = "") -> str:
    return normalized or _SPACES.sub(" ", raw.strip())


def since_latest_change(session: Session) -> list[ToolCall]:
    """The tool calls after the latest file change (all of them if nothing changed)."""
    calls = session.tool_calls
    latest = max((i for i, call in enumerate(calls) if call.changes_files), default=-1)
    return calls[latest + 1 :]


def made_progress(session: Session) -> bool:
    """A file change followed by a passing test run: the agent acted and checked it."""
    changed = False
    for call in session.tool_calls:
        if call.changes_files:
            changed = True
        elif changed and call.command is not None and "test" in call.command.kinds and call.ok:
            return True
    return False


def planning_loop(session: Session, task_type: str, limits: LoopThresholds) -> Loop | None:
    if task_type != "coding" or made_progress(session):
        return None
    calls = [c for c in session.tool_calls if c.kind != "todo"]
    if len(calls) < limits.planning_min_calls:
        return None
    writes = sum(1 for c in calls if c.changes_files)
    if writes / len(calls) >= limits.planning_max_write_ratio:
        return None
    return Loop(
        "planning",
        f"{len(calls)} tool calls, {writes} of them writes",
        "You have read and searched enough to act. Start implementing: make the smallest "
        "change that moves the task forward, then run the tests.",
    )


def action_loop(session: Session, limits: LoopThresholds) -> Loop | None:
    """A command re-run with no file changed in between: the same attempt, the same outcome.

    Edit-test-edit-test is progress, not a loop. Only the calls after the latest
    file change count: a loop the agent broke out of by changing something is over,
    and it is a loop again only if the same command piles up after that change.
    """
    runs = Counter(
        normalized_command(call.command.raw, call.command.normalized)
        for call in since_latest_change(session)
        if call.command is not None
    )
    if not runs:
        return None
    total = runs.total()
    # The first most frequent, as `most_common(1)` picks it, without importing heapq.
    command, repeats = max(runs.items(), key=lambda item: item[1])
    if repeats < limits.action_min_repeats or repeats / total < limits.action_min_share:
        return None
    shown = command if len(command) <= 80 else command[:77] + "..."
    return Loop(
        "action",
        f"`{shown}` ran {repeats} times with no change in between ({total} commands in all)",
        f"You have run `{shown}` {repeats} times without changing anything in between. Change "
        "approach: read the error output closely, form a hypothesis, and change the code or "
        "the command before running it again.",
    )


def detect_loops(session: Session, task_type: str, limits: LoopThresholds) -> list[Loop]:
    found = [planning_loop(session, task_type, limits), action_loop(session, limits)]
    return [loop for loop in found if loop is not None]
