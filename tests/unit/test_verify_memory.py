"""Episodic memory: lessons stored for a task come back for similar prompts only."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

from reflection_core import state
from reflection_core.config import Config, validate
from reflection_core.verify.memory import (
    MAX_LESSON_CHARS,
    recall_lesson,
    render_lesson,
    store_lesson,
    task_signature,
    task_terms,
)

TASK = "Fix the failing login test in the auth module"
LESSON = {
    "outcome": "complete",
    "missing": ["tests were not run after the last edit"],
    "failed_gates": ["lint"],
    "fixes_worked": ["ruff check --fix ."],
}


def cfg(**memory: object) -> Config:
    return Config(data=validate({"memory": memory}, "test"))


def test_similar_prompt_recalls_the_lesson(tmp_path: Path) -> None:
    store_lesson(tmp_path, TASK, LESSON, cfg())
    lesson = recall_lesson(tmp_path, "the login tests in auth keep failing, please fix them")
    assert lesson is not None
    assert "tests were not run after the last edit" in lesson
    assert "`ruff check --fix .`" in lesson


def test_unrelated_prompt_recalls_nothing(tmp_path: Path) -> None:
    store_lesson(tmp_path, TASK, LESSON, cfg())
    assert recall_lesson(tmp_path, "Write documentation for the deployment pipeline") is None
    assert recall_lesson(tmp_path, "add a test for the payment module") is None


def test_lessons_belong_to_their_repo(tmp_path: Path) -> None:
    store_lesson(tmp_path / "a", TASK, LESSON, cfg())
    assert recall_lesson(tmp_path / "b", TASK) is None


def test_no_database_means_no_lesson_and_no_file_created(tmp_path: Path) -> None:
    assert recall_lesson(tmp_path, TASK) is None
    assert not state.db_path().exists()


def test_same_lesson_is_stored_once(tmp_path: Path) -> None:
    for _ in range(3):
        store_lesson(tmp_path, TASK, LESSON, cfg())
    store_lesson(tmp_path, "fix the failing auth module login test", LESSON, cfg())
    conn = state.connect()
    assert conn.execute("SELECT COUNT(*) FROM memory_lessons").fetchone()[0] == 1


def test_expired_lessons_are_not_recalled(tmp_path: Path) -> None:
    store_lesson(tmp_path, TASK, LESSON, cfg(ttl_days=1))
    conn = sqlite3.connect(state.db_path())
    with conn:
        conn.execute("UPDATE memory_lessons SET expires_at = ?", (time.time() - 1,))
    assert recall_lesson(tmp_path, TASK) is None


def test_lessons_per_repo_are_bounded_newest_kept(tmp_path: Path) -> None:
    for topic in ("billing invoices", "search indexing", "email templates"):
        store_lesson(
            tmp_path, f"repair {topic} export", {"note": f"check {topic}"}, cfg(max_lessons=2)
        )
    assert recall_lesson(tmp_path, "repair billing invoices export") is None
    assert "email templates" in (recall_lesson(tmp_path, "repair email templates export") or "")


def test_disabled_memory_and_empty_lessons_store_nothing(tmp_path: Path) -> None:
    store_lesson(tmp_path, TASK, LESSON, cfg(enabled=False))
    store_lesson(tmp_path, TASK, {"outcome": "complete"}, cfg())
    assert recall_lesson(tmp_path, TASK) is None


def test_signature_ignores_wording_noise() -> None:
    assert task_signature("Fix the failing login tests!") == task_signature(
        "please fix failing login test"
    )
    assert task_terms("The and of to") == []


def test_lessons_are_short_and_redacted(tmp_path: Path) -> None:
    assert len(render_lesson({"note": "x" * 5000})) == MAX_LESSON_CHARS
    store_lesson(tmp_path, TASK, {"note": "use token=abcd1234secretvalue to log in"}, cfg())
    lesson = recall_lesson(tmp_path, TASK) or ""
    assert "abcd1234secretvalue" not in lesson and "[REDACTED]" in lesson


def _store_many(root: str, worker: int) -> None:
    for i in range(10):
        store_lesson(
            Path(root),
            f"topic{worker} subject{i} migration",
            {"note": f"lesson {worker}-{i}"},
            cfg(),
        )


def test_concurrent_writers_lose_no_lesson(tmp_path: Path) -> None:
    import multiprocessing

    ctx = multiprocessing.get_context("spawn")
    procs = [ctx.Process(target=_store_many, args=(str(tmp_path), w)) for w in range(4)]
    for proc in procs:
        proc.start()
    for proc in procs:
        proc.join(60)
    assert [proc.exitcode for proc in procs] == [0, 0, 0, 0]
    conn = state.connect()
    assert conn.execute("SELECT COUNT(*) FROM memory_lessons").fetchone()[0] == 40
    assert "lesson 3-7" in (recall_lesson(tmp_path, "topic3 subject7 migration") or "")


def test_recall_imports_nothing_heavy() -> None:
    import subprocess
    import sys

    code = (
        "import sys; import reflection_core.verify.memory as m; "
        "m.recall_lesson(__import__('pathlib').Path('.'), 'fix the login test'); "
        "print(sorted(x for x in ('yaml', 'click', 'requests', 'git', 'reflection_core.config')"
        " if x in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


PARAPHRASES = [
    ("Fix the failing login test in the auth module", "login tests in auth are failing"),
    ("Add pagination to the orders API endpoint", "orders endpoint API needs pagination"),
    (
        "Upgrade the postgres driver and run migrations",
        "run the migrations after the postgres driver upgrade",
    ),
    ("Refactor the invoice PDF renderer", "refactoring invoice pdf rendering"),
    ("Speed up the search indexer batch job", "the search indexer batch job is slow, speed it up"),
    ("Make the CSV export handle unicode names", "unicode names break the csv export"),
]
UNRELATED = [
    ("Fix the failing login test in the auth module", "add a test for the payment module"),
    ("Add pagination to the orders API endpoint", "document the API for partners"),
    ("Upgrade the postgres driver and run migrations", "write the release notes"),
    ("Refactor the invoice PDF renderer", "refactor the email template loader"),
    ("Speed up the search indexer batch job", "add dark mode to the settings page"),
    ("Make the CSV export handle unicode names", "rename the export button"),
]


def test_recall_finds_paraphrases_and_ignores_unrelated_prompts(tmp_path: Path) -> None:
    for i, (task, _) in enumerate(PARAPHRASES):
        store_lesson(tmp_path, task, {"note": f"lesson {i}"}, cfg())
    found = [recall_lesson(tmp_path, prompt) for _, prompt in PARAPHRASES]
    assert [f"lesson {i}" in (text or "") for i, text in enumerate(found)] == [True] * 6
    assert [recall_lesson(tmp_path, prompt) for _, prompt in UNRELATED] == [None] * 6


def test_a_lesson_stored_on_a_given_connection_leaves_it_open(tmp_path: Path) -> None:
    conn = state.connect()
    store_lesson(tmp_path, TASK, LESSON, cfg(), conn)
    assert conn.execute("SELECT count(*) FROM memory_lessons").fetchone() == (1,)
    conn.close()
    assert recall_lesson(tmp_path, "the login tests in auth keep failing, please fix them")
