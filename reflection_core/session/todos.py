"""Todo-list reflections: big lists, plans without verification, "all done" while gates fail.

Pure rules over the items of a todo list; the hook that keeps the per-session
lifecycle state and asks the gates is todos_hook.py.
"""

from __future__ import annotations

import re

from reflection_core.lazyre import lazy
from reflection_core.records import record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_IMPLEMENTATION = lazy(
    r"\b(implement\w*|add|fix\w*|create|refactor\w*|update|write|change|build|migrat\w+|"
    r"remove|rename|support)\b",
    re.I,
)
_VERIFICATION = lazy(
    r"\b(tests?|testing|verify|verification|check|validate|run|lint|ci|pytest|npm test|"
    r"make sure|confirm)\b",
    re.I,
)


@record
class TodoItem:
    content: str
    status: str


@record
class Reflection:
    pattern: str  # large_list | no_verification | all_complete_gates_fail
    text: str


def parse_todos(tool_input: Any) -> list[TodoItem]:
    """The todo items of a TodoWrite input; malformed entries are skipped, never fatal."""
    raw = tool_input.get("todos") if isinstance(tool_input, dict) else None
    items = []
    for entry in raw if isinstance(raw, list) else []:
        if isinstance(entry, dict) and isinstance(entry.get("content"), str):
            items.append(TodoItem(entry["content"], str(entry.get("status", "pending"))))
    return items


def all_complete(items: list[TodoItem]) -> bool:
    return bool(items) and all(item.status == "completed" for item in items)


def todo_reflections(
    items: list[TodoItem],
    *,
    large_list: int,
    already: set[str],
    failing_gates: list[str] | None = None,
) -> list[Reflection]:
    """The patterns this list shows that were not reflected yet in its lifecycle (pure)."""
    found: list[Reflection] = []
    open_items = [i for i in items if i.status != "completed"]
    if len(open_items) >= large_list and "large_list" not in already:
        found.append(
            Reflection(
                "large_list",
                f"The todo list has {len(open_items)} open items. Finish and verify one item at "
                "a time, and consider whether some of them belong in a follow-up task the user "
                "agrees to.",
            )
        )
    implements = any(_IMPLEMENTATION.search(i.content) for i in items)
    verifies = any(_VERIFICATION.search(i.content) for i in items)
    if implements and not verifies and "no_verification" not in already:
        found.append(
            Reflection(
                "no_verification",
                "The todo list changes code but has no verification item. Add one: run the "
                "full test suite after the last change (and lint/build if the project has them).",
            )
        )
    if all_complete(items) and failing_gates and "all_complete_gates_fail" not in already:
        found.append(
            Reflection(
                "all_complete_gates_fail",
                "Every todo is marked completed, but these are still open: "
                + "; ".join(failing_gates)
                + ". The task is not done until they are.",
            )
        )
    return found
