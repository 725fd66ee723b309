"""The next-turn grader: the user's next prompt and the agent's next stop grade a verdict."""

from __future__ import annotations

import pytest

from reflection_core.outcomes.after_push import grade_after_push
from reflection_core.outcomes.grade import Graded, Previous, grade_next_prompt
from reflection_core.session.commands import classify_command
from reflection_core.session.model import ToolCall

LET_THROUGH = Previous(asked=False, status="complete")
ASKED = Previous(asked=True, status="waiting_for_user")


@pytest.mark.parametrize(
    ("prompt", "rule"),
    [
        ("the form still doesn't save, same error", "reports_broken"),
        ("la page ne marche toujours pas", "reports_broken"),
        ("页面还是报错", "reports_broken"),
        ("did you run the tests?", "asks_for_check"),
        ("Traceback (most recent call last):\n  File 'x.py'\nKeyError: 'id'", "pastes_error"),
        ("continue", "pushes_on"),
        ("продолжай", "pushes_on"),
    ],
)
def test_complaints_after_a_let_through_stop_are_premature(prompt: str, rule: str) -> None:
    assert grade_next_prompt(prompt, LET_THROUGH) == Graded("premature", rule)


@pytest.mark.parametrize(
    ("prompt", "rule"),
    [
        ("thanks! now add a dark mode toggle", "thanks"),
        ("ありがとう、次はログ画面です", "thanks"),
        ("add pagination to the orders table", "moves_on"),
        ("Erstelle eine README für das Projekt", "moves_on"),
    ],
)
def test_thanks_and_new_tasks_are_fine(prompt: str, rule: str) -> None:
    assert grade_next_prompt(prompt, LET_THROUGH) == Graded("fine", rule)


def test_a_reply_to_the_agents_question_is_answered_even_when_it_says_continue() -> None:
    assert grade_next_prompt("yes, continue", ASKED).outcome == "answered"
    assert grade_next_prompt("continue", ASKED).outcome == "answered"


def test_a_broken_report_wins_over_an_answer() -> None:
    assert grade_next_prompt("yes but it still fails on save", ASKED).outcome == "premature"


@pytest.mark.parametrize(
    "prompt",
    ["", "   ", "<command-name>/clear</command-name>", "/compact", "/review calc/__init__.py"],
)
def test_what_the_user_did_not_type_is_unknown(prompt: str) -> None:
    assert grade_next_prompt(prompt, LET_THROUGH).outcome == "unknown"


def test_a_path_is_not_a_slash_command() -> None:
    assert grade_next_prompt("/usr/bin/env still fails here", LET_THROUGH).outcome == "premature"


def test_a_complaint_deep_inside_a_long_new_task_is_not_read() -> None:
    prompt = "Build the invoice export. " + "Details follow. " * 40 + "The old one doesn't work."
    assert grade_next_prompt(prompt, LET_THROUGH).outcome == "fine"


def _shell(index: int, command: str, ok: bool = True) -> ToolCall:
    return ToolCall(index, f"t{index}", "Bash", "shell", command=classify_command(command), ok=ok)


def test_a_push_followed_by_a_test_run_paid_off() -> None:
    graded = grade_after_push([_shell(1, "python -m pytest -q", ok=False)])
    assert graded == Graded("block_paid_off", "new_check")


def test_a_push_followed_by_a_failing_command_found_a_failure() -> None:
    graded = grade_after_push([_shell(1, "cat missing.txt", ok=False)])
    assert graded == Graded("block_paid_off", "failure_found")


def test_a_push_followed_by_an_edit_is_new_work() -> None:
    edit = ToolCall(1, "t1", "Edit", "edit", files=("app.py",), ok=True)
    assert grade_after_push([edit]) == Graded("block_paid_off", "new_work")


def test_a_push_followed_by_nothing_new_was_wasted() -> None:
    assert grade_after_push([]) == Graded("block_wasted", "nothing_new")
    assert grade_after_push([_shell(1, "ls")]) == Graded("block_wasted", "nothing_new")


def test_an_unknown_outcome_name_is_refused() -> None:
    with pytest.raises(ValueError):
        Graded("great", "x")
