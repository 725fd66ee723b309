"""Per-user prompt history in the shared SQLite state (WAL): scores, smells, asked questions.

Writes are single INSERT statements in autocommit mode, so concurrent sessions
and hook processes never lose each other's rows. The summary (last scores,
smell histogram, trend) is computed by pure functions over plain rows.
"""

from __future__ import annotations

import json
import time
from collections import Counter

from reflection_core import state
from reflection_core.records import NamedTuple
from reflection_core.state import sqlite3

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

DDL = """
CREATE TABLE IF NOT EXISTS prompt_history (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    created_at REAL NOT NULL,
    session_id TEXT NOT NULL,
    score REAL NOT NULL,
    action TEXT NOT NULL,
    classification TEXT NOT NULL,
    smells TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS prompt_history_session ON prompt_history (session_id);
CREATE TABLE IF NOT EXISTS prompt_asked (
    session_id TEXT NOT NULL,
    question_key TEXT NOT NULL,
    asked_at REAL NOT NULL,
    PRIMARY KEY (session_id, question_key)
);
"""
RECENT = 10
TREND_WINDOW = 5
TREND_DELTA = 0.25
HISTOGRAM_ROWS = 1000


class Entry(NamedTuple):
    created_at: float
    session_id: str
    score: float
    action: str
    classification: str
    smells: tuple[str, ...]


class Summary(NamedTuple):
    """What `reflection stats` shows."""

    total: int
    recent: tuple[Entry, ...]
    smell_histogram: dict[str, int]
    trend: str = "stable"
    average: float | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "total": self.total,
            "average": self.average,
            "trend": self.trend,
            "last_scores": [
                {
                    "score": e.score,
                    "action": e.action,
                    "classification": e.classification,
                    "smells": list(e.smells),
                    "session_id": e.session_id,
                    "created_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(e.created_at)),
                }
                for e in self.recent
            ],
            "smell_histogram": dict(self.smell_histogram),
        }


def connect() -> sqlite3.Connection:
    conn = state.connect()
    state.ensure_schema(conn, DDL)
    return conn


def record(
    conn: sqlite3.Connection,
    session_id: str,
    score: float,
    action: str,
    classification: str,
    smells: list[str],
    now: float | None = None,
) -> None:
    conn.execute(
        "INSERT INTO prompt_history (created_at, session_id, score, action, classification, smells)"
        " VALUES (?, ?, ?, ?, ?, ?)",
        (now or time.time(), session_id, score, action, classification, json.dumps(smells)),
    )


def asked_keys(conn: sqlite3.Connection, session_id: str) -> set[str]:
    rows = conn.execute(
        "SELECT question_key FROM prompt_asked WHERE session_id = ?", (session_id,)
    ).fetchall()
    return {row[0] for row in rows}


def mark_asked(conn: sqlite3.Connection, session_id: str, keys: list[str]) -> None:
    now = time.time()
    conn.executemany(
        "INSERT OR IGNORE INTO prompt_asked (session_id, question_key, asked_at) VALUES (?, ?, ?)",
        [(session_id, key, now) for key in keys],
    )


def load_entries(conn: sqlite3.Connection, limit: int = HISTOGRAM_ROWS) -> list[Entry]:
    """The newest `limit` entries, oldest first."""
    rows = conn.execute(
        "SELECT created_at, session_id, score, action, classification, smells"
        " FROM prompt_history ORDER BY id DESC LIMIT ?",
        (limit,),
    ).fetchall()
    entries = []
    for created_at, session_id, score, action, classification, smells in reversed(rows):
        try:
            smell_list = tuple(str(s) for s in json.loads(smells))
        except (ValueError, TypeError):
            smell_list = ()
        entries.append(Entry(created_at, session_id, score, action, classification, smell_list))
    return entries


def count(conn: sqlite3.Connection) -> int:
    return int(conn.execute("SELECT COUNT(*) FROM prompt_history").fetchone()[0])


def trend(scores: list[float]) -> str:
    """Pure: rising/declining when the last 5 average moves 0.25 from the 5 before."""
    if len(scores) < 2 * TREND_WINDOW:
        half = len(scores) // 2
        if half < 2:
            return "stable"
        before, after = scores[:half], scores[half:]
    else:
        before, after = scores[-2 * TREND_WINDOW : -TREND_WINDOW], scores[-TREND_WINDOW:]
    delta = sum(after) / len(after) - sum(before) / len(before)
    if delta >= TREND_DELTA:
        return "rising"
    if delta <= -TREND_DELTA:
        return "declining"
    return "stable"


def summarize(entries: list[Entry], total: int | None = None) -> Summary:
    """Pure: last 10 scores, smell histogram, trend over the entries (oldest first)."""
    histogram = Counter(smell for entry in entries for smell in entry.smells)
    scores = [entry.score for entry in entries]
    return Summary(
        total=len(entries) if total is None else total,
        recent=tuple(entries[-RECENT:]),
        smell_histogram=dict(histogram.most_common()),
        trend=trend(scores[-2 * TREND_WINDOW :]),
        average=round(sum(scores) / len(scores), 2) if scores else None,
    )
