"""Which verdict of each session a hook notifier already handled, so none is handled twice.

The notifier also accepts a verdict written shortly before it started (the stop
hook can finish first). That window could hold the previous stop's verdict, so the
notifier skips any verdict not newer than the one it handled last for the session,
and claims a verdict (compare-and-set in the per-user state database) before it
delivers: of two notifiers that see the same verdict, only one speaks.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from pathlib import Path

from reflection_core import state
from reflection_core.consumers.verdict_files import Verdict

DDL = """
CREATE TABLE IF NOT EXISTS notify_handled (
    repo TEXT NOT NULL,
    session_id TEXT NOT NULL,
    created_at REAL NOT NULL,
    record TEXT NOT NULL,
    PRIMARY KEY (repo, session_id)
);
"""


@dataclass(frozen=True)
class Mark:
    """What identifies one write of a session's verdict: its time and its full record."""

    created_at: float
    record: str


def mark_of(verdict: Verdict) -> Mark:
    return Mark(verdict.created_at.timestamp(), str(verdict.data.get("record") or ""))


def is_newer(mark: Mark, handled: Mark | None) -> bool:
    """A verdict is news when nothing was handled yet, or it was written after the last one."""
    if handled is None:
        return True
    if mark.created_at != handled.created_at:
        return mark.created_at > handled.created_at
    return mark.record != handled.record


class Ledger:
    """The handled verdicts of one repo; reads are cached per session for a notifier run."""

    def __init__(self, root: Path, conn: sqlite3.Connection) -> None:
        self.repo = str(root.resolve())
        self.conn = conn
        self._handled: dict[str, Mark | None] = {}

    @classmethod
    def open(cls, root: Path) -> Ledger:
        conn = state.connect()
        state.ensure_schema(conn, DDL)
        return cls(root, conn)

    def close(self) -> None:
        self.conn.close()

    def handled(self, session_id: str) -> Mark | None:
        row = self.conn.execute(
            "SELECT created_at, record FROM notify_handled WHERE repo = ? AND session_id = ?",
            (self.repo, session_id),
        ).fetchone()
        return Mark(float(row[0]), str(row[1])) if row else None

    def is_new(self, verdict: Verdict) -> bool:
        """Newer than what a notifier handled for its session before this run started."""
        session = verdict.session_id
        if session not in self._handled:
            self._handled[session] = self.handled(session)
        return is_newer(mark_of(verdict), self._handled[session])

    def claim(self, verdict: Verdict) -> bool:
        """Record `verdict` as handled; False when another notifier got to it (or a newer one)."""
        mark = mark_of(verdict)
        self.conn.execute("BEGIN IMMEDIATE")
        try:
            newer = is_newer(mark, self.handled(verdict.session_id))
            if newer:
                self.conn.execute(
                    "INSERT INTO notify_handled (repo, session_id, created_at, record) "
                    "VALUES (?, ?, ?, ?) ON CONFLICT (repo, session_id) DO UPDATE SET "
                    "created_at = excluded.created_at, record = excluded.record",
                    (self.repo, verdict.session_id, mark.created_at, mark.record),
                )
            self.conn.execute("COMMIT")
        except BaseException:
            if self.conn.in_transaction:
                self.conn.execute("ROLLBACK")
            raise
        return newer
