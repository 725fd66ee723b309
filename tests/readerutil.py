"""Digests and built-in readings for reader tests: synthetic, written for the tests."""

from __future__ import annotations

from typing import Any

from reflection_core.reading.facts import Fact, Reading


def digest(**over: Any) -> dict[str, Any]:
    """An evidence digest of the shape the decision hands a reader."""
    data: dict[str, Any] = {
        "session_id": "sess-reader-1",
        "task_prompt": "Add a --verbose flag to the CLI and cover it with a test.",
        "task_kind": "change",
        "final_message": "Added the flag. Next I will wire it into the logger as well.",
        "last_command": {"command": "python -m pytest -q", "outcome": "passed"},
        "last_check": {"command": "python -m pytest -q", "passed": True, "after_last_change": True},
        "changed_files": ["cli.py", "tests/test_cli.py"],
        "pushes": [],
        "background": [],
        "host_failure": None,
        "plan_mode": False,
    }
    data.update(over)
    return data


def builtin(uncertain: bool = True, *facts: Fact) -> Reading:
    """The built-in reading a paid reader is asked to improve on."""
    return Reading(
        reader="builtin",
        facts=facts or (Fact("remaining_work", 0.45, "Next I will wire it", "builtin"),),
        uncertain=uncertain,
        extra={"rules": "phrase families"},
    )
