"""Asking permission for what the task asked for, and remaining work announced as
"Remaining:", "in phase 2 I'll ..." or "Next I'll ..."."""

from __future__ import annotations

import pytest

from reflection_core import config
from reflection_core.session.categories import asks_for_requested_work, drift_markers
from reflection_core.session.decide import Decision, DecisionContext, decide
from tests.unit.sessionbuild import SessionBuilder


def run(prompt: str, final: str) -> Decision:
    builder = SessionBuilder(prompt).edit("src/app.py").bash("pytest -q", output="14 passed")
    return decide(builder.build(final), DecisionContext(config=config.defaults()))


@pytest.mark.parametrize(
    ("prompt", "final"),
    [
        ("Bump the version to 2.4.0 and push the branch.", "Bumped to 2.4.0. Shall I push it?"),
        ("Fix the slug bug and commit it.", "Fixed; 14 passed. Do you want me to commit this?"),
    ],
)
def test_asking_permission_for_the_requested_action_is_a_note_not_a_push(
    prompt: str, final: str
) -> None:
    d = run(prompt, final)
    assert d.stop_category == "tool_available_punt" and not d.complete and not d.should_block
    assert d.note is not None and "asked the user" in d.note


@pytest.mark.parametrize(
    ("prompt", "final"),
    [
        ("Fix the slug bug and add a test.", "Fixed with a test; 14 passed. Want me to add more?"),
        ("Fix the slug bug.", "Fixed; 14 passed. Want me to open a PR as well?"),
        ("Fix the slug bug and commit it.", "Fixed and committed. Should I also push it?"),
    ],
)
def test_offers_of_extras_after_finished_work_stay_complete(prompt: str, final: str) -> None:
    assert asks_for_requested_work([final], prompt) == []


@pytest.mark.parametrize(
    "final",
    [
        "Tracing is set up in gateway.\n\nRemaining:\n1. orders\n2. billing",
        "Phase 1 done: the proto and server are in place. In phase 2 I'll switch the callers.",
        "The server is starting in the background. Next I'll load the page and check the console.",
    ],
)
def test_announced_remaining_work_is_drift(final: str) -> None:
    assert drift_markers(final)


@pytest.mark.parametrize(
    "final",
    [
        "Remaining: none.",
        "Added tracing to all three services; 14 passed. In the next release we could sample "
        "less, optionally.",
        "Pushed to feature/cost.\n\n**Next steps (yours):** open the PR from `feature/cost`.",
        "Pushed to feature/cost. Your next steps: open the PR and ask for a review.",
    ],
)
def test_nothing_remaining_is_not_drift(final: str) -> None:
    assert drift_markers(final) == []


@pytest.mark.parametrize(
    ("prompt", "asks"),
    [
        ("Fix the retry and open a PR for it", True),
        ("Fix the retry and create a pull request", True),
        ("commit on a feature branch and push it, I'll open the PR", False),
        ("review handlers/upload.go before I open the PR, just comments", False),
        ("fix it on main, don't open a PR", False),
    ],
)
def test_a_pull_request_is_asked_for_only_when_the_agent_is_to_open_it(
    prompt: str, asks: bool
) -> None:
    from reflection_core.session.task import build_task_context

    assert build_task_context(SessionBuilder(prompt).build("Done.")).wants_pr is asks
