"""Transcripts written by the real Claude Code CLI (pinned version) read as expected.

The fixtures are recorded by the end-to-end suite (`tests/e2e/fixtures/`); each test
names the file it needs and skips, saying so, when that recording is absent.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from reflection_core.prompt.transcript_tail import previous_assistant_turn
from reflection_core.session.model import Session
from reflection_core.session.transcript import read_session

RECORDED = Path(__file__).resolve().parents[1] / "e2e" / "fixtures"
SUB_TASK = "Add a function sub(a, b) to calc.py that returns a - b."


def recorded(name: str) -> Session:
    path = RECORDED / name
    if not path.is_file():
        pytest.skip(f"recorded transcript {path} is not present; run the e2e suite to record it")
    return read_session(path)


def shell_summary(session: Session) -> list[tuple[str, bool | None, int | None]]:
    return [(c.command.raw, c.ok, c.exit_code) for c in session.tool_calls if c.command is not None]


def test_every_recording_reads_cleanly_and_agrees_with_the_tail_reader() -> None:
    paths = sorted(RECORDED.glob("claude_*.jsonl"))
    if not paths:
        pytest.skip(f"no recorded transcripts under {RECORDED}; run the e2e suite to record them")
    for path in paths:
        session = read_session(path)
        assert session.warnings == [], path.name
        assert session.task_prompt, path.name
        assert previous_assistant_turn(str(path))[0] == session.assistant_texts[-1].text, path.name


def test_stop_hook_feedback_is_collected_without_starting_a_task() -> None:
    session = recorded("claude_direct_push_to_main.jsonl")
    assert session.task_prompt.startswith(SUB_TASK)
    assert len(session.hook_feedback) == 3
    assert all(f.startswith("Stop hook feedback:") for f in session.hook_feedback)


def test_push_to_main_is_recorded_with_its_target_ref() -> None:
    session = recorded("claude_direct_push_to_main.jsonl")
    (push,) = [c for c in session.tool_calls if c.command and "push" in c.command.kinds]
    assert push.command is not None
    assert push.command.push_refs == ("main",)
    assert {"commit", "push"} <= push.command.kinds


def test_failing_then_passing_tests_are_told_apart() -> None:
    session = recorded("claude_failing_tests_claimed_done.jsonl")
    assert shell_summary(session) == [
        ("python -m pytest -q", False, 1),
        ("python -m pytest -q", True, 0),
    ]
    assert [c.kind for c in session.tool_calls] == ["edit", "shell", "edit", "shell"]


def test_refused_commit_and_push_are_failures_on_the_recorded_branch() -> None:
    session = recorded("claude_first_day_git_guards.jsonl")
    assert session.git_branch == "feat/sub"
    summary = shell_summary(session)
    assert summary[0] == ("git commit -qam 'Add sub'", False, 1)
    assert ("git push origin HEAD:main", False, 1) in summary
    assert ("git push -q origin feat/sub", True, 0) in summary


def test_compaction_is_seen_and_the_task_after_it_is_the_new_prompt() -> None:
    session = recorded("claude_compaction.jsonl")
    assert session.compacted
    assert session.compaction_summary.startswith("This session is being continued")
    assert session.task_prompt == "Carry on."
    assert session.earlier_prompts[-1].startswith(SUB_TASK)


def test_searches_by_bash_count_as_reads_and_searches() -> None:
    session = recorded("claude_planning_loop.jsonl")
    kinds = [c.kind for c in session.tool_calls]
    assert kinds.count("search") >= 2
    assert kinds[-2:] == ["edit", "shell"]


def test_plan_mode_is_read_from_the_prompt_record() -> None:
    assert recorded("claude_plan_mode.jsonl").permission_mode == "plan"
    assert recorded("claude_direct_push_to_main.jsonl").permission_mode == "bypassPermissions"
