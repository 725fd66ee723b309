"""Prompt history: trend, summary, and the session's already-asked questions."""

from __future__ import annotations

from reflection_core.prompt import history
from reflection_core.prompt.history import Entry, summarize, trend
from reflection_core.prompt.score import score_prompt


def _entry(score: float, smells: tuple[str, ...] = ()) -> Entry:
    return Entry(0.0, "s", score, "pass", "backend", smells)


def test_trend_compares_the_last_five_with_the_five_before() -> None:
    assert trend([2.0] * 5 + [3.0] * 5) == "rising"
    assert trend([4.0] * 5 + [3.0] * 5) == "declining"
    assert trend([3.0, 3.1, 2.9, 3.0, 3.0, 3.1, 3.0, 2.9, 3.0, 3.1]) == "stable"
    assert trend([3.0]) == "stable"


def test_summary_keeps_last_ten_and_counts_smells() -> None:
    entries = [_entry(float(1 + i % 4), ("vague_improvement",) if i % 2 else ()) for i in range(25)]
    summary = summarize(entries)
    assert len(summary.recent) == 10
    assert summary.recent[-1] is entries[-1]
    assert summary.smell_histogram == {"vague_improvement": 12}
    assert summary.to_dict()["last_scores"][0]["score"] == entries[15].score


def test_recorded_rows_round_trip_through_sqlite() -> None:
    conn = history.connect()
    try:
        history.record(conn, "s1", 2.5, "ask", "backend", ["bug_without_repro"])
        history.record(conn, "s2", 4.5, "pass", "frontend", [])
        entries = history.load_entries(conn)
    finally:
        conn.close()
    assert [(e.session_id, e.score, e.smells) for e in entries] == [
        ("s1", 2.5, ("bug_without_repro",)),
        ("s2", 4.5, ()),
    ]


def test_questions_already_asked_in_the_session_are_not_asked_again() -> None:
    first = score_prompt("add caching to this file")
    assert first.questions
    conn = history.connect()
    try:
        history.mark_asked(conn, "s1", list(first.question_keys))
        asked = history.asked_keys(conn, "s1")
        assert history.asked_keys(conn, "other") == set()
    finally:
        conn.close()
    again = score_prompt("add caching to this file").without_questions(asked)
    assert again.questions == ()
    assert again.action == "note"
    assert "already asked" in (again.note or "")
