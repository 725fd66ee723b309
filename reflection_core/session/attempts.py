"""Per-task attempt state: how often the stop hook pushed, and which gaps it named.

Stored in the per-user SQLite (WAL) so counts survive across hook processes and
concurrent sessions; keyed by the safe session id and the task id, so a new user
prompt starts a fresh budget. Each write is one IMMEDIATE transaction, so two
hook processes never lose a count or a pattern.
"""

from __future__ import annotations

import json
import time

from reflection_core.records import record

TYPE_CHECKING = False
if TYPE_CHECKING:
    import sqlite3

DDL = """
CREATE TABLE IF NOT EXISTS stop_attempts (
    session_key TEXT NOT NULL,
    task_id TEXT NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0,
    patterns TEXT NOT NULL DEFAULT '[]',
    updated_at REAL NOT NULL,
    PRIMARY KEY (session_key, task_id)
);
"""


@record(frozen=True)
class AttemptState:
    """Blocks already given for this task and the gap patterns already named."""

    attempts: int = 0
    sent_patterns: frozenset[str] = frozenset()


def connect() -> sqlite3.Connection:
    from reflection_core import state

    conn = state.connect()
    state.ensure_schema(conn, DDL)
    return conn


def load(conn: sqlite3.Connection, session_key: str, task_id: str) -> AttemptState:
    row = conn.execute(
        "SELECT attempts, patterns FROM stop_attempts WHERE session_key = ? AND task_id = ?",
        (session_key, task_id),
    ).fetchone()
    if row is None:
        return AttemptState()
    patterns = json.loads(row[1])
    if not isinstance(patterns, list):
        raise ValueError("stop_attempts.patterns is not a JSON list")
    return AttemptState(int(row[0]), frozenset(str(p) for p in patterns))


def record_block(
    conn: sqlite3.Connection,
    session_key: str,
    task_id: str,
    patterns: list[str],
    attempt: int,
    max_attempts: int | None = None,
) -> int | None:
    """Count one more block, naming `patterns`: the stored count + 1, and at least
    `attempt` (the transcript may show more than was stored). Read and write are one
    IMMEDIATE transaction, so concurrent stops each count once. Returns the count, or
    None (nothing stored) when it would pass `max_attempts`: a concurrent stop used
    the last attempt, and this one must not block."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        current = load(conn, session_key, task_id)
        count = max(current.attempts + 1, attempt)
        if max_attempts is not None and count > max_attempts:
            conn.execute("COMMIT")
            return None
        merged = sorted(current.sent_patterns | set(patterns))
        conn.execute(
            "INSERT INTO stop_attempts (session_key, task_id, attempts, patterns, updated_at)"
            " VALUES (?, ?, ?, ?, ?)"
            " ON CONFLICT (session_key, task_id) DO UPDATE SET"
            " attempts = excluded.attempts, patterns = excluded.patterns,"
            " updated_at = excluded.updated_at",
            (session_key, task_id, count, json.dumps(merged), time.time()),
        )
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    return count


def reset(conn: sqlite3.Connection, session_key: str, task_id: str) -> None:
    """The task completed: forget its attempts and named patterns."""
    conn.execute(
        "DELETE FROM stop_attempts WHERE session_key = ? AND task_id = ?", (session_key, task_id)
    )
