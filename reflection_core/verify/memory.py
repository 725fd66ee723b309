"""Episodic memory (Reflexion): short lessons from finished tasks, recalled on similar prompts.

After a task ends complete or escalated, the Stop hook stores what went wrong on
the way (what was missing, which gate failed, which fix worked) keyed by the task's
normalized signature: its content words, stemmed, without stop words. On every
prompt the prompt hook asks for a lesson: one indexed SQLite query finds lessons
sharing words with the prompt, and the best one is returned if it is similar
enough (Dice coefficient over the word sets). Lessons are short, deduplicated per
signature, expire after `memory.ttl_days`, and at most `memory.max_lessons` are
kept per repo. Recall is on the prompt hook's hot path: no config, no heavy imports.
"""

from __future__ import annotations

import os
import time

from reflection_core import paths, state
from reflection_core.lazyre import lazy
from reflection_core.state import sqlite3

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

DDL = """
CREATE TABLE IF NOT EXISTS memory_lessons (
    id INTEGER PRIMARY KEY,
    repo TEXT NOT NULL,
    signature TEXT NOT NULL,
    text TEXT NOT NULL,
    text_hash TEXT NOT NULL,
    n_terms INTEGER NOT NULL,
    created_at REAL NOT NULL,
    expires_at REAL NOT NULL,
    UNIQUE (repo, signature, text_hash)
);
CREATE TABLE IF NOT EXISTS memory_terms (
    repo TEXT NOT NULL,
    term TEXT NOT NULL,
    lesson_id INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS memory_terms_lookup ON memory_terms(repo, term);
CREATE INDEX IF NOT EXISTS memory_terms_lesson ON memory_terms(lesson_id);
"""
MAX_LESSON_CHARS = 320
MAX_TERMS = 24
MIN_SHARED_TERMS = 2
MIN_SIMILARITY = 0.6
_WORD = lazy(r"[a-z][a-z0-9_]+")
# Function words and the generic verbs of coding requests: they say nothing about the task.
_STOP_TEXT = """
    a about above after again all also am an and any are as at be because been before being
    below between both but by can could did do does doing done down during each few for from
    further had has have having he her here hers him his how i if in into is it its itself just
    keep keeps let lets me more most my no nor not now of off on once only or other our ours out
    over own please same she should so some such than that the their them then there these they
    this those through to too under until up very was we were what when where which while who
    whom why will with would you your yours add make update change implement create use want
    need fix new work code file thing sure get got see look try still again ok okay thanks hey hi
    redacted"""
STOP_WORDS = frozenset(_STOP_TEXT.split())


def _stem(word: str) -> str:
    for suffix, keep in (("ies", "y"), ("ing", ""), ("ed", ""), ("es", ""), ("s", ""), ("ly", "")):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3 and not word.endswith("ss"):
            return word[: -len(suffix)] + keep
    return word


def task_terms(prompt: str) -> list[str]:
    """The normalized content words of a task prompt, in first-seen order, at most MAX_TERMS.
    Secrets are redacted first (before the cut), so no token or password becomes a term."""
    from reflection_core.redact import redact

    seen: dict[str, None] = {}
    for word in _WORD.findall(redact(prompt[:_REDACT_CHARS]).lower()[:4000]):
        if word in STOP_WORDS or len(word) < 3:
            continue
        stem = _stem(word)
        if stem not in STOP_WORDS:
            seen.setdefault(stem, None)
        if len(seen) >= MAX_TERMS:
            break
    return list(seen)


# How much of a prompt is redacted: the 4,000 characters used and a whole secret across the cut.
_REDACT_CHARS = 4000 + 4096 + 64


def task_signature(prompt: str) -> str:
    """The key lessons are stored under: the sorted normalized words."""
    return " ".join(sorted(task_terms(prompt)))


def similarity(a: set[str], b: set[str]) -> float:
    """Dice coefficient of two word sets (1.0 identical, 0.0 disjoint)."""
    return 2 * len(a & b) / (len(a) + len(b)) if a and b else 0.0


def render_lesson(lesson: dict[str, Any]) -> str:
    """A lesson dict as one short line; empty when there is nothing worth remembering.

    Keys (all optional): `text` (used as is), `outcome`, `missing` (list), `failed_gates`
    (list), `fixes_worked` (list), `note`.
    """
    if isinstance(lesson.get("text"), str) and lesson["text"].strip():
        return _cap(" ".join(lesson["text"].split()))
    parts: list[str] = []
    missing = [str(m) for m in lesson.get("missing") or [] if str(m).strip()]
    if missing:
        parts.append("missing at first stop: " + "; ".join(missing[:3]))
    gates = [str(g) for g in lesson.get("failed_gates") or []]
    if gates:
        parts.append("gates that failed: " + ", ".join(gates[:4]))
    fixes = [str(f) for f in lesson.get("fixes_worked") or []]
    if fixes:
        parts.append("what fixed it: " + ", ".join(f"`{f}`" for f in fixes[:3]))
    if lesson.get("note"):
        parts.append(str(lesson["note"]))
    if not parts:
        return ""
    outcome = lesson.get("outcome")
    head = f"({outcome}) " if outcome else ""
    return _cap(head + "; ".join(parts))


