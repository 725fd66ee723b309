"""Fix-attempt tracker and escalation rule; quick-fix planning."""

from __future__ import annotations

from reflection_core.verify.quick_fix import plan_fixes
from reflection_core.verify.tracker import FAILED, SUCCESS, TaskHistory, Tracker, escalation


def test_escalates_when_one_error_reaches_the_limit() -> None:
    history = TaskHistory(rounds=3, signature_counts={"lint:a": 3, "tests:b": 1})
    decision = escalation(history, ["tests:b", "lint:a"], same_error_limit=3, max_rounds=5)
    assert decision is not None
    assert (decision.reason, decision.signature, decision.count) == ("same_error", "lint:a", 3)


def test_errors_no_longer_failing_do_not_escalate() -> None:
    history = TaskHistory(rounds=3, signature_counts={"lint:a": 3, "tests:b": 1})
    assert escalation(history, ["tests:b"], same_error_limit=3, max_rounds=5) is None


def test_exhausted_budget_escalates() -> None:
    history = TaskHistory(rounds=5, signature_counts={"x:1": 1})
    decision = escalation(history, ["x:1"], same_error_limit=3, max_rounds=5)
    assert decision is not None and decision.reason == "exhausted"


def test_nothing_failing_never_escalates() -> None:
    history = TaskHistory(rounds=9, signature_counts={"x:1": 9})
    assert escalation(history, [], same_error_limit=3, max_rounds=5) is None


def test_tracker_counts_rounds_and_failed_fixes_per_task() -> None:
    one, two = Tracker("task-1"), Tracker("task-2")
    one.record_fix("lint:a", "lint", "ruff check --fix .", FAILED)
    one.record_fix("lint:a", "lint", "ruff format .", SUCCESS)
    one.record_round([("lint", "lint:a", "F401")])
    history = one.record_round([("lint", "lint:a", "F401"), ("tests", "tests:b", "E")])
    assert history.rounds == 2
    assert history.signature_counts == {"lint:a": 2, "tests:b": 1}
    assert one.failed_fixes("lint:a") == {"ruff check --fix ."}
    assert two.failed_fixes("lint:a") == set()
    assert two.history().rounds == 0
    one.reset()
    assert one.history() == TaskHistory()


def test_fix_plan_holds_back_fixes_that_failed_before() -> None:
    gate = {"fix": ["ruff check --fix .", "ruff format ."], "fix_patterns": []}
    plan = plan_fixes(gate, "F401", {"ruff check --fix ."})
    assert plan.to_try == ["ruff format ."]
    assert plan.skipped == ["ruff check --fix ."]


def test_fix_patterns_gate_the_fixes() -> None:
    gate = {"fix": ["isort ."], "fix_patterns": [r"^I001"]}
    assert plan_fixes(gate, "mod.py:1:1: F401", set()).to_try == []
    assert plan_fixes(gate, "I001 unsorted imports", set()).to_try == ["isort ."]
