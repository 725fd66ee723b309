"""Scope governor: several tasks become a numbered table and a request for the order."""

from __future__ import annotations

from reflection_core.prompt.scope import govern


def test_numeric_range_over_a_list_expands_to_tasks() -> None:
    scope = govern("do tasks 1 to 5 from the board")
    assert not scope.atomic
    assert scope.tasks == ("task 1", "task 2", "task 3", "task 4", "task 5")


def test_hyphen_range_counts_too() -> None:
    assert len(govern("do items 3-7 from the sprint board").tasks) == 5


def test_embedded_list_of_actions_is_a_task_table() -> None:
    scope = govern("Housekeeping:\n1. bump eslint to 9\n2. remove `moment`\n3. fix the dead link")
    assert not scope.atomic
    assert scope.tasks == ("bump eslint to 9", "remove `moment`", "fix the dead link")


def test_list_of_requirements_under_one_action_is_one_task() -> None:
    scope = govern("Add a signup form with:\n- email\n- password\n- a terms checkbox")
    assert scope.atomic


def test_inline_enumeration_is_split() -> None:
    scope = govern("Three CLI fixes: (1) default --output to stdout, (2) add a zsh completion")
    assert len(scope.tasks) == 2


def test_conjunction_across_areas_is_scope_creep() -> None:
    scope = govern("add a /healthz endpoint and also can you look at the memory growth")
    assert not scope.atomic
    assert len(scope.tasks) == 2


def test_three_distinct_action_verbs_are_three_tasks() -> None:
    scope = govern("fix the flaky tests, upgrade react to 19 and make the build faster")
    assert scope.tasks == ("fix the flaky tests", "upgrade react to 19", "make the build faster")


def test_fix_plus_its_test_and_constraints_is_one_task() -> None:
    scope = govern(
        "Rename APP_DB_URL to DATABASE_URL in config/settings.py. Keep reading APP_DB_URL as a "
        "fallback and log a deprecation warning. Add a test in tests/test_settings.py."
    )
    assert scope.atomic


def test_explicit_override_marks_the_scope_as_intended() -> None:
    scope = govern(
        "fix the flaky tests, upgrade react to 19 and make the build faster, all in one go"
    )
    assert scope.override
    assert not scope.atomic
