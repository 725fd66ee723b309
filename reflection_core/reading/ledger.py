"""Paid reads, one row each: the per-session and per-day token budgets and the record.

Rows live in the state database's `reader_reads` table for 30 days: when, which
session, which reader, the outcome (`ok` or why it fell back), tokens and latency.
The day budget is a rolling 24 hours.
"""

from __future__ import annotations

import sqlite3
import time
from typing import Any

KEEP_S = 30 * 86400
DAY_S = 86400
DDL = """
CREATE TABLE IF NOT EXISTS reader_reads (
    created_at REAL NOT NULL,
    session_id TEXT NOT NULL,
    reader TEXT NOT NULL,
    outcome TEXT NOT NULL,
    error TEXT NOT NULL,
    tokens INTEGER NOT NULL,
    latency_ms INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS reader_reads_time ON reader_reads(created_at);
CREATE INDEX IF NOT EXISTS reader_reads_session ON reader_reads(session_id);
"""


def _connect() -> sqlite3.Connection:
    from reflection_core import state

    conn = state.connect()
    state.ensure_schema(conn, DDL)
    return conn


def spent(session_id: str, now: float | None = None) -> tuple[int, int]:
    """(tokens this session, tokens in the last 24 hours) spent on paid reads."""
    now = time.time() if now is None else now
    conn = _connect()
    try:
        day = conn.execute(
            "SELECT COALESCE(SUM(tokens), 0) FROM reader_reads WHERE created_at > ?",
            (now - DAY_S,),
        ).fetchone()[0]
        session = (
            conn.execute(
                "SELECT COALESCE(SUM(tokens), 0) FROM reader_reads WHERE session_id = ?",
                (session_id,),
            ).fetchone()[0]
            if session_id
            else 0
        )
    finally:
        conn.close()
    return int(session), int(day)


def record(
    session_id: str, reader: str, outcome: str, error: str, tokens: int, latency_ms: int
) -> None:
    """Keep one paid read (best effort: a full disk must not break the Stop hook)."""
    try:
        conn = _connect()
        try:
            now = time.time()
            with conn:
                conn.execute(
                    "INSERT INTO reader_reads VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (now, session_id, reader, outcome, error[:500], tokens, latency_ms),
                )
                conn.execute("DELETE FROM reader_reads WHERE created_at < ?", (now - KEEP_S,))
        finally:
            conn.close()
    except (OSError, sqlite3.Error):
        pass


def recent_reads(limit: int = 20) -> list[dict[str, Any]]:
    """The latest paid reads, newest first (for `doctor`, stats and tests)."""
    conn = _connect()
    try:
        cursor = conn.execute("SELECT * FROM reader_reads ORDER BY rowid DESC LIMIT ?", (limit,))
        names = [c[0] for c in cursor.description]
        return [dict(zip(names, row, strict=True)) for row in cursor]
    finally:
        conn.close()
