"""The post-compaction nudge: which kind, and that it restates the task and open gates."""

from __future__ import annotations

from reflection_core import config
from reflection_core.session.compaction import compaction_nudge, nudge_context
from tests.unit.sessionbuild import SessionBuilder


def test_untested_work_continues_with_the_open_gates() -> None:
    session = SessionBuilder("Fix the parser bug").edit("src/parser.py").build("")
    cfg = config.defaults()
    cfg["tests"]["command"] = "python -m pytest -q"
    nudge = compaction_nudge(session, nudge_context(cfg))
    assert nudge.kind == "continue_task"
    assert "Next: Run `python -m pytest -q`" in nudge.text
    assert "Fix the parser bug" in nudge.text and "tests have not run" in nudge.text
    assert "src/parser.py" in nudge.text


def test_tested_work_is_complete_and_not_redone() -> None:
    session = (
        SessionBuilder("Fix the parser bug")
        .edit("src/parser.py")
        .bash("pytest -q", output="3 passed")
        .build("Fixed and tested.")
    )
    nudge = compaction_nudge(session, nudge_context(config.defaults()))
    assert nudge.kind == "task_complete" and "Do not redo it" in nudge.text


def test_changes_after_the_pr_push_need_a_pr_update() -> None:
    session = (
        SessionBuilder("Fix the parser bug and open a PR")
        .edit("src/parser.py")
        .bash("git push -u origin feature/x")
        .bash("gh pr create --fill", output="https://github.com/o/r/pull/3")
        .edit("src/parser.py", new="y = 3")
        .build("")
    )
    assert compaction_nudge(session, nudge_context(None)).kind == "update_pr"


def test_lost_task_asks_for_clarification() -> None:
    session = SessionBuilder("").read("src/a.py").build("")
    assert compaction_nudge(session, nudge_context(None)).kind == "ask_clarification"


def test_a_config_dict_is_accepted_as_context() -> None:
    session = SessionBuilder("Fix the parser bug").edit("src/parser.py").build("")
    assert compaction_nudge(session, config.defaults()).kind == "continue_task"


def test_an_open_question_to_the_user_asks_again_instead_of_guessing() -> None:
    session = (
        SessionBuilder("Add multi-currency support to invoices")
        .read("billing/invoice.py")
        .say("Should amounts convert at the invoice date's rate or the payment date's?")
        .build("")
    )
    session.compaction_summary = "I asked which exchange rate to use. No code changed."
    assert compaction_nudge(session, nudge_context(None)).kind == "ask_clarification"


def test_a_commit_not_yet_pushed_to_an_open_pr_needs_a_pr_update() -> None:
    session = (
        SessionBuilder("Get PR #198 green: CI is failing on lint")
        .bash("gh pr checks 198", exit=1, output="lint fail")
        .bash("ruff check --fix .")
        .bash("git commit -am 'Remove unused import'")
        .build("")
    )
    assert compaction_nudge(session, nudge_context(None)).kind == "update_pr"


def test_summary_restating_the_request_is_not_remaining_work() -> None:
    session = (
        SessionBuilder("Which services still use Python 3.8? Just list them.")
        .bash("grep -rl python:3.8 .", output="./services/mailer/Dockerfile")
        .build("")
    )
    session.compaction_summary = (
        "The user asked which services still use Python 3.8. Found one: mailer.\n"
        "The answer was already given to the user."
    )
    assert compaction_nudge(session, nudge_context(None)).kind == "task_complete"
