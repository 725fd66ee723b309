"""The text that pushes the agent on: bounded, escalating, never the same nag twice.

Attempts 1..max-1 list what is missing and the next concrete actions; the last
attempt is the final warning (finish, or explain the blocker); after the budget
the hook stops blocking and the verdict carries a status report instead. A gap
already reported in this task is repeated as one short "still missing" line, so
the agent never reads the same paragraph twice.
"""

from __future__ import annotations

from reflection_core.records import record


@record
class Gap:
    """One thing standing between the agent and done."""

    pattern: str  # stable key, e.g. "tests:not_run", "loop:planning"
    missing: str
    action: str | None = None
    severity: str = "MEDIUM"
    advice: str | None = None  # longer guidance, shown the first time only


def compose_feedback(
    gaps: list[Gap],
    *,
    attempt: int,
    max_attempts: int,
    sent_patterns: frozenset[str],
) -> str:
    """The block reason for attempt `attempt` (1-based) of `max_attempts`."""
    fresh = [g for g in gaps if g.pattern not in sent_patterns]
    repeated = [g for g in gaps if g.pattern in sent_patterns]
    final = attempt >= max_attempts
    head = (
        f"reflection — FINAL attempt ({attempt}/{max_attempts}): the task is still not done."
        if final
        else f"reflection (attempt {attempt}/{max_attempts}): the task is not done yet."
    )
    lines = [head]
    if fresh:
        lines.append("Missing:")
        lines.extend(f"- {g.missing}" for g in fresh)
    if repeated:
        lines.append("Still missing (reported before):")
        lines.extend(f"- {g.missing}" for g in repeated)
    actions = [g.action for g in gaps if g.action]
    if actions:
        lines.append("Next actions:")
        lines.extend(f"{n}. {action}" for n, action in enumerate(dict.fromkeys(actions), 1))
    lines.extend(g.advice for g in fresh if g.advice)
    if final:
        lines.append(
            "Finish these now. If something really blocks you, stop and explain it: what you "
            "tried, the exact error, and what you need from the user. This stop is the last one "
            "reflection will block for this task."
        )
    return "\n".join(lines)


def status_report(gaps: list[Gap], attempts_used: int) -> str:
    """What the user reads when the budget is spent and the agent stopped anyway."""
    if not gaps:
        return "No open gaps."
    items = "; ".join(g.missing for g in gaps)
    return (
        f"Stopped after {attempts_used} reflection attempt(s) with the task incomplete. "
        f"Still open: {items}."
    )
