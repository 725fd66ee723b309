"""TodoWrite reflections: big lists, plans without verification, "all done" while gates fail.

Each pattern is said once per todo-list lifecycle (state per session in SQLite);
the lifecycle ends when every item is completed, and a list with open items after
that starts a new one.
"""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass
from typing import Any

from reflection_core.hookio import HookResponse

_IMPLEMENTATION = re.compile(
    r"\b(implement\w*|add|fix\w*|create|refactor\w*|update|write|change|build|migrat\w+|"
    r"remove|rename|support)\b",
    re.I,
)
_VERIFICATION = re.compile(
    r"\b(tests?|testing|verify|verification|check|validate|run|lint|ci|pytest|npm test|"
    r"make sure|confirm)\b",
    re.I,
)
DDL = """
CREATE TABLE IF NOT EXISTS stop_todos (
    session_key TEXT PRIMARY KEY,
    reflected TEXT NOT NULL DEFAULT '[]',
    closed INTEGER NOT NULL DEFAULT 0,
    updated_at REAL NOT NULL
);
"""


@dataclass
class TodoItem:
    content: str
    status: str


@dataclass
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


def _load_state(conn: Any, key: str) -> tuple[set[str], bool]:
    row = conn.execute(
        "SELECT reflected, closed FROM stop_todos WHERE session_key = ?", (key,)
    ).fetchone()
    if row is None:
        return set(), False
    return set(json.loads(row[0])), bool(row[1])


def _save_state(conn: Any, key: str, reflected: set[str], closed: bool) -> None:
    conn.execute(
        "INSERT INTO stop_todos (session_key, reflected, closed, updated_at) VALUES (?, ?, ?, ?)"
        " ON CONFLICT (session_key) DO UPDATE SET reflected = excluded.reflected,"
        " closed = excluded.closed, updated_at = excluded.updated_at",
        (key, json.dumps(sorted(reflected)), int(closed), time.time()),
    )


def _failing_gates(payload: dict[str, Any], cfg: Any) -> list[str]:
    """Open required gates for the session so far (read only when every todo is done)."""
    from pathlib import Path

    from reflection_core import paths
    from reflection_core.session.analyze import gather_context, load_session
    from reflection_core.session.decide import decide

    transcript = payload.get("transcript_path")
    if not isinstance(transcript, str) or not transcript:
        return []
    session = load_session(transcript, session_id=payload.get("session_id"))
    cwd = payload.get("cwd") if isinstance(payload.get("cwd"), str) else session.cwd
    root = paths.find_repo_root(cwd) if cwd and Path(cwd).is_dir() else None
    ctx, _ = gather_context(root, cfg)
    decision = decide(session, ctx)
    return [gate.missing or gate.evidence for gate in decision.gates.values() if gate.failing]


def handle_post_tool_use(payload: dict[str, Any]) -> HookResponse:
    if payload.get("tool_name") != "TodoWrite":
        return HookResponse(output=None)
    items = parse_todos(payload.get("tool_input"))
    if not items:
        return HookResponse(output=None)
    from reflection_core import config, paths, state

    cwd = payload.get("cwd") if isinstance(payload.get("cwd"), str) else None
    cfg = config.load(cwd) if cwd else config.Config()
    key = paths.safe_session_id(payload.get("session_id"))
    done = all_complete(items)
    conn = state.connect()
    try:
        state.ensure_schema(conn, DDL)
        _, was_closed = _load_state(conn, key)
        # Read the transcript outside the write transaction: it can be slow.
        failing = _failing_gates(payload, cfg) if done and not was_closed else None
        conn.execute("BEGIN IMMEDIATE")
        try:
            reflected, closed = _load_state(conn, key)
            if closed and not done:
                reflected, closed = set(), False  # a new todo-list lifecycle
            found = todo_reflections(
                items,
                large_list=int(cfg.get("stop.todo_large_list")),
                already=reflected,
                failing_gates=failing if not closed else None,
            )
            reflected |= {r.pattern for r in found}
            _save_state(conn, key, reflected, closed or done)
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
    finally:
        conn.close()
    if not found:
        return HookResponse(output=None)
    text = "reflection: " + " ".join(r.text for r in found)
    return HookResponse(
        output={"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": text}}
    )
