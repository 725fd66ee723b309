"""Pure: what came of a push, read from what the agent did before its next stop.

A check ran, a failure showed up or work was done: the push paid off. Nothing new:
it was wasted (the agent stopped again with the same words).
"""

from __future__ import annotations

from collections.abc import Iterable

from reflection_core.outcomes.grade import Graded
from reflection_core.session.commands import CHECK_KINDS
from reflection_core.session.model import ToolCall


def grade_after_push(calls_since_push: Iterable[ToolCall]) -> Graded:
    """Did the push lead anywhere: a check ran, a failure showed up, or work was done?"""
    calls = list(calls_since_push)
    if any(c.command is not None and c.command.kinds & CHECK_KINDS for c in calls):
        return Graded("block_paid_off", "new_check")
    if any(c.ok is False for c in calls):
        return Graded("block_paid_off", "failure_found")
    if any(c.changes_files for c in calls):
        return Graded("block_paid_off", "new_work")
    return Graded("block_wasted", "nothing_new")
