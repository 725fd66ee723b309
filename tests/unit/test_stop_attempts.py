"""Per-task attempt state in the per-user SQLite database."""

from __future__ import annotations

import threading

import pytest

from reflection_core.session import attempts


def test_unknown_task_starts_at_zero() -> None:
    conn = attempts.connect()
    assert attempts.load(conn, "s", "t") == attempts.AttemptState()


def test_blocks_accumulate_patterns() -> None:
    conn = attempts.connect()
    attempts.record_block(conn, "s", "t", ["tests:not_run"], attempt=1)
    attempts.record_block(conn, "s", "t", ["loop:planning"], attempt=2)
    state = attempts.load(conn, "s", "t")
    assert state.attempts == 2
    assert state.sent_patterns == {"tests:not_run", "loop:planning"}


def test_tasks_and_sessions_are_separate_and_reset_forgets() -> None:
    conn = attempts.connect()
    attempts.record_block(conn, "s", "t1", ["a"], attempt=1)
    assert attempts.load(conn, "s", "t2").attempts == 0
    assert attempts.load(conn, "other", "t1").attempts == 0
    attempts.reset(conn, "s", "t1")
    assert attempts.load(conn, "s", "t1") == attempts.AttemptState()


def test_each_block_counts_once_more_and_never_below_the_attempt_given() -> None:
    conn = attempts.connect()
    assert attempts.record_block(conn, "s", "t", [], attempt=3) == 3
    assert attempts.record_block(conn, "s", "t", [], attempt=2) == 4
    assert attempts.load(conn, "s", "t").attempts == 4


def test_concurrent_writers_lose_no_pattern() -> None:
    attempts.connect().close()

    def block(n: int) -> None:
        conn = attempts.connect()
        attempts.record_block(conn, "s", "t", [f"p{n}"], attempt=1)
        conn.close()

    threads = [threading.Thread(target=block, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    state = attempts.load(attempts.connect(), "s", "t")
    assert state.sent_patterns == {f"p{n}" for n in range(8)}


def test_corrupt_pattern_column_is_an_error_not_a_silent_reset() -> None:
    conn = attempts.connect()
    conn.execute(
        "INSERT INTO stop_attempts (session_key, task_id, attempts, patterns, updated_at)"
        " VALUES ('s', 't', 1, '{\"not\": \"a list\"}', 0)"
    )
    with pytest.raises(ValueError):
        attempts.load(conn, "s", "t")
