"""Outcomes in the per-user state database (SQLite, WAL) and on the verdict file.

One row per judged stop (`stop_outcomes`): where and when, what the hook did (pushed
on, held for the user), the rule ids behind it, and, once graded, its outcome. One
row per prompt the prompt hook flagged (`prompt_flags`). No text of any prompt or
message is stored: rule ids, counts and the repository's path only. Every write is
one statement in autocommit mode; an outcome is set only on a row that has none, so
two hooks never grade the same stop twice.
"""

from __future__ import annotations

import json
import time

from reflection_core import paths, state
from reflection_core.records import record
from reflection_core.state import sqlite3

TYPE_CHECKING = False
if TYPE_CHECKING:  # the phrase tables compile on import: only where a prompt is graded
    from pathlib import Path
    from typing import Any

    from reflection_core.outcomes.grade import Graded

DDL = """
CREATE TABLE IF NOT EXISTS stop_outcomes (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    created_at REAL NOT NULL,
    verdict_at TEXT NOT NULL,
    repo TEXT NOT NULL,
    host TEXT NOT NULL,
    session_key TEXT NOT NULL,
    status TEXT NOT NULL,
    pushed INTEGER NOT NULL,
    held INTEGER NOT NULL,
    asked INTEGER NOT NULL,
    tool_calls INTEGER NOT NULL,
    rules TEXT NOT NULL,
    outcome TEXT,
    outcome_rule TEXT,
    outcome_reader TEXT,
    graded_at REAL
);
CREATE INDEX IF NOT EXISTS stop_outcomes_session ON stop_outcomes (session_key, id);
CREATE INDEX IF NOT EXISTS stop_outcomes_time ON stop_outcomes (created_at);
CREATE TABLE IF NOT EXISTS prompt_flags (
    created_at REAL NOT NULL,
    repo TEXT NOT NULL,
    host TEXT NOT NULL,
    session_key TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS prompt_flags_time ON prompt_flags (created_at);
"""
_COLUMNS = (
    "id, created_at, verdict_at, repo, host, session_key, status, pushed, held, asked,"
    " tool_calls, rules, outcome, outcome_rule, outcome_reader, graded_at"
)


@record(frozen=True)
class StopRow:
    """One judged stop as stored (`id` 0 until inserted)."""

    created_at: float
    verdict_at: str
    repo: str
    host: str
    session_key: str
    status: str
    pushed: bool
    held: bool
    asked: bool
    tool_calls: int
    rules: tuple[str, ...] = ()
    outcome: str | None = None
    outcome_rule: str | None = None
    outcome_reader: str | None = None
    graded_at: float | None = None
    id: int = 0


def connect(path: Path | None = None) -> sqlite3.Connection:
    conn = state.connect(path)
    state.ensure_schema(conn, DDL)
    return conn


def record_stop(conn: sqlite3.Connection, row: StopRow) -> int:
    cursor = conn.execute(
        "INSERT INTO stop_outcomes (created_at, verdict_at, repo, host, session_key, status,"
        " pushed, held, asked, tool_calls, rules) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            row.created_at,
            row.verdict_at,
            row.repo,
            row.host,
            row.session_key,
            row.status,
            int(row.pushed),
            int(row.held),
            int(row.asked),
            row.tool_calls,
            json.dumps(list(row.rules)),
        ),
    )
    return int(cursor.lastrowid or 0)


def record_prompt_flag(
    conn: sqlite3.Connection, repo: str, host: str, session_key: str, now: float | None = None
) -> None:
    conn.execute(
        "INSERT INTO prompt_flags (created_at, repo, host, session_key) VALUES (?, ?, ?, ?)",
        (now or time.time(), repo, host, session_key),
    )


def latest_stop(conn: sqlite3.Connection, session_key: str) -> StopRow | None:
    """The session's last judged stop, graded or not."""
    row = conn.execute(
        f"SELECT {_COLUMNS} FROM stop_outcomes WHERE session_key = ? ORDER BY id DESC LIMIT 1",
        (session_key,),
    ).fetchone()
    return _row(row) if row else None


