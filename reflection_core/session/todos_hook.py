"""`reflection hook post-tool-use`: reflect on a todo list the agent just wrote.

The shell around todos.py: each pattern is said once per todo-list lifecycle
(state per session in SQLite); the lifecycle ends when every item is completed,
and a list with open items after that starts a new one.
"""

from __future__ import annotations

import json
import time
from typing import Any

from reflection_core.hosts.events import SILENT, Reply, ToolUsed
from reflection_core.session.todos import TodoItem, all_complete, todo_reflections

DDL = """
CREATE TABLE IF NOT EXISTS stop_todos (
    session_key TEXT PRIMARY KEY,
    reflected TEXT NOT NULL DEFAULT '[]',
    closed INTEGER NOT NULL DEFAULT 0,
    updated_at REAL NOT NULL
);
"""


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


def _failing_gates(event: ToolUsed, root: Any, cfg: Any) -> list[str]:
    """Open required gates for the session so far (read only when every todo is done)."""
    from reflection_core.hosts.loader import read_session
    from reflection_core.session.analyze import gather_context
    from reflection_core.session.decide import decide

    if event.transcript is None:
        return []
    session = read_session(event)
    ctx, _ = gather_context(root, cfg)
    decision = decide(session, ctx)
    return [gate.missing or gate.evidence for gate in decision.gates.values() if gate.failing]


def handle_tool_used(event: ToolUsed) -> Reply:
    """Only the host's todo-writing tool is looked at (the adapter sets `todos`)."""
    items = [TodoItem(content, status) for content, status in event.todos or ()]
    if not items:
        return SILENT
    from reflection_core import paths, state
    from reflection_core.hosts.loader import open_workspace

    workspace = open_workspace(event)
    cfg = workspace.config
    key = paths.safe_session_id(event.session_id)
    done = all_complete(items)
    conn = state.connect()
    try:
        state.ensure_schema(conn, DDL)
        _, was_closed = _load_state(conn, key)
        # Read the transcript outside the write transaction: it can be slow.
        failing = _failing_gates(event, workspace.root, cfg) if done and not was_closed else None
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
        return SILENT
    return Reply(context="reflection: " + " ".join(r.text for r in found))
