"""Eval scoring: comparisons, confusion rates, per-category accuracy, thresholds."""

from __future__ import annotations

import pytest

from reflection_core.evals.metrics import (
    CaseResult,
    check_thresholds,
    compare,
    flipped_cases,
    suite_metrics,
    value_matches,
    wilson_interval,
)


@pytest.mark.parametrize(
    ("expected", "got", "ok"),
    [
        (True, True, True),
        (False, True, False),
        ("HIGH", "HIGH", True),
        ("HIGH", "MEDIUM", False),
        ({"min": 3, "max": 4}, 4, True),
        ({"min": 3, "max": 4}, 5, False),
        ({"min": 3}, 5, True),
        ({"max": 0}, 0, True),
        ({"min": 1}, None, False),
        ({"min": 0}, True, False),
        (["a", "b"], ["b", "a"], True),
        (["a"], ["a", "b"], False),
        ([], [], True),
        ([], None, False),
        (2.5, 2.5000000001, True),
    ],
)
def test_value_matches(expected: object, got: object, ok: bool) -> None:
    assert value_matches(expected, got) is ok


def test_compare_lists_every_wrong_field_including_missing_ones() -> None:
    mismatches = compare(
        {"complete": False, "severity": "HIGH", "stop_category": "working"},
        {"complete": True, "severity": "HIGH"},
    )
    assert [(m.field, m.expected, m.got) for m in mismatches] == [
        ("complete", False, True),
        ("stop_category", "working", None),
    ]


def _result(
    case_id: str, category: str, expected: dict, got: dict | None, error: str | None = None
):
    mismatches = compare(expected, got) if got is not None else []
    return CaseResult(case_id, category, expected, got, mismatches, error=error)


def test_false_complete_is_incomplete_work_judged_complete() -> None:
    results = [
        _result("a", "true_incomplete/x", {"complete": False}, {"complete": True}),
        _result("b", "true_incomplete/x", {"complete": False}, {"complete": False}),
        _result("c", "true_incomplete/y", {"complete": False}, {"complete": False}),
        _result("d", "true_incomplete/y", {"complete": False}, {"complete": False}),
        _result("e", "true_complete/z", {"complete": True}, {"complete": False}),
        _result("f", "true_complete/z", {"complete": True}, {"complete": True}),
    ]
    m = suite_metrics(results)
    assert m["false_complete_rate"] == pytest.approx(1 / 4)
    assert m["false_incomplete_rate"] == pytest.approx(1 / 2)
    assert m["accuracy"] == pytest.approx(4 / 6)
    assert m["complete_counts"] == {
        "expected_true": 2,
        "expected_false": 4,
        "false_complete": 1,
        "false_incomplete": 1,
    }


def test_per_category_groups_by_the_top_level_and_keeps_subcategories() -> None:
    results = [
        _result("a", "edge/oauth", {"complete": False}, {"complete": False}),
        _result("b", "edge/retry", {"complete": False}, {"complete": True}),
        _result("c", "severity/secret", {"severity": "BLOCKER"}, {"severity": "BLOCKER"}),
    ]
    m = suite_metrics(results)
    assert m["per_category"]["edge"] == {"cases": 2, "passed": 1, "accuracy": 0.5}
    assert m["per_category"]["severity"]["accuracy"] == 1.0
    assert m["per_subcategory"]["edge/retry"]["passed"] == 0


def test_severity_accuracy_counts_only_cases_that_expect_a_severity() -> None:
    results = [
        _result(
            "a",
            "x",
            {"severity": "HIGH", "complete": False},
            {"severity": "HIGH", "complete": True},
        ),
        _result("b", "x", {"severity": "NONE"}, {"severity": "LOW"}),
        _result("c", "x", {"complete": True}, {"complete": True, "severity": "LOW"}),
    ]
    assert suite_metrics(results)["severity_accuracy"] == pytest.approx(1 / 2)


