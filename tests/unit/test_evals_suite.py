"""Suite files: validation errors name the file and case; the shipped suites are complete."""

from __future__ import annotations

from pathlib import Path

import pytest

from reflection_core.evals.suite import (
    SUITE_NAMES,
    SuiteError,
    find_suites,
    load_suite,
    parse_suite,
)

EVALS = Path(__file__).resolve().parents[2] / "evals"
CASE = {"id": "c-1", "category": "a/b", "task": "t", "expect": {"complete": True}}


def _suite(**overrides: object) -> dict:
    return {"suite": "s", "target": "session", "cases": [dict(CASE)], **overrides}


def test_a_minimal_suite_parses_with_inputs_separated_from_labels() -> None:
    suite = parse_suite(_suite(thresholds={"accuracy": 0.9}), Path("s.yaml"))
    case = suite.cases[0]
    assert case.inputs == {"task": "t"}
    assert case.expect == {"complete": True}
    assert case.top_category == "a"
    assert suite.thresholds == {"accuracy": 0.9}


@pytest.mark.parametrize(
    ("doc", "message"),
    [
        (_suite(target="llm"), "'target' must be one of"),
        (_suite(cases=[]), "'cases' must be a non-empty list"),
        (_suite(cases=[dict(CASE), dict(CASE)]), "duplicate case id 'c-1'"),
        (_suite(cases=[{**CASE, "id": "a b"}]), "'id' must be"),
        (_suite(cases=[{**CASE, "expect": {}}]), "c-1: 'expect' must be"),
        (_suite(cases=[{**CASE, "category": ""}]), "c-1: 'category' is required"),
        (_suite(cases=[{**CASE, "expect": {"agent_score": {"low": 1}}}]), "min: N, max: N"),
        (_suite(thresholds={"accuracy": 1.5}), "from 0 to 1"),
        (_suite(thresholds={"acuracy": 0.5}), "no metric 'acuracy'"),
        (_suite(thresholds={"false_alarm_max": 0.1}), "no metric 'false_alarm_rate'"),
        (_suite(min_cases=2), "fewer than min_cases 2"),
        (["not", "a", "mapping"], "expected a mapping"),
    ],
)
def test_bad_suites_are_rejected_with_a_reason(doc: object, message: str) -> None:
    with pytest.raises(SuiteError, match=message) as info:
        parse_suite(doc, Path("evals/s.yaml"))
    assert "evals/s.yaml" in str(info.value)


def test_invalid_yaml_names_the_file(tmp_path: Path) -> None:
    bad = tmp_path / "judge.yaml"
    bad.write_text("suite: judge\ncases: [\n", encoding="utf-8")
    with pytest.raises(SuiteError, match="invalid YAML"):
        load_suite(bad)


def test_unknown_suite_name_lists_the_known_ones() -> None:
    with pytest.raises(SuiteError, match=r"unknown suite 'jduge'.*judge"):
        find_suites(EVALS, ["jduge"])


def test_no_names_means_every_suite_in_a_fixed_order() -> None:
    assert [p.stem for p in find_suites(EVALS)] == list(SUITE_NAMES)


MINIMUM_CASES = {"judge": 30, "stop": 16, "post-compaction": 14, "agent": 10, "prompts": 90}


@pytest.mark.parametrize("name", SUITE_NAMES)
def test_shipped_suite_loads_and_meets_its_documented_case_count(name: str) -> None:
    suite = load_suite(EVALS / f"{name}.yaml")
    assert suite.name == name
    assert len(suite.cases) >= MINIMUM_CASES[name]
    assert suite.min_cases >= MINIMUM_CASES[name]
    assert "accuracy" in suite.thresholds


def test_judge_suite_covers_every_category_the_issue_lists() -> None:
    suite = load_suite(EVALS / "judge.yaml")
    subcategories = {c.category.split("/", 1)[1] for c in suite.cases}
    for needed in (
        "file_creation",
        "bug_fix",
        "multi_file_refactor",
        "docs_only",
        "failed_tests",
        "mid_task_stop",
        "read_only_stop",
        "commit_without_tests",
        "tests_skipped",
        "flaky_dismissed",
        "human_action_oauth",
        "human_action_2fa",
        "human_action_api_key",
        "task_deviation",
        "several_verifications_one_done",
        "planning_only_coding_task",
        "retry_loop",
        "gold_plating",
        "context_exhaustion",
    ):
        assert needed in subcategories, needed
    assert any(c.expect.get("severity") == "BLOCKER" for c in suite.cases)


def test_stop_and_compaction_suites_cover_every_label() -> None:
    stop = {c.expect["stop_category"] for c in load_suite(EVALS / "stop.yaml").cases}
    assert stop == {
        "complete",
        "working",
        "waiting_for_user",
        "genuinely_stuck",
        "summary_drift_stop",
        "tool_available_punt",
    }
    kinds = {c.expect["kind"] for c in load_suite(EVALS / "post-compaction.yaml").cases}
    assert kinds == {"continue_task", "update_pr", "ask_clarification", "task_complete"}


def test_every_session_case_has_a_transcript() -> None:
    from reflection_core.evals.transcript_builder import build_records

    for name in ("judge", "stop", "post-compaction", "agent"):
        for case in load_suite(EVALS / f"{name}.yaml").cases:
            if "transcript" in case.inputs:
                assert (EVALS / case.inputs["transcript"]).is_file(), case.id
                continue
            records = build_records(case.inputs)
            assert records[0]["message"]["content"] == case.inputs["task"], case.id


@pytest.mark.parametrize(
    ("name", "field"), [("stop", "stop_category"), ("post-compaction", "kind")]
)
def test_each_case_is_filed_under_the_label_it_expects(name: str, field: str) -> None:
    for case in load_suite(EVALS / f"{name}.yaml").cases:
        assert case.top_category == case.expect[field], case.id


def test_judge_categories_agree_with_the_completion_label() -> None:
    for case in load_suite(EVALS / "judge.yaml").cases:
        assert case.top_category in {"true_complete", "true_incomplete", "edge", "severity"}
        if case.top_category == "true_complete":
            assert case.expect["complete"] is True, case.id
        if case.top_category in ("true_incomplete", "severity"):
            assert case.expect["complete"] is False, case.id
