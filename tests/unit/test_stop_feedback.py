"""Escalating feedback, the attempt budget, plan mode, and the status report."""

from __future__ import annotations

from reflection_core import config
from reflection_core.session.attempts import AttemptState
from reflection_core.session.decide import Decision, DecisionContext, RepoFacts, decide
from tests.unit.sessionbuild import SessionBuilder

UNTESTED = SessionBuilder("Fix the parser bug").edit("src/parser.py").build("Changed the parser.")


def strict() -> dict[str, object]:
    """`stop.require: tests`: an untested change pushes, so the feedback can be read."""
    cfg = config.defaults()
    cfg["stop"]["require"] = "tests"
    return cfg


def run(attempts: int = 0, **kwargs: object) -> Decision:
    ctx = DecisionContext(
        config=strict(),
        repo=RepoFacts(test_command="python -m pytest -q", has_tests=True),
        attempts=AttemptState(attempts=attempts),
        **kwargs,  # type: ignore[arg-type]
    )
    return decide(UNTESTED, ctx)


def test_first_attempt_lists_missing_and_the_exact_test_command() -> None:
    d = run(0)
    assert d.should_block and d.attempt == 1 and d.max_attempts == 3
    assert d.feedback is not None
    assert "attempt 1/3" in d.feedback and "Missing:" in d.feedback
    assert "`python -m pytest -q`" in d.feedback
    assert "FINAL" not in d.feedback


def test_configured_test_command_wins_over_the_detected_one() -> None:
    cfg = strict()
    cfg["tests"]["command"] = "make check"
    d = decide(UNTESTED, DecisionContext(config=cfg, repo=RepoFacts(test_command="pytest")))
    assert d.feedback is not None and "`make check`" in d.feedback


def test_last_attempt_is_the_final_warning() -> None:
    d = run(2)
    assert d.should_block and d.attempt == 3
    assert d.feedback is not None and "FINAL attempt (3/3)" in d.feedback
    assert "explain" in d.feedback


def test_spent_budget_never_blocks_and_leaves_a_status_report() -> None:
    d = run(3)
    assert not d.should_block and d.feedback is None and d.budget_exhausted
    assert d.status == "incomplete" and d.attempt == 3
    assert d.status_report is not None and "tests have not run" in d.status_report


def test_zero_budget_never_blocks() -> None:
    cfg = strict()
    cfg["stop"]["max_attempts"] = 0
    d = decide(UNTESTED, DecisionContext(config=cfg))
    assert not d.should_block and d.budget_exhausted


def test_a_stop_with_no_new_events_counts_the_next_attempt_not_the_final_one() -> None:
    # The transcript file can lag the hook, so an unchanged event count is no proof
    # the agent ignored the feedback: attempts still go 1, 2, 3.
    state = AttemptState(attempts=1)
    ctx = DecisionContext(config=strict(), attempts=state)
    d = decide(UNTESTED, ctx)
    assert d.should_block and d.attempt == 2
    assert d.feedback is not None and "FINAL" not in d.feedback


def test_plan_mode_is_never_pushed() -> None:
    d = run(0, permission_mode="plan")
    assert not d.should_block and d.status == "waiting_for_user" and d.plan_only


def test_plan_only_request_is_never_pushed() -> None:
    session = (
        SessionBuilder("Just plan the refactor of the exporter, don't implement it")
        .read("src/export.py")
        .build("Plan: 1. split module 2. add tests. Next steps: implement step 1.")
    )
    d = decide(session, DecisionContext(config=config.defaults()))
    assert not d.should_block and d.complete


def test_severity_levels() -> None:
    assert run(0).severity == "MEDIUM"
    failing = (
        SessionBuilder("Fix it").edit("a.py").bash("pytest", exit=1, output="1 failed").build("x")
    )
    assert decide(failing, DecisionContext(config=config.defaults())).severity == "HIGH"


def test_agent_scores() -> None:
    assert run(0).agent_score == 3  # partial: a change, only verification missing
    scaffold = (
        SessionBuilder("Implement the webhook receiver")
        .write("app/webhooks.py")
        .build("Created the module; the signature check and parsing still need to be written.")
    )
    assert decide(scaffold, DecisionContext(config=config.defaults())).agent_score == 2
    partial = (
        SessionBuilder("Fix the parser bug and the lexer bug")
        .edit("src/parser.py")
        .bash("pytest -q", output="5 passed")
        .build("Parser fixed and tested. The lexer is next.")
    )
    assert decide(partial, DecisionContext(config=config.defaults())).agent_score == 3
    idle = SessionBuilder("Fix the crash in the exporter").build("")
    assert decide(idle, DecisionContext(config=config.defaults())).agent_score == 0
    looked = SessionBuilder("Fix the crash in the exporter").read("a.py").build("I looked.")
    assert decide(looked, DecisionContext(config=config.defaults())).agent_score == 1


def test_failing_configured_gates_become_gaps_in_the_feedback() -> None:
    from reflection_core.session.decide import ExternalGateFailure

    tested = (
        SessionBuilder("Fix the parser bug")
        .edit("src/parser.py")
        .bash("pytest -q", output="4 passed")
        .build("Done.")
    )
    failure = ExternalGateFailure("lint", "lint: `ruff check .` exit 1\n  F401 unused import")
    d = decide(tested, DecisionContext(config=config.defaults(), gate_failures=[failure]))
    assert d.should_block and d.feedback is not None and "ruff check" in d.feedback


def test_an_escalated_gate_run_stops_pushing_and_asks_the_user() -> None:
    from reflection_core.session.decide import ExternalGateFailure

    failure = ExternalGateFailure("tests", "tests: `pytest` exit 1", escalate=True)
    ctx = DecisionContext(
        config=config.defaults(),
        gate_failures=[failure],
        gate_escalation="The same failure persisted 3 times. Is the fixture data current?",
    )
    d = decide(UNTESTED, ctx)
    assert d.status == "blocked" and not d.should_block and d.requires_human_action
    assert d.next_actions[0].startswith("Answer: The same failure persisted")


def test_feedback_already_in_the_transcript_counts_even_if_the_state_was_lost() -> None:
    session = SessionBuilder("Fix the parser bug").edit("src/parser.py").build("Changed it.")
    session.hook_feedback = [
        "Stop hook feedback:\nreflection (attempt 1/3): the task is not done yet.",
        "Stop hook feedback:\nreflection (attempt 2/3): the task is not done yet.",
    ]
    d = decide(session, DecisionContext(config=strict()))
    assert d.attempt == 3 and d.feedback is not None and "FINAL" in d.feedback
    session.hook_feedback.append("Stop hook feedback:\nreflection — FINAL attempt (3/3): ...")
    d = decide(session, DecisionContext(config=strict()))
    assert not d.should_block and d.budget_exhausted


def test_by_default_an_untested_change_is_a_note_naming_the_command_not_a_push() -> None:
    ctx = DecisionContext(
        config=config.defaults(),
        repo=RepoFacts(test_command="python -m pytest -q", has_tests=True),
    )
    d = decide(UNTESTED, ctx)
    assert not d.should_block and d.note is not None and "tests have not run" in d.note
    assert "Run `python -m pytest -q`" in d.next_actions[0]
