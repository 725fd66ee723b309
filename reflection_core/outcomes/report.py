"""Pure: the plain-text `reflection stats` report."""

from __future__ import annotations

from typing import Any

from reflection_core.outcomes.grade import OUTCOMES


def _estimate_line(estimate: dict[str, Any]) -> str:
    paid, wasted = estimate["pushes_paid_off"], estimate["pushes_wasted"]
    missed = estimate["premature_let_through"]
    p, r = estimate["precision"], estimate["recall"]
    return (
        f"estimated precision {'n/a' if p is None else f'{p:.2f}'} "
        f"({paid} of {paid + wasted} pushes paid off), "
        f"recall {'n/a' if r is None else f'{r:.2f}'} "
        f"({paid} of {paid + missed} stops that needed a push)"
    )


def _group_lines(group: dict[str, Any]) -> list[str]:
    outcomes = "  ".join(f"{name} {group['outcomes'][name]}" for name in OUTCOMES)
    return [
        f"{group['repository']} ({group['host']}): {group['stops']} stops, "
        f"{group['pushes']} pushes, {group['holds']} holds, "
        f"{group['prompts_flagged']} prompts flagged, test runs "
        f"{group['tests']['passed']} passed / {group['tests']['failed']} failed",
        f"  outcomes: {outcomes}",
        f"  {_estimate_line(group['estimate'])}",
    ]


def text(summary: dict[str, Any]) -> str:
    window = summary["window"]
    lines = [
        f"stops from {window['since']} to {window['until']} ({len(window['days'])} days, UTC):",
        f"{summary['stops']} stops, {summary['pushes']} pushes, {summary['holds']} holds, "
        f"{summary['prompts_flagged']} prompts flagged",
        "outcomes: " + "  ".join(f"{n} {summary['outcomes'][n]}" for n in OUTCOMES),
        _estimate_line(summary["estimate"]),
    ]
    if not summary["repositories"]:
        lines.append("no stops judged in this window (the Stop hook records them as you work).")
    for group in summary["repositories"]:
        lines += _group_lines(group)
    return "\n".join(lines)
