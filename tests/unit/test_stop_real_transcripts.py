"""Decisions on transcripts recorded from the real Claude Code CLI (tests/e2e/fixtures).

Each fixture holds a whole session; cutting it just before the first Stop-hook
feedback gives the transcript exactly as the hook saw it at its first stop.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from reflection_core.session.analyze import analyze_transcript
from reflection_core.session.decide import Decision
from tests.gitutil import make_repo

FIXTURES = Path(__file__).resolve().parents[1] / "e2e" / "fixtures"
FEEDBACK_MARK = "Stop hook blocking error"


def fixture(name: str) -> Path:
    path = FIXTURES / name
    if not path.is_file():
        pytest.skip(f"recorded fixture {name} is not in this checkout")
    return path


def at_first_stop(name: str, tmp_path: Path) -> Path:
    lines = fixture(name).read_text(encoding="utf-8").splitlines(keepends=True)
    cut = next(i for i, line in enumerate(lines) if FEEDBACK_MARK in line)
    target = tmp_path / name
    target.write_text("".join(lines[:cut]), encoding="utf-8")
    return target


def analyze(path: Path, **kwargs: str) -> Decision:
    return analyze_transcript(path, use_ledger=False, **kwargs)


def test_edit_without_a_test_run_is_blocked_at_the_first_stop_when_tests_are_required(
    tmp_path: Path,
) -> None:
    # The recording's own project directory is gone; judge it against one like it
    # (calc.py and a pytest suite) so the feedback can name the repo's test command.
    sample = make_repo(
        tmp_path / "sample",
        files={
            "calc.py": "def add(a, b):\n    return a + b\n",
            "tests/test_x.py": "",
            "pyproject.toml": "",
            ".reflection.yaml": "stop:\n  require: tests\n",
        },
    )
    transcript = at_first_stop("claude_edit_blocked_then_tests_pass.jsonl", tmp_path)
    d = analyze_transcript(transcript, cwd=sample, use_ledger=False)
    assert d.should_block and d.gates["tests"].failing
    assert d.feedback is not None and "pytest" in d.feedback


def test_failing_tests_claimed_done_are_high_at_the_first_stop(tmp_path: Path) -> None:
    d = analyze(at_first_stop("claude_failing_tests_claimed_done.jsonl", tmp_path))
    assert d.should_block and d.severity == "HIGH"
    assert d.gates["tests"].failing and "failed" in d.gates["tests"].evidence


def test_planning_loop_is_recorded_in_the_verdict_not_a_block_nor_a_line(tmp_path: Path) -> None:
    # Many reads and no write is kept in the verdict's missing items; no push, no line.
    d = analyze(at_first_stop("claude_planning_loop.jsonl", tmp_path))
    assert not d.should_block and [loop.kind for loop in d.loops] == ["planning"]
    assert d.note is None or "planning loop" not in d.note
    assert any("planning loop" in item for item in d.missing)


def test_direct_push_to_main_is_high_at_the_first_stop(tmp_path: Path) -> None:
    d = analyze(at_first_stop("claude_direct_push_to_main.jsonl", tmp_path))
    assert d.gates["push"].failing and d.severity == "HIGH"


@pytest.mark.parametrize(
    "name",
    [
        "claude_edit_blocked_then_tests_pass.jsonl",
        "claude_planning_loop.jsonl",
        "claude_first_day_git_guards.jsonl",
        "claude_compaction.jsonl",
    ],
)
def test_sessions_that_finished_the_work_end_complete(name: str) -> None:
    d = analyze(fixture(name))
    assert d.complete and not d.should_block, d.missing


def test_undoing_the_only_change_to_make_tests_pass_ends_incomplete() -> None:
    # Asked to add sub() and keep add(), the agent turned add() into a subtraction,
    # was pushed back, and reverted its edit: the tests pass on the untouched file.
    d = analyze(fixture("claude_failing_tests_claimed_done.jsonl"))
    assert not d.complete and d.changed_paths == []
    assert "work:no_change" in d.patterns


def test_direct_push_stays_incomplete_even_after_the_agent_stops() -> None:
    d = analyze(fixture("claude_direct_push_to_main.jsonl"))
    assert not d.complete and d.gates["push"].failing


def test_plan_mode_session_is_waiting_not_pushed() -> None:
    d = analyze(fixture("claude_plan_mode.jsonl"), permission_mode="plan")
    assert d.status == "waiting_for_user" and not d.should_block