def set_outcome(
    conn: sqlite3.Connection, row_id: int, graded: Graded, now: float | None = None
) -> bool:
    """Grade the stop `row_id` unless it already has an outcome; True when this call did."""
    cursor = conn.execute(
        "UPDATE stop_outcomes SET outcome = ?, outcome_rule = ?, outcome_reader = ?,"
        " graded_at = ? WHERE id = ? AND outcome IS NULL",
        (graded.outcome, graded.rule, graded.reader, now or time.time(), row_id),
    )
    return cursor.rowcount == 1


def load_stops(conn: sqlite3.Connection, since: float) -> list[StopRow]:
    rows = conn.execute(
        f"SELECT {_COLUMNS} FROM stop_outcomes WHERE created_at >= ? ORDER BY id", (since,)
    ).fetchall()
    return [_row(r) for r in rows]


def load_prompt_flags(conn: sqlite3.Connection, since: float) -> list[tuple[float, str, str]]:
    rows = conn.execute(
        "SELECT created_at, repo, host FROM prompt_flags WHERE created_at >= ? ORDER BY rowid",
        (since,),
    ).fetchall()
    return [(float(a), str(b), str(c)) for a, b, c in rows]


def _row(values: Any) -> StopRow:
    (rid, created, verdict_at, repo, host, key, status, pushed, held, asked, calls, rules) = values[
        :12
    ]
    try:
        rule_ids = tuple(str(r) for r in json.loads(rules))
    except (ValueError, TypeError):
        rule_ids = ()
    outcome, outcome_rule, reader, graded_at = values[12:]
    return StopRow(
        created_at=float(created),
        verdict_at=str(verdict_at),
        repo=str(repo),
        host=str(host),
        session_key=str(key),
        status=str(status),
        pushed=bool(pushed),
        held=bool(held),
        asked=bool(asked),
        tool_calls=int(calls),
        rules=rule_ids,
        outcome=outcome,
        outcome_rule=outcome_rule,
        outcome_reader=reader,
        graded_at=graded_at,
        id=int(rid),
    )


def now_iso(now: float | None = None) -> str:
    """Now, as the verdict files write times (UTC, milliseconds, `Z`), without datetime."""
    moment = time.time() if now is None else now
    seconds = int(moment)
    millis = int((moment - seconds) * 1000)
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(seconds)) + f".{millis:03d}Z"


def outcome_field(graded: Graded, by: str, at: str) -> dict[str, Any]:
    """The verdict file's record of an outcome: names and rule ids, no text."""
    field: dict[str, Any] = {"name": graded.outcome, "rule": graded.rule, "by": by}
    field.update(reader=graded.reader, graded_at=at)
    if graded.error:
        field["reader_error"] = graded.error[:300]
    return field


def annotate_verdict(
    root: str | Path, session_id: object, verdict_at: str, key: str, value: dict[str, Any]
) -> bool:
    """Add `key` to the session's verdict file when it is still the verdict `verdict_at`."""
    import os

    from reflection_core.atomic import locked, write_json_atomic
    from reflection_core.redact import redact_obj

    target = paths.verdict_file(os.fspath(root), session_id)
    if not os.path.exists(target):
        return False
    with locked(target):
        try:
            with open(target, encoding="utf-8") as handle:
                current = json.loads(handle.read())
        except (OSError, ValueError):
            return False
        if not isinstance(current, dict) or current.get("created_at") != verdict_at:
            return False
        current[key] = redact_obj(value)
        write_json_atomic(target, current)
        _annotate_record(os.fspath(root), current.get("record"), key, current[key])
    return True


def _annotate_record(root: str, relative: object, key: str, value: dict[str, Any]) -> None:
    """The same field on the verdict's full record, which outlives the next stop's verdict."""
    import os

    from reflection_core.atomic import write_json_atomic

    if not isinstance(relative, str) or not relative:
        return
    name = relative.replace("\\", "/").rsplit("/", 1)[-1]  # never a path out
    if name in ("", ".", ".."):
        return
    record_file = os.path.join(root, paths.REFLECTION_DIRNAME, "records", name)
    try:
        with open(record_file, encoding="utf-8") as handle:
            data = json.loads(handle.read())
    except (OSError, ValueError):
        return
    if isinstance(data, dict) and isinstance(data.get("verdict"), dict):
        data["verdict"][key] = value
        write_json_atomic(record_file, data)