def _cap(text: str) -> str:
    return text if len(text) <= MAX_LESSON_CHARS else text[: MAX_LESSON_CHARS - 1] + "…"


def _repo_key(root: str | Path) -> str:
    """The repo's resolved path, as `str(Path(root).resolve())` gives it."""
    return os.path.realpath(root)


def store_lesson(
    root: Path,
    task_prompt: str,
    lesson: dict[str, Any],
    cfg: Any = None,
    conn: sqlite3.Connection | None = None,
) -> None:
    """Remember what a finished task taught; a no-op when memory is off or nothing was learnt.
    `conn` is an open state connection to use (the stop hook's own), else one is opened."""
    from reflection_core import config
    from reflection_core.redact import redact

    settings = cfg or config.load(root)
    if not settings.get("memory.enabled"):
        return
    text = redact(render_lesson(lesson))
    terms = task_terms(task_prompt)
    if not text or len(terms) < MIN_SHARED_TERMS:
        return
    repo, now = _repo_key(root), time.time()
    expires = now + float(settings.get("memory.ttl_days")) * 86400
    text_hash = paths.sha256_hex(text.encode())[:16]
    signature = " ".join(sorted(terms))
    given = conn
    conn = given or state.connect()
    try:
        state.ensure_schema(conn, DDL)
        with conn:
            conn.execute("BEGIN IMMEDIATE")
            row = conn.execute(
                "INSERT INTO memory_lessons (repo, signature, text, text_hash, n_terms, "
                "created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?) "
                "ON CONFLICT (repo, signature, text_hash) DO UPDATE SET "
                "created_at = excluded.created_at, expires_at = excluded.expires_at "
                "RETURNING id",
                (repo, signature, text, text_hash, len(terms), now, expires),
            ).fetchone()
            lesson_id = int(row[0])
            conn.execute("DELETE FROM memory_terms WHERE lesson_id = ?", (lesson_id,))
            conn.executemany(
                "INSERT INTO memory_terms (repo, term, lesson_id) VALUES (?, ?, ?)",
                [(repo, term, lesson_id) for term in terms],
            )
            _prune(conn, repo, now, int(settings.get("memory.max_lessons")))
    finally:
        if given is None:
            conn.close()


def _prune(conn: sqlite3.Connection, repo: str, now: float, keep: int) -> None:
    stale = [
        row[0]
        for row in conn.execute(
            "SELECT id FROM memory_lessons WHERE repo = ? AND (expires_at <= ? OR id NOT IN "
            "(SELECT id FROM memory_lessons WHERE repo = ? ORDER BY created_at DESC LIMIT ?))",
            (repo, now, repo, keep),
        )
    ]
    if stale:
        marks = ",".join("?" * len(stale))
        conn.execute(f"DELETE FROM memory_terms WHERE lesson_id IN ({marks})", stale)
        conn.execute(f"DELETE FROM memory_lessons WHERE id IN ({marks})", stale)


def recall_lesson(
    root: str | Path, prompt: str, conn: sqlite3.Connection | None = None
) -> str | None:
    """The most relevant unexpired lesson for a similar earlier task, or None. Never raises.

    `conn` is an open state connection to use (the prompt hook's own), else one is opened.
    The prompt's terms (a redaction pass) are worked out only when the repo has a lesson."""
    if conn is None and not os.path.exists(os.path.join(paths.state_directory(), state.DB_NAME)):
        return None
    try:
        db = conn or state.connect()
    except sqlite3.Error:
        return None
    try:
        terms, rows = _similar_lessons(db, _repo_key(root), prompt)
    except sqlite3.Error:  # no table yet, or a locked/corrupt file: no lesson this time
        return None
    finally:
        if conn is None:
            db.close()
    if not rows:
        return None
    wanted = set(terms)
    scored = [(similarity(wanted, set(sig.split())), text) for text, sig, _ in rows]
    best = max(scored, default=(0.0, ""), key=lambda item: item[0])
    if best[0] < MIN_SIMILARITY:
        return None
    return f"Lesson from a similar earlier task in this repo: {best[1]}"


def _similar_lessons(
    conn: sqlite3.Connection, repo: str, prompt: str
) -> tuple[list[str], list[Any]]:
    """The prompt's terms and (text, signature, shared terms) of the unexpired lessons
    sharing them."""
    now = time.time()
    has_lesson = conn.execute(
        "SELECT 1 FROM memory_lessons WHERE repo = ? AND expires_at > ? LIMIT 1", (repo, now)
    ).fetchone()
    terms = task_terms(prompt) if has_lesson else []
    if len(terms) < MIN_SHARED_TERMS:
        return terms, []
    marks = ",".join("?" * len(terms))
    return terms, conn.execute(
        "SELECT l.text, l.signature, COUNT(*) AS shared FROM memory_terms t "
        "JOIN memory_lessons l ON l.id = t.lesson_id "
        f"WHERE t.repo = ? AND t.term IN ({marks}) AND l.expires_at > ? "
        "GROUP BY l.id HAVING shared >= ? ORDER BY shared DESC, l.created_at DESC LIMIT 8",
        (repo, *terms, now, MIN_SHARED_TERMS),
    ).fetchall()