def test_an_erroring_case_counts_against_accuracy_but_not_the_confusion_rates() -> None:
    results = [
        _result("a", "x", {"complete": False}, None, error="ValueError: boom"),
        _result("b", "x", {"complete": False}, {"complete": False}),
    ]
    m = suite_metrics(results)
    assert m["errors"] == 1
    assert m["accuracy"] == 0.5
    assert m["false_complete_rate"] == 0.0
    assert m["complete_accuracy"] == 0.5


def test_needs_clarification_gets_precision_recall_and_both_error_rates() -> None:
    results = [
        _result("a", "x", {"needs_clarification": True}, {"needs_clarification": True}),
        _result("b", "x", {"needs_clarification": True}, {"needs_clarification": False}),
        _result("c", "x", {"needs_clarification": False}, {"needs_clarification": True}),
        _result("d", "x", {"needs_clarification": False}, {"needs_clarification": False}),
    ]
    m = suite_metrics(results)
    assert m["precision"] == 0.5
    assert m["recall"] == 0.5
    assert m["f1"] == 0.5
    assert m["missed_clarification_rate"] == 0.5
    assert m["false_alarm_rate"] == 0.5


def test_list_fields_get_item_level_precision_and_recall() -> None:
    results = [
        _result("a", "x", {"smells": ["scope_creep", "magic_words"]}, {"smells": ["scope_creep"]}),
        _result("b", "x", {"smells": []}, {"smells": ["total_system"]}),
    ]
    m = suite_metrics(results)
    assert m["smells_precision"] == 0.5
    assert m["smells_recall"] == 0.5
    assert m["smells_accuracy"] == 0.0


def test_thresholds_floor_accuracy_and_cap_rates() -> None:
    metrics = {"accuracy": 0.84, "false_complete_rate": 0.05, "severity_accuracy": None}
    checks = check_thresholds(
        metrics, {"accuracy": 0.85, "false_complete_max": 0.05, "severity_accuracy": 0.9}
    )
    by_key = {c.key: c for c in checks}
    assert by_key["accuracy"].ok is False
    assert by_key["false_complete_max"].ok is True
    assert by_key["false_complete_max"].metric == "false_complete_rate"
    assert by_key["severity_accuracy"].ok is True  # no data: nothing to fail
    assert "FAILED" in by_key["accuracy"].describe()


def test_wilson_interval_brackets_the_rate_and_narrows_with_more_cases() -> None:
    small = wilson_interval(30, 37)
    large = wilson_interval(300, 370)
    assert small is not None and large is not None
    assert small[0] < 30 / 37 < small[1]
    assert large[1] - large[0] < small[1] - small[0]
    assert wilson_interval(0, 0) is None
    assert wilson_interval(10, 10)[1] == 1.0


def test_flipped_cases_lists_fixed_broken_and_new_cases_of_one_suite() -> None:
    previous = {
        "suites": [
            {
                "suite": "judge",
                "cases": [{"id": "a", "status": "fail"}, {"id": "b", "status": "pass"}],
            },
            {"suite": "stop", "cases": [{"id": "c", "status": "fail"}]},
        ]
    }
    current = [
        _result("a", "x", {"complete": True}, {"complete": True}),
        _result("b", "x", {"complete": True}, {"complete": False}),
        _result("c", "x", {"complete": True}, {"complete": True}),
    ]
    assert flipped_cases(previous, current, "judge") == {
        "fixed": ["a"],
        "broken": ["b"],
        "new": ["c"],
    }


def test_label_confusions_count_expected_to_got_pairs_of_categorical_fields() -> None:
    results = [
        _result("a", "x", {"stop_category": "genuinely_stuck"}, {"stop_category": "working"}),
        _result("b", "x", {"stop_category": "genuinely_stuck"}, {"stop_category": "working"}),
        _result("c", "x", {"stop_category": "complete"}, {"stop_category": "working"}),
        _result("d", "x", {"complete": True}, {"complete": False}),
    ]
    assert suite_metrics(results)["confusions"] == {
        "stop_category": {"genuinely_stuck -> working": 2, "complete -> working": 1}
    }
