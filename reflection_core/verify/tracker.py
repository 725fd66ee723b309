"""Fix-attempt tracker: what was tried for which error in this task, and when to stop.

State is per task (the Stop hook's task key: one user prompt), so nothing learnt
about one task leaks into the next; a new prompt gets a new key and a clean slate.
Two tables in the per-user state database: `fix_attempts` ((error signature, fix)
-> outcome) and `fix_rounds` (each correction round's failing signatures). The
escalation rule itself is the pure function `escalation`.
"""

from __future__ import annotations

import sqlite3
import time
from dataclasses import dataclass, field

from reflection_core import state

DDL = """
CREATE TABLE IF NOT EXISTS fix_attempts (
    task_key TEXT NOT NULL,
    signature TEXT NOT NULL,
    gate TEXT NOT NULL,
    fix TEXT NOT NULL,
    outcome TEXT NOT NULL,
    created_at REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS fix_attempts_task ON fix_attempts(task_key, signature);
CREATE TABLE IF NOT EXISTS fix_rounds (
    task_key TEXT NOT NULL,
    round INTEGER NOT NULL,
    gate TEXT NOT NULL,
    signature TEXT NOT NULL,
    summary TEXT NOT NULL,
    created_at REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS fix_rounds_task ON fix_rounds(task_key, round);
"""
SUCCESS = "success"
FAILED = "failed"
KEEP_DAYS = 30


@dataclass(frozen=True)
class Attempt:
    signature: str
    gate: str
    fix: str
    outcome: str


@dataclass
class TaskHistory:
    """Everything the tracker knows about one task."""

    rounds: int = 0
    signature_counts: dict[str, int] = field(default_factory=dict)
    attempts: list[Attempt] = field(default_factory=list)


@dataclass(frozen=True)
class Escalation:
    """Why the corrections stop: `same_error` persisted, or the round budget is `exhausted`."""

    reason: str
    signature: str | None
    count: int
    limit: int


def escalation(
    history: TaskHistory, failing: list[str], *, same_error_limit: int, max_rounds: int
) -> Escalation | None:
    """Stop correcting when one current failure has persisted too often or rounds are spent."""
    persisting = sorted(
        ((history.signature_counts.get(sig, 0), sig) for sig in failing), reverse=True
    )
    if persisting and persisting[0][0] >= same_error_limit:
        count, sig = persisting[0]
        return Escalation("same_error", sig, count, same_error_limit)
    if failing and history.rounds >= max_rounds:
        return Escalation(
            "exhausted", persisting[0][1] if persisting else None, history.rounds, max_rounds
        )
    return None


class Tracker:
    """The fix-attempt record of one task in the state database."""

    def __init__(self, task_key: str, conn: sqlite3.Connection | None = None) -> None:
        self.task_key = task_key
        self.conn = conn or state.connect()
        state.ensure_schema(self.conn, DDL)

    def close(self) -> None:
        self.conn.close()

    def failed_fixes(self, signature: str) -> set[str]:
        """Fixes that already failed for this error in this task: never run them again."""
        rows = self.conn.execute(
            "SELECT fix FROM fix_attempts WHERE task_key=? AND signature=? AND outcome=?",
            (self.task_key, signature, FAILED),
        )
        return {row[0] for row in rows}

    def record_fix(self, signature: str, gate: str, fix: str, outcome: str) -> None:
        self.conn.execute(
            "INSERT INTO fix_attempts VALUES (?, ?, ?, ?, ?, ?)",
            (self.task_key, signature, gate, fix, outcome, time.time()),
        )

    def record_round(self, failures: list[tuple[str, str, str]]) -> TaskHistory:
        """Count one correction round with its (gate, signature, summary) failures."""
        with self.conn:
            self.conn.execute("BEGIN IMMEDIATE")
            row = self.conn.execute(
                "SELECT COALESCE(MAX(round), 0) FROM fix_rounds WHERE task_key=?",
                (self.task_key,),
            ).fetchone()
            number = int(row[0]) + 1
            now = time.time()
            self.conn.executemany(
                "INSERT INTO fix_rounds VALUES (?, ?, ?, ?, ?, ?)",
                [
                    (self.task_key, number, g, sig, summary[:2000], now)
                    for g, sig, summary in failures
                ],
            )
        return self.history()

    def history(self) -> TaskHistory:
        rounds = self.conn.execute(
            "SELECT COALESCE(MAX(round), 0) FROM fix_rounds WHERE task_key=?", (self.task_key,)
        ).fetchone()[0]
        counts = dict(
            self.conn.execute(
                "SELECT signature, COUNT(DISTINCT round) FROM fix_rounds WHERE task_key=? "
                "GROUP BY signature",
                (self.task_key,),
            ).fetchall()
        )
        attempts = [
            Attempt(*row)
            for row in self.conn.execute(
                "SELECT signature, gate, fix, outcome FROM fix_attempts WHERE task_key=? "
                "ORDER BY created_at, rowid",
                (self.task_key,),
            )
        ]
        return TaskHistory(rounds=int(rounds), signature_counts=counts, attempts=attempts)

    def reset(self) -> None:
        """Forget this task (a new user prompt starts over)."""
        with self.conn:
            self.conn.execute("DELETE FROM fix_attempts WHERE task_key=?", (self.task_key,))
            self.conn.execute("DELETE FROM fix_rounds WHERE task_key=?", (self.task_key,))

    def prune(self, keep_days: float = KEEP_DAYS) -> None:
        """Drop other tasks' rows older than `keep_days` so the tables stay small."""
        cutoff = time.time() - keep_days * 86400
        with self.conn:
            self.conn.execute("DELETE FROM fix_attempts WHERE created_at < ?", (cutoff,))
            self.conn.execute("DELETE FROM fix_rounds WHERE created_at < ?", (cutoff,))
