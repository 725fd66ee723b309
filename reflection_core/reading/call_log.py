"""Every model call a reader or the judge makes, kept for cost, latency and the reasons.

One row per HTTP call in the state database's `judge_calls` table (30 days): the
outcome (`ok`, `malformed`, `timeout`, `http`, `skipped`, ...) and why, tokens and
seconds. Recording is best effort: it never turns a fallback into a crash.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from reflection_core.verify.providers import ChatReply

KEEP_S = 30 * 86400
DDL = """
CREATE TABLE IF NOT EXISTS judge_calls (
    created_at REAL NOT NULL,
    provider TEXT NOT NULL,
    model TEXT NOT NULL,
    role TEXT NOT NULL,
    outcome TEXT NOT NULL,
    reason TEXT NOT NULL,
    input_tokens INTEGER NOT NULL,
    output_tokens INTEGER NOT NULL,
    latency_s REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS judge_calls_time ON judge_calls(created_at);
"""


@dataclass
class CallLog:
    """The calls made for one stop, in order; thread-safe (voters call in parallel)."""

    provider: str
    calls: list[dict[str, Any]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(
        self,
        model: str,
        role: str,
        outcome: str,
        reason: str,
        reply: ChatReply | None,
        latency_s: float,
    ) -> None:
        with self.lock:
            self.calls.append(
                {
                    "model": model,
                    "role": role,
                    "outcome": outcome,
                    "reason": reason,
                    "input_tokens": reply.input_tokens if reply else 0,
                    "output_tokens": reply.output_tokens if reply else 0,
                    "latency_s": round(latency_s, 3),
                }
            )

    def tokens(self) -> tuple[int, int]:
        """(input, output) tokens over every call."""
        with self.lock:
            return (
                sum(c["input_tokens"] for c in self.calls),
                sum(c["output_tokens"] for c in self.calls),
            )


def record_calls(log: CallLog) -> None:
    """Keep every call's outcome and reason in the state database (best effort)."""
    if not log.calls:
        return
    try:
        from reflection_core import state

        conn = state.connect()
        try:
            state.ensure_schema(conn, DDL)
            now = time.time()
            with conn:
                conn.executemany(
                    "INSERT INTO judge_calls VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    [
                        (
                            now,
                            log.provider,
                            c["model"],
                            c["role"],
                            c["outcome"],
                            c["reason"][:500],
                            c["input_tokens"],
                            c["output_tokens"],
                            c["latency_s"],
                        )
                        for c in log.calls
                    ],
                )
                conn.execute("DELETE FROM judge_calls WHERE created_at < ?", (now - KEEP_S,))
        finally:
            conn.close()
    except (OSError, sqlite3.Error):  # recording must never turn a fallback into a crash
        pass


def recent_calls(limit: int = 20) -> list[dict[str, Any]]:
    """The latest recorded model calls, newest first (for `doctor`, stats and tests)."""
    from reflection_core import state

    conn = state.connect()
    try:
        state.ensure_schema(conn, DDL)
        conn.row_factory = _dict_row
        return list(conn.execute("SELECT * FROM judge_calls ORDER BY rowid DESC LIMIT ?", (limit,)))
    finally:
        conn.close()


def _dict_row(cursor: Any, row: tuple[Any, ...]) -> dict[str, Any]:
    return {col[0]: value for col, value in zip(cursor.description, row, strict=True)}
