"""Task type from words and actions; which gates apply."""

from __future__ import annotations

from pathlib import PurePosixPath

import pytest

from reflection_core import config
from reflection_core.session.task import (
    build_task_context,
    is_plan_only,
    name_and_parent,
    required_gates,
    suffix,
    task_id,
)
from tests.unit.sessionbuild import SessionBuilder


@pytest.mark.parametrize(
    ("prompt", "expected"),
    [
        ("Fix the Dockerfile build error", "coding"),
        ("Fix the email validation regex", "coding"),
        ("Investigate and fix the flaky login test", "coding"),
        ("Why does the parser crash on empty input?", "research"),
        ("Explain how the cache invalidation works", "research"),
        ("Update the README installation section", "docs"),
        ("Fix the typo in the README", "docs"),
        ("Restart the staging server and rotate the logs", "ops"),
        ("Add a --verbose flag to the CLI", "coding"),
        ("thanks!", "other"),
    ],
)
def test_task_type_from_words_when_nothing_changed(prompt: str, expected: str) -> None:
    session = SessionBuilder(prompt).read("src/app.py").build()
    assert build_task_context(session).task_type == expected


def test_source_edits_make_a_question_a_coding_task() -> None:
    session = SessionBuilder("Why does the parser crash?").edit("src/parser.py").build()
    context = build_task_context(session)
    assert context.task_type == "coding"
    assert context.changed_paths == ["src/parser.py"]


def test_docs_only_edits_make_a_docs_task() -> None:
    session = SessionBuilder("Tidy up the project notes").edit("docs/guide.md").build()
    assert build_task_context(session).task_type == "docs"


def test_dockerfile_edit_is_code_not_docs() -> None:
    session = SessionBuilder("Fix the Dockerfile build error").edit("Dockerfile").build()
    assert build_task_context(session).task_type == "coding"


@pytest.mark.parametrize(
    "prompt",
    [
        "Just plan the migration, don't implement anything yet",
        "Write a plan for splitting the monolith",
        "Only outline the steps",
        "Review the auth flow; don't change anything",
        "Look into the flaky job but do not modify any files",
        "Plan how we'd add i18n to the app. Write up the steps.",
        "Write up the steps for the migration, I'll review before you start.",
    ],
)
def test_plan_only_requests_are_recognised(prompt: str) -> None:
    assert is_plan_only(prompt)


@pytest.mark.parametrize(
    "prompt",
    [
        "Implement the plan we agreed on and run the tests",
        "Move the login screen to the new state model, don't change the layout files",
        "Rename the config loader; do not touch the public API",
        "Add the export, then plan the rollout with me",
    ],
)
def test_ordinary_requests_are_not_plan_only(prompt: str) -> None:
    """A "don't change X" limits what may change; the task still asks for a change."""
    assert not is_plan_only(prompt)


def test_required_gates_follow_config_and_prompt() -> None:
    cfg = config.defaults()
    coding = build_task_context(SessionBuilder("Fix the bug and open a PR").edit("a.py").build())
    assert required_gates(coding, cfg, has_tests=True) == {"tests", "push", "pr"}
    cfg["stop"]["require_ci"] = True
    cfg["stop"]["waive_gates"] = ["push"]
    assert required_gates(coding, cfg, has_tests=True) == {"tests", "pr", "ci"}


@pytest.mark.parametrize(
    ("prompt", "wants_ci"),
    [
        ("Fix the flaky test and make CI green", True),
        ("Keep going until the checks pass", True),
        ("The pipeline is passing again?", True),
        ("TestAllowBurst failed once in CI yesterday and passed on retry. Any idea why?", False),
    ],
)
def test_a_request_that_ci_pass_wants_ci_and_a_report_of_a_past_run_does_not(
    prompt: str, wants_ci: bool
) -> None:
    task = build_task_context(SessionBuilder(prompt).edit("a.py").build())
    assert task.wants_ci is wants_ci


def test_repo_without_tests_is_not_asked_to_run_them() -> None:
    coding = build_task_context(SessionBuilder("Fix the bug").edit("a.py").build())
    assert "tests" not in required_gates(coding, config.defaults(), has_tests=False)
    assert "tests" in required_gates(coding, config.defaults(), has_tests=None)


def test_task_id_changes_with_the_prompt_and_its_time() -> None:
    first = SessionBuilder("Fix A").build()
    second = SessionBuilder("Fix B").build()
    again = SessionBuilder("Fix A").build()
    again.task_started_at = "2026-03-02T10:00:00Z"
    assert len({task_id(first), task_id(second), task_id(again)}) == 3
    assert task_id(first) == task_id(SessionBuilder("Fix A").build())


@pytest.mark.parametrize(
    "path",
    [
        "README.md",
        "docs/guide.rst",
        "/abs/requirements/base.txt",
        "a//b/./c.tar.gz",
        "src/.bashrc",
        "dir/",
        "/",
        "",
        ".",
        "x/..",
        "notes.",
        "..md",
        "a/b/../requirements.txt",
    ],
)
def test_path_names_and_suffixes_are_read_as_pathlib_reads_them(path: str) -> None:
    posix = PurePosixPath(path)
    assert name_and_parent(path) == (posix.name, posix.parent.name)
    assert suffix(posix.name) == posix.suffix


def test_a_request_that_ci_pass_needs_a_green_run_not_a_pull_request() -> None:
    ci = build_task_context(
        SessionBuilder("Move CI to node 20 and make sure CI passes").edit("a.js").build()
    )
    gates = required_gates(ci, config.defaults(), has_tests=None)
    assert "ci" in gates and "pr" not in gates
    with_pr = build_task_context(
        SessionBuilder("Fix it, open a PR and make CI green").edit("a.js").build()
    )
    assert {"pr", "ci"} <= required_gates(with_pr, config.defaults(), has_tests=None)
