"""Pure grading of what happened after a stop.

`grade_next_prompt(prompt, previous)` reads the user's next prompt against the stop
before it: `premature` (the user reports it broken, pastes an error, asks for the check
that was skipped, or pushes the agent on), `answered` (the stop asked a question and
the user replied), `fine` (thanks, approval, a new task), `unknown` (nothing the user
typed). Runs on every prompt: it imports nothing but its phrase tables.
"""

from __future__ import annotations

import re

from reflection_core.lazyre import lazy
from reflection_core.outcomes import phrases
from reflection_core.records import record

OUTCOMES: tuple[str, ...] = (
    "premature",
    "fine",
    "answered",
    "block_paid_off",
    "block_wasted",
    "unknown",
)
# What each outcome means, for a configured reader and for readers of `reflection stats`.
OUTCOME_MEANINGS: dict[str, str] = {
    "premature": "the user had to push the agent on, or reports the work broken or unchecked",
    "fine": "the user moved on: thanks, approval, or a new task",
    "answered": "the stop asked the user a question and the user answered it",
    "block_paid_off": "after a push the agent ran a check, found a failure or did new work",
    "block_wasted": "after a push the agent did nothing new",
    "unknown": "nothing the user typed (a slash command, an IDE notice) or no reading",
}
NEXT_PROMPT_OUTCOMES = ("premature", "fine", "answered", "unknown")


def _compile(table: tuple[str, ...]) -> tuple[re.Pattern[str], ...]:
    return tuple(lazy(p, re.I | re.M) for p in table)


_REPORTS_BROKEN = _compile(phrases.REPORTS_BROKEN)
_PASTES_ERROR = _compile(phrases.PASTES_ERROR)
_ASKS_FOR_CHECK = _compile(phrases.ASKS_FOR_CHECK)
_PUSHES_ON = _compile(phrases.PUSHES_ON)
_THANKS = _compile(phrases.THANKS)
_NOT_TYPED = _compile(phrases.NOT_TYPED)


@record(frozen=True)
class Previous:
    """What the grader knows of the stop before the prompt (no text of it)."""

    asked: bool = False  # the stop ended on a question to the user
    status: str = ""  # the verdict's status


@record(frozen=True)
class Graded:
    """One outcome, the rule that gave it, and the reader that read it."""

    outcome: str
    rule: str
    reader: str = "builtin"
    error: str | None = None  # why a configured reader was not used

    def __post_init__(self) -> None:
        if self.outcome not in OUTCOMES:
            raise ValueError(f"unknown outcome {self.outcome!r}")


def _matches(patterns: tuple[re.Pattern[str], ...], text: str) -> bool:
    return any(p.search(text) for p in patterns)


def grade_next_prompt(prompt: str, previous: Previous) -> Graded:
    """The outcome of the previous stop, as the user's next prompt shows it."""
    text = (prompt or "").strip()
    if not text or _matches(_NOT_TYPED, text):
        return Graded("unknown", "not_typed")
    head = text[: phrases.HEAD_CHARS]
    if _matches(_REPORTS_BROKEN, head):
        return Graded("premature", "reports_broken")
    if _matches(_ASKS_FOR_CHECK, head):
        return Graded("premature", "asks_for_check")
    if previous.asked:
        return Graded("answered", "answers_question")
    if _matches(_PASTES_ERROR, head):
        return Graded("premature", "pastes_error")
    if _matches(_PUSHES_ON, head):
        return Graded("premature", "pushes_on")
    if _matches(_THANKS, head):
        return Graded("fine", "thanks")
    return Graded("fine", "moves_on")
