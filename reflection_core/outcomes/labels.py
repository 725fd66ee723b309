"""Readable names for what `reflection stats` shows (no snake_case ids on the page)."""

from __future__ import annotations

OUTCOME_LABELS: dict[str, str] = {
    "premature": "Stopped too early (you pushed on)",
    "fine": "Fine (you moved on)",
    "answered": "You answered its question",
    "block_paid_off": "Push paid off",
    "block_wasted": "Push wasted",
    "unknown": "Not graded (no typed reply)",
}
SERIES_LABELS: dict[str, str] = {
    "stops": "Stops judged",
    "pushes": "Pushed on",
    "holds": "Held for you",
    "flagged": "Prompts flagged",
    "tests_passed": "Test runs passed",
    "tests_failed": "Test runs failed",
}


def readable(identifier: str) -> str:
    """`vague_improvement` -> `Vague improvement`; known ids get their own label."""
    known = OUTCOME_LABELS.get(identifier) or SERIES_LABELS.get(identifier)
    if known:
        return known
    words = identifier.replace("_", " ").replace("-", " ").strip()
    return words[:1].upper() + words[1:]
