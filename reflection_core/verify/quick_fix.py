"""Quick fixes: which configured fixer commands to try for a failing gate.

A gate's `fix` commands (e.g. `ruff check --fix .`, `ruff format .`) run before
the agent hears about the failure. When the gate lists `fix_patterns`, its fixes
apply only to output matching one of them. A fix that already failed for the
same error in this task is never run again. Whether a fix worked is decided by
re-running the gate (runner.py), not by the fixer's own exit code.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class FixPlan:
    """Fixes to run now, and fixes held back because they failed before for this error."""

    to_try: list[str]
    skipped: list[str]


def plan_fixes(gate: dict[str, Any], output: str, failed_before: set[str]) -> FixPlan:
    fixes: list[str] = list(gate.get("fix") or [])
    patterns: list[str] = list(gate.get("fix_patterns") or [])
    if patterns and not any(re.search(p, output, re.M) for p in patterns):
        return FixPlan([], [])
    return FixPlan(
        [fix for fix in fixes if fix not in failed_before],
        [fix for fix in fixes if fix in failed_before],
    )
